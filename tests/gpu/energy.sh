#!/bin/bash
# energy.sh - issue 19 on an NVIDIA GPU, in one call (no Slurm needed):
#   . .gpu/env.sh; bash tests/gpu/energy.sh [BUILD_DIR]
# 1. builds benchrun and libbenchrun-cupti.so, and calib.cu (benchrun
#    calibrate --build-only);
# 2. `benchrun power` on calib.cu's long kernel and its power phases
#    (only=long,power power_phases=$PHASES: an FP64 FMA loop, a DRAM copy and a
#    __nanosleep loop, 20-500 ms each in a known order, idle before and after);
# 3. `benchrun energy` on that power run, once per fit source (auto, driver,
#    counter, power), and `benchrun calibrate --check-power` (each phase's
#    fitted power and attributed energy within 5 % of its power measured
#    directly in its long launches, the fitted total within 1 % of the energy
#    counter; the long kernel's duration and power rise);
# 4. tests/gpu/energy_report.py: the table, printed last.
# Output ($OUT, else ./gpu-out): energy-table.txt, energy-logs.tar.gz (every
# log, the power run without its telemetry CSVs' duplicates, the energy
# outputs, calibration.md). Env: PHASES (2), DEADLINE_S (280), STAGE_S (150);
# without a GPU, ENERGY_PROF=DIR BENCHRUN=BIN analyzes an existing power run
# with that binary (no build, no power stage: the analysis path alone).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build-gpu}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/energy
O=$W/logs
PHASES=${PHASES:-2}
mkdir -p "$O" "$FINAL" "$W/results"
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
DEADLINE_S=${DEADLINE_S:-280}
STAGE_S=${STAGE_S:-150}
LOGNAME_=energy
. "$ROOT/tests/gpu/lib.sh"       # log, now_ms, st, build_benchrun

finish() {
    python3 "$ROOT/tests/gpu/energy_report.py" "$W" >"$O/energy-table.txt" 2>&1
    tar -C "$W" -czf "$FINAL/energy-logs.tar.gz" logs results check energy_auto energy_driver \
        energy_counter energy_power 2>/dev/null
    cp "$O/energy-table.txt" "$FINAL/"
    cat "$O/energy-table.txt"
}

if [ -n "${ENERGY_PROF:-}" ]; then
    BR=${BENCHRUN:?ENERGY_PROF needs BENCHRUN}
    cp -r "$ENERGY_PROF" "$W/results/prof-given"
    P=$W/results/prof-given
else
build_benchrun || { finish; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader \
    >"$O/gpu.txt" 2>&1
date -u +%FT%TZ >>"$O/gpu.txt"
st build_calib "$BR" calibrate --build-only -o "$W/cal" || { finish; exit 1; }

cat >"$W/energy.conf" <<CONF
WORKLOAD=energy
WORKLOAD_DESC="calib.cu power phases (issue 19 energy check)"
PROFILING_DIR=$W
RESULTS_DIR=$W/results
NGPUS=1
NTASKS=1
BIND_GPU_PER_TASK=0
SAMPLE_GPUS=0
SAMPLE_MS=1
VENDOR=nvidia
MODULES=()
REQUIRED_FILES=("$W/cal/bin/calib")
PERF_GREP='^calib'
stage_inputs() { :; }
app_env() { :; }
app_cmd() { APP_CMD=("$W/cal/bin/calib" only=long,power power_phases=$PHASES); }
CONF

st power "$BR" power "$W/energy.conf"
P=$(ls -d "$W/results"/prof-* 2>/dev/null | tail -1)
fi
if [ -n "$P" ]; then
    for f in auto driver counter power; do
        st "energy_$f" "$BR" energy "$P" --fit-from "$f" -o "$W/energy_$f"
    done
    st check "$BR" calibrate --check-power "$P" -o "$W/check"
fi
finish
