#!/bin/bash
# 0324-analyze-resample: `analyze --resample PLAN` reads a run with every
# launch profiled as if only the plan's launches had been. Known answer: the
# generator (tests/tools/gen_rocprof, one seed) writes the same run with every
# launch's counter rows and with --sample PLAN (only the plan's rows); the
# resampled full run must give the sampled run's launch_sampling.csv byte for
# byte (same ranks, same estimator, same intervals), with and without
# parameter-keyed units. A pass of the CUPTI library (its *_cupti.json beside
# it) is resampled per signature and scales every counter by launches; a
# sampled run is read as it is; a bad plan is a usage error.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
opts=(--kernels 5 --launches 1200 --seed 11)
plan=10:50:20:3

same_as_sampled() {   # same_as_sampled NAME GEN_OPTS...: resampled full == sampled
    local name=$1 d=$T/$1; shift
    "$GEN" "${opts[@]}" "$@" "$d/full" >/dev/null 2>&1 &&
        "$GEN" "${opts[@]}" "$@" --sample "$plan" "$d/sampled" >/dev/null 2>&1 ||
        { fail "$name: generator failed"; return 1; }
    expect_exit 0 "$name: analyze the sampled run" -- "$BENCHRUN" analyze "$d/sampled"
    expect_exit 0 "$name: analyze --resample the full run" -- \
        "$BENCHRUN" analyze "$d/full" --resample "$plan" -o "$d/resampled"
    if cmp -s "$d/sampled/analysis/launch_sampling.csv" "$d/resampled/launch_sampling.csv"; then
        pass "$name: launch_sampling.csv is the sampled run's ($(wc -l <"$d/resampled/launch_sampling.csv") lines)"
    else
        fail "$name: resampled estimates differ from the sampled run's"
        diff "$d/sampled/analysis/launch_sampling.csv" "$d/resampled/launch_sampling.csv" | head -4 >&2
    fi
}

same_as_sampled kernel
same_as_sampled units --units
d=$T/kernel
expect_grep '^- launches: every launch profiled, read in 6 of 6 passes as if only' \
    "$d/resampled/report.md" "report.md says the run was resampled"
expect_exit 0 "analyze the full run without --resample" -- "$BENCHRUN" analyze "$d/full"
expect_grep '^- launches: all \(counters on every launch\)' "$d/full/analysis/report.md" \
    "without --resample the full run is read as it is"
python3 - "$d/resampled/launch_sampling.csv" <<'PY' && pass "rocprofv3 passes: elapsed cycles by time" \
    || fail "rocprofv3 passes: estimators"
import csv, sys
est = {r["estimator"] for r in csv.DictReader(open(sys.argv[1]))}
sys.exit(0 if {"time", "launches"} <= est else 1)
PY

# the CUPTI library's passes: per signature, every counter scaled by launches
cp -r "$d/full" "$d/cupti"
for p in "$d"/cupti/*/; do
    ls "$p"/*_counter_collection.csv >/dev/null 2>&1 || continue
    echo '{"tool": "libbenchrun-cupti", "metrics": []}' >"$p/$(basename "$p")_1_cupti.json"
done
expect_exit 0 "CUPTI layout: analyze --resample" -- \
    "$BENCHRUN" analyze "$d/cupti" --resample sampled -o "$d/cupti_rs"
python3 - "$d/cupti_rs/launch_sampling.csv" <<'PY' && pass "CUPTI passes: no estimate by time" \
    || fail "CUPTI passes: an estimate by time"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if rows and all(r["estimator"] in ("launches", "all") for r in rows) else 1)
PY

# a user-range pass's range offset (its *_cupti.json): offset_bound is the
# kernel's launches x the offset, for that pass's counter only; the sampling
# interval is unchanged
first=$(ls -d "$d"/cupti/*/ | while read -r p; do ls "$p"/*_counter_collection.csv >/dev/null 2>&1 && { basename "$p"; break; }; done)
ctr=$(python3 -c 'import csv,sys; print(next(r["counter"] for r in csv.DictReader(open(sys.argv[1])) if r["pass"] == sys.argv[2]))' \
    "$d/cupti_rs/launch_sampling.csv" "$first")
printf '{"tool": "libbenchrun-cupti", "range_offset": {"empty_ranges": 3, "contexts": [{"offset": {"%s": 1000.5, "other.sum": 7}}]}}\n' \
    "$ctr" >"$d/cupti/$first/${first}_1_cupti.json"
expect_exit 0 "CUPTI layout with a range offset: analyze --resample" -- \
    "$BENCHRUN" analyze "$d/cupti" --resample sampled -o "$d/cupti_off"
python3 - "$d/cupti_rs/launch_sampling.csv" "$d/cupti_off/launch_sampling.csv" "$first" "$ctr" <<'PY' \
    && pass "offset_bound: launches x the range offset, that pass and counter only" \
    || fail "offset_bound"
import csv, sys
base, off = (list(csv.DictReader(open(f))) for f in sys.argv[1:3])
npass, ctr = sys.argv[3], sys.argv[4]
assert len(base) == len(off) and base
hit = 0
for b, o in zip(base, off):
    assert b["ci95_half"] == o["ci95_half"] and b["value"] == o["value"], (b, o)
    assert float(b["offset_bound"]) == 0
    want = int(o["launches"]) * 1000.5 if (o["pass"], o["counter"]) == (npass, ctr) else 0
    assert float(o["offset_bound"]) == want, (o, want)
    hit += want > 0
assert hit > 0
PY

# a sampled run stays as it was sampled
expect_exit 0 "a sampled run with --resample" -- \
    "$BENCHRUN" analyze "$T/kernel/sampled" --resample 10:5:1:9 -o "$T/kept"
cmp -s "$T/kept/launch_sampling.csv" "$T/kernel/sampled/analysis/launch_sampling.csv" &&
    pass "a sampled run: its own plan kept" || fail "a sampled run was resampled"

expect_exit 2 "a bad plan" -- "$BENCHRUN" analyze "$d/full" --resample 10:0:20:1 -o "$T/bad"
expect_grep "resample: sampled or FIRST:EVERY:BLOCKS:SEED, not '10:0:20:1'" "$T/err" \
    "the usage error names the option and the value"
finish
