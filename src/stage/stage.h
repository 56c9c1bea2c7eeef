/* stage.h - the stage context every stage (plain, pmc, power) shares: the
 * conf, the job id and run folder, the GPUs and vendor, the app launch
 * through share/benchrun/launch.sh, dry-run printing, and the end of a stage.
 *
 * How an app is started (docs/design.md, "Stages"), always as argv arrays
 * (execvp):
 *   setup, once:   bash <share>/launch.sh --setup CONF RUNDIR
 *                  (module load MODULES, cd RUNDIR, stage_inputs)
 *   app, per task: [launcher...] bash <share>/launch.sh CONF RUNDIR OUTDIR [collector argv...]
 *                  (module load, cd RUNDIR, app_env, per-task GPU binding,
 *                   app_cmd with OUT_DIR=OUTDIR, exec "$@" "${APP_CMD[@]}")
 * The launcher: stage/launcher.h. BIND_GPU_PER_TASK=1 makes launch.sh set
 * ROCR_VISIBLE_DEVICES (AMD) or CUDA_VISIBLE_DEVICES (NVIDIA) to the task's
 * local rank ($SLURM_LOCALID, or the MPI launcher's local rank variable); the
 * vendor reaches launch.sh in $BENCHRUN_VENDOR, which stage_load exports.
 *
 * A typical stage (cmd_plain.c is the smallest example):
 *   struct stage st;
 *   if (stage_begin(&st, "plain", conf_path, dry_run) != 0) return 1;
 *   stage_app_argv(&st, st.rundir, NULL, &app);       // no collector
 *   if (dry_run) { stage_dry_run_print(&app); ... } else stage_exec(&app, log, &res);
 *   stage_run_info_write(&st, &app, &res, extra);     // final run_info + run.json
 *   stage_release(&st);
 *
 * The other concerns have their own headers: stage/jobdir.h (job id, run
 * folder), stage/launcher.h (launcher, layout checks), stage/exec.h (running
 * a command, signals), stage/runinfo.h (the run record), stage/perfgrep.h
 * (PERF_GREP), stage/nodesamp.h (one sampler per node), stage/submit.h
 * (sbatch chains), stage/runbook.h (the runbook); the pmc and power stages
 * stage/pmc.h and stage/power.h.
 */
#ifndef BR_STAGE_H
#define BR_STAGE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "conf/conf.h"
#include "gpu/gpu.h"
#include "stage/exec.h"
#include "util/strv.h"

struct stage {
    const char *kind;       /* "plain", "pmc", "prof" (folder prefix) */
    bool dry_run;
    struct br_conf conf;    /* loaded with OUT_DIR = rundir */
    char *jobid;
    char *rundir;           /* absolute; for a dry run, the would-be folder */
    char *share;            /* share/benchrun folder (launch.sh lives there) */
    enum gpu_vendor vendor; /* conf VENDOR, else detected */
    struct gpu_node gpus;   /* detected (real runs only) */
    bool assume_slurm;      /* dry run outside Slurm with NTASKS > 1: show srun */
    double t_start;         /* CLOCK_REALTIME seconds at begin */
};

/* Loads the conf (REQUIRED_FILES checked), computes the job id and run
 * folder. A dry run stops there (nothing created). A real run also detects
 * GPUs, checks the layout, exports BENCHRUN_VENDOR, creates the folder, copies
 * the conf (workload.conf), writes a first run_info.txt/run.json (status
 * "running"), and runs the setup step (modules + stage_inputs), whose failure
 * is an error. 0 or -1 (printed; st released). */
int stage_begin(struct stage *st, const char *kind, const char *conf_path, bool dry_run);
/* stage_begin in two steps, for stages that must check more before
 * anything is created: load = conf, job id, would-be folder, and for a real
 * run GPUs, vendor, layout and launcher checks; start = folder, conf copy,
 * first run_info, setup step. Both 0 or -1 (printed; on failure the caller
 * still calls stage_release). */
int stage_load(struct stage *st, const char *kind, const char *conf_path, bool dry_run);
int stage_start(struct stage *st);
void stage_release(struct stage *st);

/* The app argv: [launcher...] bash <share>/launch.sh CONF RUNDIR OUTDIR
 * [collector...]. outdir NULL = rundir; collector NULL = none. The collector
 * argv must end with what separates it from the app (e.g. "--"). */
int stage_app_argv(const struct stage *st, const char *outdir, const struct strv *collector,
                   struct strv *out);

/* The setup argv: bash <share>/launch.sh --setup CONF RUNDIR. */
void stage_setup_argv(const struct stage *st, struct strv *out);

/* Dry run: prints "[dry-run] <quoted argv>" on stdout. */
void stage_dry_run_print(const struct strv *argv);
/* Dry run: prints "[dry-run] # <text>" on stdout. */
void stage_dry_run_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Dry run: the notes every stage prints first (conf, run folder, APP_CMD,
 * REQUIRED_FILES, modules) and the setup command. */
void stage_dry_run_header(const struct stage *st);

/* ---- end of a stage (report.c) -------------------------------------- */

/* Prints the lines of log_path matching PERF_GREP on stdout and stores them
 * as "perf_lines" in extra; warns when none matched. 0 or -1 (printed). */
int stage_perf_lines(const struct stage *st, const char *log_path, json_t *extra);
/* "plain", "pmc" or "power" (the command; kind is the folder prefix). */
const char *stage_name(const struct stage *st);
/* "<stage>: <workload>: exit status N, wall time S s; results in DIR". */
void stage_summary(const struct stage *st, const struct stage_exec_result *r);

#endif
