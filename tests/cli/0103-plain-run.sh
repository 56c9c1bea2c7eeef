#!/bin/bash
# 0103-plain-run: a real plain run of the demo workload (exit status, files,
# PERF_GREP line, run.json), a failing app (exit 1, results kept), NTASKS>1
# outside an allocation (clear error, nothing created), a never-reused run
# folder, and SIGTERM forwarded to the app with the reason recorded.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID
app=$BR_BINARY_DIR/tests/demo_workload
[ -x "$app" ] || { fail "demo_workload not built"; finish; }

mkconf() { # FILE EXTRA-APP-ARGS [EXTRA LINES...]
    local f=$1 args=$2; shift 2
    cat >"$f" <<CONF
WORKLOAD=demo
WORKLOAD_DESC="demo run"
RESULTS_DIR=$T/results
NGPUS=1
NTASKS=1
VENDOR=none
REQUIRED_FILES=("$app")
PERF_GREP='^Loop time of'
stage_inputs() { echo staged > inputs.txt; }
app_env() { export DEMO_ENV=from_app_env; }
app_cmd() { APP_CMD=("$app" --size 1000 --iters 3 --log "\$OUT_DIR/demo.log" --print-env DEMO_ENV $args); }
CONF
    printf '%s\n' "$@" >>"$f"
}

mkconf "$T/ok.conf" ""
expect_exit 0 "plain run of the demo" -- "$BENCHRUN" plain "$T/ok.conf"
expect_grep '^Loop time of [0-9.]+ on 1 procs for 3 steps' "$T/out" "PERF_GREP line printed"
expect_grep '^plain: demo: exit status 0, wall time [0-9.]+ s; results in ' "$T/out" "summary line"
run=$(ls -d "$T"/results/plain-local-*)
[ "$(echo "$run" | wc -l)" -eq 1 ] || fail "expected one run folder, got: $run"
for f in app.txt run_info.txt run.json workload.conf inputs.txt demo.log; do
    [ -s "$run/$f" ] && pass "$f written" || fail "$f missing in $run"
done
cmp -s "$T/ok.conf" "$run/workload.conf" && pass "conf copied" || fail "conf copy differs"
expect_grep '^env DEMO_ENV=from_app_env$' "$run/app.txt" "app_env ran before the app"
expect_grep '^Loop time of' "$run/app.txt" "app output in app.txt"
for k in 'workload: demo' 'description: demo run' 'host: ' 'date: 20' 'layout.ntasks: 1' \
         'gpus_seen: 0' "run_dir: $run" 'command: bash .*launch.sh' 'status: ok' 'exit_status: 0' \
         'wall_time_s: [0-9]'; do
    expect_grep "^$k" "$run/run_info.txt" "run_info.txt has '$k'"
done
python3 - "$run/run.json" <<'PY' && pass "run.json content" || fail "run.json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stage"] == "plain" and d["exit_status"] == 0 and d["status"] == "ok", d
assert d["perf_lines"][0].startswith("Loop time of"), d
assert d["layout"] == {"ngpus": 1, "ntasks": 1, "nnodes": 1, "bind_gpu_per_task": False}, d
assert d["wall_time_s"] > 0 and d["reason"] is None
PY

# A second run never reuses the folder, even with the same job id (requeue).
mkconf "$T/direct.conf" "" "LAUNCHER=none"
mkdir -p "$T/results/plain-4242"
expect_exit 0 "run with an existing plain-4242" -- env SLURM_JOB_ID=4242 "$BENCHRUN" plain "$T/direct.conf"
[ -f "$T/results/plain-4242.2/app.txt" ] && pass "new folder plain-4242.2" || fail "plain-4242.2 not created"
[ -z "$(ls -A "$T/results/plain-4242")" ] && pass "existing folder untouched" || fail "plain-4242 was reused"

# Failing app: exit 1, results kept, exit status recorded.
mkconf "$T/fail.conf" "--fail 3"
expect_exit 1 "failing app" -- "$BENCHRUN" plain "$T/fail.conf"
expect_grep 'exit status 3' "$T/out" "exit status reported"
frun=$(ls -dt "$T"/results/plain-local-* | head -n 1)
expect_grep '^exit_status: 3$' "$frun/run_info.txt" "exit status recorded"
expect_grep '^status: failed$' "$frun/run_info.txt" "status failed"
expect_grep 'failing on purpose' "$frun/app.txt" "app stderr kept"

# NTASKS>1 outside an allocation and without LAUNCHER.
rm -rf "$T/results"
mkconf "$T/mpi.conf" "" "NTASKS=4"
expect_exit 1 "NTASKS=4 outside Slurm" -- "$BENCHRUN" plain "$T/mpi.conf"
expect_grep 'NTASKS=4 needs a launcher.*sbatch -n 4.*LAUNCHER' "$T/err" "names the fix"
[ -e "$T/results" ] && fail "NTASKS error created RESULTS_DIR" || pass "nothing created"
# ... but LAUNCHER from the conf is used (argv, not a shell string).
mkconf "$T/launcher.conf" "" "NTASKS=2" "LAUNCHER=(env BR_FROM_LAUNCHER=1)"
expect_exit 0 "LAUNCHER from the conf" -- "$BENCHRUN" plain "$T/launcher.conf" --dry-run
expect_grep '^\[dry-run\] env BR_FROM_LAUNCHER=1 bash .*launch.sh' "$T/out" "launcher prefix shown"

# MODULES: each entry is `module load`ed (module is a shell function, as with
# Lmod); a failing load is a clear error before the app runs.
module() {
    [ "$1" = load ] || return 2
    case "$2" in bad/*) echo "Lmod has detected the following error: The module $2 is unknown" >&2; return 1 ;;
                 *) export BR_LOADED="${BR_LOADED:-}${BR_LOADED:+:}$2" ;; esac
}
export -f module
rm -rf "$T/results"
mkconf "$T/mod.conf" "--print-env BR_LOADED" "MODULES=(rocm/7.2.0 openmpi)"
expect_exit 0 "MODULES loaded" -- "$BENCHRUN" plain "$T/mod.conf"
expect_grep '^env BR_LOADED=rocm/7.2.0:openmpi$' "$(ls -d "$T"/results/plain-*)/app.txt" "modules loaded in order before the app"
rm -rf "$T/results"
mkconf "$T/badmod.conf" "" "MODULES=(rocm/7.2.0 bad/1.0)"
expect_exit 1 "a module that fails to load" -- "$BENCHRUN" plain "$T/badmod.conf"
expect_grep 'module load bad/1.0 failed \(MODULES in .*badmod.conf\)' "$T/err" "names the module"
expect_grep 'setup \(modules, stage_inputs\) failed' "$T/err" "stage stops before the app"
[ -e "$(ls -d "$T"/results/plain-*)/app.txt" ] && fail "the app ran after a failed module load" || pass "the app did not run"
expect_grep '^reason: setup failed' "$(ls -d "$T"/results/plain-*)/run_info.txt" "run_info says why"
unset -f module

# SIGTERM to benchrun reaches the app's process group; the reason is recorded.
rm -rf "$T/results"
mkconf "$T/slow.conf" "--sleep-ms 20000"
"$BENCHRUN" plain "$T/slow.conf" >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 50); do pgrep -f "demo_workload --size 1000 --iters 3 --log $T/results/.*--sleep-ms 20000" >/dev/null && break; sleep 0.1; done
sleep 0.2
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 1 ] && pass "SIGTERM: exit 1" || fail "SIGTERM: exit $rc"
pgrep -f "$T/results/.*sleep-ms 20000" >/dev/null && fail "app still running after SIGTERM" || pass "app stopped"
srun_dir=$(ls -d "$T"/results/plain-local-*)
expect_grep '^reason: SIGTERM received$' "$srun_dir/run_info.txt" "reason recorded"
expect_grep '^status: killed$' "$srun_dir/run_info.txt" "status killed"
# Inside a Slurm job SIGTERM means the time limit.
rm -rf "$T/results"
mkconf "$T/slow-direct.conf" "--sleep-ms 20000" "LAUNCHER=none"
SLURM_JOB_ID=777 SLURM_NTASKS=1 "$BENCHRUN" plain "$T/slow-direct.conf" >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 50); do pgrep -f "$T/results/.*sleep-ms 20000" >/dev/null && break; sleep 0.1; done
sleep 0.2
kill -TERM $pid
wait $pid
expect_grep '^reason: time limit$' "$T/results/plain-777/run_info.txt" "time limit recorded inside Slurm"
finish
