/* nodesamp.h - multi-node power runs (NNODES > 1): one `benchrun sample` per
 * node, as its own Slurm job step beside the app step.
 *
 * A sampler reads only the GPUs of the node it runs on, so a power run over
 * several nodes needs one sampler per node. The power stage starts, before
 * the app:
 *   srun --overlap -N NNODES -n NNODES --ntasks-per-node=1 --kill-on-bad-exit=0
 *        bash -c 'exec "$0" sample --node "${SLURMD_NODENAME:-$(hostname -s)}" "$@"'
 *        <benchrun> --gpus SAMPLE_GPUS --interval-ms SAMPLE_MS [--backend B]
 *        --prefix <tag> -o RUNDIR -- bash -c '<wait for RUNDIR/.samplers-stop>'
 * (the bash scripts are constant; every value travels as an argument), waits
 * until every node wrote clock_ref_<node>.txt (sampling has started), runs
 * the app step, then creates the stop file: each sampler's command ends, the
 * sampler writes its summary and exits 0. Files, per node <node>:
 *   profiling_result_<tag>_<node>_<gpu>.csv, clock_ref_<node>.txt,
 *   sampler_<tag>_<node>.json; the kernel trace under ktrace_<tag>/<node>/
 * (the tracer's -d holds COLLECT_NODE_TOKEN, collect/collect.h).
 * CLOCK_BOOTTIME is per node: align a node's samples with its own trace.
 *
 * Why a stop file and not a signal: srun answers SIGTERM by killing the step
 * (SIGKILL; "forcing job termination", measured with slurm-wlm 22.05), which
 * would lose the samplers' summaries. At the time limit Slurm itself sends
 * SIGTERM to every step, so the samplers stop and keep every complete line.
 */
#ifndef BR_NODESAMP_H
#define BR_NODESAMP_H

#include <stdbool.h>
#include <sys/types.h>

#include "stage/stage.h"

#define STAGE_SAMPLERS_STOP ".samplers-stop"

/* True when the power stage needs one sampler per node: NNODES > 1. */
bool stage_node_samplers_wanted(const struct br_conf *c);

/* The srun argv above (out initialized by the callee). self: this benchrun. */
void stage_node_samplers_argv(const struct stage *st, const char *self, struct strv *out);

struct stage_node_samplers {
    pid_t pid;                  /* the srun of the sampler step; 0 when not running */
    char *stop_path;            /* RUNDIR/.samplers-stop */
    char *rundir;
    long nnodes;
};

/* Starts the sampler step (own process group, output appended to log) and
 * waits up to timeout_s for NNODES clock_ref_*.txt in RUNDIR. 0, or -1 with
 * an error printed (the step is stopped again). */
int stage_node_samplers_start(struct stage_node_samplers *ns, const struct stage *st,
                              const struct strv *argv, const char *log, double timeout_s);

/* Creates the stop file and waits up to timeout_s for the step to end; then
 * SIGTERM, and SIGKILL 10 s later. Returns the srun exit status (128+signal
 * when killed), or -1 when nothing was running. Releases ns. */
int stage_node_samplers_stop(struct stage_node_samplers *ns, double timeout_s);

#endif
