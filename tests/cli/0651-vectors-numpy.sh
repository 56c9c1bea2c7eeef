#!/bin/bash
# 0651-vectors-numpy: `benchrun vectors` against an independent numpy
# reference (tests/cli/vectors_ref.py: numpy.arange edges, Python round) on
# samples placed on, one ulp below and one ulp above every bin edge, 3 GPUs,
# trimmed and untrimmed, pooled and per GPU. Needs python3 with numpy
# (python3-numpy; CI installs it); without it the test says so and passes,
# except under CI (CI=true), where it fails.
. "$(dirname "$0")/lib.sh"

py=$(python_with numpy)
if [ -z "$py" ]; then
    if [ "${CI:-}" = true ]; then fail "numpy is not available (apt-get install python3-numpy)"; finish; fi
    echo "skip: python3 with numpy not found; the numpy cross-check did not run"
    exit 0
fi
ref="$BR_SOURCE_DIR/tests/cli/vectors_ref.py"
run="$T/prof-4242"
mkdir -p "$run"
"$py" "$ref" gen "$run" || { fail "generator"; finish; }

expect_exit 0 "vectors --per-gpu" -- "$BENCHRUN" vectors "$run" --tdp 750 --per-gpu
"$py" "$ref" check "$run" "$run/sampling_vectors.json" --per-gpu >"$T/cmp" 2>&1
rc=$?; cat "$T/cmp"
[ $rc -eq 0 ] && pass "trimmed, pooled + per GPU: equal to numpy" || fail "trimmed vectors differ from numpy"

expect_exit 0 "vectors --no-trim" -- "$BENCHRUN" vectors "$run" --tdp 750 --no-trim --out "$T/nt.json"
"$py" "$ref" check "$run" "$T/nt.json" --no-trim >"$T/cmp" 2>&1
rc=$?; cat "$T/cmp"
[ $rc -eq 0 ] && pass "untrimmed: equal to numpy" || fail "untrimmed vectors differ from numpy"

expect_exit 0 "vectors --tdp 700" -- "$BENCHRUN" vectors "$run" --tdp 700 --out "$T/700.json"
"$py" "$ref" check "$run" "$T/700.json" --tdp 700 >"$T/cmp" 2>&1
rc=$?; cat "$T/cmp"
[ $rc -eq 0 ] && pass "TDP 700 W: equal to numpy" || fail "TDP 700 vectors differ from numpy"

# The JSON text itself reads like Python's: re-dumping the parsed numbers with
# repr() gives the same tokens as benchrun printed.
"$py" - "$run/sampling_vectors.json" <<'PY' >"$T/repr" 2>&1
import json, re, sys
text = open(sys.argv[1]).read()
j = json.loads(text)
line = re.search(r'"inst_power": \[(.*)\]', text).group(1)
want = ", ".join(repr(v) for v in j["inst_power"])
sys.exit(0 if line == want else print(line, "\n", want) or 1)
PY
[ $? -eq 0 ] && pass "numbers printed as Python repr" || { fail "number text differs from repr"; cat "$T/repr"; }
finish
