/* stage.h - what every stage (plain, pmc, power) shares: job id, run folder,
 * GPU detection, layout checks, launcher argv, the app launch through
 * share/benchrun/launch.sh, process execution with signal forwarding, and
 * run_info.txt / run.json.
 *
 * How an app is started (DESIGN.md §4), always as argv arrays (execvp):
 *   setup, once:   bash <share>/launch.sh --setup CONF RUNDIR
 *                  (module load MODULES, cd RUNDIR, stage_inputs)
 *   app, per task: [launcher...] bash <share>/launch.sh CONF RUNDIR OUTDIR [collector argv...]
 *                  (module load, cd RUNDIR, app_env, per-task GPU binding,
 *                   app_cmd with OUT_DIR=OUTDIR, exec "$@" "${APP_CMD[@]}")
 * The launcher is LAUNCHER from the conf, else `srun -n NTASKS [-N NNODES]`
 * inside a Slurm allocation, else nothing (direct exec, NTASKS must be 1).
 * BIND_GPU_PER_TASK=1 makes launch.sh set ROCR_VISIBLE_DEVICES (AMD) or
 * CUDA_VISIBLE_DEVICES (NVIDIA) to the task's local rank ($SLURM_LOCALID, or
 * the MPI launcher's local rank variable); the vendor reaches launch.sh in
 * $BENCHRUN_VENDOR, which br_stage_begin exports.
 *
 * A typical stage (cmd_plain.c is the smallest example):
 *   struct br_stage st;
 *   if (br_stage_begin(&st, "plain", conf_path, dry_run) != 0) return 1;
 *   br_app_argv(&st, st.rundir, NULL, &app);       // no collector
 *   if (dry_run) { br_dry_run_print(&app); ... } else br_stage_exec(&app, log, &res);
 *   br_stage_finish(&st, &res);                    // final run_info + run.json
 *   br_stage_release(&st);
 *
 * Signals (util/stopsig.h): from br_stage_load on, SIGTERM/SIGINT/SIGHUP
 * sent to benchrun are recorded, and forwarded to the process group of the
 * command that runs (the child is a group leader); no later step starts
 * after one, and every end is recorded: "time limit" for SIGTERM inside a
 * Slurm job (Slurm sends SIGTERM at the time limit, and on scancel), else
 * "SIGTERM received"...; SIGKILL follows after BENCHRUN_KILL_WAIT s.
 *
 * Run record (run_info.txt + run.json, written together): status "starting"
 * once the folder exists, "running" while the app runs, then "ok", "failed"
 * (non-zero exit, failing setup) or "killed" (a stop signal, with "signal";
 * or the app died of a signal). The stage's exit status is 0 exactly when
 * the final status is "ok".
 */
#ifndef BR_STAGE_H
#define BR_STAGE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "conf/conf.h"
#include "util/strv.h"

/* ---- job id and run folder ------------------------------------------- */

/* $SLURM_JOB_ID when set and non-empty, else "local-<YYYYmmddTHHMMSSZ>-<pid>"
 * (UTC). Caller frees. */
char *br_job_id(void);

/* "<results_dir>/<kind>-<jobid>" (not created). Caller frees. */
char *br_run_dir_name(const char *results_dir, const char *kind, const char *jobid);

/* Creates RESULTS_DIR (mkdir -p) and then a NEW folder <kind>-<jobid>; when
 * that exists (a requeued Slurm job), <kind>-<jobid>.2, .3, ... An existing
 * folder is never reused. *out gets the absolute path. 0 or -1 (printed). */
int br_run_dir_create(const char *results_dir, const char *kind, const char *jobid, char **out);
/* The name br_run_dir_create would pick now (not created). Caller frees. */
char *br_run_dir_free_name(const char *results_dir, const char *kind, const char *jobid);
/* Creates RESULTS_DIR (mkdir -p) and exactly path in it: 0 created, 1 it
 * exists already, -1 error (printed). */
int br_run_dir_create_at(const char *results_dir, const char *path);

/* ---- GPUs on this node ---------------------------------------------- */

struct br_gpus {
    char *vendor;       /* "amd", "nvidia", or NULL when none was found */
    int count;          /* GPUs seen on the node (0 when none) */
    char *arch;         /* "gfx942", "sm_90", ...; NULL unknown */
    char *name;         /* marketing name when known, else NULL */
    char *driver;       /* driver version when known, else NULL */
    char *source;       /* how they were found ("kfd topology", "nvidia-smi", ...) */
};

/* Detects GPUs: AMD from $BENCHRUN_SYSFS_ROOT/sys/class/kfd/kfd/topology/
 * nodes/<n>/properties (gfx_target_version != 0), else `rocminfo`; NVIDIA from
 * `nvidia-smi --query-gpu=name,compute_cap,driver_version`, else
 * /proc/driver/nvidia/gpus/. Never fails: count 0 means none found. */
void br_gpu_detect(struct br_gpus *g);
void br_gpus_free(struct br_gpus *g);

/* KFD "properties" text -> gfx_target_version (0 for CPU nodes) and
 * simd_count. 0, or -1 when the key is absent/malformed (no message). */
int br_kfd_parse_props(const char *text, size_t len, long *gfx_target_version, long *simd_count);
/* 90402 -> "gfx942", 90010 -> "gfx90a", 110000 -> "gfx1100". Caller frees;
 * NULL for values <= 0. */
char *br_gfx_name(long gfx_target_version);
/* "9.0" -> "sm_90". Caller frees; NULL when malformed. */
char *br_sm_name(const char *compute_cap);

/* ---- layout and launcher -------------------------------------------- */

/* Seed layout checks for a real run: GPUs seen < NGPUS, or Slurm tasks
 * ($SLURM_NTASKS) < NTASKS, is an error that prints the sbatch line to use
 * instead. VENDOR=none skips the GPU check. 0 or -1 (printed). */
int br_check_layout(const struct br_conf *c, const struct br_gpus *g);

/* True inside a Slurm allocation ($SLURM_JOB_ID set). */
bool br_in_slurm(void);

/* Fills out (initialized by the callee) with the launcher prefix: LAUNCHER
 * from the conf ("none" = direct), else srun -n NTASKS [-N NNODES] inside an
 * allocation, else empty (direct exec; NTASKS > 1 is then an error naming the
 * fix). 0 or -1 (printed). */
int br_launcher_argv(const struct br_conf *c, struct strv *out);

/* ---- the stage context --------------------------------------------- */

struct br_stage {
    const char *kind;       /* "plain", "pmc", "prof" (folder prefix) */
    bool dry_run;
    struct br_conf conf;    /* loaded with OUT_DIR = rundir */
    char *jobid;
    char *rundir;           /* absolute; for a dry run, the would-be folder */
    char *share;            /* share/benchrun folder (launch.sh lives there) */
    char *vendor;           /* conf VENDOR, else detected; "none"/"unknown" */
    struct br_gpus gpus;    /* detected (real runs only) */
    bool assume_slurm;      /* dry run outside Slurm with NTASKS > 1: show srun */
    double t_start;         /* CLOCK_REALTIME seconds at begin */
};

/* Loads the conf (REQUIRED_FILES checked), computes the job id and run
 * folder. A dry run stops there (nothing created). A real run also detects
 * GPUs, checks the layout, exports BENCHRUN_VENDOR, creates the folder, copies
 * the conf (workload.conf), writes a first run_info.txt/run.json (status
 * "running"), and runs the setup step (modules + stage_inputs), whose failure
 * is an error. 0 or -1 (printed; st released). */
int br_stage_begin(struct br_stage *st, const char *kind, const char *conf_path, bool dry_run);
/* br_stage_begin in two steps, for stages that must check more before
 * anything is created: load = conf, job id, would-be folder, and for a real
 * run GPUs, vendor, layout and launcher checks; start = folder, conf copy,
 * first run_info, setup step. Both 0 or -1 (printed; on failure the caller
 * still calls br_stage_release). */
int br_stage_load(struct br_stage *st, const char *kind, const char *conf_path, bool dry_run);
int br_stage_start(struct br_stage *st);
void br_stage_release(struct br_stage *st);

/* The app argv: [launcher...] bash <share>/launch.sh CONF RUNDIR OUTDIR
 * [collector...]. outdir NULL = rundir; collector NULL = none. The collector
 * argv must end with what separates it from the app (e.g. "--"). */
int br_app_argv(const struct br_stage *st, const char *outdir, const struct strv *collector,
                struct strv *out);

/* The setup argv: bash <share>/launch.sh --setup CONF RUNDIR. */
void br_setup_argv(const struct br_stage *st, struct strv *out);

/* Dry run: prints "[dry-run] <quoted argv>" on stdout. */
void br_dry_run_print(const struct strv *argv);
/* Dry run: prints "[dry-run] # <text>" on stdout. */
void br_dry_run_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Dry run: the notes every stage prints first (conf, run folder, APP_CMD,
 * REQUIRED_FILES, modules) and the setup command. */
void br_dry_run_header(const struct br_stage *st);

/* ---- running a command ---------------------------------------------- */

struct br_exec_result {
    bool started;           /* the command was started */
    int exit_code;          /* exit status, or 128+signal when killed; -1 not started */
    int term_signal;        /* signal that killed the child, 0 if none */
    int forwarded_signal;   /* stop signal benchrun received, 0 if none */
    double killed_after_s;  /* SIGKILL sent this long after it; -1: none sent */
    double wall_s;          /* CLOCK_MONOTONIC seconds from fork to reap */
    char *reason;           /* NULL, or why it ended early ("time limit", ...) */
};

/* Runs argv (execvp) in its own process group, stdout+stderr appended to
 * log_path (NULL: inherited), stdin from /dev/null when it is a terminal.
 * Forwards SIGTERM/SIGINT/SIGHUP to the group while waiting, and SIGKILLs
 * the group BENCHRUN_KILL_WAIT s after one arrived if it is still running.
 * A stop signal received earlier starts nothing (r->started false, reason
 * set). Returns 0 when the command ran or was not started for that reason
 * (see r), -1 when it could not be started (printed). Release r with
 * br_exec_result_release. */
int br_stage_exec(const struct strv *argv, const char *log_path, struct br_exec_result *r);
void br_exec_result_release(struct br_exec_result *r);
/* Reads BENCHRUN_KILL_WAIT (seconds from SIGTERM to SIGKILL, default 30);
 * 0, or -1 on a malformed value (printed). */
int br_stage_kill_wait_from_env(void);
/* "ok", "failed" or "killed": the final status of a run record. */
const char *br_run_status(const struct br_exec_result *r);
/* "time limit" (SIGTERM inside Slurm) or "<SIGNAME> received". Caller frees. */
char *br_stop_reason(int sig);

/* ---- run_info.txt and run.json -------------------------------------- */

/* Writes RUNDIR/run_info.txt ("key: value" lines) and RUNDIR/run.json with:
 * stage, workload, description, conf, host, date, GPU arch, vendor, layout,
 * GPUs seen, run dir, job id, command (quoted), and status: "running" when r
 * is NULL, else br_run_status(r) with exit status (null when not started),
 * wall time, reason and signal. extra (may be NULL; borrowed) holds
 * stage-specific keys merged into run.json and printed as "key: value" for
 * scalars. Values are escaped so that each stays on its line (control
 * characters as \n, \t, \xNN) and is UTF-8 (other bytes as \xNN, as in
 * run.json). Both files are written
 * to temporary names first and then renamed one after the other, so they
 * never disagree after a signal. 0 or -1 (printed). */
int br_run_info_write(const struct br_stage *st, const struct strv *command,
                      const struct br_exec_result *r, json_t *extra);
/* The first record, status "starting", written as soon as the folder exists. */
int br_run_info_starting(const struct br_stage *st);

/* Lines of a file matching the conf's PERF_GREP (grep -E semantics through
 * POSIX regcomp REG_EXTENDED); appended to out. Memory stays bounded
 * whatever the app printed: the first BR_PERF_MAX_LINES matching lines are
 * kept, each cut to BR_PERF_MAX_LINE bytes (a longer line is matched on
 * those bytes). *matched gets the number of matching lines, *cut the number
 * of kept lines that were cut (both may be NULL). 0, or -1 on a bad pattern
 * or unreadable file (printed). */
#define BR_PERF_MAX_LINES 100
#define BR_PERF_MAX_LINE 4096
int br_perf_grep(const char *pattern, const char *path, struct strv *out, size_t *matched,
                 size_t *cut);

/* ---- end of a stage (report.c) -------------------------------------- */

/* Prints the lines of log_path matching PERF_GREP on stdout and stores them
 * as "perf_lines" in extra; warns when none matched. 0 or -1 (printed). */
int br_stage_perf_lines(const struct br_stage *st, const char *log_path, json_t *extra);
/* "plain", "pmc" or "power" (the command; kind is the folder prefix). */
const char *br_stage_name(const struct br_stage *st);
/* "<stage>: <workload>: exit status N, wall time S s; results in DIR". */
void br_stage_summary(const struct br_stage *st, const struct br_exec_result *r);

/* ---- power run summary (powersum.c) -------------------------------- */

/* Reads back a power run folder: telemetry samples, mean/max socket power
 * and gfx clock, max hotspot temperature, kernels traced under ktrace (a
 * folder; missing = none), clock_ref.txt, first sample and first kernel
 * (CLOCK_BOOTTIME ns) and their offsets from clock_ref. New reference. */
json_t *br_power_summary(const char *rundir, const char *tag, const char *ktrace);
/* The same, as indented lines on stdout. */
void br_power_summary_print(json_t *summary);

#endif
