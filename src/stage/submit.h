/* submit.h - `benchrun submit`: one sbatch per stage, chained with afterok.
 *
 * For each requested stage (plain, pmc, power; in the order given) submit
 * builds one command (always an argv array, never a shell string):
 *   sbatch --parsable [-p PARTITION] -N NNODES -n NTASKS -J <tag>-<stage>
 *          [-t LIMIT] --output RESULTS_DIR/<tag>-<stage>-%j.out
 *          [--dependency=afterok:<previous job>] --export=ALL,BENCHRUN=<exe>
 *          <scripts>/run_<stage>.sbatch CONF
 * The first stage depends on --after JOBID when given. Time limits (-t): conf
 * TIME_LIMIT for every stage; for pmc, when a successful plain run exists in
 * RESULTS_DIR, passes x 3 x its wall time rounded up to whole minutes (the
 * seed's advice, "allow ~passes x 3 x plain wall time"), or TIME_LIMIT when
 * that is longer. No -p / no -t means the cluster's default (or the
 * wrapper's #SBATCH --time), said in a note.
 *
 * Job ids are recorded in RESULTS_DIR/submitted.json (one entry appended per
 * `benchrun submit`, written atomically), also when a later stage was
 * rejected: the entry then says "complete": false and lists what was
 * submitted, so nothing is half-submitted silently.
 * Slurm facts (sbatch(1), slurm-wlm 22.05): --parsable prints "<id>[;<cluster>]";
 * time formats "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", plus
 * "UNLIMITED"/"INFINITE"; sbatch does not create the --output folder.
 */
#ifndef BR_SUBMIT_H
#define BR_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strv.h"

#define SUBMIT_MAX_STAGES 3

/* Everything submit needs, resolved from the conf and the command line. */
struct submit_params {
    const char *conf_path;      /* absolute */
    const char *workload;       /* WORKLOAD tag (job names) */
    const char *results_dir;    /* absolute */
    const char *partition;      /* NULL = cluster default */
    long nnodes, ntasks;
    const char *time_limit;     /* conf TIME_LIMIT; NULL = none */
    const char *scripts_dir;    /* folder of run_<stage>.sbatch */
    const char *benchrun_exe;   /* exported as BENCHRUN to the job; NULL = none */
    const char *after;          /* --after JOBID; NULL = none */
    /* the pmc estimate (0 / NULL when unknown) */
    long pmc_passes;
    double plain_wall_s;        /* wall time of the newest successful plain run */
    const char *plain_run;      /* its folder, for the note */
};

/* One stage's submission. */
struct submit_job {
    const char *stage;          /* "plain", "pmc", "power" (static strings) */
    struct strv argv;           /* the sbatch command */
    char *time_limit;           /* the -t value used; NULL = none */
    char *time_note;            /* how it was chosen (for the user) */
    char *depends_on;           /* job id, or NULL */
    char *job_id;               /* after submission; NULL when not submitted */
};

/* True for "plain", "pmc" and "power". */
bool submit_is_stage(const char *name);

/* Slurm time string -> seconds (-1 for UNLIMITED/INFINITE). 0 or -1 when
 * malformed (no message). */
int submit_slurm_time_parse(const char *s, long *seconds);
/* Seconds -> "HH:MM:SS" or "D-HH:MM:SS". Caller frees. */
char *submit_slurm_time_format(long seconds);
/* pmc limit in seconds: passes x 3 x wall_s rounded up to whole minutes,
 * at least one minute. -1 when passes <= 0 or wall_s <= 0 / not finite. */
long submit_pmc_seconds(long passes, double wall_s);

/* The -t value for a stage (NULL = none) and a note saying where it came
 * from; both newly allocated. -1 (printed) when TIME_LIMIT is malformed. */
int submit_time_limit(const struct submit_params *p, const char *stage, char **limit,
                      char **note);

/* The default time limit in a wrapper's "#SBATCH --time=T" (or "-t T")
 * header line; NULL when none or unreadable. Caller frees. */
char *submit_sbatch_script_time(const char *path);

/* Builds job->argv for stage, depending on dep (NULL = none; for a dry run a
 * shell reference such as "$plain"). Initializes *job. 0 or -1 (printed). */
int submit_build(const struct submit_params *p, const char *stage, const char *dep,
                 struct submit_job *job);
void submit_job_release(struct submit_job *job);

/* sbatch --parsable stdout -> job id ("123" from "123\n" or "123;cl\n").
 * Caller frees; NULL when it is not a job id. */
char *submit_parse_jobid(const char *out);

/* Runs job->argv, capturing stdout and stderr; on success sets job->job_id
 * and passes sbatch's stderr (warnings) through. On failure prints sbatch's
 * own error and returns -1. */
int submit_run(struct submit_job *job);

/* Appends one entry {date, conf, workload, complete, jobs[...]} to
 * RESULTS_DIR/submitted.json (atomically). Jobs without a job_id are listed
 * under "not_submitted". 0 or -1 (printed). */
int submit_record(const struct submit_params *p, const struct submit_job *jobs,
                  size_t n, bool complete);
/* Checks that an existing submitted.json can be appended to (before
 * anything is submitted). 0 or -1 (printed). */
int submit_record_check(const char *results_dir);

/* The newest successful plain run in RESULTS_DIR. */
struct submit_plain_run {
    char *run;                  /* folder name, e.g. "plain-1234" */
    double wall_s;              /* its wall time (run.json "wall_time_s") */
    char *arch;                 /* the GPU it ran on (run.json "gpu_arch"); NULL unknown */
};

/* Newest RESULTS_DIR/plain-* (by run.json mtime) whose run.json says it
 * succeeded ("status" "ok", "exit_status" 0). 0 when found, 1 when none
 * (out zeroed); never fails: unreadable folders are skipped. */
int submit_find_plain(const char *results_dir, struct submit_plain_run *out);
void submit_plain_run_release(struct submit_plain_run *r);

/* Number of counter passes the pmc stage will run for this conf: COUNTERS
 * as a counters file (relative to the conf's folder), or a counter set of
 * the profile of ARCH (arch/passes.h). 0 with *passes set; -1 with *why
 * (caller frees) when it cannot be known here (e.g. ARCH unset on a login
 * node); no message printed. arch: the GPU of the plain run, used when the
 * conf has no ARCH (NULL = none). */
struct br_conf;
int submit_pmc_passes(const struct br_conf *c, const char *arch, long *passes, char **why);

/* Folder holding run_<stage>.sbatch: $BENCHRUN_SCRIPTS, <share>/scripts
 * (installed), or <share>/../../scripts (build tree). Caller frees; NULL
 * with an error when none holds run_plain.sbatch. */
char *submit_scripts_dir(void);

#endif
