#!/bin/bash
# 0313-analyze-golden: `benchrun analyze` on one small generated run (5
# kernels, agent_info, power run, a pass output with a timing line) matches
# the golden files in tests/fixtures/golden/analyze/ (paths normalized to
# @T@ and @SRC@; BR_UPDATE_GOLDEN=1 rewrites them); options: --out-dir,
# --top, --top-n, --clock-mhz, --latency-pct, --telemetry without a trace,
# --perf-regex; usage errors exit 2, unreadable input exits 1.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
golden=$BR_SOURCE_DIR/tests/fixtures/golden/analyze
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
"$GEN" --kernels 5 --launches 60 --agent-info --seed 11 --power "$T/prof" "$T/pmc" >/dev/null \
    || { fail "generator failed"; finish; }
printf 'step 1\nPerformance: 12.5 ns/day\nPerformance: 12.75 ns/day\n' \
    >"$T/pmc/01_fp64_flops/rocprof.01_fp64_flops.txt"

expect_exit 0 "analyze small run" -- "$BENCHRUN" analyze "$T/pmc" --power "$T/prof" \
    --perf-regex 'Performance: [0-9.]+' --top 3
expect_grep "report: .*/pmc/analysis/report.md" "$T/out" "prints where report.md is"
norm() { sed -e "s|$T|@T@|g" -e "s|$BR_BINARY_DIR|@BIN@|g" -e "s|$BR_SOURCE_DIR|@SRC@|g" "$1"; }
for f in per_kernel_metrics.csv top_kernels.csv summary.json report.md; do
    norm "$T/pmc/analysis/$f" >"$T/$f"
    if [ -n "${BR_UPDATE_GOLDEN:-}" ]; then mkdir -p "$golden"; cp "$T/$f" "$golden/$f"; fi
    if diff -u "$golden/$f" "$T/$f" >"$T/diff"; then pass "$f matches golden"
    else fail "$f differs from golden"; head -30 "$T/diff" >&2; fi
done
expect_grep '12\.75 ns/day' "$T/pmc/analysis/report.md" "perf line: last match shown"
expect_grep 'Max_Engine_Clk_Fcompute' "$T/pmc/analysis/report.md" "agent_info constants named"

# --out-dir, --top-n 2, --clock-mhz: 2 top kernels + TOTAL, clock used = 1234
expect_exit 0 "--top-n 2 --clock-mhz 1234 --out-dir" -- "$BENCHRUN" analyze "$T/pmc" \
    --power "$T/prof" --top-n 2 --clock-mhz 1234 --out-dir "$T/o2"
[ "$(wc -l <"$T/o2/top_kernels.csv")" -eq 4 ] && pass "top_kernels.csv: header + 2 + TOTAL" \
    || fail "top_kernels.csv rows: $(wc -l <"$T/o2/top_kernels.csv")"
python3 - "$T/o2/summary.json" <<'PY' && pass "clock override in summary.json" || fail "clock override"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["clock"]["clock_MHz"] == 1234 and s["clock"]["source"].startswith("override")
assert s["whole_run"]["clock_MHz_used"] == 1234
assert abs(s["clock"]["sampled"]["clock_MHz"] - 1700) < 40
assert len(s["top_kernels"]) == 2
PY
# --latency-pct 100: every labelled kernel is latency bound
expect_exit 0 "--latency-pct 100" -- "$BENCHRUN" analyze "$T/pmc" --latency-pct 100 --out-dir "$T/o3"
python3 - "$T/o3/per_kernel_metrics.csv" <<'PY' && pass "latency-pct 100: all latency" || fail "bound labels"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert all(r["bound_mix"] in ("latency", "") for r in rows), [r["bound_mix"] for r in rows]
PY
# telemetry without a kernel trace: warning, GRBM fallback
tel=$(ls "$T"/prof/profiling_result_*.csv | head -1)
expect_exit 0 "--telemetry without trace" -- "$BENCHRUN" analyze "$T/pmc" --telemetry "$tel" --out-dir "$T/o4"
expect_grep "without a power-run kernel trace" "$T/err" "telemetry without trace: warned"
expect_grep "GRBM" "$T/o4/report.md" "fallback clock named in the report"

# agent_info overrides the profile: Num_Xcc 1 (CPX partition) gives 8x the
# effective clock; the report names the column
cp -r "$T/pmc" "$T/cpx"; rm -rf "$T/cpx/analysis"
for f in "$T"/cpx/*/*_agent_info.csv; do sed -i 's/"GPU",1216,8,64,64,8,/"GPU",1216,8,64,64,1,/' "$f"; done
expect_exit 0 "agent_info Num_Xcc 1" -- "$BENCHRUN" analyze "$T/cpx" --clock-mhz 1700
python3 - "$T/cpx/analysis/summary.json" <<'PY' && pass "Num_Xcc from agent_info: 8x eff clock" || fail "agent_info override"
import json, sys
s = json.load(open(sys.argv[1]))
assert abs(s["whole_run"]["eff_clock_MHz"] - 8 * 1700) < 1, s["whole_run"]["eff_clock_MHz"]
assert s["arch"]["constants"]["N_XCC"]["value"] == 1
assert "Num_Xcc" in s["arch"]["constants"]["N_XCC"]["source"]
PY
expect_grep "N_XCC = 1 \(agent_info Num_Xcc" "$T/cpx/analysis/report.md" "report names the agent_info constant"
# a power folder without a kernel trace: warning, shares from the passes
mkdir -p "$T/prof-notrace"; cp "$T"/prof/profiling_result_*.csv "$T/prof-notrace/"
expect_exit 0 "power run without kernel trace" -- "$BENCHRUN" analyze "$T/pmc" --power "$T/prof-notrace" --out-dir "$T/o5"
expect_grep "no \*kernel_trace.csv" "$T/err" "missing power trace: warned"

# the seed's --power-ktrace (one CSV) + --telemetry give the same clock and
# shares as --power PROF_DIR; --progress reports the steps
kt=$(ls "$T"/prof/ktrace_*/*_kernel_trace.csv | head -1)
expect_exit 0 "--power-ktrace CSV --telemetry CSV --progress" -- "$BENCHRUN" analyze "$T/pmc" \
    --power-ktrace "$kt" --telemetry "$tel" --progress --out-dir "$T/o6"
expect_grep "analyze: metrics" "$T/err" "--progress shows the steps"
python3 - "$T/pmc/analysis/summary.json" "$T/o6/summary.json" <<'PY' && pass "same clock and shares" || fail "--power-ktrace/--telemetry differ from --power"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["clock"]["clock_MHz"] == b["clock"]["clock_MHz"]
assert a["whole_run"]["unprof_time_ms"] == b["whole_run"]["unprof_time_ms"]
assert [k["time_share_pct"] for k in a["top_kernels"]] == [k["time_share_pct"] for k in b["top_kernels"]]
PY

expect_exit 2 "no PMC_DIR" -- "$BENCHRUN" analyze
expect_exit 2 "bad --top" -- "$BENCHRUN" analyze "$T/pmc" --top 0
expect_exit 2 "bad --clock-mhz" -- "$BENCHRUN" analyze "$T/pmc" --clock-mhz abc
expect_exit 2 "unknown option" -- "$BENCHRUN" analyze "$T/pmc" --bogus
expect_exit 1 "missing folder" -- "$BENCHRUN" analyze "$T/nope"
expect_exit 2 "bad --perf-regex" -- "$BENCHRUN" analyze "$T/pmc" --perf-regex '('
expect_exit 1 "unknown arch" -- "$BENCHRUN" analyze "$T/pmc" --arch gfx000
expect_exit 0 "--help" -- "$BENCHRUN" analyze --help
expect_grep "perf-regex RE" "$T/out" "help lists --perf-regex"
finish
