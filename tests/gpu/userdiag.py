"""userdiag.py - summary of tests/gpu/userdiag.sh's runs (issue 18).

usage: python3 userdiag.py RUNS_DIR VARIANT...

Per variant (RUNS_DIR/VARIANT: the library's files, prefix VARIANT_<pid>):
launches, pushes, decoded ranges, unmatched ranges and why, NaN values per
metric; for the NaN launches, what they share (first launch of their kernel,
a module load between their push and pop, their thread); each launch's
values against the first variant's (the reference, `full`), joined by kernel
name and occurrence: per metric how many agree within 1 %, and the worst.
"""
import collections
import csv
import glob
import json
import math
import os
import sys


def load(d):
    vals = collections.OrderedDict()   # dispatch -> {metric: value}
    names = {}
    for f in glob.glob(os.path.join(d, "*_counter_collection.csv")):
        for r in csv.DictReader(open(f)):
            k = int(r["Dispatch_Id"])
            names[k] = r["Kernel_Name"]
            vals.setdefault(k, {})[r["Counter_Name"]] = float(r["Counter_Value"])
    js = [json.load(open(f)) for f in glob.glob(os.path.join(d, "*_cupti.json"))]
    logs = sorted(glob.glob(os.path.join(d, "*_debug.log")))
    return vals, names, js, logs


def occurrence_keys(names):
    seen = collections.Counter()
    out = {}
    for d in sorted(names):
        seen[names[d]] += 1
        out[(names[d], seen[names[d]])] = d
    return out


def read_log(path):
    """Per dispatch: its launch line; the pushes, pops, module loads in order."""
    launches, events = {}, []
    for line in open(path, errors="replace"):
        p = line.rstrip("\n").split(" ", 2)
        if len(p) < 2:
            continue
        kind, rest = p[1], p[2] if len(p) > 2 else ""
        if kind == "launch":
            f = dict(x.split("=", 1) for x in rest.split(" ") if "=" in x and not x.startswith("_"))
            launches[int(f.get("d", 0))] = f
            events.append(("launch", int(f.get("d", 0))))
        elif kind == "step":
            events.append(("step", rest))
        elif kind == "module_loaded":
            events.append(("load", rest))
        elif kind in ("range", "decoded", "reentrant", "function", "launch_exit"):
            events.append((kind, rest))
    return launches, events


def main():
    runs, variants = sys.argv[1], sys.argv[2:]
    ref = None
    for v in variants:
        d = os.path.join(runs, v)
        if not os.path.isdir(d):
            print("%s: no run" % v)
            continue
        vals, names, js, logs = load(d)
        print("== %s" % v)
        for j in js:
            print("  launches %s profiled %s ranges past pushes %s unmatched %s no_range %s nonfinite %s "
                  "armed %s modules_loaded %s threads %s err %s" % (
                      j.get("launches"), j.get("launches_profiled"), j.get("ranges_past_pushes"),
                      j.get("ranges_unmatched"), j.get("launches_without_range"),
                      j.get("values_nonfinite"), j.get("profiler_armed"),
                      (j.get("launch_census") or {}).get("modules_loaded"),
                      (j.get("launch_census") or {}).get("threads"), (j.get("error") or "")[:80]))
            for e in (j.get("ranges_unmatched_examples") or [])[:4]:
                print("    unmatched e.g. %s" % e[:160])
            if j.get("values_nonfinite_example"):
                print("    nonfinite e.g. %s" % j["values_nonfinite_example"][:160])
        bad = collections.Counter()
        nan_d = set()
        for k, m in vals.items():
            for name, x in m.items():
                if not math.isfinite(x):
                    bad[name] += 1
                    nan_d.add(k)
        print("  launches with values %d, with a NaN %d; NaN per metric: %s" % (
            len(vals), len(nan_d), dict(bad)))
        for lp in logs[:2]:
            launches, events = read_log(lp)
            pushes = sum(1 for e in events if e[0] == "step" and e[1].startswith("push"))
            decoded = sum(1 for e in events if e[0] == "range")
            loads = sum(1 for e in events if e[0] == "load")
            reent = sum(1 for e in events if e[0] == "reentrant")
            print("  log %s: %d launches, %d pushes, %d ranges decoded, %d module loads, %d reentrant"
                  % (os.path.basename(lp), len(launches), pushes, decoded, loads, reent))
            # module loads inside an open range (push ... pop) and the dispatch they fell in
            open_d, in_range_loads, load_d = None, 0, set()
            first_seen, firsts = set(), set()
            for kind, x in events:
                if kind == "launch":
                    nm = launches[x].get("profiled")
                    kn = names.get(x)
                    if kn is not None and kn not in first_seen:
                        first_seen.add(kn)
                        firsts.add(x)
                    if nm == "1":
                        open_d = x
                elif kind == "step" and x.startswith("pop"):
                    open_d = None
                elif kind == "load" and open_d is not None:
                    in_range_loads += 1
                    load_d.add(open_d)
            tids = collections.Counter(launches[k].get("tid") for k in nan_d if k in launches)
            print("  NaN launches: %d first of their kernel, %d with a module load in their range "
                  "(%d loads in ranges), threads %s" % (len(nan_d & firsts), len(nan_d & load_d),
                                                        in_range_loads, dict(tids)))
            print("  non-NaN launches with a module load in their range: %d" % len(load_d - nan_d))
            # decoded range names not of the form <dispatch>:<kernel>, or repeated
            rn = collections.Counter()
            for kind, x in events:
                if kind == "range":
                    rn[x.split(" ", 4)[-1].split(":", 1)[0]] += 1
            dup = sum(1 for k, c in rn.items() if c > 1)
            print("  range names seen more than once: %d; e.g. %s" % (
                dup, [k for k, c in rn.items() if c > 1][:5]))
            nanr = [x for kind, x in events if kind == "range" and not x.split(" ")[1].endswith("=0")]
            for x in nanr[:5]:
                print("    NaN range e.g. %s" % x[:200])
        keys = occurrence_keys(names)
        if ref is None:
            ref = (v, vals, keys)
            continue
        rv, rvals, rkeys = ref
        agree, total, worst = collections.Counter(), collections.Counter(), {}
        for key, d2 in keys.items():
            d1 = rkeys.get(key)
            if d1 is None or d1 not in rvals:
                continue
            for name, x in vals[d2].items():
                y = rvals[d1].get(name)
                if y is None or not math.isfinite(x) or not math.isfinite(y):
                    continue
                total[name] += 1
                rel = abs(x - y) / max(abs(y), 1.0)
                agree[name] += rel <= 0.01
                if rel > worst.get(name, (0, ""))[0]:
                    worst[name] = (rel, "%s #%d: %g vs %g" % (key[0][:50], key[1], x, y))
        for name in sorted(total):
            print("  vs %s %-55s %5d/%5d within 1%%; worst %.3g (%s)" % (
                rv, name, agree[name], total[name], worst.get(name, (0, ""))[0],
                worst.get(name, (0, ""))[1]))


if __name__ == "__main__":
    main()
