#!/bin/bash
# calib_ncu.sh - ground truth for the calibration kernels from Nsight Compute,
# independent of benchrun's own collector: builds calib.cu (benchrun calibrate
# --build-only), runs it once under ncu (--clock-control none --cache-control
# none, SASS FLOP counters, DRAM bytes, thread/warp instructions, warps active,
# tensor-pipe ops, registers) with small repetition counts, and prints expected
# (recomputed in tests/gpu/calib_ncu.py from the same parameters) vs ncu.
#   bash tests/gpu/calib_ncu.sh BENCHRUN OUTDIR
# A calibrate MISS whose ncu row matches the expectation is a collector or
# profile problem; one whose ncu row misses too is the kernel's (or the
# counter's definition).
set -u
BR=$1 D=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
command -v ncu >/dev/null || PATH=$PATH:$(dirname "$(ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)")
"$BR" calibrate --build-only --vendor nvidia -o "$D/cal" >"$D/build.log" 2>&1 || { cat "$D/build.log"; exit 1; }
ARGS=${CALIB_NCU_ARGS:-"n=134217728 stream_reps=2 fma_blocks=1056 fma_threads=256 fma_iters=4096 fma_reps=1 gemm_n=8192 gemm_reps=1 long_ms=20 idle_ms=0 flush_mib=256"}
M=sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum
M=$M,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum
M=$M,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,smsp__thread_inst_executed.sum,smsp__inst_executed.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,sm__ops_path_tensor_src_fp64.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum
M=$M,sm__inst_executed_pipe_tensor_op_dmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,launch__registers_per_thread,gpu__time_duration.sum
t0=$(date +%s)
# shellcheck disable=SC2086
ncu --csv --page raw --print-units base --clock-control none --cache-control none \
    --metrics "$M" --log-file "$D/ncu.csv" "$D/cal/bin/calib" $ARGS >"$D/ncu_app.log" 2>&1
echo "ncu exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$D/ncu_app.log"
python3 "$ROOT/tests/gpu/calib_ncu.py" "$D/ncu.csv" $ARGS | tee "$D/calib_ncu.txt"
