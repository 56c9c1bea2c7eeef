#!/bin/bash
# 0914-h200-real-runs: the four real H200 runs of tests/fixtures/nvidia/
# h200-runs (README there: recorded 2026-12-01, their known answers) through
# analyze and energy, a regression test on real data:
# - energy phases: each phase kernel's attributed energy (energy_J, the split
#   by overlap time x fitted power) within 5 % of its power measured directly
#   in its own long launches x its running time (tests/cli/check_phases.py,
#   code of its own); measured -0.70 % FMA, -0.65 % DRAM copy, +2.82 % sleep
#   (the split by time alone: -14.31 %, -3.90 %, +66.38 %); calibrate
#   --check-power agrees;
# - Triton mma.sync: mm_kernel's BF16 tensor FLOPs = 3 x 2 x 4096^3 exactly;
# - JAX: BF16 tensor FLOPs at least the program's 6 x 2 x 4096^3;
# - copy only (no kernel): analyze exits 0 without warnings and reports the
#   bytes per direction; energy attributes to the copies; the same passes
#   without their copy traces are header-only counter files: an error.
. "$(dirname "$0")/lib.sh"
FX=$BR_SOURCE_DIR/tests/fixtures/nvidia/h200-runs
for f in energy-phases triton-mma jax-gemm copy-only; do
    mkdir -p "$T/$f"
    tar -xJf "$FX/$f.tar.xz" -C "$T/$f" || fail "unpack $f"
done
one() { local d=("$T/$1"/$2-*); echo "${d[0]}"; }
csv_get() {  # csv_get CSV KERNEL COLUMN
    python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["kernel"] == sys.argv[2]: print(r[sys.argv[3]])' "$@"
}
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi; }

# --- energy phases ------------------------------------------------------------
P=$(one energy-phases prof)
expect_exit 0 "energy of the phases run" -- "$BENCHRUN" energy "$P" -o "$T/ep"
if python3 "$BR_SOURCE_DIR/tests/cli/check_phases.py" "$P" "$T/ep/energy_per_kernel.csv" 5 \
    >"$T/phases.log" 2>&1; then pass "phase energies within 5 % of direct x time"
else fail "phase energies"; fi
cat "$T/phases.log"
expect_grep 'split over what ran by overlap time x fitted power' "$T/ep/energy.md" \
    "the split by fitted power is used"
check "fit-weighted split" "fit-weighted" "$(json "$T/ep/energy_summary.json" 'j["attribution"]["energy_J"]')"
expect_exit 0 "calibrate --check-power on the phases run" -- \
    "$BENCHRUN" calibrate --check-power "$P" -o "$T/cal"
for k in "FMA loop" "DRAM copy" "sleep loop"; do
    expect_grep "^energy phases: $k energy \(attributed\) vs direct x time .* ok" "$T/out" "calibrate: $k energy"
done
expect_grep '^energy phases: total \(fit\) vs energy counter .* ok' "$T/out" "calibrate: total"

# --- Triton mma.sync ------------------------------------------------------------
expect_exit 0 "analyze the Triton run" -- "$BENCHRUN" analyze "$(one triton-mma pmc)" \
    --power "$(one triton-mma prof)" -o "$T/tr"
check "mm_kernel BF16 tensor FLOPs = 3 x 2 x 4096^3" "412316860416.0" \
    "$(csv_get "$T/tr/per_kernel_metrics.csv" mm_kernel BF16_TENSOR_FLOP)"
check "mm_kernel launches" "3" "$(csv_get "$T/tr/per_kernel_metrics.csv" mm_kernel launches)"
expect_exit 0 "energy of the Triton power run" -- "$BENCHRUN" energy "$(one triton-mma prof)" -o "$T/tre"
expect_grep '^mm_kernel,' "$T/tre/energy_per_kernel.csv" "mm_kernel has an energy row"

# --- JAX ---------------------------------------------------------------------
expect_exit 0 "analyze the JAX run" -- "$BENCHRUN" analyze "$(one jax-gemm pmc)" \
    --power "$(one jax-gemm prof)" -o "$T/jx"
bf=$(csv_get "$T/jx/per_kernel_metrics.csv" TOTAL BF16_TENSOR_FLOP)
if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 6 * 2 * 4096**3 else 1)' "$bf"; then
    pass "JAX BF16 tensor FLOPs $bf >= 6 x 2 x 4096^3"
else fail "JAX BF16 tensor FLOPs $bf < 6 x 2 x 4096^3"; fi
expect_exit 0 "energy of the JAX power run" -- "$BENCHRUN" energy "$(one jax-gemm prof)" -o "$T/jxe"

# --- copy only ------------------------------------------------------------------
C=$(one copy-only pmc)
CP=$(one copy-only prof)
for with in "" "--power $CP"; do
    # shellcheck disable=SC2086
    expect_exit 0 "analyze the copy-only run ${with:+with the power run}" -- \
        "$BENCHRUN" analyze "$C" $with -o "$T/co"
    expect_no_grep 'warning|header only' "$T/err" "no warnings ${with:+(with power)}"
    expect_grep '0 kernels, 0 top kernels, 0 warning' "$T/out" "no kernel, no warning"
    S=$T/co/summary.json
    check "D2D bytes" "6442450944" "$(json "$S" 'j["copies"]["by_direction"]["D2D"]["bytes"]')"
    check "H2D bytes" "1073741824" "$(json "$S" 'j["copies"]["by_direction"]["H2D"]["bytes"]')"
    check "D2H bytes" "1073741824" "$(json "$S" 'j["copies"]["by_direction"]["D2H"]["bytes"]')"
    check "set bytes" "1073741824" "$(json "$S" 'j["copies"]["by_direction"]["set"]["bytes"]')"
    check "copies" "9" "$(json "$S" 'j["copies"]["copies"]')"
done
expect_exit 0 "energy of the copy-only power run" -- "$BENCHRUN" energy "$CP" -o "$T/coe"
expect_no_grep 'no \*kernel_trace' "$T/err" "the copy trace is a trace"
E=$T/coe/energy_summary.json
check "copy classes" "['copy H2D', 'copy D2H', 'copy D2D', 'copy set']" \
    "$(json "$E" '[c["kernel"] for c in j["copies"]]')"
check "copies have energy, kernels none" "True True" \
    "$(json "$E" 'str(all(c["energy_J"] > 0 for c in j["copies"])) + " " + str(j["whole_run"]["kernels_J"] == 0)')"
check "whole run = copies + idle" "True" \
    "$(json "$E" 'abs(j["whole_run"]["energy_J"] - j["whole_run"]["copies_J"] - j["whole_run"]["idle_J"]) < 1e-9')"
# The same passes without their copy traces: header-only counter files and
# nothing else, an error naming the first file.
cp -r "$C" "$T/nocopies"
find "$T/nocopies" -name '*memory_copy_trace.csv' -delete
expect_exit 1 "header-only passes without copies" -- "$BENCHRUN" analyze "$T/nocopies" -o "$T/nc"
expect_grep 'counter_collection.csv:1: header only, no data rows \(in every counter file of pass 01_' \
    "$T/err" "the error names the file"
finish
