#!/bin/bash
# 0104-pmc-power: benchrun pmc and power with test doubles: the fake rocprofv3
# (tests/fakes/) first in PATH, a fake KFD topology (BENCHRUN_SYSFS_ROOT) with
# one gfx942 GPU, the sim sampler. Checks the pmc layout (pass folders,
# counters.json, LABEL, rocprof.<pass>.txt, CSVs), a failing pass (others
# still run, exit 1), --counters FILE, the power run folder and summary, GPU
# binding, and the layout check (fewer GPUs than NGPUS).
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID ROCR_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
app=$BR_BINARY_DIR/tests/demo_workload
export PATH=$BR_SOURCE_DIR/tests/fakes:$PATH
# fake KFD topology: node 0 = CPU, node 1 = MI300X (gfx942)
fake_amd_gpus 1

mkconf() { # FILE [EXTRA LINES...]
    local f=$1; shift
    cat >"$f" <<CONF
WORKLOAD=fake
WORKLOAD_DESC="fake rocprofv3 run"
RESULTS_DIR=$T/results
NGPUS=1
NTASKS=1
SAMPLE_BACKEND=sim
SAMPLE_GPUS=0
REQUIRED_FILES=("$app")
PERF_GREP='^Loop time of'
app_cmd() { APP_CMD=("$app" --size 1000 --iters 2 --log "\$OUT_DIR/app.log" --print-env ROCR_VISIBLE_DEVICES); }
CONF
    printf '%s\n' "$@" >>"$f"
}
mkconf "$T/w.conf"

# --- pmc with the arch profile's default set (gfx942 detected from KFD)
expect_exit 0 "pmc with the default set" -- "$BENCHRUN" pmc "$T/w.conf"
run=$(ls -d "$T"/results/pmc-local-*)
npass=$(python3 -c "import json;print(len(json.load(open('$run/counters.json'))['passes']))")
[ "$npass" -ge 6 ] && pass "counters.json lists $npass passes" || fail "counters.json: $npass passes"
for p in $(python3 -c "import json;print(' '.join(p['name'] for p in json.load(open('$run/counters.json'))['passes']))"); do
    for f in "${p}_counter_collection.csv" "${p}_kernel_trace.csv" "${p}_memory_copy_trace.csv" LABEL \
             "rocprof.$p.txt" app.log; do
        [ -s "$run/$p/$f" ] || fail "$p/$f missing"
    done
    expect_grep "^pass $p: rc=0, [0-9.]+ s, 1 counter file" "$T/out" "pass $p reported"
done
expect_grep '^pmc: fake: [0-9]+ of [0-9]+ passes ok' "$T/out" "pmc summary"
expect_grep 'SQ_INSTS_VALU_ADD_F64' "$run/01_fp64_flops/01_fp64_flops_counter_collection.csv" "pass 1 counters collected"
expect_grep '^gpu_arch: gfx942$' "$run/run_info.txt" "GPU arch from KFD"
expect_grep '^gpus_seen: 1$' "$run/run_info.txt" "GPUs seen"
for f in workload.conf run.json run_info.txt counters.json; do [ -s "$run/$f" ] || fail "$f missing"; done

# --- a failing pass: reported, the others still run, exit 1
rm -rf "$T/results"
expect_exit 1 "pmc with a failing pass" -- env FAKE_ROCPROF_FAIL=02_fp32_int_ops "$BENCHRUN" pmc "$T/w.conf"
expect_grep '^pass 02_fp32_int_ops: rc=134' "$T/out" "failed pass reported"
expect_grep '^pass 06_hbm_write: rc=0' "$T/out" "later passes still ran"
run=$(ls -d "$T"/results/pmc-local-*)
python3 -c "
import json; d = json.load(open('$run/run.json'))
assert d['passes_failed'] == 1 and d['status'] == 'failed', d
assert [p['exit_status'] for p in d['passes'] if p['name'] == '02_fp32_int_ops'] == [134]
" && pass "run.json records the failed pass" || fail "run.json pass records"

# --- --counters FILE, NTASKS>1 through LAUNCHER: per-process names (%pid%)
rm -rf "$T/results"
printf '{"passes": [{"name": "p1", "counters": ["SQ_WAVES", "GRBM_GUI_ACTIVE"]}]}\n' >"$T/set.json"
mkconf "$T/mp.conf" "NTASKS=2" "LAUNCHER=(env SLURM_LOCALID=1)" "BIND_GPU_PER_TASK=1"
expect_exit 0 "pmc --counters FILE" -- "$BENCHRUN" pmc "$T/mp.conf" --counters "$T/set.json"
run=$(ls -d "$T"/results/pmc-local-*)
ls "$run"/p1/p1_[0-9]*_counter_collection.csv >/dev/null 2>&1 && pass "per-process file names" || fail "no p1_<pid>_ files"
expect_grep '^env ROCR_VISIBLE_DEVICES=1$' "$run/p1/rocprof.p1.txt" "BIND_GPU_PER_TASK=1 sets ROCR_VISIBLE_DEVICES"
# --- the seed user's $PROFILING_DIR/counters.json is the default set (said)
rm -rf "$T/results"
mkdir -p "$T/profdir" && cp "$T/set.json" "$T/profdir/counters.json"
mkconf "$T/pd.conf" "PROFILING_DIR=$T/profdir"
expect_exit 0 "pmc with \$PROFILING_DIR/counters.json" -- "$BENCHRUN" pmc "$T/pd.conf"
expect_grep "^pmc: counter set '$T/profdir/counters.json' from $T/profdir/counters.json: 1 passes$" \
    "$T/out" "says which set it used"
run=$(ls -d "$T"/results/pmc-local-*)
[ -d "$run/p1" ] && [ ! -d "$run/01_fp64_flops" ] && pass "its passes ran" || fail "passes of $run"
expect_exit 0 "--counters still wins (dry run)" -- "$BENCHRUN" pmc "$T/pd.conf" --counters default --dry-run
expect_grep "counter set 'default' from .*gfx942.json: 6 passes" "$T/out" "the option over the file"
expect_exit 1 "unknown counter set" -- "$BENCHRUN" pmc "$T/w.conf" --counters nosuchset --dry-run
expect_grep "no counter set 'nosuchset'" "$T/err" "unknown set named"
expect_exit 2 "pmc usage error" -- "$BENCHRUN" pmc "$T/w.conf" --bogus

# --- power: sampler + kernel tracer + app, summary
rm -rf "$T/results"
expect_exit 0 "power run" -- "$BENCHRUN" power "$T/w.conf"
run=$(ls -d "$T"/results/prof-local-*)
for f in profiling_result_fake_0.csv clock_ref.txt app.txt run_info.txt run.json workload.conf; do
    [ -s "$run/$f" ] && pass "power: $f" || fail "power: $f missing"
done
ls "$run"/ktrace_fake/fake_kernel_trace.csv >/dev/null 2>&1 && pass "kernel trace in ktrace_fake/" || fail "no ktrace"
[ -s "$run/ktrace_fake/fake_memory_copy_trace.csv" ] && pass "memory copy trace beside it (--memory-copy-trace)" \
    || fail "no memory copy trace in ktrace_fake/"
expect_grep '^  samples +[1-9][0-9]* in 1 telemetry file' "$T/out" "samples in summary"
expect_grep '^  kernels traced +4 in 1 trace file' "$T/out" "kernels traced"
expect_grep '^  alignment +clock_ref boottime [0-9]+ ns; first sample [+-][0-9.]+ s; first kernel \+[0-9.]+ s' \
    "$T/out" "alignment evidence"
python3 -c "
import json; d = json.load(open('$run/run.json'))['power_summary']
assert d['samples'] > 0 and d['kernels_traced'] == 4 and d['socket_power_W_max'] > 0, d
" && pass "run.json power_summary" || fail "run.json power_summary"

# --- layout: NGPUS=2 on a node with one GPU
mkconf "$T/two.conf" "NGPUS=2" "PARTITION=mi3008x"
expect_exit 1 "NGPUS above the GPUs seen" -- "$BENCHRUN" plain "$T/two.conf"
expect_grep 'NGPUS=2 but this node has 1 GPU \(kfd topology\).*sbatch -p mi3008x run_<stage>.sbatch' "$T/err" \
    "error with the sbatch line"
finish
