/* mx_int.h - internals shared by the metric engine's files (engine.c: slots
 * and evaluation; rows.c: rows, engine variables, time shares, top kernels;
 * checks.c: docs/design.md §8 data checks, clockcheck.c the pass clock's;
 * timebase.c: the kernel times rates divide by). Not a public interface. */
#ifndef BR_METRICS_MX_INT_H
#define BR_METRICS_MX_INT_H

#include "metrics/metrics.h"

struct mx_pc {              /* one (pass, column) feeding a counter symbol */
    uint32_t p, c;
};

struct mx_refs {
    uint32_t n;
    struct mx_pc *pc;
};

struct mx_passtot {         /* whole-run sums of one pass, per column */
    double *csum, *cdur;
    uint64_t *crows;
};

struct mx_ctx {
    struct arch_profile *ap;
    const struct rp_run *run;
    const struct rp_power *power;
    const struct mx_opts *opt;
    struct mx_result *res;
    struct mx_refs *refs;       /* [nsyms] counter symbols */
    struct mx_passtot *tot;     /* [npasses] */
    int *metric_slot;           /* [nmetrics] slot of an AS_METRIC symbol, -1 */
    int clock_slot;             /* slot of clock_MHz, -1 */
    int eff_clock_metric;       /* eff_clock_MHz metric, -1 */
    double *var;                /* [(nk+1) * AV_COUNT] engine variables */
    /* timebase.c: per pass, the kernel times (ns, [nkernels]) rates divide
     * by; an instrumented pass's are taken from the other passes. */
    const double **kdur;
    double **kdur_owned;
    double *pass_ns;            /* [npasses] Σ kdur */
    bool *instrumented;         /* [npasses] */
};

/* timebase.c */
void mx_time_base(struct mx_ctx *x);
void mx_time_base_release(struct mx_ctx *x);

/* engine.c: every slot of row r but the metric ones (NaN there). */
void mx_fill_slots(const struct mx_ctx *x, uint32_t r, double *slot);
/* rows.c */
void mx_pick_rows(struct mx_ctx *x);
void mx_fill_vars(struct mx_ctx *x);
/* clockcheck.c: pass p's clock judged against the profile's limits */
void mx_check_pass_clock(struct mx_ctx *x, uint32_t p, struct mx_pass *mp);
/* passcover.c: kernels missing from some passes */
void mx_check_pass_cover(struct mx_ctx *x);
/* checks.c */
void mx_checks(struct mx_ctx *x, const struct arch_pass *defs, int ndefs, double *slot);

#endif
