#!/bin/bash
# userdiag.sh - why user ranges go wrong on PyTorch (issue 18), one device call.
# Runs tests/gpu/train_step.py (transformer, STEPS steps) under
# libbenchrun-cupti.so with one pass's metrics and every launch profiled,
# BENCHRUN_CUPTI_DEBUG=1 (the library's <prefix>_debug.log: every launch,
# profiler call, module load and decoded range), in variants:
#   full          the default toggle: the reference, launch by launch
#   user          BENCHRUN_CUPTI_TOGGLE=user
#   user_eager    the same with CUDA_MODULE_LOADING=EAGER (no lazy loading)
#   user_small    the same with BENCHRUN_CUPTI_MAX_RANGES=16
# then tests/gpu/userdiag.py: per variant ranges, NaN values, unmatched
# ranges, what NaN ranges have in common, and each launch's values against
# `full` (joined by kernel name and occurrence).
# usage: . .gpu/env.sh; [PASS=03_memory_bf16] [VARIANTS="full user ..."] [STEPS=1] bash tests/gpu/userdiag.sh
# Output ($OUT): userdiag-PASS.txt (printed last), userdiag-PASS-logs.tar.gz.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-/tmp/bud}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/userdiag
O=$W/logs
mkdir -p "$O" "$FINAL"
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
DEADLINE_S=${DEADLINE_S:-500}
STAGE_S=${STAGE_S:-150}
PASS=${PASS:-03_memory_bf16}
STEPS=${STEPS:-1}
VARIANTS=${VARIANTS:-full user user_eager user_small}
LOGNAME_=userdiag
. "$ROOT/tests/gpu/lib.sh"
T=$O/table.txt
finish_up() {
    tar -C "$W" -czf "$FINAL/userdiag-$PASS-logs.tar.gz" logs runs 2>/dev/null
    cp "$T" "$FINAL/userdiag-$PASS.txt" 2>/dev/null
    cat "$T"
}
trap finish_up EXIT
build_benchrun || { echo "build failed" >>"$T"; exit 1; }
LIB=$B/lib/benchrun/libbenchrun-cupti.so
METRICS=$(python3 -c "import json;print(','.join(next(p['counters'] for p in json.load(open('$ROOT/share/benchrun/arch/gh100.json'))['passes'] if p['name']=='$PASS')))")
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) pass $PASS steps $STEPS" >>"$T"
for v in $VARIANTS; do
    envs=(BENCHRUN_CUPTI_DEBUG=1)
    case $v in
        user*) envs+=(BENCHRUN_CUPTI_TOGGLE=user) ;;
    esac
    case $v in
        user_eager) envs+=(CUDA_MODULE_LOADING=EAGER) ;;
        user_small) envs+=(BENCHRUN_CUPTI_MAX_RANGES=16) ;;
    esac
    mkdir -p "$W/runs/$v"
    st "$v" env CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$W/runs/$v" BENCHRUN_CUPTI_NAME="$v" \
        BENCHRUN_CUPTI_METRICS="$METRICS" "${envs[@]}" \
        python3 "$ROOT/tests/gpu/train_step.py" transformer "$STEPS"
done
python3 "$ROOT/tests/gpu/userdiag.py" "$W/runs" $VARIANTS >>"$T" 2>&1
echo "stages (name rc seconds):" >>"$T"
sed 's/^/  /' "$O/stages.tsv" >>"$T"
