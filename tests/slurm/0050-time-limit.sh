#!/bin/bash
# 0050-time-limit: power runs that hit their Slurm time limit mid-run (~80 s:
# Slurm limits are whole minutes, enforced by a ~30 s periodic check; then
# SIGTERM to every step and SIGKILL KillWait = 5 s later). Two jobs at once:
#   A. one node, 2 tasks (the sampler wraps srun in the batch step);
#   B. NNODES=2 (one sampler step per node beside the app step);
# and, at the same time, C. a plain run and D. a pmc run (2 passes: the first
# one is killed, the second never starts).
# Expected: JobState TIMEOUT; run_info.txt says status killed, reason
# "time limit"; every telemetry and kernel-trace file that exists ends on a
# complete line (no partial line); telemetry covers the run up to the kill.
. "$(dirname "$0")/lib.sh"
slurm_require
cd "$T" || exit 1
fake_amd_gpus 2
export PATH=$BR_SOURCE_DIR/tests/fakes:$PATH
conf() {  # conf NAME NNODES
    cat > "$T/$1.conf" <<CONF
WORKLOAD=$1
RESULTS_DIR=$T/results
NGPUS=2
NTASKS=2
NNODES=$2
VENDOR=amd
SAMPLE_BACKEND=sim
SAMPLE_GPUS=0,1
SAMPLE_MS=5
TIME_LIMIT=1
app_cmd() { APP_CMD=("$DEMO" --size 1000 --iters 2 --sleep-ms 600000); }
CONF
}
conf tla 1
conf tlb 2
echo '{"passes": [{"name": "p1", "counters": ["SQ_WAVES"]}, {"name": "p2", "counters": ["SQ_BUSY_CYCLES"]}]}' > "$T/passes.json"
sed -e 's/^WORKLOAD=tla/WORKLOAD=tlc/' "$T/tla.conf" > "$T/tlc.conf"
sed -e 's/^WORKLOAD=tla/WORKLOAD=tld/' -e 's/^VENDOR=amd/VENDOR=amd\nCOUNTERS=passes.json/' "$T/tla.conf" > "$T/tld.conf"
expect_exit 0 "submit tla.conf power" -- "$BENCHRUN" submit "$T/tla.conf" power
ja=$(awk '$1 == "power" {print $2}' "$T/out")
expect_exit 0 "submit tlb.conf power" -- "$BENCHRUN" submit "$T/tlb.conf" power
jb=$(awk '$1 == "power" {print $2}' "$T/out")
expect_exit 0 "submit tlc.conf plain" -- "$BENCHRUN" submit "$T/tlc.conf" plain
jc=$(awk '$1 == "plain" {print $2}' "$T/out")
expect_exit 0 "submit tld.conf pmc" -- "$BENCHRUN" submit "$T/tld.conf" pmc
jd=$(awk '$1 == "pmc" {print $2}' "$T/out")

check() {  # check JOB TAG DESC
    local d=$T/results/prof-$1 f span
    expect_job "$1" TIMEOUT "$3: job ends at its time limit" 240
    [ "$(job_field "$1" Reason)" = TimeLimit ] && pass "$3: Reason=TimeLimit" || fail "$3: Reason $(job_field "$1" Reason)"
    expect_grep '^status: killed$' "$d/run_info.txt" "$3: run_info status killed"
    expect_grep '^reason: time limit$' "$d/run_info.txt" "$3: run_info reason 'time limit'"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['reason'] == 'time limit', r" "$d/run.json" \
        && pass "$3: run.json reason 'time limit'" || fail "$3: run.json reason"
    local nf=0
    for f in "$d"/profiling_result_"$2"_*.csv; do
        [ -e "$f" ] || continue
        nf=$((nf + 1))
        csv_complete "$f" && pass "$3: $(basename "$f") ends on a complete line" || fail "$3: $(basename "$f") has a partial line"
        # sampling lasted until the kill: > 40 s between first and last sample
        span=$(awk -F, 'NR == 3 {a = $1} NR > 2 {b = $1} END {printf "%d", (b - a) / 1e9}' "$f")
        [ "${span:-0}" -ge 40 ] && pass "$3: $(basename "$f") covers ${span} s" || fail "$3: $(basename "$f") covers ${span:-0} s"
    done
    [ "$nf" -ge 2 ] && pass "$3: $nf telemetry files" || fail "$3: $nf telemetry files"
    for f in $(find "$d" -name '*kernel_trace.csv'); do
        # a tracer killed between its header and its rows leaves a header
        # only: complete too (what is asserted is no half-written line)
        csv_complete "$f" 1 0 && pass "$3: $(basename "$f") complete" || fail "$3: $(basename "$f") has a partial line"
    done
}
check "$ja" tla "A (1 node)"
[ -s "$T/results/prof-$ja/sampler_tla.json" ] && pass "A: sampler summary written after SIGTERM" || fail "A: no sampler_tla.json"
check "$jb" tlb "B (2 nodes)"
for n in node1 node2; do
    ls "$T/results/prof-$jb"/profiling_result_tlb_"$n"_*.csv >/dev/null 2>&1 && pass "B: $n sampled" || fail "B: no telemetry of $n"
done
for x in "$jc plain C (plain)" "$jd pmc D (pmc)"; do
    set -- $x
    expect_job "$1" TIMEOUT "$3 $4: job ends at its time limit" 240
    expect_grep '^reason: time limit( \(stopped before all passes ran\))?$' "$T/results/$2-$1/run_info.txt" "$3 $4: run_info reason 'time limit'"
done
expect_grep '^pass p1: rc=[0-9]+, .*time limit' "$T/results/tld-pmc-$jd.out" "D: the killed pass is reported"
expect_no_grep '^pass p2:' "$T/results/tld-pmc-$jd.out" "D: no pass starts after the signal"
[ ! -e "$T/results/pmc-$jd/p2/rocprof.p2.txt" ] && pass "D: pass p2 never ran" || fail "D: pass p2 ran"
finish
