"""torch_step.py - a PyTorch training step, timed (tests/gpu/run.sh overhead table).

usage: python3 torch_step.py plain|torchprof [STEPS]
A 6-layer MLP (width 2048, batch 256, fp32, AdamW) trained for STEPS steps after
10 warm-up steps; prints "loop_s=<s> steps=<n>" (host wall time around the steps,
synchronized). torchprof wraps the steps in torch.profiler with the CUDA activity
trace only (the collector issue 9 compares against)."""
import sys
import time

import torch


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    torch.manual_seed(0)
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(2048, 2048), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(256, 2048, device="cuda")
    y = torch.randn(256, 2048, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(10):
        step()
    torch.cuda.synchronize()
    if mode == "torchprof":
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            t0 = time.perf_counter()
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
            t1 = time.perf_counter()
        events = len(prof.events())
    else:
        t0 = time.perf_counter()
        for _ in range(steps):
            loss = step()
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        events = 0
    print(f"loop_s={t1 - t0:.6f} steps={steps} events={events}")


if __name__ == "__main__":
    main()
