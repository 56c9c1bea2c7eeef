#!/bin/bash
# mlaunch.sh - a small launcher that starts N copies of a command the way srun
# or mpirun would, for benchrun's LAUNCHER outside Slurm (tests/gpu/multi.sh,
# issue 7): LAUNCHER=(bash tests/gpu/mlaunch.sh -n 2).
#
#   mlaunch.sh -n N CMD [ARG...]
#
# Copy i (0 <= i < N) gets SLURM_LOCALID=i SLURM_PROCID=i SLURM_NTASKS=N
# SLURM_NODEID=0 and the torch/MPI-style LOCAL_RANK=i RANK=i WORLD_SIZE=N
# (launch.sh binds GPU i to it with BIND_GPU_PER_TASK=1). SLURM_JOB_ID is not
# set: the copies are not inside a Slurm job. Output of each copy is
# prefixed by nothing (as srun without --label). SIGTERM/SIGINT/SIGHUP are
# forwarded to every copy. Exit status: 0 when all copies exit 0, else the
# status of the first copy (lowest i) that did not (128+signal when killed).
set -u
usage() { echo "usage: mlaunch.sh -n N CMD [ARG...]" >&2; exit 2; }
[ "${1:-}" = -n ] || usage
n=${2:-}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || usage
shift 2
[ $# -ge 1 ] || usage
pids=()
forward() { for p in "${pids[@]}"; do kill -"$1" "$p" 2>/dev/null; done; }
trap 'forward TERM' TERM
trap 'forward INT' INT
trap 'forward HUP' HUP
for ((i = 0; i < n; i++)); do
    SLURM_LOCALID=$i SLURM_PROCID=$i SLURM_NTASKS=$n SLURM_NODEID=0 \
        LOCAL_RANK=$i RANK=$i WORLD_SIZE=$n "$@" &
    pids+=($!)
done
rc=0
for ((i = 0; i < n; i++)); do
    # wait returns early (>128) when a trapped signal arrives: wait again
    while :; do
        wait "${pids[$i]}"
        s=$?
        kill -0 "${pids[$i]}" 2>/dev/null || break
    done
    [ $rc -eq 0 ] && [ $s -ne 0 ] && rc=$s
done
exit $rc
