#!/bin/bash
# multi.sh - issue 7: benchrun's multi-GPU path on one node with real GPUs, in
# one device call (nvidia-h200-x2 now; nvidia-h200-x8 when lent):
#   bash tests/gpu/multi.sh [BUILD_DIR]
# 1. builds benchrun + libbenchrun-cupti.so, and tests/gpu/multi_rank.cu;
# 2. workload "ranks": one process per GPU (NTASKS = GPU count,
#    BIND_GPU_PER_TASK=1, LAUNCHER = tests/gpu/mlaunch.sh: N copies with
#    SLURM_LOCALID/SLURM_PROCID, as benchrun launches outside Slurm), each rank
#    a known amount of FP32 FMA work in its own kernel fma_work<rank>;
# 3. workload "ddp": torchrun (python3 -m torch.distributed.run) DDP training step (NTASKS=1, one process starting
#    one worker per GPU; tests/gpu/ddp_step.py, random data, fixed seeds);
#    each: plain, pmc (one counter file set per process), power (one sampler
#    for all GPUs, one telemetry file per GPU, trace files per process),
#    analyze --power, vectors (pooled) and vectors --per-gpu;
# 4. NVML mapping: `benchrun sample --gpus 0,1` under CUDA_VISIBLE_DEVICES=1,0
#    while a heavy kernel runs on CUDA device 0 only (physical GPU 1);
# 5. tests/gpu/multi_report.py: the checks as a table, printed last (kernels of
#    each GPU once and only in its own files, per-GPU FLOP totals within 1 %,
#    the NVML <-> CUDA ordinal mapping by PCI bus id and which telemetry file
#    shows the power rise, achieved sampling interval per GPU, GPU busy % per
#    (file, agent) and averaged, vector keys).
# NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# are exported here and set again in every conf's app_env (device README: no
# NVLink multicast on these machines).
# Output ($OUT, else ./gpu-out): multi-table.txt, multi-logs.tar.gz (every log,
# analyses, sampler JSON, vectors, the telemetry of the mapping check), always
# written (EXIT trap). Env: NGPUS (default: all GPUs), STEPS (5), LAUNCHES
# (200), DEADLINE_S (500: no stage starts later), STAGE_S (180: one stage).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build-gpu}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/multi
O=$W/logs
STEPS=${STEPS:-5}
LAUNCHES=${LAUNCHES:-200}
DEADLINE_S=${DEADLINE_S:-500}
STAGE_S=${STAGE_S:-180}
mkdir -p "$O" "$FINAL" "$W/bin"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
unset CUDA_VISIBLE_DEVICES SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID SLURM_PROCID
LOGNAME_=multi
. "$ROOT/tests/gpu/lib.sh"       # log, now_ms, st, build_benchrun

finish() {   # always: the report and the tarball
    python3 "$ROOT/tests/gpu/multi_report.py" "$W" >"$O/multi-table.txt" 2>&1
    tar -C "$W" -czf "$FINAL/multi-logs.tar.gz" logs 2>/dev/null
    cp "$O/multi-table.txt" "$FINAL/" 2>/dev/null
    cat "$O/multi-table.txt"
}
trap finish EXIT

build_benchrun || exit 1
if ! nvcc -O2 -arch=sm_90 -o "$W/bin/multi_rank" "$ROOT/tests/gpu/multi_rank.cu" >"$O/nvcc.log" 2>&1; then
    cat "$O/nvcc.log"; exit 1
fi
nvidia-smi --query-gpu=index,pci.bus_id,name,power.limit --format=csv,noheader >"$O/gpus.csv" 2>&1
NG=${NGPUS:-$(grep -c . "$O/gpus.csv")}
{ echo "ngpus=$NG"; nvidia-smi topo -m; nvcc --version | tail -2
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  env | grep -E '^(NCCL_NVLS_ENABLE|TORCH_SYMM_MEM_DISABLE_MULTICAST|NVSHMEM_DISABLE_NVLS)='
  date -u +%FT%TZ; } >"$O/gpu.txt" 2>&1
GPUS=$(seq -s, 0 $((NG - 1)))
log "$NG GPUs: $GPUS"

# conf WL NTASKS BIND LAUNCHER APP...: the workload's conf (seed format).
conf() {
    local wl=$1 nt=$2 bind=$3 launcher=$4; shift 4
    mkdir -p "$W/$wl/results"
    cat >"$W/$wl/$wl.conf" <<CONF
WORKLOAD=$wl
WORKLOAD_DESC="issue 7 multi-GPU check: $wl on $NG GPUs"
PROFILING_DIR=$W/$wl
RESULTS_DIR=$W/$wl/results
NGPUS=$NG
NTASKS=$nt
BIND_GPU_PER_TASK=$bind
LAUNCHER=$launcher
SAMPLE_GPUS=$GPUS
SAMPLE_MS=1
VENDOR=nvidia
MODULES=()
PERF_GREP='^(multi_rank|ddp_step) '
stage_inputs() { :; }
app_env() { export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1; }
app_cmd() { APP_CMD=($*); }
CONF
}
conf ranks "$NG" 1 "(bash $ROOT/tests/gpu/mlaunch.sh -n $NG)" "$W/bin/multi_rank" work "$LAUNCHES"
conf ddp 1 0 none python3 -m torch.distributed.run --standalone --nproc_per_node="$NG" "$ROOT/tests/gpu/ddp_step.py" "$STEPS"

for wl in ranks ddp; do
    st "$wl.plain" "$BR" plain "$W/$wl/$wl.conf"
    st "$wl.pmc" "$BR" pmc "$W/$wl/$wl.conf"
    st "$wl.power" "$BR" power "$W/$wl/$wl.conf"
    pmc=$(ls -d "$W/$wl/results"/pmc-* 2>/dev/null | tail -1)
    prof=$(ls -d "$W/$wl/results"/prof-* 2>/dev/null | tail -1)
    plain=$(ls -d "$W/$wl/results"/plain-* 2>/dev/null | tail -1)
    printf '%s\t%s\t%s\t%s\n' "$wl" "${plain:-none}" "${pmc:-none}" "${prof:-none}" >>"$W/runs.tsv"
    [ -n "$pmc" ] && st "$wl.analyze" "$BR" analyze "$pmc" ${prof:+--power "$prof"}
    if [ -n "$prof" ]; then
        st "$wl.vectors" "$BR" vectors "$prof" --label "$wl" --out "$prof/vectors_pooled.json"
        st "$wl.vectors_per_gpu" "$BR" vectors "$prof" --label "$wl" --per-gpu --out "$prof/vectors_per_gpu.json"
    fi
    # the small results into the logs (no counter CSVs: the report reads them in place)
    mkdir -p "$O/$wl"
    cp "$pmc/analysis/summary.json" "$pmc/analysis/top_kernels.csv" "$O/$wl/" 2>/dev/null
    cp "$prof"/sampler_*.json "$prof"/vectors_*.json "$prof/app.txt" "$O/$wl/" 2>/dev/null
    cp "$plain/app.txt" "$O/$wl/plain_app.txt" 2>/dev/null
    cp "$pmc/run_info.txt" "$O/$wl/pmc_run_info.txt" 2>/dev/null
done

# NVML devices vs CUDA ordinals with CUDA_VISIBLE_DEVICES reordered: CUDA
# device 0 is physical GPU 1 here; the heavy kernel runs on it only.
if [ "$NG" -ge 2 ]; then
    st map env CUDA_VISIBLE_DEVICES=1,0 "$BR" sample --gpus 0,1 --backend nvml --interval-ms 1 \
        --prefix map -o "$W/map" -- "$W/bin/multi_rank" heavy 4
    mkdir -p "$O/map"
    cp "$W/map"/profiling_result_map_[0-9].csv "$W/map"/sampler_map.json "$O/map/" 2>/dev/null
fi
log "done in $(( ($(now_ms) - T_START) / 1000 )) s"
