#!/bin/bash
# 0661-compare-scipy: `benchrun compare` against scipy itself
# (tests/cli/compare_ref.py: pdist, linkage, dendrogram of Debian's
# python3-scipy) on generated test sets: 16 realistic workloads in every
# input layout, exact ties (duplicates, equal distances, scaled copies), many
# equal distances, 2 workloads, 300 workloads; every metric x every linkage
# method. Merge pairs and sizes must be equal, heights and distances within
# 1e-12 relative, leaf order and colours equal. A zero vector must be refused
# under cosine and correlation, naming the input. Needs python3 with numpy and
# scipy (python3-scipy; CI installs it); without them the test says so and
# passes, except under CI (CI=true), where it fails.
. "$(dirname "$0")/lib.sh"

py=$(python_with scipy.cluster.hierarchy)
if [ -z "$py" ]; then
    if [ "${CI:-}" = true ]; then fail "scipy is not available (apt-get install python3-scipy)"; finish; fi
    echo "skip: python3 with scipy not found; the scipy cross-check did not run"
    exit 0
fi
ref="$BR_SOURCE_DIR/tests/cli/compare_ref.py"
"$py" "$ref" gen "$T/sets" || { fail "generator"; finish; }

n=0
while IFS=$'\t' read -r name metric method near rc inputs; do
    read -r -a in <<<"${inputs//$'\t'/ }"
    args=(compare "${in[@]}" -o "$T/sets/out/$name" --metric "$metric" --method "$method")
    [ "$near" != - ] && args+=(--nearest "$near")
    "$BENCHRUN" "${args[@]}" >"$T/out" 2>"$T/err"
    got=$?
    n=$((n + 1))
    if [ "$got" -ne "$rc" ]; then
        fail "$name: exit $got, expected $rc"; sed 's/^/  stderr: /' "$T/err" >&2; continue
    fi
    if [ "$rc" -ne 0 ]; then
        grep -q "zero/app_vectors.json: inst_power of 'all zeros' is" "$T/err" ||
            { fail "$name: the error does not name the zero input"; cat "$T/err" >&2; }
        grep -q "leave this input out or use --metric euclidean" "$T/err" ||
            fail "$name: the error does not say what to do"
        [ -e "$T/sets/out/$name" ] && fail "$name: an output folder was created"
    fi
done <"$T/sets/cases.tsv"
pass "$n benchrun compare runs with the expected exit status"

"$py" "$ref" check "$T/sets" >"$T/cmp" 2>&1
rc=$?; tail -n 20 "$T/cmp"
[ $rc -eq 0 ] && pass "every case equal to scipy" || fail "benchrun compare differs from scipy"
finish
