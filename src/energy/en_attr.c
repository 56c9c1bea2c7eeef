/* en_attr.c - attribution (energy.h method 1): each sensor segment's energy
 * split over what ran in it, for one GPU, by overlap time and by overlap
 * time × fitted power.
 *
 * Segments: between consecutive energy counter readings (constant power
 * ΔE/Δt inside), else between consecutive power samples (value i is the mean
 * over [t(i-1), t(i))), clipped to the accounting window. By time: a piece
 * of a segment where n launches run gives each launch 1/n of its energy (a
 * column with k of them gets k/n); a piece with none is idle. By power: the
 * segment's energy E goes to the columns in proportion to Σ over its pieces
 * of length × launches × the column's fitted power P_c (idle: length ×
 * P_idle); a column without a fitted power weighs with the segment's own
 * mean power E / length, and a segment where no column has one keeps the
 * time split. If the fit is right (P_c the true powers), E = Σ t_c P_c and
 * each column gets exactly t_c P_c. The gfx clock is swept the same way as
 * the time split over the sample intervals, each running column seeing the
 * whole clock.
 */
#include "energy/en_int.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Constant-power segments [a, b) with power p. */
struct segs {
    size_t n;
    int64_t *a, *b;
    double *p;
};

static void segs_free(struct segs *s)
{
    free(s->a);
    free(s->b);
    free(s->p);
}

/* Segments of a series: value i over [t(i-1), t(i)) - shift (the sensor's
 * delay: what it reads at t happened at t - shift), clipped to [w0, w1);
 * for a counter the value is (v(i) - v(i-1)) / Δt. Returns the counter
 * resets seen (a negative step, left out). */
static size_t segs_of(const struct en_series *s, bool counter, int64_t shift, int64_t w0,
                      int64_t w1, struct segs *out)
{
    size_t n = s->n > 1 ? s->n - 1 : 0, k = 0, resets = 0;
    out->a = xmalloc((n + 1) * sizeof(*out->a));
    out->b = xmalloc((n + 1) * sizeof(*out->b));
    out->p = xmalloc((n + 1) * sizeof(*out->p));
    for (size_t i = 1; i < s->n; i++) {
        int64_t a = s->t_ns[i - 1] - shift, b = s->t_ns[i] - shift;
        double p = s->v[i];
        if (counter) {
            double de = s->v[i] - s->v[i - 1];
            resets += de < 0;
            p = b > a && de >= 0 ? de / ((double)(b - a) * 1e-9) : NAN;
        }
        a = a < w0 ? w0 : a;
        b = b > w1 ? w1 : b;
        if (b <= a || !isfinite(p))
            continue;
        out->a[k] = a, out->b[k] = b, out->p[k] = p;
        k++;
    }
    out->n = k;
    return resets;
}

static double segs_energy(const struct segs *s, int64_t lo, int64_t hi)
{
    double e = 0;
    for (size_t i = 0; i < s->n; i++) {
        int64_t a = s->a[i] < lo ? lo : s->a[i], b = s->b[i] > hi ? hi : s->b[i];
        if (b > a)
            e += s->p[i] * (double)(b - a) * 1e-9;
    }
    return e;
}

struct attr_ctx {
    const struct segs *s;
    struct en_col *col;
    struct en_whole *w;
    uint32_t nkernels;
    long pure;                      /* the one column of this segment so far; -1 none, -2 unset */
};

static void attr_piece(void *vctx, size_t seg, int64_t u, int64_t v, const struct en_active *a)
{
    struct attr_ctx *c = vctx;
    double dt = (double)(v - u), e = c->s->p[seg] * dt * 1e-9;
    c->w->covered_ns += dt;
    if (a->n == 0) {
        c->w->idle_time_J += e;
        c->w->idle_ns += dt;
        c->pure = -1;
        return;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        uint32_t col = a->col[i], k = a->cnt[col];
        struct en_col *x = &c->col[col];
        x->energy_time_J += e * k / a->total;
        x->covered_ns += dt * k;
        x->split_ns += dt * k / a->total;
        if (col < c->nkernels)
            c->w->kernels_time_J += e * k / a->total;
        else
            c->w->copies_time_J += e * k / a->total;
    }
    long only = a->n == 1 ? (long)a->col[0] : -1;
    c->pure = c->pure == -2 || c->pure == only ? only : -1;
}

static void attr_seg_done(void *vctx, size_t seg)
{
    struct attr_ctx *c = vctx;
    if (c->pure >= 0)
        c->col[c->pure].resolved_ns += (double)(c->s->b[seg] - c->s->a[seg]);
    c->pure = -2;
}

static void clock_piece(void *vctx, size_t seg, int64_t u, int64_t v, const struct en_active *a)
{
    struct attr_ctx *c = vctx;
    double dt = (double)(v - u), mhz = c->s->p[seg];
    for (uint32_t i = 0; i < a->n; i++) {
        c->col[a->col[i]].clock_int += mhz * dt;
        c->col[a->col[i]].clock_ns += dt;
    }
}

static double seg_median_ms(const struct segs *s)
{
    double *d = xmalloc((s->n + 1) * sizeof(*d));
    for (size_t i = 0; i < s->n; i++)
        d[i] = (double)(s->b[i] - s->a[i]) / 1e6;
    double m = en_median(d, s->n);
    free(d);
    return m;
}

static double peak_in(const struct en_series *p, int64_t w0, int64_t w1)
{
    double m = NAN;
    for (size_t i = 0; i < p->n; i++)
        if (p->t_ns[i] >= w0 && p->t_ns[i] <= w1 && isfinite(p->v[i]) && !(p->v[i] <= m))
            m = p->v[i];
    return m;
}

/* Cross-check span: the first and the last counter reading inside the
 * window, the counter's difference over it and power × time of the other
 * series over the same span. */
static void cross_check(const struct en_gpu *g, struct en_whole *w)
{
    w->counter_J = w->power_J = w->driver_J = w->fit_J = NAN;
    const struct en_series *e = &g->energy;
    size_t i0 = 0, i1 = 0;
    bool any = false;
    for (size_t i = 0; i < e->n; i++)
        if (e->t_ns[i] >= g->win0_ns && e->t_ns[i] <= g->win1_ns) {
            i0 = any ? i0 : i;
            i1 = i;
            any = true;
        }
    if (!any || i1 <= i0)
        return;
    for (size_t i = i0 + 1; i <= i1; i++)
        if (e->v[i] < e->v[i - 1])
            return;                 /* a reset inside: no difference to compare */
    w->xs_ns = e->t_ns[i0], w->xe_ns = e->t_ns[i1];
    w->xspan_ns = (double)(w->xe_ns - w->xs_ns);
    w->counter_J = e->v[i1] - e->v[i0];
    const struct en_series *other[2] = { &g->power, &g->driver };
    double *to[2] = { &w->power_J, &w->driver_J };
    for (int k = 0; k < 2; k++) {
        struct segs s;
        segs_of(other[k], false, 0, w->xs_ns, w->xe_ns, &s);
        double cov = 0;
        for (size_t i = 0; i < s.n; i++)
            cov += (double)(s.b[i] - s.a[i]);
        if (s.n && cov >= 0.99 * w->xspan_ns)
            *to[k] = segs_energy(&s, w->xs_ns, w->xe_ns);
        segs_free(&s);
    }
}

static void count_launches(const struct en_gpu *g, const struct en_result *res, struct en_col *gcol)
{
    for (size_t i = 0; i < g->nact; i++) {
        const struct en_act *a = &g->act[i];
        uint32_t c = en_col_of(res, a->kind, a->id);
        if (a->start_ns >= g->win0_ns && a->start_ns <= g->win1_ns)
            gcol[c].launches++;
        int64_t s = a->start_ns < g->win0_ns ? g->win0_ns : a->start_ns;
        int64_t e = a->end_ns > g->win1_ns ? g->win1_ns : a->end_ns;
        if (e > s)
            gcol[c].time_ns += (double)(e - s);
    }
}

void en_attribute(const struct en_gpu *g, const struct en_events *ev, struct en_result *res,
                  struct en_col *gcol, struct en_whole *w)
{
    bool counter = g->energy.n >= 2;
    w->src = counter ? EN_SRC_COUNTER : g->power.n >= 2 ? EN_SRC_POWER : EN_SRC_NONE;
    w->window_ns = (double)(g->win1_ns - g->win0_ns);
    w->busy_ns = en_busy_ns(ev, g->win0_ns, g->win1_ns);
    w->peak_W = peak_in(&g->power, g->win0_ns, g->win1_ns);
    count_launches(g, res, gcol);
    struct segs s;
    size_t resets = segs_of(counter ? &g->energy : &g->power, counter, 0, g->win0_ns, g->win1_ns, &s);
    if (resets)
        en_warn(res, "%s: the energy counter went down %zu time(s) (reset): those intervals "
                "are left out", g->name, resets);
    struct attr_ctx c = { &s, gcol, w, res->nkernels, -2 };
    struct en_sweep_cb cb = { attr_piece, attr_seg_done, &c };
    en_sweep(ev, res->ncols, s.a, s.b, s.n, 0, &cb);
    w->segments = s.n;
    w->segment_ms = seg_median_ms(&s);
    w->total_J = w->kernels_time_J + w->copies_time_J + w->idle_time_J;
    w->mean_W = w->covered_ns > 0 ? w->total_J / (w->covered_ns * 1e-9) : NAN;
    if (w->src != EN_SRC_NONE && w->covered_ns < 0.99 * w->window_ns)
        en_warn(res, "%s: the %s covers %.1f%% of the kernel window: energy outside it is "
                "not counted", g->name, en_src_name(w->src),
                w->window_ns > 0 ? 100 * w->covered_ns / w->window_ns : 0.0);
    segs_free(&s);
    struct segs k;
    segs_of(&g->clock, false, 0, g->win0_ns, g->win1_ns, &k);
    c.s = &k;
    cb = (struct en_sweep_cb){ clock_piece, NULL, &c };
    en_sweep(ev, res->ncols, k.a, k.b, k.n, 0, &cb);
    segs_free(&k);
    cross_check(g, w);
}

/* ---- the split by time × fitted power ---- */

/* The segments of a series shifted by shift that meet [w0, w1), unclipped. */
static void segs_meeting(const struct en_series *s, bool counter, int64_t shift, int64_t w0,
                         int64_t w1, struct segs *out)
{
    segs_of(s, counter, shift, INT64_MIN, INT64_MAX, out);
    size_t k = 0;
    for (size_t i = 0; i < out->n; i++)
        if (out->b[i] > w0 && out->a[i] < w1) {
            out->a[k] = out->a[i], out->b[k] = out->b[i], out->p[k] = out->p[i];
            k++;
        }
    out->n = k;
}

/* A segment that sticks out of the window is weighed whole (outside it:
 * idle, or whatever runs there), and the window keeps the shares of its
 * pieces inside: clipping it first would hand the in-window classes the
 * segment's mean power instead of theirs. */
struct wattr_ctx {
    const struct segs *s;
    const double *weight_W;         /* [ncols] fitted power, NaN unknown */
    double idle_W;
    int64_t w0, w1;                 /* the window */
    uint32_t ncols, nkernels;
    double *wt, *wk, *tj;           /* [ncols + 1] this segment: Σ weight (W ns), of it inside
                                       the window, the time split inside (J); slot ncols = idle */
    uint32_t *nz, nnz;
    uint8_t *on;                    /* [ncols + 1] in nz */
    bool fitted;                    /* some column of the segment has a fitted power */
    struct en_col *col;
    struct en_whole *w;
};

static void wtouch(struct wattr_ctx *c, uint32_t k, double weight, double inside, double e)
{
    if (!c->on[k])
        c->on[k] = 1, c->nz[c->nnz++] = k;
    c->wt[k] += weight;
    c->wk[k] += weight * inside;
    c->tj[k] += e * inside;
}

static void wattr_piece(void *vctx, size_t seg, int64_t u, int64_t v, const struct en_active *a)
{
    struct wattr_ctx *c = vctx;
    double dt = (double)(v - u), p = c->s->p[seg], e = p * dt * 1e-9;
    int64_t iu = u > c->w0 ? u : c->w0, iv = v < c->w1 ? v : c->w1;
    double inside = iv > iu ? (double)(iv - iu) / dt : 0;
    if (a->n == 0) {
        c->fitted |= isfinite(c->idle_W);
        wtouch(c, c->ncols, dt * (isfinite(c->idle_W) ? c->idle_W : p), inside, e);
        return;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        uint32_t col = a->col[i], k = a->cnt[col];
        double P = c->weight_W[col];
        c->fitted |= isfinite(P);
        wtouch(c, col, dt * k * (isfinite(P) ? P : p), inside, e * k / a->total);
    }
}

static void wattr_seg_done(void *vctx, size_t seg)
{
    struct wattr_ctx *c = vctx;
    double E = c->s->p[seg] * (double)(c->s->b[seg] - c->s->a[seg]) * 1e-9, W = 0;
    for (uint32_t i = 0; i < c->nnz; i++)
        W += c->wt[c->nz[i]];
    bool by_power = c->fitted && W > 0;
    c->w->segments_shifted++;
    c->w->segments_weighted += by_power;
    for (uint32_t i = 0; i < c->nnz; i++) {
        uint32_t k = c->nz[i];
        double share = by_power ? E * (c->wk[k] / W) : c->tj[k];
        if (k == c->ncols)
            c->w->idle_J += share;
        else {
            c->col[k].energy_J += share;
            *(k < c->nkernels ? &c->w->kernels_J : &c->w->copies_J) += share;
        }
        c->wt[k] = c->wk[k] = c->tj[k] = 0;
        c->on[k] = 0;
    }
    c->nnz = 0;
    c->fitted = false;
}

void en_attribute_weighted(const struct en_gpu *g, const struct en_events *ev,
                           const struct en_result *res, const double *weight_W, double idle_W,
                           int64_t lag_ns, struct en_col *gcol, struct en_whole *w)
{
    bool counter = g->energy.n >= 2;
    struct segs s;
    segs_meeting(counter ? &g->energy : &g->power, counter, lag_ns, g->win0_ns, g->win1_ns, &s);
    size_t n1 = res->ncols + 1;
    struct wattr_ctx c = { .s = &s, .weight_W = weight_W, .idle_W = idle_W, .w0 = g->win0_ns,
                           .w1 = g->win1_ns, .ncols = res->ncols, .nkernels = res->nkernels,
                           .col = gcol, .w = w, .wt = xcalloc(n1, sizeof(double)),
                           .wk = xcalloc(n1, sizeof(double)), .tj = xcalloc(n1, sizeof(double)),
                           .nz = xmalloc(n1 * sizeof(uint32_t)), .on = xcalloc(n1, 1) };
    struct en_sweep_cb cb = { wattr_piece, wattr_seg_done, &c };
    en_sweep(ev, res->ncols, s.a, s.b, s.n, 0, &cb);
    free(c.wt);
    free(c.wk);
    free(c.tj);
    free(c.nz);
    free(c.on);
    segs_free(&s);
}

/* ---- the attribution sensor's delay ---- */

/* Residual of the segments' mean powers against the fitted powers: each
 * segment [a - L, b - L) predicted as Σ overlap × P_c (idle P_idle) / length;
 * a segment with a class of no fitted power is left out. The same segments
 * for every L (those of the kernel window unshifted, unclipped: time outside
 * the window is idle). */
struct lag_ctx {
    const double *P;
    double idle_P, pred, rss;
    bool unknown;
    const struct segs *s;
};

static void lag_piece(void *vctx, size_t seg, int64_t u, int64_t v, const struct en_active *a)
{
    struct lag_ctx *c = vctx;
    (void)seg;
    double dt = (double)(v - u), P = a->n ? 0 : c->idle_P;
    for (uint32_t i = 0; i < a->n; i++)
        P += a->cnt[a->col[i]] * c->P[a->col[i]];
    c->unknown |= !isfinite(P);
    c->pred += dt * P;
}

static void lag_seg_done(void *vctx, size_t seg)
{
    struct lag_ctx *c = vctx;
    double len = (double)(c->s->b[seg] - c->s->a[seg]), r = c->s->p[seg] - c->pred / len;
    if (!c->unknown && len > 0)
        c->rss += len * 1e-9 * r * r;
    c->pred = 0;
    c->unknown = false;
}

static double lag_rss(const struct segs *s, const struct en_events *ev, size_t ngpus,
                      uint32_t ncols, const double *P, double idle_P, int64_t lag)
{
    double rss = 0;
    for (size_t g = 0; g < ngpus; g++) {
        struct lag_ctx c = { .P = P, .idle_P = idle_P, .s = &s[g] };
        struct en_sweep_cb cb = { lag_piece, lag_seg_done, &c };
        en_sweep(&ev[g], ncols, s[g].a, s[g].b, s[g].n, lag, &cb);
        rss += c.rss;
    }
    return rss;
}

int64_t en_attribution_lag(const struct en_gpu *gpus, const struct en_events *ev, size_t ngpus,
                           uint32_t ncols, const double *P, double idle_P)
{
    struct segs *s = xcalloc(ngpus + 1, sizeof(*s));
    double *len = NULL;
    size_t nlen = 0;
    for (size_t g = 0; g < ngpus; g++) {
        const struct en_gpu *x = &gpus[g];
        bool counter = x->energy.n >= 2;
        segs_meeting(counter ? &x->energy : &x->power, counter, 0, x->win0_ns, x->win1_ns, &s[g]);
        size_t k = s[g].n;
        len = xrealloc(len, (nlen + k + 1) * sizeof(*len));
        for (size_t i = 0; i < k; i++)
            len[nlen++] = (double)(s[g].b[i] - s[g].a[i]) / 1e6;
    }
    double med = en_median(len, nlen);
    free(len);
    int64_t best = 0;
    if (isfinite(med)) {
        double best_rss = INFINITY, step = fmax(med / 10, 0.1) * 1e6;
        for (int round = 0; round < 2; round++) {
            int64_t center = best;
            double st = round == 0 ? step : step / 10;
            for (int k = -10; k <= (round == 0 ? 20 : 10); k++) {
                if (round == 1 && k == 0)
                    continue;
                int64_t lag = center + (int64_t)llround(k * st);
                double r = lag_rss(s, ev, ngpus, ncols, P, idle_P, lag);
                double tol = 1e-12 * fmax(best_rss < INFINITY ? best_rss : r, 1e-300);
                if (r < best_rss - tol || (fabs(r - best_rss) <= tol && llabs(lag) < llabs(best)))
                    best_rss = r, best = lag;
            }
        }
    }
    for (size_t g = 0; g < ngpus; g++)
        segs_free(&s[g]);
    free(s);
    return best;
}
