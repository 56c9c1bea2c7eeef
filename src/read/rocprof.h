/* rocprof.h - rocprofv3 results (ROCm 6.2 - 7.x CSV) read into the aggregated
 * model of docs/design.md §6: per pass, per kernel name, Σ counter values, Σ
 * durations, launches; plus the power run's kernel trace.
 *
 * Owns: layout detection from the header (never by position), the per-row
 * parsing of *_counter_collection.csv, *_kernel_trace.csv and agent_info.csv,
 * file-set discovery in pass folders, multi-process runs, and aggregation while
 * reading (no object per row; kernel names interned once).
 *
 * Layouts (column sets; see docs/design.md §11):
 *   counter_collection  6.2 (15 cols, integer values, no timestamps),
 *                       6.3 (18: + Kernel_Id, Start/End_Timestamp),
 *                       6.4 and 7.x (19: + Accum_VGPR_Count).
 *   kernel_trace        6.2 (16, no Dispatch_Id), 6.3/6.4 (18), 7.x (22).
 * Columns are found by name: extra columns are ignored, a missing required
 * column, a duplicate column, a row with the wrong number of fields or a
 * non-numeric number is an error "file:line: what was expected". An empty file
 * or a header without rows is an error. A malformed last line without a
 * newline (killed job) is dropped with a warning and counted in `truncated`.
 *
 * Keys (docs/design.md §6): a launch is (file, Dispatch_Id); 6.2 counter files
 * have no timestamps, so their durations are joined from the kernel trace of
 * the same file set on Correlation_Id. Durations are counted once per launch
 * although there is one row per (launch, counter). Launch ids are never
 * matched across passes or files.
 *
 * A file set is the files of one process in one pass folder sharing a prefix:
 * PREFIX_counter_collection.csv + PREFIX_kernel_trace.csv (+ PREFIX_agent_info.csv),
 * e.g. 01_fp64_flops_12345_*, or one rocpd database PREFIX_results.db (ROCm
 * 7.0+, read/rocpd.h: its counters_collection, kernels and rocpd_info_agent
 * views stand for the three files). Pass folders are searched up to 4 levels
 * deep (rocprofv3 6.3+ default output is %hostname%/%pid%/).
 *
 * Units: timestamps and durations in ns (CLOCK_BOOTTIME domain), LDS and
 * scratch in bytes, workgroup and grid sizes in work-items.
 */
#ifndef BR_READ_ROCPROF_H
#define BR_READ_ROCPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/extrapolate.h"
#include "read/intern.h"
#include "read/rpcopy.h"

enum rp_kind { RP_KIND_UNKNOWN = 0, RP_KIND_COUNTER, RP_KIND_TRACE, RP_KIND_AGENT_INFO, RP_KIND_COPY };

/* Kernel attributes (the same for every launch of a name in practice; the
 * largest resource use seen is kept, so limits derived from it are safe). */
struct rp_kattr {
    uint32_t vgpr, agpr, sgpr;     /* per lane (arch VGPRs, accumulation VGPRs) */
    uint64_t lds, scratch;         /* bytes per workgroup / per work-item */
    uint32_t wg_x, wg_y, wg_z;     /* 0 when the file gives only the product */
    uint64_t wg_size, grid_size;   /* work-items: X·Y·Z */
    bool seen;                     /* some file gave attributes */
    bool has_agpr;                 /* Accum_VGPR_Count was in the file */
};

/* One counter pass: the sum of all its file sets (processes). Arrays are
 * indexed by kernel id (rp_run.names), nkernels rows; csum/crows are
 * nkernels x ncounters, row-major. */
struct rp_pass {
    char *name;                 /* pass name, e.g. "01_fp64_flops" */
    char *dir;                  /* folder searched */
    bool present;               /* a counter_collection file was found */
    uint32_t nsets;             /* file sets (processes) with a counter file */
    uint32_t ngpus;             /* Σ over file sets of the distinct Agent_Id values
                                   of their counter launches */
    uint32_t nfiles; char **files;  /* every file read, in order */
    char *layout;               /* e.g. "counter_collection 7.x (19 cols)" */

    uint32_t ncounters; char **counters;  /* counter names, first-seen order */
    uint32_t nkernels;
    uint64_t *launches;         /* [k] launches with counter rows */
    double *dur_ns;             /* [k] Σ (End - Start), once per launch */
    double *csum;               /* [k*ncounters + c] Σ Counter_Value */
    uint64_t *crows;            /* [k*ncounters + c] rows seen (0: no data) */

    uint64_t launches_total;    /* Σ launches[k] */
    double dur_ns_total;        /* Σ dur_ns[k] */
    /* Data checks (docs/design.md §8) from the pass's own kernel traces. */
    uint64_t trace_launches;    /* dispatches in the traces */
    uint64_t uncounted_launches;/* trace dispatches without counter rows */
    double trace_ns;            /* Σ trace durations */
    double uncounted_ns;        /* Σ durations of those without counters */
    uint64_t untimed_launches;  /* counter launches without a duration (6.2, no trace match) */
    uint64_t truncated;         /* dropped truncated last lines */
    uint64_t bad_values;        /* Counter_Values left out: not finite, negative, >= 2^64 */
    char *bad_value_at;         /* the first, "file:line: 'text' is why" */
    uint64_t dup_rows;          /* counter rows repeated for one launch, left out */
    char *dup_row_at;           /* the first, "file:line" */
    /* Constant fields found among the counter names (read/rpconst.h: CU_NUM,
     * processor_id_low, ...), left out of counters; NULL-terminated. */
    uint32_t nconstants;
    char **constants;

    /* Launch sampling (<pass>/launch_sampling.json, read/sampfile.h). In a
     * sampled pass launches[k] and dur_ns[k] are the kernel trace's (every
     * launch), csum the estimates over them (read/extrapolate.h) and crows
     * the profiled launches' rows; uncounted_launches counts only launches of
     * kernels with no profiled launch at all. In every pass profiled[k] is the
     * launches with counter rows; cvar and cdf (nkernels x ncounters) are the
     * estimates' variance and degrees of freedom, 0 where every launch was
     * profiled (NaN: unknown, a unit with one profiled launch). */
    bool sampled;
    struct xp_sampling sampling;
    uint64_t *profiled;         /* [k] */
    uint64_t *uncounted;        /* [k] traced launches without counter rows (lost, or a
                                   sampled kernel none of whose launches was profiled) */
    double *cvar, *cdf;         /* [k*ncounters + c] */
    uint64_t profiled_total;    /* Σ profiled[k] */
    uint64_t untraced;          /* profiled launches missing from the trace */
};

/* agent_info.csv: the first GPU row, as text, looked up by column name. */
struct rp_agent {
    bool present;
    char *file;
    uint32_t ncols;
    char **keys, **vals;
};

struct rp_run {
    struct intern names;        /* kernel full names; id = row index */
    struct rp_kattr *attr;      /* [id], grown with names */
    uint32_t nattr;
    uint32_t npasses;
    struct rp_pass *passes;
    struct rp_agent agent;
};

/* Reads the passes of a pmc run folder: pass_names[i] is read from
 * pmc_dir/pass_names[i]/ (a missing folder gives present = false, no error).
 * nthreads 0 = one per CPU. Returns 0, or -1 after printing the error. */
int rp_run_load(struct rp_run *run, const char *pmc_dir, const char *const *pass_names,
                size_t npasses, int nthreads);
void rp_run_release(struct rp_run *run);
/* Pass folders present in pmc_dir (subfolders holding a counter_collection
 * CSV), sorted by name; a NULL-terminated array the caller frees with
 * rp_strv_free. NULL on error. */
char **rp_find_passes(const char *pmc_dir);
void rp_strv_free(char **v);
/* Files under path (4 levels) whose names end with suffix, sorted; path itself
 * when it is not a folder. NULL-terminated, never NULL. */
char **rp_find_files(const char *path, const char *suffix);

/* rocpd databases as rocprofv3 names them: <output_file>_results.db (one per
 * process; read/rocpd.h). A folder's file set PREFIX_results.db is read
 * where PREFIX has no CSV (both formats asked for: the CSV is read). */
#define RP_ROCPD_SUFFIX "_results.db"
/* A path that is a rocpd database: by its name (<prefix>_results.db), else
 * by its first bytes (SQLite's header). */
bool rp_is_rocpd_path(const char *path);
/* Kernel traces under path (4 levels): every *kernel_trace.csv and every
 * *_results.db without a PREFIX_kernel_trace.csv beside it, sorted; path
 * itself when it is a file. NULL-terminated, never NULL. */
char **rp_find_traces(const char *path);

/* agent_info value by column name (NULL when absent); as a number: 0 and *out
 * set, -1 when absent or not a number. */
const char *rp_agent_get(const struct rp_agent *a, const char *col);
int rp_agent_num(const struct rp_agent *a, const char *col, double *out);

/* ---- power run kernel trace ------------------------------------------------ */

/* Busy time of one GPU: one (process's file set, agent) pair. Copies count
 * as busy time (read/rpcopy.h: which GPUs a copy occupies). */
struct rp_gpu_busy {
    uint32_t file;              /* index into rp_power.files, or UINT32_MAX for a
                                   process whose file set has copies only */
    uint32_t copy_file;         /* index into rp_power.copies.files, or UINT32_MAX */
    uint64_t agent;             /* Agent_Id number */
    int64_t first_start, last_end;   /* its kernels (its copies when it has no kernel) */
    int64_t span_first, span_last;   /* its kernels and copies: the busy % denominator */
    double busy_ns;             /* |union of kernel and copy intervals| */
    double kernel_busy_ns;      /* |union of kernel intervals| */
    double copy_busy_ns;        /* |union of its copy intervals| */
    uint64_t dispatches, copies;
    size_t iv_first, iv_n;      /* its merged kernel intervals: rp_power.busy_iv
                                 * pairs [iv_first, iv_first + iv_n) */
    size_t cv_first, cv_n;      /* its merged copy intervals: rp_power.copy_iv pairs */
};

/* One launch of the power run (rp_power_load_launches only). */
struct rp_launch {
    int64_t start_ns, end_ns;
    uint32_t kernel;                 /* names id */
    uint32_t gpu;                    /* index into rp_power.gpu: its (file, agent) */
};

struct rp_power {
    uint32_t nfiles; char **files;   /* kernel_trace files read */
    uint64_t dispatches;
    int64_t first_start, last_end;   /* over all files and agents */
    uint32_t nkernels;               /* rows of launches/dur_ns (names ids) */
    uint64_t *launches;              /* [k] */
    double *dur_ns;                  /* [k] Σ unprofiled durations */
    /* [k] largest VGPR_Count / LDS_Block_Size seen (0: none). On NVIDIA the
     * trace comes from CUPTI activity records (registersPerThread, static +
     * dynamic shared memory) and fills in what counter rows lack. */
    uint32_t *vgpr;
    uint64_t *lds;
    double dur_ns_total;
    uint32_t ngpus; struct rp_gpu_busy *gpu;
    uint64_t truncated;
    /* Merged busy intervals [start, end] (ns pairs) of every GPU: each GPU's
     * in start order, GPUs one after another (the metric engine's sampled
     * clock keeps the telemetry samples inside them, docs/design.md §7). */
    int64_t *busy_iv;
    size_t nbusy_iv, busy_cap;
    /* Memory copies and sets of the same traces (read/rpcopy.h), and each
     * GPU's merged copy intervals (report.html's copy band). */
    struct rp_copies copies;
    int64_t *copy_iv;
    size_t ncopy_iv, copy_cap;
    /* Every launch, in file order (rp_power_load_launches; else NULL). */
    struct rp_launch *launch;
    size_t nlaunch, launch_cap;
};

/* Reads the power run's kernel trace(s): path is one CSV, or a folder searched
 * (4 levels) for *kernel_trace.csv, and its memory copy traces
 * (rp_find_copies). Kernel names are interned into names (the pmc run's
 * table, so ids match). A run with copies and no kernel is read. 0, or -1
 * after printing the error. */
int rp_power_load(struct rp_power *pw, struct intern *names, const char *path);
/* The same, also keeping every launch in pw->launch (24 bytes each): what the
 * energy analysis and the power timeline need. */
int rp_power_load_launches(struct rp_power *pw, struct intern *names, const char *path);
void rp_power_release(struct rp_power *pw);
/* GPU busy % = 100 × busy / (last end − first start), per GPU, averaged
 * (docs/design.md §7): a kernel or a copy running; the span from its first to
 * its last kernel or copy. NaN with no dispatches. The _kernels variants:
 * kernels only, over the same span. */
double rp_power_busy_pct(const struct rp_power *pw);
double rp_gpu_busy_pct(const struct rp_gpu_busy *g);
double rp_power_kernel_busy_pct(const struct rp_power *pw);
double rp_gpu_kernel_busy_pct(const struct rp_gpu_busy *g);
/* The trace file of GPU g, or its copy file when it has no kernel trace. */
const char *rp_gpu_path(const struct rp_power *pw, const struct rp_gpu_busy *g);

/* Sorts n [start, end) pairs by start and merges overlapping and touching
 * ones in place; returns the merged count, *len = Σ their lengths (ns). */
size_t rp_iv_union(int64_t *se, size_t n, double *len);
/* Appends the pair [s, e) to the interval array *v (n pairs, room for cap values). */
void rp_iv_push(int64_t **v, size_t *cap, size_t *n, int64_t s, int64_t e);
/* Charges the copies in pw->copies to their GPUs (rp_copy_gpus; the GPU of
 * the same file set and agent, a new one when that process traced no
 * kernel on it) and recomputes busy_ns and the spans (rpbusy.c). */
void rp_power_add_copies(struct rp_power *pw);
/* The GPU (index into pw->gpu) that rp_power_add_copies charged copy c to
 * for agent (one of rp_copy_gpus), or UINT32_MAX. */
uint32_t rp_copy_gpu(const struct rp_power *pw, const struct rp_copy *c, int32_t agent);

/* Kernel window of a power run for the telemetry vectors (docs/design.md §9):
 * [first kernel start, last kernel end] in ns over all kernel_trace files
 * under path (file or folder, as rp_power_load). 0, 1 when no dispatch was
 * found (window unset), -1 on error (printed). */
int rp_kernel_window(const char *path, int64_t *first_start, int64_t *last_end);

/* ---- single files (tests, fuzz targets) -------------------------------------- */

struct rp_file_info {
    enum rp_kind kind;
    const char *layout;   /* static text, e.g. "7.x (22 cols)" */
    uint64_t rows, dispatches, truncated;
    uint32_t kernels, counters;
};

/* Parses one file held in memory (kind detected from its header) into a
 * scratch model and discards it. 0, or -1 after printing the error. */
int rp_check_mem(const char *name, const void *data, size_t len, struct rp_file_info *info);

#endif
