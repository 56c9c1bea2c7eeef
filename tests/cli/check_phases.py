#!/usr/bin/env python3
"""check_phases.py - per-kernel attributed energy of a calib.cu power-phases run
against the truth measured directly, in code of its own (not benchrun's).

usage: check_phases.py PROF_DIR ENERGY_CSV TOL_PCT

Direct power of a phase kernel (calib_phase_fma/copy/sleep): the mean of the
NVML driver power samples (*_driver_power.csv; sample t covers [t - period, t),
period = the median step) that lie inside a launch of >= 190 ms from 100 ms
after its start (the sensor has settled) to its end, pooled over the kernel's
long launches. Truth = direct power x the kernel's total running time (all its
launches, the kernel trace). Checks |energy_J - truth| <= TOL_PCT % of truth
and prints each phase's error for both energy_J and energy_time_J.
"""
import csv
import glob
import os
import statistics
import sys

PHASES = ["calib_phase_fma", "calib_phase_copy", "calib_phase_sleep"]


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    prof, ecsv, tol = argv[1], argv[2], float(argv[3])
    drv = glob.glob(os.path.join(prof, "*_driver_power.csv"))
    kt = glob.glob(os.path.join(prof, "**", "*kernel_trace.csv"), recursive=True)
    if len(drv) != 1 or len(kt) != 1:
        print(f"want one driver file and one kernel trace: {drv} {kt}", file=sys.stderr)
        return 2
    with open(drv[0]) as f:
        next(f)                                  # the key=value line
        samples = [(int(r["timestamp_ns"]), float(r["power_W"])) for r in csv.DictReader(f)]
    period = statistics.median(b[0] - a[0] for a, b in zip(samples, samples[1:]))
    launches = {}
    with open(kt[0]) as f:
        for r in csv.DictReader(f):
            launches.setdefault(r["Kernel_Name"], []).append(
                (int(r["Start_Timestamp"]), int(r["End_Timestamp"])))
    rows = {r["kernel"]: r for r in csv.DictReader(open(ecsv))}
    fails = 0
    for k in PHASES:
        vals = [p for a, b in launches[k] if b - a >= 190_000_000
                for t, p in samples if t - period >= a + 100_000_000 and t <= b]
        time_s = sum(b - a for a, b in launches[k]) * 1e-9
        truth = statistics.fmean(vals) * time_s
        got, by_time = float(rows[k]["energy_J"]), float(rows[k]["energy_time_J"])
        err, terr = 100 * (got - truth) / truth, 100 * (by_time - truth) / truth
        ok = abs(err) <= tol
        fails += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {k}: direct {statistics.fmean(vals):.1f} W x "
              f"{time_s:.4f} s = {truth:.1f} J; energy_J {got:.1f} J ({err:+.2f} %, within "
              f"{tol:g} %); energy_time_J {by_time:.1f} J ({terr:+.2f} %)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
