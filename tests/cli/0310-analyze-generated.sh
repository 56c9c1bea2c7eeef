#!/bin/bash
# 0310-analyze-generated: known answers end to end. tests/tools/gen_rocprof
# writes complete rocprofv3 runs (every release layout, multi-process, missing
# pass, counter missing everywhere, a kernel over a physical limit, launch-count
# jitter, low-precision pass, no telemetry) with hidden per-kernel rates and an
# expected.json computed independently of the metric engine; `benchrun
# analyze` must reproduce every value (check_expected.py, relative 1e-6).
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
CHECK="python3 $BR_SOURCE_DIR/tests/cli/check_expected.py"
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }

# run NAME ANALYZE_EXTRA -- GEN_OPTIONS...: generate, analyze, compare.
run() {
    local name=$1 extra=$2; shift 3
    local d=$T/$name
    if ! "$GEN" "$@" "$d/pmc" >"$d.gen.log" 2>&1; then
        fail "$name: generator failed"; sed 's/^/  | /' "$d.gen.log" >&2; return
    fi
    # shellcheck disable=SC2086
    expect_exit 0 "$name: analyze" -- "$BENCHRUN" analyze "$d/pmc" $extra
    [ -f "$d/pmc/analysis/summary.json" ] || { fail "$name: no summary.json"; return; }
    if $CHECK "$d/pmc/expected.json" "$d/pmc/analysis" >"$d.check" 2>&1; then
        pass "$name: every expected value matches ($(tail -1 "$d.check"))"
    else
        fail "$name: values differ from expected.json"; sed 's/^/  | /' "$d.check" | head -25 >&2
    fi
}

for L in 6.2 6.3 6.4 7.x; do
    run "layout-$L" "--power $T/layout-$L/prof" -- --layout "$L" --power "$T/layout-$L/prof" --agent-info
done
run multiproc-7x "--power $T/multiproc-7x/prof" -- --procs 3 --power "$T/multiproc-7x/prof"
run multiproc-62 "--power $T/multiproc-62/prof" -- --layout 6.2 --procs 2 --power "$T/multiproc-62/prof"
run jitter "--power $T/jitter/prof" -- --jitter 3 --seed 7 --kernels 12 --power "$T/jitter/prof"
run missing-pass "--power $T/missing-pass/prof" -- --drop-pass 06_hbm_write --power "$T/missing-pass/prof"
run missing-counter "--power $T/missing-counter/prof" -- --drop-counter TCC_EA0_ATOMIC_sum \
    --power "$T/missing-counter/prof"
run over-limit "--power $T/over-limit/prof" -- --over-limit --power "$T/over-limit/prof"
run lowp "--power $T/lowp/prof" -- --lowp --power "$T/lowp/prof"
run no-telemetry "" -- --seed 3
run throttled "--power $T/throttled/prof" -- --clock-mhz 1500 --pmc-clock-mhz 1800 \
    --power "$T/throttled/prof"

# The kernel over a physical limit is named in the warning.
if [ -f "$T/over-limit/pmc/analysis/summary.json" ]; then
    python3 - "$T/over-limit/pmc/analysis/summary.json" <<'PY' && pass "over-limit warning names CU busy" || fail "no CU-busy warning"
import json, sys
w = json.load(open(sys.argv[1]))["checks"]["warnings"]
sys.exit(0 if any("CU" in x and ("busy" in x.lower()) for x in w) else 1)
PY
fi
finish
