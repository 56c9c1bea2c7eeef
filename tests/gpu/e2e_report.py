"""e2e_report.py - the short table of tests/gpu/e2e.sh (issue 5 checks).

usage: python3 e2e_report.py WORKDIR     (WORKDIR/logs holds stages.tsv, runs.tsv)

For each workload: stage exit statuses, data-check warnings of the analysis,
the NVML sampler's achieved interval and source refresh rate, the driver's
power sample spacing, trace/sample clock alignment (kernel window inside the
sampled span, CUPTI clock drift and offset spread), GPU busy %, and the top
kernels with their bound labels (a GEMM/convolution kernel labelled `latency`
at these sizes is flagged). Then the calibration summary. Missing files give
"n/a", never an exception."""
import csv
import glob
import json
import os
import re
import statistics
import sys

W = sys.argv[1]
L = os.path.join(W, "logs")
PROBLEMS = []


def load_json(path):
    try:
        with open(path) as fp:
            return json.load(fp)
    except (OSError, ValueError):
        return None


def rows(path, sep="\t"):
    try:
        with open(path) as fp:
            return [line.rstrip("\n").split(sep) for line in fp if line.strip()]
    except OSError:
        return []


def fmt(v, spec=".1f"):
    return "n/a" if v is None else format(v, spec)


def stages():
    print("stages (exit status, seconds)")
    for name, rc, secs in rows(os.path.join(L, "stages.tsv")):
        flag = "" if rc == "0" else "   <-- FAILED"
        if rc != "0":
            PROBLEMS.append(f"stage {name} exited {rc}")
        print(f"  {name:22s} {rc:>3s} {float(secs):8.1f}{flag}")


def sampler(prof):
    js = sorted(glob.glob(os.path.join(prof, "sampler_*.json")))
    j = load_json(js[0]) if js else None
    if not j:
        return "sampler: n/a"
    g = (j.get("gpus") or [{}])[0]
    return (f"sampler: {j.get('samples')} samples, requested {fmt(j.get('interval_requested_ms'), '.3f')} ms, "
            f"achieved median {fmt(j.get('interval_achieved_median_ms'), '.3f')} ms, "
            f"p99 {fmt(j.get('interval_achieved_p99_ms'), '.3f')} ms, max gap "
            f"{fmt(j.get('interval_achieved_max_gap_ms'), '.2f')} ms; source refresh "
            f"{fmt(g.get('source_refresh_hz'))} Hz ({g.get('source')}); sampler CPU "
            f"{fmt(j.get('sampler_cpu_s'), '.2f')} s")


def column(path, name, skip_meta=True):
    out = []
    try:
        with open(path) as fp:
            if skip_meta:
                fp.readline()
            for r in csv.DictReader(fp):
                try:
                    out.append(float(r[name]))
                except (KeyError, ValueError, TypeError):
                    pass
    except OSError:
        pass
    return out


def driver_power(prof):
    fs = sorted(glob.glob(os.path.join(prof, "*_driver_power.csv")))
    if not fs:
        PROBLEMS.append(f"no driver power samples in {prof}")
        return "driver power samples: none"
    t = column(fs[0], "timestamp_ns")
    gaps = [(b - a) / 1e6 for a, b in zip(t, t[1:])]
    if not gaps:
        return "driver power samples: too few"
    med = statistics.median(gaps)
    if not 10 <= med <= 30:
        PROBLEMS.append(f"driver power samples {med:.1f} ms apart (expected ~20)")
    return (f"driver power samples: {len(t)}, median gap {med:.1f} ms, min {min(gaps):.1f}, "
            f"max {max(gaps):.1f} ms")


def trace_window(prof):
    first, last = None, None
    for f in glob.glob(os.path.join(prof, "**", "*kernel_trace.csv"), recursive=True):
        with open(f, newline="") as fp:
            for r in csv.DictReader(fp):
                try:
                    s, e = int(r["Start_Timestamp"]), int(r["End_Timestamp"])
                except (KeyError, ValueError):
                    continue
                first = s if first is None else min(first, s)
                last = e if last is None else max(last, e)
    return first, last


def alignment(prof):
    first, last = trace_window(prof)
    tel = [f for f in glob.glob(os.path.join(prof, "profiling_result_*.csv"))
           if not f.endswith("_driver_power.csv")]
    t = column(tel[0], "timestamp_ns") if tel else []
    parts = []
    if first is not None and t:
        inside = t[0] <= first and last <= t[-1]
        parts.append(f"kernel window {(last - first) / 1e9:.2f} s "
                     f"{'inside' if inside else 'NOT inside'} sampled span "
                     f"(first kernel {(first - t[0]) / 1e6:+.1f} ms after first sample, "
                     f"last kernel end {(t[-1] - last) / 1e6:.1f} ms before last sample)")
        if not inside:
            PROBLEMS.append(f"{prof}: kernel window not inside the sampled span")
    else:
        parts.append("kernel window or samples: n/a")
        PROBLEMS.append(f"{prof}: no kernel trace or no telemetry")
    cj = sorted(glob.glob(os.path.join(prof, "**", "*_cupti.json"), recursive=True))
    j = load_json(cj[0]) if cj else None
    if j:
        clk = j.get("clock") or {}   # the companion's "clock" object (trace.c)
        offs = [p.get("offset_ns") for p in clk.get("points", []) if p.get("offset_ns") is not None]
        spread = (max(offs) - min(offs)) / 1e3 if len(offs) > 1 else None
        parts.append(f"CUPTI clock: drift {fmt(clk.get('drift_ppm'), '.4f')} ppm, offset spread "
                     f"{fmt(spread, '.1f')} us over {len(offs)} points")
    return "; ".join(parts)


GEMM = re.compile(r"gemm|xmma|cutlass|nvjet|sm90_|conv|implicit", re.I)


def analysis(pmc):
    s = load_json(os.path.join(pmc, "analysis", "summary.json")) or {}
    warns = (s.get("checks") or {}).get("warnings") or []
    pr = s.get("power_run") or {}
    ck = s.get("clock") or {}
    print(f"  GPU busy {fmt(pr.get('GPU_busy_pct'))} % (power run), dispatches {pr.get('dispatches')}, "
          f"clock {fmt(ck.get('clock_MHz'), '.0f')} MHz ({ck.get('source')})")
    print(f"  data-check warnings: {len(warns)}")
    for w in warns[:8]:
        print(f"    - {w}")
    if warns:
        PROBLEMS.append(f"{os.path.basename(pmc)}: {len(warns)} data-check warning(s) to explain")
    top = os.path.join(pmc, "analysis", "top_kernels.csv")
    try:
        with open(top, newline="") as fp:
            tk = [r for r in csv.DictReader(fp) if r.get("kernel") != "TOTAL"]
    except OSError:
        print("  top kernels: n/a")
        return
    print("  top kernels (time %, total TF/s, BW util %, bound):")
    for r in tk[:6]:
        name = r.get("kernel", "")
        bad = GEMM.search(name + r.get("kernel_full_name", "")) and r.get("bound") == "latency"
        if bad:
            PROBLEMS.append(f"GEMM/conv kernel labelled latency: {name[:60]}")
        print(f"    {r.get('time %', ''):>6s} {r.get('total TF/s', ''):>8s} {r.get('BW util %', ''):>7s} "
              f"{r.get('bound', ''):8s} {name[:70]}{'   <-- GEMM as latency' if bad else ''}")


def calibration():
    md = os.path.join(L, "calibration.md")
    st = [r for r in rows(md, "|") if len(r) > 5 and r[4].strip() in ("ok", "MISS", "skip")]
    if not st:
        print("calibration: n/a")
        return
    miss = [r for r in st if r[4].strip() == "MISS"]
    print(f"calibration: {len(st)} checks, {sum(r[4].strip() == 'ok' for r in st)} ok, "
          f"{len(miss)} missed, {sum(r[4].strip() == 'skip' for r in st)} skipped")
    for r in miss:
        print(f"    MISS {r[1].strip()}: expected {r[2].strip()}, measured {r[3].strip()}")
        PROBLEMS.append(f"calibration miss: {r[1].strip()}")


def main():
    gpu = rows(os.path.join(L, "gpu.txt"), "\n")
    print("GPU: " + " | ".join(g[0] for g in gpu))
    stages()
    for wl, pmc, prof in rows(os.path.join(L, "runs.tsv")):
        print(f"{wl}:")
        if pmc != "none":
            analysis(pmc)
        if prof != "none":
            print("  " + sampler(prof))
            print("  " + driver_power(prof))
            print("  " + alignment(prof))
    calibration()
    al = os.path.join(L, "calib_align_check.txt")
    if os.path.exists(al):
        print("long kernel under sample + trace (no power stage): " +
              "; ".join(l.strip() for l in open(al) if l.startswith("long kernel")))
    ncu = os.path.join(L, "calib_ncu.txt")
    if os.path.exists(ncu):
        print("calibration kernels under ncu (ground truth, independent of benchrun):")
        print("".join("  " + l for l in open(ncu)))
    print(f"e2e: {len(PROBLEMS)} problem(s)")
    for p in PROBLEMS:
        print(f"  - {p}")


if __name__ == "__main__":
    main()
