#!/bin/bash
# run-demo.sh BUILD_DIR - what `make demo` runs: the bundled demo workload
# through benchrun's stages, then where the results are. Each step is a
# function below; later steps (analysis, vectors) add one function and one
# line in main.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
benchrun=$build/benchrun
conf=$here/demo.conf
export BENCHRUN_DEMO_BUILD=$build
export BENCHRUN_DEMO_RESULTS=$build/demo-results

step() { printf '\n== %s\n' "$*"; }

demo_dry_run() {
    step "benchrun plain $conf --dry-run   (prints every command, runs nothing)"
    "$benchrun" plain "$conf" --dry-run
}

demo_plain() {
    step "benchrun plain $conf"
    "$benchrun" plain "$conf"
    PLAIN_DIR=$(ls -1dt "$BENCHRUN_DEMO_RESULTS"/plain-* | head -n 1)
    echo "files: $(cd "$PLAIN_DIR" && echo *)"
}

demo_vectors() {
    # The bundled example power run (generated data: sim sampler, synthetic
    # kernel trace; examples/demo/make-prof-example.sh) is copied into the
    # results folder so the source tree stays untouched.
    local ex=$BENCHRUN_DEMO_RESULTS/prof-example
    rm -rf "$ex"
    mkdir -p "$BENCHRUN_DEMO_RESULTS"
    cp -r "$here/prof-example" "$ex"
    step "benchrun vectors $ex   (bundled example power run, generated data)"
    "$benchrun" vectors "$ex" --label "demo (generated example)"
    VECTORS_JSON=$ex/sampling_vectors.json
    echo "vectors (first lines after the description):"
    grep -E '^  "[a-z_]+": \[' "$VECTORS_JSON" | cut -c1-110
}

demo_real() {
    # Real data: the counter run and the power run of a PyTorch training step
    # recorded on an H200 (examples/h200-transformer/README.md), unpacked
    # into the results folder, analyzed and binned like any other run.
    local ex=$BENCHRUN_DEMO_RESULTS/h200-transformer pmc prof
    rm -rf "$ex"
    mkdir -p "$ex"
    tar -C "$ex" -xJf "$here/../h200-transformer/h200-transformer.tar.xz"
    pmc=$(ls -d "$ex"/pmc-* | head -n 1)
    prof=$(ls -d "$ex"/prof-* | head -n 1)
    step "benchrun analyze $pmc --power $prof   (real counter + power run: H200, PyTorch transformer step)"
    "$benchrun" analyze "$pmc" --power "$prof"
    REAL_REPORT=$pmc/analysis/report.md
    # awk, not grep | head: under pipefail, head's early exit would kill grep (SIGPIPE)
    sed -n '/^## Kernels covering/,/^Columns:/p' "$REAL_REPORT" | awk '/^\|/ && n++ < 8' \
        | cut -d'|' -f2-3,14-15,25 | cut -c1-110
    step "benchrun vectors $prof   (real power run)"
    "$benchrun" vectors "$prof" --label "H200 transformer training step"
    REAL_VECTORS_JSON=$prof/sampling_vectors.json
    REAL_PROF=$prof
    step "benchrun energy $prof   (energy per kernel of the real power run)"
    "$benchrun" energy "$prof"
    REAL_ENERGY=$prof/energy
}

demo_power() {
    step "benchrun power $conf   (synthetic telemetry: SAMPLE_BACKEND=sim, no GPU here)"
    "$benchrun" power "$conf"
    POWER_DIR=$( (ls -1dt "$BENCHRUN_DEMO_RESULTS"/prof-local-* "$BENCHRUN_DEMO_RESULTS"/prof-[0-9]* \
                  2>/dev/null || true) | head -n 1)
}

demo_analyze() {
    # A small counter run made by the test-data generator (GENERATED DATA:
    # tests/tools/gen_rocprof.c, hidden rates, rocprofv3 7.x layout) with its
    # power run, analyzed like a real `benchrun pmc` folder.
    local gen=$build/tests/gen_rocprof ex=$BENCHRUN_DEMO_RESULTS/pmc-example
    ANALYSIS_REPORT="(skipped: no $gen)"
    [ -x "$gen" ] || return 0
    rm -rf "$ex" "$ex-prof"
    mkdir -p "$BENCHRUN_DEMO_RESULTS"
    "$gen" --kernels 6 --launches 120 --agent-info --power "$ex-prof" "$ex" >/dev/null
    echo "GENERATED example data (gen_rocprof), not a measurement" >"$ex/GENERATED.txt"
    step "benchrun analyze $ex --power $ex-prof   (generated example counter run)"
    "$benchrun" analyze "$ex" --power "$ex-prof"
    ANALYSIS_REPORT=$ex/analysis/report.md
    sed -n '/^## Kernels covering/,/^Columns:/p' "$ANALYSIS_REPORT" | grep '^|' | cut -d'|' -f2-4,14-15,25 \
        | cut -c1-110
}

demo_compare() {
    # Which known workload is this like: the runs above clustered by their
    # inst_power vectors (the Minos dendrogram: cosine distance, Ward
    # linkage). Two runs have sampling_vectors.json; the others are binned in
    # memory (--tdp: the sim run names no GPU), and compare says which.
    local out=$BENCHRUN_DEMO_RESULTS/compare inputs
    inputs=("$BENCHRUN_DEMO_RESULTS/prof-example" "$REAL_PROF" "sim power run=$POWER_DIR")
    [ -d "$BENCHRUN_DEMO_RESULTS/pmc-example-prof" ] &&
        inputs+=("gen_rocprof power run=$BENCHRUN_DEMO_RESULTS/pmc-example-prof")
    step "benchrun compare ${#inputs[@]} power runs --nearest \"H200 transformer training step\""
    "$benchrun" compare "${inputs[@]}" --tdp 750 --nearest "H200 transformer training step" \
        --top 2 -o "$out"
    COMPARE_HTML=$out/compare.html
    sed -n '/^## Clusters/,/^## Nearest neighbours/p' "$out/compare.md" | grep '^|'
}

demo_baseline() {
    # Two generated counter runs of the same kernels at 1700 and 1500 MHz
    # (the second with two more kernels), compared kernel by kernel.
    local gen=$build/tests/gen_rocprof a=$BENCHRUN_DEMO_RESULTS/pmc-example
    local b=$BENCHRUN_DEMO_RESULTS/pmc-example-1500 out=$BENCHRUN_DEMO_RESULTS/baseline
    BASELINE_MD="(skipped: no $gen)"
    [ -x "$gen" ] && [ -d "$a/analysis" ] || return 0
    rm -rf "$b" "$b-prof"
    "$gen" --kernels 8 --launches 120 --agent-info --clock-mhz 1500 --power "$b-prof" "$b" >/dev/null
    echo "GENERATED example data (gen_rocprof), not a measurement" >"$b/GENERATED.txt"
    "$benchrun" analyze "$b" --power "$b-prof" >/dev/null
    step "benchrun compare --baseline $a $b   (generated: the same kernels at 1700 and 1500 MHz)"
    "$benchrun" compare --baseline "$a" "$b" --metrics time_ms,CU_busy_pct,TFLOPs_all,bound -o "$out"
    BASELINE_MD=$out/baseline.md
    sed -n '/^## Whole run/,/^## Kernels/p' "$BASELINE_MD" | grep '^|'
}

main() {
    [ -x "$benchrun" ] || { echo "run-demo.sh: no benchrun in $build (run make demo)" >&2; exit 1; }
    demo_dry_run
    demo_plain
    demo_power
    demo_vectors
    demo_real
    demo_analyze
    demo_compare
    demo_baseline
    step "done"
    echo "Results: $BENCHRUN_DEMO_RESULTS"
    echo "Plain run: $PLAIN_DIR  (app.txt, run_info.txt, run.json, workload.conf)"
    echo "Power run: $POWER_DIR  (profiling_result_demo_0.csv: sim backend, clock_ref.txt, run.json)"
    echo "Vectors:   $VECTORS_JSON  (generated example)"
    echo "           $REAL_VECTORS_JSON  (real H200 power run)"
    echo "Analysis:  $REAL_REPORT  (real H200 counter run)"
    echo "           $ANALYSIS_REPORT  (generated example counter run)"
    echo "Energy:    $REAL_ENERGY  (energy.md, power_trace.json for ui.perfetto.dev)"
    echo "Compare:   $COMPARE_HTML  (dendrogram, heat map, vectors, nearest)"
    echo "Baseline:  $BASELINE_MD  (generated counter runs at 1700 vs 1500 MHz)"
}

main "$@"
