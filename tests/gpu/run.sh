#!/bin/bash
# run.sh - the NVIDIA GPU tests of issue 9, in one call on a GPU machine.
#   bash tests/gpu/run.sh [BUILD_DIR]        (logs and tables under $OUT, else ./gpu-out)
# 1. builds benchrun, libbenchrun-cupti.so, the host tool and tests/gpu/*.cu, runs the unit tests;
# 2. trace overhead: axpy (20,000 launches) and a PyTorch training step, plain vs
#    libbenchrun-cupti trace vs torch.profiler (CUDA activities), REPS runs each, interleaved,
#    median of the program's own loop time;
# 3. counter-pass cost: axpy under each single-pass group (pass loop − plain loop) / launches;
# 4. cross-check with ncu on the same program (large arrays, 20 launches): equal counts for
#    instructions/FLOPs, bytes within 2%;
# 5. multi-stream trace (overlapping kernels kept), 6. exit() from a worker thread;
# then prints a short table (tests/gpu/report.py).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build-gpu}
FINAL=${OUT:-$ROOT/gpu-out}
O=$(mktemp -d)/gpu
REPS=${REPS:-7}
mkdir -p "$O"
log() { echo "== $*" | tee -a "$O/run.log"; }

log "build ($B)"
cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release >"$O/build.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" --target benchrun-cupti benchrun-cupti-host gpu-test-programs \
    >>"$O/build.log" 2>&1 || { tail -40 "$O/build.log"; exit 1; }
# The rest of the tree (benchrun, unit tests) may be mid-edit by others: not fatal here.
cmake --build "$B" -j"$(nproc)" -k >>"$O/build.log" 2>&1 || echo "warning: full build failed (see build.log)" | tee -a "$O/run.log"
LIB=$B/lib/benchrun/libbenchrun-cupti.so
G=$B/tests/gpu
[ -f "$LIB" ] || { echo "no $LIB"; tail -20 "$O/build.log"; find / -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head; exit 1; }
command -v ncu >/dev/null || PATH=$PATH:$(dirname "$(ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)" 2>/dev/null)
log "unit tests"
cmake --build "$B" -j"$(nproc)" --target test_nvtrace >>"$O/build.log" 2>&1
ctest --test-dir "$B" -C Release -R 'nvtrace|cupti|ncu' --output-on-failure >"$O/unit.log" 2>&1
echo "unit tests: $(grep -E 'tests passed|tests failed' "$O/unit.log")" | tee -a "$O/run.log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >>"$O/run.log" 2>&1

W=$(mktemp -d)
inj() {  # inj DIR NAME METRICS -- CMD...: run CMD under the CUPTI library
    local d=$1 n=$2 m=$3; shift 4
    env CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$d" BENCHRUN_CUPTI_NAME="${n}_%pid%" \
        BENCHRUN_CUPTI_METRICS="$m" "$@"
}
FLOPS="sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum"
HW="dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.sum,sm__cycles_elapsed.sum,sm__warps_active.sum,smsp__thread_inst_executed.sum,smsp__inst_executed.sum,gpu__time_duration.sum"

log "trace overhead: axpy x $REPS"
for r in $(seq "$REPS"); do
    echo "plain $("$G/axpy")" >>"$O/overhead_axpy.txt"
    echo "trace $(inj "$W/ax$r" ax "" -- "$G/axpy")" >>"$O/overhead_axpy.txt"
    echo "trace_db64 $(BENCHRUN_CUPTI_DEVICE_BUFFER_MB=64 inj "$W/ad$r" ad "" -- "$G/axpy")" >>"$O/overhead_axpy.txt"
done
log "trace overhead: torch x $REPS"
for r in $(seq "$REPS"); do
    echo "plain $(python3 "$ROOT/tests/gpu/torch_step.py" plain 2>>"$O/torch.err")" >>"$O/overhead_torch.txt"
    echo "trace $(inj "$W/pt$r" pt "" -- python3 "$ROOT/tests/gpu/torch_step.py" plain 2>>"$O/torch.err")" >>"$O/overhead_torch.txt"
    echo "torchprof $(python3 "$ROOT/tests/gpu/torch_step.py" torchprof 2>>"$O/torch.err")" >>"$O/overhead_torch.txt"
done
cp "$W"/ax1/*_kernel_trace.csv "$O/axpy_kernel_trace.csv" 2>/dev/null
cp "$W"/ax1/*_cupti.json "$O/axpy_cupti.json" 2>/dev/null
cp "$W"/pt1/*_cupti.json "$O/torch_cupti.json" 2>/dev/null

log "counter passes: axpy, 20,000 launches"
for r in $(seq 3); do
    echo "plain $("$G/axpy")" >>"$O/pmc_axpy.txt"
    echo "flops $(inj "$W/pf$r" flops "$FLOPS" -- "$G/axpy" 2>>"$O/pmc.err")" >>"$O/pmc_axpy.txt"
    echo "hw $(inj "$W/ph$r" hw "$HW" -- "$G/axpy" 2>>"$O/pmc.err")" >>"$O/pmc_axpy.txt"
    echo "hw_noact $(BENCHRUN_CUPTI_ACTIVITY=0 inj "$W/pn$r" hwn "$HW" -- "$G/axpy" 2>>"$O/pmc.err")" >>"$O/pmc_axpy.txt"
done
cp "$W"/pf1/*_cupti.json "$O/pmc_flops_cupti.json" 2>/dev/null
cp "$W"/ph1/*_cupti.json "$O/pmc_hw_cupti.json" 2>/dev/null
cp "$W"/pn1/*_cupti.json "$O/pmc_hw_noact_cupti.json" 2>/dev/null
head -5 "$W"/ph1/*_counter_collection.csv > "$O/pmc_hw_head.csv" 2>/dev/null
"$B/lib/benchrun/benchrun-cupti-host" group GH100 ${FLOPS//,/ } ${HW//,/ } >"$O/groups.txt" 2>&1

log "cross-check with ncu (n = 16M floats, 20 launches)"
NX=16777216; LX=20
inj "$W/xf" flops "$FLOPS" -- "$G/axpy" $NX $LX >>"$O/xcheck.log" 2>&1
inj "$W/xh" hw "$HW" -- "$G/axpy" $NX $LX >>"$O/xcheck.log" 2>&1
cat "$W"/xf/*_counter_collection.csv > "$O/xcheck_cupti.csv" 2>/dev/null
tail -n +2 -q "$W"/xh/*_counter_collection.csv >> "$O/xcheck_cupti.csv" 2>/dev/null
t0=$(date +%s%N)
ncu --csv --page raw --print-units base --clock-control none --cache-control none \
    --metrics "$FLOPS,$HW" --log-file "$O/xcheck_ncu.csv" "$G/axpy" $NX $LX >>"$O/xcheck.log" 2>&1
echo "ncu wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" >>"$O/xcheck.log"

log "multi-stream trace"
inj "$W/ms" ms "" -- "$G/multistream" >>"$O/multistream.log" 2>&1
cp "$W"/ms/*_kernel_trace.csv "$O/multistream_kernel_trace.csv" 2>/dev/null

log "exit() from a worker thread"
"$G/worker_exit" >>"$O/worker_exit.log" 2>&1; echo "plain rc=$?" >>"$O/worker_exit.log"
inj "$W/we" we "" -- "$G/worker_exit" >>"$O/worker_exit.log" 2>&1; echo "rc=$?" >>"$O/worker_exit.log"
cp "$W"/we/*_kernel_trace.csv "$O/worker_exit_kernel_trace.csv" 2>/dev/null
cp "$W"/we/*_cupti.json "$O/worker_exit_cupti.json" 2>/dev/null
if [ -x "$B/benchrun" ]; then
    log "benchrun trace CLI"
    "$B/benchrun" trace -o "$W/cli" -- "$G/axpy" 1048576 100 >"$O/cli_trace.log" 2>&1
    echo "rc=$? files: $(ls "$W/cli" | tr '\n' ' ')" >>"$O/cli_trace.log"
fi
ls -la "$W"/* >>"$O/files.log" 2>&1
cat "$O"/*.err 2>/dev/null | sort | uniq -c | sort -rn | head -20 >>"$O/errors.log"

python3 "$ROOT/tests/gpu/report.py" "$O" > "$O/table.txt" 2>&1
mkdir -p "$FINAL"
tar -C "$(dirname "$O")" -czf "$FINAL/gpu-logs.tar.gz" gpu
cp "$O/table.txt" "$FINAL/"
cat "$O/run.log"; cat "$O/table.txt"
