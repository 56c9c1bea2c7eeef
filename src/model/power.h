/* power.h - the in-memory model of a power run's trace: launches per kernel,
 * busy time per GPU (kernels and copies), the merged busy intervals, the
 * memory copies; filled by read/rocprof.h (rp_power_load) and read/rpcopy.h,
 * read by the engine and the writers. GPU busy %: docs/design.md §7.
 */
#ifndef BR_MODEL_POWER_H
#define BR_MODEL_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/copytrace.h"

struct rp_copy {
    struct ct_copy c;       /* direction, agents, stream, correlation, start/end, bytes */
    uint32_t file;          /* index into rp_copies.files */
};

struct rp_copies {
    uint32_t nfiles;
    char **files;           /* NULL-terminated */
    const char **layouts;   /* [nfiles] static text, e.g. "7.x (8 cols)", "rocpd" */
    size_t n, cap;
    struct rp_copy *v;      /* in file order, then row order */
    uint64_t truncated;     /* dropped truncated last lines */
    uint64_t unknown;       /* rows with a Direction not known here, left out */
    char *unknown_at;       /* the first, "file:line: 'text'" */
};

/* Per direction (or all): copies, known bytes, copies without a byte count,
 * Σ durations (ns). */
struct rp_copy_sum {
    uint64_t copies, bytes, unknown_bytes;
    double time_ns;
};

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
void rp_copies_release(struct rp_copies *cp);
/* Sums by direction (by_dir[CT_NDIR]) and over all copies (all, may be NULL). */
void rp_copies_sum(const struct rp_copies *cp, struct rp_copy_sum *by_dir, struct rp_copy_sum *all);

#endif
