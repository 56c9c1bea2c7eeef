#!/usr/bin/env python3
"""seed_compare.py - compares benchrun's outputs with the seed flow's own.

usage: seed_compare.py SEED_DIR OURS_DIR [--map FROM=TO]... [--prose]

SEED_DIR holds what the seed's postprocess_pmc.py and build_sampling_json.py
wrote (tests/fixtures/seed-reference: seed-output/); OURS_DIR what benchrun
wrote from the same inputs with the same command lines, under the same
relative names. Written independently of benchrun's code: it knows only the
seed's files. Rules (README "The seed's own outputs"):

- every seed file exists under the same name (*.stdout are the seed's
  terminal output and not compared);
- CSV: the seed's columns come first and in the seed's order (benchrun may
  add columns after them); the same rows in the same order; every seed cell
  equal: numbers within 1e-9 relative, an integer literal stays an integer
  literal, "nan" stays "nan", an empty cell stays empty, text equal;
- JSON: every seed key present (in any order), with the same
  type (int, float, str, bool, null, list, object) and value (floats within
  1e-9 relative); lists of the same length; benchrun may add keys;
- report.md: the seed's sections (headings and bold labels such as
  **Warnings:**) come first and in the seed's order; in each, every seed
  table has the seed's columns first and the same rows with the same cells.
  Prose lines are not compared (the seed's name its own files, e.g.
  post_processing_formulae.md); --prose lists the seed's prose lines that
  benchrun's section lacks, for reading.

Paths in the seed's text start with the folders it ran in; --map FROM=TO
rewrites them (longest FROM first) before comparing (a seed string that
equals benchrun's as it is, e.g. run_info.txt lines copied verbatim, is
equal too). Every difference is
printed, one per line ("FILE: WHERE: what"), then a count per file; exit 1
when there is any, 0 when none, 2 on a usage error.
"""
import csv
import json
import math
import os
import re
import sys

REL = 1e-9
PROSE = False
INT_RE = re.compile(r"^[+-]?\d+$")


class Report:
    def __init__(self):
        self.diffs = []

    def add(self, where, what):
        self.diffs.append((where, what))


def mapper(pairs):
    pairs = sorted(pairs, key=lambda p: -len(p[0]))

    def m(s):
        for a, b in pairs:
            s = s.replace(a, b)
        return s
    return m


def is_number(s):
    try:
        v = float(s)
    except ValueError:
        return False
    return math.isfinite(v)


def close(a, b):
    if a == b:
        return True
    return abs(a - b) <= REL * max(abs(a), abs(b))


# ---- CSV ----

def cell_diff(seed, ours, pmap):
    """None when equal, else what differs."""
    if seed == ours:    # data copied verbatim keeps the seed's own paths
        return None
    seed = pmap(seed)
    if seed == ours:
        return None
    if seed == "" or ours == "":
        return "seed %r, benchrun %r" % (seed, ours)
    if seed.lower() == "nan" or ours.lower() == "nan":
        return "seed %r, benchrun %r" % (seed, ours)
    if is_number(seed):
        if not is_number(ours):
            return "seed %r, benchrun %r (not a number)" % (seed, ours)
        if INT_RE.match(seed) and not INT_RE.match(ours):
            return "seed integer %r, benchrun %r (not an integer literal)" % (seed, ours)
        if not close(float(seed), float(ours)):
            return "seed %s, benchrun %s" % (seed, ours)
        return None
    return "seed %r, benchrun %r" % (seed, ours)


def compare_csv(name, seed_path, ours_path, rep, pmap):
    with open(seed_path, newline="") as f:
        seed = list(csv.reader(f))
    with open(ours_path, newline="") as f:
        ours = list(csv.reader(f))
    if not seed:
        return
    if not ours:
        rep.add(name, "empty file")
        return
    sh, oh = seed[0], ours[0]
    for i, col in enumerate(sh):
        got = oh[i] if i < len(oh) else None
        if got != col:
            where = "not present" if col not in oh else "at position %d" % (oh.index(col) + 1)
            rep.add(name, "column %d: seed %r, benchrun %r (%r is %s)" % (i + 1, col, got, col, where))
    ocol = {c: i for i, c in enumerate(oh)}
    srows, orows = seed[1:], ours[1:]
    if len(srows) != len(orows):
        rep.add(name, "rows: seed %d, benchrun %d" % (len(srows), len(orows)))
    for r in range(min(len(srows), len(orows))):
        srow, orow = srows[r], orows[r]
        label = "row %d (%s)" % (r + 2, srow[0] if srow else "")
        for i, col in enumerate(sh):
            if col not in ocol:
                continue
            s = srow[i] if i < len(srow) else ""
            o = orow[ocol[col]] if ocol[col] < len(orow) else ""
            d = cell_diff(s, o, pmap)
            if d:
                rep.add(name, "%s: %s: %s" % (label, col, d))


# ---- JSON ----

def jtype(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return "list"
    return "object"


def short(v):
    s = json.dumps(v)
    return s if len(s) <= 120 else s[:117] + "..."


def compare_value(name, path, s, o, rep, pmap):
    ts, to = jtype(s), jtype(o)
    if ts != to:
        rep.add(name, "%s: type: seed %s %s, benchrun %s %s" % (path, ts, short(s), to, short(o)))
        return
    if ts == "object":
        keys = [k for k in s if k in o]
        for k in s:
            if k not in o:
                rep.add(name, "%s: key %r missing (seed value %s)" % (path, k, short(s[k])))
        for k in keys:
            compare_value(name, "%s.%s" % (path, k), s[k], o[k], rep, pmap)
    elif ts == "list":
        if len(s) != len(o):
            rep.add(name, "%s: length: seed %d, benchrun %d" % (path, len(s), len(o)))
        for i in range(min(len(s), len(o))):
            compare_value(name, "%s[%d]" % (path, i), s[i], o[i], rep, pmap)
    elif ts == "float":
        if not close(s, o):
            rep.add(name, "%s: seed %r, benchrun %r" % (path, s, o))
    elif ts == "str":
        if s != o and pmap(s) != o:
            rep.add(name, "%s: seed %r, benchrun %r" % (path, pmap(s), o))
    elif s != o:
        rep.add(name, "%s: seed %r, benchrun %r" % (path, s, o))


def compare_json(name, seed_path, ours_path, rep, pmap):
    with open(seed_path) as f:
        seed = json.load(f)
    try:
        with open(ours_path) as f:
            ours = json.load(f)
    except ValueError as e:
        rep.add(name, "not valid JSON: %s" % e)
        return
    compare_value(name, "$", seed, ours, rep, pmap)


# ---- report.md ----

MARK_RE = re.compile(r"^(#{1,6} .*|\*\*[^*]+:\*\*)\s*$")


def sections(text):
    """[(marker, [lines])], the lines before the first marker under ''."""
    out = [("", [])]
    for line in text.splitlines():
        if MARK_RE.match(line):
            out.append((line.strip(), []))
        else:
            out[-1][1].append(line.rstrip())
    return out


def split_row(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)]


def blocks(lines):
    """Tables (lists of rows, separator dropped) and other non-empty lines."""
    tables, other, cur = [], [], None
    for line in lines:
        if line.startswith("|"):
            if cur is None:
                cur = []
                tables.append(cur)
            if not re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", line):
                cur.append(split_row(line))
        else:
            cur = None
            if line.strip():
                other.append(line)
    return tables, other


def compare_section(name, marker, slines, olines, rep, pmap):
    where = "section %r" % (marker or "(before the first heading)")
    st, so = blocks([pmap(x) for x in slines])
    ot, oo = blocks(olines)
    for line in so if PROSE else []:
        if line not in oo:
            print("prose: %s: %s: %r" % (name, where, line))
    if len(ot) < len(st):
        rep.add(name, "%s: tables: seed %d, benchrun %d" % (where, len(st), len(ot)))
    for t in range(min(len(st), len(ot))):
        s, o = st[t], ot[t]
        tw = "%s: table %d" % (where, t + 1)
        shead, ohead = s[0], o[0]
        for i, col in enumerate(shead):
            got = ohead[i] if i < len(ohead) else None
            if got != col:
                rep.add(name, "%s: column %d: seed %r, benchrun %r" % (tw, i + 1, col, got))
        if len(s) != len(o):
            rep.add(name, "%s: rows: seed %d, benchrun %d" % (tw, len(s) - 1, len(o) - 1))
        for r in range(1, min(len(s), len(o))):
            for i, cell in enumerate(s[r]):
                got = o[r][i] if i < len(o[r]) else None
                if got != cell:
                    col = shead[i] if i < len(shead) else "#%d" % (i + 1)
                    rep.add(name, "%s: row %d (%s): %s: seed %r, benchrun %r"
                            % (tw, r, s[r][0], col, cell, got))


def compare_md(name, seed_path, ours_path, rep, pmap):
    with open(seed_path) as f:
        seed = sections(f.read())
    with open(ours_path) as f:
        ours = sections(f.read())
    smarks = [m for m, _ in seed]
    omarks = [m for m, _ in ours]
    for i, m in enumerate(smarks):
        got = omarks[i] if i < len(omarks) else None
        if got != pmap(m):
            where = "not present" if pmap(m) not in omarks else "section %d" % omarks.index(pmap(m))
            rep.add(name, "section %d: seed %r, benchrun %r (seed's is %s)" % (i, pmap(m), got, where))
    ob = {m: lines for m, lines in ours}
    for m, lines in seed:
        if pmap(m) in ob:
            compare_section(name, pmap(m), lines, ob[pmap(m)], rep, pmap)


def main(argv):
    args, pairs = [], []
    i = 0
    while i < len(argv):
        if argv[i] == "--prose":
            global PROSE
            PROSE = True
            i += 1
        elif argv[i] == "--map" and i + 1 < len(argv) and "=" in argv[i + 1]:
            pairs.append(tuple(argv[i + 1].split("=", 1)))
            i += 2
        elif argv[i].startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    seed_dir, ours_dir = args
    pmap = mapper(pairs)
    rep = Report()
    names = []
    for root, _, files in os.walk(seed_dir):
        for f in files:
            if not f.endswith(".stdout"):
                names.append(os.path.relpath(os.path.join(root, f), seed_dir))
    for name in sorted(names):
        sp, op = os.path.join(seed_dir, name), os.path.join(ours_dir, name)
        if not os.path.isfile(op):
            rep.add(name, "missing: benchrun wrote no %s" % name)
            continue
        if name.endswith(".csv"):
            compare_csv(name, sp, op, rep, pmap)
        elif name.endswith(".json"):
            compare_json(name, sp, op, rep, pmap)
        elif name.endswith(".md"):
            compare_md(name, sp, op, rep, pmap)
        elif open(sp, "rb").read() != open(op, "rb").read():
            rep.add(name, "contents differ")
    for where, what in rep.diffs:
        print("%s: %s" % (where, what))
    counts = {}
    for where, _ in rep.diffs:
        counts[where] = counts.get(where, 0) + 1
    for name in sorted(names):
        print("%s: %d difference(s)" % (name, counts.get(name, 0)))
    print("%d difference(s) in %d file(s)" % (len(rep.diffs), len(names)))
    return 1 if rep.diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
