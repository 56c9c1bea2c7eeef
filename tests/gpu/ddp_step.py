"""ddp_step.py - a data-parallel PyTorch training step for tests/gpu/multi.sh (issue 7).

usage: torchrun --standalone --nproc_per_node=N ddp_step.py [STEPS]

One worker per GPU (torchrun starts them: NTASKS=1 in the conf, one process
starting its own workers). Every rank runs the same model and the same batch
shape on its own GPU (cuda:LOCAL_RANK), random data (seed 1000 + rank), fixed
weights (seed 0, identical on all ranks), bf16 autocast, DDP gradient
all-reduce over NCCL, SGD. So every GPU does the same FLOPs: the per-GPU FLOP
totals of the counter run must agree within 1 %. WARMUP steps, then STEPS
timed steps. Rank r prints
  ddp rank=<r> local_rank=<l> world=<n> pid=<pid> bus=<PCI bus id> step_ms=<median> loss=<x>
and rank 0 also "ddp_step step_ms=<median> world=<n>" (the conf's PERF_GREP).
"""
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

WARMUP = 2
D, LAYERS, BATCH = 4096, 4, 4096


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    layers = []
    for _ in range(LAYERS):
        layers += [torch.nn.Linear(D, D), torch.nn.GELU()]
    model = DDP(torch.nn.Sequential(*layers).cuda(), device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    g = torch.Generator(device="cuda").manual_seed(1000 + rank)
    x = torch.randn(BATCH, D, device="cuda", generator=g)
    y = torch.randn(BATCH, D, device="cuda", generator=g)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.mse_loss(model(x).float(), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        loss = step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    p = torch.cuda.get_device_properties(local)
    bus = (f"{getattr(p, 'pci_domain_id', 0):08x}:{p.pci_bus_id:02x}:{getattr(p, 'pci_device_id', 0):02x}.0"
           if hasattr(p, "pci_bus_id") else "unknown")
    ms = statistics.median(times)
    print(f"ddp rank={rank} local_rank={local} world={world} pid={os.getpid()} bus={bus} "
          f"step_ms={ms:.3f} loss={loss.item():.6f}", flush=True)
    if rank == 0:
        print(f"ddp_step step_ms={ms:.3f} world={world}", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
