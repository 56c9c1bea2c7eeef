"""calib_ncu.py - expected vs Nsight Compute for the calibration kernels.

usage: python3 calib_ncu.py NCU_RAW_CSV key=value...   (the program's arguments)

Expected values are recomputed here from the parameters (independently of
src/calib/calib_expect.c, same arithmetic as calib.cu's comments). ncu's
`--page raw --print-units base` CSV: header row, units row, quoted numbers
with thousands separators; one row per launch; summed per kernel name here.
Prints one line per check: expected, ncu, ratio."""
import csv
import sys
from collections import defaultdict

P = {"n": 1 << 27, "stream_reps": 8, "fma_blocks": 1056, "fma_threads": 256, "fma_iters": 4096,
     "fma_reps": 4, "gemm_n": 8192, "gemm_reps": 3}
for a in sys.argv[2:]:
    k, v = a.split("=")
    P[k] = int(v)


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def load(path):
    lines = [l for l in open(path, errors="replace") if not l.startswith("==")]
    rd = list(csv.reader(lines))
    if len(rd) < 3:
        sys.exit(f"{path}: no ncu rows")
    hdr, body = rd[0], rd[2:]
    ki = hdr.index("Kernel Name")
    sums, launches = defaultdict(lambda: defaultdict(float)), defaultdict(int)
    for r in body:
        if len(r) != len(hdr):
            continue
        name = r[ki].split("(")[0]
        launches[name] += 1
        for c, v in zip(hdr, r):
            x = num(v)
            if x is not None and ("__" in c):
                sums[name][c] += x
    return sums, launches


def main():
    s, nl = load(sys.argv[1])
    fl = lambda k, p: s[k][f"sm__sass_thread_inst_executed_op_{p}fma_pred_on.sum"] * 2 + \
        s[k][f"sm__sass_thread_inst_executed_op_{p}add_pred_on.sum"] + \
        s[k][f"sm__sass_thread_inst_executed_op_{p}mul_pred_on.sum"]
    lanes = lambda k: 100 * s[k]["smsp__thread_inst_executed.sum"] / max(1, 32 * s[k]["smsp__inst_executed.sum"])
    n, sr = P["n"], P["stream_reps"]
    thr = P["fma_blocks"] * P["fma_threads"] * P["fma_reps"]
    f = thr * P["fma_iters"] * 16
    reg = P["fma_blocks"] * 256 * P["fma_reps"] * max(1, P["fma_iters"] // 16) * 320
    g = 2 * P["gemm_n"] ** 3 * P["gemm_reps"]
    gemm64 = [k for k in s if s[k]["sm__ops_path_tensor_src_fp64.sum"] > 0]
    gemm16 = [k for k in s if s[k]["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] > 0]
    t64 = sum(s[k]["sm__ops_path_tensor_src_fp64.sum"] for k in s)
    t16 = sum(s[k]["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] for k in s)
    rows = [
        ("copy read bytes", 8 * n * sr, s["calib_copy"]["dram__bytes_read.sum"]),
        ("copy write bytes", 8 * n * sr, s["calib_copy"]["dram__bytes_write.sum"]),
        ("triad read bytes", 16 * n * sr, s["calib_triad"]["dram__bytes_read.sum"]),
        ("triad write bytes", 8 * n * sr, s["calib_triad"]["dram__bytes_write.sum"]),
        ("triad FP64 FLOP", 2 * n * sr, fl("calib_triad", "d")),
        ("fma_f64 FP64 FLOP", f, fl("calib_fma_f64", "d")),
        ("fma_f32 FP32 FLOP", f, fl("calib_fma_f32", "f")),
        ("fma_f16 FP16 FLOP (hfma x2)", f, fl("calib_fma_f16", "h")),
        ("diverge FP32 FLOP", f / 2, fl("calib_diverge", "f")),
        ("reglimit FP32 FLOP", reg, fl("calib_reglimit", "f")),
        ("fma_f64 lanes %", 100, lanes("calib_fma_f64")),
        ("diverge lanes %", 50, lanes("calib_diverge")),
        ("reglimit registers/thread", 128, s["calib_reglimit"]["launch__registers_per_thread"] / max(1, nl["calib_reglimit"])),
        ("reglimit warps active % of peak (<= 25)", 25, s["calib_reglimit"]["sm__warps_active.avg.pct_of_peak_sustained_active"] / max(1, nl["calib_reglimit"])),
        ("DGEMM tensor fp64 ops (all kernels) vs 2MNK", g, t64),
        ("BF16 GEMM tensor bf16 ops (all kernels) vs 2MNK", g, t16),
        ("long kernel duration ms (long_ms)", P.get("long_ms", 1000), s["calib_long"]["gpu__time_duration.sum"] / 1e6),
    ]
    print(f"{'check':48s} {'expected':>14s} {'ncu':>14s} {'ratio':>9s}")
    for name, e, m in rows:
        print(f"{name:48s} {e:14.6g} {m:14.6g} {m / e if e else float('nan'):9.5f}")
    print(f"GEMM kernels: fp64 {gemm64[:3]} bf16 {gemm16[:3]}")
    for k in gemm64[:1] + gemm16[:1]:
        print(f"  {k[:60]}: dmma inst {s[k]['sm__inst_executed_pipe_tensor_op_dmma.sum']:.6g}, "
              f"gmma inst {s[k]['sm__inst_executed_pipe_tensor_op_gmma.sum']:.6g}, launches {nl[k]}")


if __name__ == "__main__":
    main()
