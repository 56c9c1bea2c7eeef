#!/usr/bin/env python3
"""seed_raw.py - the seed's analyze definitions recomputed from the raw files
of a seed-layout run (tests/fixtures/seed-reference), independently of
benchrun's code: standard library only, CSVs read by header name.

usage: seed_raw.py check PMC_DIR PROF_DIR OUT_A OUT_C
       seed_raw.py rest PMC_DIR N

check: OUT_A is `benchrun analyze PMC_DIR --power-ktrace PROF_DIR/ktrace_*`,
OUT_C the same with the telemetry files given by --telemetry; compares
per_kernel_metrics.csv, top_kernels.csv and summary.json with the values
computed here (relative 1e-9), prints every mismatch, exit 1 if any.
rest: the counter-pass time share (%.1f) of the kernels after the first N by
counter-pass time (report.md's "M more kernels" line).
"""
import csv
import glob
import json
import math
import os
import re
import sys
from collections import defaultdict

N_XCC = 8


def close(a, b, rel=1e-9):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def passes(pmc):
    return [p["name"] for p in json.load(open(os.path.join(pmc, "counters.json")))["passes"]]


def read_pass(d):
    """Per kernel: time (ns, once per launch), launches, counter sums; and the
    pass's files, GPUs (file, agent), trace dispatches."""
    t, n, c = defaultdict(float), defaultdict(int), defaultdict(lambda: defaultdict(float))
    files = sorted(glob.glob(os.path.join(d, "*_counter_collection.csv")))
    gpus, seen = set(), set()
    for f in files:
        for r in csv.DictReader(open(f, newline="")):
            k = r["Kernel_Name"]
            key = (f, r["Dispatch_Id"])
            gpus.add((f, r["Agent_Id"]))
            if key not in seen:
                seen.add(key)
                t[k] += int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
                n[k] += 1
            c[k][r["Counter_Name"]] += float(r["Counter_Value"])
    traced = sum(1 for f in glob.glob(os.path.join(d, "*_kernel_trace.csv"))
                 for _ in csv.DictReader(open(f, newline="")))
    return {"t": t, "n": n, "c": c, "files": len(files), "gpus": len(gpus), "traced": traced}


def merge(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def read_power(prof):
    u = defaultdict(float)
    per_gpu = defaultdict(list)
    for f in sorted(glob.glob(os.path.join(prof, "ktrace_*", "*_kernel_trace.csv"))):
        for r in csv.DictReader(open(f, newline="")):
            s, e = int(r["Start_Timestamp"]), int(r["End_Timestamp"])
            u[r["Kernel_Name"]] += e - s
            per_gpu[(f, r["Agent_Id"])].append((s, e))
    return u, per_gpu


def telemetry(prof):
    rows = []
    for f in sorted(glob.glob(os.path.join(prof, "profiling_result_*.csv"))):
        for line in open(f).read().splitlines()[2:]:
            p = line.split(",")
            rows.append((int(p[0]), float(p[3])))
    return rows


class Check:
    def __init__(self):
        self.bad, self.n = [], 0

    def num(self, where, want, got):
        self.n += 1
        try:
            g = float(got)
        except (TypeError, ValueError):
            g = None
        if g is None or not close(want, g):
            self.bad.append("%s: expected %r, got %r" % (where, want, got))

    def eq(self, where, want, got):
        self.n += 1
        if want != got:
            self.bad.append("%s: expected %r, got %r" % (where, want, got))


def check(pmc, prof, out_a, out_c):
    names = passes(pmc)
    P = {p: read_pass(os.path.join(pmc, p)) for p in names}
    kernels = sorted(set(k for p in P.values() for k in p["t"]))
    t = {k: sum(P[p]["t"][k] for p in names) / len(names) for k in kernels}
    T = sum(t.values())
    u, per_gpu = read_power(prof)
    U = sum(u.values())
    ck = Check()
    rows = list(csv.DictReader(open(os.path.join(out_a, "per_kernel_metrics.csv"), newline="")))
    ck.eq("row 1", ("TOTAL", ""), (rows[0]["kernel"], rows[0]["kernel_full_name"]))
    by_time = sorted(kernels, key=lambda k: -t[k])
    ck.eq("row order (counter-pass time)", by_time, [r["kernel_full_name"] for r in rows[1:]])
    p1, p4 = names[0], "04_cu_util"
    for r in rows[1:]:
        k = r["kernel_full_name"]
        w = k[:40]
        ck.num(w + " time_ms", t[k] / 1e6, r["time_ms"])
        ck.num(w + " time_share_pct", 100 * t[k] / T, r["time_share_pct"])
        ck.eq(w + " launches (pass 4, integer)", str(P[p4]["n"][k]), r["launches"])
        ck.num(w + " mean_launch_us", P[p4]["t"][k] / P[p4]["n"][k] / 1000, r["mean_launch_us"])
        ck.num(w + " eff_clock_MHz (pass 1)",
               1000 * P[p1]["c"][k]["GRBM_GUI_ACTIVE"] / N_XCC / P[p1]["t"][k], r["eff_clock_MHz"])
        ck.num(w + " unprof_time_share_pct", 100 * u[k] / U, r["unprof_time_share_pct"])
        ck.eq(w + " TFLOPs_lowp_MFMA", "0", r["TFLOPs_lowp_MFMA"])
    tot = rows[0]
    ck.eq("TOTAL launches", str(sum(P[p4]["n"].values())), tot["launches"])
    ck.num("TOTAL time_share_pct", 100.0, tot["time_share_pct"])
    ck.eq("TOTAL TFLOPs_lowp_MFMA", "0", tot["TFLOPs_lowp_MFMA"])
    lim = {r["kernel_full_name"]: float(r["max_waves_CU"]) for r in rows[1:]}
    ck.num("TOTAL max_waves_CU (pass-4-time-weighted)",
           sum(P[p4]["t"][k] * lim[k] for k in kernels) / sum(P[p4]["t"][k] for k in kernels),
           tot["max_waves_CU"])
    # top kernels: the fewest by power-run share reaching 90%
    by_u = sorted(kernels, key=lambda k: -u[k])
    top, cum = [], 0.0
    cums = {}
    for k in by_u:
        if not top or cums[top[-1]] < 90:
            top.append(k)
        cum += 100 * u[k] / U
        cums[k] = cum
    got = {r["kernel_full_name"]: r for r in rows[1:]}
    for k in kernels:
        want = 100 * u[k] / U if k in top else None
        if want is None:
            ck.eq(k[:40] + " top_share_pct (not a top kernel)", "", got[k]["top_share_pct"])
        else:
            ck.num(k[:40] + " top_share_pct", want, got[k]["top_share_pct"])
        ck.num(k[:40] + " cum_share_pct", cums[k], got[k]["cum_share_pct"])
    ck.num("TOTAL top_share_pct", 100.0, tot["top_share_pct"])
    top_rows = list(csv.DictReader(open(os.path.join(out_a, "top_kernels.csv"), newline="")))
    ck.eq("top_kernels.csv kernels", top + [""], [r["kernel_full_name"] for r in top_rows])
    ck.eq("top_kernels.csv TOTAL cum %", "", top_rows[-1]["cum %"])
    # summary.json
    s = json.load(open(os.path.join(out_a, "summary.json")))
    clock = s["clock"]["clock_MHz"]
    times = []
    for i, p in enumerate(names):
        x = s["checks"]["passes"][i]
        D = sum(P[p]["t"].values())
        eff = 1000 * sum(v["GRBM_GUI_ACTIVE"] for v in P[p]["c"].values()) / N_XCC / D
        times.append(D / 1e9)
        ck.eq(p + " pass/label", (p, open(os.path.join(pmc, p, "LABEL")).read().strip()),
              (x["pass"], x["label"]))
        ck.eq(p + " files/gpus/launches", (P[p]["files"], P[p]["gpus"], sum(P[p]["n"].values()),
              P[p]["traced"], 0, 0.0, []),
              (x["counter_files"], x["gpus"], x["launches_with_counters"], x["launches_in_trace"],
               x["launches_missing_counters"], x["missing_time_pct"], x["counters_missing"]))
        ck.num(p + " kernel_time_s", D / 1e9, x["kernel_time_s"])
        ck.num(p + " eff_clock_MHz", eff, x["eff_clock_MHz"])
        ck.num(p + " gui_excess_pct", 100 * (1 - clock / eff), x["gui_excess_pct"])
        loop = [float(m.group(1)) for m in re.finditer(r"Loop time of ([0-9.eE+-]+)",
                open(os.path.join(pmc, p, "rocprof.%s.txt" % p)).read())]
        ck.num(p + " lammps_loop_time_s", loop[-1], x["lammps_loop_time_s"])
    ck.num("kernel_time_spread_pct (max-min)/min", 100 * (max(times) - min(times)) / min(times),
           s["checks"]["kernel_time_spread_pct"])
    pr = s["power_run"]
    spans = {g: max(e for _, e in iv) - min(a for a, _ in iv) for g, iv in per_gpu.items()}
    busy = {g: sum(b - a for a, b in merge(iv)) for g, iv in per_gpu.items()}
    ck.eq("power_run counts", (2, len(per_gpu), sum(len(v) for v in per_gpu.values())),
          (pr["trace_files"], pr["gpus"], pr["dispatches"]))
    ck.num("power_run span_s (longest GPU)", max(spans.values()) / 1e9, pr["span_s"])
    ck.num("power_run busy_s (mean)", sum(busy.values()) / len(busy) / 1e9, pr["busy_s"])
    ck.num("power_run GPU_busy_pct", sum(100 * busy[g] / spans[g] for g in busy) / len(busy),
           pr["GPU_busy_pct"])
    ck.eq("power_run GPU_busy_pct_per_gpu", [round(100 * busy[g] / spans[g], 1) for g in sorted(busy)],
          pr["GPU_busy_pct_per_gpu"])
    iv = merge([x for v in per_gpu.values() for x in v])
    lo, hi = iv[0][0], iv[-1][1]
    tel = telemetry(prof)
    run = sorted(c for ts, c in tel if any(a <= ts <= b for a, b in iv))
    sm = s["clock"]["sampled"]
    ck.eq("clock.sampled counts", (len(tel), sum(1 for ts, _ in tel if lo <= ts <= hi), len(run)),
          (sm["samples_total"], sm["samples_kernel_window"], sm["samples_kernel_running"]))
    ck.num("clock.sampled clock_MHz", sum(run) / len(run), sm["clock_MHz"])
    ck.num("clock_MHz_used = sampled", sum(run) / len(run), tot["clock_MHz_used"])
    for q, key in ((50, "clock_MHz_median"), (5, "clock_MHz_p5"), (95, "clock_MHz_p95")):
        ck.num("clock.sampled " + key, run[min(len(run) - 1, int(q / 100 * len(run)))], sm[key])
    ck.eq("clock.source", "sampled gfx clock while kernels ran (power run)", s["clock"]["source"])
    c = json.load(open(os.path.join(out_c, "summary.json")))["clock"]
    ck.eq("--telemetry A B: the same clock", s["clock"]["clock_MHz"], c["clock_MHz"])
    for b in ck.bad:
        print("MISMATCH:", b)
    print("%d values checked, %d mismatches" % (ck.n, len(ck.bad)))
    return 1 if ck.bad or not ck.n else 0


def rest(pmc, n):
    names = passes(pmc)
    P = [read_pass(os.path.join(pmc, p)) for p in names]
    kernels = set(k for p in P for k in p["t"])
    t = {k: sum(p["t"][k] for p in P) / len(P) for k in kernels}
    T = sum(t.values())
    order = sorted(kernels, key=lambda k: -t[k])
    print("%.1f" % sum(100 * t[k] / T for k in order[n:]))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:6]))
    if len(sys.argv) == 4 and sys.argv[1] == "rest":
        sys.exit(rest(sys.argv[2], int(sys.argv[3])))
    sys.exit(__doc__)
