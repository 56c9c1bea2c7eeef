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
#include "model/intern.h"
#include "model/power.h"
#include "model/run.h"
#include "read/rpcopy.h"
#include "util/strv.h"

enum rp_kind { RP_KIND_UNKNOWN = 0, RP_KIND_COUNTER, RP_KIND_TRACE, RP_KIND_AGENT_INFO, RP_KIND_COPY };

/* Reads the passes of a pmc run folder: pass_names[i] is read from
 * pmc_dir/pass_names[i]/ (a missing folder gives present = false, no error).
 * A pass whose counter files all hold only their header is an error, except
 * when no pass has a row and the pass folders traced copies (copies_only).
 * nthreads 0 = one per CPU. Returns 0, or -1 after printing the error. */
int rp_run_load(struct rp_run *run, const char *pmc_dir, const char *const *pass_names,
                size_t npasses, int nthreads);
/* The same, with every pass that profiled every launch read as if only the
 * launches of plan `resample` had been (analyze --resample): the estimates
 * and intervals a sampled pass would give, against the same run's census.
 * Sampled passes stay as they are. resample NULL: rp_run_load. */
int rp_run_load_resampled(struct rp_run *run, const char *pmc_dir, const char *const *pass_names,
                          size_t npasses, int nthreads, const struct lp_plan *resample);
/* Pass folders present in pmc_dir (subfolders holding a counter_collection
 * CSV), sorted by name; a NULL-terminated array the caller frees with
 * str_array_free (util/strv.h). NULL on error. */
char **rp_find_passes(const char *pmc_dir);
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

/* Reads the power run's kernel trace(s): path is one CSV, or a folder searched
 * (4 levels) for *kernel_trace.csv, and its memory copy traces
 * (rp_find_copies). Kernel names are interned into names (the pmc run's
 * table, so ids match). A run with copies and no kernel is read. 0, or -1
 * after printing the error. */
int rp_power_load(struct rp_power *pw, struct intern *names, const char *path);
/* The same, also keeping every launch in pw->launch (24 bytes each): what the
 * energy analysis and the power timeline need. */
int rp_power_load_launches(struct rp_power *pw, struct intern *names, const char *path);
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
