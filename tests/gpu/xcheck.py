"""xcheck.py - the table of tests/gpu/xcheck.sh (reads the files it left in DIR).

usage: python3 xcheck.py DIR
Cross-check: per metric, the total over all launches of axpy (n = 16M, 1 + 20 launches)
for each libbenchrun-cupti variant against ncu on the same program: instruction and
FLOP counters must be equal, byte/cycle counters within 2 %."""
import csv
import glob
import json
import os
import statistics
import sys

D = sys.argv[1]
VARIANTS = ["old", "default", "krep"]


def ours(path):
    tot, n = {}, {}
    if not os.path.exists(path):
        return tot, n
    for row in csv.DictReader(open(path)):
        try:
            v = float(row["Counter_Value"])
        except (KeyError, ValueError):
            continue
        tot[row["Counter_Name"]] = tot.get(row["Counter_Name"], 0.0) + v
        n[row["Counter_Name"]] = n.get(row["Counter_Name"], 0) + 1
    return tot, n


def ncu(path):
    tot, n = {}, {}
    if not os.path.exists(path):
        return tot, n
    rows = list(csv.reader(l for l in open(path) if not l.startswith("==")))
    if len(rows) < 3:
        return tot, n
    for row in rows[2:]:
        for i, name in enumerate(rows[0]):
            if "__" in name and i < len(row):
                try:
                    v = float(row[i].replace(",", ""))
                except ValueError:
                    continue
                tot[name] = tot.get(name, 0.0) + v
                n[name] = n.get(name, 0) + 1
    return tot, n


def xcheck():
    ref, refn = ncu(os.path.join(D, "xc_ncu.csv"))
    data = {}
    for v in VARIANTS:
        t, c = {}, {}
        for g in ("flops", "hw"):
            a, b = ours(os.path.join(D, f"xc_{v}_{g}.csv"))
            t.update(a)
            c.update(b)
        data[v] = (t, c)
    names = sorted(set(ref) | {k for t, _ in data.values() for k in t})
    print("cross-check: totals over axpy n=16M, 1+20 launches; % vs ncu "
          "(exact: inst/sass must be 0.00; others within 2%)")
    print(f"  {'metric':52s} {'ncu':>16s} " + " ".join(f"{v:>9s}" for v in VARIANTS))
    for name in names:
        b = ref.get(name)
        cells = []
        for v in VARIANTS:
            a = data[v][0].get(name)
            if a is None:
                cells.append(f"{'-':>9s}")
            elif not b:
                cells.append(f"{'=' if a == b else a:>9}")
            else:
                cells.append(f"{100 * (a - b) / b:+8.2f}%")
        bs = f"{b:16.0f}" if b is not None else f"{'-':>16s}"
        print(f"  {name:52s} {bs} " + " ".join(cells) + f"  n={refn.get(name, 0)}/" +
              "/".join(str(data[v][1].get(name, 0)) for v in VARIANTS))
    for v in VARIANTS:
        for g in ("flops", "hw"):
            p = os.path.join(D, f"xc_{v}_{g}.json")
            if os.path.exists(p):
                j = json.load(open(p))
                print(f"  {v}/{g}: ranges {j.get('ranges')} dropped {j.get('ranges_dropped')} "
                      f"unmatched {j.get('ranges_unmatched')} rows {j.get('counter_rows')} "
                      f"error {j.get('error')}")


def kv(line):
    out = {}
    for tok in line.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            try:
                out[k] = float(v)
            except ValueError:
                pass
    return out


def table(name, title, per_launch):
    p = os.path.join(D, name)
    if not os.path.exists(p):
        return
    res = {}
    for line in open(p):
        parts = line.split(None, 1)
        if len(parts) == 2 and "loop_s=" in parts[1]:
            res.setdefault(parts[0], []).append(kv(parts[1]))
    if "plain" not in res:
        return
    base = statistics.median(r["loop_s"] for r in res["plain"])
    print(f"{title} (median program loop time)")
    for mode, rs in res.items():
        m = statistics.median(r["loop_s"] for r in rs)
        line = f"  {mode:10s} {m:9.4f} s {100 * (m / base - 1):+8.2f} %  n={len(rs)}"
        if per_launch and mode != "plain":
            n = statistics.median(r.get("launches", 1) for r in rs)
            line += f"  added {1e6 * (m - base) / n:9.2f} us/launch"
        print(line)


def gemm():
    for prec, metric in (("bf16", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"),
                         ("tf32", "sm__ops_path_tensor_src_tf32_dst_fp32.sum"),
                         ("fp64", "sm__ops_path_tensor_src_fp64.sum")):
        t, n = ours(os.path.join(D, f"gemm_{prec}.csv"))
        if metric not in t:
            continue
        size = 2048 if prec == "fp64" else 4096
        want = 2 * size ** 3
        print(f"GEMM {prec} n={size}: {metric} total {t[metric]:.0f} = {t[metric] / want:.4f} x 2MNK "
              f"({n[metric]} rows)")


xcheck()
gemm()
table("cost.txt", "counter-pass cost (axpy 1M floats)", True)
table("tr_small.txt", "trace overhead, axpy 1M floats x 20,000 (~4.5 us kernels)", True)
table("tr_large.txt", "trace overhead, axpy 16M floats x 2,000", True)
table("tr_torch.txt", "trace overhead, PyTorch MLP 200 steps", False)
for p in sorted(glob.glob(os.path.join(D, "*.json"))):
    if "trace" in os.path.basename(p) or "cost" in os.path.basename(p):
        j = json.load(open(p))
        print(f"{os.path.basename(p)}: timestamps {j.get('kernel_timestamps')} kernels "
              f"{j.get('kernels')} dropped {j.get('activity_records_dropped')} ranges "
              f"{j.get('ranges')} error {j.get('error')}")
