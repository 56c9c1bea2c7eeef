#!/bin/bash
# 0332-analyze-copies: memory copies through analyze. A generated pmc + power
# run gets the copy trace of tests/fixtures/nvidia/copy-step (shaped like the
# H200's copy_step.py 1 6, docs/validation.md §8: 6 device copies of 1 GiB in
# 3.021 ms, 1 GiB H2D and D2H of 19.4 ms, a 1 GiB set of 0.232 ms) beside the
# power run's kernel trace, on the trace's GPU and inside its kernel window.
# summary.json must report exactly those bytes and times per direction, GPU
# busy % must be the union of kernels and copies (computed here from the two
# files), report.md and report.html must show them; the same file in a pass
# folder is reported when the power run has none.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
FIX=$BR_SOURCE_DIR/tests/fixtures/nvidia/copy-step/memory_copy_trace.csv
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
"$GEN" --kernels 4 --launches 40 --seed 5 --power "$T/prof" "$T/pmc" >/dev/null \
    || { fail "generator failed"; finish; }
KT=$T/prof/ktrace_gen/10000_kernel_trace.csv
# the fixture on the trace's agent, shifted to start 1 us after the first kernel
python3 - "$KT" "$FIX" "$T/prof/ktrace_gen/10000_memory_copy_trace.csv" <<'PY'
import csv, sys
kt, fix, out = sys.argv[1:]
k = list(csv.DictReader(open(kt)))
agent = k[0]["Agent_Id"]
t0 = min(int(r["Start_Timestamp"]) for r in k) + 1000
rows = list(csv.reader(open(fix)))
h = rows[0]
s, e = h.index("Start_Timestamp"), h.index("End_Timestamp")
c0 = int(rows[1][s])
with open(out, "w") as f:
    f.write(",".join('"%s"' % x for x in h) + "\n")
    for r in rows[1:]:
        r[s], r[e] = str(int(r[s]) - c0 + t0), str(int(r[e]) - c0 + t0)
        r = [agent if x == "Agent 0" else x for x in r]
        f.write(",".join(x if x.isdigit() else '"%s"' % x for x in r) + "\n")
PY
expect_exit 0 "analyze --power with a copy trace" -- "$BENCHRUN" analyze "$T/pmc" --power "$T/prof" \
    --out-dir "$T/a"
python3 - "$T/a/summary.json" "$KT" "$T/prof/ktrace_gen/10000_memory_copy_trace.csv" <<'PY' \
    && pass "bytes and time per direction exact, GPU busy is kernels ∪ copies" \
    || fail "copies in summary.json"
import csv, json, sys
j = json.load(open(sys.argv[1]))
c = j["copies"]
assert c["source"] == "power run", c["source"]
d = c["by_direction"]
G = 1 << 30
# docs/validation.md §8, exactly
want = {"D2D": (6, 6 * G, 0.003021), "H2D": (1, G, 0.0194), "D2H": (1, G, 0.0194), "set": (1, G, 0.000232),
        "P2P": (0, 0, 0.0), "H2H": (0, 0, 0.0)}
for k, (n, b, t) in want.items():
    got = d[k]
    assert got["copies"] == n and got["bytes"] == b and got["copies_without_bytes"] == 0, (k, got)
    assert abs(got["time_s"] - t) < 1e-15, (k, got["time_s"], t)
assert c["copies"] == 9 and c["bytes"] == 9 * G and abs(c["time_s"] - 0.042053) < 1e-15, c
assert abs(d["D2D"]["GB_per_s"] - 6 * G / 3021000) < 1e-9, d["D2D"]
assert c["files"][0]["layout"] == "7.x + Bytes (benchrun CUPTI, 9 cols)", c["files"]
# GPU busy: union per GPU (one trace file, one agent) of kernels and copies
iv = lambda rows: sorted((int(r["Start_Timestamp"]), int(r["End_Timestamp"])) for r in rows)
def union(v):
    tot, cs, ce = 0, None, None
    for s, e in sorted(v):
        if cs is None or s > ce:
            if cs is not None:
                tot += ce - cs
            cs, ce = s, e
        else:
            ce = max(ce, e)
    return tot + (ce - cs)
k, m = iv(csv.DictReader(open(sys.argv[2]))), iv(csv.DictReader(open(sys.argv[3])))
span = max(e for _, e in k + m) - min(s for s, _ in k + m)
p = j["power_run"]
assert p["gpus"] == 1 and p["copies"] == 9, p
assert abs(p["GPU_busy_pct"] - 100.0 * union(k + m) / span) < 1e-9, (p["GPU_busy_pct"], union(k + m), span)
assert abs(p["GPU_busy_pct_kernels"] - 100.0 * union(k) / span) < 1e-9, p
assert abs(p["copy_busy_s"] - union(m) / 1e9) < 1e-15, p
assert abs(p["span_s"] - span / 1e9) < 1e-15, p
assert p["GPU_busy_pct"] > p["GPU_busy_pct_kernels"], p
PY
expect_grep '^## benchrun: memory copies and sets' "$T/a/report.md" "report.md: the copies section"
expect_grep '^\| D2D \| 6 \| 6442450944 \| 6\.000 \| 3\.021000 \| 2132\.6 \|$' "$T/a/report.md" \
    "report.md: the device copies' row (6 GiB, 3.021 ms, GB/s)"
expect_grep '^\| all \| 9 \| 9663676416 \| 9\.000 \| 42\.053000 \|' "$T/a/report.md" "report.md: all copies"
expect_grep "Memory copies and sets: 9, counted in GPU busy" "$T/a/report.md" \
    "report.md: the power-run section says copies count in GPU busy"
expect_grep "class='copy'" "$T/a/report.html" "report.html: a copy band in the timeline"
expect_grep "class='busy'" "$T/a/report.html" "report.html: the kernel band stays"

# no power run: the pass folder's copies
cp "$T/prof/ktrace_gen/10000_memory_copy_trace.csv" "$T/pmc/04_cu_util/04_cu_util_memory_copy_trace.csv"
expect_exit 0 "analyze, copies in a pass folder only" -- "$BENCHRUN" analyze "$T/pmc" --out-dir "$T/b"
python3 - "$T/b/summary.json" <<'PY' && pass "copies from the counter pass" || fail "pass copies"
import json, sys
c = json.load(open(sys.argv[1]))["copies"]
assert c["source"] == "04_cu_util" and c["bytes"] == 9 << 30, c
assert [p["pass"] for p in c["per_pass"]] == ["04_cu_util"], c["per_pass"]
PY
# without any copy trace: null, and report.md says so
rm "$T/pmc/04_cu_util/04_cu_util_memory_copy_trace.csv" "$T/prof/ktrace_gen/10000_memory_copy_trace.csv"
expect_exit 0 "analyze without copies" -- "$BENCHRUN" analyze "$T/pmc" --power "$T/prof" --out-dir "$T/c"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["copies"] is None and j["power_run"]["copies"] == 0 and j["power_run"]["GPU_busy_pct"] == j["power_run"]["GPU_busy_pct_kernels"]' \
    "$T/c/summary.json" && pass "no copies: null, busy = kernels" || fail "no copies"
expect_grep 'No memory copy or set' "$T/c/report.md" "report.md says there were none"
finish
