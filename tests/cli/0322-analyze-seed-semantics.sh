#!/bin/bash
# 0322-analyze-seed-semantics: each of the seed's analyze definitions on its
# own, on the seed-layout run of tests/fixtures/seed-reference,
# with the answers computed here from the raw CSVs (tests/cli/seed_raw.py),
# not from benchrun's outputs:
#   --power-ktrace alone finds the power run's telemetry (folder or one CSV);
#   --telemetry A B PMC_DIR (several files after one flag);
#   --perf-regex: the seed's LAMMPS default, group 1 = lammps_loop_time_s,
#     log.* before *.txt, a pattern without a group gives null;
#   --top N: N rows by counter-pass time and the "M more kernels" line;
#   per_kernel_metrics.csv: TOTAL first, rows by counter-pass time, the
#     counter-pass share, launches and mean_launch_us of pass 04_cu_util,
#     eff_clock_MHz of pass 1, top_share_pct / cum_share_pct, the TOTAL
#     waves limit weighted by pass-4 time, TFLOPs_lowp_MFMA 0;
#   summary.json: checks.passes[] keys and values, the spread (max-min)/min,
#     power_run spans, clock.sampled counts and percentiles.
. "$(dirname "$0")/lib.sh"
tar -xJf "$BR_SOURCE_DIR/tests/fixtures/seed-reference/seed-reference.tar.xz" -C "$T" \
    seed-reference/pmc-900001 seed-reference/prof-900002 || { fail "cannot unpack"; finish; }
cd "$T/seed-reference" || { fail "no folder"; finish; }
RAW="python3 $BR_SOURCE_DIR/tests/cli/seed_raw.py"

expect_exit 0 "--power-ktrace FOLDER alone" -- "$BENCHRUN" analyze pmc-900001 \
    --power-ktrace prof-900002/ktrace_synth --out-dir "$T/a" --top 5
expect_no_grep "GRBM|fallback" "$T/err" "no clock fallback"
kt=$(ls prof-900002/ktrace_synth/*_kernel_trace.csv | head -1)
expect_exit 0 "--power-ktrace CSV alone" -- "$BENCHRUN" analyze pmc-900001 --power-ktrace "$kt" \
    --out-dir "$T/b"
expect_exit 0 "--telemetry A B before PMC_DIR" -- "$BENCHRUN" analyze --power-ktrace \
    prof-900002/ktrace_synth --telemetry prof-900002/profiling_result_synth_0.csv \
    prof-900002/profiling_result_synth_1.csv pmc-900001 --out-dir "$T/c"
expect_exit 2 "--telemetry without a file" -- "$BENCHRUN" analyze pmc-900001 --telemetry
if $RAW check pmc-900001 prof-900002 "$T/a" "$T/c" >"$T/check" 2>&1; then
    pass "every value recomputed from the raw files ($(tail -1 "$T/check"))"
else
    fail "values differ from the raw files"; sed 's/^/  | /' "$T/check" >&2
fi
python3 - "$T/a/summary.json" "$T/b/summary.json" <<'PY' && pass "one CSV of the trace: its power run's telemetry too" || fail "--power-ktrace CSV"
import json, sys
a, b = (json.load(open(f))["clock"] for f in sys.argv[1:])
assert b["sampled"]["files"] == a["sampled"]["files"] and len(a["sampled"]["files"]) == 2
PY

# --top 5: five rows, then the rest's share of the counter-pass time
expect_grep '^## Top 5 kernels by GPU time$' "$T/a/report.md" "Top 5 heading"
rows=$(sed -n '/^## Top 5 kernels/,/^## /p' "$T/a/report.md" | grep -c '^| [^-K]')
[ "$rows" = 5 ] && pass "five kernel rows" || fail "rows: $rows"
more=$($RAW rest pmc-900001 5)
expect_grep "^11 more kernels: $more% of GPU time\.$" "$T/a/report.md" "the N-more line ($more%)"

# --perf-regex: a log.* file wins over *.txt; group 1 in seconds; no group
printf 'Loop time of 12.5 on 2 procs\n' >pmc-900001/01_fp64_flops/log.lammps
expect_exit 0 "default --perf-regex with a log.lammps" -- "$BENCHRUN" analyze pmc-900001 \
    --out-dir "$T/p"
python3 - "$T/p/summary.json" <<'PY' && pass "lammps_loop_time_s: log.lammps in pass 1, rocprof txt in the others" || fail "lammps_loop_time_s"
import json, sys
p = json.load(open(sys.argv[1]))["checks"]["passes"]
assert [x["lammps_loop_time_s"] for x in p] == [12.5] + [0.0533] * 5, [x["lammps_loop_time_s"] for x in p]
assert p[0]["perf"] == "Loop time of 12.5 on 2 procs"
PY
expect_exit 0 "--perf-regex without a group" -- "$BENCHRUN" analyze pmc-900001 \
    --power-ktrace prof-900002/ktrace_synth --perf-regex 'Total wall time' --out-dir "$T/q"
python3 - "$T/q/summary.json" <<'PY' && pass "no group: the line is kept, the seconds are null" || fail "no-group regex"
import json, sys
p = json.load(open(sys.argv[1]))["checks"]["passes"]
assert all(x["lammps_loop_time_s"] is None and x["perf"].startswith("Total wall time") for x in p)
PY
expect_grep '\| 01_fp64_flops \| 2 / 2 \| 1000 \| 0, 0.000% \| 0.085 \| 2089 \| 4.7% \| - \|' \
    "$T/q/report.md" "Data checks row: App time - without seconds"
finish
