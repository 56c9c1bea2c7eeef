#!/usr/bin/env python3
"""gen_selfcheck.py - check gen_rocprof's expected.json against the files it
wrote, with a second, independent implementation (Python, standard library).

usage: gen_selfcheck.py PMC_DIR [PROF_DIR]

Reads every counter_collection / kernel_trace CSV of PMC_DIR (columns by
header name; the Kernel_Name field found from the column count, so commas and
unescaped quotes inside it are fine), sums counters, durations and launches
per pass and kernel (docs/design.md §6: durations once per dispatch, 6.2 durations
joined from the trace on Correlation_Id per file set), takes the clock from
PROF_DIR's telemetry samples inside the union of its kernel intervals (else
GRBM_GUI_ACTIVE / N_XCC / D), recomputes a set of metrics per kernel and for
the whole run, and compares them with expected.json (relative 1e-9). This
guards the generator: a mismatch with `benchrun analyze` is then the engine's
(or a definition to agree on), not the generator's.
"""
import glob
import json
import math
import os
import sys
from collections import defaultdict

N_XCC, N_CU = 8, 304


def rows(path):
    """Yields dicts of one rocprofv3 CSV (header quoted, Kernel_Name free text)."""
    with open(path, newline="") as f:
        lines = f.read().split("\n")
    head = [h.strip('"') for h in lines[0].rstrip("\r").split(",")]
    ik, n = head.index("Kernel_Name"), len(head)
    for ln in lines[1:]:
        ln = ln.rstrip("\r")
        if not ln:
            continue
        left = ln.split(",", ik)
        right = left[ik].rsplit(",", n - ik - 1)
        fields = left[:ik] + right
        assert len(fields) == n, (path, ln)
        yield {h: v.strip('"') if h in ("Kernel_Name", "Counter_Name", "Kind", "Agent_Id")
               else v for h, v in zip(head, fields)}


def read_pass(folder):
    C = defaultdict(lambda: defaultdict(float))    # kernel -> counter -> sum
    D, L = defaultdict(float), defaultdict(int)
    for cc in sorted(glob.glob(folder + "/*_counter_collection.csv")):
        kt = cc.replace("_counter_collection.csv", "_kernel_trace.csv")
        trace = {r["Correlation_Id"]: int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
                 for r in rows(kt)}
        seen = set()
        for r in rows(cc):
            k = r["Kernel_Name"]
            C[k][r["Counter_Name"]] += float(r["Counter_Value"])
            if r["Dispatch_Id"] in seen:
                continue
            seen.add(r["Dispatch_Id"])
            L[k] += 1
            if "Start_Timestamp" in r:
                D[k] += int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
            else:
                D[k] += trace[r["Correlation_Id"]]
    return C, D, L


def power(prof):
    iv, per_kernel = [], defaultdict(int)
    busy = []
    for kt in sorted(glob.glob(prof + "/ktrace_*/*_kernel_trace.csv")):
        spans = sorted((int(r["Start_Timestamp"]), int(r["End_Timestamp"]), r["Kernel_Name"])
                       for r in rows(kt))
        for s, e, k in spans:
            per_kernel[k] += e - s
        merged = []
        for s, e, _ in spans:
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        busy.append(100.0 * sum(e - s for s, e in merged) / (spans[-1][1] - spans[0][0]))
        iv = merged
    clk = []
    for tf in sorted(glob.glob(prof + "/profiling_result_*.csv")):
        with open(tf) as f:
            lines = f.read().split("\n")[2:]
        for ln in lines:
            if ln:
                t, _, _, c = ln.split(",")[:4]
                t = int(t)
                if any(s <= t <= e for s, e in iv):
                    clk.append(float(c))
    return sum(clk) / len(clk), sum(busy) / len(busy), per_kernel


def metrics(c, d, clock):
    """A subset of docs/design.md §14 from per-pass sums c[pass][counter], d[pass]."""
    def r(p, n):
        return c[p][n] / d[p] if d.get(p) and n in c[p] else float("nan")
    cyc = clock / 1000 * N_CU
    m = {}
    P1, P4, P5, P6 = "01_fp64_flops", "04_cu_util", "05_hbm_read", "06_hbm_write"
    m["CU_busy_frac"] = r(P4, "SQ_BUSY_CU_CYCLES") / cyc
    m["VALU_threads"] = r(P4, "SQ_THREAD_CYCLES_VALU") / r(P4, "SQ_ACTIVE_INST_VALU")
    m["waves_per_CU"] = 4 * r(P4, "SQ_WAVE_CYCLES") / cyc
    if P1 in c:
        f = c[P1]
        m["FP64_VALU_FLOP"] = 64 * (f["SQ_INSTS_VALU_ADD_F64"] + f["SQ_INSTS_VALU_MUL_F64"] +
                                    2 * f["SQ_INSTS_VALU_FMA_F64"] + f["SQ_INSTS_VALU_TRANS_F64"])
        m["eff_clock_MHz"] = 1000 * r(P1, "GRBM_GUI_ACTIVE") / N_XCC
    if P5 in c:
        b, q, q32 = c[P5]["TCC_BUBBLE_sum"], c[P5]["TCC_EA0_RDREQ_sum"], c[P5]["TCC_EA0_RDREQ_32B_sum"]
        m["mem_read_bytes"] = 128 * b + 64 * (q - b - q32) + 32 * q32
        m["read_BW_TBps"] = m["mem_read_bytes"] / d[P5] / 1000
    if P6 in c:
        w, w64 = c[P6]["TCC_EA0_WRREQ_sum"], c[P6]["TCC_EA0_WRREQ_64B_sum"]
        m["mem_write_bytes"] = 32 * (w - w64) + 64 * w64
    return m


def main():
    pmc = sys.argv[1]
    prof = sys.argv[2] if len(sys.argv) > 2 else None
    exp = json.load(open(pmc + "/expected.json"))
    names = [p["name"] for p in json.load(open(pmc + "/counters.json"))["passes"]]
    data = {p: read_pass(pmc + "/" + p) for p in names if os.path.isdir(pmc + "/" + p)}
    bad, n = [], 0

    def cmp(where, name, want, got):
        nonlocal n
        if want is None or (isinstance(got, float) and math.isnan(got)):
            return
        n += 1
        if abs(got - want) > 1e-9 * abs(want) + 1e-9:
            bad.append("%s %s: expected.json %.12g, recomputed %.12g" % (where, name, want, got))

    clock = busy = None
    if prof:
        clock, busy, unprof = power(prof)
        cmp("whole run", "GPU_busy_pct", exp["whole_run"].get("GPU_busy_pct"), busy)
        cmp("clock", "clock_MHz", exp["clock"]["clock_MHz"], clock)
    tot_c = defaultdict(lambda: defaultdict(float))
    tot_d = defaultdict(float)
    for k in exp["kernels"]:
        name = k["kernel_full_name"]
        c = {p: data[p][0][name] for p in data}
        d = {p: data[p][1][name] for p in data}
        for p in data:
            for cn, v in c[p].items():
                tot_c[p][cn] += v
            tot_d[p] += d[p]
        cmp(name[:30], "time_ms", k["time_ms"], sum(d.values()) / len(d) / 1e6)
        # the seed's launches: the pass collecting SQ_WAVE_CYCLES (04_cu_util)
        lp = "04_cu_util" if "04_cu_util" in data else next(iter(data))
        cmp(name[:30], "launches", k["launches"], data[lp][2][name])
        cmp(name[:30], "mean_launch_us", k["mean_launch_us"], d[lp] / 1e3 / data[lp][2][name])
        kclock = clock if clock else 1000 * c["01_fp64_flops"]["GRBM_GUI_ACTIVE"] / N_XCC / d["01_fp64_flops"]
        for mn, v in metrics(c, d, kclock).items():
            cmp(name[:30], mn, k.get(mn), v)
        if prof:
            cmp(name[:30], "unprof_time_ms", k["unprof_time_ms"], unprof[name] / 1e6)
    wclock = clock if clock else exp["whole_run"]["clock_MHz_used"]
    for mn, v in metrics(tot_c, tot_d, wclock).items():
        cmp("whole run", mn, exp["whole_run"].get(mn), v)
    for b in bad[:30]:
        print("MISMATCH:", b)
    print("%d values recomputed, %d mismatches" % (n, len(bad)))
    return 1 if bad or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
