# lib.sh - helpers sourced by the command-line tests (tests/cli/NNNN-*.sh).
# Environment from CTest: BENCHRUN (binary), BR_SOURCE_DIR, BR_BINARY_DIR.
set -u
: "${BENCHRUN:?run through ctest}"
BR_FAILS=0
T=$(mktemp -d "${TMPDIR:-/tmp}/brtest.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() { echo "FAIL: $*" >&2; BR_FAILS=$((BR_FAILS + 1)); }
pass() { echo "ok: $*"; }

# expect_exit CODE DESC -- CMD...: runs CMD, stdout/stderr into $T/out, $T/err.
expect_exit() {
    local want=$1 desc=$2; shift 3
    "$@" >"$T/out" 2>"$T/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then pass "$desc (exit $got)"
    else fail "$desc: exit $got, expected $want"; sed 's/^/  stderr: /' "$T/err" >&2; fi
}
# expect_grep PATTERN FILE DESC
expect_grep() {
    if grep -qE -- "$1" "$2"; then pass "$3"
    else fail "$3: /$1/ not in $2"; sed 's/^/  | /' "$2" | head -20 >&2; fi
}
expect_no_grep() {
    if grep -qE -- "$1" "$2"; then fail "$3: /$1/ found in $2"; else pass "$3"; fi
}
finish() {
    if [ "$BR_FAILS" -eq 0 ]; then echo "all checks passed"; exit 0; fi
    echo "$BR_FAILS check(s) failed" >&2; exit 1
}
