#!/bin/bash
# 0030-power: the power stage as real Slurm jobs, sim sampler backend, the
# rocprofv3 test double as kernel tracer, fake gfx942 nodes:
#   A. one node, 1 task: profiling_result_<tag>_<gpu>.csv, clock_ref.txt, ktrace_<tag>/;
#   B. NNODES=2, 2 tasks: one sampler per node (srun --overlap step):
#      profiling_result_<tag>_<node>_<gpu>.csv, clock_ref_<node>.txt,
#      sampler_<tag>_<node>.json, ktrace_<tag>/<node>/; `benchrun vectors`
#      reads every node's files (--per-gpu keys name the node).
. "$(dirname "$0")/lib.sh"
slurm_require
cd "$T" || exit 1
fake_amd_gpus 2
export PATH=$BR_SOURCE_DIR/tests/fakes:$PATH
conf() {  # conf NAME NTASKS NNODES
    cat > "$T/$1.conf" <<CONF
WORKLOAD=$1
RESULTS_DIR=$T/results
NGPUS=2
NTASKS=$2
NNODES=$3
VENDOR=amd
SAMPLE_BACKEND=sim
SAMPLE_GPUS=0,1
SAMPLE_MS=2
TIME_LIMIT=5
app_cmd() { APP_CMD=("$DEMO" --size 200000 --iters 10 --sleep-ms 1500); }
CONF
}
conf pone 1 1
conf ptwo 2 2
expect_exit 0 "submit pone.conf power" -- "$BENCHRUN" submit "$T/pone.conf" power
ja=$(awk '$1 == "power" {print $2}' "$T/out")
expect_exit 0 "submit ptwo.conf power" -- "$BENCHRUN" submit "$T/ptwo.conf" power
jb=$(awk '$1 == "power" {print $2}' "$T/out")

expect_job "$ja" COMPLETED "A: one-node power job"
d=$T/results/prof-$ja
expect_grep '^status: ok$' "$d/run_info.txt" "A: run_info status ok"
for g in 0 1; do
    f=$d/profiling_result_pone_$g.csv
    csv_complete "$f" && pass "A: GPU $g telemetry complete ($(($(wc -l < "$f") - 2)) samples)" || fail "A: $f"
done
[ -s "$d/clock_ref.txt" ] && pass "A: clock_ref.txt" || fail "A: no clock_ref.txt"
ls "$d"/ktrace_pone/*_kernel_trace.csv >/dev/null 2>&1 && pass "A: kernel trace in ktrace_pone/" || fail "A: no kernel trace"
expect_grep 'samples +[0-9]+ in 2 telemetry file' "$T/results/pone-power-$ja.out" "A: summary in the job output"

expect_job "$jb" COMPLETED "B: two-node power job"
d=$T/results/prof-$jb
expect_grep '^status: ok$' "$d/run_info.txt" "B: run_info status ok"
for n in node1 node2; do
    for g in 0 1; do
        f=$d/profiling_result_ptwo_${n}_$g.csv
        csv_complete "$f" && pass "B: $n GPU $g telemetry complete" || fail "B: $f missing or incomplete"
    done
    [ -s "$d/clock_ref_$n.txt" ] && pass "B: clock_ref_$n.txt" || fail "B: no clock_ref_$n.txt"
    [ -s "$d/sampler_ptwo_$n.json" ] && pass "B: sampler_ptwo_$n.json (sampler ended normally)" || fail "B: no sampler_ptwo_$n.json"
    ls "$d/ktrace_ptwo/$n/"*_kernel_trace.csv >/dev/null 2>&1 && pass "B: trace of $n in ktrace_ptwo/$n/" \
        || { fail "B: no trace under ktrace_ptwo/$n"; ls -R "$d/ktrace_ptwo" >&2; }
done
for n in node1 node2; do   # CLOCK_BOOTTIME is per node: alignment evidence per node (metrics/powersum.c)
    expect_grep "^  alignment $n +clock_ref boottime [0-9]+ ns; first sample [+-][0-9.]+ s" \
        "$T/results/ptwo-power-$jb.out" "B: alignment of $n against clock_ref_$n.txt"
done
[ ! -e "$d/profiling_result_ptwo_0.csv" ] && pass "B: no node-less telemetry file" || fail "B: a sampler without --node ran"
[ ! -e "$d/.samplers-stop" ] && pass "B: stop file removed" || fail "B: stop file left behind"
# --no-trim: the fake tracer's kernel window is 0.35 ms, shorter than the sampling interval
expect_exit 0 "vectors of the two-node run" -- "$BENCHRUN" vectors "$d" --per-gpu --no-trim
python3 - "$d/sampling_vectors.json" <<'PY' && pass "B: vectors from both nodes' GPUs" || fail "B: vector keys"
import json, sys
keys = set(json.load(open(sys.argv[1])))
for n in ("node1", "node2"):
    for g in (0, 1):
        assert f"gfx_frequency_{n}_gpu{g}" in keys, (n, g, sorted(keys))
    assert f"gfx_frequency_{n}" in keys, (n, sorted(keys))   # the node's GPUs pooled
PY
finish
