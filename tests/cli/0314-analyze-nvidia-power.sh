#!/bin/bash
# 0314-analyze-nvidia-power: a power run as the NVIDIA path writes it (found on
# the H200): the NVML backend adds profiling_result_<tag>_<gpu>_driver_power.csv
# beside the telemetry, and run.json names the arch sm_90. analyze --power must
# read only the sampler telemetry (the clock comes out the same as without the
# driver file), and vectors must map sm_90 to the gh100 profile (TDP 700 W).
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
"$GEN" --kernels 4 --launches 40 --seed 5 --power "$T/prof" "$T/pmc" >/dev/null \
    || { fail "generator failed"; finish; }
expect_exit 0 "analyze without a driver-power file" -- "$BENCHRUN" analyze "$T/pmc" \
    --power "$T/prof" --out-dir "$T/a1"
tel=$(ls "$T"/prof/profiling_result_*_0.csv | head -1)
drv=${tel%.csv}_driver_power.csv
printf 'benchrun_driver_power=1 device=0 backend=nvml\ntimestamp_ns,power_W\n1,100.0\n2,101.0\n' >"$drv"
expect_exit 0 "analyze with a driver-power file beside the telemetry" -- "$BENCHRUN" analyze \
    "$T/pmc" --power "$T/prof" --out-dir "$T/a2"
clk() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["clock"]["clock_MHz"])' "$1"; }
[ "$(clk "$T/a1/summary.json")" = "$(clk "$T/a2/summary.json")" ] \
    && pass "same sampled clock with the driver file present" \
    || fail "clock differs: $(clk "$T/a1/summary.json") vs $(clk "$T/a2/summary.json")"

# vectors: run.json says sm_90 (what stage detection writes on an H200)
printf '{"workload":"gen","job_id":"1","gpu_arch":"sm_90"}\n' >"$T/prof/run.json"
expect_exit 0 "vectors on an sm_90 power run" -- "$BENCHRUN" vectors "$T/prof" --out "$T/v.json"
expect_grep 'gh100\.json' "$T/v.json" "TDP taken from the gh100 profile"
expect_no_grep 'driver_power' "$T/v.json" "driver-power file not read as telemetry"
finish
