#!/bin/bash
# 0301-counters-check: `benchrun counters check|list` on every documented list
# layout (tests/fixtures/amd/*/), wrong architecture, block limits, constants,
# metric inputs no pass collects, a fake rocprofv3 for `list`.
. "$(dirname "$0")/lib.sh"
FX=$BR_SOURCE_DIR/tests/fixtures
SEED=$FX/counters/seed6.json

for f in 6.2/list-metrics.txt 6.4/list-avail.txt 7.0/list-avail.txt 7.0-early/list-avail.txt; do
    expect_exit 0 "seed set OK on $f" -- "$BENCHRUN" counters check "$SEED" "$FX/amd/$f"
    expect_grep '^OK$' "$T/out" "$f: prints OK"
done
expect_grep 'layout 7.x, 1 GPU\(s\), architecture\(s\): gfx942, 58 counter entries' "$T/out" \
    "early 7.0 layout parsed (NAME:, counter_name)"
"$BENCHRUN" counters check "$SEED" "$FX/amd/6.2/list-metrics.txt" >"$T/out" 2>&1
expect_grep 'layout 6.2, 1 GPU.*not named' "$T/out" "6.2 layout detected, arch not named"
expect_grep '^note: .*cannot confirm gfx942' "$T/out" "6.2: arch cannot be confirmed (note)"
"$BENCHRUN" counters check "$SEED" "$FX/amd/7.0/list-avail.txt" >"$T/out" 2>&1
expect_grep 'layout 7.x, 2 GPU\(s\), architecture\(s\): gfx942,' "$T/out" "7.x: two GPUs, gfx942"

expect_exit 1 "login-node list (gfx90a)" -- "$BENCHRUN" counters check "$SEED" \
    "$FX/amd/7.0-gfx90a-login/list-avail.txt"
expect_grep '^problem: architectures in the list: gfx90a; the set is for gfx942' "$T/out" \
    "wrong architecture reported"
expect_grep '^problem: pass 05_hbm_read: counter TCC_EA0_RDREQ_sum is not in the list' "$T/out" \
    "missing counter named with its pass"
expect_no_grep 'GRBM_GUI_ACTIVE is not' "$T/out" "counters the other GPU has are not reported"
expect_grep '^8 problem\(s\)$' "$T/out" "problem count"
expect_exit 1 "two architectures in one list" -- "$BENCHRUN" counters check "$SEED" \
    "$FX/amd/7.0-mixed/list-avail.txt"
expect_grep 'architectures in the list: gfx942 gfx90a' "$T/out" "both architectures named"

expect_exit 1 "over the block limits" -- "$BENCHRUN" counters check \
    "$FX/counters/overlimit.json" "$FX/amd/7.0/list-avail.txt"
expect_grep '^problem: pass 01_fp64_flops: block SQ has 9 counters, limit 8 per pass' "$T/out" "SQ over 8"
expect_grep '^problem: pass 05_hbm_read: block TCC has 5 counters, limit 4 per pass' "$T/out" \
    "TCC over 4 (*_sum counters use one slot each; the constant none)"
expect_grep '^note: pass 05_hbm_read: CU_NUM is a constant' "$T/out" "constant noted"
expect_grep '^problem: metric hit_rate uses TCC_MISS_sum, which no pass collects' "$T/out" \
    "metric input no pass collects"
expect_grep '^3 problem\(s\)$' "$T/out" "three problems"

# Case and spacing tolerance: upper-case keys, blanks around ':'.
sed -e 's/^Counter_Name *:/COUNTER_NAME   :  /' -e 's/^GPU:/gpu   :   /' \
    "$FX/amd/7.0/list-avail.txt" >"$T/odd.txt"
expect_exit 0 "case and spacing tolerant" -- "$BENCHRUN" counters check "$SEED" "$T/odd.txt"

: >"$T/empty.txt"
expect_exit 1 "empty list" -- "$BENCHRUN" counters check "$SEED" "$T/empty.txt"
expect_grep 'empty.txt: no counters found' "$T/err" "empty list: error names the file"
expect_exit 1 "missing list file" -- "$BENCHRUN" counters check "$SEED" "$T/nope.txt"
echo '{"passes": [{"name": 3}]}' >"$T/bad.json"
expect_exit 1 "malformed set file" -- "$BENCHRUN" counters check "$T/bad.json" "$FX/amd/7.0/list-avail.txt"
expect_grep 'bad.json: passes\[0\]: expected' "$T/err" "set error names file and JSON path"
echo '{"passes": [' >"$T/trunc.json"
expect_exit 1 "invalid JSON set" -- "$BENCHRUN" counters check "$T/trunc.json" "$FX/amd/7.0/list-avail.txt"
expect_grep 'trunc.json:[0-9]+' "$T/err" "JSON error names file and line"
expect_exit 2 "check without LIST" -- "$BENCHRUN" counters check "$SEED"
expect_exit 2 "unknown subcommand" -- "$BENCHRUN" counters frob
expect_exit 0 "check --help" -- "$BENCHRUN" counters check --help

# Named sets come from the arch profile (share/benchrun/arch/gfx942.json).
if [ -f "$BR_SOURCE_DIR/share/benchrun/arch/gfx942.json" ]; then
    expect_exit 0 "profile set 'default'" -- "$BENCHRUN" counters check default "$FX/amd/7.0/list-avail.txt"
    expect_exit 1 "unknown set name" -- "$BENCHRUN" counters check no_such_set "$FX/amd/7.0/list-avail.txt"
    expect_grep 'counter_sets.no_such_set' "$T/err" "unknown set: JSON path named"
else
    fail "share/benchrun/arch/gfx942.json missing: named sets not tested"
fi

# list: a fake rocprofv3 (7.x: --list-avail) and an old one (-L only).
mkdir -p "$T/bin"
printf '#!/bin/bash\n[ "$1" = --list-avail ] && exec cat %q\nexit 1\n' "$FX/amd/7.0/list-avail.txt" >"$T/bin/rocprofv3"
chmod +x "$T/bin/rocprofv3"
expect_exit 0 "list with rocprofv3 7.x" -- env PATH="$T/bin:$PATH" "$BENCHRUN" counters list -o "$T/l.txt"
cmp -s "$T/l.txt" "$FX/amd/7.0/list-avail.txt" && pass "list saved verbatim" || fail "list not saved verbatim"
expect_grep 'layout 7.x, 2 GPU\(s\), architecture\(s\): gfx942' "$T/out" "list summary"
printf '#!/bin/bash\n[ "$1" = -L ] && exec cat %q\necho "unknown option $1" >&2; exit 2\n' \
    "$FX/amd/6.2/list-metrics.txt" >"$T/old"
chmod +x "$T/old"
expect_exit 0 "list falls back to -L" -- env BENCHRUN_ROCPROFV3="$T/old" "$BENCHRUN" counters list "$T/l62.txt"
cmp -s "$T/l62.txt" "$FX/amd/6.2/list-metrics.txt" && pass "-L output saved" || fail "-L output not saved"
expect_exit 1 "no rocprofv3" -- env PATH=/nonexistent BENCHRUN_ROCPROFV3= "$BENCHRUN" counters list -o "$T/x.txt"
expect_grep 'no counter lister' "$T/err" "no lister: clear error"
finish
