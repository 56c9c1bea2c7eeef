#!/bin/bash
# l2src18.sh - issue 18: where the L2 bytes of a sampled pass under user ranges
# differ from full collection (axpy, L2-resident: +0.689 % on 2,001 launches,
# docs/validation.md §15), on one H200 in one device call. axpy 1M floats
# (x and y 4 MiB each: 8 MiB read, 4 MiB written per launch; H200 L2 50 MB),
# 1 + LAUNCHES launches, run directly under libbenchrun-cupti with L2 counters
# split by source unit (lts__t_bytes = 32 x every LTS sector: from TEX, the
# SMs; from LTC fabric, the link between the two L2 partitions; from GCC):
#   full.all, full.all2   every launch, auto range (the all-launch default), twice
#   user.all              every launch, user ranges
#   user.s, full.s, async.s  sampled 10:50:20:1 under user, full, user-async
#   user.s.q, full.s.q    the same sampled pair at a quarter of the size
#   *.raw                 the same under user ranges without the empty ranges'
#                         offset taken out (BENCHRUN_CUPTI_EMPTY_RANGES=0)
# ASYNC=1 adds async.s, QUARTER=1 the quarter-size runs; N sets the floats
# (N=32: one block), CANDIDATES the counter sets tried (one a line).
# Known answers per launch (tests/gpu/axpy.cu, one float read of x and y and
# one write of y per thread): TEX read sectors 2N*4/32, TEX write sectors N*4/32.
# Prints, per run and counter, the mean per profiled launch (the launches every
# run profiled, by dispatch id) against full.all, and the cold first launch;
# per user-range run the rest's excess over full.all by the launches run
# unprofiled before the range (0: the previous launch was profiled too); the
# warm-up and empty ranges' L2 sectors from the debug logs.
# Output ($OUT): l2src18.txt (the table, printed last), l2src18-logs.tar.gz.
# Time: full.all ~25 s per 1,000 launches, the others a few s each, plus the build.
# usage: . .gpu/env.sh; [DEADLINE_S=200] [LAUNCHES=1000] bash tests/gpu/l2src18.sh [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-/tmp/b18}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/l2src18
O=$W/logs
R=$W/runs
mkdir -p "$O" "$R" "$FINAL"
export PATH=$PATH:/usr/local/cuda/bin
DEADLINE_S=${DEADLINE_S:-200}
STAGE_S=90
N=${N:-1048576} LAUNCHES=${LAUNCHES:-1000} PLAN=10:50:20:1
# candidate counter sets, tried in order on 20 launches: the first that fits one
# hardware pass is used (the H200 fits no four of these in one)
CANDIDATES=${CANDIDATES:-"lts__t_bytes.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum
lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum
lts__t_bytes.sum,lts__t_sectors_srcunit_ltcfabric.sum
lts__t_bytes.sum,lts__t_sectors_srcunit_tex.sum
lts__t_sectors_srcunit_ltcfabric.sum"}
LOGNAME_=l2src18
. "$ROOT/tests/gpu/lib.sh"
T=$O/table.txt
RUNS=$O/runs.tsv   # name, rc, wall seconds, n
: >"$RUNS"
row() { echo "$*" >>"$T"; }
finish_up() {
    tar -C "$W" --exclude='*_kernel_trace.csv' -czf "$FINAL/l2src18-logs.tar.gz" logs runs 2>/dev/null
    cp "$T" "$FINAL/l2src18.txt" 2>/dev/null
    cat "$T"
}
trap finish_up EXIT

build_benchrun || { row "build failed (logs/build.log)"; exit 1; }
LIB=$B/lib/benchrun/libbenchrun-cupti.so
AXPY=$W/axpy
timeout 120 nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -o "$AXPY" \
    "$ROOT/tests/gpu/axpy.cu" >>"$O/build.log" 2>&1 || { row "nvcc axpy failed"; exit 1; }
row "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null) $(date -u +%FT%TZ) $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) N $N launches 1+$LAUNCHES"

# under NAME TOGGLE PLAN N [EMPTY]: axpy under the library (PLAN "": every
# launch; EMPTY: BENCHRUN_CUPTI_EMPTY_RANGES)
under() {
    local name=$1 toggle=$2 plan=$3 n=$4 empty=${5:-} t0 rc
    mkdir -p "$R/$name"
    t0=$(now_ms)
    st "$name" env CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$R/$name" \
        BENCHRUN_CUPTI_NAME="$name"_%pid% BENCHRUN_CUPTI_METRICS="$METRICS" \
        ${plan:+BENCHRUN_CUPTI_SAMPLE="$plan"} ${empty:+BENCHRUN_CUPTI_EMPTY_RANGES="$empty"} \
        BENCHRUN_CUPTI_TOGGLE="$toggle" ${EXTRA:-} "$AXPY" "$n" "$LAUNCHES"
    rc=$?
    printf '%s\t%d\t%s\t%s\n' "$name" "$rc" \
        "$(awk "BEGIN{printf \"%.3f\", ($(now_ms) - $t0) / 1000}")" "$n" >>"$RUNS"
}

METRICS=
while IFS= read -r m; do
    [ -z "$m" ] && continue
    rm -rf "$R/probe"; mkdir -p "$R/probe"
    env CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$R/probe" BENCHRUN_CUPTI_NAME=probe \
        BENCHRUN_CUPTI_METRICS="$m" timeout 30 "$AXPY" "$N" 20 >>"$O/probe.log" 2>&1
    if [ "$(cat "$R"/probe/*_counter_collection.csv 2>/dev/null | wc -l)" -gt 1 ]; then METRICS=$m; break; fi
    row "one pass cannot hold: $m"
done <<<"$CANDIDATES"
[ -z "$METRICS" ] && { row "no candidate counter set fits one pass"; exit 1; }
row "counters: $METRICS"
EXTRA=BENCHRUN_CUPTI_DEBUG=1 under user.s user "$PLAN" "$N"
under user.s.raw user "$PLAN" "$N" 0
under full.s full "$PLAN" "$N"
[ "${ASYNC:-0}" = 1 ] && under async.s user-async "$PLAN" "$N"
EXTRA=BENCHRUN_CUPTI_DEBUG=1 under user.all user "" "$N"
under full.all full "" "$N"
if [ "${QUARTER:-0}" = 1 ]; then
    under user.s.q user "$PLAN" $((N / 4))
    under user.s.q.raw user "$PLAN" $((N / 4)) 0
    under full.s.q full "$PLAN" $((N / 4))
fi
under full.all2 full "" "$N"

python3 - "$RUNS" "$R" >>"$T" 2>&1 <<'PY'
import csv, glob, json, os, re, statistics, sys
runs_tsv, rdir = sys.argv[1:3]
runs = [l.rstrip("\n").split("\t") for l in open(runs_tsv) if l.strip()]
SHORT = {"lts__t_bytes.sum": "bytes/32", "lts__t_sectors_srcunit_tex.sum": "tex",
         "lts__t_sectors_srcunit_ltcfabric.sum": "fabric", "lts__t_sectors_srcunit_gcc.sum": "gcc",
         "lts__t_sectors_srcunit_l.sum": "l",
         "lts__t_sectors_srcunit_tex_op_read.sum": "tex_rd", "lts__t_sectors_srcunit_tex_op_write.sum": "tex_wr",
         "dram__bytes_read.sum": "dram_rd/32"}

def load(name):
    vals = {}
    for f in glob.glob(os.path.join(rdir, name, "*_counter_collection.csv")):
        for r in csv.DictReader(open(f)):
            v = float(r["Counter_Value"])
            if r["Counter_Name"] in ("lts__t_bytes.sum", "dram__bytes_read.sum"):
                v /= 32
            vals.setdefault(int(r["Dispatch_Id"]), {})[SHORT.get(r["Counter_Name"], r["Counter_Name"])] = v
    for c in vals.values():   # the sectors neither from TEX nor from the fabric
        if all(k in c for k in ("bytes/32", "tex", "fabric")):
            c["rest"] = c["bytes/32"] - c["tex"] - c["fabric"]
    js = sorted(glob.glob(os.path.join(rdir, name, "*_cupti.json")))
    d = json.load(open(js[-1])) if js else {}
    return vals, d

loaded = {name: (int(n), rc, float(w)) + load(name) for name, rc, w, n in runs}
cols = [c for c in list(SHORT.values()) + ["rest"]
        if any(c in v for run in loaded.values() for v in run[3].values())]
for name, (n, rc, w, vals, d) in loaded.items():
    extra = "; ".join("%s %s" % (k, d[k]) for k in ("ranges_unmatched", "launches_without_range",
                      "ranges_dropped", "values_nonfinite", "error") if d.get(k))
    print("%-10s rc %s %6.1f s  N %d  %d launches with counters%s" % (name, rc, w, n, len(vals),
          ("  (" + extra + ")") if extra else ""))
    if vals:
        first = vals.get(min(vals))
        print("   first (dispatch %d): %s" % (min(vals), "  ".join("%s %.0f" % (c, first.get(c, float("nan"))) for c in cols if c in first)))
        print("   tex known: rd %d wr %d sectors" % (2 * n * 4 // 32, n * 4 // 32))
    if d.get("range_offset"):
        print("   range_offset: %s" % json.dumps(d["range_offset"]))

def table(names, ref):
    if ref not in loaded or not loaded[ref][3]:
        print("no %s to compare with" % ref); return
    common = set(loaded[ref][3])
    for nm in names:
        common &= set(loaded[nm][3]) if nm in loaded else set()
    common.discard(min(loaded[ref][3]))   # the cold launch, shown above
    common = sorted(common)
    print("mean per launch over the %d launches (by dispatch id) every one of %s profiled, cold launch left out; "
          "(sd) and %% against %s:" % (len(common), ", ".join(names), ref))
    print("%-10s " % "run" + " ".join("%22s" % c for c in cols))
    for nm in [ref] + [x for x in names if x != ref]:
        v = loaded[nm][3]
        cells = []
        for c in cols:
            a = [v[k][c] for k in common if c in v[k]]
            b = [loaded[ref][3][k][c] for k in common if c in loaded[ref][3][k]]
            if len(a) < 2 or len(a) != len(b):
                cells.append("%22s" % "-"); continue
            ma, mb = statistics.mean(a), statistics.mean(b)
            pct = 100 * (ma - mb) / mb if mb else float("nan")
            cells.append("%11.1f(%4.0f)%+6.2f%%" % (ma, statistics.stdev(a), pct) if nm != ref
                         else "%15.1f(%5.0f)" % (ma, statistics.stdev(a)))
        print("%-10s " % nm + " ".join(cells))

def present(names):
    return [x for x in names if x in loaded]

table(present(["full.all", "full.all2", "user.all", "user.s", "user.s.raw", "full.s", "async.s"]),
      "full.all")
if "full.s.q" in loaded:
    table(present(["user.s.q", "user.s.q.raw", "full.s.q"]), "full.s.q")

# the rest's excess over full.all at the same dispatch, by how many launches
# ran unprofiled right before the range (0: the previous launch's range came
# right before it)
BINS = [(0, 0), (1, 9), (10, 49), (50, 99), (100, 199), (200, 10 ** 9)]
if "full.all" in loaded:
    f = loaded["full.all"][3]
    print("rest excess over full.all per launch, by unprofiled launches before the range "
          "(n, mean, sd):")
    for nm in present(["user.all", "user.s", "user.s.raw", "full.s", "async.s"]):
        v = loaded[nm][3]
        ks = sorted(k for k in v if k in f and "rest" in v[k] and "rest" in f[k])
        gaps = {}
        for i, k in enumerate(ks[1:], 1):   # the first launch is cold: left out
            g = k - ks[i - 1] - 1
            gaps.setdefault(next(b for b in BINS if b[0] <= g <= b[1]), []).append(
                v[k]["rest"] - f[k]["rest"])
        cells = []
        for b in BINS:
            a = gaps.get(b, [])
            label = "%d" % b[0] if b[0] == b[1] else "%d-%s" % (b[0], b[1] if b[1] < 10 ** 9 else "")
            if a:
                cells.append("%s: %d %+.0f (%.0f)" % (label, len(a), statistics.mean(a),
                                                      statistics.stdev(a) if len(a) > 1 else 0))
        print("  %-10s %s" % (nm, "   ".join(cells)))

# the library's own ranges, from the debug logs: "range i/slot ... v0=<lts__t_bytes> <name>"
print("own ranges' L2 sectors (lts__t_bytes.sum/32, debug log; n, mean, sd, min, max):")
for nm in present(["user.s", "user.all"]):
    own = {}
    for lg in glob.glob(os.path.join(rdir, nm, "*_debug.log")):
        for line in open(lg, errors="replace"):
            m = re.search(r" range \d+/\d+ nonfinite=0 \[\] v0=(\S+) benchrun-(warmup|empty):(\d+)", line)
            if m:
                own.setdefault(m.group(2), []).append(float(m.group(1)) / 32)
    for kind in ("warmup", "empty"):
        a = own.get(kind, [])
        if a:
            print("  %-10s %-7s %4d %9.1f (%6.1f) %8.0f %8.0f" % (nm, kind, len(a), statistics.mean(a),
                  statistics.stdev(a) if len(a) > 1 else 0, min(a), max(a)))
# per dispatch, the first 14 launches user.s profiled, against full.all
if "user.s" in loaded and "full.all" in loaded:
    u, f = loaded["user.s"][3], loaded["full.all"][3]
    print("per dispatch, user.s vs full.all (tex, fabric, gcc sectors):")
    for k in sorted(u)[:14]:
        print("  %5d  user %s   full %s" % (k, " ".join("%8.0f" % u[k].get(c, -1) for c in ("tex", "fabric", "gcc")),
              " ".join("%8.0f" % f.get(k, {}).get(c, -1) for c in ("tex", "fabric", "gcc"))))
PY
row "user.s's warm-up, empty and first launch ranges (debug log: range index/slot, lts__t_bytes.sum):"
grep -h " range " "$R"/user.s/*_debug.log 2>/dev/null | head -8 | sed 's/^/  /' >>"$T"
grep -h " range .*benchrun-warmup" "$R"/user.s/*_debug.log 2>/dev/null | tail -2 | sed 's/^/  /' >>"$T"
row "stages (name rc seconds):"
sed 's/^/  /' "$O/stages.tsv" >>"$T"
