#!/usr/bin/env python3
"""vectors_ref.py - independent reference for `benchrun vectors` (numpy).

  vectors_ref.py gen DIR            write a power-run folder whose samples sit on,
                                    one ulp below and one ulp above every bin edge
                                    (and elsewhere), 3 GPUs, a kernel trace
  vectors_ref.py check DIR JSON [--no-trim] [--per-gpu] [--tdp W]
                                    recompute every vector with numpy.arange and
                                    Python round() (the minos dendrogram.py
                                    algorithm, docs/design.md §9) and compare with
                                    the JSON exactly; exit 1 on any difference

Reads the CSVs with the csv module and float() (correctly rounded), never with
benchrun code. Used by tests/cli/0651-vectors-numpy.sh.
"""
import csv
import glob
import json
import math
import os
import random
import sys

import numpy as np

SPECS = [  # name, column, by_tdp, lo, hi, step
    ("inst_power", "inst_power_W", True, 0.5, 2.05, 0.1),
    ("socket_power", "current_socket_power_W", True, 0.5, 2.05, 0.1),
    ("gfx_frequency", "gfx_clock_MHz", False, 0, 2300, 100),
    ("hotspot_temp", "hotspot_temp_C", False, 30, 115, 5),
    ("edge_temp", "edge_temp_C", False, 30, 115, 5),
]
HEADER = ["timestamp_ns", "current_socket_power_W", "inst_power_W", "gfx_clock_MHz",
          "edge_temp_C", "hotspot_temp_C", "energy_J", "mem_clock_MHz"]
TDP = 750.0


def value_on(edge, ref):
    """A double v with v / ref == edge exactly (searching around edge * ref)."""
    v = edge * ref
    for _ in range(64):
        q = v / ref
        if q == edge:
            return v
        v = math.nextafter(v, math.inf if q < edge else -math.inf)
    return edge * ref


def interesting(lo, hi, step, ref, rng):
    edges = np.arange(lo, hi, step)
    out = []
    for e in edges:
        e = float(e)
        v = value_on(e, ref)
        out += [v, math.nextafter(v, -math.inf), math.nextafter(v, math.inf)]
        naive = (lo + round((e - lo) / step) * step) * ref
        out.append(naive)
    out += [rng.uniform(lo * ref * 0.5, hi * ref * 1.1) for _ in range(40)]
    out += [float(round(rng.uniform(0, hi * ref))) for _ in range(20)]
    if ref == TDP:
        out += [900.0, 1275.0, 1425.0, 375.0, 1500.0, 1537.5]
    return out


def fmt(v):
    return "nan" if v != v else repr(float(v))


def gen(d):
    rng = random.Random(20261129)
    os.makedirs(os.path.join(d, "ktrace_ref", "node1"), exist_ok=True)
    pools = {s[1]: interesting(s[3], s[4], s[5], TDP if s[2] else 1.0, rng) for s in SPECS}
    t0 = 5_000_000_000
    n = 6000
    for gpu in range(3):
        path = os.path.join(d, f"profiling_result_ref_{gpu}.csv")
        with open(path, "w") as f:
            f.write(f"# device={gpu} interval_ms=1 backend=sim clock=CLOCK_BOOTTIME\n")
            f.write(",".join(HEADER) + "\n")
            t = t0 + gpu * 137
            for i in range(n):
                t += 1_000_000 + rng.randrange(-20_000, 20_000)
                row = [str(t)]
                for col in HEADER[1:6]:
                    if col == "edge_temp_C" or rng.random() < 0.03:
                        row.append("nan")
                    else:
                        row.append(fmt(rng.choice(pools[col])))
                row += [fmt(i * 0.75), "1300"]
                f.write(",".join(row) + "\n")
    # Kernel trace (rocprofv3 7.x layout): window [t0 + 0.8 s, t0 + 5.1 s].
    cols = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id",
            "Kernel_Id", "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp",
            "LDS_Block_Size", "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count",
            "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X",
            "Grid_Size_Y", "Grid_Size_Z"]
    with open(os.path.join(d, "ktrace_ref", "node1", "4242_kernel_trace.csv"), "w") as f:
        f.write(",".join(f'"{c}"' for c in cols) + "\n")
        start = t0 + 800_000_000
        for k in range(50):
            s = start + k * 86_000_000
            e = s + 50_000_000
            f.write(f'"KERNEL_DISPATCH","Agent {4 + k % 3}",1,1,7,{k + 1},3,'
                    f'"void axpy<double>(double*, double const*, int)",{k + 1},{s},{e},'
                    f'0,0,32,0,16,256,1,1,1048576,1,1\n')


def window(d):
    lo, hi = None, None
    for p in glob.glob(os.path.join(d, "**", "*kernel_trace.csv"), recursive=True):
        with open(p) as f:
            for r in csv.DictReader(f):
                s, e = int(r["Start_Timestamp"]), int(r["End_Timestamp"])
                lo = s if lo is None else min(lo, s)
                hi = e if hi is None else max(hi, e)
    return lo, hi


def samples(path, win):
    with open(path) as f:
        f.readline()                       # metadata line
        rows = list(csv.DictReader(f))
    if win:
        rows = [r for r in rows if win[0] <= int(r["timestamp_ns"]) <= win[1]]
    return rows


def vector(values, ref, lo, hi, step):
    """minos dendrogram.py calculate_power_distribution, restated."""
    x = np.array(values, dtype=np.float64) / ref
    x = x[x >= lo]
    edges = np.arange(lo, hi, step)
    if len(x) == 0:
        return None, edges, 0, 0
    vec = [round(float(((x >= edges[i]) & (x < edges[i + 1])).sum() / len(x)), 4)
           for i in range(len(edges) - 1)]
    return vec, edges, len(x), int((x >= edges[-1]).sum())


def check(d, js, no_trim, per_gpu, tdp):
    with open(js) as f:
        got = json.load(f)
    win = None if no_trim else window(d)
    files = sorted(glob.glob(os.path.join(d, "profiling_result_*.csv")))
    files = [p for p in files if not p.endswith("_driver_power.csv")]
    per = {p: samples(p, win) for p in files}
    groups = [("", sum(per.values(), []))]
    if per_gpu:
        groups += [("_gpu" + p.rsplit("_", 1)[1][:-4], per[p]) for p in files]
    bad = 0
    checked = 0
    for suffix, rows in groups:
        for name, col, by_tdp, lo, hi, step in SPECS:
            key = name + suffix
            vals = [float(r[col]) for r in rows]
            vec, edges, pop, above = vector(vals, tdp if by_tdp else 1.0, lo, hi, step)
            if vec is None:
                if key in got:
                    print(f"{key}: expected skipped, got a vector")
                    bad += 1
                continue
            if got.get(key) != vec:
                print(f"{key}: differs\n  numpy    {vec}\n  benchrun {got.get(key)}")
                bad += 1
            b = got["description"]["bins"].get(key, {})
            if b.get("samples_in_population") != pop or b.get("samples_above_last_edge") != above:
                print(f"{key}: population/above {b.get('samples_in_population')}/"
                      f"{b.get('samples_above_last_edge')}, numpy {pop}/{above}")
                bad += 1
            if not suffix and b.get("edges") != [float(e) for e in edges]:
                print(f"{key}: edges differ: {b.get('edges')}")
                bad += 1
            checked += 1
    used = sum(len(r) for r in per.values())
    if got["description"]["samples_used"] != used:
        print(f"samples_used {got['description']['samples_used']}, numpy {used}")
        bad += 1
    print(f"vectors_ref: {checked} vectors compared with numpy, {bad} difference(s)")
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "gen":
        gen(argv[2])
        return 0
    if len(argv) >= 4 and argv[1] == "check":
        tdp = TDP
        if "--tdp" in argv:
            tdp = float(argv[argv.index("--tdp") + 1])
        return check(argv[2], argv[3], "--no-trim" in argv, "--per-gpu" in argv, tdp)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
