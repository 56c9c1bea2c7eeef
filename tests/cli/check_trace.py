#!/usr/bin/env python3
"""check_trace.py - a power_trace.json as Perfetto's and chrome://tracing's
JSON importer expect it (Trace Event Format: traceEvents, ts/dur in us,
"X" slices that nest per (pid, tid), "C" counters, "M" names).

usage: check_trace.py TRACE.json GPUS SLICES
GPUS: processes expected (one per GPU); SLICES: "X" events expected in all
(-1: do not check). Prints the problems; exit 1 when there is one.
"""
import json
import sys


def main(path, gpus, slices):
    d = json.load(open(path))
    ev = d["traceEvents"]
    bad = []
    names = {e["pid"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    if len(names) != gpus:
        bad.append(f"{len(names)} process_name events, expected {gpus}")
    lanes, counters, n = {}, {}, 0
    for e in ev:
        ph = e.get("ph")
        if ph == "X":
            n += 1
            for k in ("pid", "tid", "ts", "dur", "name"):
                if k not in e:
                    bad.append(f"X event without {k}: {e}")
            if e["dur"] < 0:
                bad.append(f"negative dur: {e}")
            lanes.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
        elif ph == "C":
            if not isinstance(e.get("args"), dict) or not e["args"]:
                bad.append(f"counter without args: {e}")
            counters.setdefault(e["pid"], set()).add(e["name"])
        elif ph != "M":
            bad.append(f"unexpected phase {ph}")
    for (pid, tid), v in lanes.items():
        v.sort()
        for (a0, a1), (b0, b1) in zip(v, v[1:]):
            if b0 < a1 - 1e-3:
                bad.append(f"pid {pid} tid {tid}: slices overlap at {b0} (< {a1})")
                break
    for pid in names:
        for c in ("power (W)", "gfx clock (MHz)", "temperature (C)"):
            if c not in counters.get(pid, set()):
                bad.append(f"pid {pid}: no '{c}' counter")
    if slices >= 0 and n != slices:
        bad.append(f"{n} slices, expected {slices}")
    for b in bad[:20]:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
