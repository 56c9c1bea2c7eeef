#!/bin/bash
# e2e14.sh - issue 14 end to end on one H200, in one device call:
#   1. benchrun calibrate (counter set ml: every tensor path, the mixed kernel);
#   2. the SASS-pass crash: tests/gpu/sass_repro.cu mode churn and the JAX GEMM
#      under pass 01's metrics, with the library's default (module-unload
#      reset, PDL stripped in SASS passes) and with the reset off (evidence);
#   3. plain -> pmc -> power -> analyze on a Triton mma.sync matmul
#      (triton_mma.py, num_warps 2), the copy workload (copy_step.py) and the
#      JAX bf16 GEMM (jax_gemm.py, XLA defaults), each with known FLOPs or bytes.
# Output ($OUT): e2e14.txt (table, printed last), e2e14-logs.tar.gz, and
# e2e14-runs.tar.xz (the pmc/prof folders, to re-analyze without a GPU).
# usage: . .gpu/env.sh; DEADLINE_S=270 bash tests/gpu/e2e14.sh [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-/tmp/b14}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/e2e14
O=$W/logs
mkdir -p "$O" "$FINAL"
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
DEADLINE_S=${DEADLINE_S:-270}
STAGE_S=${STAGE_S:-120}
LOGNAME_=e2e14
. "$ROOT/tests/gpu/lib.sh"
T=$O/table.txt
row() { echo "$*" >>"$T"; }
finish_up() {
    tar -C "$W" -czf "$FINAL/e2e14-logs.tar.gz" logs 2>/dev/null
    tar -C "$W" -cJf "$FINAL/e2e14-runs.tar.xz" --exclude='*/bin' --exclude=logs . 2>/dev/null
    cp "$T" "$FINAL/e2e14.txt" 2>/dev/null
    cat "$T"
}
trap finish_up EXIT
build_benchrun || { row "build failed"; exit 1; }
LIB=$B/lib/benchrun/libbenchrun-cupti.so
row "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $(date -u +%FT%TZ) $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"

# 1. calibration
st calibrate "$BR" calibrate --progress -o "$W/cal"
row "calibrate rc=$?"
grep -E "checks:|MISS|mma|mixed|GEMM" "$O/calibrate.log" | cut -c1-150 >>"$T"

# 2. the SASS-pass crash
P01=$(python3 -c "import json;print(','.join(next(p['counters'] for p in json.load(open('$ROOT/share/benchrun/arch/gh100.json'))['passes'] if p['name']=='01_flops_sass')))")
nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -o "$W/sass_repro" "$ROOT/tests/gpu/sass_repro.cu" -lcuda -lpthread >"$O/nvcc_repro.log" 2>&1
under() {
    local name=$1; shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    mkdir -p "$W/u/$name"
    STAGE_S=60 st "$name" env CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$W/u/$name" \
        BENCHRUN_CUPTI_NAME="$name"_%pid% BENCHRUN_CUPTI_METRICS="$P01" "${envs[@]}" "$@"
    local rc=$?
    local j=$(ls "$W/u/$name"/*_cupti.json 2>/dev/null | tail -1)
    row "$name rc=$rc $( [ -n "$j" ] && python3 -c "import json;d=json.load(open('$j'));print('reenabled',d.get('profiler_reenabled_after_unload'),'dropped',d.get('launches_dropped'),'ranges',d.get('ranges'),'pdl_stripped',d['launch_census'].get('programmatic_serialization_stripped'),'err',d.get('error'))")"
    grep -h "benchrun-cupti: fatal\|inside" "$O/$name.log" | head -2 | sed 's/^/  /' >>"$T"
}
under churn_default -- "$W/sass_repro" churn
under churn_noreset BENCHRUN_CUPTI_UNLOAD_RESET=0 -- "$W/sass_repro" churn
under jax_sass_default -- python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5

# 3. workloads end to end
conf() {   # conf NAME DESC CMD...
    local n=$1 d=$2; shift 2
    mkdir -p "$W/$n/results"
    { echo "WORKLOAD=$n"; echo "WORKLOAD_DESC=\"$d\""; echo "PROFILING_DIR=$W/$n"
      echo "RESULTS_DIR=$W/$n/results"; echo "NGPUS=1"; echo "NTASKS=1"; echo "BIND_GPU_PER_TASK=0"
      echo "SAMPLE_GPUS=0"; echo "SAMPLE_MS=1"; echo "VENDOR=nvidia"; echo "MODULES=()"
      echo "PERF_GREP='^(triton_mma|copy_step|jax_gemm)'"; echo "stage_inputs() { :; }"
      echo "app_env() { export PYTHONUNBUFFERED=1; }"
      echo "app_cmd() { APP_CMD=($*); }"; } >"$W/$n/$n.conf"
}
e2e() {
    local n=$1
    st "$n.plain" "$BR" plain "$W/$n/$n.conf"; local a=$?
    st "$n.pmc" "$BR" pmc "$W/$n/$n.conf"; local b=$?
    st "$n.power" "$BR" power "$W/$n/$n.conf"; local c=$?
    local pmc=$(ls -d "$W/$n/results"/pmc-* 2>/dev/null | tail -1) prof=$(ls -d "$W/$n/results"/prof-* 2>/dev/null | tail -1)
    [ -n "$pmc" ] && st "$n.analyze" "$BR" analyze "$pmc" ${prof:+--power "$prof"}
    row "$n plain=$a pmc=$b power=$c analyze=$? $(grep -h '^\(triton_mma\|copy_step\|jax_gemm\)' "$O/$n.plain.log" | head -1 | cut -c1-160)"
    for p in "$pmc"/*/; do
        [ -d "$p" ] && row "  pass $(basename "$p"): $(grep -h 'exit\|status' "$p"/*.txt 2>/dev/null | tail -1 | cut -c1-80)"
    done
    [ -f "$pmc/analysis/summary.json" ] && cp "$pmc/analysis/summary.json" "$O/${n}_summary.json"
    python3 - "$pmc" >>"$T" 2>&1 <<'PY'
import csv, sys, os
p = os.path.join(sys.argv[1], "analysis", "per_kernel_metrics.csv")
if os.path.exists(p):
    for r in csv.DictReader(open(p)):
        k = r.get("kernel", "")
        if k == "TOTAL" or "mm_kernel" in k or "gemm" in k or "dot" in k:
            print("   ", k[:40], "launches", r.get("launches"), "BF16", r.get("BF16_TENSOR_FLOP"),
                  "F16", r.get("F16_TENSOR_FLOP"), "read", r.get("mem_read_bytes"))
PY
}
conf triton "Triton bf16 matmul, mma.sync (num_warps 2), N=4096, 3 launches" python3 "$ROOT/tests/gpu/triton_mma.py" 4096 3 2
e2e triton
conf copy "6 x 1 GiB device copies, 1 GiB H2D, D2H and memset" python3 "$ROOT/tests/gpu/copy_step.py" 1 6
e2e copy
conf jax "JAX bf16 GEMM N=4096, 5 + 1 calls, XLA defaults" python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
e2e jax
under jax_sass_pdl_kept BENCHRUN_CUPTI_STRIP_PDL=0 -- python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
