#!/bin/bash
# 0111-stage-bad-input: a hostile or broken conf. Control
# characters cannot forge run_info.txt lines; a conf with a background job or
# one that never returns cannot hang benchrun (time limit, process group
# killed, no orphan even on SIGTERM); errors that can be known before a run
# folder exists are found before it exists (a WORKLOAD too long for the file
# names, an invalid PERF_GREP, a conf whose second reading differs, a
# dangling or looping RESULTS_DIR link); PERF_GREP keeps bounded memory; the
# runbook quotes every value it puts in a command.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID BENCHRUN_CONF_TIMEOUT

# mkconf FILE [LINES...]: a minimal conf (app: true), then the lines.
mkconf() {
    local f=$1; shift
    cat >"$f" <<CONF
WORKLOAD=bad
RESULTS_DIR=$T/results
NGPUS=1
NTASKS=1
VENDOR=none
app_cmd() { APP_CMD=(true); }
CONF
    printf '%s\n' "$@" >>"$f"
}
nothing_created() { [ -e "$T/results" ] && fail "$1: RESULTS_DIR was created" || pass "$1: nothing created"; }

# 1. A newline in WORKLOAD_DESC cannot forge a line of run_info.txt.
mkconf "$T/nl.conf" 'WORKLOAD_DESC=$'"'"'x\nstatus: ok\nexit_status: 0'"'" 'app_cmd() { APP_CMD=(false); }'
expect_exit 1 "failing app with a forged description" -- "$BENCHRUN" plain "$T/nl.conf"
d=$(ls -d "$T"/results/plain-*)
[ "$(grep -c '^status:' "$d/run_info.txt")" -eq 1 ] && pass "one status line" || fail "forged status line"
expect_grep '^status: failed$' "$d/run_info.txt" "the real status"
expect_grep '^description: x\\nstatus: ok\\nexit_status: 0$' "$d/run_info.txt" "description escaped on its line"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['description']=='x\nstatus: ok\nexit_status: 0' and d['status']=='failed', d" \
    "$d/run.json" && pass "run.json keeps the real text" || fail "run.json description"
mkconf "$T/ctl.conf" 'WORKLOAD=$'"'"'a\tb'"'"
expect_exit 1 "a tab in WORKLOAD" -- "$BENCHRUN" plain "$T/ctl.conf" --dry-run
expect_grep 'WORKLOAD must not hold control characters, got .a\\tb.' "$T/err" "control character named"
rm -rf "$T/results"
# Bytes that are not UTF-8 reach run.json escaped (\xFF), and every JSON
# reader loads it; run_info.txt shows the same text.
mkconf "$T/latin1.conf" 'WORKLOAD_DESC=$'"'"'caf\xe9 \xff'"'"
expect_exit 0 "description that is not UTF-8" -- "$BENCHRUN" plain "$T/latin1.conf"
d=$(ls -d "$T"/results/plain-*)
python3 -c "import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8')); assert d['description']==sys.argv[2], d['description']" \
    "$d/run.json" 'caf\xE9 \xFF' && pass "run.json loads, description escaped" || fail "run.json with a non-UTF-8 description"
grep -qxF 'description: caf\xE9 \xFF' "$d/run_info.txt" && pass "run_info.txt: the same escaping" || fail "run_info.txt description"
expect_exit 2 "a newline in --node" -- "$BENCHRUN" sample --backend sim --node $'n\nx' -o "$T/s" -- true
rm -rf "$T/results"

# 2. A background job in the conf does not block the conf load.
mkconf "$T/bg.conf" 'sleep 15.0555 &'
t0=$SECONDS
expect_exit 0 "conf with a background job" -- "$BENCHRUN" plain "$T/bg.conf" --dry-run
[ $((SECONDS - t0)) -lt 5 ] && pass "loaded without waiting for it" || fail "the load waited $((SECONDS - t0)) s"
expect_grep 'background processes .* stopped' "$T/err" "says the background job was stopped"
sleep 0.2
pgrep -f 'sleep 15.0555' >/dev/null && fail "background job left running" || pass "background job stopped"

# 3. A conf that never returns: time limit, named, its processes killed.
mkconf "$T/hang.conf" 'sleep 100.0666'
t0=$SECONDS
expect_exit 1 "conf that never returns" -- env BENCHRUN_CONF_TIMEOUT=1 "$BENCHRUN" plain "$T/hang.conf"
[ $((SECONDS - t0)) -lt 5 ] && pass "stopped after the time limit" || fail "took $((SECONDS - t0)) s"
expect_grep 'hang.conf: reading the conf did not finish within 1 s' "$T/err" "names the conf and the limit"
sleep 0.2
pgrep -f 'sleep 100.0666' >/dev/null && fail "the conf's command left running" || pass "its process group killed"
nothing_created "hanging conf"
expect_exit 1 "bad BENCHRUN_CONF_TIMEOUT" -- env BENCHRUN_CONF_TIMEOUT=0 "$BENCHRUN" plain "$T/hang.conf"
expect_grep 'BENCHRUN_CONF_TIMEOUT' "$T/err" "names the variable"

# 4. SIGTERM while the conf is read: benchrun stops and leaves no orphan.
mkconf "$T/slow.conf" 'sleep 30.0777'
"$BENCHRUN" plain "$T/slow.conf" >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 500); do pgrep -f 'sleep 30.0777' >/dev/null && break; sleep 0.02; done
kill -TERM $pid
t0=$SECONDS
wait $pid; rc=$?
[ $rc -ne 0 ] && [ $((SECONDS - t0)) -lt 3 ] && pass "SIGTERM during the conf load: exit $rc" || fail "exit $rc after $((SECONDS - t0)) s"
expect_grep 'stopped \(SIGTERM received\) while the conf was read' "$T/err" "says why"
sleep 0.2
pgrep -f 'sleep 30.0777' >/dev/null && fail "the conf's child orphaned" || pass "no orphan"
nothing_created "SIGTERM during the conf load"
# The same in a dry run, which has no stage handler: benchrun dies of the
# signal as before, but only after stopping the conf's processes.
"$BENCHRUN" plain "$T/slow.conf" --dry-run >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 500); do pgrep -f 'sleep 30.0777' >/dev/null && break; sleep 0.02; done
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] && pass "dry run: ends by the SIGTERM (exit 143)" || fail "dry run after SIGTERM: exit $rc"
sleep 0.2
pgrep -f 'sleep 30.0777' >/dev/null && fail "dry run: the conf's child orphaned" || pass "dry run: no orphan"

# 5. Errors known before a run folder exists.
mkconf "$T/long.conf" "WORKLOAD=$(printf 'w%.0s' $(seq 250))"
expect_exit 1 "250-character WORKLOAD" -- "$BENCHRUN" power "$T/long.conf"
expect_grep 'WORKLOAD is 250 characters long; at most 128' "$T/err" "says how long it may be"
nothing_created "long WORKLOAD"
mkconf "$T/dash.conf" "WORKLOAD=-rf"
expect_exit 1 "WORKLOAD starting with '-'" -- "$BENCHRUN" plain "$T/dash.conf" --dry-run
mkconf "$T/re.conf" "PERF_GREP='(unclosed'"
expect_exit 1 "invalid PERF_GREP" -- "$BENCHRUN" plain "$T/re.conf"
expect_grep "re.conf: PERF_GREP '\(unclosed' is not a valid extended regular expression" "$T/err" "names the pattern"
nothing_created "invalid PERF_GREP"
mkconf "$T/rand.conf" 'WORKLOAD_DESC="run $RANDOM$RANDOM$RANDOM"'
expect_exit 1 "a conf whose second reading differs" -- "$BENCHRUN" plain "$T/rand.conf"
expect_grep 'rand.conf: WORKLOAD_DESC differs between two readings of the conf' "$T/err" "names the field"
nothing_created "differing conf"
ln -s "$T/nowhere" "$T/dangling"
mkconf "$T/dangling.conf" "RESULTS_DIR=$T/dangling"
expect_exit 1 "dangling RESULTS_DIR link" -- "$BENCHRUN" plain "$T/dangling.conf"
expect_grep "'$T/dangling': it is a symbolic link to '$T/nowhere', which does not exist" "$T/err" "says the link dangles"
ln -s "$T/loop" "$T/loop"
mkconf "$T/loop.conf" "RESULTS_DIR=$T/loop/results"
expect_exit 1 "looping RESULTS_DIR link" -- "$BENCHRUN" plain "$T/loop.conf"
expect_grep "'$T/loop': it is a symbolic link that loops" "$T/err" "says the link loops"
rm -f "$T/dangling" "$T/loop"

# 5b. A full disk when the run record is written: the reason, exit 1.
SHIM=$BR_BINARY_DIR/tests/failio.so
mkconf "$T/full.conf"
expect_exit 1 "run.json on a full disk" -- env LD_PRELOAD="$SHIM" BR_FAULT=enospc BR_FAULT_PATH=run.json \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$BENCHRUN" plain "$T/full.conf"
expect_grep "cannot write '.*/run.json': No space left on device" "$T/err" "says why"
[ -z "$(find "$T/results" -name '*.tmp.*')" ] && pass "no partial record file" || fail "temporary record left"
rm -rf "$T/results"

# 6. PERF_GREP matching every line, and a 30 MB line: bounded output and memory.
mkconf "$T/many.conf" "PERF_GREP='^x'" \
    "app_cmd() { APP_CMD=(bash -c 'seq 20000 | sed s/^/x/; head -c 30000000 /dev/zero | tr \"\\\\0\" x; echo'); }"
python3 - "$BENCHRUN" "$T/many.conf" "$T/out" <<'PY' && pass "bounded PERF_GREP" || fail "PERF_GREP memory"
import json, os, resource, subprocess, sys
subprocess.run([sys.argv[1], "plain", sys.argv[2]], stdout=open(sys.argv[3], "w"), stderr=subprocess.PIPE, check=True)
rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
assert os.environ.get("ASAN_OPTIONS") or rss_mb < 25, "peak RSS %.0f MB" % rss_mb
PY
d=$(ls -d "$T"/results/plain-*)
python3 - "$d/run.json" <<'PY' && pass "run.json: 100 lines kept, 20001 counted, each at most 4096 bytes" || fail "run.json perf_lines"
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["perf_lines_matched"] == 20001, d["perf_lines_matched"]
assert len(d["perf_lines"]) == 100 and d["perf_lines"][0] == "x1", len(d["perf_lines"])
assert max(len(l) for l in d["perf_lines"]) <= 4096
assert os.path.getsize(sys.argv[1]) < 100000
PY
[ "$(wc -l <"$T/out")" -lt 200 ] && pass "stdout bounded" || fail "stdout has $(wc -l <"$T/out") lines"
rm -rf "$T/results"

# 7. The runbook quotes what it puts in commands.
mkconf "$T/rb.conf" "PARTITION='gpu part;x'" "RESULTS_DIR='$T/my results'" "TIME_LIMIT=00:10:00"
expect_exit 0 "runbook with blanks and ';'" -- "$BENCHRUN" runbook "$T/rb.conf" --out "$T/rb.md"
python3 - "$T/rb.md" "$T/my results" <<'PY' && pass "every command parses with its values whole" || fail "runbook quoting"
import re, shlex, sys
md, results = open(sys.argv[1]).read(), sys.argv[2]
blocks = re.findall(r"```sh\n(.*?)```", md, re.S)
lines = [l for b in blocks for l in b.splitlines() if l.strip()]
sb = [shlex.split(l.split("$(", 1)[-1].rstrip(")")) for l in lines
      if re.match(r"(\w+=\$\()?sbatch ", l)]
assert sb, lines
for argv in sb:
    assert argv[argv.index("-p") + 1] == "gpu part;x", argv
for l in lines:
    if " analyze " in l or " vectors " in l:
        argv = shlex.split(l, comments=True)
        assert any(a.startswith(results + "/") for a in argv), argv
PY
finish
