#!/bin/bash
# 0330-analyze-output-set: analyze writes its five outputs as a set (issue
# 15): a SIGKILL while they are written, or a full disk, leaves the previous
# analysis whole (never new CSVs beside an old report.html), a full disk says
# why (ENOSPC), and a folder that is not an analysis is not replaced.
# Faults come from tests/fault/failio.c (LD_PRELOAD): writes to a chosen file
# fail with ENOSPC, or opening it stalls so the test can kill the process.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
SHIM=$BR_BINARY_DIR/tests/failio.so
[ -x "$GEN" ] && [ -f "$SHIM" ] || { fail "generator or fault shim not built"; finish; }
"$GEN" --launches 40 --kernels 5 "$T/run" >/dev/null || fail "generator failed"
# ASan must come first in the library list; the shim is preloaded before it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
A=$T/run/analysis
OUTS="per_kernel_metrics.csv top_kernels.csv summary.json report.md report.html"

# The old set (--top 2) and the new one (--top 3) differ in report.md,
# report.html and summary.json, so a mix of the two shows.
expect_exit 0 "reference new set" -- "$BENCHRUN" analyze "$T/run" --top 3
cp -r "$A" "$T/new"
expect_exit 0 "old set" -- "$BENCHRUN" analyze "$T/run" --top 2
cp -r "$A" "$T/old"
cmp -s "$T/old/report.md" "$T/new/report.md" && fail "old and new sets do not differ"
same_as() { # DIR: the analysis folder holds exactly the set in DIR
    [ "$(ls "$A" | sort)" = "$(ls "$1" | sort)" ] || return 1
    for f in $OUTS; do cmp -s "$A/$f" "$1/$f" || return 1; done
}
no_temp() { [ -z "$(ls -A "$T/run" | grep '\.tmp\.')" ]; }

# 1. Full disk while report.html is written: the old set stays, the reason is given.
expect_exit 1 "ENOSPC on report.html" -- env LD_PRELOAD="$SHIM" BR_FAULT=enospc BR_FAULT_PATH=report.html \
    "$BENCHRUN" analyze "$T/run" --top 3
expect_grep "cannot write '.*report.html': No space left on device" "$T/err" "says why (ENOSPC)"
same_as "$T/old" && pass "old set intact after ENOSPC" || fail "a full disk changed the analysis: $(ls "$A")"
no_temp && pass "no temporary folder left" || fail "temporary folder left: $(ls -A "$T/run")"
expect_exit 1 "ENOSPC after 100 bytes of summary.json" -- env LD_PRELOAD="$SHIM" BR_FAULT=enospc \
    BR_FAULT_PATH=summary.json BR_FAULT_AFTER=100 "$BENCHRUN" analyze "$T/run" --top 3
expect_grep "cannot write '.*summary.json': No space left on device" "$T/err" "says why for a partial write"
same_as "$T/old" && pass "old set intact" || fail "partial write changed the analysis"

# 2. SIGKILL after four of the five outputs are written: still the old set.
env LD_PRELOAD="$SHIM" BR_FAULT=sleep:3000 BR_FAULT_PATH=report.html \
    "$BENCHRUN" analyze "$T/run" --top 3 >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 500); do compgen -G "$T/run/.analysis.tmp.*/report.md" >/dev/null && break; sleep 0.02; done
kill -KILL $pid
wait $pid 2>/dev/null
same_as "$T/old" && pass "SIGKILL mid-output: old set intact" || fail "SIGKILL left a mixed set: $(ls "$A")"
expect_exit 0 "the next run" -- "$BENCHRUN" analyze "$T/run" --top 3
same_as "$T/new" && pass "the next run writes the new set" || fail "new set differs"
no_temp && pass "the killed run's temporary folder was removed" || fail "stale temporary folder: $(ls -A "$T/run")"

# 3. Kills at random moments: always one whole set.
bad=0
for i in $(seq 1 15); do
    "$BENCHRUN" analyze "$T/run" --top $(( 2 + i % 2 )) >/dev/null 2>&1 &
    pid=$!
    sleep "0.0$(printf '%02d' $(( RANDOM % 60 )))"
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
    same_as "$T/old" || same_as "$T/new" || { bad=$((bad + 1)); echo "  trial $i: mixed set" >&2; }
done
[ $bad -eq 0 ] && pass "15 random SIGKILLs: always a whole set" || fail "$bad of 15 kills left a mixed set"

# 4. Someone else's file in the analysis folder is kept; a folder that is not
# an analysis, or one with a subfolder, is not replaced.
echo "my notes" >"$A/notes.txt"
expect_exit 0 "analysis folder with a notes file" -- "$BENCHRUN" analyze "$T/run" --top 3
expect_grep '^my notes$' "$A/notes.txt" "notes kept"
mkdir -p "$T/mine" && echo data >"$T/mine/data.txt"
expect_exit 1 "--out-dir holding other files" -- "$BENCHRUN" analyze "$T/run" --out-dir "$T/mine"
expect_grep "is not an analysis folder" "$T/err" "refused, says why"
expect_grep '^data$' "$T/mine/data.txt" "its files untouched"
mkdir -p "$A/sub"
expect_exit 1 "analysis folder with a subfolder" -- "$BENCHRUN" analyze "$T/run"
expect_grep "holds a folder \('sub'\)" "$T/err" "subfolder refused"
finish
