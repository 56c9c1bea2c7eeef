#!/bin/bash
# 0319-analyze-units: launch sampling with sampling units split inside a
# kernel (libbenchrun-cupti splits a signature by the launch's parameter key:
# GEMMs of several shapes under one cuBLAS kernel). The generator's launches
# do 1, 2 or 3 times a kernel's base work (period 3); with --units each
# (kernel, scale) is a unit of its own, profiled by the plan in its own ranks,
# and launch_units.csv names each launch's unit. Every unit's launches then do
# the same work, so every estimate must be the full collection's total
# exactly, with a zero interval; without the units files the same counter
# rows are ranked as one unit per kernel and the estimates are off. A bad
# units file is an error naming its file and line.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
CHECK="python3 $BR_SOURCE_DIR/tests/cli/check_sampled.py"
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
opts=(--kernels 4 --launches 900 --seed 7 --procs 2)
d=$T/units
"$GEN" "${opts[@]}" "$d/full" >/dev/null 2>&1 &&
    "$GEN" "${opts[@]}" --sample 10:50:20:1 --units "$d/sampled" >/dev/null 2>&1 ||
    { fail "generator failed"; finish; }
units=$(ls "$d"/sampled/01_fp64_flops/*_launch_units.csv 2>/dev/null | wc -l)
[ "$units" -eq 2 ] && pass "a units file per process" || fail "units files: $units"
expect_exit 0 "analyze the full run" -- "$BENCHRUN" analyze "$d/full"
expect_exit 0 "analyze the sampled run with its units" -- "$BENCHRUN" analyze "$d/sampled"
# --max-rel 1e-9: exact; the widest interval 0
if $CHECK "$d/full" "$d/sampled" --max-rel 1e-9 >"$T/check" 2>&1 &&
    grep -q 'largest error 0.000 %, widest interval 0.000 %' "$T/check"; then
    pass "with units: every estimate exact ($(tail -1 "$T/check"))"
else fail "with units: estimates vs full collection"; tail -5 "$T/check" >&2; fi
python3 - "$d/sampled/analysis/launch_sampling.csv" <<'PY' && pass "with units: profiled fewer than launched" \
    || fail "with units: nothing was sampled"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if r and any(int(x["profiled"]) < int(x["launches"]) for x in r) else 1)
PY

# the same rows without the units files: ranked per kernel, no longer exact
cp -r "$d/sampled" "$d/nounits"
rm -f "$d"/nounits/*/*_launch_units.csv
expect_exit 0 "analyze the sampled run without its units" -- "$BENCHRUN" analyze "$d/nounits"
if $CHECK "$d/full" "$d/nounits" --max-rel 1e-9 >"$T/check2" 2>&1; then
    fail "without units the estimates are still exact: the units files were not read"
else pass "without units: estimates off ($(tail -1 "$T/check2"))"; fi

# a malformed units file: the file and its line named
f=$(ls "$d"/sampled/02_*/*_launch_units.csv | head -1)
sed -i '3s/.*/3,seven/' "$f"
expect_exit 1 "analyze with a malformed units file" -- "$BENCHRUN" analyze "$d/sampled"
expect_grep "$(basename "$f"):3: expected two unsigned numbers" "$T/err" "the error names the file and line"
finish
