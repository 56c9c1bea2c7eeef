#!/usr/bin/env bash
# cluster.sh - a real Slurm cluster on localhost for the Slurm tests (tests/slurm/).
#
#   tests/slurm/cluster.sh start     install check, munged, slurmctld, slurmd; wait for IDLE
#   tests/slurm/cluster.sh stop      cancel jobs, stop the daemons we started, by pid
#   tests/slurm/cluster.sh status    daemons, nodes and jobs
#   tests/slurm/cluster.sh env       print the `export SLURM_CONF=...` line for a shell
#
# Owns: the generated slurm.conf/gres.conf and all state under $BR_SLURM_DIR
# (default ${TMPDIR:-/tmp}/benchrun-slurm): etc/ (config), state/, spool/, log/,
# run/ (pid files), dev/ (fake GPU device files). Nothing is written to /etc/slurm:
# every client finds the config through SLURM_CONF, which sbatch passes on to
# jobs (--export=ALL is Slurm's default).
#
# The cluster: no systemd, no cgroups (proctrack/linuxproc, task/none), no
# accounting. Nodes "node1" (and "node2" when BR_SLURM_NODES=2), all on
# 127.0.0.1 with their own slurmd port and spool (Debian's slurmd accepts
# several daemons on one host when each node has its own Port=). Each node
# declares BR_SLURM_CPUS CPUs (default 8) whatever the machine has
# (SlurmdParameters=config_overrides), so tests can run jobs concurrently on a
# 2-core CI machine, and BR_SLURM_GPUS fake GPUs (gres/gpu; File= symlinks to
# /dev/null, since slurmd 22.05 drops file-less or regular-file GPUs).
# Facts measured on Debian 12, slurm-wlm 22.05.8 (on the CI machine, 2026-11-29):
# MinJobAge=86400 keeps finished jobs in `scontrol show job`; kill_invalid_depend
# cancels an afterok job whose parent failed (instead of PENDING forever);
# KillWait (BR_SLURM_KILLWAIT, default 5 s; Slurm's default is 30) is the gap
# between SIGTERM and SIGKILL at the time limit; the limit itself is whole
# minutes and is enforced by a ~30 s periodic check.
#
# Exit status of start: 0 cluster up; 1 it could not start (reason and the
# last log lines on stderr); 3 the Slurm or munge packages are missing and
# could not be installed.
set -uo pipefail

SL_DIR=${BR_SLURM_DIR:-${TMPDIR:-/tmp}/benchrun-slurm}
NNODES=${BR_SLURM_NODES:-2}
CPUS=${BR_SLURM_CPUS:-8}
GPUS=${BR_SLURM_GPUS:-2}
KILLWAIT=${BR_SLURM_KILLWAIT:-5}
WAIT_S=${BR_SLURM_WAIT_S:-60}
CONF=$SL_DIR/etc/slurm.conf
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
export SLURM_CONF=$CONF

t0=$EPOCHREALTIME
log() { printf '[cluster +%ss] %s\n' "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')" "$*" >&2; }
die() { echo "cluster.sh: $*" >&2; exit 1; }

alive() {  # pid exists and is not a zombie
    [ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]
}
nodes() { local i; for i in $(seq 1 "$NNODES"); do echo "node$i"; done; }
pidfile() { echo "$SL_DIR/run/$1.pid"; }

# --- packages -----------------------------------------------------------------------------
have_packages() {
    [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && [ -x /usr/bin/sbatch ] && [ -x /usr/sbin/munged ]
}
ensure_packages() {
    have_packages && return 0
    local here; here=$(cd "$(dirname "$0")/../.." && pwd)
    if [ "$(id -u)" -eq 0 ] && [ -x "$here/build-aux/install-deps.sh" ] || [ -f "$here/build-aux/install-deps.sh" ]; then
        log "installing Slurm and munge (build-aux/install-deps.sh ci)"
        bash "$here/build-aux/install-deps.sh" ci >&2 || true
    fi
    have_packages || { echo "cluster.sh: slurmctld, slurmd, sbatch or munged missing (apt-get install slurmctld slurmd slurm-client munge)" >&2; exit 3; }
}

# --- munge ----------------------------------------------------------------------------------
start_munge() {
    if [ ! -s /etc/munge/munge.key ]; then
        install -d -o munge -g munge -m 0700 /etc/munge
        if command -v mungekey >/dev/null; then runuser -u munge -- mungekey --create --keyfile=/etc/munge/munge.key
        else dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none; fi
        log "created /etc/munge/munge.key"
    fi
    chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        log "munged already running (not ours: stop leaves it running)"
        return 0
    fi
    install -d -o munge -g munge -m 0755 /run/munge
    local d; for d in /var/log/munge /var/lib/munge; do [ -d $d ] || install -d -o munge -g munge -m 0700 $d; done
    runuser -u munge -- /usr/sbin/munged --force </dev/null || die "munged did not start"
    for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
    munge -n | unmunge >/dev/null 2>&1 || die "munged started but munge/unmunge fails"
    cp /run/munge/munged.pid "$(pidfile munged)"
    log "munged started (pid $(cat "$(pidfile munged)"))"
}

# --- config ---------------------------------------------------------------------------------
write_config() {
    local mem gres_types="" gres_node="" n port=6818
    mem=$(/usr/sbin/slurmd -C | head -1 | grep -o 'RealMemory=[0-9]*' | cut -d= -f2)
    : > "$SL_DIR/etc/gres.conf"
    if [ "$GPUS" -gt 0 ]; then
        gres_types="GresTypes=gpu"
        gres_node="Gres=gpu:$GPUS"
        echo "AutoDetect=off" >> "$SL_DIR/etc/gres.conf"
        for n in $(nodes); do
            mkdir -p "$SL_DIR/dev/$n"
            for i in $(seq 0 $((GPUS - 1))); do ln -sf /dev/null "$SL_DIR/dev/$n/gpu$i"; done
            echo "NodeName=$n Name=gpu File=$SL_DIR/dev/$n/gpu[0-$((GPUS - 1))]" >> "$SL_DIR/etc/gres.conf"
        done
    fi
    {
        echo "# generated by tests/slurm/cluster.sh (benchrun Slurm tests)"
        echo "ClusterName=benchrun-ci"
        echo "SlurmctldHost=localhost"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "CredType=cred/munge"
        echo "StateSaveLocation=$SL_DIR/state"
        echo "SlurmdSpoolDir=$SL_DIR/spool/%n"
        echo "SlurmctldPidFile=$SL_DIR/run/slurmctld.pid"
        echo "SlurmdPidFile=$SL_DIR/run/slurmd-%n.pid"
        echo "SlurmctldLogFile=$SL_DIR/log/slurmctld.log"
        echo "SlurmdLogFile=$SL_DIR/log/slurmd-%n.log"
        echo "SlurmctldDebug=info"
        echo "SlurmdDebug=info"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "JobCompType=jobcomp/none"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_Core"
        echo "SlurmdParameters=config_overrides"
        echo "MpiDefault=none"
        echo "MailProg=/bin/true"
        echo "ReturnToService=2"
        echo "MinJobAge=86400"
        echo "DependencyParameters=kill_invalid_depend"
        echo "KillWait=$KILLWAIT"
        echo "$gres_types"
        for n in $(nodes); do
            echo "NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$port CPUs=$CPUS RealMemory=$mem $gres_node State=UNKNOWN"
            port=$((port + 1))
        done
        echo "PartitionName=debug Nodes=$(nodes | paste -sd,) Default=YES MaxTime=INFINITE State=UP"
    } > "$CONF"
}

# --- start / stop -----------------------------------------------------------------------------
node_states() { timeout 5 scontrol -o show node 2>/dev/null | grep -o ' State=[^ ]*' | cut -d= -f2 | paste -sd' '; }

wait_idle() {
    local want deadline=$((SECONDS + WAIT_S)) states="" d pid
    want=$(nodes | sed 's/.*/IDLE/' | paste -sd' ')
    while [ $SECONDS -lt $deadline ]; do
        for d in slurmctld $(nodes | sed 's/^/slurmd-/'); do
            pid=$(cat "$(pidfile "$d")" 2>/dev/null || true)
            [ -z "$pid" ] && [ $SECONDS -lt $((deadline - WAIT_S + 10)) ] && continue
            if ! alive "$pid"; then
                echo "cluster.sh: $d is not running; last log lines:" >&2
                tail -n 20 "$SL_DIR/log/$d.log" >&2 2>/dev/null
                return 1
            fi
        done
        states=$(node_states)
        [ "$states" = "$want" ] && return 0
        sleep 0.2
    done
    echo "cluster.sh: nodes not IDLE after ${WAIT_S}s (states: '${states}')" >&2
    scontrol show node >&2 2>/dev/null
    tail -n 30 "$SL_DIR"/log/*.log >&2 2>/dev/null
    return 1
}

cmd_start() {
    [ "$(id -u)" -eq 0 ] || die "must run as root (slurmd runs jobs as the submitting user; SlurmUser=root)"
    ensure_packages
    if [ -s "$(pidfile slurmctld)" ] && alive "$(cat "$(pidfile slurmctld)")"; then
        log "a cluster started by this script is running: stopping it first"
        cmd_stop
    fi
    local keep_munged; keep_munged=$(cat "$(pidfile munged)" 2>/dev/null || true)
    rm -rf "$SL_DIR/etc" "$SL_DIR/state" "$SL_DIR/spool" "$SL_DIR/log" "$SL_DIR/run" "$SL_DIR/dev"
    mkdir -p "$SL_DIR"/{etc,state,spool,log,run,dev,work} || die "cannot create the state folders under '$SL_DIR'"
    [ -n "$keep_munged" ] && alive "$keep_munged" && echo "$keep_munged" > "$(pidfile munged)"
    start_munge
    write_config
    /usr/sbin/slurmctld </dev/null || { tail -n 20 "$SL_DIR/log/slurmctld.log" >&2; die "slurmctld did not start"; }
    local n
    for n in $(nodes); do
        mkdir -p "$SL_DIR/spool/$n"
        /usr/sbin/slurmd -N "$n" </dev/null || { tail -n 20 "$SL_DIR/log/slurmd-$n.log" >&2; die "slurmd -N $n did not start"; }
    done
    log "slurmctld and $NNODES slurmd launched; waiting for IDLE"
    wait_idle || exit 1
    log "cluster up: $(nodes | paste -sd,) IDLE, $CPUS CPUs and $GPUS fake GPUs each, KillWait=${KILLWAIT}s"
    log "config $CONF (export SLURM_CONF=$CONF), logs in $SL_DIR/log"
}

active_jobs() {
    scontrol -o show job 2>/dev/null |
        grep -E 'JobState=(PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT)' |
        grep -oE '^JobId=[0-9]+' | cut -d= -f2
}

stop_pid() {  # stop_pid NAME PIDFILE: SIGTERM, then SIGKILL after 15 s
    local pid; pid=$(cat "$2" 2>/dev/null || true)
    if alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 150); do alive "$pid" || break; sleep 0.1; done
        if alive "$pid"; then log "$1 ($pid) ignored SIGTERM: SIGKILL"; kill -KILL "$pid" 2>/dev/null; fi
        log "stopped $1 (pid $pid)"
    fi
    rm -f "$2"
}

cmd_stop() {
    if [ -s "$(pidfile slurmctld)" ] && alive "$(cat "$(pidfile slurmctld)")"; then
        local ids; ids=$(active_jobs | paste -sd' ')
        if [ -n "$ids" ]; then
            log "cancelling jobs: $ids"
            # shellcheck disable=SC2086
            scancel $ids 2>/dev/null
            for _ in $(seq $(( (KILLWAIT + 20) * 5 ))); do [ -z "$(active_jobs)" ] && break; sleep 0.2; done
        fi
    fi
    local f
    for f in "$SL_DIR"/run/slurmd-*.pid; do
        [ -e "$f" ] || continue
        stop_pid "$(basename "$f" .pid)" "$f"
    done
    stop_pid slurmctld "$(pidfile slurmctld)"
    stop_pid munged "$(pidfile munged)"
    return 0
}

cmd_status() {
    local f
    for f in "$SL_DIR"/run/*.pid; do
        [ -e "$f" ] || { echo "no daemon started by cluster.sh ($SL_DIR/run)"; return 1; }
        if alive "$(cat "$f")"; then echo "$(basename "$f" .pid): running (pid $(cat "$f"))"
        else echo "$(basename "$f" .pid): NOT running"; fi
    done
    scontrol -o show node 2>/dev/null | grep -oE '^NodeName=[^ ]*|State=[^ ]*' | paste -sd' \n'
    squeue 2>/dev/null
}

case "${1:-}" in
    start)  cmd_start ;;
    stop)   cmd_stop ;;
    status) cmd_status ;;
    env)    echo "export SLURM_CONF=$CONF" ;;
    *) echo "usage: tests/slurm/cluster.sh start|stop|status|env" >&2; exit 2 ;;
esac
