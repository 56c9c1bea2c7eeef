"""triton_mma.py - a Triton bf16 matmul of known FLOPs on a chosen tensor path.

usage: python3 triton_mma.py [N] [REPS] [NUM_WARPS]
NUM_WARPS 2 (default) keeps Triton on mma.sync (MMAv2: Hopper's wgmma needs
warpgroups, num_warps a multiple of 4); 4 or 8 let it use wgmma. Each launch
computes C = A @ B (M = N = K = N, bf16 in, f32 accumulate), 2*N^3 FLOPs;
N must be a multiple of the 64 x 64 x 32 tile, so no tile is padded. Prints
`triton_mma: ... flop_per_launch=... path=mma.sync|wgmma` (from the PTX) and
the max error against torch.matmul.
"""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a, b, c, n, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, n, BK):
        x = tl.load(a + rm[:, None] * n + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * n + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * n + rn[None, :], acc)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    warps = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    bm = bn = 64
    bk = 32
    assert n % 64 == 0
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.float32)
    grid = (n // bm, n // bn)
    k = None
    for _ in range(reps):
        k = mm_kernel[grid](a, b, c, n, BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=2)
    torch.cuda.synchronize()
    ptx = k.asm.get("ptx", "")
    path = "wgmma" if "wgmma.mma_async" in ptx else "mma.sync" if "mma.sync" in ptx else "other"
    err = (c - (a.float() @ b.float())).abs().max().item()
    print(f"triton_mma: n={n} launches={reps} num_warps={warps} flop_per_launch={2 * n ** 3} "
          f"flop_total={2 * n ** 3 * reps} path={path} kernel=mm_kernel max_err={err:.3g}")


if __name__ == "__main__":
    main()
