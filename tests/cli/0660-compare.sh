#!/bin/bash
# 0660-compare: `benchrun compare` on the example data shipped with benchrun
# (the demo power run, whose vectors are computed because it has no
# sampling_vectors.json, and the real H200 power run), on vectors files and an
# app_vectors.json; the output files, the LABEL=PATH form, --nearest with a
# new input, --vector, --analysis, HTML escaping and self-containment;
# --baseline of two generated analyses (kernels of both and of one, the
# change in % against an independent awk computation); usage errors (exit 2)
# and unusable inputs (exit 1, naming them). scipy equality: 0661.
. "$(dirname "$0")/lib.sh"

json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
check() {  # check DESC EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi
}

# --- the shipped examples ----------------------------------------------------
cp -r "$BR_SOURCE_DIR/examples/demo/prof-example" "$T/prof-demo"
mkdir -p "$T/h200"
tar -C "$T/h200" -xJf "$BR_SOURCE_DIR/examples/h200-transformer/h200-transformer.tar.xz"
H200=$(ls -d "$T"/h200/prof-* | head -n 1)
rm -f "$T/prof-demo/sampling_vectors.json" "$H200/sampling_vectors.json"
"$BENCHRUN" vectors "$T/prof-demo" --label "demo file" --out "$T/demo.json" >/dev/null 2>&1 ||
    fail "vectors of the demo run"
python3 - "$T/known.json" <<'PY'
import json, sys
json.dump({"flat": [0.0667] * 15, "<b>&\"x'": [0] * 5 + [0.5, 0.5] + [0] * 8}, open(sys.argv[1], "w"))
PY

O=$T/res
expect_exit 0 "compare the examples" -- "$BENCHRUN" compare "$T/prof-demo" "$H200" "$T/demo.json" \
    "$T/known.json" -o "$O"
for f in app_vectors.json distances.csv linkage.csv dendrogram.svg compare.html compare.md compare.json; do
    [ -s "$O/$f" ] && pass "wrote $f" || fail "no $O/$f"
done
ls "$O" | grep -q tmp && fail "temporary files left in $O" || pass "no temporary files left"
expect_grep "computed from the power run's telemetry \(no sampling_vectors.json" "$T/out" \
    "stdout says which vectors were computed"
expect_grep "read: sampling_vectors.json layout" "$T/out" "and which were read"
check "5 workloads in input order, labels from run.json/vectors/members" \
    "['demo', 'transformer', 'demo file', 'flat', '<b>&\"x\\'']" "$(json "$O/app_vectors.json" 'list(j)')"
check "computed = written by benchrun vectors" "$(json "$T/demo.json" 'j["inst_power"]')" \
    "$(json "$O/app_vectors.json" 'j["demo"]')"
check "demo and demo file are twins (distance 0)" "0.0" \
    "$(json "$O/compare.json" '[w for w in j["workloads"] if w["label"] == "demo"][0]["nearest"][0]["distance"]')"
check "4 merges in linkage.csv" "5" "$(wc -l <"$O/linkage.csv")"
check "linkage header" "cluster_a,cluster_b,height,size,cluster,color,label_a,label_b" "$(head -n 1 "$O/linkage.csv")"
check "last merge holds all 5" "5" "$(tail -n 1 "$O/linkage.csv" | cut -d, -f4)"
check "distances.csv: 6 lines, 6 fields" "6 6" "$(wc -l <"$O/distances.csv") $(head -n 1 "$O/distances.csv" | python3 -c 'import csv,sys; print(len(next(csv.reader(sys.stdin))))')"
expect_grep '^# benchrun compare' "$O/compare.md" "compare.md title"
expect_grep 'colour threshold 0.7 x the largest merge height' "$O/compare.md" "compare.md states the threshold rule"
expect_grep '^\| <b>&"x'"'"' \|' "$O/compare.md" "Markdown keeps the odd label"

# HTML: self-contained, labels escaped
H=$O/compare.html
expect_grep '&lt;b&gt;&amp;&quot;x&#39;' "$H" "label escaped in compare.html"
expect_no_grep '<b>&' "$H" "no raw label markup in compare.html"
expect_no_grep '<script|https?://|src=|href=' "$H" "no script, no external resource"
for s in 'Dendrogram' 'Distance heat map' 'Vectors \(inst_power\)' 'Nearest neighbours' 'Inputs'; do
    expect_grep "<h2>$s" "$H" "compare.html section $s"
done
expect_grep "^<svg xmlns='http://www.w3.org/2000/svg'" "$O/dendrogram.svg" "dendrogram.svg is standalone SVG"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$O/dendrogram.svg" 2>"$T/xml" &&
    pass "dendrogram.svg is well-formed XML" || { fail "dendrogram.svg is not XML"; cat "$T/xml" >&2; }

# --- LABEL=PATH, --nearest with a new input, --vector ------------------------
expect_exit 0 "--nearest adds a new input" -- "$BENCHRUN" compare "first=$T/demo.json" \
    "$T/known.json" --nearest "$H200" --top 2 -o "$T/near"
expect_grep '^nearest to transformer:' "$T/out" "stdout: nearest to the new input"
check "two nearest" "2" "$(json "$T/near/compare.json" 'len(j["nearest"]["neighbours"])')"
check "LABEL=PATH label" "first" "$(json "$T/near/compare.json" 'j["workloads"][0]["label"]')"
expect_exit 0 "--nearest by label" -- "$BENCHRUN" compare "$T/demo.json" "$T/known.json" --nearest flat -o "$T/near2"
check "query is an existing input" "flat" "$(json "$T/near2/compare.json" 'j["nearest"]["query"]')"
check "3 workloads, not 4" "3" "$(json "$T/near2/compare.json" 'len(j["workloads"])')"
expect_exit 0 "--nearest by the same path written differently" -- "$BENCHRUN" compare "$T/prof-demo" \
    "$T/known.json" --nearest "$T/./prof-demo/" -o "$T/near3"
check "the folder is the query, not a new input" "demo 3" \
    "$(json "$T/near3/compare.json" 'j["nearest"]["query"] + " " + str(len(j["workloads"]))')"
expect_exit 0 "--vector gfx_frequency" -- "$BENCHRUN" compare "a=$T/demo.json" "$T/prof-demo" \
    --vector gfx_frequency --metric euclidean --method average -o "$T/gfx"
check "22 gfx entries" "22" "$(json "$T/gfx/compare.json" 'j["entries"]')"
check "metric and method recorded" "euclidean average" "$(json "$T/gfx/compare.json" 'j["metric"] + " " + j["method"]')"

# --- --analysis and --baseline on generated analyses --------------------------
gen=$BR_BINARY_DIR/tests/gen_rocprof
"$gen" --kernels 6 --launches 60 --power "$T/pa-prof" "$T/pa" >/dev/null 2>&1 &&
"$gen" --kernels 8 --launches 60 --clock-mhz 1500 --power "$T/pb-prof" "$T/pb" >/dev/null 2>&1 ||
    fail "gen_rocprof"
"$BENCHRUN" analyze "$T/pa" --power "$T/pa-prof" >/dev/null 2>&1 &&
"$BENCHRUN" analyze "$T/pb" --power "$T/pb-prof" >/dev/null 2>&1 || fail "analyze"
expect_exit 0 "--analysis attaches" -- "$BENCHRUN" compare "$T/demo.json" "$T/known.json" \
    --analysis "flat=$T/pa" -o "$T/an"
expect_grep '<th>TFLOPs_all</th>' "$T/an/compare.html" "whole-run columns shown"
check "analysis folder recorded" "$T/pa/analysis" "$(json "$T/an/compare.json" 'j["workloads"][1]["analysis"]')"

expect_exit 0 "--baseline" -- "$BENCHRUN" compare --baseline "$T/pa" "$T/pb/analysis" -o "$T/bl"
expect_grep '6 kernel\(s\) in both, 0 only in A, 2 only in B' "$T/out" "kernels of both and of B only"
for f in baseline.md baseline.html baseline.csv; do
    [ -s "$T/bl/$f" ] && pass "wrote $f" || fail "no $T/bl/$f"
done
expect_grep '^## Whole run' "$T/bl/baseline.md" "baseline.md whole-run section"
expect_grep '^### Only in B \(2\)' "$T/bl/baseline.md" "baseline.md lists B's own kernels"
# change of time_ms of the first kernel of A, computed here from the two CSVs
k=$(python3 -c 'import csv,sys; r=[x for x in csv.DictReader(open(sys.argv[1])) if x["kernel"] != "TOTAL"]; print(r[0]["kernel_full_name"])' "$T/pa/analysis/per_kernel_metrics.csv")
want=$(python3 - "$T/pa/analysis/per_kernel_metrics.csv" "$T/pb/analysis/per_kernel_metrics.csv" "$k" <<'PY'
import csv, sys
a = {r["kernel_full_name"]: r for r in csv.DictReader(open(sys.argv[1]))}
b = {r["kernel_full_name"]: r for r in csv.DictReader(open(sys.argv[2]))}
x, y = float(a[sys.argv[3]]["time_ms"]), float(b[sys.argv[3]]["time_ms"])
print((y - x) / abs(x) * 100)
PY
)
got=$(python3 - "$T/bl/baseline.csv" "$k" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["scope"] == "both" and r["kernel_full_name"] == sys.argv[2] and r["metric"] == "time_ms":
        print(r["change_pct"])
PY
)
python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(abs(a-b) > 1e-9*max(1,abs(a)))" "$want" "$got" &&
    pass "time_ms change of '$k': $got %" || fail "change: baseline.csv $got, computed $want"
expect_grep '^whole_run,TOTAL,,GPU_busy_pct,' "$T/bl/baseline.csv" "whole-run GPU busy from summary.json"
expect_no_grep '<script|https?://' "$T/bl/baseline.html" "baseline.html self-contained"
expect_exit 0 "--baseline --metrics" -- "$BENCHRUN" compare --baseline "$T/pa" "$T/pb" --metrics time_ms,bound -o "$T/bl2"
check "two metrics per kernel of both" "12" "$(grep -c '^both,' "$T/bl2/baseline.csv")"

# --- unusable inputs: exit 1, naming them ------------------------------------
expect_exit 1 "one workload" -- "$BENCHRUN" compare "$T/demo.json" -o "$T/x"
expect_grep 'at least two' "$T/err" "says two are needed"
expect_exit 1 "duplicate labels" -- "$BENCHRUN" compare "$T/demo.json" "$T/demo.json" -o "$T/x"
expect_grep "two workloads are labelled 'demo file'" "$T/err" "names the duplicate label"
expect_exit 1 "no such vector" -- "$BENCHRUN" compare "$T/demo.json" "$T/known.json" --vector nope -o "$T/x"
expect_grep "demo.json: no vector 'nope' \(vectors in the file: inst_power, " "$T/err" "lists the vectors present"
expect_exit 1 "missing input" -- "$BENCHRUN" compare "$T/demo.json" "$T/none.json" -o "$T/x"
expect_grep "none.json: no such file or folder" "$T/err" "names the missing input"
printf '{"a": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}\n' >"$T/zero.json"
expect_exit 1 "zero vector under cosine" -- "$BENCHRUN" compare "$T/demo.json" "$T/zero.json" -o "$T/x"
expect_grep "zero.json: inst_power of 'a' is all zeros" "$T/err" "names the zero vector"
printf '{"description": {"label": "x"}, "inst_power": [0.5, 0.5,\n' >"$T/cut.json"
expect_exit 1 "truncated JSON" -- "$BENCHRUN" compare "$T/demo.json" "$T/cut.json" -o "$T/x"
expect_grep "cut.json:2:" "$T/err" "names file and line"
expect_exit 1 "--analysis of an unknown label" -- "$BENCHRUN" compare "$T/demo.json" "$T/known.json" \
    --analysis "nobody=$T/pa" -o "$T/x"
expect_exit 1 "--baseline of a folder without analysis" -- "$BENCHRUN" compare --baseline "$T/pa" "$T" -o "$T/x"
expect_grep 'no per_kernel_metrics.csv' "$T/err" "says what is missing"
mkdir -p "$T/noarch" && cp "$T/prof-demo"/profiling_result_* "$T/noarch/"
expect_exit 1 "power run without arch or TDP" -- "$BENCHRUN" compare "$T/demo.json" "$T/noarch" -o "$T/x"
expect_grep 'give compare --tdp W or --arch NAME' "$T/err" "says how to compute them"
expect_exit 0 "... and with --tdp" -- "$BENCHRUN" compare "$T/demo.json" "$T/noarch" --tdp 750 -o "$T/x"
[ -e "$T/x/compare.html" ] && pass "written with --tdp" || fail "no output with --tdp"

# --- usage errors: exit 2 ------------------------------------------------------
expect_exit 2 "no input" -- "$BENCHRUN" compare
expect_exit 2 "unknown metric" -- "$BENCHRUN" compare a b --metric manhattan
expect_grep "--metric: unknown value 'manhattan'" "$T/err" "names the bad metric"
expect_exit 2 "unknown method" -- "$BENCHRUN" compare a b --method centroid
expect_exit 2 "--baseline with one analysis" -- "$BENCHRUN" compare --baseline a
expect_exit 2 "--metrics without --baseline" -- "$BENCHRUN" compare a b --metrics x
expect_exit 2 "--nearest with --baseline" -- "$BENCHRUN" compare --baseline a b --nearest a
expect_exit 2 "--top 0" -- "$BENCHRUN" compare a b --top 0
expect_exit 0 "--help" -- "$BENCHRUN" compare --help
expect_grep '^usage: benchrun compare INPUT' "$T/out" "usage on stdout"
finish
