/* metrics.h - the metric engine of `benchrun analyze` (docs/design.md §6-§8): the
 * aggregated passes of a pmc run (read/rocprof.h) and the arch profile's
 * metric expressions (arch/arch.h) → one row of values per kernel + TOTAL,
 * top kernels, display names and the data checks as warnings.
 *
 * Owns: filling the expression slots per row (counter rates pooled over the
 * passes that collected them, never joined by launch; whole-run = Σ over
 * kernels within a pass, then rates), the TOTAL rules of each metric
 * (rates / sum / none / only), bound and argmax labels, the clock choice
 * (override, sampled, or per-row GRBM fallback), top-kernel selection, the
 * physical-limit checks of the profile and the data checks of §8.
 * No architecture number lives here: constants, peaks and formulas come from
 * the profile; the check thresholds from its CHECK_* constants.
 *
 * Units: time in ns inside (the profile's metrics convert), clock in MHz,
 * percentages 0-100. NaN = does not apply / no data (an empty CSV cell).
 */
#ifndef BR_METRICS_METRICS_H
#define BR_METRICS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "model/power.h"
#include "model/run.h"
#include "model/telemetry.h"

enum mx_clock_src { MX_CLOCK_OVERRIDE, MX_CLOCK_SAMPLED, MX_CLOCK_FALLBACK };

struct mx_opts {
    double time_pct;          /* top kernels: fewest reaching this share (90) */
    int top_n;                /* > 0: exactly this many instead */
    double latency_pct;       /* bound = latency below this % of both peaks (10) */
    enum mx_clock_src clock_src;
    double clock_mhz;         /* OVERRIDE / SAMPLED: the clock; FALLBACK: ignored */
    /* Warnings about the inputs found before the engine runs (agent_info,
     * telemetry), listed first in mx_result.warn. */
    char *const *input_warn;
    size_t ninput_warn;
};

/* Per-pass figures for the report and the checks (docs/design.md §8). */
struct mx_pass {
    const char *name;
    const char *label;             /* the pass definition's label, or NULL */
    bool present;
    double time_ms, launches;      /* Σ over kernels with counters */
    double comm_ms;                /* of time_ms, in NCCL/RCCL kernels (out of the spread) */
    double eff_clock_MHz;          /* whole-run clock_MHz_<pass>, NaN without GRBM */
    double uncounted_pct;          /* % of trace time without counter rows */
    uint64_t lost_launches;        /* trace dispatches without counters + untimed */
    bool sampled;                  /* launch-sampled pass (read/extrapolate.h) */
    double profiled;               /* launches with counter rows (sampled: of `launches`) */
    double widest_pct;             /* widest 95 % interval, % of its value (NaN: none) */
    uint64_t truncated;
    bool instrumented;             /* counters patch the code: out of the time spread */
    double slowdown;               /* own kernel time / time base (timebase.c) */
    double gui_excess_pct;         /* share of GRBM_GUI_ACTIVE cycles outside kernel time x
                                      clock: 100 (1 - clock used / eff_clock_MHz); NaN
                                      without a clock */
    /* The clock the range check judged (clockcheck.c): Σ cycles / Σ time of
     * the kernels long enough for counter mode's per-launch overhead not to
     * matter, or of every kernel (judged_on says which). */
    double judged_clock_MHz;
    uint32_t judged_kernels;
    const char *judged_on;         /* static text, NULL when not judged */
    uint32_t nmissing;             /* counters of the pass definition with no data */
    char **missing;
    char *perf;                    /* --perf-regex: last matching line of the pass output */
    double perf_s;                 /* its group 1 as a number (the seed's lammps_loop_time_s),
                                      NaN without a match or a group */
};

/* A kernel missing from some passes (passcover.c). */
struct mx_missk {
    uint32_t row;                  /* kernel row */
    uint32_t npass, *pass;         /* the passes (run->passes indices) without it */
};

/* How a numeric cell is written: a number ("nan" when NaN), an integer, or
 * empty (the metric does not apply to the row). */
enum mx_cell { MX_CELL_NUM, MX_CELL_INT, MX_CELL_EMPTY };

struct mx_result {
    const struct arch_profile *ap;
    uint32_t nk;                   /* kernel rows: 0..nk-1; TOTAL is row nk */
    uint32_t *kid;                 /* [nk] kernel id in run->names */
    const char **full;             /* [nk] full names (owned by the run) */
    char **shortname;              /* [nk] unique display names */
    double *v;                     /* [(nk+1) * nmetrics] values */
    uint8_t *kind;                 /* [(nk+1) * nmetrics] enum mx_cell */
    const char **label;            /* [(nk+1) * nmetrics] label metrics, NULL = empty */
    uint32_t *by_time;             /* [nk] rows by descending counter-pass time (the
                                      seed's row order of per_kernel_metrics.csv) */
    uint32_t *order;               /* [nk] rows by descending top share: the
                                      power-run share when given, else time_share_pct */
    uint32_t ntop;                 /* top kernels: order[0..ntop-1] */
    bool share_from_power;         /* top shares from the power-run trace */
    uint32_t launch_pass;          /* pass launches come from (launch_counter), or
                                      UINT32_MAX when no pass has data */
    uint32_t npasses;
    struct mx_pass *pass;
    double time_spread_pct;        /* (max - min) / min of uninstrumented pass kernel
                                      times (the seed's), communication kernels left out */
    enum mx_clock_src clock_src;
    double clock_mhz;              /* NaN for the per-row fallback */
    uint32_t power_only_kernels;   /* power-run kernels with no counter data */
    uint32_t nmissk;               /* kernels missing from some passes, by descending */
    struct mx_missk *missk;        /* counter-pass time */
    size_t nwarn;
    char **warn;                   /* data checks and notes, in order found */
};

/* Computes every row. run and power (NULL: no power run) must outlive res.
 * ap constants must already hold the agent_info overrides. 0, or -1 after
 * printing the error. */
int mx_compute(struct mx_result *res, struct arch_profile *ap, const struct rp_run *run,
               const struct rp_power *power, const struct arch_pass *defs, int ndefs,
               const struct mx_opts *opt);
void mx_release(struct mx_result *res);

/* Value of metric m in row r (r == nk: TOTAL); metric index by name (-1). */
double mx_value(const struct mx_result *res, uint32_t r, int m);
enum mx_cell mx_cell_kind(const struct mx_result *res, uint32_t r, int m);
const char *mx_label(const struct mx_result *res, uint32_t r, int m);
int mx_metric_index(const struct arch_profile *ap, const char *name);
/* Adds a warning (printf format) to res->warn. */
void mx_warn(struct mx_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Display name of a kernel, the seed's short name (docs/design.md §6, rules in
 * names.c): rocclr:, LAMMPS "reduce Functor::Tag<...>", Kokkos::ParallelX,
 * else the first 80 characters. Allocated, never longer than full. */
char *mx_display_name(const char *full);
/* Makes names unique in place by appending " #2", " #3", ... */
void mx_unique_names(char **names, size_t n);

/* The sampled clock with the seed's statistics (summary.json clock.sampled). */
struct mx_clock_stats {
    uint64_t files;
    uint64_t samples_total;        /* every sample of the files */
    uint64_t samples_window;       /* inside [first kernel start, last kernel end] */
    uint64_t samples_running;      /* inside a running kernel: the ones averaged */
    uint64_t samples_no_clock;     /* inside a kernel but gfx clock 0 or below: left out */
    double mean, median, p5, p95;  /* MHz over those (percentiles: clock.c); NaN: none */
};
/* Sampled clock (docs/design.md §7): mean gfx_clock_MHz of the telemetry
 * samples inside a running kernel, pooled over every file of tel (read with
 * read/telread.h, which matches each file with its node's kernels); NaN
 * statistics when no sample is inside. */
void mx_clock_stats(const struct telem_run *tel, struct mx_clock_stats *st);

#endif
