#!/bin/bash
# 0040-chain: three-stage afterok chains on the real cluster.
#   A. the shell script printed by `benchrun submit CONF --dry-run`, run as is
#      with the real sbatch: plain -> pmc -> power all COMPLETED, each starting
#      after the previous one ended; then the pmc -t estimate from that plain run.
#   B. `benchrun submit CONF` with a failing app: plain FAILED, pmc and power
#      CANCELLED by Slurm (afterok never satisfied) and never ran: no pmc-* or
#      prof-* folder, no Slurm output file; submitted.json holds the three ids.
. "$(dirname "$0")/lib.sh"
slurm_require
cd "$T" || exit 1
fake_amd_gpus 1
export PATH=$BR_SOURCE_DIR/tests/fakes:$PATH
echo '{"passes": [{"name": "p1", "counters": ["SQ_WAVES", "GRBM_GUI_ACTIVE"]}, {"name": "p2", "counters": ["SQ_BUSY_CYCLES"]}]}' > "$T/passes.json"
conf() {  # conf NAME EXTRA_APP_ARGS
    cat > "$T/$1.conf" <<CONF
WORKLOAD=$1
RESULTS_DIR=$T/$1-results
NGPUS=1
NTASKS=1
VENDOR=amd
COUNTERS=passes.json
SAMPLE_BACKEND=sim
TIME_LIMIT=5
app_cmd() { APP_CMD=("$DEMO" --size 100000 --iters 5 $2); }
CONF
}
conf good ""
conf bad "--fail 3"

expect_exit 0 "dry-run script of good.conf" -- "$BENCHRUN" submit "$T/good.conf" --dry-run
cp "$T/out" "$T/chain.sh"
bash "$T/chain.sh" > "$T/chain.out" 2> "$T/chain.err"
read -r pa qa wa < <(sed -n 's/^submitted: plain=\([0-9]*\) pmc=\([0-9]*\) power=\([0-9]*\)$/\1 \2 \3/p' "$T/chain.out")
[ -n "${wa:-}" ] && pass "A: the dry-run script submitted three jobs ($pa $qa $wa)" \
    || { fail "A: script output"; show_file "$T/chain.out"; show_file "$T/chain.err"; }
expect_exit 0 "submit bad.conf (three stages)" -- "$BENCHRUN" submit "$T/bad.conf"
pb=$(awk '$1 == "plain" {print $2}' "$T/out")
qb=$(awk '$1 == "pmc" {print $2}' "$T/out")
wb=$(awk '$1 == "power" {print $2}' "$T/out")
[ "$(submitted_ids "$T/bad-results/submitted.json" | paste -sd' ')" = "$pb $qb $wb" ] \
    && pass "B: submitted.json holds $pb $qb $wb" || fail "B: submitted.json"

expect_grep "afterok:$pa" <(job_field "$qa" Dependency; scontrol -o show job "$qa") "A: pmc depends on plain"
expect_job "$pa" COMPLETED "A: plain"
expect_job "$qa" COMPLETED "A: pmc after plain"
expect_job "$wa" COMPLETED "A: power after pmc"
job_start_after "$qa" "$pa" && pass "A: pmc started after plain ended" || fail "A: pmc start $(job_field "$qa" StartTime) < plain end $(job_field "$pa" EndTime)"
job_start_after "$wa" "$qa" && pass "A: power started after pmc ended" || fail "A: power started early"
for d in plain-$pa pmc-$qa prof-$wa; do
    expect_grep '^status: ok$' "$T/good-results/$d/run_info.txt" "A: $d ok"
done
# the plain run now exists: pmc gets passes x 3 x its wall time (2 passes, < 1 s -> 1 min)
expect_exit 0 "dry run of pmc after the plain run" -- "$BENCHRUN" submit "$T/good.conf" pmc --dry-run
expect_grep "^# pmc -t 5: TIME_LIMIT, not shorter than 2 passes x 3 x plain wall [0-9.]+ s \(plain-$pa\)" "$T/out" "A: pmc estimate from plain-$pa (TIME_LIMIT longer, kept)"
sed -i '/^TIME_LIMIT=/d' "$T/good.conf"
expect_exit 0 "dry run of pmc without TIME_LIMIT" -- "$BENCHRUN" submit "$T/good.conf" pmc --dry-run
expect_grep "^pmc=\\\$\(sbatch .* -t 00:01:00 " "$T/out" "A: pmc -t 00:01:00 from the plain run"

expect_job "$pb" FAILED "B: failing plain"
expect_job "$qb" CANCELLED "B: pmc never runs" 60
expect_job "$wb" CANCELLED "B: power never runs" 60
expect_grep 'Reason=DependencyNeverSatisfied' <(scontrol -o show job "$qb") "B: reason DependencyNeverSatisfied"
ls -d "$T"/bad-results/pmc-* "$T"/bad-results/prof-* >/dev/null 2>&1 && fail "B: a later stage created its folder" \
    || pass "B: no pmc-* or prof-* folder"
[ ! -e "$T/bad-results/bad-pmc-$qb.out" ] && [ ! -e "$T/bad-results/bad-power-$wb.out" ] \
    && pass "B: no output of pmc or power" || fail "B: pmc/power wrote output"
expect_grep '^status: failed$' "$T/bad-results/plain-$pb/run_info.txt" "B: plain run_info says failed"
finish
