"""copy_step.py - memory copies and sets of known size, no kernels of their own.

usage: python3 copy_step.py [GIB] [REPS]
REPS device-to-device copies y.copy_(x) of GIB GiB (cudaMemcpyAsync), one
host-to-device and one device-to-host copy of GIB GiB through pinned memory,
and one cudaMemset of GIB GiB (through CuPy's runtime binding). Prints the
bytes per direction it moved: `copy_step: d2d_bytes=... h2d_bytes=...
d2h_bytes=... set_bytes=... d2d_copies=REPS`.
"""
import sys

import torch


def main():
    gib = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    nbytes = gib << 30
    x = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    h = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    torch.cuda.synchronize()
    for _ in range(reps):
        y.copy_(x)
    x.copy_(h, non_blocking=True)
    h.copy_(y, non_blocking=True)
    torch.cuda.synchronize()
    set_bytes = 0
    try:
        import cupy
        cupy.cuda.runtime.memset(y.data_ptr(), 0, nbytes)
        cupy.cuda.runtime.deviceSynchronize()
        set_bytes = nbytes
    except Exception as e:  # CuPy missing: no memset
        print(f"copy_step: no memset ({e})")
    print(f"copy_step: d2d_bytes={reps * nbytes} h2d_bytes={nbytes} d2h_bytes={nbytes} "
          f"set_bytes={set_bytes} d2d_copies={reps}")


if __name__ == "__main__":
    main()
