#!/bin/bash
# 0801-calibrate: benchrun calibrate without a GPU: usage errors; --check on a
# generated analysis + power run (values recomputed here in Python from
# calib.cu's arithmetic, independently of src/calib/): all pass, then a FLOP
# count 0.5 % off and a power run whose samples are 300 ms late must miss
# (exit 1); --build-only compiles calib.cu when nvcc is present and writes a
# conf that `benchrun plain --dry-run` accepts.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "calibrate --help" -- "$BENCHRUN" calibrate --help
expect_grep "known-answer kernels" "$T/out" "help text"
expect_exit 2 "bad vendor" -- "$BENCHRUN" calibrate --vendor intel
expect_exit 2 "--power without --check" -- "$BENCHRUN" calibrate --power /x
expect_exit 2 "stray argument" -- "$BENCHRUN" calibrate foo

# gen DIR FLOP_FACTOR SHIFT_MS [RATE_FACTOR]: a pmc folder with analysis/ and a
# power run; the FMA loops' TFLOP/s columns are FLOPs / their trace time x
# RATE_FACTOR (1: a right time base).
gen() {
    python3 - "$1" "$2" "$3" "${4:-1}" <<'PY'
import os, sys
d, f, shift, tb = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]) * 1000000, float(sys.argv[4])
n, reps = 1 << 27, 8
threads = 1056 * 256 * 4                     # blocks x threads x launches
fl = threads * 4096 * 8 * 2 * f
gemm = 2 * 7680 ** 3 * 3
cols = ["kernel", "kernel_full_name", "VALUUtilization_pct", "Occupancy_pct", "FP64_VALU_FLOP",
        "FP32_VALU_FLOP", "FP16_VALU_FLOP", "FP64_MFMA_FLOP", "BF16_MFMA_FLOP",
        "mem_read_bytes", "mem_write_bytes", "bound_mix", "F16_TENSOR_FLOP", "TF32_TENSOR_FLOP",
        "F8_TENSOR_FLOP", "I8_TENSOR_OPS"]
rows = [
    ["calib_copy", "calib_copy", 100, 70, "", "", "", "", "", 8 * n * reps * 1.01, 8 * n * reps * 0.995, "memory"],
    ["calib_triad", "calib_triad", 100, 70, 2 * n * reps, "", "", "", "", 16 * n * reps, 8 * n * reps, "memory"],
    ["calib_fma_f64", "calib_fma_f64", 99.9, 90, fl, "", "", "", "", 0, 0, "compute"],
    ["calib_fma_f32", "calib_fma_f32", 99.9, 90, "", fl, "", "", "", 0, 0, "compute"],
    # NVIDIA: 4 packed HFMA2 per iteration, each counted once (2 FLOP of its 4)
    ["calib_fma_f16", "calib_fma_f16", 99.9, 90, "", "", fl / 2, "", "", 0, 0, "compute"],
    ["calib_diverge", "calib_diverge", 50.2, 90, "", fl / 2, "", "", "", 0, 0, "compute"],
    ["calib_reglimit", "calib_reglimit", 100, 23.9, "", 1056 * 256 * 4 * 256 * 160 * 2, "", "", "", 1e6, 1e6, "compute"],
    ["dgemm_k", "\"void dgemm_k<128, 2>(Params, int)\"", 100, 20, 1e6, "", "", gemm, "", 1e9, 1e9, "compute"],
    ["bf16_k", "bf16_k", 100, 20, "", "", "", "", gemm, 1e9, 1e9, "compute"],
    ["TOTAL", "TOTAL", 95, 50, 1e12, 1e12, fl, gemm, gemm, 1e11, 1e11, "memory"],
]
for r in rows:
    r += ["", "", "", ""]
# tensor paths: 2*M*N*K per instruction x 4 per iteration x 1024 iterations x
# 2 launches x (528 blocks x 4 warps, or 528 warpgroups for wgmma)
col = {c: i for i, c in enumerate(cols)}
tk = [("calib_mma_bf16_k16", "BF16_MFMA_FLOP", 16, 8, 16, 0), ("calib_mma_bf16_k8", "BF16_MFMA_FLOP", 16, 8, 8, 0),
      ("calib_mma_f16_k16", "F16_TENSOR_FLOP", 16, 8, 16, 0), ("calib_mma_f16_k8", "F16_TENSOR_FLOP", 16, 8, 8, 0),
      ("calib_mma_f16f32_k16", "F16_TENSOR_FLOP", 16, 8, 16, 0), ("calib_mma_f16f32_k8", "F16_TENSOR_FLOP", 16, 8, 8, 0),
      ("calib_mma_tf32_k8", "TF32_TENSOR_FLOP", 16, 8, 8, 0), ("calib_mma_s8_k32", "I8_TENSOR_OPS", 16, 8, 32, 0),
      ("calib_mma_f64_k4", "FP64_MFMA_FLOP", 8, 8, 4, 0), ("calib_wgmma_bf16", "BF16_MFMA_FLOP", 64, 64, 16, 1),
      ("calib_wgmma_f16", "F16_TENSOR_FLOP", 64, 64, 16, 1), ("calib_wgmma_f16_f16", "F16_TENSOR_FLOP", 64, 64, 16, 1),
      ("calib_wgmma_tf32", "TF32_TENSOR_FLOP", 64, 64, 8, 1), ("calib_wgmma_e4m3", "F8_TENSOR_FLOP", 64, 64, 32, 1),
      ("calib_wgmma_e5m2", "F8_TENSOR_FLOP", 64, 64, 32, 1), ("calib_wgmma_s8", "I8_TENSOR_OPS", 64, 64, 32, 1)]
for k, c, m, nn, kk, wg in tk:
    r = [k, k, 100, 50] + [""] * (len(cols) - 4)
    r[col[c]] = 2 * m * nn * kk * 4 * 1024 * 2 * (528 if wg else 528 * 4)
    r[col["bound_mix"]] = "compute"
    rows.insert(-1, r)
# mixed: per thread and iteration 4 counted FLOPs each of FP64, FP32, FP16 (128 x 528
# threads, 1024 iterations, 2 launches); per warp one m16n8k16 bf16 and one m8n8k4 f64,
# per warpgroup one m64n64k16 bf16
thr, it = 128 * 528, 1024 * 2
r = ["calib_mixed_paths", "calib_mixed_paths", 100, 50] + [""] * (len(cols) - 4)
r[col["FP64_VALU_FLOP"]] = r[col["FP32_VALU_FLOP"]] = r[col["FP16_VALU_FLOP"]] = 4 * thr * it
r[col["BF16_MFMA_FLOP"]] = it * (528 * 4 * 2 * 16 * 8 * 16 + 528 * 2 * 64 * 64 * 16)
r[col["FP64_MFMA_FLOP"]] = it * 528 * 4 * 2 * 8 * 8 * 4
r[col["bound_mix"]] = "compute"
rows.insert(-1, r)
# TOTAL: the GEMMs plus every tensor-path kernel of that precision
tot = rows[-1]
for c in ("FP64_MFMA_FLOP", "BF16_MFMA_FLOP"):
    tot[col[c]] = gemm + sum(x[col[c]] for x in rows[:-1] if x[0].startswith("calib_") and x[col[c]] != "")
fma_ns = 4 * 2_500_000                       # 4 launches of 2.5 ms in the trace
cols += ["TFLOPs_FP64_VALU", "TFLOPs_FP32"]
extra = {"calib_fma_f64": [fl / fma_ns / 1000 * tb, ""], "calib_fma_f32": ["", fl / fma_ns / 1000 * tb]}
for r in rows:
    r += extra.get(r[0], ["", ""])
os.makedirs(f"{d}/pmc/analysis", exist_ok=True)
with open(f"{d}/pmc/analysis/per_kernel_metrics.csv", "w") as fp:
    fp.write(",".join(cols) + "\n")
    for r in rows:
        fp.write(",".join(x if isinstance(x, str) else repr(x) for x in r) + "\n")
ks, ke = 10_000_000_000, 11_000_000_500        # long kernel: 1000.0005 ms
os.makedirs(f"{d}/prof/ktrace_calibrate", exist_ok=True)
hdr = ("Kind,Agent_Id,Queue_Id,Stream_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
       "Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,"
       "SGPR_Count,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z")
with open(f"{d}/prof/ktrace_calibrate/calibrate_9_kernel_trace.csv", "w") as fp:
    fp.write(",".join(f'"{h}"' for h in hdr.split(",")) + "\n")
    for i, k in enumerate(["calib_fma_f64"] * 4 + ["calib_fma_f32"] * 4):
        s0 = ks - 5_000_000_000 + i * 3_000_000
        fp.write(f'"KERNEL_DISPATCH","Agent 0",1,7,9,{i + 2},2,"{k}",{i + 2},{s0},{s0 + 2_500_000},'
                 '0,0,32,0,0,256,1,1,270336,1,1\n')
    fp.write(f'"KERNEL_DISPATCH","Agent 0",1,7,9,1,1,"calib_long",1,{ks},{ke},0,0,13,0,0,256,1,1,135168,1,1\n')
with open(f"{d}/prof/profiling_result_calibrate_0.csv", "w") as fp:
    fp.write("device=0 backend=nvml interval_ms=1\n")
    fp.write("timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C\n")
    for i in range(1800):                      # 1 ms samples, 100 ms refresh, 0.5 s before
        t = ks - 500_000_000 + i * 1_000_000
        src = (t - shift) // 100_000_000 * 100_000_000   # last refresh (source time)
        w = 480.0 if ks <= src < ke else 95.0 + (i // 100) % 3
        fp.write(f"{t + 0},{w},nan,1980,nan,55\n")
PY
}

gen "$T/good" 1.0 0
expect_exit 0 "check: all within tolerance" -- "$BENCHRUN" calibrate --check "$T/good/pmc" \
    --power "$T/good/prof" -o "$T/good/out"
expect_grep "^[0-9]+ checks: [0-9]+ ok, 0 missed" "$T/out" "summary line, no miss"
expect_grep "^copy: DRAM read bytes +8.58993e\+09 ±2% +8.67583e\+09 \(\+1.000%\) +ok" "$T/out" "copy read bytes +1 %"
expect_grep "long kernel: power rise vs start \(sampler telemetry\)" "$T/out" "power rise row"
expect_grep "^FP32 FMA loop: TFLOP/s vs FLOPs / trace time +7.087 TFLOP/s ±5% .* 7.087 \(\+0.00%\) +ok" \
    "$T/out" "FP32 rate matches FLOPs / trace time"
expect_grep "register-limited: max warps per SM .* skip" "$T/out" "absent optional metric skipped"
expect_grep "^\| DGEMM \(cuBLAS\): bound \| compute \| compute \| ok \| dgemm_k bound_mix \|" \
    "$T/good/out/calibration.md" "markdown table written"
cat "$T/out"

gen "$T/bad" 1.005 300
expect_exit 1 "check: FLOPs +0.5 % and samples 300 ms late" -- "$BENCHRUN" calibrate \
    --check "$T/bad/pmc" --power "$T/bad/prof" -o "$T/bad/out"
expect_grep "^FP64 FMA loop: FLOPs .*\(\+0.500%\) +MISS" "$T/out" "FLOP miss"
expect_grep "power rise vs start \(sampler telemetry\) .* MISS" "$T/out" "misaligned power rise"
gen "$T/tb" 1.0 0 1.1
expect_exit 1 "check: TFLOP/s 10 % off FLOPs / trace time" -- "$BENCHRUN" calibrate \
    --check "$T/tb/pmc" --power "$T/tb/prof" -o "$T/tb/out"
expect_grep "^FP64 FMA loop: TFLOP/s vs FLOPs / trace time .*\(\+10.00%\) +MISS" "$T/out" "time-base miss"
expect_grep "^[0-9]+ checks: [0-9]+ ok, 2 missed" "$T/out" "only the two rate checks miss"
expect_exit 1 "check: no analysis" -- "$BENCHRUN" calibrate --check "$T/none" -o "$T/none-out"
expect_grep "no analysis to check" "$T/out" "missing analysis reported"

# The whole flow with a stand-in compiler (writes a shell script as the
# program): build, conf, plain stage; without a GPU the plain stage fails
# (VENDOR=nvidia, no GPU seen), which must be reported and exit 1.
cat >"$T/fakecc" <<'SH'
#!/bin/bash
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
printf '#!/bin/sh\necho calib_total_s=0.001\n' >"$out" && chmod +x "$out"
SH
chmod +x "$T/fakecc"
expect_exit 1 "full run with a stand-in compiler, no GPU" -- "$BENCHRUN" calibrate --vendor nvidia \
    --compiler "$T/fakecc" -o "$T/flow"
expect_grep "^stage plain: exit status +0 +[0-9]+ \(.*MISS" "$T/out" "failed plain stage reported"
[ -f "$T/flow/logs/plain.log" ] && pass "stage log kept" || fail "no $T/flow/logs/plain.log"
expect_grep "stage plain: exit status" "$T/flow/calibration.md" "table written on failure"

NVCC=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | tail -1)
if [ -n "$NVCC" ]; then
    expect_exit 0 "build-only with $NVCC" -- "$BENCHRUN" calibrate --build-only --vendor nvidia \
        --compiler "$NVCC" -o "$T/build"
    [ -x "$T/build/bin/calib" ] && pass "calib program built" || fail "no $T/build/bin/calib"
    expect_exit 0 "plain --dry-run accepts calibrate.conf" -- "$BENCHRUN" plain --dry-run "$T/build/calibrate.conf"
    expect_grep "APP_CMD: .*/bin/calib n=134217728 .* long_ms=1000" "$T/out" "conf runs the program with the parameters"
else
    echo "skip: no nvcc, --build-only not tested"
fi
finish
