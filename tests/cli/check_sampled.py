#!/usr/bin/env python3
"""check_sampled.py - a launch-sampled analysis against the full-collection answer.

usage: check_sampled.py FULL_PMC_DIR SAMPLED_PMC_DIR... [--max-rel R] [--min-coverage F]
                        [--separate] [--only REGEX]

FULL_PMC_DIR holds the same generated run (tests/tools/gen_rocprof, same
seed) with counter rows for every launch; SAMPLED_PMC_DIR the run written
with --sample and analyzed by `benchrun analyze` (or the analysis folder
itself: `benchrun analyze FULL --resample PLAN -o DIR` gives one from
FULL_PMC_DIR alone). The true total of every
(pass, kernel, counter) is summed here from FULL_PMC_DIR's counter files
(rocprofv3 CSV: strings quoted, inner quotes not escaped, so the kernel name
is split off by column counts, as rocprofv3's own csv.hpp writes it), never
by benchrun. Checks every row of each SAMPLED/analysis/launch_sampling.csv
(several sampled runs: the same run sampled with different plan seeds):
  - the stated 95 % intervals (ci95_half, plus offset_bound where the
    pass took a CUPTI user range's offset out) cover the true totals in at
    least the fraction --min-coverage of the rows (default 1: every one);
  - estimator "all" (every launch profiled) and "time" (elapsed-cycle
    counters: the generator's counts are proportional to duration) are exact
    (relative 1e-9);
  - the relative error is at most --max-rel (default 1: no limit).
--separate: the full run is another run of the application (a GPU run of
benchrun pmc --launches all): only the counters matching --only (the
deterministic counts) are checked, none is expected exact, the interval
must cover the full value up to 1e-6 (the same count in another run), and
each (pass, counter) total over the kernels is printed as a TOTAL line,
every counter's, with its interval (the kernels' half-widths in quadrature)
(the offset bounds added) and whether it covers the full value ("checked"
marks those asserted on).
Prints the coverage, the largest relative error and interval; exit 1 on
any failure.

usage: check_sampled.py --runs PMC_DIR_A PMC_DIR_B [--only REGEX]
Two application runs with every launch profiled: each (pass, counter) total
over the kernels of both, and their relative difference, as RUNS lines (the
run-to-run spread that a comparison of two runs includes).
"""
import csv
import glob
import os
import re
import sys
from collections import defaultdict


def rows(path):
    with open(path) as f:
        head = next(csv.reader([f.readline()]))
        i = head.index("Kernel_Name")
        right = len(head) - i - 1
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            left = line.split(",", i)
            rest = left[i].rsplit(",", right)
            d = {k: v.strip('"') for k, v in zip(head, left[:i] + rest)}
            d["Kernel_Name"] = rest[0][1:-1]
            yield d


def opt(args, name, default):
    if name not in args:
        return default
    j = args.index(name)
    v = float(args[j + 1])
    del args[j:j + 2]
    return v


def totals(pmc_dir):
    """(pass, kernel, counter) -> the sum of the counter files' values."""
    out = defaultdict(float)
    for f in glob.glob(os.path.join(pmc_dir, "*", "*_counter_collection.csv")):
        p = os.path.basename(os.path.dirname(f))
        for r in rows(f):
            out[(p, r["Kernel_Name"], r["Counter_Name"])] += float(r["Counter_Value"])
    return out


def runs(a_dir, b_dir, only):
    by = []
    for d in (a_dir, b_dir):
        t = defaultdict(float)
        for (p, _, c), v in totals(d).items():
            t[p, c] += v
        by.append(t)
    if not by[0]:
        print("MISMATCH no counter rows in", a_dir)
        return 1
    for (p, c), a in sorted(by[0].items()):
        if only and not only.search(c):
            continue
        b = by[1].get((p, c), float("nan"))
        print("RUNS %s %s a %.6g b %.6g (%+.3f %%)" % (p, c, a, b, 100 * (b - a) / a if a else 0))
    return 0


def main():
    args = sys.argv[1:]
    max_rel = opt(args, "--max-rel", 1.0)
    min_cov = opt(args, "--min-coverage", 1.0)
    separate = "--separate" in args
    if separate:
        args.remove("--separate")
    only = None
    if "--only" in args:
        j = args.index("--only")
        only = re.compile(args[j + 1])
        del args[j:j + 2]
    if args and args[0] == "--runs":
        return runs(args[1], args[2], only)
    full, sampled_dirs = args[0], args[1:]
    tot_est, tot_true, tot_var = defaultdict(float), defaultdict(float), defaultdict(float)
    tot_bound = defaultdict(float)
    true = totals(full)
    bad, missed, n, worst, widest = [], [], 0, 0.0, 0.0
    for sampled in sampled_dirs:
        path = os.path.join(sampled, "launch_sampling.csv")   # an analysis folder
        if not os.path.exists(path):
            path = os.path.join(sampled, "analysis", "launch_sampling.csv")
        for r in csv.DictReader(open(path)):
            key = (r["pass"], r["kernel_full_name"], r["counter"])
            if key not in true:
                if not only or only.search(r["counter"]):
                    bad.append("no full-collection total for %s" % (key,))
                continue
            t, est = true[key], float(r["value"])
            tot_est[key[0], key[2]] += est
            tot_true[key[0], key[2]] += t
            h = float(r["ci95_half"]) if r["ci95_half"] else 0.0
            tot_var[key[0], key[2]] += h * h if h == h else 0.0
            # the range offset's bound (NVIDIA user ranges), added to the
            # interval: a bound, not a random error, so linearly
            bound = float(r.get("offset_bound") or 0)
            tot_bound[key[0], key[2]] += bound
            if only and not only.search(r["counter"]):
                continue
            half = (float(r["ci95_half"]) if r["ci95_half"] else float("nan")) + bound
            rel = abs(est - t) / abs(t) if t else abs(est)
            n += 1
            worst = max(worst, rel)
            widest = max(widest, float(r["ci95_pct"] or 0))
            slack = 1e-6 if separate else 1e-9
            if not abs(est - t) <= half * (1 + 1e-12) + slack * abs(t):
                missed.append("%s: %.6g outside %.6g +- %.6g" % (key, t, est, half))
            if not separate and r["estimator"] in ("all", "time") and rel > 1e-9:
                bad.append("%s: estimator %s not exact (%.3g)" % (key, r["estimator"], rel))
            if rel > max_rel:
                bad.append("%s: relative error %.4f over %.4f" % (key, rel, max_rel))
    if not n:
        bad.append("launch_sampling.csv has no rows")
    cov = 1 - len(missed) / n if n else 0
    if cov < min_cov:
        bad.append("coverage %.4f below %.4f" % (cov, min_cov))
        bad += missed[:5]
    for b in bad[:20]:
        print("MISMATCH", b)
    if separate:
        for (p, c), e in sorted(tot_est.items()):
            t = tot_true[p, c]
            # the kernels' 95 % half-widths in quadrature, their offset bounds added
            half = tot_var[p, c] ** 0.5 + tot_bound[p, c]
            print("TOTAL %s %s sampled %.6g all %.6g (%+.3f %%, interval +-%.3f %%, %s)%s%s"
                  % (p, c, e, t, 100 * (e - t) / t if t else 0, 100 * half / t if t else 0,
                     "covers" if abs(e - t) <= half + 1e-6 * abs(t) else "misses",
                     " checked" if not only or only.search(c) else "",
                     " offset_bound %.3f %%" % (100 * tot_bound[p, c] / t) if t and tot_bound[p, c] else ""))
    print("%d estimates in %d run(s), %d failures, coverage %.2f %%, largest error %.3f %%, "
          "widest interval %.3f %%" % (n, len(sampled_dirs), len(bad), 100 * cov, 100 * worst,
                                      widest))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
