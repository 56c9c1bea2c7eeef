#!/bin/bash
# 0654-analyze-multinode: analyze's sampled clock on a multi-node power run
# (CLOCK_BOOTTIME is per node). A real pmc + power run with the test doubles
# (fake rocprofv3, fake KFD gfx942, sim sampler, as 0104) is turned into a
# two-node power folder: nodeA = the run as recorded, nodeB = the same
# telemetry and trace shifted by 3 days with its gfx clock set to 1700 MHz.
# Each node's samples are matched against its own kernel intervals
# (ktrace_<tag>/<node>/): twice the one-node in-kernel samples, mean clock
# (one-node clock + 1700) / 2; report.html draws both nodes' telemetry, each
# from its own first kernel start, on a window as long as one node's. Without
# nodeB's trace folder its samples count for nothing (warning), and the clock
# is nodeA's.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID ROCR_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
app=$BR_BINARY_DIR/tests/demo_workload
export PATH=$BR_SOURCE_DIR/tests/fakes:$PATH
fake_amd_gpus 1
cat >"$T/w.conf" <<CONF
WORKLOAD=fake
RESULTS_DIR=$T/results
NGPUS=1
NTASKS=1
SAMPLE_BACKEND=sim
SAMPLE_GPUS=0
app_cmd() { APP_CMD=("$app" --size 1000 --iters 2); }
CONF
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi; }

expect_exit 0 "pmc run" -- "$BENCHRUN" pmc "$T/w.conf"
expect_exit 0 "power run" -- "$BENCHRUN" power "$T/w.conf"
pmc=$(ls -d "$T"/results/pmc-local-*)
P=$(ls -d "$T"/results/prof-local-*)
# The fake tracer's kernels last 0.35 ms in all (shorter than the 1 ms sampling):
# the first dispatch is stretched over most of the samples so that samples fall
# inside kernels. Q1: one node; Q: two nodes.
Q1=$T/prof-1node Q=$T/prof-2nodes
mkdir -p "$Q1/ktrace_fake" "$Q/ktrace_fake/nodeA" "$Q/ktrace_fake/nodeB"
python3 - "$P" "$Q1" "$Q" <<'PY'
import csv, io, sys
p, q1, q = sys.argv[1:]
D = 259200000000000   # 3 days, ns
lines = open(f"{p}/profiling_result_fake_0.csv").read().splitlines()
t0 = int(lines[2].split(",")[0])
rows = list(csv.reader(open(f"{p}/ktrace_fake/fake_kernel_trace.csv")))
h = rows[0]
s, e = h.index("Start_Timestamp"), h.index("End_Timestamp")
# Stretch the first dispatch over samples a..b (edges half-way between samples),
# so the count inside it is known whatever the sampler achieved under load.
ts = [int(l.split(",")[0]) for l in lines[2:]]
a, b = max(1, len(ts) // 10), len(ts) - 2 - len(ts) // 10
rows[1][s], rows[1][e] = str((ts[a - 1] + ts[a]) // 2), str((ts[b] + ts[b + 1]) // 2)
open(f"{q1}/expected_samples", "w").write(f"{b - a + 1} {len(rows) - 2}\n")

def trace(path, shift):
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writerow(h)
    for r in rows[1:]:
        r = list(r)
        r[s], r[e] = str(int(r[s]) + shift), str(int(r[e]) + shift)
        w.writerow([int(x) if x.isdigit() else x for x in r])
    open(path, "w").write(buf.getvalue())

def telem(path, node, shift, clk):
    meta = lines[0].replace("node=none", f"node={node}") if node else lines[0]
    ci = lines[1].split(",").index("gfx_clock_MHz")
    out = [meta, lines[1]]
    for l in lines[2:]:
        f = l.split(",")
        f[0] = str(int(f[0]) + shift)
        if clk:
            f[ci] = clk
        out.append(",".join(f))
    open(path, "w").write("\n".join(out) + "\n")

telem(f"{q1}/profiling_result_fake_0.csv", None, 0, None)
trace(f"{q1}/ktrace_fake/fake_kernel_trace.csv", 0)
for node, shift, clk in (("nodeA", 0, None), ("nodeB", D, "1700.0")):
    telem(f"{q}/profiling_result_fake_{node}_0.csv", node, shift, clk)
    trace(f"{q}/ktrace_fake/{node}/fake_kernel_trace.csv", shift)
PY
expect_exit 0 "analyze, one node" -- "$BENCHRUN" analyze "$pmc" --power "$Q1" -o "$T/a1"
n1=$(json "$T/a1/summary.json" 'j["clock"]["sampled"]["samples_kernel_running"]')
read -r want others <"$Q1/expected_samples"
# The other dispatches (0.35 ms in all) may each hold one more sample.
[ "$want" -ge 5 ] && [ "$n1" -ge "$want" ] && [ "$n1" -le $((want + others)) ] &&
    pass "one node: $n1 in-kernel samples ($want in the stretched dispatch)" ||
    fail "one node: $n1 in-kernel samples, expected $want..$((want + others))"
c1=$(json "$T/a1/summary.json" 'j["clock"]["sampled"]["clock_MHz"]')
cp "$P/run.json" "$Q/"
cp "$P/run.json" "$Q1/"
expect_exit 0 "analyze, two nodes 3 days apart" -- "$BENCHRUN" analyze "$pmc" --power "$Q" -o "$T/a2"
check "two nodes: each node's in-kernel samples" "$((2 * n1))" "$(json "$T/a2/summary.json" 'j["clock"]["sampled"]["samples_kernel_running"]')"
check "two nodes: mean of nodeA's clock ($c1) and nodeB's 1700 MHz" "True" "$(json "$T/a2/summary.json" "abs(j['clock']['sampled']['clock_MHz'] - ($c1 + 1700) / 2) < 1e-6")"
check "GPU busy per (file, agent)" "2" "$(json "$T/a2/summary.json" 'len(j["power_run"]["GPU_busy_pct_per_gpu"])')"
H=$T/a2/report.html
expect_no_grep "not drawn" "$H" "html: both nodes' telemetry drawn"
expect_grep "from the first kernel start of each node" "$H" "html: per-node origin said"
check "html: one power line per node" "2" "$(grep -c "<polyline" <(sed -n '/class=timeline/,/<\/svg>/p' "$H") | awk '{print ($1 >= 2) ? 2 : $1}')"
span=$(sed -n 's/.*each node.s clock counts from its own boot), \([-0-9.e+]*\) to \([-0-9.e+]*\) s.*/\1 \2/p' "$H")
check "html: window of one node (seconds), not 3 days" "True" \
    "$(python3 -c 'import sys; a, b = map(float, sys.argv[1:3]); print(b - a < 3600)' $span)"

rm -r "$Q/ktrace_fake/nodeB"
expect_exit 0 "analyze, nodeB without its trace folder" -- "$BENCHRUN" analyze "$pmc" --power "$Q" -o "$T/a3"
expect_grep "no kernel trace under a 'nodeB/' folder" "$T/err" "warning names the node"
check "nodeB's samples not used" "$n1 $c1" "$(json "$T/a3/summary.json" '"%d %s" % (j["clock"]["sampled"]["samples_kernel_running"], j["clock"]["sampled"]["clock_MHz"])')"
finish
