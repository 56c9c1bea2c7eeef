#!/usr/bin/env python3
"""compare_ref.py - scipy reference for `benchrun compare` (the Minos method).

  compare_ref.py gen DIR     write the test sets (deterministic) and DIR/cases.tsv:
                             one line per benchrun run: name, metric, method,
                             --nearest value ("-": none), expected exit status,
                             then the inputs
  compare_ref.py check DIR   for every case that should succeed, recompute with
                             scipy.spatial.distance.pdist, scipy.cluster.hierarchy
                             .linkage and .dendrogram(no_plot=True) from the input
                             files (read here with json, never with benchrun) and
                             compare with DIR/out/<name>/: the merge pairs and
                             sizes exactly, heights and distances within 1e-12
                             relative (and count the bit-exact ones), leaf order,
                             link and leaf colours, app_vectors.json, nearest;
                             exit 1 on any difference

Test sets (>= 12 workloads where it matters):
  s16    16 realistic inst_power vectors (histograms of random power traces, four
         "families"), as power-run folders and as vectors files, benchrun and
         seed description layouts, extra keys
  ties   14 vectors with exact ties: 3 identical, 2 identical pairs, unit basis
         vectors (all pairwise distances equal), scaled copies (cosine 0)
  quant  24 vectors of values in {0, 0.25, 0.5, 0.75, 1} over 4 bins: many equal
         distances at every level
  two    2 workloads
  big    300 random vectors (long nearest-neighbour chains)
  zero   a zero vector: cosine and correlation must be refused, euclidean works
Used by tests/cli/0661-compare-scipy.sh; needs python3 with numpy and scipy.
"""
import csv
import json
import math
import os
import random
import sys

import numpy as np
from scipy.cluster.hierarchy import dendrogram, linkage
from scipy.spatial.distance import pdist

EDGES = [0.5 + i * 0.1 for i in range(16)]      # for the description only
METHODS = ["ward", "single", "complete", "average", "weighted"]
METRICS = ["cosine", "correlation", "euclidean", "cityblock"]


def histogram(samples, lo=0.5, step=0.1, n=15):
    """Minos binning of fractions of TDP (enough for test data)."""
    pop = [x for x in samples if x >= lo]
    counts = [0] * n
    for x in pop:
        i = int((x - lo) / step)
        if i < n:
            counts[i] += 1
    return [round(c / len(pop), 4) for c in counts]


def trace(rng, family):
    mean = [0.7, 1.0, 1.3, 1.6][family] + rng.uniform(-0.05, 0.05)
    spread = [0.05, 0.1, 0.15, 0.08][family]
    return [rng.gauss(mean, spread) for _ in range(rng.randint(200, 2000))]


def sampling_doc(label, vec, layout, rng):
    if layout == "seed":
        desc = {"label": label, "gpu": "AMD Instinct MI300X (gfx942)", "gpus_sampled": ["0"],
                "bins": {"inst_power": {"column": "inst_power_W", "bin_edges": EDGES,
                                        "unit": "fraction of TDP (750 W)"}}}
    else:
        desc = {"label": label, "gpu": {"arch": "gfx942"},
                "bins": {"inst_power": {"edges": EDGES, "unit": "fraction of TDP",
                                        "entries": 15}}, "renamed_key": {"x": [1, 2]}}
    doc = {"description": desc, "inst_power": vec, "inst_power_gpu0": vec,
           "gfx_frequency": [round(rng.random(), 4) for _ in range(22)],
           "run_details": {"nested": [1.5, "x"]}}
    return doc


def write_json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def gen_s16(d, rng):
    inputs = []
    for i in range(16):
        vec = histogram(trace(rng, i % 4))
        label = f"app{i:02d} family {i % 4}"
        layout = "seed" if i % 3 == 0 else "benchrun"
        doc = sampling_doc(label, vec, layout, rng)
        if i % 2 == 0:      # a power-run folder holding sampling_vectors.json
            path = os.path.join(d, "s16", f"prof-{1000 + i}")
            write_json(os.path.join(path, "sampling_vectors.json"), doc)
        else:               # a vectors file
            path = os.path.join(d, "s16", f"w{i:02d}.json")
            write_json(path, doc)
        inputs.append(path)
    return inputs


def gen_app(d, name, vectors):
    path = os.path.join(d, name, "app_vectors.json")
    write_json(path, vectors)
    return [path]


def ties_vectors(rng):
    base = [histogram(trace(rng, f)) for f in range(4)]
    v = {}
    v["dup a"] = base[0]
    v["dup b"] = list(base[0])
    v["dup c"] = list(base[0])
    v["pair1 x"] = base[1]
    v["pair1 y"] = list(base[1])
    v["pair2 x"] = base[2]
    v["pair2 y"] = list(base[2])
    for k in range(4):                  # unit basis vectors: all distances 1 (cosine)
        e = [0.0] * 15
        e[3 + k] = 1.0
        v[f"basis {k}"] = e
    v["scaled 1"] = [round(x / 2, 4) for x in base[3]]
    v["scaled 2"] = base[3]
    v["<odd> & \"label\""] = base[1][::-1]
    return v


def quant_vectors(rng):
    vals = [0.0, 0.25, 0.5, 0.75, 1.0]
    out = {}
    while len(out) < 24:
        vec = [rng.choice(vals) for _ in range(4)]
        if any(vec) and len(set(vec)) > 1:          # correlation needs non-constant
            out[f"q{len(out):02d}"] = vec
    return out


def gen(d):
    rng = random.Random(20261201)
    cases = []
    s16 = gen_s16(d, rng)
    for m in METRICS:
        for h in METHODS:
            cases.append((f"s16-{m}-{h}", m, h, "-", 0, s16))
    cases.append(("s16-nearest", "cosine", "ward", "app05 family 1", 0, s16))
    ties = gen_app(d, "ties", ties_vectors(rng))
    quant = gen_app(d, "quant", quant_vectors(rng))
    for m in METRICS:
        for h in METHODS:
            cases.append((f"ties-{m}-{h}", m, h, "-", 0, ties))
            cases.append((f"quant-{m}-{h}", m, h, "-", 0, quant))
    two = gen_app(d, "two", {"first": histogram(trace(rng, 0)), "second": histogram(trace(rng, 2))})
    for h in METHODS:
        cases.append((f"two-cosine-{h}", "cosine", h, "-", 0, two))
    big = gen_app(d, "big", {f"r{i:03d}": [round(rng.random() ** 3, 4) for _ in range(15)]
                             for i in range(300)})
    for h in METHODS:
        cases.append((f"big-cosine-{h}", "cosine", h, "r123", 0, big))
    cases.append(("big-euclidean-ward", "euclidean", "ward", "-", 0, big))
    zero = dict(ties_vectors(rng))
    zero["all zeros"] = [0.0] * 15
    zp = gen_app(d, "zero", zero)
    cases.append(("zero-cosine", "cosine", "ward", "-", 1, zp))
    cases.append(("zero-correlation", "correlation", "average", "-", 1, zp))
    cases.append(("zero-euclidean", "euclidean", "ward", "-", 0, zp))
    with open(os.path.join(d, "cases.tsv"), "w") as f:
        for name, m, h, near, rc, inputs in cases:
            f.write("\t".join([name, m, h, near, str(rc)] + inputs) + "\n")


# ---- check ------------------------------------------------------------------

def label_of(path, doc):
    label = doc["description"].get("label")
    if isinstance(label, str) and label:
        return label
    base = os.path.basename(path.rstrip("/"))
    if base == "sampling_vectors.json":
        return os.path.basename(os.path.dirname(path))
    return base[:-5] if base.endswith(".json") else base


def load(inputs, kind="inst_power"):
    labels, rows = [], []
    for p in inputs:
        f = os.path.join(p, "sampling_vectors.json") if os.path.isdir(p) else p
        with open(f) as fh:
            doc = json.load(fh)
        if isinstance(doc.get("description"), dict):
            labels.append(label_of(f, doc))
            rows.append(doc[kind])
        else:
            for k, v in doc.items():
                labels.append(k)
                rows.append(v)
    return labels, np.array(rows, dtype=float)


def postorder(Z):
    """Rows of Z in the order a left-first walk from the root finishes them."""
    n = len(Z) + 1
    order, stack = [], [(2 * n - 2, False)]
    while stack:
        node, done = stack.pop()
        if node < n:
            continue
        if done:
            order.append(node - n)
            continue
        stack.append((node, True))
        stack.append((int(Z[node - n][1]), False))
        stack.append((int(Z[node - n][0]), False))
    return order


def rel(a, b):
    return 0.0 if a == b else abs(a - b) / max(abs(a), abs(b))


class Checker:
    def __init__(self):
        self.fails = 0
        self.exact = self.values = 0
        self.worst = 0.0

    def fail(self, case, msg):
        print(f"FAIL {case}: {msg}")
        self.fails += 1

    def close(self, case, what, want, got):
        r = rel(want, got)
        self.values += 1
        self.exact += want == got
        self.worst = max(self.worst, r)
        if r > 1e-12:
            self.fail(case, f"{what}: scipy {want!r}, benchrun {got!r} (rel {r:.3g})")

    def linkage(self, case, Z, out, labels):
        with open(os.path.join(out, "linkage.csv")) as f:
            rows = list(csv.DictReader(f))
        if len(rows) != len(Z):
            return self.fail(case, f"{len(rows)} merges, scipy {len(Z)}")
        n = len(labels)
        for i, (z, r) in enumerate(zip(Z, rows)):
            pair = (int(r["cluster_a"]), int(r["cluster_b"]))
            if pair != (int(z[0]), int(z[1])) or int(r["size"]) != int(z[3]):
                return self.fail(case, f"merge {i}: benchrun {pair} size {r['size']}, "
                                       f"scipy {(int(z[0]), int(z[1]))} size {int(z[3])}")
            if int(r["cluster"]) != n + i:
                self.fail(case, f"merge {i}: cluster id {r['cluster']}, expected {n + i}")
            self.close(case, f"merge {i} height", float(z[2]), float(r["height"]))

    def distances(self, case, y, out, labels):
        with open(os.path.join(out, "distances.csv")) as f:
            rows = list(csv.reader(f))
        if rows[0][1:] != labels or [r[0] for r in rows[1:]] != labels:
            return self.fail(case, "distances.csv labels differ from the inputs'")
        n = len(labels)
        k = 0
        for i in range(n):
            if float(rows[i + 1][i + 1]) != 0:
                self.fail(case, f"distance ({i},{i}) is not 0")
            for j in range(i + 1, n):
                self.close(case, f"distance ({i},{j})", float(y[k]), float(rows[i + 1][j + 1]))
                self.close(case, f"distance ({j},{i})", float(y[k]), float(rows[j + 1][i + 1]))
                k += 1

    def dendro(self, case, Z, out, labels):
        R = dendrogram(Z, no_plot=True)
        with open(os.path.join(out, "compare.json")) as f:
            cj = json.load(f)
        leaves = [labels[i] for i in R["leaves"]]
        if cj["leaves"] != leaves:
            self.fail(case, f"leaf order {cj['leaves']} != scipy {leaves}")
        colours = {labels[i]: c for i, c in zip(R["leaves"], R["leaves_color_list"])}
        got = {w["label"]: w["color"] for w in cj["workloads"]}
        if got != colours:
            self.fail(case, f"leaf colours {got} != scipy {colours}")
        self.close(case, "colour threshold", max(Z[:, 2]) * 0.7, cj["color_threshold"])
        # scipy appends a link's colour after both of its subtrees (post-order)
        with open(os.path.join(out, "linkage.csv")) as f:
            mine = [r["color"] for r in csv.DictReader(f)]
        want = [None] * len(Z)
        for k, row in enumerate(postorder(Z)):
            want[row] = R["color_list"][k]
        if mine != want:
            self.fail(case, f"link colours by merge {mine} != scipy {want}")

    def app_vectors(self, case, X, out, labels):
        with open(os.path.join(out, "app_vectors.json")) as f:
            av = json.load(f)
        if list(av.keys()) != labels or any(av[l] != list(X[i]) for i, l in enumerate(labels)):
            self.fail(case, "app_vectors.json differs from the inputs")

    def nearest(self, case, y, out, labels, query):
        n = len(labels)
        from scipy.spatial.distance import squareform
        D = squareform(y)
        q = labels.index(query)
        order = [j for j in np.argsort(D[q], kind="stable") if j != q][:5]
        with open(os.path.join(out, "compare.json")) as f:
            cj = json.load(f)
        got = [(e["label"], e["distance"]) for e in cj["nearest"]["neighbours"]]
        want = [(labels[j], float(D[q][j])) for j in order]
        if [g[0] for g in got] != [w[0] for w in want]:
            self.fail(case, f"nearest {got} != scipy {want}")
        for (gl, gd), (wl, wd) in zip(got, want):
            self.close(case, f"nearest {gl}", wd, gd)
        if n < 6 and len(got) != n - 1:
            self.fail(case, "nearest: wrong count")


def check(d):
    c = Checker()
    ncases = tied = 0
    with open(os.path.join(d, "cases.tsv")) as f:
        for line in f:
            name, metric, method, near, rc, *inputs = line.rstrip("\n").split("\t")
            if rc != "0":
                continue
            ncases += 1
            out = os.path.join(d, "out", name)
            labels, X = load(inputs)
            y = pdist(X, metric)
            Z = linkage(y, method)
            heights = list(Z[:, 2])
            tied += len(heights) != len(set(heights))
            c.linkage(name, Z, out, labels)
            c.distances(name, y, out, labels)
            c.dendro(name, Z, out, labels)
            c.app_vectors(name, X, out, labels)
            if near != "-":
                c.nearest(name, y, out, labels, near)
    print(f"{ncases} cases ({tied} with equal merge heights), {c.values} values compared with "
          f"scipy: {c.exact} bit-exact, largest relative difference {c.worst:.3g}; "
          f"{c.fails} failure(s)")
    if tied < 20:
        print("FAIL: the test sets should hold ties in at least 20 cases")
        return 1
    return 1 if c.fails or ncases == 0 else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(sys.argv[2])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
