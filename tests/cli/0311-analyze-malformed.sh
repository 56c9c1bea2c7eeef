#!/bin/bash
# 0311-analyze-malformed: malformed rocprofv3 files give an error naming file
# and line (wrong column count, non-numeric value, empty file, header only,
# duplicate columns) and exit 1; a truncated last line (killed job) is a
# warning, not fatal; CRLF and a missing final newline read the same values.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
CHECK="python3 $BR_SOURCE_DIR/tests/cli/check_expected.py"
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
"$GEN" --launches 40 --kernels 5 "$T/base" >/dev/null || fail "generator failed"
P=01_fp64_flops
CC=$P/${P}_counter_collection.csv
KT=$P/${P}_kernel_trace.csv

fresh() { rm -rf "$T/run"; cp -r "$T/base" "$T/run"; }
# edit FILE AWK_PROGRAM: rewrite one file of the fresh copy
edit() { awk "$2" "$T/run/$1" >"$T/edit.tmp" && mv "$T/edit.tmp" "$T/run/$1"; }

fresh; edit "$CC" 'NR == 5 { sub(/,[^,]*$/, "") } { print }'
expect_exit 1 "counter row with a missing column" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:5:" "$T/err" "column count: file and line named"

fresh; edit "$CC" 'NR == 7 { sub(/"SQ_[A-Z0-9_]*",[0-9.e+-]*/, "&x") } { print }'
expect_exit 1 "non-numeric counter value" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:7:" "$T/err" "non-numeric: file and line named"

fresh; edit "$KT" 'NR == 3 { $0 = $0 ",17" } { print }'
expect_exit 1 "trace row with an extra column" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_kernel_trace.csv:3:" "$T/err" "trace column count: file and line named"

fresh; edit "$KT" 'NR == 4 { sub(/,1550[0-9]+,/, ",15x50,") } { print }'
expect_exit 1 "non-numeric trace value" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_kernel_trace.csv:4:" "$T/err" "trace non-numeric: file and line named"

fresh; : >"$T/run/$CC"
expect_exit 1 "empty counter file" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv" "$T/err" "empty file named"

fresh; head -1 "$T/base/$CC" >"$T/run/$CC"
expect_exit 1 "header only" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv" "$T/err" "header-only file named"

fresh; edit "$CC" 'NR == 1 { $0 = $0 ",\"Counter_Value\"" } NR > 1 { $0 = $0 ",0" } { print }'
expect_exit 1 "duplicate column" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:1:.*[Dd]uplicate|[Dd]uplicate.*Counter_Value" "$T/err" \
    "duplicate column named"

fresh; edit "$CC" 'NR == 1 { sub(/"Counter_Name",/, "") } { print }'
expect_exit 1 "required column missing" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:1:" "$T/err" "missing column: file and line named"

# A process that launched no kernel (torchrun's parent) writes headers only:
# read as such, same values; the error above stays for a pass with no rows.
fresh; head -1 "$T/base/$CC" >"$T/run/$P/${P}_4242_counter_collection.csv"
head -1 "$T/base/$KT" >"$T/run/$P/${P}_4242_kernel_trace.csv"
expect_exit 0 "header-only file set beside a full one" -- "$BENCHRUN" analyze "$T/run"
$CHECK --quiet "$T/run/expected.json" "$T/run/analysis" >"$T/chk" 2>&1 \
    && pass "header-only process: values as expected" \
    || { fail "header-only process: values differ"; head -5 "$T/chk" >&2; }
expect_exit 0 "header-only kernel trace in a power run" -- \
    "$BENCHRUN" analyze --power-ktrace "$T/run/$P" --clock-mhz 2100 "$T/run"
rm "$T/run/$P/${P}_kernel_trace.csv"
expect_exit 1 "power run whose every trace is header only" -- \
    "$BENCHRUN" analyze --power-ktrace "$T/run/$P" --clock-mhz 2100 "$T/run"
expect_grep "${P}_4242_kernel_trace.csv:1: header only" "$T/err" "empty power trace named"

# A killed job: the last line cut in the middle, no newline.
fresh; head -c -25 "$T/base/$CC" >"$T/run/$CC"
expect_exit 0 "truncated last line is not fatal" -- "$BENCHRUN" analyze "$T/run"
if grep -qiE 'truncat' "$T/err" "$T/run/analysis/summary.json" 2>/dev/null; then
    pass "truncated last line reported"
else
    fail "truncated last line not reported (stderr or summary.json)"
fi

# CRLF everywhere and no final newline: same values as the LF original.
fresh
for f in "$T"/run/*/*.csv; do sed -i 's/$/\r/' "$f"; done
expect_exit 0 "CRLF files" -- "$BENCHRUN" analyze "$T/run"
$CHECK --quiet "$T/run/expected.json" "$T/run/analysis" >"$T/chk" 2>&1 \
    && pass "CRLF: values as expected" || { fail "CRLF: values differ"; head -5 "$T/chk" >&2; }
fresh
for f in "$T"/run/*/*.csv; do truncate -s -1 "$f"; done
expect_exit 0 "no final newline" -- "$BENCHRUN" analyze "$T/run"
expect_no_grep 'truncat' "$T/err" "a complete last line without newline is not 'truncated'"
$CHECK --quiet "$T/run/expected.json" "$T/run/analysis" >"$T/chk" 2>&1 \
    && pass "no final newline: values as expected" || { fail "no final newline: values differ"; head -5 "$T/chk" >&2; }
finish
