#!/bin/bash
# launch.sh - how benchrun starts a workload.conf's app (installed under
# share/benchrun/; docs/conf.md). benchrun never pastes commands into shell
# strings: it execs this script with argv, and this script execs the app with
# the conf's APP_CMD array.
#
#   bash launch.sh --setup CONF RUNDIR
#       once per stage, before the app: module load MODULES, cd RUNDIR,
#       stage_inputs (link inputs into the run folder).
#   bash launch.sh CONF RUNDIR OUTDIR [COLLECTOR ARGV...]
#       once per task (srun starts NTASKS of them): module load MODULES,
#       ROCM_PATH/bin on PATH, cd RUNDIR, app_env, per-task GPU binding
#       (BIND_GPU_PER_TASK=1), app_cmd with OUT_DIR=OUTDIR, then
#       exec COLLECTOR... "${APP_CMD[@]}".
# Environment from benchrun: BENCHRUN_VENDOR (amd|nvidia|none|unknown).
# Errors print "benchrun: launch.sh: ..." and exit 1 (or 2 for usage).

__br_die() { echo "benchrun: launch.sh: $*" >&2; exit 1; }

# module(1) is a shell function; batch shells may not have it yet.
__br_modules() {
    [ "${#MODULES[@]}" -gt 0 ] || return 0
    if ! type module >/dev/null 2>&1; then
        local f
        for f in /etc/profile.d/lmod.sh /etc/profile.d/modules.sh /usr/share/lmod/lmod/init/bash; do
            [ -r "$f" ] && . "$f" >/dev/null 2>&1 && break
        done
    fi
    if ! type module >/dev/null 2>&1; then
        echo "benchrun: warning: no module command on this node; MODULES (${MODULES[*]}) not loaded" >&2
        return 0
    fi
    local m
    for m in "${MODULES[@]}"; do
        module load "$m" || __br_die "module load $m failed (MODULES in $__br_conf)"
    done
}

# Local rank of this task, from Slurm or the common MPI launchers.
__br_local_rank() {
    local v
    for v in SLURM_LOCALID OMPI_COMM_WORLD_LOCAL_RANK MPI_LOCALRANKID PMI_LOCAL_RANK PALS_LOCAL_RANKID; do
        if [ -n "${!v:-}" ]; then echo "${!v}"; return 0; fi
    done
    echo 0
}

__br_bind() {
    [ "${BIND_GPU_PER_TASK:-0}" = 1 ] || return 0
    local r; r=$(__br_local_rank)
    case "${BENCHRUN_VENDOR:-unknown}" in
        amd) export ROCR_VISIBLE_DEVICES=$r ;;
        nvidia) export CUDA_VISIBLE_DEVICES=$r ;;
        none) ;;
        *) export ROCR_VISIBLE_DEVICES=$r CUDA_VISIBLE_DEVICES=$r ;;
    esac
}

__br_setup=0
if [ "${1:-}" = --setup ]; then __br_setup=1; shift; fi
if [ $# -lt 2 ] || { [ $__br_setup = 0 ] && [ $# -lt 3 ]; }; then
    echo "usage: launch.sh --setup CONF RUNDIR | launch.sh CONF RUNDIR OUTDIR [COLLECTOR...]" >&2
    exit 2
fi
__br_conf=$1 __br_rundir=$2 __br_outdir=$2
if [ $__br_setup = 1 ]; then shift 2; else __br_outdir=$3; shift 3; fi
__br_collector=("$@")
# Multi-node power runs: @NODE@ in a collector argument becomes this
# node's name, as the per-node sampler names it (e.g. -d ktrace_<tag>/@NODE@).
if [[ "${__br_collector[*]}" == *@NODE@* ]]; then
    __br_node=${SLURMD_NODENAME:-$(hostname -s 2>/dev/null || hostname)}
    __br_collector=("${__br_collector[@]//@NODE@/$__br_node}")
fi
set --                      # the conf is sourced without positional arguments

OUT_DIR=$__br_outdir; export OUT_DIR
# shellcheck disable=SC1090
source "$__br_conf" || __br_die "sourcing $__br_conf failed"
__br_modules
cd "$__br_rundir" || __br_die "cannot enter run folder $__br_rundir"

if [ $__br_setup = 1 ]; then
    if declare -F stage_inputs >/dev/null; then
        stage_inputs || __br_die "stage_inputs failed (status $?) in $__br_rundir"
    fi
    exit 0
fi

if [ -n "${ROCM_PATH:-}" ] && [ -d "$ROCM_PATH/bin" ]; then
    export ROCM_PATH PATH="$ROCM_PATH/bin:$PATH"
fi
if declare -F app_env >/dev/null; then
    app_env || __br_die "app_env failed (status $?)"
fi
__br_bind
unset APP_CMD
declare -F app_cmd >/dev/null || __br_die "no app_cmd function in $__br_conf"
app_cmd
[ "${#APP_CMD[@]}" -gt 0 ] || __br_die "app_cmd did not set APP_CMD in $__br_conf"
exec "${__br_collector[@]}" "${APP_CMD[@]}"
