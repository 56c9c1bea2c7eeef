#!/bin/bash
# 0655-vectors-seed-folder: `benchrun vectors` on the seed's power folder
# (tests/fixtures/seed-reference prof-900002: no run.json, the seed sampler's
# telemetry format, a padded run_info.txt): the arch from run_info.txt, else
# MI300X for the seed's format (warned, in the description too); the seed's
# description keys and value types; --dendrogram-dir and $DENDROGRAM_DIR run a
# dendrogram.py's calculate_power_distribution on the same samples (matched,
# differs, a missing dendrogram.py, the old power_from_e KeyError); without
# it, cross_check says none. The fake dendrogram.py bins with its own code
# (numpy.arange edges written out, Python round), not benchrun's.
. "$(dirname "$0")/lib.sh"
tar -xJf "$BR_SOURCE_DIR/tests/fixtures/seed-reference/seed-reference.tar.xz" -C "$T" \
    seed-reference/prof-900002 || { fail "cannot unpack the seed reference"; finish; }
P=$T/seed-reference/prof-900002
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
check() { if [ "$3" = "$2" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi; }

# arch from run_info.txt ("gpu arch    : gfx942": padded keys trimmed)
unset DENDROGRAM_DIR
expect_exit 0 "seed folder: arch from run_info.txt" -- "$BENCHRUN" vectors "$P" --out "$T/a.json"
expect_no_grep "warning" "$T/err" "no warning: run_info.txt names the arch"
check "run_info.txt keys trimmed" "gfx942" "$(json "$T/a.json" 'j["description"]["run_info_fields"]["gpu arch"]')"
check "gpu: product, arch and the conf's ROCm" "AMD Instinct MI300X (gfx942), ROCm 7.2.0" \
    "$(json "$T/a.json" 'j["description"]["gpu"]')"
check "the seed's value types" "str list str list str str str str str dict dict dict" \
    "$(json "$T/a.json" '" ".join(type(j["description"][k]).__name__ for k in ("gpu", "gpus_sampled", "run", "run_info", "sampling", "window", "clock_alignment", "vector_creation", "cross_check", "samples", "bins", "skipped"))')"
check "gpus_sampled as the seed's strings" "['0', '1']" "$(json "$T/a.json" 'j["description"]["gpus_sampled"]')"
check "run_info: the file's lines" "<<< exit status: 0" "$(json "$T/a.json" 'j["description"]["run_info"][-1]')"
check "bin_edges rounded (numpy's 0.7999999999999999 is 0.8)" "0.8 0.7999999999999999" \
    "$(json "$T/a.json" '"%r %r" % (j["description"]["bins"]["inst_power"]["bin_edges"][3], j["description"]["bins"]["inst_power"]["edges"][3])')"
check "unit with the TDP" "fraction of TDP (750 W)" "$(json "$T/a.json" 'j["description"]["bins"]["inst_power"]["unit"]')"
check "samples: total and used" "4364 59" "$(json "$T/a.json" '"%d %d" % (j["description"]["samples"]["total_in_files"], j["description"]["samples"]["used"])')"
# the seed's achieved interval: the first file's gaps inside the window
# (independent: computed here from the file and the trace)
want=$(python3 - "$P" <<'PY'
import csv, glob, sys
d = sys.argv[1]
s, e = [], []
for f in glob.glob(d + "/ktrace_synth/*.csv"):
    for r in csv.DictReader(open(f)):
        s.append(int(r["Start_Timestamp"])); e.append(int(r["End_Timestamp"]))
ts = [int(l.split(",")[0]) for l in open(d + "/profiling_result_synth_0.csv").read().splitlines()[2:]]
w = [t for t in ts if min(s) <= t <= max(e)]
g = sorted((b - a) / 1e6 for a, b in zip(w, w[1:]))
n = len(g)
med = g[n // 2] if n % 2 else (g[n // 2 - 1] + g[n // 2]) / 2
print("achieved median %.3f ms (mean %.3f ms)" % (med, sum(g) / n))
PY
)
json "$T/a.json" 'j["description"]["sampling"]' >"$T/sampling.txt"
grep -qF "$want" "$T/sampling.txt" && pass "sampling: $want" || fail "sampling: no '$want' in: $(cat "$T/sampling.txt")"
check "cross_check without a folder: none" "none" "$(json "$T/a.json" 'j["description"]["cross_check"].split(":")[0]')"

# no arch anywhere: the seed's telemetry format means MI300X, said twice
rm "$P/run_info.txt"
expect_exit 0 "seed folder without run_info.txt" -- "$BENCHRUN" vectors "$P" --out "$T/b.json"
expect_grep "taken as AMD Instinct MI300X \(gfx942, TDP 750 W\)" "$T/err" "warning: MI300X assumed"
check "assumption in the description" "True True 750.0" \
    "$(json "$T/b.json" '"%s %s %r" % (j["description"]["gpu_detail"]["arch_source"].startswith("assumed"), any("MI300X" in w for w in j["description"]["warnings"]), j["description"]["vector_creation_detail"]["tdp_W"])')"
check "vectors as with run_info.txt" "True" \
    "$(python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print(all(a[k]==b[k] for k in a if k!="description"))' "$T/a.json" "$T/b.json")"

# dendrogram.py fakes: matched (its own binning), differs, power_from_e
mkdir -p "$T/dg-ok" "$T/dg-diff" "$T/dg-old" "$T/dg-none"
cat >"$T/dg-ok/dendrogram.py" <<'PY'
def calculate_power_distribution(df, tdp=750.0, lo=0.5, hi=2.05, step=0.1):
    x = [v / tdp for v in df["inst_power_W"]]
    n = 0
    while lo + n * step < hi - 1e-12:
        n += 1
    d = (lo + step) - lo                  # numpy.arange's edges
    edges = [lo, lo + step] + [lo + i * d for i in range(2, n)]
    kept = [v for v in x if v >= lo]
    return [round(sum(1 for v in kept if edges[i] <= v < edges[i + 1]) / len(kept), 4)
            for i in range(n - 1)]
PY
sed 's/return \[round/return list(reversed([round/; s/for i in range(n - 1)\]/for i in range(n - 1)]))/' \
    "$T/dg-ok/dendrogram.py" >"$T/dg-diff/dendrogram.py"
printf 'def calculate_power_distribution(df):\n    return df["power_from_e"]\n' >"$T/dg-old/dendrogram.py"
expect_exit 0 "--dendrogram-dir: matched" -- "$BENCHRUN" vectors "$P" --tdp 750 --out "$T/m.json" \
    --dendrogram-dir "$T/dg-ok"
check "cross_check matched" "matched" "$(json "$T/m.json" 'j["description"]["cross_check"].split(":")[0]')"
check "its vector recorded" "True" "$(json "$T/m.json" 'j["description"]["cross_check_detail"]["dendrogram_inst_power"] == j["inst_power"]')"
DENDROGRAM_DIR=$T/dg-diff expect_exit 0 "\$DENDROGRAM_DIR: differs" -- "$BENCHRUN" vectors "$P" \
    --tdp 750 --out "$T/d.json"
check "cross_check differs" "differs" "$(json "$T/d.json" 'j["description"]["cross_check"].split(":")[0]')"
check "vectors the same either way" "True" "$(json "$T/d.json" 'j["inst_power"] == json.load(open("'"$T"'/m.json"))["inst_power"]')"
expect_exit 1 "no dendrogram.py in the folder" -- "$BENCHRUN" vectors "$P" --tdp 750 \
    --out "$T/x.json" --dendrogram-dir "$T/dg-none"
expect_grep "no dendrogram.py in '.*dg-none'" "$T/err" "names the folder"
expect_exit 1 "old dendrogram.py (power_from_e)" -- "$BENCHRUN" vectors "$P" --tdp 750 \
    --out "$T/x.json" --dendrogram-dir "$T/dg-old"
expect_grep "KeyError: 'power_from_e'.*predates inst_power_W" "$T/err" "says why and what to do"
[ ! -e "$T/x.json" ] && pass "nothing written on a failed cross-check" || fail "x.json written"
finish
