#!/bin/bash
# final18.sh - issue 18 (launch sampling) and the CUPTI side of issue 14 on one
# H200, in one device call. Parts (PARTS, space-separated, default all):
#   churn   tests/gpu/sass_repro.cu churn under pass 01's SASS metrics: default
#           (modules kept loaded: stand-in unloads), reset (the old workaround,
#           timed), keep (no workaround: the crash, evidence)
#   jax     jax_gemm.py under pass 01 with XLA's default autotuning (it unloads
#           its candidates' modules): must finish, no crash
#   axpy    cost: plain vs benchrun pmc (six passes, sampled), 20,001 launches;
#           (twice: the wall varies by ~10 % between device runs);
#           accuracy: pmc sampled vs --launches all on 2,001 launches
#           (AXPY2K=0 skips it, AXPY20K=0 the cost runs)
#   models  accuracy, sampled vs all: PyTorch transformer and ResNet-18 steps
#           (tests/gpu/train_step.py); per pass the NaN counter values,
#           unmatched ranges and the parameter-keyed sampling units
#           (RESNET_ALL=0: ResNet-18's sampled run only; MODELS_ALL=0: both
#           sampled runs only, compared off the device with an earlier run;
#           RESNET=0: the transformer only, TRANSFORMER=0: ResNet-18 only)
#   cost    where a sampled pass's cost goes: axpy 20,001 launches run directly
#           under the library with pass 02's metrics, twice per variant (no
#           library; counters with one profiled launch; the default plan at 16,
#           32, 48 and 96 ranges per image; one profiled launch without the
#           trace): wall, CPU user/sys and the profiler's own times
#   spread  the transformer's run-to-run spread: pmc --launches all twice and
#           sampled once; every pair compared (check_sampled.py --separate),
#           the all-launch runs kept for resampling off the device
#           (tests/tools/resample_pmc)
#   seeds   the intervals' coverage: axpy 2,001 launches, pmc --launches all
#           once, then sampled under SEEDS plans (sampled:10:50:20:S, default
#           S = 1..8), each against the all-launch run (check_sampled.py
#           --separate): per counter, how many intervals hold the all-launch
#           total, the mean error and the mean interval
# TOGGLE (every part): BENCHRUN_CUPTI_TOGGLE, the range profiler's toggle
# (full, startstop, user, user-async; unset: the library's default, user in
# sampled passes and full with every launch; tests/gpu/toggle18.sh compares them).
#   smoke   the stages as they are now on axpy 1 + 2,000 launches: plain ->
#           pmc (sampled) -> power -> analyze --power -> energy; FP32 FLOPs
#           known (2 x 1,048,576 per launch: one FFMA per thread), launches
#           2,001 in the trace (about 2 min with the build)
#   e2e     Triton mma.sync matmul, the copy workload and the JAX GEMM through
#           plain -> pmc -> power -> analyze, known FLOPs and bytes
# Output ($OUT): final18.txt (the table, printed last), final18-logs.tar.gz.
# Time: churn+jax+axpy about 5 min (measured: 290 s with the build carried,
# the axpy2k full-collection run cut by a 280 s deadline), models about 7 min,
# e2e about 6 min (estimates): more than one device call's 10 minutes, so
# split it, e.g. PARTS="churn jax axpy" DEADLINE_S=500, then PARTS="models",
# then PARTS="e2e".
# usage: . .gpu/env.sh; DEADLINE_S=500 [PARTS="churn jax axpy"] [TOGGLE=user] bash tests/gpu/final18.sh [BUILD_DIR]
# PREBUILT=DIR: benchrun, lib/benchrun/libbenchrun-cupti.so, tests/gpu/{axpy,sass_repro}
# built elsewhere (same layout as a build folder), instead of building here.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-/tmp/b18}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/final18
O=$W/logs
mkdir -p "$O" "$FINAL"
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
DEADLINE_S=${DEADLINE_S:-500}
STAGE_S=${STAGE_S:-150}
PARTS=${PARTS:-churn jax axpy models e2e}
TOGGLE=${TOGGLE:-}
[ -n "$TOGGLE" ] && export BENCHRUN_CUPTI_TOGGLE=$TOGGLE
LOGNAME_=final18
. "$ROOT/tests/gpu/lib.sh"
T=$O/table.txt
row() { echo "$*" >>"$T"; }
finish_up() {
    tar -C "$W" -czf "$FINAL/final18-logs.tar.gz" logs runs 2>/dev/null
    cp "$T" "$FINAL/final18.txt" 2>/dev/null
    cat "$T"
}
trap finish_up EXIT
want() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }

if [ -n "${PREBUILT:-}" ]; then
    B=$PREBUILT
    export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    CUPTI_DIR=$(dirname "$(find /usr/local/cuda*/ /opt -name 'libcupti.so.13*' 2>/dev/null | head -1)" 2>/dev/null)
    [ -n "$CUPTI_DIR" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CUPTI_DIR
    BR=$B/benchrun
    if ! "$BR" --version >"$O/prebuilt.log" 2>&1 || ldd "$B/lib/benchrun/libbenchrun-cupti.so" | grep -q 'not found'; then
        ldd "$BR" "$B/lib/benchrun/libbenchrun-cupti.so" >>"$O/prebuilt.log" 2>&1
        row "prebuilt binaries unusable here ($(grep -m1 'not found' "$O/prebuilt.log")): building"
        B=/tmp/b18dev; PREBUILT=
    fi
fi
if [ -z "${PREBUILT:-}" ]; then
    build_benchrun || { row "build failed"; exit 1; }
    cmake --build "$B" -j"$(nproc)" --target gpu-test-programs >>"$O/build.log" 2>&1
fi
export BENCHRUN_SHARE=$ROOT/share/benchrun
LIB=$B/lib/benchrun/libbenchrun-cupti.so
export BENCHRUN_CUPTI_LIB=$LIB
G=$B/tests/gpu
row "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $(date -u +%FT%TZ) $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) parts: $PARTS"
P01=$(python3 -c "import json;print(','.join(next(p['counters'] for p in json.load(open('$ROOT/share/benchrun/arch/gh100.json'))['passes'] if p['name']=='01_flops_sass')))")
PLAN=10:50:20:1   # the default of benchrun pmc --launches sampled (trace/launchplan.h)

# under NAME LIMIT ENV... -- CMD: CMD under the library with pass 01's metrics
under() {
    local name=$1 lim=$2; shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    mkdir -p "$W/runs/$name"
    local t0; t0=$(now_ms)
    STAGE_S=$lim st "$name" env CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$W/runs/$name" \
        BENCHRUN_CUPTI_NAME="$name"_%pid% BENCHRUN_CUPTI_METRICS="$P01" BENCHRUN_CUPTI_SAMPLE=$PLAN \
        "${envs[@]}" "$@"
    local rc=$? s; s=$(awk "BEGIN{printf \"%.1f\", ($(now_ms) - $t0) / 1000}")
    local j; j=$(ls "$W/runs/$name"/*_cupti.json 2>/dev/null | tail -1)
    row "$name rc=$rc ${s}s $( [ -n "$j" ] && python3 -c "
import json; d = json.load(open('$j')); u = d.get('module_unloads', {})
print('unloads', u.get('mode'), 'deferred', u.get('deferred'), 'reset', u.get('reset'),
      'defer_failed', u.get('defer_failed'), 'reenabled', d.get('profiler_reenabled_after_unload'),
      'launches', d.get('launches'), 'profiled', d.get('launches_profiled'),
      'names', d.get('range_names'), 'err', (d.get('error') or '')[:80])")"
    grep -h "benchrun-cupti: fatal\|inside" "$O/$name.log" | head -2 | sed 's/^/  /' >>"$T"
}

if want churn; then
    under churn_default 60 -- "$G/sass_repro" churn 20
    under churn_reset 60 BENCHRUN_CUPTI_UNLOAD=reset -- "$G/sass_repro" churn 5
    under churn_keep 30 BENCHRUN_CUPTI_UNLOAD=keep -- "$G/sass_repro" churn 5
fi
if want jax; then
    under jax_sass 150 -- python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
    tail -2 "$O/jax_sass.log" | cut -c1-160 | sed 's/^/  /' >>"$T"
fi

# conf NAME DESC CMD...: a workload conf in $W/runs/NAME
conf() {
    local n=$1 d=$2; shift 2
    mkdir -p "$W/runs/$n/results"
    { echo "WORKLOAD=$n"; echo "WORKLOAD_DESC=\"$d\""; echo "PROFILING_DIR=$W/runs/$n"
      echo "RESULTS_DIR=$W/runs/$n/results"; echo "NGPUS=1"; echo "NTASKS=1"; echo "BIND_GPU_PER_TASK=0"
      echo "SAMPLE_GPUS=0"; echo "SAMPLE_MS=1"; echo "VENDOR=nvidia"; echo "MODULES=()"
      echo "PERF_GREP='^(loop_s|train_|triton_mma|copy_step|jax_gemm)'"; echo "stage_inputs() { :; }"
      echo "app_env() { export PYTHONUNBUFFERED=1; }"
      echo "app_cmd() { APP_CMD=($*); }"; } >"$W/runs/$n/$n.conf"
}
runjson() { python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print(d.get('wall_time_s', 'nan'))" "$1" 2>/dev/null || echo nan; }
last() { ls -d "$W/runs/$1/results/$2"-* 2>/dev/null | tail -1; }
# pmc_pair NAME LIMIT [sampled]: pmc sampled and pmc --launches all of one conf,
# analyzed, compared (check_sampled.py --separate: two application runs);
# "sampled": the sampled run only (compared off the device with an earlier run)
pmc_pair() {
    local n=$1 lim=$2 s a=
    STAGE_S=$lim st "$n.pmc_sampled" "$BR" pmc "$W/runs/$n/$n.conf" --launches sampled
    s=$(last "$n" pmc)
    [ -n "$s" ] && st "$n.analyze_sampled" "$BR" analyze "$s"
    if [ "${3:-}" != sampled ]; then
        STAGE_S=$lim st "$n.pmc_all" "$BR" pmc "$W/runs/$n/$n.conf" --launches all
        a=$(ls -d "$W/runs/$n/results"/pmc-* 2>/dev/null | grep -v "^$s\$" | tail -1)
        [ -n "$a" ] && st "$n.analyze_all" "$BR" analyze "$a"
    fi
    if [ -n "$s" ] && [ -n "$a" ] && [ -f "$s/analysis/launch_sampling.csv" ]; then
        # deterministic counts: instructions, FLOP and tensor-op counts, DRAM reads and
        # L2 bytes (DRAM writes of an L2-resident working set are write-back timing)
        python3 "$ROOT/tests/cli/check_sampled.py" "$a" "$s" --separate \
            --only 'sass_thread_inst|inst_executed|ops_path_tensor|dram__bytes_read|lts__t_bytes' \
            --max-rel 0.01 >"$O/$n.accuracy" 2>&1
        row "$n accuracy (sampled vs all, deterministic counts): rc=$? $(tail -1 "$O/$n.accuracy")"
        grep -h "^TOTAL" "$O/$n.accuracy" | grep -v " sampled 0 all 0 " | head -16 | sed 's/^/  /' >>"$T"
    else
        row "$n accuracy: missing run (sampled=${s:-none} all=${a:-none})"
    fi
    for r in "$s" "$a"; do
        [ -n "$r" ] && row "  $(basename "$r"): wall $(runjson "$r/run.json") s, launches $(python3 -c "import json;print(json.load(open('$r/run.json')).get('launches'))" 2>/dev/null), $(grep -c . "$r"/*/*_counter_collection.csv 2>/dev/null | awk -F: '{s+=$2} END {print s " counter rows"}')"
        [ -n "$r" ] && python3 - "$r" >>"$T" 2>&1 <<'PY'
import csv, glob, json, math, os, sys
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*", ""))):
    nan = rows = 0
    for f in glob.glob(p + "*_counter_collection.csv"):
        for r in csv.DictReader(open(f)):
            rows += 1
            nan += not math.isfinite(float(r["Counter_Value"]))
    j = [json.load(open(f)) for f in glob.glob(p + "*_cupti.json")]
    ls = [d.get("launch_sampling", {}) for d in j]
    units = sum(os.path.getsize(f) > 0 for f in glob.glob(p + "*_launch_units.csv"))
    print("    %s: toggle %s, %d/%d NaN values, unmatched %s, user_range_open %s, units %s (keyed %s, past limit %s), "
          "parameter keys %s, units files %d" % (os.path.basename(p.rstrip("/")),
          ",".join(str((d.get("profiler_toggle") or {}).get("used")) for d in j), nan, rows,
          sum(d.get("ranges_unmatched", 0) for d in j), sum(d.get("launches_user_range_open", 0) for d in j),
          [l.get("units") for l in ls], [l.get("parameter_units") for l in ls],
          [l.get("parameter_keys_past_limit") for l in ls],
          [d.get("parameter_keys") for d in j if d.get("parameter_keys")][:1], units))
    print("      dropped: nonfinite %s, module load in range %s; preloaded %s; ranges past pushes %s" % (
          sum(d.get("launches_nonfinite_dropped", 0) for d in j),
          sum(d.get("launches_module_load_in_range", 0) for d in j),
          sum(d.get("functions_preloaded", 0) for d in j),
          sum(d.get("ranges_past_pushes", 0) for d in j)))
    for d in j:
        for c in (d.get("range_offset") or {}).get("contexts", []):
            print("      range offset (empty ranges %s/%s, %s ranges corrected, %s floored): %s" % (
                  c.get("decoded"), c.get("pushed"), c.get("ranges_corrected"), c.get("values_floored"),
                  ", ".join("%s %.6g" % (k.split("__", 1)[-1], v) for k, v in c.get("offset", {}).items())))
        if d.get("ranges_unmatched_examples") or d.get("values_nonfinite"):
            print("      unmatched e.g. %s; nonfinite %s e.g. %s" % (d.get("ranges_unmatched_examples", [])[:2],
                  d.get("values_nonfinite"), d.get("values_nonfinite_example")))
PY
    done
}

if want axpy && [ "${AXPY20K:-1}" != 0 ]; then
    conf axpy "axpy 1M floats, 1 + 20,000 launches" "$G/axpy" 1048576 20000
    plain_s=()
    for i in 1 2 3; do
        st "axpy.plain$i" "$BR" plain "$W/runs/axpy/axpy.conf"
        plain_s+=("$(runjson "$(last axpy plain)/run.json")")
    done
    pmc_all_s=()
    for i in 1 2; do
        STAGE_S=200 st axpy.pmc_sampled$i "$BR" pmc "$W/runs/axpy/axpy.conf" --launches sampled
        p=$(last axpy pmc)
        pmc_all_s+=("$(runjson "$p/run.json")")
    done
    pmc_s=$(python3 -c "import sys;print(min(float(x) for x in sys.argv[1:]))" "${pmc_all_s[@]}")
    row "axpy pmc sampled walls: ${pmc_all_s[*]} s (the smaller below)"
    python3 - "${TOGGLE:-default}" "$pmc_s" "${plain_s[@]}" >>"$T" <<'PY'
import statistics, sys
toggle, pmc = sys.argv[1], float(sys.argv[2]); plain = statistics.median(float(x) for x in sys.argv[3:])
n = 20001
print("axpy cost, 20,001 launches, toggle %s: plain %.3f s (median of %d), pmc sampled (6 passes) %.3f s = %.2f x six plain runs; "
      "added %.1f us per launch and pass" % (toggle, plain, len(sys.argv) - 3, pmc, pmc / (6 * plain),
                                              1e6 * (pmc - 6 * plain) / (6 * n)))
PY
    for f in "$p"/*/; do
        [ -d "$f" ] && row "  $(basename "$f"): $(python3 -c "
import json,glob
for j in glob.glob('$f/*_cupti.json'):
    d = json.load(open(j)); print('launches', d.get('launches'), 'profiled', d.get('launches_profiled'), 'armed', d.get('profiler_armed'), 'toggle', (d.get('profiler_toggle') or {}).get('used'), 'calls', d.get('profiler_calls'), 'ms', d.get('profiler_ms'), 'err', (d.get('error') or '')[:60])" 2>/dev/null) $(grep -h "pass $(basename "$f")" "$O/axpy.pmc_sampled2.log" | cut -c1-60)"
    done
    st axpy.analyze "$BR" analyze "$p"
fi
if want seeds; then
    conf axseed "axpy 1M floats, 1 + 2,000 launches" "$G/axpy" 1048576 2000
    STAGE_S=200 st axseed.pmc_all "$BR" pmc "$W/runs/axseed/axseed.conf" --launches all
    a=$(last axseed pmc)
    [ -n "$a" ] && st axseed.analyze_all "$BR" analyze "$a"
    for s in ${SEEDS:-1 2 3 4 5 6 7 8}; do
        [ -n "$a" ] || break
        STAGE_S=60 st "axseed.s$s" "$BR" pmc "$W/runs/axseed/axseed.conf" --launches "sampled:10:50:20:$s"
        p=$(last axseed pmc)
        [ "$p" = "$a" ] && continue
        st "axseed.analyze_s$s" "$BR" analyze "$p"
        python3 "$ROOT/tests/cli/check_sampled.py" "$a" "$p" --separate \
            --only 'sass_thread_inst|inst_executed|ops_path_tensor|dram__bytes_read|lts__t_bytes' \
            --max-rel 0.01 >"$O/axseed.s$s.accuracy" 2>&1
    done
    python3 - "$O" >>"$T" 2>&1 <<'PY'
import glob, re, statistics, sys
pat = re.compile(r"^\s*TOTAL (\S+) (\S+) sampled \S+ all (\S+) \(([+-]?[\d.]+) %, interval \+-([\d.]+) %, (covers|misses)\)"
                 r"(?:.*offset_bound ([\d.]+) %)?")
per = {}
files = sorted(glob.glob(sys.argv[1] + "/axseed.s*.accuracy"))
for f in files:
    for line in open(f):
        m = pat.match(line)
        if m and float(m.group(3)) != 0:
            per.setdefault((m.group(1), m.group(2)), []).append((float(m.group(4)), float(m.group(5)), m.group(6) == "covers",
                                                                 float(m.group(7) or 0)))
print("seeds: axpy 2,001 launches, %d sampled runs against one --launches all run (same call)" % len(files))
# cover: inside the interval with the offset bound; "sampling": inside the 95 %
# sampling interval alone (the interval less the bound)
print("  %-16s %-52s %5s %8s %8s %8s %8s %8s" % ("pass", "counter", "cover", "sampling", "mean%", "mean|%|",
                                                "ci95%", "bound%"))
for (p, c), v in sorted(per.items()):
    print("  %-16s %-52s %2d/%-2d %5d/%-2d %+8.3f %8.3f %8.3f %8.3f" % (p, c, sum(x[2] for x in v), len(v),
          sum(abs(x[0]) <= x[1] - x[3] + 1e-4 for x in v), len(v),
          statistics.mean(x[0] for x in v), statistics.mean(abs(x[0]) for x in v), statistics.mean(x[1] for x in v),
          statistics.mean(x[3] for x in v)))
PY
fi
if want axpy; then
    if [ "${AXPY2K:-1}" != 0 ]; then
        conf axpy2k "axpy 1M floats, 1 + 2,000 launches" "$G/axpy" 1048576 2000
        pmc_pair axpy2k 200
    fi
fi
if want cost; then
    P02=$(python3 -c "import json;print(','.join(next(p['counters'] for p in json.load(open('$ROOT/share/benchrun/arch/gh100.json'))['passes'] if p['name']=='02_sm_util')))")
    # costrun NAME ENV...: axpy 20,001 launches, wall and CPU times, the profiler's times
    costrun() {
        local name=$1; shift
        mkdir -p "$W/runs/cost/$name"
        STAGE_S=60 st "cost.$name" env "$@" python3 -c "
import resource, subprocess, sys, time
t = time.time(); rc = subprocess.call(sys.argv[1:]); w = time.time() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print('wall %.3f user %.3f sys %.3f rc %d' % (w, r.ru_utime, r.ru_stime, rc))" "$G/axpy" 1048576 20000
        local j; j=$(ls "$W/runs/cost/$name"/*_cupti.json 2>/dev/null | tail -1)
        row "  $name: $(tail -1 "$O/cost.$name.log") $( [ -n "$j" ] && python3 -c "
import json; d = json.load(open('$j'))
print('profiled', d.get('launches_profiled'), 'starts', (d.get('profiler_calls') or {}).get('start'),
      'callbacks', d.get('launch_callbacks'), 'events/harvest', d.get('launch_cost_ms'),
      'ms', {k: v for k, v in (d.get('profiler_ms') or {}).items() if v})")"
    }
    inj() { echo CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$W/runs/cost/$1" BENCHRUN_CUPTI_NAME="$1"_%pid% BENCHRUN_CUPTI_METRICS="$P02"; }
    # what the per-launch calls cost on this machine (a VM: system calls are dearer)
    cat >"$W/clockcost.c" <<'C'
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void) {
    const int n = 1000000; struct timespec ts; volatile long sink = 0; double t0;
    t0 = now(); for (int i = 0; i < n; i++) { clock_gettime(CLOCK_BOOTTIME, &ts); sink += ts.tv_nsec; }
    printf("clock_gettime(BOOTTIME) %.0f ns, ", 1e9 * (now() - t0) / n);
    t0 = now(); for (int i = 0; i < n; i++) { clock_gettime(CLOCK_MONOTONIC, &ts); sink += ts.tv_nsec; }
    printf("(MONOTONIC) %.0f ns, ", 1e9 * (now() - t0) / n);
    t0 = now(); for (int i = 0; i < n; i++) sink += syscall(SYS_gettid);
    printf("gettid %.0f ns\n", 1e9 * (now() - t0) / n);
    return (int)(sink & 0);
}
C
    cc -O2 -o "$W/clockcost" "$W/clockcost.c" && row "cost: per call here: $("$W/clockcost")"
    row "cost: tools here: $(for t in strace perf ltrace valgrind; do command -v $t >/dev/null && printf '%s ' $t; done)"
    row "cost: axpy 1M floats, 20,001 launches, pass 02_sm_util's metrics, the library alone"
    for i in 1 2; do
        costrun plain$i BENCHRUN_NONE=1
        costrun one$i $(inj one$i) BENCHRUN_CUPTI_SAMPLE=1:1000000000:0:1
        costrun trace$i $(inj trace$i | sed 's/BENCHRUN_CUPTI_METRICS=[^ ]*//')
        costrun one_notrace$i $(inj one_notrace$i) BENCHRUN_CUPTI_SAMPLE=1:1000000000:0:1 BENCHRUN_CUPTI_TRACE=0
        for m in 16 32 48 96; do
            costrun plan_r$m.$i $(inj plan_r$m.$i) BENCHRUN_CUPTI_SAMPLE=$PLAN BENCHRUN_CUPTI_MAX_RANGES=$m
        done
    done
fi
if want spread; then
    conf transformer "PyTorch transformer, 2 steps" python3 "$ROOT/tests/gpu/train_step.py" transformer 2
    runs=()
    for k in all1 all2 sampled; do
        STAGE_S=200 st "transformer.pmc_$k" "$BR" pmc "$W/runs/transformer/transformer.conf" \
            --launches "$([ "$k" = sampled ] && echo sampled || echo all)"
        r=$(last transformer pmc); runs+=("$r")
        [ -n "$r" ] && st "transformer.analyze_$k" "$BR" analyze "$r"
        row "  transformer $k: $(basename "$r") wall $(runjson "$r/run.json") s"
    done
    only='sass_thread_inst|inst_executed|ops_path_tensor|dram__bytes_read|lts__t_bytes'
    if [ -n "${runs[1]:-}" ]; then
        python3 "$ROOT/tests/cli/check_sampled.py" --runs "${runs[0]}" "${runs[1]}" --only "$only" >"$O/spread.runs" 2>&1
        row "  all2 vs all1 (run to run): rc=$?"; sed 's/^/    /' "$O/spread.runs" >>"$T"
    fi
    # sampled against each all-launch run
    for pair in "0 2" "1 2"; do
        set -- $pair
        a=${runs[$1]:-} s=${runs[$2]:-}
        [ -n "$a" ] && [ -f "$s/analysis/launch_sampling.csv" ] || continue
        python3 "$ROOT/tests/cli/check_sampled.py" "$a" "$s" --separate --only "$only" \
            --max-rel 0.01 >"$O/spread.$1$2" 2>&1
        row "  $(basename "$s") vs $(basename "$a"): rc=$? $(tail -1 "$O/spread.$1$2")"
        grep -h "^TOTAL" "$O/spread.$1$2" | grep "lts__t_bytes\|dram__bytes_read\|inst_executed.sum" | sed 's/^/    /' >>"$T"
    done
fi
if want models; then
    conf transformer "PyTorch transformer, 2 steps" python3 "$ROOT/tests/gpu/train_step.py" transformer 2
    [ "${TRANSFORMER:-1}" != 0 ] && pmc_pair transformer 200 $([ "${MODELS_ALL:-1}" = 0 ] && echo sampled)
    conf resnet18 "PyTorch ResNet-18, 2 steps" python3 "$ROOT/tests/gpu/train_step.py" resnet18 2
    [ "${RESNET:-1}" != 0 ] && pmc_pair resnet18 200 $([ "${RESNET_ALL:-1}" = 0 ] || [ "${MODELS_ALL:-1}" = 0 ] && echo sampled)
fi
if want smoke; then
    conf smoke "axpy 1M floats, 1 + 2,000 launches" "$G/axpy" 1048576 2000
    st smoke.plain "$BR" plain "$W/runs/smoke/smoke.conf"; a=$?
    st smoke.pmc "$BR" pmc "$W/runs/smoke/smoke.conf"; b=$?
    st smoke.power "$BR" power "$W/runs/smoke/smoke.conf"; c=$?
    pmc=$(last smoke pmc); prof=$(last smoke prof)
    [ -n "$pmc" ] && st smoke.analyze "$BR" analyze "$pmc" ${prof:+--power "$prof"}; d=$?
    [ -n "$prof" ] && st smoke.energy "$BR" energy "$prof"; e=$?
    row "smoke plain=$a pmc=$b power=$c analyze=$d energy=$e"
    python3 - "$pmc" >>"$T" 2>&1 <<'PY'
import csv, os, sys
p = os.path.join(sys.argv[1], "analysis", "per_kernel_metrics.csv")
want = 2001 * 2 * 1048576   # the warm-up's a = 0 FFMAs count too
for r in csv.DictReader(open(p)) if os.path.exists(p) else []:
    if r.get("kernel") == "TOTAL":
        f = float(r.get("FP32_FLOP") or "nan")
        print("   TOTAL launches %s FP32_FLOP %.0f (known %d: %s)" % (r.get("launches"), f, want,
              "ok" if abs(f - want) <= 1e-9 * want else "MISMATCH"))
PY
    grep -h "^benchrun: warning" "$O/smoke.analyze.log" | head -3 | cut -c1-160 | sed 's/^/   /' >>"$T"
    tail -3 "$O/smoke.energy.log" | cut -c1-160 | sed 's/^/   /' >>"$T"
fi
if want e2e; then
    e2e() {   # plain -> pmc -> power -> analyze; prints TOTAL FLOPs and bytes
        local n=$1
        st "$n.plain" "$BR" plain "$W/runs/$n/$n.conf"; local a=$?
        st "$n.pmc" "$BR" pmc "$W/runs/$n/$n.conf"; local b=$?
        st "$n.power" "$BR" power "$W/runs/$n/$n.conf"; local c=$?
        local pmc prof; pmc=$(last "$n" pmc); prof=$(last "$n" prof)
        [ -n "$pmc" ] && st "$n.analyze" "$BR" analyze "$pmc" ${prof:+--power "$prof"}
        row "$n plain=$a pmc=$b power=$c analyze=$? $(grep -h '^\(triton_mma\|copy_step\|jax_gemm\)' "$O/$n.plain.log" | head -1 | cut -c1-150)"
        python3 - "$pmc" >>"$T" 2>&1 <<'PY'
import csv, os, sys
p = os.path.join(sys.argv[1], "analysis", "per_kernel_metrics.csv")
for r in csv.DictReader(open(p)) if os.path.exists(p) else []:
    if r.get("kernel") == "TOTAL":
        print("   TOTAL launches", r.get("launches"), "BF16_TENSOR_FLOP", r.get("BF16_TENSOR_FLOP"),
              "F16_TENSOR_FLOP", r.get("F16_TENSOR_FLOP"), "FP32_FLOP", r.get("FP32_FLOP"),
              "mem_read_bytes", r.get("mem_read_bytes"), "mem_write_bytes", r.get("mem_write_bytes"))
PY
        grep -h "copy\|Copies\|lost\|lack" "$pmc/analysis/report.md" 2>/dev/null | head -3 | cut -c1-160 | sed 's/^/   /' >>"$T"
    }
    conf triton "Triton bf16 matmul, mma.sync (num_warps 2), N=4096, 3 launches" python3 "$ROOT/tests/gpu/triton_mma.py" 4096 3 2
    e2e triton
    conf copy "6 x 1 GiB device copies, 1 GiB H2D, D2H and memset" python3 "$ROOT/tests/gpu/copy_step.py" 1 6
    e2e copy
    conf jax "JAX bf16 GEMM N=4096, 5 + 1 calls, XLA defaults" python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
    e2e jax
fi
row "stages (name rc seconds):"
sed 's/^/  /' "$O/stages.tsv" >>"$T"
