#!/bin/bash
# 0312-gen-selfcheck: the generator's expected.json agrees with an independent
# recomputation (gen_selfcheck.py) from the CSV files it wrote, for every
# layout, multi-process, jitter, a dropped pass/counter and no telemetry; and
# its option errors are usage errors.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
SELF="python3 $BR_SOURCE_DIR/tests/cli/gen_selfcheck.py"
i=0
while read -r args; do
    i=$((i + 1)); d=$T/c$i
    # shellcheck disable=SC2086
    if ! "$GEN" $args --power "$d/prof" "$d/pmc" >"$T/gen.log" 2>&1; then
        fail "generator failed: $args"; cat "$T/gen.log" >&2; continue
    fi
    if $SELF "$d/pmc" "$d/prof" >"$T/self.log" 2>&1; then pass "[$args] $(tail -1 "$T/self.log")"
    else fail "[$args] expected.json disagrees with the files"; head -20 "$T/self.log" >&2; fi
done <<'CASES'
--layout 6.2 --procs 2
--layout 6.3 --agent-info
--layout 6.4 --jitter 3 --seed 5
--layout 7.x --procs 3 --over-limit
--drop-pass 06_hbm_write --drop-counter TCC_EA0_ATOMIC_sum
--lowp --kernels 14
CASES
"$GEN" --seed 4 "$T/np/pmc" >/dev/null 2>&1 || fail "generator failed (no power run)"
$SELF "$T/np/pmc" >"$T/self.log" 2>&1 && pass "no power run: $(tail -1 "$T/self.log")" \
    || { fail "no power run: disagreement"; head -20 "$T/self.log" >&2; }
# Files as documented: 7.x Agent_Id quoted, 6.x bare; 6.2 integer values.
grep -q '^1,1,"Agent 2",' "$T/c4/pmc/01_fp64_flops/01_fp64_flops_10000_counter_collection.csv" \
    && pass "7.x: quoted Agent_Id, per-process file names" || fail "7.x Agent_Id / file names"
grep -qE '^1,1,2,1,10000,.*"SQ_INSTS_VALU_ADD_F64",[0-9]+$' "$T/c1/pmc/01_fp64_flops/01_fp64_flops_10000_counter_collection.csv" \
    && pass "6.2: bare Agent_Id, integer values" || fail "6.2 row format"
grep -q '"matmul_mfma_bf16 "tuned", v2(' "$T/c2/pmc/04_cu_util/04_cu_util_kernel_trace.csv" \
    && pass "unescaped quote kept in the name" || fail "kernel name with a quote"
expect_exit 2 "bad layout" -- "$GEN" --layout 5.0 "$T/x"
expect_exit 2 "bad number" -- "$GEN" --launches abc "$T/x"
expect_exit 2 "no PMC_DIR" -- "$GEN"
finish
