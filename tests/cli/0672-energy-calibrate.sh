#!/bin/bash
# 0672-energy-calibrate: the calibration's energy check (src/calib/
# calib_energy.c) without a GPU, on generated power runs shaped like calib.cu's
# (idle, calib_long, then phase kernels calib_phase_fma/copy/sleep of 150-450
# ms, NVML-style driver samples): `benchrun calibrate --check-power` passes
# when the sensors are right, and misses when the driver samples read 10 %
# high (the direct measurement then disagrees with the counter-based fit); a
# power run without phase kernels gives one SKIP row.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_power
phases() {  # phases DIR EXTRA-OPTIONS...
    local d=$1
    shift
    "$GEN" --lead-ms 600 --first calib_long:650:1000 --kernel calib_phase_fma:610:300 \
        --kernel calib_phase_copy:420:300 --kernel calib_phase_sleep:140:300 --launches 30 \
        --gap-ms 40 --driver-ms 20 "$@" "$d" >/dev/null || fail "gen_power $*"
}

phases "$T/good"
expect_exit 0 "check-power on good sensors" -- "$BENCHRUN" calibrate --check-power "$T/good" -o "$T/c1"
for k in "FMA loop" "DRAM copy" "sleep loop"; do
    expect_grep "^energy phases: $k power \(fit\) vs direct .* ok" "$T/out" "$k: fitted power"
    expect_grep "^energy phases: $k energy \(attributed\) vs direct x time .* ok" "$T/out" "$k: attributed energy"
done
expect_grep '^energy phases: total \(fit\) vs energy counter .* ok' "$T/out" "total against the counter"
expect_grep '^long kernel: duration in the trace .* ok' "$T/out" "the long kernel check still runs"
expect_grep 'energy phases: total' "$T/c1/calibration.md" "calibration.md has the energy rows"

phases "$T/biased" --driver-scale 1.1
expect_exit 1 "check-power with driver samples 10 % high" -- "$BENCHRUN" calibrate --check-power "$T/biased" -o "$T/c2"
expect_grep '^energy phases: FMA loop power \(fit\) vs direct .*-9\.09%.*MISS' "$T/out" "the fit misses the biased direct power"

"$GEN" --lead-ms 600 --first calib_long:650:1000 --launches 20 "$T/nophase" >/dev/null || fail "gen_power"
expect_exit 0 "check-power without phases" -- "$BENCHRUN" calibrate --check-power "$T/nophase" -o "$T/c3"
expect_grep '^energy phases .*skip' "$T/out" "one SKIP row"

expect_exit 2 "--check-power with --check" -- "$BENCHRUN" calibrate --check-power "$T/good" --check "$T/good"
expect_exit 1 "--check-power on an empty folder" -- "$BENCHRUN" calibrate --check-power "$T/empty-nope" -o "$T/c4"
finish
