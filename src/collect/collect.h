/* collect.h - collectors: the profiler a stage puts in front of the app.
 *
 * A collector turns "collect these counters into this folder under this
 * name" or "trace kernels into this folder" into an argv prefix that
 * launch.sh execs before "${APP_CMD[@]}" (docs/design.md §2), and says which files
 * it leaves. Stages never name a profiler: they pick a row of
 * br_collectors[] by name or vendor.
 *
 * Output layout every collector must produce (docs/design.md §5, the analysis
 * readers depend on it):
 *   <dir>/<name>[_<pid>]_counter_collection.csv   (pmc pass)
 *   <dir>/<name>[_<pid>]_kernel_trace.csv         (pmc pass and trace)
 * or, rocprofv3 with format "rocpd", one SQLite database per process
 *   <dir>/<name>[_<pid>]_results.db               (both; read/rocpd.h)
 * in the rocprofv3 7.x CSV schemas (docs/design.md §11), timestamps
 * in CLOCK_BOOTTIME ns. With NTASKS > 1 each process must write its own
 * files (the _<pid> part), or ranks overwrite one another.
 *
 * Adding a collector (e.g. the NVIDIA `cupti` row):
 *   1. write src/collect/collect_<name>.c defining
 *      `const struct br_collector_ops br_collector_<name>` with designated
 *      initializers; no vendor headers in it (it only builds argv and
 *      environment; vendor code lives in src/trace/);
 *   2. declare it below and add a row to br_collectors[] in collect.c, inside
 *      an #if when it needs a build option, in preference order per vendor;
 *   3. if the profiler is not an argv prefix (an injection library), return
 *      an argv such as `env CUDA_INJECTION64_PATH=... --` ... or set
 *      environment in `env` (launch.sh runs the prefix with execvp);
 *   4. implement fixup when the tool's own layout differs (moves files into
 *      the layout above);
 *   5. tests: tests/unit/test_stage.c checks the argv (as test_rocprofv3_argv
 *      does); a fake tool under tests/fakes/ that writes the files lets
 *      tests/cli run `benchrun pmc`;
 *   6. document it in README.md (Commands > pmc / power).
 */
#ifndef BR_COLLECT_H
#define BR_COLLECT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gpu/gpu.h"
#include "trace/launchplan.h"
#include "util/strv.h"

/* Stands for the node name in collector arguments and output folders; the
 * app's launch.sh replaces it per task (multi-node runs, NNODES > 1). */
#define COLLECT_NODE_TOKEN "@NODE@"

/* What a stage asks of a collector. */
struct br_collect_req {
    const char *dir;            /* output folder (absolute, exists at run time) */
    const char *name;           /* file name stem: pass name or workload tag */
    bool per_process;           /* NTASKS > 1: one file set per process */
    bool per_node;              /* NNODES > 1: the node name in file names too
                                 * (COLLECT_NODE_TOKEN) */
    const char *const *counters;/* pmc: counter names, NULL-terminated */
    const char *tool_version;   /* "6.2", "6.4", "7.1"...; NULL = newest */
    const char *format;         /* rocprofv3 --output-format: "csv" (NULL) or "rocpd" */
    const struct lp_plan *sample;  /* pmc: launches to profile (trace/launchplan.h); NULL: all */
    const char *run_dir;        /* pmc: the run's folder, which its passes share (the CUPTI
                                 * library keeps its counter availability image there) */
    bool dry_run;               /* build argv only: write no input files */
};

struct br_collector_ops {
    const char *name;           /* "rocprofv3" */
    enum gpu_vendor vendor;
    const char *tool;           /* executable looked up in PATH (doctor, checks) */
    /* argv prefix for one counter pass (ends with the app separator). May
     * write small input files into req->dir (rocprofv3 6.2 -i file). 0/-1. */
    int (*pmc_argv)(const struct br_collect_req *req, struct strv *out);
    /* argv prefix for a kernel trace only (power run). 0/-1. */
    int (*trace_argv)(const struct br_collect_req *req, struct strv *out);
    /* After the run: bring the tool's files into the layout above; may be
     * NULL. 0/-1 (printed). */
    int (*fixup)(const struct br_collect_req *req);
    /* File name suffixes it writes, NULL-terminated. */
    const char *const *outputs;
    /* pmc_argv honours req->sample, counting launches per this unit
     * ("signature": kernel, grid, block; "kernel"); NULL: it cannot sample. */
    const char *sample_unit;
    /* Its counter pass trace times launches with events around them, not the
     * kernels (read/extrapolate.h, xp_sampling.kernel_times). */
    bool launch_event_times;
};

extern const struct br_collector_ops br_collector_rocprofv3;
extern const struct br_collector_ops br_collector_cupti;   /* NVIDIA, in process */
extern const struct br_collector_ops br_collector_ncu;     /* NVIDIA cross-check */

/* The registered collectors, NULL-terminated. */
extern const struct br_collector_ops *const br_collectors[];

/* By name; NULL (no message) if unknown. */
const struct br_collector_ops *br_collector_find(const char *name);
/* First collector for a vendor; NULL if none. */
const struct br_collector_ops *br_collector_for_vendor(enum gpu_vendor vendor);

/* rocprofv3 release "major.minor" from $ROCM_PATH/.info/version (or the
 * rocm_path given), NULL when unknown. Caller frees. */
char *br_rocm_version(const char *rocm_path);

/* rocprofv3's output format for a stage (conf ROCPROF_FORMAT): "csv" or
 * "rocpd" as asked; "auto" (or NULL): rocpd from ROCm 7.13 on, whose
 * rocprofv3 documentation deprecates direct CSV output ("collect in the
 * default rocpd format, then use rocpd convert"), csv before (and when the
 * release is unknown: CSV works on every release). rocpd needs ROCm 7.0+:
 * -1 (printed) when the release is known to be older. *out is static;
 * *why (static) says what decided. */
int br_rocprof_format(const char *wanted, const char *tool_version, const char **out,
                      const char **why);
/* File name suffix of a pmc pass's counter results in that format. */
const char *br_rocprof_counter_suffix(const char *format);
/* rocprofv3 can sample launches (--kernel-iteration-range, 6.3+): -1
 * (printed) when the release is known to be older. */
int br_rocprof_can_sample(const char *tool_version);
/* The profiled ranks of plan up to max_rank as rocprofv3's iteration list,
 * "[1-10,57,98,...]" (caller frees). */
char *br_rocprof_iterations(const struct lp_plan *plan, uint64_t max_rank);

#endif
