#!/bin/bash
# 0110-stage-signals: the run record tells the truth however a stage ends.
# A SIGTERM at any moment of `benchrun plain` (conf load, folder
# creation, setup, app start) stops the app or its start, and leaves either no
# run folder or one whose run_info.txt and run.json are complete, agree, and
# say `killed` with the signal; an app that handles SIGTERM and exits 0 still
# makes the stage fail; an app that ignores SIGTERM gets SIGKILL after
# BENCHRUN_KILL_WAIT seconds; a failing stage_inputs is `failed`, not `killed`.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID BENCHRUN_KILL_WAIT

# mkconf FILE APP-SCRIPT [EXTRA LINES...]: the app is `bash -c APP-SCRIPT OUT_DIR`.
mkconf() {
    local f=$1 app=$2; shift 2
    cat >"$f" <<CONF
WORKLOAD=sig
RESULTS_DIR=$T/results
NGPUS=1
NTASKS=1
VENDOR=none
app_cmd() { APP_CMD=(bash -c '$app' "\$OUT_DIR"); }
CONF
    printf '%s\n' "$@" >>"$f"
}

# record_says DIR STATUS SIGNAL: run_info.txt and run.json both complete, no
# temporary file left, both with this status (and signal, "-" for none).
record_says() {
    python3 - "$@" <<'PY'
import json, os, sys
d, want, sig = sys.argv[1:4]
left = [f for f in os.listdir(d) if ".tmp." in f]
assert not left, "temporary files left: %s" % left
j = json.load(open(os.path.join(d, "run.json")))
txt = dict(l.split(": ", 1) for l in open(os.path.join(d, "run_info.txt")).read().splitlines())
assert j["status"] == want, "run.json status %r, expected %r" % (j["status"], want)
assert txt["status"] == want, "run_info.txt status %r, expected %r" % (txt["status"], want)
assert (j.get("signal") or "-") == sig and txt.get("signal") == sig, (j.get("signal"), txt.get("signal"))
assert str(j["exit_status"] if j["exit_status"] is not None else "-") == txt["exit_status"]
PY
}

# term_when MARKER CMD...: runs CMD in the background, sends it SIGTERM once a
# file matching MARKER (a glob under the run folder) exists, waits; sets rc,
# the run folder d and the seconds from the signal to the end, took.
term_when() {
    local marker=$1 pid t0; shift
    rm -rf "$T/results"
    "$@" >"$T/out" 2>"$T/err" &
    pid=$!
    for _ in $(seq 500); do compgen -G "$T/results/plain-*/$marker" >/dev/null && break; sleep 0.02; done
    t0=$(date +%s.%N)
    kill -TERM $pid
    wait $pid; rc=$?
    took=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(date +%s.%N)")
    d=$(ls -d "$T"/results/plain-* 2>/dev/null)
}

# 1. A SIGTERM recorded while no child runs (the setup ignores it here, as a
# stage_inputs with `trap '' TERM` does) must stop the app from starting: the
# app used to be started anyway, and the re-sent signal reached the child
# while it still had benchrun's handler, so the app ran to the end.
mkconf "$T/setup.conf" 'sleep 1.0111; touch "$0/app-done"' \
    "stage_inputs() { trap '' TERM; touch \"\$PWD/setup-started\"; sleep 0.4; }"
term_when setup-started "$BENCHRUN" plain "$T/setup.conf"
[ $rc -ne 0 ] && pass "signal during setup: exit $rc" || fail "signal during setup: exit 0"
[ -e "$d/app-done" ] && fail "the app ran to the end after SIGTERM" || pass "the app did not run"
record_says "$d" killed SIGTERM && pass "record: killed, SIGTERM" || fail "record after a signal during setup"

# 2. Many trials, SIGTERM at 0-150 ms (conf load, folder, setup, app start).
mkconf "$T/race.conf" 'sleep 1.0222; touch "$0/app-done"'
bad=0
for i in $(seq 0 29); do
    rm -rf "$T/results"
    "$BENCHRUN" plain "$T/race.conf" >"$T/out" 2>"$T/err" &
    pid=$!
    sleep "0.$(printf '%03d' $(( i * 5 + RANDOM % 5 )))"
    kill -TERM $pid
    wait $pid; rc=$?
    d=$(ls -d "$T"/results/plain-* 2>/dev/null)
    why=""
    [ $rc -eq 0 ] && why="exit 0"
    [ -n "$d" ] && [ -e "$d/app-done" ] && why="$why; the app ran to the end"
    if [ -n "$d" ] && ! msg=$(record_says "$d" killed SIGTERM 2>&1); then
        why="$why; record: $(echo "$msg" | tail -n 1) (files: $(ls "$d" | tr '\n' ' '))"
    fi
    if [ -n "$why" ]; then
        bad=$((bad + 1))
        echo "  trial $i: $why" >&2
    fi
done
[ $bad -eq 0 ] && pass "30 SIGTERM trials: record complete and killed, app stopped" \
               || fail "$bad of 30 SIGTERM trials wrong"
sleep 0.2
pgrep -f 'sleep 1.0222' >/dev/null && fail "an app outlived benchrun" || pass "no app left running"

# 2b. SIGKILL (Slurm's KillWait) cannot be handled: a run record may then stay
# at starting/running, but each file that exists is a whole file.
bad=0
for i in $(seq 0 19); do
    rm -rf "$T/results"
    "$BENCHRUN" plain "$T/race.conf" >"$T/out" 2>"$T/err" &
    pid=$!
    sleep "0.$(printf '%03d' $(( i * 8 + RANDOM % 8 )))"
    kill -KILL $pid
    wait $pid 2>/dev/null
    d=$(ls -d "$T"/results/plain-* 2>/dev/null)
    [ -n "$d" ] || continue
    python3 - "$d" <<'PY' || { bad=$((bad + 1)); echo "  SIGKILL trial $i: $(ls "$d" | tr '\n' ' ')" >&2; }
import json, os, sys
d = sys.argv[1]
if os.path.exists(os.path.join(d, "run.json")):
    assert json.load(open(os.path.join(d, "run.json")))["status"] in ("starting", "running")
if os.path.exists(os.path.join(d, "run_info.txt")):
    t = open(os.path.join(d, "run_info.txt")).read()
    assert t.endswith("\n") and "\nstatus: " in t
PY
done
[ $bad -eq 0 ] && pass "20 SIGKILL trials: every record file whole" || fail "$bad of 20 SIGKILLs left a partial file"
sleep 1.2   # the killed stages' apps (sleep 1.0222) end by themselves

# 3. An app that handles SIGTERM and exits 0: the stage was still stopped.
mkconf "$T/trap.conf" 'trap "exit 0" TERM; touch "$0/app-started"; sleep 5.0888 & wait'
term_when app-started "$BENCHRUN" plain "$T/trap.conf"
[ $rc -eq 1 ] && pass "app exiting 0 on SIGTERM: benchrun exit 1" || { fail "app exiting 0 on SIGTERM: benchrun exit $rc"; cat "$T/err" >&2; }
record_says "$d" killed SIGTERM && pass "record: killed" || fail "record of an app that exits 0 on SIGTERM"
expect_grep '^exit_status: 0$' "$d/run_info.txt" "the app's own exit status is kept"
expect_grep 'stopped \(SIGTERM received\)' "$T/out" "summary says stopped"
sleep 0.2
pgrep -f 'sleep 5.0888' >/dev/null && fail "the app's child outlived the stage" || pass "the app's group stopped"

# 4. An app that ignores SIGTERM gets SIGKILL after the grace period.
mkconf "$T/ignore.conf" 'trap "" TERM; touch "$0/app-started"; sleep 30.0333'
term_when app-started env BENCHRUN_KILL_WAIT=0.5 "$BENCHRUN" plain "$T/ignore.conf"
python3 -c "import sys; sys.exit(0 if 0.4 < float(sys.argv[1]) < 5 else 1)" "$took" \
    && pass "SIGKILL after BENCHRUN_KILL_WAIT=0.5" || fail "SIGTERM-ignoring app stopped after $took s"
[ $rc -eq 1 ] && pass "exit 1" || fail "exit $rc"
record_says "$d" killed SIGTERM && pass "record: killed" || fail "record after SIGKILL escalation"
expect_grep '^reason: SIGTERM received; SIGKILL after 0.5 s$' "$d/run_info.txt" "escalation recorded"
pgrep -f 'sleep 30.0333' >/dev/null && fail "ignoring app still running" || pass "ignoring app gone"
expect_exit 1 "bad BENCHRUN_KILL_WAIT" -- env BENCHRUN_KILL_WAIT=soon "$BENCHRUN" plain "$T/ignore.conf"
expect_grep 'BENCHRUN_KILL_WAIT' "$T/err" "names the variable"

# 5. A failing stage_inputs is a failure, not a kill.
mkconf "$T/badsetup.conf" 'touch "$0/app-done"' 'stage_inputs() { return 3; }'
rm -rf "$T/results"
expect_exit 1 "failing stage_inputs" -- "$BENCHRUN" plain "$T/badsetup.conf"
d=$(ls -d "$T"/results/plain-*)
record_says "$d" failed - && pass "record: failed" || fail "record of a failing stage_inputs"
expect_grep '^reason: setup failed' "$d/run_info.txt" "reason: setup failed"
[ -e "$d/app-done" ] && fail "the app ran after a failed setup" || pass "the app did not run"

# 6. The time limit inside Slurm: killed, SIGTERM, reason time limit.
mkconf "$T/limit.conf" 'touch "$0/app-started"; sleep 20.0444' 'LAUNCHER=none'
term_when app-started env SLURM_JOB_ID=778 SLURM_NTASKS=1 "$BENCHRUN" plain "$T/limit.conf"
record_says "$T/results/plain-778" killed SIGTERM && pass "record: killed" || fail "time-limit record"
expect_grep '^reason: time limit$' "$T/results/plain-778/run_info.txt" "reason: time limit"
finish
