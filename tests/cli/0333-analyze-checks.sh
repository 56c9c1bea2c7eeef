#!/bin/bash
# 0333-analyze-checks: data checks on a GEMM run shaped like a real MI300X
# run (tests/fixtures/amd/gemm-clock: 301 dispatches, counter mode's 14k-18k
# GRBM cycles per launch): the pass clock reads ~2234 MHz, over the 1000-2200
# MHz window, but the long GEMMs read ~2110 and no clock warning is given;
# a real mismatch (the run at 1300 MHz against --clock-mhz 2100) warns and
# names the GEMM. Then: a kernel missing from a pass is named with the pass,
# the NVIDIA collector's companion JSON says which launches lack counters and
# why, and constant fields among the counter rows are not counters.
. "$(dirname "$0")/lib.sh"
GEN="python3 $BR_SOURCE_DIR/tests/fixtures/amd/gemm-clock/gen.py"
$GEN "$T/run" || { fail "generator failed"; finish; }
expect_exit 0 "analyze the GEMM run" -- "$BENCHRUN" analyze "$T/run" --clock-mhz 2100 -o "$T/a"
python3 - "$T/run" "$T/a/summary.json" <<'PY' && pass "no clock warning; the pass clock as the seed's, the judged one on the GEMMs" || fail "clock check on the GEMM run"
import csv, json, sys
run, js = sys.argv[1:]
j = json.load(open(js))
assert not [w for w in j["checks"]["warnings"] if "effective clock" in w], j["checks"]["warnings"]
for p in j["checks"]["passes"]:
    rows = list(csv.DictReader(open("%s/%s/%s_counter_collection.csv" % (run, p["pass"], p["pass"]))))
    g = [r for r in rows if r["Counter_Name"] == "GRBM_GUI_ACTIVE"]
    dur = lambda r: int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
    raw = 1000 * sum(float(r["Counter_Value"]) for r in g) / 8 / sum(dur(r) for r in g)
    long_ = [r for r in g if float(r["Counter_Value"]) / 8 >= 600000]   # cycles per launch
    judged = 1000 * sum(float(r["Counter_Value"]) for r in long_) / 8 / sum(dur(r) for r in long_)
    assert raw > 2200 and abs(p["eff_clock_MHz"] - raw) < 1e-6 * raw, (p["eff_clock_MHz"], raw)
    assert abs(p["clock_judged_MHz"] - judged) < 1e-6 * judged, (p["clock_judged_MHz"], judged)
    assert p["clock_judged_on"] == "long kernels" and p["clock_judged_kernels"] == 1, p
    assert len(long_) == 20 and len(g) == 301
PY
expect_grep '^\| 01_gemm \| yes \| .* \| 2234 \| 2110 \(long kernels: 1\) \|' "$T/a/report.md" \
    "report.md per-pass details: both clocks"

$GEN "$T/slow" --clock 1300
expect_exit 0 "analyze the run at 1300 MHz" -- "$BENCHRUN" analyze "$T/slow" --clock-mhz 2100 -o "$T/b"
expect_grep 'pass 01_gemm: effective clock 1310 MHz \(GRBM_GUI_ACTIVE / N_XCC\) is outside 0\.8-2\.0x the clock used \(2100 MHz\) \(clock mismatch between the power run and the PMC runs\?\): Cijk_Alik_Bljk_BBS_BH_MT256x256x64_MI16x16x16x1_SN_1LDSB1 1310 MHz \(1600\.0 us per launch\); judged on its 1 kernel\(s\) with launches of at least 600k cycles' \
    "$T/b/report.md" "a real mismatch warns and names the GEMM"

# the fill kernel missing from pass 04_cu_util; a companion JSON; CU_NUM rows
python3 - "$T/run" <<'PY'
import sys
run = sys.argv[1]
for f in ("04_cu_util/04_cu_util_counter_collection.csv", "04_cu_util/04_cu_util_kernel_trace.csv"):
    p = "%s/%s" % (run, f)
    lines = open(p).read().splitlines(True)
    open(p, "w").write("".join(l for l in lines if "FillFunctor" not in l))
p = "%s/01_gemm/01_gemm_counter_collection.csv" % run
lines = open(p).read().splitlines(True)
extra = [l.replace('"GRBM_GUI_ACTIVE"', '"CU_NUM"').rsplit(",", 3)[0] for l in lines[1:] if '"GRBM_GUI_ACTIVE"' in l]
tail = [l.rsplit(",", 3)[1:] for l in lines[1:] if '"GRBM_GUI_ACTIVE"' in l]
rows = ["%s,304.000000,%s,%s" % (a, t[1], t[2]) for a, t in zip(extra, tail)]
open(p, "a").write("".join(rows))
open("%s/01_gemm/01_gemm_4242_cupti.json" % run, "w").write(
    '{"tool": "libbenchrun-cupti", "launches_dropped": 3, "launches_captured": 0, '
    '"error": "cuptiProfilerEndPass: CUPTI_ERROR_UNKNOWN"}\n')
PY
expect_exit 0 "analyze with a kernel missing from a pass" -- "$BENCHRUN" analyze "$T/run" --clock-mhz 2100 -o "$T/c"
python3 - "$T/c/summary.json" <<'PY' && pass "the missing kernel, the collector's note, CU_NUM not a counter" || fail "pass checks"
import json, sys
j = json.load(open(sys.argv[1]))
c = j["checks"]
m = c["kernels_missing_from_passes"]
assert c["kernels_missing_from_passes_count"] == 1 and m[0]["missing_from"] == ["04_cu_util"], m
assert "FillFunctor" in m[0]["kernel_full_name"], m
w = [x for x in c["warnings"] if "missing from some passes" in x]
assert len(w) == 1 and "(not in 04_cu_util)" in w[0] and w[0].startswith("1 kernel(s)"), w
w = [x for x in c["warnings"] if x.startswith("pass 01_gemm: the collector")]
assert w == ["pass 01_gemm: the collector (libbenchrun-cupti, 1 process file(s)) could not profile 3 "
             "launch(es): 3 dropped (a profiler call failed); first error: cuptiProfilerEndPass: "
             "CUPTI_ERROR_UNKNOWN"], c["warnings"]
ins = j["inputs"]["passes"]
assert ins[0]["constant_fields"] == ["CU_NUM"] and ins[1]["constant_fields"] == [], ins
assert not [x for x in c["warnings"] if "CU_NUM" in x], c["warnings"]
assert not [x for x in c["warnings"] if "effective clock" in x], c["warnings"]
PY
expect_grep '^- pass 01_gemm: CU_NUM: constant fields of the GPU, not counters' "$T/c/report.md" \
    "report.md inputs name the constant field"
finish
