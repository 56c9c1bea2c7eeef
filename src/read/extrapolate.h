/* extrapolate.h - per-kernel counter totals of a launch-sampled pass, with a
 * 95 % interval.
 *
 * A sampled pass (trace/launchplan.h) has a kernel trace with every launch and
 * counter rows for the profiled ones. Per sampling unit u (NVIDIA: kernel
 * name, grid and block, split further by the launch's parameter key where
 * the pass's launch_units.csv names a variant; AMD: the kernel) the trace gives L_u launches and
 * their total time D_u, and the ranks of the profiled launches place them in
 * the plan's strata h (stratum 0: every launch profiled). Per counter:
 *
 *   work counters (instructions, FLOPs, bytes; the default): the stratified
 *     mean-per-launch estimator  T = Σ_h L_h·ȳ_h, with Var = Σ_h L_h²·s_h²/n_h
 *     (s_h² the stratum's sample variance, the unit's pooled one where the
 *     stratum has a single profiled launch; a stratum without any profiled
 *     launch, e.g. the unfinished block at the end, is covered by the unit's
 *     mean with variance L_h²·s²/n);
 *   time-proportional counters (lp_elapsed_counter(): elapsed cycles and
 *     durations, which count time whatever the kernel does), where the trace
 *     times the kernels themselves (xp_sampling.kernel_times): the ratio
 *     estimator over the launches after the census, T = Σ_census x +
 *     D'·Σx/Σd (D' the traced time of those launches, d the profiled ones'
 *     own durations), Var = D'²·s_e²/(n·d̄²) with e = x - (Σx/Σd)·d (the
 *     residuals of every profiled launch, census included, where fewer
 *     than two launches after the census were profiled), because
 *     the trace times every launch and the counter is time × a rate.
 * Finite-population correction: a census stratum (every launch profiled) is
 * exact, variance 0. The other strata are sampled one launch per block, not
 * by simple random sampling: their variance is the sum of the within-block
 * variances, which the law of total variance bounds by the stratum's
 * variance, so the with-replacement form above (no factor 1 - n_h/L_h) is an
 * upper bound. The SRS correction would understate it on periodic launch
 * sequences (generated runs with period-3 launches: a third of the 95 %
 * intervals missed the true total with it, none without; tests/cli/0318).
 * Units whose launches were all profiled are exact (variance 0). Sums over the
 * units of a kernel name add totals and variances; the interval is
 * ± t(0.975, df)·√Var with df = Σ (n_h - 1) over strata with two or more
 * profiled launches, Student's t (normal beyond 120 degrees of freedom).
 * Cochran, Sampling Techniques (1977), §5.3 (stratified mean), §6.3-6.4
 * (ratio estimator), §2.4 (finite-population correction).
 */
#ifndef BR_READ_EXTRAPOLATE_H
#define BR_READ_EXTRAPOLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/run.h"
#include "trace/launchplan.h"

/* One unit's profiled launches for one counter. */
struct xp_unit_data {
    uint64_t launches;        /* L: traced launches (ranks 1..L) */
    double trace_ns;          /* D: their total duration */
    size_t n;                 /* profiled launches with a value */
    const uint64_t *rank;     /* [n] ranks, 1..L */
    const double *dur_ns;     /* [n] their durations (time-proportional only) */
    const double *x;          /* [n] counter values */
};

struct xp_estimate {
    double total;             /* estimated Σ over all L launches */
    double var;               /* its variance (0: exact) */
    double df;                /* degrees of freedom of the variance estimate */
};

/* Estimate for one unit; by_time: the ratio estimator (falls back to the
 * stratified one where a duration is missing or zero). NaN total when n = 0. */
struct xp_estimate xp_estimate_unit(const struct lp_plan *plan, const struct xp_unit_data *u,
                                    bool by_time);

/* Student's t quantile for 0.975 (two-sided 95 %), df >= 1. */
double xp_t975(double df);
/* Half width of the 95 % interval of an estimate (0 when exact). */
double xp_half_width(double var, double df);

/* ---- one file set (rpagg.c) ------------------------------------------------ */

/* Collects a file set's profiled launches (counter rows, read first) and its
 * traced launches (kernel trace, read second), then estimates every
 * (kernel, counter). Kernel and counter ids are the file set's local ones. */
struct xp_set;

struct xp_set *xp_set_new(const struct xp_sampling *s);

bool xp_kernel_times(const struct xp_set *e);
void xp_set_free(struct xp_set *e);
/* A profiled launch: kernel, grid and workgroup size (work-items), the
 * variant of that unit it belongs to (its launch_units.csv Launch_Unit, 0
 * without one), its launch key (Dispatch_Id) and duration (NaN unknown).
 * Returns the sample index. */
uint32_t xp_add_sample(struct xp_set *e, uint32_t kernel, uint64_t grid, uint64_t wg,
                       uint32_t variant, uint64_t key, double dur_ns);
void xp_add_value(struct xp_set *e, uint32_t sample, uint32_t counter, double v);
/* The sample of a launch key, UINT32_MAX when it has none. */
uint32_t xp_find_sample(const struct xp_set *e, uint64_t key);
/* A traced launch (every launch of the pass, profiled or not). */
void xp_add_trace(struct xp_set *e, uint32_t kernel, uint64_t grid, uint64_t wg,
                  uint32_t variant, uint64_t key, double dur_ns);

/* Per kernel: traced launches, profiled launches, traced time; per (kernel,
 * counter), row-major with stride ncap: estimate, variance, degrees of
 * freedom. Kernels without a profiled launch get NaN totals (the caller
 * counts them as launches without counters). */
struct xp_out {
    uint32_t nkernels, ncounters, ncap;
    uint64_t *launches, *profiled;
    double *trace_ns;
    double *total, *var, *df;
    uint64_t untraced;        /* profiled launches without a trace row */
    uint64_t uncounted;       /* traced launches of units with no profiled launch */
    uint64_t *uncounted_k;    /* [kernel] the same per kernel */
    double uncounted_ns;      /* and their time */
};

/* counters[c]: names of the local counter ids (time-proportional test). */
void xp_finish(struct xp_set *e, uint32_t nkernels, uint32_t ncounters, uint32_t ncap,
               const char *const *counters, struct xp_out *out);
void xp_out_release(struct xp_out *o);

#endif
