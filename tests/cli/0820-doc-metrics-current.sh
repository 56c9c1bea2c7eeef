#!/bin/bash
# 0820-doc-metrics-current: docs/metrics.md is exactly what `benchrun doc
# metrics` generates from the arch profiles (so the committed reference never
# drifts from the formulas); the command's options and errors.
# After changing a profile: benchrun doc metrics -o docs/metrics.md
. "$(dirname "$0")/lib.sh"
unset BENCHRUN_SHARE
doc=$BR_SOURCE_DIR/docs/metrics.md

expect_exit 0 "doc metrics" -- "$BENCHRUN" doc metrics
cp "$T/out" "$T/generated.md"
if diff -u "$doc" "$T/generated.md" >"$T/diff"; then
    pass "docs/metrics.md is current"
else
    fail "docs/metrics.md is stale: run 'benchrun doc metrics -o docs/metrics.md' and commit it"
    head -40 "$T/diff" >&2
fi
for p in "$BR_SOURCE_DIR"/share/benchrun/arch/*.json; do
    a=$(basename "$p" .json)
    expect_grep "^## $a: " "$T/generated.md" "profile $a documented"
done
# Every metric of every profile has a row.
python3 - "$T/generated.md" "$BR_SOURCE_DIR"/share/benchrun/arch/*.json >"$T/missing" 2>&1 <<'PY' &&
import json, sys
page = open(sys.argv[1]).read()
missing = [m["name"] for f in sys.argv[2:] for m in json.load(open(f))["metrics"]
           if "| `%s`" % m["name"] not in page]
print("\n".join(missing))
sys.exit(1 if missing else 0)
PY
    pass "every metric has a row" || fail "metrics without a row: $(cat "$T/missing")"

# -o writes the same text; --arch NAME documents one profile.
expect_exit 0 "doc metrics -o" -- "$BENCHRUN" doc metrics -o "$T/m.md"
cmp -s "$T/m.md" "$T/generated.md" && pass "-o writes the same text" || fail "-o differs from stdout"
expect_exit 0 "doc metrics --arch gfx942" -- "$BENCHRUN" doc metrics --arch gfx942
expect_grep '^## gfx942: AMD Instinct MI300X' "$T/out" "--arch gfx942 section"
expect_grep '^\| `CU_busy_frac` \| – \| `SQ_BUSY_CU_CYCLES / \(cyc_per_ns \* N_CU\)` .* \| 04_cu_util \|' \
    "$T/out" "CU_busy_frac row: formula and pass"
expect_grep '^\| `MfmaUtil_pct` .* \| 01_fp64_flops or 07_lowp_mfma \|' "$T/out" "counter in two passes"
expect_grep '^\| `AI_FP64` .* \| 01_fp64_flops; 05_hbm_read; 06_hbm_write \|' "$T/out" \
    "passes needed through earlier metrics"
# A small profile: passes needed through hidden metrics, sum(), C@PASS, a
# counter in every pass / all passes but one, '|' escaped in a table cell.
cat >"$T/mini.json" <<'JSON'
{ "schema": 1, "arch": "mini", "vendor": "test", "product": "test GPU",
  "constants": { "N": 2 }, "peaks": { "P": 1 }, "block_limits": { "A": 4 },
  "passes": [ { "name": "p1", "counters": ["A_X"] }, { "name": "p2", "counters": ["B_Y", "A_X"] },
              { "name": "p3", "counters": ["A_X", "C_Z", "B_Y"] }, { "name": "p4", "counters": ["A_X", "B_Y"] } ],
  "counter_sets": { "default": ["p1", "p2", "p3"] },
  "metrics": [
    { "name": "m_a", "unit": "x", "expr": "A_X / N", "description": "in every pass" },
    { "name": "m_b", "expr": "B_Y + sum(C_Z)", "hidden": true },
    { "name": "m_c", "expr": "m_b * A_X@p2 || VGPR", "total": "sum" } ] }
JSON
expect_exit 0 "doc metrics --arch FILE" -- "$BENCHRUN" doc metrics --arch "$T/mini.json"
expect_grep '^## mini: test GPU \(test\)$' "$T/out" "title"
expect_grep '^\| `p4` \| `A_X`, `B_Y` \| – \|$' "$T/out" "pass in no set"
expect_grep '^\| `m_a` \| x \| `A_X / N` \| in every pass \| any pass \| – \| rates \|$' "$T/out" "counter in every pass"
expect_grep '^\| `m_b` \(hidden\) \| – \| `B_Y \+ sum\(C_Z\)` \| – \| any pass but p1; p3 \| – \| rates \|$' \
    "$T/out" "all passes but one; sum()"
expect_grep '^\| `m_c` \| – \| `m_b \* A_X@p2 \\\|\\\| VGPR` \| – \| any pass but p1; p2; p3 \| kernel attributes \(trace\) \| sum \|$' \
    "$T/out" "through a hidden metric, C@PASS, escaped |, attribute, TOTAL sum"

# Errors: a broken profile (exit 1, file named), usage (exit 2).
printf '{"schema": 1, "arch": "bad", "metrics": [' >"$T/bad.json"
expect_exit 1 "broken profile" -- "$BENCHRUN" doc metrics --arch "$T/bad.json"
expect_grep 'bad.json' "$T/err" "error names the profile"
expect_exit 2 "no topic" -- "$BENCHRUN" doc
expect_exit 2 "unknown topic" -- "$BENCHRUN" doc frobs
expect_grep "unknown topic 'frobs'" "$T/err" "topic named"
expect_exit 2 "extra argument" -- "$BENCHRUN" doc metrics extra
expect_exit 2 "unknown option" -- "$BENCHRUN" doc metrics --frob
finish
