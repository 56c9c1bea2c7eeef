/* power.h - the power stage: the seed's power run.
 *
 * Folder RESULTS_DIR/prof-<jobid>/ with workload.conf, run_info.txt, run.json
 * and app.txt; this same executable's `sample` command (found through
 * /proc/self/exe) samples SAMPLE_GPUS every SAMPLE_MS ms around
 *   [launcher] bash launch.sh CONF RUNDIR RUNDIR [kernel tracer --] app
 * writing profiling_result_<tag>_<gpu>.csv and clock_ref.txt; the kernel
 * tracer (AMD: rocprofv3 --kernel-trace into ktrace_<tag>/; NVIDIA: the
 * collector registered for nvidia, when built) puts kernel timestamps on the
 * same clock. Several nodes (stage/nodesamp.h): one sampler per node as its
 * own step, each node's trace in ktrace_<tag>/<node>/. After the app: the
 * seed's summary (samples, power, clock, temperature, kernels traced,
 * alignment evidence) stored in run.json power_summary.
 */
#ifndef BR_STAGE_POWER_H
#define BR_STAGE_POWER_H

#include <stdbool.h>

#include <jansson.h>

struct stage_power_opts {
    const char *conf;
    bool dry_run;               /* print every command, create nothing */
    /* The summary of the run folder once the app has run (run.json
     * power_summary): analysis (metrics/powersum.h), which a stage does not
     * include, so the command passes it in. ktrace is ktrace_<tag>/. */
    json_t *(*summarize)(const char *rundir, const char *workload, const char *ktrace);
};

/* Runs the stage (a dry run prints it). 0 when the app succeeded and the
 * record is written; -1 when it failed or the conf is invalid (printed).
 * *summary: the summary of a run that happened (the caller's reference, to
 * print and json_decref), else NULL. */
int stage_power(const struct stage_power_opts *o, json_t **summary);

#endif
