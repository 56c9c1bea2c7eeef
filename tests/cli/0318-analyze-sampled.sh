#!/bin/bash
# 0318-analyze-sampled: launch sampling on generated rocprofv3 data. The same
# generated run (tests/tools/gen_rocprof, one seed) is written twice: with
# counter rows for every launch, and with --sample (counter rows only for the
# launches the plan profiles, per kernel as rocprofv3 --kernel-iteration-range
# counts them, every launch in the trace, launch_sampling.json per pass).
# check_sampled.py sums the true totals from the full run's files itself and
# checks every estimate of the sampled analysis against them; the metrics
# must match the generator's expected.json within the widest interval; the
# launches are the trace's, nothing is called a lost launch, the interval
# check speaks; the pmc stage asks rocprofv3 for the iterations.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
CHECK="python3 $BR_SOURCE_DIR/tests/cli/check_sampled.py"
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
opts=(--kernels 6 --launches 3000 --seed 5)

gen_pair() {   # gen_pair NAME PLAN: full and sampled runs, both analyzed
    local d=$T/$1
    "$GEN" "${opts[@]}" --power "$d/prof" "$d/full" >/dev/null 2>&1 &&
        "$GEN" "${opts[@]}" --power "$d/prof" --sample "$2" "$d/sampled" >/dev/null 2>&1 ||
        { fail "$1: generator failed"; return 1; }
    expect_exit 0 "$1: analyze the full run" -- "$BENCHRUN" analyze "$d/full" --power "$d/prof"
    expect_exit 0 "$1: analyze the sampled run" -- "$BENCHRUN" analyze "$d/sampled" --power "$d/prof"
}

# advice REPORT BRANCH WHAT: the interval check's advice follows the numbers it
# names: (width / 1 %)^2 times the profiled launches ("about Nx as many"), or
# every launch when that is more than the kernel ran ("no sample"); BRANCH is
# the one these data must take.
advice() {
    python3 - "$1" "$2" <<'PY' && pass "$3: the interval check's advice follows its numbers" \
        || fail "$3: the interval check's advice"
import math, re, sys
seen = set()
for m in re.finditer(r"\+-([0-9.]+)% from (\d+) of (\d+) launches\): the launches differ too much "
                     r"for the sample; (about (\d+)x as many|no sample of its launches)", open(sys.argv[1]).read()):
    w, prof, runs = float(m[1]), int(m[2]), int(m[3])
    more = math.ceil(w * w)   # CHECK_SAMPLING_PCT 1; w is printed to 3 digits
    if more * prof >= runs * 1.01:
        assert m[4].startswith("no sample"), m[0]
        seen.add("no sample")
    elif more * prof <= runs * 0.99:
        assert m[5] and abs(int(m[5]) - more) <= 0.01 * more + 1, m[0]
        seen.add("about")
sys.exit(0 if sys.argv[2] in seen else 1)
PY
}

# The default plan on launches of 1-3x the base work (period 3): about 4 % of
# the launches profiled, wide intervals. The same run sampled with six plan
# seeds: 95 % intervals cover the truth in at least 90 % of the estimates
# (estimates of one kernel move together: all its counters scale with the
# same launches), elapsed-cycle (time) and fully profiled estimates exactly.
if gen_pair default 10:50:20:1; then
    d=$T/default
    runs=("$d/sampled")
    for s in 2 3 4 5 6; do
        "$GEN" "${opts[@]}" --sample "10:50:20:$s" "$d/seed$s" >/dev/null 2>&1 &&
            "$BENCHRUN" analyze "$d/seed$s" >/dev/null 2>&1 && runs+=("$d/seed$s")
    done
    [ "${#runs[@]}" -eq 6 ] || fail "default plan: a seed's run failed"
    if $CHECK "$d/full" "${runs[@]}" --min-coverage 0.9 >"$T/check" 2>&1; then
        pass "default plan: $(tail -1 "$T/check")"
    else fail "default plan: estimates vs full collection"; cat "$T/check" >&2; fi
    n_full=$(wc -l <"$d/full/01_fp64_flops/01_fp64_flops_counter_collection.csv")
    n_samp=$(wc -l <"$d/sampled/01_fp64_flops/01_fp64_flops_counter_collection.csv")
    [ "$n_samp" -lt $((n_full / 10)) ] && pass "counter rows: $n_samp of $n_full" \
        || fail "counter rows not sampled: $n_samp of $n_full"
    # launches per kernel: the trace's, the same as the full run's
    python3 - "$d/full/analysis/per_kernel_metrics.csv" "$d/sampled/analysis/per_kernel_metrics.csv" <<'PY' \
        && pass "launches per kernel equal the full run's" || fail "launches differ"
import csv, sys
a, b = ({r["kernel_full_name"]: r["launches"] for r in csv.DictReader(open(p))} for p in sys.argv[1:])
sys.exit(0 if a == b and len(a) > 1 else 1)
PY
    expect_grep '^## Launch sampling' "$d/sampled/analysis/report.md" "report.md has the sampling section"
    expect_grep '^- launches: sampled in 6 of 6 passes' "$d/sampled/analysis/report.md" "report.md says sampled"
    expect_grep '^- launches: all \(counters on every launch\)' "$d/full/analysis/report.md" "report.md says all"
    expect_grep '^\| 01_fp64_flops \| 3000 \| 120 \| 4 \|' "$d/sampled/analysis/report.md" \
        "per pass: launches run and profiled"
    expect_no_grep '\(lost launches' "$d/sampled/analysis/report.md" "no lost launches in a sampled run"
    expect_grep 'interval wider than' "$d/sampled/analysis/report.md" "the interval check names wide estimates"
    advice "$d/sampled/analysis/report.md" "no sample" "default plan, 17 of 361 launches"
    [ -f "$d/full/analysis/launch_sampling.csv" ] && fail "full run wrote launch_sampling.csv" \
        || pass "a full run keeps its outputs"
fi

# A denser plan (about 20 % profiled): every estimate within its interval,
# and every metric within the widest interval of expected.json's answer.
if gen_pair dense 20:4:40:3; then
    d=$T/dense
    if $CHECK "$d/full" "$d/sampled" >"$T/check" 2>&1; then pass "dense plan: $(tail -1 "$T/check")"
    else fail "dense plan: estimates vs full collection"; cat "$T/check" >&2; fi
    rtol=$(sed -n 's/.*widest interval \([0-9.]*\) %.*/\1/p' "$T/check" | awk '{print $1 / 100}')
    if python3 "$BR_SOURCE_DIR/tests/cli/check_expected.py" "$d/sampled/expected.json" \
        "$d/sampled/analysis" --rtol "${rtol:-0}" --skip expect_warnings >"$T/exp" 2>&1; then
        pass "dense plan: metrics vs expected.json within +-$rtol ($(tail -1 "$T/exp"))"
    else fail "dense plan: metrics vs expected.json (rtol $rtol)"; head -20 "$T/exp" >&2; fi
fi

# One kernel of 50,000 launches: ~121 profiled, an interval near +-13 %: more
# profiled launches would do (about 161x), fewer than the kernel ran.
if "$GEN" --kernels 1 --launches 50000 --seed 5 --sample 10:50:20:1 "$T/long" >/dev/null 2>&1; then
    expect_exit 0 "long: analyze the sampled run" -- "$BENCHRUN" analyze "$T/long"
    advice "$T/long/analysis/report.md" about "one kernel, 50,000 launches"
    rm -rf "$T/long"
else fail "long: generator failed"; fi

# The stage: rocprofv3 gets the iterations; ROCm 6.2 cannot sample.
fixture=$BR_SOURCE_DIR/tests/fixtures/conf/lammps_hns16812.conf
export BR_FIXTURE_ROOT=$T/lammps
mkdir -p "$T/lammps/build-gfx942" "$T/lammps/examples/hns"
touch "$T/lammps/build-gfx942/lmp" "$T/lammps/examples/hns/"{in.reaxff.hns,data.hns-equil,ffield.reax.hns}
expect_exit 0 "pmc --launches sampled --dry-run" -- "$BENCHRUN" pmc "$fixture" --launches sampled --dry-run
expect_grep "rocprofv3 --pmc .* --kernel-include-regex '?\.\*'? --kernel-iteration-range '?\[1-10,[0-9]+," \
    "$T/out" "rocprofv3 --kernel-iteration-range with the plan's iterations"
expect_grep 'launches: sampled 10:50:20:1 \(--launches\)' "$T/out" "dry run says which launches"
expect_exit 0 "pmc default on AMD" -- "$BENCHRUN" pmc "$fixture" --dry-run
expect_no_grep 'kernel-iteration-range' "$T/out" "AMD default: every launch"
sed -e "s#^ROCM_PATH=.*#ROCM_PATH=$T/rocm62#" "$fixture" >"$T/c62.conf"
echo 'LAUNCHES=sampled' >>"$T/c62.conf"
mkdir -p "$T/rocm62/.info" && echo 6.2.4-120 >"$T/rocm62/.info/version"
expect_exit 1 "LAUNCHES=sampled on ROCm 6.2" -- "$BENCHRUN" pmc "$T/c62.conf" --dry-run
expect_grep 'ROCm 6.3\+' "$T/err" "names the release that can sample"
expect_exit 2 "--launches bad" -- "$BENCHRUN" pmc "$fixture" --launches some --dry-run
echo 'LAUNCHES=most' >>"$T/c62.conf"
expect_exit 1 "LAUNCHES=most" -- "$BENCHRUN" pmc "$T/c62.conf" --dry-run
expect_grep 'LAUNCHES must be auto, all, sampled or sampled:' "$T/err" "conf value checked"
expect_exit 0 "pmc --launches sampled:5:20:3:9 --dry-run" -- "$BENCHRUN" pmc "$fixture" \
    --launches sampled:5:20:3:9 --dry-run
expect_grep "kernel-iteration-range '?\[1-5,[0-9]+," "$T/out" "another plan: its census in the iterations"
expect_grep 'launches: sampled 5:20:3:9' "$T/out" "the dry run names the plan"
expect_exit 1 "pmc --launches sampled:5:0:3:9" -- "$BENCHRUN" pmc "$fixture" --launches sampled:5:0:3:9 --dry-run
expect_grep 'expected sampled:FIRST:EVERY:BLOCKS:SEED' "$T/err" "a bad plan is named"
finish
