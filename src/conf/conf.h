/* conf.h - workload.conf: the seed's bash configuration, read by running bash.
 *
 * A workload.conf is a bash file (variables, arrays, and the functions
 * stage_inputs, app_cmd, app_env) exactly as the seed flow defines it
 * (seed README "Configuring a workload"; docs/conf.md). benchrun never parses
 * bash: br_conf_load runs ONE `bash --norc --noprofile` that checks the syntax
 * (bash -n), sources the conf with OUT_DIR set, calls app_cmd, and prints every
 * field NUL-separated on a private file descriptor (arrays element by element);
 * br_conf_decode turns that stream into struct br_conf and validates it.
 *
 * Fields (seed): WORKLOAD (required, a tag without blanks or '/'),
 * WORKLOAD_DESC, PROFILING_DIR (default: the conf's folder), RESULTS_DIR
 * (required; relative paths are taken from the conf's folder), NGPUS and
 * NTASKS (required, positive integers), BIND_GPU_PER_TASK (0/1, default 0),
 * SAMPLE_GPUS (default 0..NGPUS-1), MODULES (array), ROCM_PATH, PROF_LT
 * (kept for seed confs; benchrun has its own sampler), SAMPLE_MS (positive
 * integer, default 1), REQUIRED_FILES (array), PERF_GREP (grep -E pattern).
 * Optional (docs/conf.md): VENDOR (amd|nvidia|none, default auto-detected;
 * none = CPU-only workload, GPU checks skipped), ARCH, PARTITION, TIME_LIMIT,
 * COUNTERS (counter set name or JSON path), LAUNCHER (array or string; "none"
 * forces direct exec), NNODES (default 1), SAMPLE_BACKEND (default auto),
 * ROCPROF_FORMAT (auto, csv or rocpd; default auto), LAUNCHES (auto, all or
 * sampled: which launches of a counter pass get counters; default auto).
 * A string where an array is expected (MODULES, REQUIRED_FILES, LAUNCHER) is
 * split on blanks by bash, as `for m in $MODULES` would.
 *
 * Errors: every validation failure prints ONE line
 *   benchrun: <conf path>: <what is wrong>
 * and br_conf_load returns -1; nothing is created on disk by loading.
 */
#ifndef BR_CONF_H
#define BR_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu/gpu.h"
#include "util/strv.h"

struct br_conf {
    char *path;             /* absolute path of the conf file */
    char *dir;              /* its folder */

    /* seed fields */
    char *workload;         /* WORKLOAD tag */
    char *workload_desc;    /* "" when unset */
    char *profiling_dir;    /* default: dir */
    char *results_dir;      /* absolute */
    long ngpus;
    long ntasks;
    bool bind_gpu_per_task;
    char *sample_gpus;      /* "0,1,..." */
    struct strv modules;
    char *rocm_path;        /* NULL when unset */
    char *prof_lt;          /* NULL when unset (unused by benchrun) */
    long sample_ms;
    struct strv required_files;
    char *perf_grep;        /* NULL when unset or empty */

    /* optional fields (docs/conf.md) */
    enum gpu_vendor vendor; /* VENDOR; GPU_VENDOR_UNKNOWN = auto (detected) */
    char *arch;             /* e.g. "gfx942"; NULL = auto */
    char *partition;        /* NULL when unset */
    char *time_limit;       /* Slurm -t value; NULL when unset */
    char *counters;         /* counter set name or JSON path; NULL = "default" */
    struct strv launcher;   /* empty = automatic (srun / direct) */
    long nnodes;            /* default 1 */
    char *sample_backend;   /* default "auto" */
    char *rocprof_format;   /* rocprofv3 output: "auto" (default), "csv" or "rocpd" */
    char *launches;         /* counter passes: "auto" (default), "all" or "sampled" */

    /* functions */
    bool has_stage_inputs;
    bool has_app_env;
    struct strv app_cmd;    /* APP_CMD after app_cmd ran with OUT_DIR set */
    char *out_dir;          /* the OUT_DIR app_cmd saw */
};

enum br_conf_flags {
    BR_CONF_CHECK_FILES = 1u << 0,  /* every REQUIRED_FILES entry must exist */
};

/* Loads and validates the conf at path. out_dir is the value OUT_DIR has
 * while app_cmd runs (the run folder for a run, the would-be folder for a
 * dry run); NULL gives "<RESULTS_DIR>/OUT_DIR". On success fills *out
 * (release with br_conf_release) and returns 0; on failure prints one error line,
 * leaves *out released and returns -1. */
int br_conf_load(const char *path, const char *out_dir, unsigned flags, struct br_conf *out);

/* Re-runs app_cmd with another OUT_DIR (e.g. once the run folder exists):
 * replaces c->app_cmd and c->out_dir. 0 or -1 with an error printed. */
int br_conf_reload_app_cmd(struct br_conf *c, const char *out_dir);

/* Decodes the loader's NUL-separated stream (see conf.c for the records) and
 * validates it. Exposed for unit tests and the fuzz target. conf_path is used
 * in messages and to resolve relative paths. */
int br_conf_decode(const char *buf, size_t len, const char *conf_path, unsigned flags,
                   struct br_conf *out);

/* Checks the REQUIRED_FILES entries (relative ones from the conf's folder);
 * prints one error naming the first missing one. */
int br_conf_check_files(const struct br_conf *c);

void br_conf_release(struct br_conf *c);

/* The bash script the loader runs (documented, exposed for tests). */
extern const char br_conf_loader_script[];

#endif
