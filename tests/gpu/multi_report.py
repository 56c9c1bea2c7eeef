"""multi_report.py - the checks of tests/gpu/multi.sh (issue 7) as a table.

usage: python3 multi_report.py W      (W: multi.sh's work folder)

Reads W/logs/stages.tsv, W/logs/gpus.csv (nvidia-smi index, pci.bus_id, ...),
W/runs.tsv (workload, plain, pmc, prof folders) and the run folders in place:
  - kernels per GPU: every counter file (<pmc>/<pass>/*_<pid>_counter_collection
    .csv) and trace file (<prof>/ktrace_<wl>/**/*_<pid>_kernel_trace.csv) must
    hold one GPU only: "ranks" = kernels fma_work<r> of one rank r (each rank
    in exactly one file per pass/trace, launches as the app printed), "ddp" =
    one Agent_Id per file, distinct across the files of a pass;
  - FLOP per GPU from the counters: tensor ops sm__ops_path_tensor_* (1 FLOP
    per op, gh100.json) + SASS FP op counters (an FMA = 2 FLOP), per process
    over all passes; the spread (max - min) / mean must be <= 1 %; "ranks" also
    against the app's expected ffma count;
  - NVML mapping (W/map): the telemetry file of CUDA ordinal 0 under
    CUDA_VISIBLE_DEVICES=1,0 must carry the PCI bus id the app printed and
    nvidia-smi's index 1, and be the one whose power rose;
  - sampler achieved interval per GPU (gaps of consecutive timestamps);
  - analyze: GPU busy % per (file, agent) and averaged; vectors keys.
The table is printed last; each row: check, PASS/FAIL/SKIP, detail.
Exit status 0 (the table is the result; multi.sh always writes it).
"""
import csv
import glob
import json
import os
import re
import statistics
import sys

RANK_KERNEL = re.compile(r"fma_work<(\d+)>")
APP_LINE = re.compile(r"^multi_rank rank=(\d+) pid=(\d+) visible=(\S+) bus=(\S+) "
                      r"launches=(\d+) ffma=(\d+) flop=(\d+)")
HEAVY_BUS = re.compile(r"^multi_rank heavy bus=(\S+)")


class Table:
    def __init__(self):
        self.rows = []

    def add(self, check, ok, detail):
        status = "SKIP" if ok is None else ("PASS" if ok else "FAIL")
        self.rows.append((check, status, detail))

    def text(self):
        w = max([len(r[0]) for r in self.rows] + [5])
        out = [f"{'check':<{w}}  result  detail"]
        out += [f"{c:<{w}}  {s:<6}  {d}" for c, s, d in self.rows]
        return "\n".join(out)


def read_tsv(path):
    try:
        with open(path) as f:
            return [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError:
        return []


def pid_of(path, suffix):
    m = re.search(r"_(\d+)_" + suffix + r"$", os.path.basename(path))
    return int(m.group(1)) if m else None


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def kernels_of(rows):
    """{kernel name: set of dispatch ids}, set of agents."""
    k, agents = {}, set()
    for r in rows:
        name = r.get("Kernel_Name", "")
        did = r.get("Dispatch_Id") or r.get("Correlation_Id") or str(len(k.get(name, ())))
        k.setdefault(name, set()).add(did)
        agents.add(r.get("Agent_Id", ""))
    return k, agents


def counter_files(pmc):
    """{pass: [files]} of a pmc run folder."""
    out = {}
    for f in sorted(glob.glob(os.path.join(pmc, "*", "*_counter_collection.csv"))):
        out.setdefault(os.path.basename(os.path.dirname(f)), []).append(f)
    return out


def trace_files(prof, wl):
    return sorted(glob.glob(os.path.join(prof, f"ktrace_{wl}", "**", "*_kernel_trace.csv"),
                            recursive=True))


def flop_of(rows):
    """FLOP of one counter file: tensor ops x1, SASS FP ops (fma x2, others x1)."""
    total = 0.0
    for r in rows:
        name, v = r.get("Counter_Name", ""), r.get("Counter_Value", "")
        try:
            v = float(v)
        except ValueError:
            continue
        if name.startswith("sm__ops_path_tensor_"):
            total += v
        elif name.startswith("sm__sass_thread_inst_executed_op_") and \
                re.search(r"op_[dhf](add|mul|fma)", name):
            total += 2 * v if "fma" in name else v
    return total


def counter_sum(rows, counter):
    s = 0.0
    for r in rows:
        if r.get("Counter_Name") == counter:
            try:
                s += float(r.get("Counter_Value", "nan"))
            except ValueError:
                pass
    return s


def app_lines(*folders):
    """{pid: (rank, visible, bus, launches, ffma, flop)} from every *.txt/*.log below folders."""
    out = {}
    for d in folders:
        if not d or not os.path.isdir(d):
            continue
        for f in glob.glob(os.path.join(d, "**", "*.txt"), recursive=True) + \
                glob.glob(os.path.join(d, "**", "*.log"), recursive=True):
            try:
                text = open(f, errors="replace").read()
            except OSError:
                continue
            for line in text.splitlines():
                m = APP_LINE.match(line)
                if m:
                    out[int(m.group(2))] = (int(m.group(1)), m.group(3), m.group(4),
                                            int(m.group(5)), int(m.group(6)), int(m.group(7)))
    return out


def gpu_key(wl, k, agents):
    """The GPU of one file: the rank of its fma_work<r> kernels ("ranks") or its
    Agent_Id (others); None when the file holds several."""
    if wl == "ranks":
        keys = {int(m.group(1)) for n in k for m in [RANK_KERNEL.search(n)] if m}
    else:
        keys = set(agents)
    return keys.pop() if len(keys) == 1 else None


def one_gpu_per_file(label, files, wl, apps, ngpus, t):
    """Kernels of each GPU once and only in its own files (one group of files)."""
    if not files:
        t.add(f"{label}: files", False, "no file")
        return
    seen, bad = {}, []
    empty = 0
    for f in files:
        k, agents = kernels_of(csv_rows(f))
        if not k:
            empty += 1          # e.g. a process that never launched a kernel
            continue
        key = gpu_key(wl, k, agents)
        if key is None:
            bad.append(f"{os.path.basename(f)}: several GPUs")
            continue
        if wl == "ranks":
            launches = sum(len(v) for n, v in k.items() if RANK_KERNEL.search(n))
            app = apps.get(pid_of(f, r"(counter_collection|kernel_trace)\.csv"))
            if app and (app[0] != key or app[3] != launches):
                bad.append(f"{os.path.basename(f)}: rank {key} x{launches}, app says rank "
                           f"{app[0]} x{app[3]}")
        if key in seen:
            bad.append(f"GPU {key} in {seen[key]} and {os.path.basename(f)}")
        seen[key] = os.path.basename(f)
    ok = not bad and len(seen) == ngpus
    t.add(f"{label}: one GPU per file", ok,
          f"{len(files)} files ({empty} empty), {len(seen)} GPUs" +
          ("; " + "; ".join(bad[:3]) if bad else ""))


def flops_per_gpu(wl, pmc, apps, t):
    """FLOP per GPU over all passes (each pass is its own run: other pids, so
    the files are grouped by GPU, gpu_key), and per process the ffma count."""
    per_gpu = {}
    ffma = {}
    for ps, files in counter_files(pmc).items():
        for f in files:
            rows = csv_rows(f)
            key = gpu_key(wl, *kernels_of(rows))
            if key is None:
                continue
            per_gpu[key] = per_gpu.get(key, 0.0) + flop_of(rows)
            c = counter_sum(rows, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum")
            if c > 0:
                ffma[pid_of(f, r"counter_collection\.csv")] = c
    vals = [v for v in per_gpu.values() if v > 0]
    if len(vals) < 2:
        t.add(f"{wl}: FLOP per GPU within 1%", None if not vals else False,
              f"{len(vals)} processes with FLOP counters")
        return
    spread = (max(vals) - min(vals)) / statistics.mean(vals) * 100
    t.add(f"{wl}: FLOP per GPU within 1%", spread <= 1.0,
          f"{len(vals)} GPUs, {', '.join(f'{v:.4g}' for v in sorted(vals))} FLOP; "
          f"spread {spread:.3f} %")
    if wl == "ranks" and apps:
        bad = [f"pid {p}: {ffma.get(p, 0):.0f} vs {a[4]}" for p, a in apps.items()
               if p in ffma and ffma[p] != a[4]]
        n = sum(1 for p in apps if p in ffma)
        t.add("ranks: ffma counter = expected", n > 0 and not bad,
              f"{n} processes" + ("; " + "; ".join(bad[:3]) if bad else " exact"))


def gaps_ms(path):
    ts = []
    with open(path) as f:
        f.readline()
        head = f.readline().strip().split(",")
        for line in f:
            p = line.split(",")
            if len(p) == len(head):
                try:
                    ts.append(int(p[0]))
                except ValueError:
                    pass
    return [(b - a) / 1e6 for a, b in zip(ts, ts[1:])]


def telemetry(prof):
    return sorted(f for f in glob.glob(os.path.join(prof, "profiling_result_*.csv"))
                  if not f.endswith("_driver_power.csv"))


def intervals(wl, prof, ngpus, t):
    files = telemetry(prof)
    parts = []
    for f in files:
        g = gaps_ms(f)
        if g:
            g.sort()
            parts.append(f"{os.path.basename(f)}: median {statistics.median(g):.3f} p99 "
                         f"{g[int(0.99 * (len(g) - 1))]:.3f} max {g[-1]:.3f} ms")
    ok = len(parts) == ngpus and all(float(p.split("median ")[1].split()[0]) <= 1.1 for p in parts)
    t.add(f"{wl}: one telemetry file per GPU, ~1 ms", ok if parts else False,
          f"{len(files)} files; " + "; ".join(parts))


def analyze(wl, pmc, t):
    try:
        s = json.load(open(os.path.join(pmc, "analysis", "summary.json")))
    except (OSError, ValueError):
        t.add(f"{wl}: analyze busy %", False, "no analysis/summary.json")
        return
    pr = s.get("power_run") or {}
    per = pr.get("GPU_busy_pct_per_gpu") or []
    ok = bool(per) and all(isinstance(v, (int, float)) for v in per)
    t.add(f"{wl}: GPU busy % per (file, agent)", ok,
          f"{pr.get('gpus')} GPUs: {', '.join(f'{v:.1f}' for v in per if v is not None)}; "
          f"average {pr.get('GPU_busy_pct')}")


def vectors(wl, prof, ngpus, t):
    try:
        pooled = json.load(open(os.path.join(prof, "vectors_pooled.json")))
        per = json.load(open(os.path.join(prof, "vectors_per_gpu.json")))
    except (OSError, ValueError):
        t.add(f"{wl}: vectors", False, "vectors_pooled.json / vectors_per_gpu.json missing")
        return
    keys = [k for k in per if re.search(r"_gpu\d+$", k)]
    gpus = {k.rsplit("_", 1)[1] for k in keys}
    ok = "gfx_frequency" in pooled and len(gpus) == ngpus
    t.add(f"{wl}: vectors pooled + per GPU", ok,
          f"pooled {len([k for k in pooled if k != 'description'])} keys; per-GPU keys for "
          f"{len(gpus)} GPUs")


def mapping(w, t):
    d = os.path.join(w, "map")
    files = {int(re.search(r"_(\d+)\.csv$", f).group(1)): f
             for f in glob.glob(os.path.join(d, "profiling_result_map_[0-9].csv"))}
    if not files:
        t.add("NVML mapping (CUDA_VISIBLE_DEVICES=1,0)", None, "not run")
        return
    smi = {}
    for row in read_tsv(os.path.join(w, "logs", "gpus.csv")):
        p = [x.strip() for x in row[0].split(",")]
        if len(p) >= 2 and p[0].isdigit():
            smi[int(p[0])] = p[1].lower()
    bus = None
    for line in open(os.path.join(w, "logs", "map.log"), errors="replace") if \
            os.path.exists(os.path.join(w, "logs", "map.log")) else []:
        m = HEAVY_BUS.match(line)
        bus = m.group(1).lower() if m else bus
    meta, power = {}, {}
    for g, f in files.items():
        with open(f) as fh:
            first = fh.readline()
        meta[g] = dict(kv.split("=", 1) for kv in first.split() if "=" in kv)
        p = []
        with open(f) as fh:
            fh.readline()
            head = fh.readline().strip().split(",")
            col = head.index("current_socket_power_W") if "current_socket_power_W" in head else 1
            for line in fh:
                x = line.split(",")
                try:
                    p.append(float(x[col]))
                except (ValueError, IndexError):
                    pass
        power[g] = statistics.median(p[len(p) // 3:]) if len(p) > 3 else float("nan")
    def norm(b):
        return b[-12:] if b else ""   # "00000000:19:00.0" vs "0000:19:00.0"
    pci0 = meta.get(0, {}).get("pci", "").lower()
    ok_bus = bool(bus) and norm(pci0) == norm(bus) and norm(smi.get(1)) == norm(bus)
    t.add("NVML ordinal 0 = CUDA device 0 (bus id)", ok_bus,
          f"telemetry 0 pci={pci0 or '?'}, app device 0 bus={bus or '?'}, nvidia-smi index 1 "
          f"bus={smi.get(1, '?')}")
    rose = max(power, key=power.get) if power else None
    t.add("power rise in the right telemetry file", rose == 0 and len(power) >= 2,
          ", ".join(f"file {g}: median {v:.0f} W" for g, v in sorted(power.items())))
    for g, f in sorted(files.items()):
        gp = sorted(gaps_ms(f))
        if gp:
            t.add(f"map sampler GPU {g} interval", statistics.median(gp) <= 1.1,
                  f"median {statistics.median(gp):.3f} ms, max {gp[-1]:.3f} ms, {len(gp) + 1} samples")


def main():
    w = sys.argv[1]
    t = Table()
    ngpus = len([r for r in read_tsv(os.path.join(w, "logs", "gpus.csv"))])
    for r in read_tsv(os.path.join(w, "logs", "stages.tsv")):
        name, rc, secs = (r + ["", ""])[:3]
        t.add(f"stage {name}", rc == "0", f"exit {rc}, {secs} s")
    for wl, plain, pmc, prof in [tuple((r + ["none"] * 4)[:4]) for r in
                                 read_tsv(os.path.join(w, "runs.tsv"))]:
        apps = app_lines(plain, pmc, prof) if wl == "ranks" else {}
        if wl == "ranks":
            t.add("ranks: app lines", len({a[0] for a in apps.values()}) >= ngpus,
                  f"{len(apps)} processes, buses {sorted({a[2] for a in apps.values()})}")
        if os.path.isdir(pmc):
            for ps, files in sorted(counter_files(pmc).items()):
                one_gpu_per_file(f"{wl} pmc {ps}", files, wl, apps, ngpus, t)
            flops_per_gpu(wl, pmc, apps, t)
            analyze(wl, pmc, t)
        if os.path.isdir(prof):
            one_gpu_per_file(f"{wl} trace", trace_files(prof, wl), wl, apps, ngpus, t)
            intervals(wl, prof, ngpus, t)
            vectors(wl, prof, ngpus, t)
    mapping(w, t)
    print(t.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
