#!/bin/bash
# sample_nvml.sh - exercise 'benchrun sample --backend nvml' on a real NVIDIA GPU.
#   usage: tests/gpu/sample_nvml.sh [BENCHRUN] [SECONDS]
# Builds build-gpu/ when no binary is given. Samples GPU 0 (and every GPU with
# ALL_GPUS=1) at 1 ms around a command (a CUDA busy loop when nvcc exists,
# else sleep), then checks the files and prints the figures: rows, achieved
# interval, source refresh rate, driver power samples, clock domain.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-}
secs=${2:-3}
if [ -z "$bin" ]; then
    cmake -S "$here" -B "$here/build-gpu" -DBENCHRUN_TESTS=OFF >/dev/null && \
        cmake --build "$here/build-gpu" -j4 >/dev/null || { echo "FAIL: build"; exit 1; }
    bin=$here/build-gpu/benchrun
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

gpus=0
if [ "${ALL_GPUS:-0}" = 1 ] && command -v nvidia-smi >/dev/null; then
    n=$(nvidia-smi -L | wc -l); gpus=$(seq -s, 0 $((n - 1)))
fi
cmd=(sleep "$secs")
if command -v nvcc >/dev/null; then
    cat >"$out/busy.cu" <<'EOF'
#include <cstdio>
#include <cstdlib>
__global__ void k(float *x, int n, int it) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; for (int j = 0; j < it; j++) v = v * 1.0000001f + 0.5f; x[i] = v; }
}
int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 3; int n = 1 << 24; float *x;
    cudaMalloc(&x, n * sizeof(float)); cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    float ms = 0, total = 0;
    while (total < secs * 1000) { cudaEventRecord(a); k<<<n / 256, 256>>>(x, n, 2000);
        cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); total += ms; }
    printf("busy: %.0f ms of kernels\n", total); return 0;
}
EOF
    if nvcc -O2 -o "$out/busy" "$out/busy.cu" 2>/dev/null; then
        cmd=("$out/busy" "$secs")
        sleep 0.5 # idle before the load
    fi
fi
echo "== benchrun sample --backend nvml --gpus $gpus -- ${cmd[*]}"
"$bin" sample --backend nvml --gpus "$gpus" -i 1 -p gpu -o "$out" -- "${cmd[@]}" || fail "exit $?"
boot=$(sed -n 's/^boottime_ns=//p' "$out/clock_ref.txt")
for f in "$out"/profiling_result_gpu_[0-9]*.csv; do
    case $f in *_driver_power.csv) continue ;; esac
    echo "-- $(basename "$f")"
    head -1 "$f" | grep -q 'backend=nvml' || fail "$f: metadata line without backend=nvml"
    awk -F, -v boot="$boot" 'NR == 1 { next }
        NR == 2 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n++; if ($(col["current_socket_power_W"]) != "nan") p++;
          if ($(col["inst_power_W"]) != "nan") ip++;
          if ($(col["gfx_clock_MHz"]) != "nan") c++;
          if ($(col["refreshed"]) == 1) r++;
          if (n == 1) { t0 = $1; src0 = $(col["source_timestamp_ns"]) }
          t1 = $1; if ($(col["current_socket_power_W"]) + 0 > pmax) pmax = $(col["current_socket_power_W"]) + 0 }
        END { printf "rows %d, power %d, inst_power %d, clock %d, refreshed %d (%.1f/s), max power %.1f W\n",
                     n, p, ip, c, r, r / ((t1 - t0) / 1e9), pmax;
              printf "first sample %.3f ms after clock_ref\n", (t0 - boot) / 1e6;
              if (n < 100 || p < n / 2 || c < n / 2 || t0 < boot) exit 1 }' "$f" || fail "$f: content"
done
for f in "$out"/*_driver_power.csv; do
    [ -e "$f" ] || { fail "no driver power file"; break; }
    awk -F, 'NR > 2 { n++; if (n == 1) t0 = $1; t1 = $1; g += $4 }
        END { printf "driver power samples: %d over %.2f s (%.1f ms apart), gaps %d\n",
                     n, (t1 - t0) / 1e9, (n > 1 ? (t1 - t0) / 1e6 / (n - 1) : 0), g;
              if (n < 10) exit 1 }' "$f" || fail "$f: too few driver samples"
done
grep -E '"interval_achieved_(median|p99|max_gap)_ms"|"sampler_cpu_s"|"source_refresh_hz"' \
    "$out"/sampler_gpu.json
echo "== errors: missing library, bad index"
BENCHRUN_NVML_LIBRARY=libnvidia-ml-missing.so.1 "$bin" sample --backend nvml -o "$out/x" -- true 2>&1 | head -2
"$bin" sample --backend nvml --gpus 99 -o "$out/y" -- true 2>&1 | head -2
[ "$fails" -eq 0 ] && echo "sample_nvml: all checks passed" || { echo "sample_nvml: $fails failure(s)"; exit 1; }
