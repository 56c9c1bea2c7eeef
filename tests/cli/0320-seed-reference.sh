#!/bin/bash
# 0320-seed-reference: benchrun as a drop-in for the seed flow.
# Unpacks tests/fixtures/seed-reference (a seed-layout counter run and power
# run, and what the seed's own postprocess_pmc.py and build_sampling_json.py
# wrote from them), runs benchrun with the seed README's two command lines in
# the same folder layout, and compares with tests/cli/seed_compare.py: file
# names, the seed's columns first and in order, rows and their order, every
# JSON key with its type and value (floats within 1e-9 relative), report.md's
# sections and tables. Every difference is listed, then counted.
. "$(dirname "$0")/lib.sh"
fix=$BR_SOURCE_DIR/tests/fixtures/seed-reference
command -v python3 >/dev/null || { fail "python3 not found"; finish; }
tar -xJf "$fix/seed-reference.tar.xz" -C "$T" || { fail "cannot unpack $fix/seed-reference.tar.xz"; finish; }
ref=$T/seed-reference
out=$T/br
mkdir -p "$out"
cd "$ref" || { fail "no $ref"; finish; }

# The seed ran in /tmp/seedref/run and wrote to /tmp/seedref/seed-out
# (seed-output/README.md); the same command lines, relative paths included.
expect_exit 0 "analyze pmc-900001 --power-ktrace prof-900002/ktrace_synth --out-dir" -- \
    "$BENCHRUN" analyze pmc-900001 --power-ktrace prof-900002/ktrace_synth --out-dir "$out/analysis"
cp "$T/err" "$T/analyze.err"
expect_exit 0 "vectors prof-900002 --label 'seed reference' --per-gpu --out" -- \
    "$BENCHRUN" vectors prof-900002 --label "seed reference" --per-gpu --out "$out/sampling_vectors.json"
cp "$T/err" "$T/vectors.err"

python3 "$BR_SOURCE_DIR/tests/cli/seed_compare.py" "$ref/seed-output" "$out" \
    --map "/tmp/seedref/run=$ref" --map "/tmp/seedref/seed-out=$out" >"$T/cmp" 2>&1
rc=$?
cat "$T/cmp"
if [ "$rc" -eq 0 ]; then pass "benchrun's outputs match the seed's (names, order, values)"
else fail "benchrun's outputs differ from the seed's (listed above)"; fi

# The seed is silent here ("warnings: none"); so is benchrun.
expect_grep '"warnings": \[\]' "$out/analysis/summary.json" "no analyze warnings where the seed has none"
expect_no_grep 'warning' "$T/analyze.err" "analyze prints no warning"
finish
