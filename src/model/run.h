/* run.h - the in-memory model of a pmc run: what the readers (read/rocprof.h)
 * fill and the metric engine and the writers read (docs/design.md §2).
 *
 * Per pass, per kernel name: the sums of counter values and durations and
 * the launch counts (docs/design.md §6); kernel attributes; agent_info; how
 * a launch-sampled pass was sampled. The types keep the rp_ prefix of the
 * rocprofv3-shaped records they hold. Kernel names: model/intern.h.
 */
#ifndef BR_MODEL_RUN_H
#define BR_MODEL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/intern.h"
#include "trace/launchplan.h"

enum xp_unit {
    XP_UNIT_SIGNATURE,   /* kernel name, grid size and workgroup size (libbenchrun-cupti) */
    XP_UNIT_KERNEL,      /* kernel name only (rocprofv3 counts iterations per kernel) */
};

/* How a pass was sampled (its launch_sampling.json). */
struct xp_sampling {
    struct lp_plan plan;
    enum xp_unit unit;
    /* The trace's durations are the kernels' own (rocprofv3: dispatch
     * timestamps), so time-proportional counters scale with them. false: they
     * come from CUDA events around each launch (libbenchrun-cupti), which add
     * ~2.6 us per launch on an H200 (+56 % on 4.5-us kernels): then every
     * counter scales by launches, and a pass with gpu__time_duration.sum
     * takes its kernel times from that counter's estimate. */
    bool kernel_times;
    /* Every launch has counters and only the plan's are used (analyze
     * --resample): what a sampled pass would have reported, checked against
     * the same run's census. */
    bool resample;
};

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
    char *empty_at;             /* every counter file header-only: the first (a
                                   copies-only run's passes, else an error) */
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
    /* [c] what a CUPTI user range counted of its own per launch, taken out
     * of every profiled launch's value by the collector (its *_cupti.json
     * range_offset); NULL where the pass has none. What it missed is
     * bounded by it: launch_sampling.csv's offset_bound = launches × this. */
    double *coffset;
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
    bool copies_only;           /* no pass has a counter row, and the passes traced
                                   memory copies or sets: a run of copies only */
};

void rp_agent_release(struct rp_agent *ag);
void rp_run_release(struct rp_run *run);

#endif
