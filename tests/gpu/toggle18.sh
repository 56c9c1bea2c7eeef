#!/bin/bash
# toggle18.sh - issue 18: what toggling the range profiler between profiled and
# unprofiled launches costs, per BENCHRUN_CUPTI_TOGGLE mode (trace/rptoggle.h),
# on one H200 in one device call. axpy 1M floats, 1 + 20,000 launches:
#   plain x3        the program alone (median: the "plain run")
#   trace           libbenchrun-cupti in trace mode (activity records)
#   callbacks       counter mode with no launch profiled (launch callbacks and
#                   CUDA events on every launch: the floor of a sampled pass)
#   VARIANT.p02     pass 02_sm_util (hardware counters), sampled 10:50:20:1
#   VARIANT.p01     pass 01_flops_sass (SASS counters), sampled 10:50:20:1
# for each VARIANT of VARIANTS (default: user user-async startstop full; full,
# today's default and the slowest, last). Checks, per pass: every profiled
# launch's sm__sass_thread_inst_executed_op_ffma_pred_on.sum is 1,048,576 and
# the other eight FLOP counters 0 (tests/gpu/axpy.cu: 4096 x 256 threads, each
# one y = a*x + y, fused to one FFMA; no other float op), 96 launches profiled
# (the plan's ranks <= 20,001), every launch traced, every profiled launch
# joined to its range; and that each variant's counters equal full's: the same
# dispatches profiled, the same values of the deterministic counters (every
# SASS counter, smsp__inst_executed.sum, smsp__thread_inst_executed.sum),
# the others' mean per launch compared in %.
# Output ($OUT): toggle18.txt (the table, printed last), toggle18-logs.tar.gz
# (logs, companion JSONs and counter files; no kernel traces).
# Time: about 100 s of commands with the build carried or reused (plain,
# trace, callbacks ~5 s; each light variant's two passes ~10 s if the toggle
# is cheap, 25 s each at most; full ~65 s: 47 s + 16 s measured on 2026-12-01),
# plus ~40 s to build benchrun and the library when neither is there.
# usage: . .gpu/env.sh; [DEADLINE_S=120] [VARIANTS="user full"] bash tests/gpu/toggle18.sh [BUILD_DIR]
# BUILD_DIR (default /tmp/b18, final18.sh's) is reused when it was configured
# for this tree; PREBUILT=DIR: lib/benchrun/libbenchrun-cupti.so and
# tests/gpu/axpy built elsewhere (a build folder's layout), used as they are.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-/tmp/b18}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/toggle18
O=$W/logs
R=$W/runs
mkdir -p "$O" "$R" "$FINAL"
export PATH=$PATH:/usr/local/cuda/bin
DEADLINE_S=${DEADLINE_S:-120}
STAGE_S=25
VARIANTS=${VARIANTS:-user user-async startstop full}
N=1048576 LAUNCHES=20000 PLAN=10:50:20:1
LOGNAME_=toggle18
. "$ROOT/tests/gpu/lib.sh"
T=$O/table.txt
RUNS=$O/runs.tsv   # name, rc, wall seconds, variant, pass
: >"$RUNS"
row() { echo "$*" >>"$T"; }
finish_up() {
    tar -C "$W" --exclude='*_kernel_trace.csv' -czf "$FINAL/toggle18-logs.tar.gz" logs runs 2>/dev/null
    cp "$T" "$FINAL/toggle18.txt" 2>/dev/null
    cat "$T"
}
trap finish_up EXIT

# ---- binaries --------------------------------------------------------------------
if [ -n "${PREBUILT:-}" ]; then
    B=$PREBUILT
    CUPTI_DIR=$(dirname "$(find /usr/local/cuda*/ /opt -name 'libcupti.so.13*' 2>/dev/null | head -1)" 2>/dev/null)
    [ -n "$CUPTI_DIR" ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$CUPTI_DIR
    if ldd "$B/lib/benchrun/libbenchrun-cupti.so" 2>&1 | grep -q 'not found'; then
        row "prebuilt library unusable here ($(ldd "$B/lib/benchrun/libbenchrun-cupti.so" 2>&1 | grep -m1 'not found')): building"
        B=/tmp/b18dev; PREBUILT=
    fi
fi
if [ -z "${PREBUILT:-}" ]; then
    build_benchrun || { row "build failed (logs/build.log)"; exit 1; }
fi
LIB=$B/lib/benchrun/libbenchrun-cupti.so
AXPY=$B/tests/gpu/axpy
if [ ! -x "$AXPY" ]; then   # only this program is needed: not the whole gpu-test-programs target
    AXPY=$W/axpy
    timeout 120 nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -o "$AXPY" \
        "$ROOT/tests/gpu/axpy.cu" >>"$O/build.log" 2>&1 || { row "nvcc axpy failed"; exit 1; }
fi
row "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null) $(date -u +%FT%TZ) $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) variants: $VARIANTS deadline ${DEADLINE_S}s"
counters() {   # the counters of a pass of share/benchrun/arch/gh100.json
    python3 -c "import json,sys;print(','.join(next(p['counters'] for p in json.load(open(sys.argv[1]))['passes'] if p['name']==sys.argv[2])))" \
        "$ROOT/share/benchrun/arch/gh100.json" "$1"
}
P01=$(counters 01_flops_sass) P02=$(counters 02_sm_util)

# timed NAME LIMIT VARIANT PASS CMD...: CMD under st (time-limited, skipped past
# the deadline), its wall time in runs.tsv; a failure does not stop the script
timed() {
    local name=$1 lim=$2 variant=$3 pass=$4 t0 rc; shift 4
    mkdir -p "$R/$name"
    t0=$(now_ms)
    STAGE_S=$lim st "$name" "$@"
    rc=$?
    printf '%s\t%d\t%s\t%s\t%s\n' "$name" "$rc" \
        "$(awk "BEGIN{printf \"%.3f\", ($(now_ms) - $t0) / 1000}")" "$variant" "$pass" >>"$RUNS"
}
# under NAME LIMIT VARIANT PASS METRICS PLAN: axpy under the library
under() {
    local name=$1 lim=$2 variant=$3 pass=$4 metrics=$5 plan=$6
    timed "$name" "$lim" "$variant" "$pass" env CUDA_INJECTION64_PATH="$LIB" \
        BENCHRUN_CUPTI_OUT="$R/$name" BENCHRUN_CUPTI_NAME="$name"_%pid% \
        ${metrics:+BENCHRUN_CUPTI_METRICS="$metrics"} ${plan:+BENCHRUN_CUPTI_SAMPLE="$plan"} \
        BENCHRUN_CUPTI_TOGGLE="${variant/#-/full}" "$AXPY" "$N" "$LAUNCHES"
}

# ---- runs --------------------------------------------------------------------------
for i in 1 2 3; do timed "plain$i" 20 - - "$AXPY" "$N" "$LAUNCHES"; done
under trace 20 - - "" ""
under callbacks 20 - - "$P02" 0:1000000000:1:1   # first profiled rank 472,732,431: none
for v in $VARIANTS; do
    lim=$STAGE_S
    [ "$v" = full ] && lim=80
    under "$v.p02" "$lim" "$v" 02_sm_util "$P02" "$PLAN"
    under "$v.p01" "$lim" "$v" 01_flops_sass "$P01" "$PLAN"
done

# ---- table ---------------------------------------------------------------------------
python3 - "$RUNS" "$R" "$N" "$LAUNCHES" "$O" >>"$T" 2>&1 <<'PY'
import csv, glob, json, os, statistics, sys
runs_tsv, rdir, n, launches, logs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) + 1, sys.argv[5]
FFMA = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
EXACT = ("sm__sass_", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum")
runs = [l.rstrip("\n").split("\t") for l in open(runs_tsv) if l.strip()]
plain = [float(r[2]) for r in runs if r[0].startswith("plain") and r[1] == "0"]
base = statistics.median(plain) if plain else float("nan")
print("plain run (axpy alone, %d launches): median %.3f s of %d (%s)"
      % (launches, base, len(plain), ", ".join("%.3f" % p for p in plain)))

def load(name):
    js = sorted(glob.glob(os.path.join(rdir, name, "*_cupti.json")))
    d = json.load(open(js[-1])) if js else {}
    vals = {}   # dispatch -> counter -> value
    for f in glob.glob(os.path.join(rdir, name, "*_counter_collection.csv")):
        for row in csv.DictReader(open(f)):
            vals.setdefault(int(row["Dispatch_Id"]), {})[row["Counter_Name"]] = float(row["Counter_Value"])
    rows = 0
    for f in glob.glob(os.path.join(rdir, name, "*_kernel_trace.csv")):
        rows += max(0, sum(1 for _ in open(f)) - 1)
    return d, vals, rows

print("%-18s %3s %8s %7s %7s %8s %6s  %-40s %s" % ("run", "rc", "wall_s", "x_plain", "us/l",
      "profiled", "rows", "calls start/stop/init/decode/push/sync", "ms enable/init/start/stop/decode/push/sync"))
loaded = {}
for name, rc, wall, variant, pas in runs:
    if name.startswith("plain"):
        continue
    d, vals, rows = load(name)
    loaded[name] = (variant, pas, d, vals, rc)
    w = float(wall)
    calls = d.get("profiler_calls", {})
    ms = d.get("profiler_ms", {})
    print("%-18s %3s %8.2f %7.1f %7.1f %8s %6s  %-40s %s" % (
        name, rc, w, w / base if base else float("nan"), 1e6 * (w - base) / launches,
        d.get("launches_profiled", "-"), rows if rows else "-",
        "/".join(str(calls.get(k, "-")) for k in ("start", "stop", "init", "decode", "push", "sync")),
        "/".join(str(ms.get(k, "-")) for k in ("enable", "init", "start", "stop", "decode_evaluate",
                                                "push_pop", "sync"))))
    tog = d.get("profiler_toggle")
    extra = []
    if tog and tog.get("used") != tog.get("requested"):
        extra.append("toggle used %s (restart fallbacks %s)" % (tog.get("used"), tog.get("restart_fallbacks")))
    for k in ("ranges_unmatched", "launches_without_range", "launches_user_range_open", "ranges_dropped"):
        if d.get(k):
            extra.append("%s %s" % (k, d[k]))
    if d.get("error"):
        extra.append("error: " + d["error"][:100])
    if rc == "124" and not os.path.exists(os.path.join(logs, name + ".log")):
        extra.append("not run: the call's deadline (DEADLINE_S)")
    elif rc != "0":
        extra.append("exit %s%s (logs/%s.log)" % (rc, " = time limit" if rc in ("124", "137") else "", name))
    if extra:
        print("    " + "; ".join(extra))

print("checks (axpy.cu: %d threads per launch, one FFMA each, no other float op; plan 10:50:20:1 "
      "profiles 96 of %d launches):" % (n, launches))
fails = 0
for name, (variant, pas, d, vals, rc) in loaded.items():
    if variant == "-":
        continue
    msgs = []
    if len(vals) != 96:
        msgs.append("%d launches with counters, expected 96" % len(vals))
    if d.get("trace_rows") != launches:
        msgs.append("trace rows %s, expected %d" % (d.get("trace_rows"), launches))
    if pas == "01_flops_sass":
        bad = [k for k, c in vals.items() if c.get(FFMA) != n or
               any(v != 0 for m, v in c.items() if m != FFMA)]
        if bad:
            c = vals[bad[0]]
            msgs.append("%d launches with FFMA != %d or another FLOP counter != 0 (dispatch %d: "
                        "FFMA %.0f, others %s)" % (len(bad), n, bad[0], c.get(FFMA, float("nan")),
                        {m.split("_op_")[-1]: v for m, v in c.items() if m != FFMA and v}))
    full = loaded.get("full." + name.split(".")[1])
    if full and variant != "full":
        fv = full[3]
        if set(fv) != set(vals):
            msgs.append("profiled dispatches differ from full's (%d vs %d)" % (len(vals), len(fv)))
        common = sorted(set(fv) & set(vals))
        metrics = sorted({m for c in fv.values() for m in c})
        for m in metrics:
            a = [vals[k].get(m) for k in common]
            b = [fv[k].get(m) for k in common]
            if not common or None in a or None in b:
                continue
            if m.startswith(EXACT) or m in EXACT:
                if a != b:
                    i = next(j for j in range(len(a)) if a[j] != b[j])
                    msgs.append("%s differs from full's (dispatch %d: %g vs %g)" % (m, common[i], a[i], b[i]))
            else:
                ma, mb = statistics.mean(a), statistics.mean(b)
                print("    %-16s %-45s mean per launch %.6g vs full %.6g (%+.2f %%)"
                      % (name, m, ma, mb, 100 * (ma - mb) / mb if mb else float("nan")))
    elif variant != "full":
        msgs.append("no full run to compare with")
    fails += bool(msgs) and not (msgs == ["no full run to compare with"])
    print("  %-16s %s" % (name, "ok" if not msgs else "; ".join(msgs)))
print("toggle18: %s" % ("all checks passed" if fails == 0 else "%d run(s) failed a check" % fails))
PY
row "stages (name rc seconds):"
sed 's/^/  /' "$O/stages.tsv" >>"$T"
