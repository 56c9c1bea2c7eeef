#!/bin/bash
# 0001-cluster: the test cluster itself behaves like the facts the other Slurm
# tests rely on: srun -n 2 inside an allocation (SLURM_LOCALID 0 and 1), two
# nodes, --overlap steps beside the app step, fake GPUs, and an afterok job on
# a failed parent ending CANCELLED (DependencyParameters=kill_invalid_depend).
. "$(dirname "$0")/lib.sh"
slurm_require
cd "$T" || exit 1

j1=$(sbatch --parsable -n 2 -o steps-%j.out --wrap \
     'srun -n 2 bash -c "echo task \$SLURM_PROCID local \$SLURM_LOCALID node \$SLURMD_NODENAME"')
j2=$(sbatch --parsable -N 2 -n 2 -o nodes-%j.out --wrap \
     'srun -n 2 bash -c "sleep 1; echo app \$SLURMD_NODENAME" & srun --overlap -N 2 -n 2 --ntasks-per-node=1 bash -c "echo side \$SLURMD_NODENAME"; wait')
j3=$(sbatch --parsable --gpus=1 -o gpu-%j.out --wrap 'echo CVD=$CUDA_VISIBLE_DEVICES')
j4=$(sbatch --parsable -o fail-%j.out --wrap 'exit 3')
j5=$(sbatch --parsable -o never-%j.out --dependency=afterok:"$j4" --wrap 'echo must not run')

expect_job "$j1" COMPLETED "srun -n 2 in sbatch -n 2"
[ "$(grep -c '^task' "steps-$j1.out")" = 2 ] && grep -q 'local 1 ' "steps-$j1.out" \
    && pass "two tasks, SLURM_LOCALID 0 and 1" || { fail "steps output"; show_file "steps-$j1.out"; }
expect_job "$j2" COMPLETED "two-node job with an --overlap step"
[ "$(grep '^side' "nodes-$j2.out" | sort | paste -sd,)" = "side node1,side node2" ] \
    && pass "one --overlap task per node" || { fail "overlap step"; show_file "nodes-$j2.out"; }
expect_job "$j3" COMPLETED "--gpus=1 job"
expect_grep '^CVD=[0-9]' "gpu-$j3.out" "fake GPU sets CUDA_VISIBLE_DEVICES"
expect_job "$j4" FAILED "failing job"
[ "$(job_field "$j4" ExitCode)" = 3:0 ] && pass "ExitCode=3:0" || fail "ExitCode $(job_field "$j4" ExitCode)"
expect_job "$j5" CANCELLED "afterok on a failed job" 60
[ ! -e "never-$j5.out" ] && pass "dependent job never ran" || fail "dependent job ran"
finish
