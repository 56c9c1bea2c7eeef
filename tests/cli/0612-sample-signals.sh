#!/bin/bash
# 0612-sample-signals: SIGTERM/SIGINT mid-run are forwarded to the command and
# everything is written; SIGKILL mid-run leaves only complete lines (every line
# parsed), as when Slurm ends a job at its time limit (SIGTERM, then SIGKILL).
. "$(dirname "$0")/lib.sh"

# complete FILE: ends with a newline, every row has 12 numeric/nan fields. Prints rows.
complete() {
    python3 - "$1" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
assert data.endswith(b"\n"), "partial last line"
rows = data.decode().split("\n")[2:-1]
for i, r in enumerate(rows):
    f = r.split(",")
    assert len(f) == 12, f"row {i}: {len(f)} fields"
    int(f[0]); [float(x) for x in f[1:]]
print(len(rows))
EOF
}

# children_of PID: the pids whose parent is PID (from /proc: no procps needed).
children_of() {
    local f
    for f in /proc/[0-9]*/stat; do
        awk -v p="$1" '{ sub(/^.*\) /, ""); if ($2 == p) { split(FILENAME, a, "/"); print a[3] } }' "$f" 2>/dev/null
    done
}

# rows_now FILE: sample rows written so far (lines after the two header lines).
rows_now() { local n; n=$(wc -l <"$1" 2>/dev/null) || n=0; echo $(( n > 2 ? n - 2 : 0 )); }
# wait_rows FILE N: until FILE holds N sample rows (at most 20 s), so thresholds
# do not depend on how fast a loaded machine starts the sampler.
wait_rows() {
    local i
    for i in $(seq 400); do [ "$(rows_now "$1")" -ge "$2" ] && return 0; sleep 0.05; done
    fail "$1: fewer than $2 rows after 20 s"
}

# SIGTERM and SIGINT: forwarded, sampler stops after the command, exit 128+sig.
for sig in TERM INT; do
    d=$T/$sig
    "$BENCHRUN" sample --backend sim --gpus 0,1 -o "$d" -p s -- sleep 30 >/dev/null 2>"$T/err_$sig" &
    pid=$!
    wait_rows "$d/profiling_result_s_1.csv" 300
    t0=$(date +%s%N)
    kill -"$sig" "$pid"
    wait "$pid"
    st=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    want=$((128 + $(kill -l "$sig")))
    [ "$st" -eq "$want" ] && pass "SIG$sig: exit $st (command killed by the forwarded signal)" \
        || fail "SIG$sig: exit $st, expected $want"
    [ "$ms" -lt 3000 ] && pass "SIG$sig: stopped ${ms} ms after the signal" || fail "SIG$sig: took ${ms} ms"
    for g in 0 1; do
        n=$(complete "$d/profiling_result_s_$g.csv") && [ "$n" -ge 300 ] \
            && pass "SIG$sig gpu $g: $n complete rows" || fail "SIG$sig gpu $g: rows '$n'"
    done
    grep -q "\"signal_forwarded\": $(kill -l "$sig")" "$d/sampler_s.json" \
        && pass "SIG$sig: summary JSON written, records the signal" || fail "SIG$sig: JSON"
done

# SIGKILL at several moments: no partial line, every complete line kept.
for delay in 0.3 0.55 0.8; do
    d=$T/kill_$delay
    "$BENCHRUN" sample --backend sim --gpus 0,1,2,3 -o "$d" -p k -- sleep 30 >/dev/null 2>&1 &
    pid=$!
    wait_rows "$d/profiling_result_k_3.csv" 100
    sleep "$delay"
    child=$(children_of "$pid")
    before0=$(rows_now "$d/profiling_result_k_0.csv") before3=$(rows_now "$d/profiling_result_k_3.csv")
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    [ -n "$child" ] && kill $child 2>/dev/null
    for g in 0 3; do
        # every line seen before the kill is still there (minus a partial one)
        [ "$g" = 0 ] && seen=$before0 || seen=$before3
        n=$(complete "$d/profiling_result_k_$g.csv") && [ "$n" -ge $((seen - 1)) ] && [ "$n" -ge 100 ] \
            && pass "SIGKILL after ${delay}s gpu $g: $n rows, no partial line" \
            || fail "SIGKILL after ${delay}s gpu $g: '$n'"
    done
done

# A signal to a sampler whose command ignores SIGTERM: it keeps sampling until
# the command exits by itself. The signal goes once the command has set its
# trap (it says so in a file): a fixed delay raced the shell's start on a
# loaded machine (the TERM came first: exit 143).
d=$T/ign
ready=$T/ign.ready
"$BENCHRUN" sample --backend sim -o "$d" -p i -- sh -c 'trap "" TERM; : >"$0"; sleep 1.2' "$ready" >/dev/null 2>&1 &
pid=$!
for i in $(seq 400); do [ -e "$ready" ] && break; sleep 0.05; done
[ -e "$ready" ] || fail "ignore TERM: the command did not start in 20 s"
kill -TERM "$pid"
wait "$pid"
st=$?
[ "$st" -eq 0 ] && pass "command ignoring SIGTERM runs to its end (exit 0)" || fail "ignore TERM: exit $st"
n=$(complete "$d/profiling_result_i_0.csv")
[ "${n:-0}" -ge 900 ] && pass "sampling continued until the command exited ($n rows)" || fail "ignore TERM rows '$n'"
finish
