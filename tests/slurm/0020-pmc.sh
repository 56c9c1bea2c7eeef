#!/bin/bash
# 0020-pmc: the pmc stage as a real Slurm job through `benchrun submit CONF pmc`:
# 2 tasks (srun -n 2) under the rocprofv3 test double (tests/fakes/rocprofv3,
# first in PATH; the job inherits PATH), 2 counter passes from a COUNTERS file,
# fake gfx942 node. Every process writes its own files (<pass>_<pid>_*.csv),
# so each pass folder holds two counter files and two kernel traces; with
# NNODES=2 the node is in the names too (<pass>_<node>_<pid>_*.csv).
. "$(dirname "$0")/lib.sh"
slurm_require
cd "$T" || exit 1
fake_amd_gpus 2
export PATH=$BR_SOURCE_DIR/tests/fakes:$PATH
cat > "$T/passes.json" <<'JSON'
{"passes": [
  {"name": "01_fp64_flops", "counters": ["SQ_INSTS_VALU_ADD_F64", "SQ_INSTS_VALU_MUL_F64", "GRBM_GUI_ACTIVE"]},
  {"name": "04_cu_util", "counters": ["SQ_BUSY_CU_CYCLES", "SQ_WAVE_CYCLES", "GRBM_GUI_ACTIVE"]}
]}
JSON
cat > "$T/pmc.conf" <<CONF
WORKLOAD=pmcjob
RESULTS_DIR=$T/results
NGPUS=2
NTASKS=2
BIND_GPU_PER_TASK=1
VENDOR=amd
COUNTERS=passes.json
TIME_LIMIT=5
PERF_GREP='^Loop time of'
app_cmd() { APP_CMD=("$DEMO" --size 100000 --iters 5); }
CONF

sed -e 's/^WORKLOAD=pmcjob/WORKLOAD=pmcnodes/' -e 's/^NGPUS=2/NGPUS=2\nNNODES=2/' "$T/pmc.conf" > "$T/nodes.conf"
expect_exit 0 "submit pmc.conf pmc" -- "$BENCHRUN" submit "$T/pmc.conf" pmc
j=$(awk '$1 == "pmc" {print $2}' "$T/out")
expect_grep "^pmc +$j sbatch .* -n 2 -J pmcjob-pmc -t 5 " "$T/out" "pmc submitted with -n 2 -t 5"
expect_exit 0 "submit nodes.conf pmc" -- "$BENCHRUN" submit "$T/nodes.conf" pmc
jn=$(awk '$1 == "pmc" {print $2}' "$T/out")
expect_job "$j" COMPLETED "pmc job"
run=$T/results/pmc-$j
expect_grep '^status: ok$' "$run/run_info.txt" "run_info status ok"
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['passes']))" "$run/counters.json" 2>/dev/null)
[ "$n" = 2 ] && pass "counters.json: 2 passes" || fail "counters.json: '$n' passes"
for p in 01_fp64_flops 04_cu_util; do
    cc=$(ls "$run/$p/"*_counter_collection.csv 2>/dev/null | wc -l)
    kt=$(ls "$run/$p/"*_kernel_trace.csv 2>/dev/null | wc -l)
    [ "$cc" = 2 ] && [ "$kt" = 2 ] && pass "$p: one counter file and one trace per process (2 + 2)" \
        || { fail "$p: $cc counter files, $kt traces"; ls -la "$run/$p" >&2; }
    ls "$run/$p/" | grep -qE "^${p}_[0-9]+_counter_collection.csv$" && pass "$p: files named <pass>_<pid>_..." \
        || fail "$p: per-process names"
done
expect_grep 'SQ_BUSY_CU_CYCLES' "$(ls "$run"/04_cu_util/*_counter_collection.csv | head -1)" "pass 2 counters collected"
expect_grep '^pass 04_cu_util: rc=0' "$T/results/pmcjob-pmc-$j.out" "job output reports the passes"

expect_job "$jn" COMPLETED "pmc job on 2 nodes"
for p in 01_fp64_flops 04_cu_util; do
    names=$(ls "$T/results/pmc-$jn/$p/" | sed -n "s/^${p}_\(node[12]\)_[0-9]*_counter_collection.csv$/\1/p" | sort | paste -sd,)
    [ "$names" = "node1,node2" ] && pass "$p: one counter file per node, named <pass>_<node>_<pid>" \
        || { fail "$p: node names '$names'"; ls "$T/results/pmc-$jn/$p/" >&2; }
done
finish
