#!/bin/bash
# 0402-submit-dry-run: `benchrun submit --dry-run` prints the sbatch commands as
# a shell script (notes as comments, the chain through $plain/$pmc), submits
# nothing, needs no sbatch; the pmc time limit comes from the newest
# successful plain run (passes x 3 x wall, whole minutes); the printed script
# really submits the chain when run (with the fake sbatch).
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/scripts" "$T/results/plain-11" "$T/results/plain-12" "$T/bin"
for s in plain pmc power; do printf '#!/bin/bash\n' > "$T/scripts/run_$s.sbatch"; done
export BENCHRUN_SCRIPTS=$T/scripts
cat > "$T/w.conf" <<CONF
WORKLOAD=hns
RESULTS_DIR=$T/results
NGPUS=8
NTASKS=8
NNODES=2
COUNTERS=passes.json
app_cmd() { APP_CMD=(true); }
CONF
echo '{"passes": [{"name": "01"}, {"name": "02"}, {"name": "03"}, {"name": "04"}, {"name": "05"}, {"name": "06"}]}' > "$T/passes.json"
# plain-11: 42 s, ok -> 6 x 3 x 42 = 756 s -> 13 min; plain-12 failed: ignored
echo '{"status": "ok", "exit_status": 0, "wall_time_s": 42.0}' > "$T/results/plain-11/run.json"
echo '{"status": "failed", "exit_status": 3, "wall_time_s": 400.0}' > "$T/results/plain-12/run.json"
ln -s "$(command -v bash)" "$T/bin/bash"   # a PATH without sbatch

expect_exit 0 "dry run without sbatch in PATH" -- env PATH="$T/bin" "$BENCHRUN" submit "$T/w.conf" --dry-run
sed -e "s|$T|T|g" -e "s|BENCHRUN=[^ ]*|BENCHRUN=EXE|" "$T/out" > "$T/got"
cat > "$T/want" <<'WANT'
# benchrun submit --dry-run: nothing was submitted; as a shell script:
# PARTITION not set in the conf: no -p, the cluster's default partition is used
mkdir -p T/results
# plain: no TIME_LIMIT: no -t, the partition's default time limit applies
plain=$(sbatch --parsable -N 2 -n 8 -J hns-plain --output T/results/hns-plain-%j.out --export=ALL,BENCHRUN=EXE T/scripts/run_plain.sbatch T/w.conf)
# pmc -t 00:13:00: 6 passes x 3 x plain wall 42.0 s (plain-11), rounded up to whole minutes
pmc=$(sbatch --parsable -N 2 -n 8 -J hns-pmc -t 00:13:00 --output T/results/hns-pmc-%j.out --dependency=afterok:$plain --export=ALL,BENCHRUN=EXE T/scripts/run_pmc.sbatch T/w.conf)
# power: no TIME_LIMIT: no -t, the partition's default time limit applies
power=$(sbatch --parsable -N 2 -n 8 -J hns-power --output T/results/hns-power-%j.out --dependency=afterok:$pmc --export=ALL,BENCHRUN=EXE T/scripts/run_power.sbatch T/w.conf)
echo "submitted: plain=$plain pmc=$pmc power=$power"
WANT
if diff -u "$T/want" "$T/got" >&2; then pass "dry-run script (paths normalized)"; else fail "dry-run script differs"; fi
[ ! -e "$T/results/submitted.json" ] && pass "nothing recorded" || fail "dry run wrote submitted.json"
bash -n "$T/out" && pass "the script is valid bash" || fail "bash -n failed"

# the printed script submits the chain (fake sbatch): ids flow through $plain, $pmc
export FAKE_SBATCH_LOG=$T/sbatch.log
env PATH="$BR_SOURCE_DIR/tests/fakes/slurm:$PATH" bash "$T/out" > "$T/ran" 2>&1
expect_grep '^submitted: plain=100 pmc=101 power=102$' "$T/ran" "script ran: three ids"
expect_grep 'hns-power .*--dependency=afterok:101 ' "$T/sbatch.log" "power depends on pmc's real id"

# partition and TIME_LIMIT; --after; TIME_LIMIT longer than the estimate wins for pmc
printf 'PARTITION=mi3008x\nTIME_LIMIT=2:00:00\n' >> "$T/w.conf"
expect_exit 0 "dry run pmc power --after 5" -- "$BENCHRUN" submit "$T/w.conf" pmc power --after 5 -n
expect_no_grep 'PARTITION not set' "$T/out" "no partition note when set"
expect_grep '^pmc=\$\(sbatch --parsable -p mi3008x -N 2 -n 8 -J hns-pmc -t 2:00:00 .*--dependency=afterok:5 ' "$T/out" "pmc: -p, TIME_LIMIT kept (longer), --after"
expect_grep '^# pmc -t 2:00:00: TIME_LIMIT, not shorter than 6 passes x 3 x plain wall 42.0 s' "$T/out" "why TIME_LIMIT was kept"
expect_grep '^power=\$\(.* -t 2:00:00 .*--dependency=afterok:\$pmc ' "$T/out" "power after pmc"
expect_no_grep '^plain=' "$T/out" "plain not requested"

# without TIME_LIMIT, the wrapper's own #SBATCH --time is named
sed -i '/^TIME_LIMIT=/d' "$T/w.conf"
printf '#!/bin/bash\n#SBATCH --time=01:00:00\nexec true\n' > "$T/scripts/run_power.sbatch"
expect_exit 0 "dry run power" -- "$BENCHRUN" submit "$T/w.conf" power --dry-run
expect_grep "^# power: no TIME_LIMIT: no -t, the #SBATCH --time=01:00:00 of run_power.sbatch applies$" "$T/out" "wrapper default named"

# no wrappers to be found: a clear error
expect_exit 1 "no wrappers" -- env BENCHRUN_SCRIPTS="$T/bin" "$BENCHRUN" submit "$T/w.conf" --dry-run
expect_grep "holds no run_plain.sbatch" "$T/err" "missing wrappers named"
finish
