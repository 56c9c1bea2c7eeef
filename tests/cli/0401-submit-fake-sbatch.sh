#!/bin/bash
# 0401-submit-fake-sbatch: `benchrun submit` against a test double of sbatch
# (tests/fakes/slurm/sbatch): the commands, the afterok chain, --after, job ids on
# stdout and in submitted.json, a rejected submission mid-chain (sbatch's
# error shown, what was submitted listed, exit 1), sbatch missing, conf and
# usage errors. The real cluster is tests/slurm/.
. "$(dirname "$0")/lib.sh"
fakes=$BR_SOURCE_DIR/tests/fakes/slurm
mkdir -p "$T/scripts" "$T/bin"
for s in plain pmc power; do printf '#!/bin/bash\n' > "$T/scripts/run_$s.sbatch"; done
export BENCHRUN_SCRIPTS=$T/scripts FAKE_SBATCH_LOG=$T/sbatch.log
cat > "$T/demo.conf" <<CONF
WORKLOAD=demo
RESULTS_DIR=$T/results
NGPUS=2
NTASKS=2
NNODES=1
PARTITION=mi3008x
TIME_LIMIT=00:20:00
app_cmd() { APP_CMD=(true); }
CONF
PATH_FAKE=$fakes:$PATH

# 1. the whole chain
expect_exit 0 "submit all three stages" -- env PATH="$PATH_FAKE" "$BENCHRUN" submit "$T/demo.conf"
expect_grep "^plain 100 sbatch --parsable -p mi3008x -N 1 -n 2 -J demo-plain -t 00:20:00 --output $T/results/demo-plain-%j.out --export=ALL,BENCHRUN=" "$T/out" "plain line: stage, id, command"
expect_grep "^pmc   101 sbatch .* -J demo-pmc .*--dependency=afterok:100 " "$T/out" "pmc after plain"
expect_grep "^power 102 sbatch .* -J demo-power .*--dependency=afterok:101 .*/run_power.sbatch $T/demo.conf$" "$T/out" "power after pmc"
[ "$(wc -l < "$T/out")" = 3 ] && pass "one line per job" || fail "stdout has $(wc -l < "$T/out") lines"
[ "$(wc -l < "$T/sbatch.log")" = 3 ] && pass "three sbatch calls" || fail "sbatch calls: $(wc -l < "$T/sbatch.log")"
expect_grep "job ids recorded in $T/results/submitted.json" "$T/err" "record named"
rec=$T/results/submitted.json
python3 - "$rec" <<'PY' && pass "submitted.json: ids, dependencies, complete" || fail "submitted.json content"
import json, sys
s = json.load(open(sys.argv[1]))["submissions"]
assert len(s) == 1 and s[0]["complete"] is True and s[0]["not_submitted"] == []
assert [(j["stage"], j["job_id"], j["depends_on"]) for j in s[0]["jobs"]] == \
    [("plain", "100", None), ("pmc", "101", "100"), ("power", "102", "101")]
assert s[0]["jobs"][0]["command"][:2] == ["sbatch", "--parsable"]
PY

# 2. chosen stages, in the order given, after an existing job; a cluster suffix
expect_exit 0 "submit power pmc --after 7" -- env PATH="$PATH_FAKE" FAKE_SBATCH_CLUSTER=c1 FAKE_SBATCH_WARN="test warning" \
    "$BENCHRUN" submit "$T/demo.conf" power pmc --after 7
expect_grep "^power 103 .*--dependency=afterok:7 " "$T/out" "--after makes the first stage wait"
expect_grep "^pmc   104 .*--dependency=afterok:103 " "$T/out" "order as given; '<id>;<cluster>' parsed"
expect_grep "sbatch: warning: test warning" "$T/err" "sbatch warnings passed through"
python3 -c "import json,sys; assert len(json.load(open('$rec'))['submissions']) == 2" \
    && pass "second submission appended" || fail "submitted.json not appended"

# 3. a rejected stage mid-chain
expect_exit 1 "pmc rejected" -- env PATH="$PATH_FAKE" FAKE_SBATCH_REJECT=demo-pmc "$BENCHRUN" submit "$T/demo.conf"
expect_grep "^plain 105 " "$T/out" "plain was submitted and printed"
expect_no_grep "^p(mc|ower) " "$T/out" "no line for pmc or power"
expect_grep "sbatch rejected the pmc job" "$T/err" "which stage was rejected"
expect_grep "Invalid partition name specified" "$T/err" "sbatch's own error shown"
expect_grep "already submitted and still queued: plain job 105 \(cancel with: scancel 105\); not submitted: pmc, power" "$T/err" "what was submitted, exactly"
python3 - "$rec" <<'PY' && pass "incomplete submission recorded" || fail "incomplete record"
import json, sys
e = json.load(open(sys.argv[1]))["submissions"][-1]
assert e["complete"] is False and [j["job_id"] for j in e["jobs"]] == ["105"]
assert e["not_submitted"] == ["pmc", "power"]
PY
expect_exit 1 "first stage rejected" -- env PATH="$PATH_FAKE" FAKE_SBATCH_REJECT=demo-plain "$BENCHRUN" submit "$T/demo.conf"
expect_grep "nothing was submitted" "$T/err" "nothing submitted, said so"

# 4. sbatch missing: nothing attempted
ln -s "$(command -v bash)" "$T/bin/bash"
expect_exit 1 "no sbatch in PATH" -- env PATH="$T/bin" "$BENCHRUN" submit "$T/demo.conf"
expect_grep "sbatch not found in PATH.*nothing was submitted" "$T/err" "sbatch missing explained"

# 5. conf errors and usage errors
n_before=$(wc -l < "$T/sbatch.log")
sed 's/^TIME_LIMIT=.*/TIME_LIMIT=1:2:3:4/' "$T/demo.conf" > "$T/badtime.conf"
expect_exit 1 "malformed TIME_LIMIT" -- env PATH="$PATH_FAKE" "$BENCHRUN" submit "$T/badtime.conf"
expect_grep "TIME_LIMIT '1:2:3:4' is not a Slurm time" "$T/err" "TIME_LIMIT error"
expect_exit 1 "missing conf" -- env PATH="$PATH_FAKE" "$BENCHRUN" submit "$T/nope.conf"
printf '{broken' > "$T/results/submitted.json"
expect_exit 1 "damaged submitted.json" -- env PATH="$PATH_FAKE" "$BENCHRUN" submit "$T/demo.conf"
expect_grep "submitted.json.*cannot be read as JSON" "$T/err" "damaged record named"
[ "$(wc -l < "$T/sbatch.log")" = "$n_before" ] && pass "no sbatch call on conf errors" || fail "sbatch called on a conf error"
expect_exit 2 "unknown stage" -- "$BENCHRUN" submit "$T/demo.conf" plain frob
expect_grep "'frob' is not a stage" "$T/err" "unknown stage named"
expect_exit 2 "stage twice" -- "$BENCHRUN" submit "$T/demo.conf" pmc pmc
expect_exit 2 "bad --after" -- "$BENCHRUN" submit "$T/demo.conf" --after x12
expect_exit 2 "no conf" -- "$BENCHRUN" submit
finish
