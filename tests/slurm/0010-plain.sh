#!/bin/bash
# 0010-plain: the plain stage of the demo workload as real Slurm jobs:
#   A. 1 task, the sbatch wrapper submitted directly (sbatch run_plain.sbatch CONF);
#   B. 2 tasks through `benchrun submit CONF plain`: srun -n 2, BIND_GPU_PER_TASK=1
#      gives each task its own GPU (ROCR_VISIBLE_DEVICES = SLURM_LOCALID; fake
#      gfx942 node through BENCHRUN_SYSFS_ROOT);
#   C. NNODES=2, 2 tasks: one task on each node.
# Checked by files (run_info.txt, app.txt, submitted.json) and `scontrol show job`.
. "$(dirname "$0")/lib.sh"
slurm_require
cd "$T" || exit 1
fake_amd_gpus 2
scripts=$BR_SOURCE_DIR/scripts
conf() {  # conf NAME NTASKS NNODES EXTRA...
    local name=$1 ntasks=$2 nnodes=$3; shift 3
    {
        echo "WORKLOAD=$name"
        echo "RESULTS_DIR=$T/results"
        echo "NGPUS=$ntasks"
        echo "NTASKS=$ntasks"
        echo "NNODES=$nnodes"
        printf '%s\n' "$@"
        echo "PERF_GREP='^Loop time of'"
        echo "app_cmd() { APP_CMD=(\"$DEMO\" --size 100000 --iters 5 --print-env SLURM_LOCALID --print-env ROCR_VISIBLE_DEVICES --print-env SLURMD_NODENAME); }"
    } > "$T/$name.conf"
}
conf one 1 1 VENDOR=none
conf two 2 1 VENDOR=amd BIND_GPU_PER_TASK=1
conf nodes 2 2 VENDOR=none

ja=$(sbatch --parsable -n 1 -J one-plain -o "$T/one-%j.out" "$scripts/run_plain.sbatch" "$T/one.conf")
expect_exit 0 "submit two.conf plain" -- "$BENCHRUN" submit "$T/two.conf" plain
jb=$(awk '$1 == "plain" {print $2}' "$T/out")
expect_exit 0 "submit nodes.conf plain" -- "$BENCHRUN" submit "$T/nodes.conf" plain
jc=$(awk '$1 == "plain" {print $2}' "$T/out")
[ "$(submitted_ids "$T/results/submitted.json")" = "$jc" ] && pass "submitted.json has job $jc" \
    || fail "submitted.json: $(submitted_ids "$T/results/submitted.json")"

check_run() {  # check_run JOB NTASKS DESC
    local d=$T/results/plain-$1
    expect_job "$1" COMPLETED "$3"
    expect_grep '^status: ok$' "$d/run_info.txt" "$3: run_info status ok"
    expect_grep '^exit_status: 0$' "$d/run_info.txt" "$3: exit status 0"
    expect_grep "^command: srun .*-n ?$2( |$)" "$d/run_info.txt" "$3: app launched with srun -n $2"
    local n; n=$(grep -c '^Loop time of' "$d/app.txt" 2>/dev/null)
    [ "$n" = "$2" ] && pass "$3: $2 timing line(s) in app.txt" || { fail "$3: $n timing lines"; show_file "$d/app.txt"; }
}
check_run "$ja" 1 "A: 1 task, wrapper"
[ "$(job_field "$ja" NumTasks)" = 1 ] && pass "A: NumTasks=1" || fail "A: NumTasks $(job_field "$ja" NumTasks)"
expect_grep "one-plain|plain: one" "$T/one-$ja.out" "A: job output written"
check_run "$jb" 2 "B: 2 tasks, submit"
[ "$(job_field "$jb" JobName)" = two-plain ] && pass "B: job name two-plain" || fail "B: name $(job_field "$jb" JobName)"
[ -f "$T/results/two-plain-$jb.out" ] && pass "B: --output in RESULTS_DIR" || fail "B: no two-plain-$jb.out"
# one block per task: "env SLURM_LOCALID=i" then "env ROCR_VISIBLE_DEVICES=i"
pairs=$(awk -F= '/^env SLURM_LOCALID=/{l=$2} /^env ROCR_VISIBLE_DEVICES=/{print l ":" $2}' \
        "$T/results/plain-$jb/app.txt" | sort | paste -sd' ')
[ "$pairs" = "0:0 1:1" ] && pass "B: each task bound to its own GPU (LOCALID:ROCR = $pairs)" \
    || { fail "B: binding pairs '$pairs'"; show_file "$T/results/plain-$jb/app.txt"; }
check_run "$jc" 2 "C: 2 nodes"
[ "$(job_field "$jc" NumNodes)" = 2 ] && pass "C: NumNodes=2" || fail "C: NumNodes $(job_field "$jc" NumNodes)"
nodes=$(sed -n 's/^env SLURMD_NODENAME=//p' "$T/results/plain-$jc/app.txt" | sort | paste -sd,)
[ "$nodes" = "node1,node2" ] && pass "C: one task per node ($nodes)" || { fail "C: nodes '$nodes'"; show_file "$T/results/plain-$jc/app.txt"; }
finish
