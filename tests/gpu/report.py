"""report.py - the short table of tests/gpu/run.sh (reads the files it left in DIR).

usage: python3 report.py DIR"""
import csv
import json
import os
import statistics
import sys

D = sys.argv[1]


def kv(line):
    out = {}
    for tok in line.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def runs(name):
    res = {}
    path = os.path.join(D, name)
    if not os.path.exists(path):
        return res
    for line in open(path):
        parts = line.split(None, 1)
        if len(parts) == 2 and "loop_s=" in parts[1]:
            res.setdefault(parts[0], []).append(kv(parts[1]))
    return res


def med(rs, key):
    vals = [r[key] for r in rs if key in r]
    return statistics.median(vals) if vals else float("nan")


def overhead_table(name, title):
    r = runs(name)
    if "plain" not in r:
        print(f"{title}: no data")
        return
    base = med(r["plain"], "loop_s")
    print(f"{title} (median of {len(r['plain'])} runs, program loop time)")
    for mode, rs in r.items():
        m = med(rs, "loop_s")
        tot = med(rs, "total_s")
        extra = f"  total {tot:.3f} s" if tot == tot else ""
        print(f"  {mode:10s} {m:9.4f} s  {100 * (m / base - 1):+7.2f} %  (n={len(rs)}){extra}")


def pmc_table():
    r = runs("pmc_axpy.txt")
    if "plain" not in r:
        print("counter passes: no data")
        return
    base = med(r["plain"], "loop_s")
    print("counter-pass cost on axpy (20,000 launches; (pass loop - plain loop) / launches)")
    for mode, rs in r.items():
        if mode == "plain":
            continue
        m = med(rs, "loop_s")
        n = med(rs, "launches")
        print(f"  {mode:10s} loop {m:8.3f} s  added {1e6 * (m - base) / n:8.2f} us/launch")
    for g in ("flops", "hw", "hw_noact"):
        p = os.path.join(D, f"pmc_{g}_cupti.json")
        if os.path.exists(p):
            j = json.load(open(p))
            print(f"  {g}: ranges {j.get('ranges')} dropped {j.get('ranges_dropped')} "
                  f"unmatched {j.get('ranges_unmatched')} rows {j.get('counter_rows')} "
                  f"error {j.get('error')}")


def ours_per_metric():
    p = os.path.join(D, "xcheck_cupti.csv")
    vals = {}
    if not os.path.exists(p):
        return vals
    for row in csv.DictReader(open(p)):
        try:
            vals.setdefault(row["Counter_Name"], []).append(float(row["Counter_Value"]))
        except (KeyError, ValueError):
            pass
    return vals


def ncu_per_metric():
    p = os.path.join(D, "xcheck_ncu.csv")
    vals = {}
    if not os.path.exists(p):
        return vals
    lines = [l for l in open(p) if not l.startswith("==")]
    rows = list(csv.reader(lines))
    if len(rows) < 3:
        return vals
    head = rows[0]
    for row in rows[2:]:
        for i, name in enumerate(head):
            if "__" in name and "." in name:
                try:
                    vals.setdefault(name, []).append(float(row[i].replace(",", "")))
                except ValueError:
                    pass
    return vals


def xcheck_table():
    ours, ncu = ours_per_metric(), ncu_per_metric()
    print("cross-check with ncu (axpy n=16M, 20 launches; median per launch)")
    if not ours or not ncu:
        print(f"  missing data: cupti metrics {len(ours)}, ncu metrics {len(ncu)}")
        return
    for name in sorted(ours):
        if name not in ncu:
            print(f"  {name:55s} not in ncu output")
            continue
        a, b = statistics.median(ours[name]), statistics.median(ncu[name])
        diff = 100 * (a - b) / b if b else (0.0 if a == 0 else float("inf"))
        exact = "sass" in name or "inst_executed" in name
        ok = (a == b) if exact else abs(diff) <= 2.0
        kind = "equal" if exact else "<=2%"
        print(f"  {name:55s} cupti {a:14.1f} ncu {b:14.1f} {diff:+7.2f}% "
              f"[{kind}: {'ok' if ok else 'FAIL'}] n={len(ours[name])}/{len(ncu[name])}")


def trace_rows(name):
    p = os.path.join(D, name)
    if not os.path.exists(p):
        return None
    return list(csv.DictReader(open(p)))


def multistream():
    rows = trace_rows("multistream_kernel_trace.csv")
    if rows is None:
        print("multi-stream: no trace file")
        return
    iv = sorted((int(r["Start_Timestamp"]), int(r["End_Timestamp"]), r["Stream_Id"]) for r in rows)
    overl = sum(1 for i in range(1, len(iv)) if iv[i][0] < iv[i - 1][1] and iv[i][2] != iv[i - 1][2])
    streams = len({s for _, _, s in iv})
    print(f"multi-stream: {len(rows)} kernels on {streams} streams, {overl} start while another "
          f"stream's kernel runs ({'ok' if overl > 0 else 'FAIL: serialized'})")


def worker_exit():
    rows = trace_rows("worker_exit_kernel_trace.csv")
    log = open(os.path.join(D, "worker_exit.log")).read() if os.path.exists(
        os.path.join(D, "worker_exit.log")) else ""
    n = len(rows) if rows is not None else 0
    rcs = " ".join(l for l in log.splitlines() if "rc=" in l)
    print(f"exit() from a worker thread: {n} kernels traced ({'ok' if n > 0 else 'FAIL'}); {rcs}")


def clock():
    p = os.path.join(D, "axpy_cupti.json")
    if os.path.exists(p):
        j = json.load(open(p))
        pts = j["clock"]["points"]
        print(f"clock: {len(pts)} points, offset {pts[0]['offset_ns']} ns, drift "
              f"{j['clock']['drift_ppm']:.3f} ppm, uncertainty {pts[0]['uncertainty_ns']} ns; "
              f"kernels {j['kernels']}, dropped {j['activity_records_dropped']}, error {j['error']}")


overhead_table("overhead_axpy.txt", "trace overhead, axpy 20,000 launches")
overhead_table("overhead_torch.txt", "trace overhead, PyTorch MLP training step x200")
clock()
pmc_table()
xcheck_table()
multistream()
worker_exit()
for extra in ("groups.txt", "cli_trace.log"):
    p = os.path.join(D, extra)
    if os.path.exists(p):
        print(f"{extra}:", open(p).read().strip()[-600:])
