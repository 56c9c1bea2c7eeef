#!/usr/bin/env python3
"""energy_report.py - the table of tests/gpu/energy.sh.

usage: energy_report.py W     (W: energy.sh's work folder)

Reads W/logs/stages.tsv, W/logs/gpu.txt, W/check/calibration.md (the
calibration's energy rows: fitted power and attributed energy of each phase
kernel against its power measured directly, the fitted total against the
energy counter) and W/energy_<source>/energy_summary.json (the fit by
source: windows, lag, R², each phase kernel's fitted power ± SE, idle, and
the cross-check totals against the counter). Prints the table last.
"""
import json
import os
import sys

PHASES = ("calib_phase_fma", "calib_phase_copy", "calib_phase_sleep")


def pct(a, b):
    return f"{100 * (a - b) / b:+.2f}%" if a is not None and b else "-"


def main(w):
    out = []
    st = os.path.join(w, "logs", "stages.tsv")
    if os.path.exists(st):
        out.append("stages: " + ", ".join(f"{n} rc={rc} ({float(s):.0f}s)" for n, rc, s in
                                         (l.split("\t") for l in open(st).read().split("\n") if l)))
    gpu = os.path.join(w, "logs", "gpu.txt")
    if os.path.exists(gpu):
        out.append("gpu: " + open(gpu).read().strip().replace("\n", " | "))
    out.append("")
    out.append(f"{'fit source':<22}{'windows':>8}{'win ms':>8}{'lag ms':>8}{'R2':>8}"
               + "".join(f"{p.replace('calib_phase_', ''):>18}" for p in PHASES)
               + f"{'idle W':>10}{'fit total':>11}{'driver':>9}{'power':>9}")
    for src in ("auto", "driver", "counter", "power"):
        f = os.path.join(w, f"energy_{src}", "energy_summary.json")
        if not os.path.exists(f):
            out.append(f"{src:<22}(no result)")
            continue
        j = json.load(open(f))
        fit, x = j["fit"], j["whole_run"]["cross_check"]
        k = {r["kernel"]: r for r in j["kernels"]}
        cells = []
        for p in PHASES:
            r = k.get(p)
            if r and r["power_fit_W"] is not None:
                cells.append(f"{r['power_fit_W']:.1f}±{r['power_fit_se_W'] or 0:.1f} {r['power_fit'][:2]}")
            else:
                cells.append("-")
        name = f"{src} ({fit['source']})" if src == "auto" else src
        if not fit["done"]:
            out.append(f"{name:<22}not fitted: {fit['why_not']}")
            continue
        out.append(f"{name:<22}{fit['windows']:>8}{fit['window_ms'] or 0:>8.1f}{fit['lag_ms'] or 0:>8.2f}"
                   f"{fit['r2'] or 0:>8.4f}" + "".join(f"{c:>18}" for c in cells)
                   + f"{fit['idle_W'] or 0:>10.1f}{pct(x['fit_J'], x['counter_J']):>11}"
                   f"{pct(x['driver_J'], x['counter_J']):>9}{pct(x['power_x_time_J'], x['counter_J']):>9}")
    out.append("(fit total, driver, power: against the energy counter between its first and last "
               "readings in the kernel window)")
    out.append("")
    cal = os.path.join(w, "check", "calibration.md")
    if os.path.exists(cal):
        out.append("calibrate --check-power (calibration.md):")
        for line in open(cal):
            if line.startswith("| ") and ("energy" in line or "long kernel" in line or "check" in line):
                out.append(line.rstrip())
    else:
        out.append("calibrate --check-power: no calibration.md (see logs/check.log)")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
