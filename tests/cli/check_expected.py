#!/usr/bin/env python3
"""check_expected.py - compare `benchrun analyze` outputs with the expected.json
written by tests/tools/gen_rocprof (generated data, hidden rates).

usage: check_expected.py EXPECTED_JSON ANALYSIS_DIR [--rtol R] [--skip a,b] [--quiet]

Checks, per kernel (matched by kernel_full_name) and for the whole run (the
TOTAL row of per_kernel_metrics.csv and summary.json "whole_run"):
  - a number: |actual - expected| <= rtol * |expected| + 1e-9;
  - null: the cell is empty (or the key null/absent);
  - a string (bound labels, dominant precision): equal.
Every regex of expected "expect_warnings" must match one summary.json
checks.warnings entry; top_kernels.csv must list expected "top_kernels" in
order (the fewest kernels by power-run time share reaching 90%). Standard library only (python3 >= 3.6; no numpy).
Exit status 0 when everything matches, 1 otherwise (mismatches listed).
"""
import csv
import json
import math
import re
import sys


def parse_args(argv):
    opts = {"rtol": 1e-6, "skip": set(), "quiet": False}
    pos = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--rtol":
            opts["rtol"] = float(argv[i + 1]); i += 2
        elif a == "--skip":
            opts["skip"] = set(x for x in argv[i + 1].split(",") if x); i += 2
        elif a == "--quiet":
            opts["quiet"] = True; i += 1
        else:
            pos.append(a); i += 1
    if len(pos) != 2:
        sys.exit(__doc__)
    return pos[0], pos[1], opts


def as_number(cell):
    if cell is None:
        return None
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        return float(cell)
    s = str(cell).strip()
    if s == "" or s.lower() in ("nan", "null", "none"):
        return None
    return float(s)


class Checker:
    def __init__(self, rtol, skip):
        self.rtol, self.skip = rtol, skip
        self.compared, self.bad = 0, []

    def value(self, where, name, want, got):
        if name in self.skip:
            return
        self.compared += 1
        if want is None:
            try:
                if as_number(got) is None:
                    return
            except ValueError:
                pass
            self.bad.append("%s %s: expected empty, got %r" % (where, name, got))
        elif isinstance(want, str):
            if got != want:
                self.bad.append("%s %s: expected %r, got %r" % (where, name, want, got))
        else:
            try:
                g = as_number(got)
            except ValueError:
                g = "not a number"
            if not isinstance(g, float) or math.isnan(g) or \
                    abs(g - want) > self.rtol * abs(want) + 1e-9:
                self.bad.append("%s %s: expected %.10g, got %r" % (where, name, want, got))

    def record(self, where, want, row):
        for name, w in want.items():
            if name == "kernel_full_name":
                continue
            if row is None or name not in row:
                if w is not None and name not in self.skip:
                    self.compared += 1
                    self.bad.append("%s %s: missing (expected %r)" % (where, name, w))
                continue
            self.value(where, name, w, row[name])


def main():
    exp_path, adir, opts = parse_args(sys.argv[1:])
    exp = json.load(open(exp_path))
    rows = list(csv.DictReader(open(adir + "/per_kernel_metrics.csv", newline="")))
    summary = json.load(open(adir + "/summary.json"))
    chk = Checker(opts["rtol"], opts["skip"])
    by_name = {r.get("kernel_full_name"): r for r in rows}
    for k in exp["kernels"]:
        name = k["kernel_full_name"]
        row = by_name.get(name)
        if row is None:
            chk.bad.append("kernel %r: no row in per_kernel_metrics.csv" % name)
            continue
        chk.record("kernel %r" % name[:40], k, row)
    total = next((r for r in rows if r.get("kernel") == "TOTAL"), None)
    if total is None:
        chk.bad.append("no TOTAL row in per_kernel_metrics.csv")
    chk.record("TOTAL row", exp["whole_run"], total)
    chk.record("summary.json whole_run", exp["whole_run"], summary.get("whole_run"))
    warnings = summary.get("checks", {}).get("warnings", [])
    for rx in exp.get("expect_warnings", []):
        chk.compared += 1
        if not any(re.search(rx, w) for w in warnings):
            chk.bad.append("no warning matches /%s/ (warnings: %s)" % (rx, warnings))
    if "top_kernels" in exp and "top_kernels" not in opts["skip"]:
        chk.compared += 1
        top = list(csv.DictReader(open(adir + "/top_kernels.csv", newline="")))
        got = [r.get("kernel_full_name") for r in top if r.get("kernel") != "TOTAL"]
        if got != exp["top_kernels"]:
            chk.bad.append("top_kernels.csv lists %s, expected %s" % (got, exp["top_kernels"]))
    if len(rows) != len(exp["kernels"]) + 1:
        chk.bad.append("per_kernel_metrics.csv has %d rows, expected %d kernels + TOTAL"
                       % (len(rows), len(exp["kernels"])))
    for b in chk.bad[:40]:
        print("MISMATCH:", b)
    if len(chk.bad) > 40:
        print("... %d more" % (len(chk.bad) - 40))
    if not opts["quiet"] or chk.bad:
        print("%d values compared, %d mismatches (rtol %g)" % (chk.compared, len(chk.bad), opts["rtol"]))
    return 1 if chk.bad else 0


if __name__ == "__main__":
    sys.exit(main())
