#!/usr/bin/env python3
"""check_energy.py - an energy analysis against gen_power's expected_energy.json.

usage: check_energy.py EXPECTED ENERGY_CSV [--fit exact|se|skip] [--lag MS TOL]
                       [--no-bound] [--weighted-pct P|none]

ENERGY_CSV: energy_per_kernel.csv of `benchrun energy`. Checks, per kernel,
copy class and idle, with the tolerances gen_power derived (its header):
  - launches and running time equal;
  - energy_time_J (the split by overlap time) equals attr_J (gen_power's own
    brute-force split of the printed sensor values) within attr_tol_J;
  - |energy_time_J - true_J| <= attr_bound_J (that split's error bound),
    unless --no-bound or the bound is null (inexact sensor);
  - energy_J (the split by overlap time x fitted power) within P % of true_J
    (default 1: exact sensors), and the TOTAL's within P % of the true total;
    none: not checked (a sensor whose segments misplace energy in time);
  - clock_running_MHz equals clock_MHz (relative 1e-9);
  - TOTAL energy_time_J equals the total of attr_J;
  - fit, exact: power_fit ok and |power_fit_W - true_W| <= fit_tol_W;
    fit, se: |power_fit_W - true_W| <= 4 power_fit_se_W + fit_tol_W and the
    SE at most 5 % of the power (a fit that says nothing fails).
Prints one line per check; exit 1 on any failure.
"""
import csv
import json
import math
import sys


def main(argv):
    args = argv[1:]
    fit, lag, bound, wpct = "exact", None, True, 1.0
    if "--fit" in args:
        i = args.index("--fit")
        fit = args[i + 1]
        del args[i:i + 2]
    if "--lag" in args:
        i = args.index("--lag")
        lag = (float(args[i + 1]), float(args[i + 2]))
        del args[i:i + 3]
    if "--weighted-pct" in args:
        i = args.index("--weighted-pct")
        wpct = None if args[i + 1] == "none" else float(args[i + 1])
        del args[i:i + 2]
    if "--no-bound" in args:
        args.remove("--no-bound")
        bound = False
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    exp = json.load(open(args[0]))
    rows = {r["kernel"]: r for r in csv.DictReader(open(args[1]))}
    fails = 0

    def check(ok, what):
        nonlocal fails
        print(("ok   " if ok else "FAIL ") + what)
        fails += not ok

    def num(r, k):
        v = r.get(k, "")
        return float(v) if v not in ("", None) else math.nan

    classes = [(k, v) for k, v in exp["kernels"].items()]
    classes += [("copy " + k, v) for k, v in exp["copies"].items()]
    classes.append(("idle", exp["idle"]))
    for name, e in classes:
        r = rows.get(name)
        if r is None:
            check(False, f"{name}: row present")
            continue
        if name != "idle":
            check(int(float(r["launches"])) == e["launches"],
                  f"{name}: launches {r['launches']} == {e['launches']}")
            t = num(r, "time_ms")
            check(abs(t - e["time_ns"] / 1e6) <= 1e-9 * t + 1e-9,
                  f"{name}: time {t} ms == {e['time_ns'] / 1e6}")
            c = num(r, "clock_running_MHz")
            check(abs(c - e["clock_MHz"]) <= 1e-9 * c, f"{name}: clock {c} == {e['clock_MHz']:.10g}")
        tj = num(r, "energy_time_J")
        check(abs(tj - e["attr_J"]) <= e["attr_tol_J"],
              f"{name}: time split {tj:.10g} J == split {e['attr_J']:.10g} ± {e['attr_tol_J']:.2g}")
        if bound and e["attr_bound_J"] is not None:
            err = abs(tj - e["true_J"])
            check(err <= e["attr_bound_J"],
                  f"{name}: |time split - true| {err:.4g} J <= bound {e['attr_bound_J']:.4g} "
                  f"(true {e['true_J']:.6g} J, {100 * err / e['true_J']:.2f} %)")
        if wpct is not None:
            en = num(r, "energy_J")
            err = 100 * (en - e["true_J"]) / e["true_J"]
            check(abs(err) <= wpct and r["energy_method"] == "fit-weighted",
                  f"{name}: energy {en:.8g} J vs true {e['true_J']:.8g}: {err:+.3f} % within "
                  f"{wpct} % ({r['energy_method']})")
        if fit == "skip":
            continue
        fw, se, tw = num(r, "power_fit_W"), num(r, "power_fit_se_W"), e["true_W"]
        if fit == "exact":
            check(r["power_fit"] == "ok" and abs(fw - tw) <= e["fit_tol_W"],
                  f"{name}: fit {fw:.9g} W == true {tw} ± {e['fit_tol_W']:.2g} ({r['power_fit']})")
        else:
            tol = 4 * se + e["fit_tol_W"]
            check(r["power_fit"] == "ok" and abs(fw - tw) <= tol and se <= 0.05 * tw,
                  f"{name}: fit {fw:.6g} ± {se:.3g} W vs true {tw}: |err| {abs(fw - tw):.3g} "
                  f"<= 4 SE, SE <= 5 % ({r['power_fit']})")
    tot = num(rows["TOTAL"], "energy_time_J")
    check(abs(tot - exp["total"]["attr_J"]) <= exp["total"]["attr_tol_J"],
          f"TOTAL: time split {tot:.10g} J == {exp['total']['attr_J']:.10g} "
          f"(true {exp['total']['true_J']:.10g})")
    if wpct is not None:
        tot, true = num(rows["TOTAL"], "energy_J"), exp["total"]["true_J"]
        check(abs(tot - true) <= wpct / 100 * true,
              f"TOTAL: energy {tot:.10g} J vs true {true:.10g} within {wpct} %")
    if lag is not None:
        js = json.load(open(args[1].replace("energy_per_kernel.csv", "energy_summary.json")))
        got = js["fit"]["lag_ms"]
        check(got is not None and abs(got - lag[0]) <= lag[1], f"lag {got} ms == {lag[0]} ± {lag[1]}")
    print(f"check_energy: {fails} failure(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
