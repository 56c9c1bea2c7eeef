#!/bin/bash
# 0915-h200-units: launch sampling's parameter-keyed units on real H200 data
# (tests/fixtures/nvidia/h200-runs/transformer-units.tar.xz, README there):
# the cuBLAS nvjet kernels of a PyTorch transformer step, sampled with the
# library's launch_units.csv and profiled on every launch in another run.
# With the units every instruction estimate is within 0.1 % of the other
# run's count; without them the GEMM kernel whose one name, grid and block
# cover five GEMM shapes misses by more than 10 %.
. "$(dirname "$0")/lib.sh"
FX=$BR_SOURCE_DIR/tests/fixtures/nvidia/h200-runs/transformer-units.tar.xz
CHECK="python3 $BR_SOURCE_DIR/tests/cli/check_sampled.py"
tar -xJf "$FX" -C "$T" || { fail "unpack the fixture"; finish; }
d=$T/transformer-units
[ "$(ls "$d"/sampled/02_sm_util/*_launch_units.csv | wc -l)" -eq 1 ] && pass "the sampled pass has its units" \
    || fail "no units file in the fixture"
expect_exit 0 "analyze the sampled run" -- "$BENCHRUN" analyze "$d/sampled"
expect_exit 0 "analyze the run of every launch" -- "$BENCHRUN" analyze "$d/all"
# two application runs: their counts differ slightly, so no coverage demand
if $CHECK "$d/all" "$d/sampled" --separate --only inst_executed --max-rel 0.001 --min-coverage 0 \
    >"$T/check" 2>&1; then pass "with units: within 0.1 % ($(tail -1 "$T/check"))"
else fail "with units: estimates against the run of every launch"; tail -8 "$T/check" >&2; fi

cp -r "$d/sampled" "$d/nounits"
rm -rf "$d"/nounits/02_sm_util/*_launch_units.csv "$d/nounits/analysis"
expect_exit 0 "analyze the sampled run without its units" -- "$BENCHRUN" analyze "$d/nounits"
$CHECK "$d/all" "$d/nounits" --separate --only inst_executed --max-rel 0.001 --min-coverage 0 \
    >"$T/check2" 2>&1
python3 - "$T/check2" <<'PY' && pass "without units: coopA_NNT misses by more than 10 %" \
    || { fail "without units: the miss"; tail -8 "$T/check2" >&2; }
import re, sys
m = [float(x) for x in re.findall(r"MISMATCH \('02_sm_util', 'nvjet_[^']*_coopA_NNT', "
                                  r"'smsp__inst_executed.sum'\): relative error ([0-9.]+)", open(sys.argv[1]).read())]
sys.exit(0 if m and m[0] > 0.10 else 1)
PY
finish
