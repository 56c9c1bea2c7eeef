#!/bin/bash
# xcheck.sh - counter correctness and cost of libbenchrun-cupti on one GPU call (issue 9).
#   bash tests/gpu/xcheck.sh [BUILD_DIR]   ($OUT, else ./gpu-out: table.txt, xcheck.tar.gz)
# 1. builds only libbenchrun-cupti.so, the host tool and the CUDA test programs;
# 2. cross-check: axpy (n = 16M floats, 1 warm-up + 20 launches) under each collector
#    variant (old: kernel activity on; default; init at context; kernel replay; run ranges)
#    and under ncu, same metrics; totals per metric compared (tests/gpu/xcheck.py);
# 3. counter-pass cost: (pass loop - plain loop) / launches on COST_LAUNCHES launches;
# 4. trace overhead: plain vs trace, small (1M, 20,000 launches) and large (16M, 2,000)
#    kernels, and a PyTorch step when torch is installed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build-gpu}
FINAL=${OUT:-$ROOT/gpu-out}
O=$(mktemp -d)/x
mkdir -p "$FINAL"
REPS=${REPS:-5}
CL=${COST_LAUNCHES:-5000}
mkdir -p "$O"
log() { echo "== $(date +%T) $*" | tee -a "$O/run.log"; }
log build
cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release >"$O/build.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" --target benchrun-cupti benchrun-cupti-host gpu-test-programs \
    >>"$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
LIB=$B/lib/benchrun/libbenchrun-cupti.so
G=$B/tests/gpu
command -v ncu >/dev/null || PATH=$PATH:$(dirname "$(ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | tail -1)" 2>/dev/null)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$O/run.log" 2>&1
W=$(mktemp -d)
inj() {  # inj DIR METRICS CMD...
    local d=$1 m=$2; shift 2
    env CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$d" BENCHRUN_CUPTI_NAME="r_%pid%" \
        BENCHRUN_CUPTI_METRICS="$m" "$@"
}
FLOPS="sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum"
HW="dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.sum,sm__cycles_elapsed.sum,sm__warps_active.sum,smsp__thread_inst_executed.sum,smsp__inst_executed.sum,gpu__time_duration.sum"
NX=16777216; LX=20

log "cross-check variants"
variant() {  # variant LABEL ENV...
    local v=$1; shift
    for g in flops hw; do
        local m=$FLOPS; [ $g = hw ] && m=$HW
        env "$@" CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$W/$v-$g" BENCHRUN_CUPTI_NAME="r_%pid%" \
            BENCHRUN_CUPTI_METRICS="$m" timeout 60 "$G/axpy" $NX $LX >>"$O/variants.log" 2>&1
        echo "$v $g rc=$?" >>"$O/variants.log"
        cat "$W/$v-$g"/*_counter_collection.csv > "$O/xc_${v}_$g.csv" 2>/dev/null
        cp "$W/$v-$g"/*_cupti.json "$O/xc_${v}_$g.json" 2>/dev/null
    done
}
variant old BENCHRUN_CUPTI_ACTIVITY=1
variant default X=1
variant ctxinit BENCHRUN_CUPTI_INIT=context
variant krep BENCHRUN_CUPTI_REPLAY=kernel
variant run BENCHRUN_CUPTI_RANGE=run
log "ncu"
timeout 120 ncu --csv --page raw --print-units base --clock-control none --cache-control none \
    --metrics "$FLOPS,$HW" --log-file "$O/xc_ncu.csv" "$G/axpy" $NX $LX >>"$O/ncu.log" 2>&1
echo "ncu rc=$?" >>"$O/ncu.log"
python3 "$ROOT/tests/gpu/xcheck.py" "$O" >"$O/table.txt" 2>&1; cat "$O/table.txt"; cp "$O/table.txt" "$FINAL/"
tar -C "$(dirname "$O")" -czf "$FINAL/xcheck.tar.gz" x

log "counter-pass cost, $CL launches"
for r in 1 2; do
    echo "plain $("$G/axpy" 1048576 $CL)" >>"$O/cost.txt"
    echo "flops $(inj "$W/cf$r" "$FLOPS" timeout 60 "$G/axpy" 1048576 $CL 2>>"$O/cost.err")" >>"$O/cost.txt"
    echo "hw $(inj "$W/ch$r" "$HW" timeout 60 "$G/axpy" 1048576 $CL 2>>"$O/cost.err")" >>"$O/cost.txt"
    echo "run_flops $(BENCHRUN_CUPTI_RANGE=run inj "$W/rf$r" "$FLOPS" timeout 60 "$G/axpy" 1048576 $CL 2>>"$O/cost.err")" >>"$O/cost.txt"
    echo "run_hw $(BENCHRUN_CUPTI_RANGE=run inj "$W/rh$r" "$HW" timeout 60 "$G/axpy" 1048576 $CL 2>>"$O/cost.err")" >>"$O/cost.txt"
done
cp "$W"/rh1/*_cupti.json "$O/cost_run_hw.json" 2>/dev/null
head -3 "$W"/rh1/*_counter_collection.csv >"$O/cost_run_hw_head.csv" 2>/dev/null

log "trace overhead x $REPS"
for r in $(seq "$REPS"); do
    echo "plain $("$G/axpy")" >>"$O/tr_small.txt"
    echo "trace $(inj "$W/ts$r" "" "$G/axpy")" >>"$O/tr_small.txt"
    echo "plain $("$G/axpy" $NX 2000)" >>"$O/tr_large.txt"
    echo "trace $(inj "$W/tl$r" "" "$G/axpy" $NX 2000)" >>"$O/tr_large.txt"
done
cp "$W"/ts1/*_cupti.json "$O/trace_small.json" 2>/dev/null
if python3 -c "import torch" 2>/dev/null; then
    log "torch x 3"
    for r in 1 2 3; do
        echo "plain $(python3 "$ROOT/tests/gpu/torch_step.py" plain 2>>"$O/torch.err")" >>"$O/tr_torch.txt"
        echo "trace $(inj "$W/pt$r" "" python3 "$ROOT/tests/gpu/torch_step.py" plain 2>>"$O/torch.err")" >>"$O/tr_torch.txt"
    done
fi
python3 "$ROOT/tests/gpu/xcheck.py" "$O" >"$O/table.txt" 2>&1
log done
cp "$O/table.txt" "$FINAL/"
tar -C "$(dirname "$O")" -czf "$FINAL/xcheck.tar.gz" x
cat "$O/table.txt"
