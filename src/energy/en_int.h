/* en_int.h - internals of the energy module (energy.h): the sweep over
 * activity intervals and sensor segments, the small dense linear algebra of
 * the fit, and the two methods' entry points. Not for use outside src/energy.
 */
#ifndef BR_ENERGY_EN_INT_H
#define BR_ENERGY_EN_INT_H

#include "energy/energy.h"

/* ---- en_sweep.c ---- */

/* Activity starts and ends of one GPU as column events, sorted by time
 * (starts before ends at equal times, so counts never go negative). */
struct en_events {
    size_t n;
    int64_t *t;
    uint32_t *col;
    int8_t *d;                      /* +1 start, -1 end */
};
void en_events_build(struct en_events *ev, const struct en_act *act, size_t nact,
                     uint32_t nkernels);
void en_events_free(struct en_events *ev);

/* What runs during a piece: the columns with a nonzero count. */
struct en_active {
    uint32_t n;                     /* columns running */
    uint32_t total;                 /* Σ counts (concurrent launches) */
    const uint32_t *col;            /* [n] */
    const uint32_t *cnt;            /* [ncols] counts by column */
};

/* Called for every piece [u, v) of segment seg during which the running set
 * is constant (nothing running: act->n == 0), then once at the end of the
 * segment (seg_done may be NULL). */
struct en_sweep_cb {
    void (*piece)(void *ctx, size_t seg, int64_t u, int64_t v, const struct en_active *act);
    void (*seg_done)(void *ctx, size_t seg);
    void *ctx;
};

/* Sweeps segments [a[j] - shift, b[j] - shift), sorted and not overlapping
 * (those that are not are skipped), against the events. */
void en_sweep(const struct en_events *ev, uint32_t ncols, const int64_t *a, const int64_t *b,
              size_t nseg, int64_t shift, const struct en_sweep_cb *cb);

/* Length of the union of the activities inside [w0, w1). */
double en_busy_ns(const struct en_events *ev, int64_t w0, int64_t w1);

/* ---- en_linalg.c: symmetric positive (semi)definite p x p, row-major ---- */

/* In place: the inverse of the SPD matrix a. 0, or -1 when not positive
 * definite (a is then undefined). */
int en_spd_inverse(double *a, uint32_t p);
/* Eigenvalues (ascending order not guaranteed) into w and eigenvectors as
 * columns of v (Jacobi rotations) of the symmetric matrix a (destroyed). */
void en_sym_eigen(double *a, uint32_t p, double *w, double *v);

/* ---- the methods ---- */

/* Attribution of one GPU into gcol (ncols) and whole; warnings through res. */
void en_attribute(const struct en_gpu *g, const struct en_events *ev, struct en_result *res,
                  struct en_col *gcol, struct en_whole *whole);
/* The split of one GPU's segments, shifted by the sensor's delay lag_ns, by
 * time × the fitted power (weight_W[c] of column c, idle_W of idle; NaN:
 * unknown) into gcol's energy_J and whole's kernels_J, copies_J, idle_J and
 * segments_weighted. */
void en_attribute_weighted(const struct en_gpu *g, const struct en_events *ev,
                           const struct en_result *res, const double *weight_W, double idle_W,
                           int64_t lag_ns, struct en_col *gcol, struct en_whole *whole);
/* The attribution sensor's delay (ns; its segments [a - lag, b - lag)): the
 * least residual of the segments' mean powers against the fitted powers P
 * (NaN: a class without one; idle_P), on the fit's lag grid. */
int64_t en_attribution_lag(const struct en_gpu *gpus, const struct en_events *ev, size_t ngpus,
                           uint32_t ncols, const double *P, double idle_P);
/* The fit over every GPU's windows; fills res->fit and the fit fields of
 * res->col and res->gcol. */
void en_fit_run(const struct en_gpu *gpus, const struct en_events *ev, size_t ngpus,
                const struct en_opts *opt, struct en_result *res);

void en_warn(struct en_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double en_median(double *v, size_t n);   /* sorts v; NaN when n == 0 */

#endif
