#!/bin/bash
# e2e.sh - issue 5 end to end on a GPU machine, in one call:
#   bash tests/gpu/e2e.sh [BUILD_DIR]     (standalone, or from tests/gpu/run.sh)
# 1. builds benchrun and libbenchrun-cupti.so (incremental when run.sh built them);
# 2. `benchrun calibrate` (known-answer kernels through plain/pmc/power/analyze);
# 3. plain -> pmc -> power -> analyze -> vectors on two real PyTorch training
#    steps (tests/gpu/train_step.py: small transformer, ResNet-18; random data,
#    fixed seeds), each stage's exit status and wall time recorded;
# 4. tests/gpu/e2e_report.py: stage status, data-check warnings, NVML sampler
#    achieved interval and source refresh rate, driver power sample spacing,
#    trace/sample clock alignment, GPU busy %, top kernels with bound labels
#    (GEMMs must not be "latency"), calibration misses; a short table last.
# Output ($OUT, else ./gpu-out): e2e-table.txt, e2e-logs.tar.gz (every log,
# calibration.md, analyses, sampler JSON), example-<EXAMPLE>.tar.xz (the
# small real results of one workload for examples/: power run, counter run,
# analysis; must stay < 16 MiB). Env: STEPS (5), WORKLOADS ("transformer
# resnet18"), EXAMPLE (transformer), SKIP_CALIBRATE=1, CALIB_NCU=0 (skip the
# ncu ground truth of the calibration kernels, tests/gpu/calib_ncu.sh),
# DEADLINE_S (540: later stages are skipped, the tarballs still written),
# STAGE_S (240: one stage's limit).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build-gpu}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/e2e
O=$W/logs
STEPS=${STEPS:-5}
WORKLOADS=${WORKLOADS-transformer resnet18}   # set and empty: calibration only
EXAMPLE=${EXAMPLE:-transformer}
mkdir -p "$O" "$FINAL"
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1

DEADLINE_S=${DEADLINE_S:-540}    # a device call may run 600 s: leave time for the tarballs
STAGE_S=${STAGE_S:-240}          # one stage at most
LOGNAME_=e2e
. "$ROOT/tests/gpu/lib.sh"       # log, now_ms, st, build_benchrun

build_benchrun || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader \
    >"$O/gpu.txt" 2>&1
{ nvcc --version | tail -2; python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__, "cuda", torch.version.cuda)'; } >>"$O/gpu.txt" 2>&1
date -u +%FT%TZ >>"$O/gpu.txt"

if [ "${SKIP_CALIBRATE:-0}" != 1 ]; then
    st calibrate "$BR" calibrate --progress -o "$W/calibrate"
    cp "$W/calibrate/calibration.md" "$O/" 2>/dev/null
    cp "$W/calibrate/logs/"*.log "$O/" 2>/dev/null
    for f in "$W"/calibrate/results/*/analysis/summary.json; do [ -f "$f" ] && cp "$f" "$O/calibrate_summary.json"; done
fi

# Alignment without the power stage: the sampler around the CUPTI tracer around
# the GEMMs + long kernel, then calibrate's power checks on that folder.
if [ -x "$W/calibrate/bin/calib" ]; then
    A=$W/calib_align
    st calib_align "$BR" sample --gpus 0 --interval-ms 1 --prefix calibrate -o "$A" -- \
        "$BR" trace -o "$A/ktrace_calibrate" --name calibrate -- "$W/calibrate/bin/calib" only=gemm,long
    "$BR" calibrate --check "$A/none" --power "$A" -o "$A/out" >"$O/calib_align_check.txt" 2>&1
    cp "$A"/sampler_*.json "$O/calib_align_sampler.json" 2>/dev/null
fi

if [ "${CALIB_NCU:-1}" = 1 ]; then   # ground truth for the kernels, from ncu
    CALIB_NCU_ARGS=${CALIB_NCU_ARGS:-"n=134217728 stream_reps=2 fma_blocks=1056 fma_threads=256 fma_iters=4096 fma_reps=1 gemm_n=4096 gemm_reps=1 long_ms=20 idle_ms=0 flush_mib=256"} \
        STAGE_S=120 st calib_ncu bash "$ROOT/tests/gpu/calib_ncu.sh" "$BR" "$W/calib_ncu"
    cp "$W/calib_ncu/calib_ncu.txt" "$W/calib_ncu/ncu_app.log" "$O/" 2>/dev/null
fi

# conf WL: a seed workload.conf for one training step workload.
conf() {
    cat >"$W/$1/$1.conf" <<CONF
WORKLOAD=$1
WORKLOAD_DESC="PyTorch training step ($1, bf16 autocast, random data, seed 0)"
PROFILING_DIR=$W/$1
RESULTS_DIR=$W/$1/results
NGPUS=1
NTASKS=1
BIND_GPU_PER_TASK=0
SAMPLE_GPUS=0
SAMPLE_MS=1
VENDOR=nvidia
MODULES=()
REQUIRED_FILES=("$ROOT/tests/gpu/train_step.py")
PERF_GREP='^train_'
stage_inputs() { :; }
app_env() { export PYTHONUNBUFFERED=1; }
app_cmd() { APP_CMD=(python3 "$ROOT/tests/gpu/train_step.py" $1 $STEPS); }
CONF
}

for wl in $WORKLOADS; do
    mkdir -p "$W/$wl/results"
    conf "$wl"
    st "$wl.plain" "$BR" plain "$W/$wl/$wl.conf"
    st "$wl.pmc" "$BR" pmc "$W/$wl/$wl.conf"
    st "$wl.power" "$BR" power "$W/$wl/$wl.conf"
    pmc=$(ls -d "$W/$wl/results"/pmc-* 2>/dev/null | tail -1)
    prof=$(ls -d "$W/$wl/results"/prof-* 2>/dev/null | tail -1)
    printf '%s\t%s\t%s\n' "$wl" "${pmc:-none}" "${prof:-none}" >>"$O/runs.tsv"
    if [ -n "$pmc" ]; then
        st "$wl.analyze" "$BR" analyze "$pmc" ${prof:+--power "$prof"}
    fi
    if [ -n "$prof" ]; then
        st "$wl.vectors" "$BR" vectors "$prof" --label "$wl"
    fi
    cp "$pmc/analysis/summary.json" "$O/${wl}_summary.json" 2>/dev/null
    cp "$pmc/analysis/top_kernels.csv" "$O/${wl}_top_kernels.csv" 2>/dev/null
    cp "$prof"/sampler_*.json "$O/" 2>/dev/null
    cp "$prof/sampling_vectors.json" "$O/${wl}_sampling_vectors.json" 2>/dev/null
done

python3 "$ROOT/tests/gpu/e2e_report.py" "$W" >"$O/e2e-table.txt" 2>&1

# The example data set: one workload's power run, counter run and analysis.
ex=$(awk -v w="$EXAMPLE" '$1 == w' "$O/runs.tsv" | head -1)
pmc=$(echo "$ex" | cut -f2) prof=$(echo "$ex" | cut -f3)
if [ -n "$ex" ] && [ -d "$pmc" ] && [ -d "$prof" ]; then
    tar -C "$(dirname "$pmc")" -cJf "$FINAL/example-$EXAMPLE.tar.xz" \
        "$(basename "$pmc")" "$(basename "$prof")" 2>>"$O/e2e.log"
    sz=$(stat -c %s "$FINAL/example-$EXAMPLE.tar.xz" 2>/dev/null || echo 0)
    log "example-$EXAMPLE.tar.xz: $sz bytes"
    if [ "$sz" -gt 16000000 ]; then
        log "example too large: dropping the counter CSVs of passes beyond the first"
        tar -C "$(dirname "$pmc")" -cJf "$FINAL/example-$EXAMPLE.tar.xz" \
            --exclude='*/[0-9][2-9]_*/*_counter_collection.csv' \
            "$(basename "$pmc")" "$(basename "$prof")"
    fi
fi
tar -C "$W" -czf "$FINAL/e2e-logs.tar.gz" logs
cp "$O/e2e-table.txt" "$FINAL/"
cat "$O/e2e-table.txt"
