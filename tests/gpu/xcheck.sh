#!/bin/bash
# xcheck.sh - counter correctness and cost of libbenchrun-cupti on one GPU call (issue 9).
#   bash tests/gpu/xcheck.sh [BUILD_DIR]   ($OUT, else ./gpu-out: table.txt, xcheck.tar.gz)
# 1. builds only libbenchrun-cupti.so, the host tool and the CUDA test programs;
# 2. cross-check: axpy (n = 16M floats, 1 warm-up + 20 launches) under each collector
#    variant (old: kernel activity on; default; kernel replay)
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
cmake --build "$B" -j"$(nproc)" --target benchrun >>"$O/build.log" 2>&1 || echo "benchrun not built" | tee -a "$O/run.log"
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
variant krep BENCHRUN_CUPTI_REPLAY=kernel
log "ncu"
timeout 120 ncu --csv --page raw --print-units base --clock-control none --cache-control none \
    --metrics "$FLOPS,$HW" --log-file "$O/xc_ncu.csv" "$G/axpy" $NX $LX >>"$O/ncu.log" 2>&1
echo "ncu rc=$?" >>"$O/ncu.log"
python3 "$ROOT/tests/gpu/xcheck.py" "$O" >"$O/table.txt" 2>&1; cat "$O/table.txt"; cp "$O/table.txt" "$FINAL/"
tar -C "$(dirname "$O")" -czf "$FINAL/xcheck.tar.gz" x

log "tensor ops vs 2*M*N*K (torch GEMMs)"
T16="sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hgmma_src_fp16.sum,sm__cycles_elapsed.sum,gpu__time_duration.sum"
TF32="sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__cycles_elapsed.sum,gpu__time_duration.sum"
TF64="sm__ops_path_tensor_src_fp64.sum,sm__cycles_elapsed.sum,gpu__time_duration.sum"
if python3 -c "import torch" 2>/dev/null; then
    for t in "bf16 $T16 bfloat16" "tf32 $TF32 float32" "fp64 $TF64 float64"; do
        set -- $t
        inj "$W/g$1" "$2" timeout 60 python3 -c "
import torch
torch.backends.cuda.matmul.allow_tf32 = True
n = 4096 if '$3' != 'float64' else 2048
a = torch.ones(n, n, device='cuda', dtype=torch.$3)
torch.cuda.synchronize()
c = a @ a
torch.cuda.synchronize()
print('gemm n', n, 'expected_flop', 2 * n ** 3)" >>"$O/gemm.log" 2>&1
        echo "$1 rc=$?" >>"$O/gemm.log"
        cat "$W/g$1"/*_counter_collection.csv > "$O/gemm_$1.csv" 2>/dev/null
    done
fi
python3 "$ROOT/tests/gpu/xcheck.py" "$O" >"$O/table.txt" 2>&1; cp "$O/table.txt" "$FINAL/"

if [ -x "$B/benchrun" ]; then
    log "benchrun pmc + analyze + power on axpy (gh100 default set)"
    cat >"$O/axpy.conf" <<CONF
WORKLOAD=axpy
WORKLOAD_DESC="axpy 1M floats x 200"
RESULTS_DIR=$W/results
VENDOR=nvidia
NGPUS=1
NTASKS=1
SAMPLE_MS=20
SAMPLE_GPUS=0
app_cmd() { APP_CMD=("$G/axpy" 1048576 200); }
CONF
    timeout 90 "$B/benchrun" pmc "$O/axpy.conf" >"$O/e2e_pmc.log" 2>&1; echo "pmc rc=$?" >>"$O/e2e_pmc.log"
    run=$(ls -d "$W"/results/pmc-* 2>/dev/null | head -1)
    [ -n "$run" ] && timeout 60 "$B/benchrun" analyze "$run" >"$O/e2e_analyze.log" 2>&1
    echo "analyze rc=$?" >>"$O/e2e_analyze.log"
    [ -n "$run" ] && { cp "$run"/*/*.csv "$O/" 2>/dev/null; find "$run" -name 'per_kernel_metrics.csv' -exec cp {} "$O/e2e_per_kernel_metrics.csv" \; ; find "$run" -name 'report.md' -exec cp {} "$O/e2e_report.md" \; ; ls -R "$run" >"$O/e2e_files.txt"; }
    timeout 60 "$B/benchrun" power "$O/axpy.conf" >"$O/e2e_power.log" 2>&1; echo "power rc=$?" >>"$O/e2e_power.log"
    ls -R "$W"/results/prof-* >>"$O/e2e_files.txt" 2>&1
fi
tar -C "$(dirname "$O")" -czf "$FINAL/xcheck.tar.gz" x

log "counter-pass cost, $CL launches"
for r in 1 2; do
    echo "plain $("$G/axpy" 1048576 $CL)" >>"$O/cost.txt"
    echo "flops $(inj "$W/cf$r" "$FLOPS" timeout 60 "$G/axpy" 1048576 $CL 2>>"$O/cost.err")" >>"$O/cost.txt"
    echo "hw $(inj "$W/ch$r" "$HW" timeout 60 "$G/axpy" 1048576 $CL 2>>"$O/cost.err")" >>"$O/cost.txt"
    echo "sampled_flops $(BENCHRUN_CUPTI_SAMPLE=10:50:20:1 inj "$W/rf$r" "$FLOPS" timeout 60 "$G/axpy" 1048576 $CL 2>>"$O/cost.err")" >>"$O/cost.txt"
    echo "sampled_hw $(BENCHRUN_CUPTI_SAMPLE=10:50:20:1 inj "$W/rh$r" "$HW" timeout 60 "$G/axpy" 1048576 $CL 2>>"$O/cost.err")" >>"$O/cost.txt"
done
cp "$W"/rh1/*_cupti.json "$O/cost_sampled_hw.json" 2>/dev/null
head -3 "$W"/rh1/*_counter_collection.csv >"$O/cost_sampled_hw_head.csv" 2>/dev/null

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
