/* en_attr.c - attribution (energy.h method 1): each sensor segment's energy
 * split over what ran in it, by overlap time, for one GPU.
 *
 * Segments: between consecutive energy counter readings (constant power
 * ΔE/Δt inside), else between consecutive power samples (value i is the mean
 * over [t(i-1), t(i))), clipped to the accounting window. A piece of a
 * segment where n launches run gives each launch 1/n of its energy (a column
 * with k of them gets k/n); a piece with none is idle. The gfx clock is
 * swept the same way over the sample intervals, each running column seeing
 * the whole clock.
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

/* Segments of a series: value i over [t(i-1), t(i)), clipped to [w0, w1);
 * for a counter the value is (v(i) - v(i-1)) / Δt. Returns the counter
 * resets seen (a negative step, left out). */
static size_t segs_of(const struct en_series *s, bool counter, int64_t w0, int64_t w1,
                      struct segs *out)
{
    size_t n = s->n > 1 ? s->n - 1 : 0, k = 0, resets = 0;
    out->a = xmalloc((n + 1) * sizeof(*out->a));
    out->b = xmalloc((n + 1) * sizeof(*out->b));
    out->p = xmalloc((n + 1) * sizeof(*out->p));
    for (size_t i = 1; i < s->n; i++) {
        int64_t a = s->t_ns[i - 1], b = s->t_ns[i];
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
        c->w->idle_J += e;
        c->w->idle_ns += dt;
        c->pure = -1;
        return;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        uint32_t col = a->col[i], k = a->cnt[col];
        struct en_col *x = &c->col[col];
        x->energy_J += e * k / a->total;
        x->covered_ns += dt * k;
        x->split_ns += dt * k / a->total;
        if (col < c->nkernels)
            c->w->kernels_J += e * k / a->total;
        else
            c->w->copies_J += e * k / a->total;
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
        segs_of(other[k], false, w->xs_ns, w->xe_ns, &s);
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
    size_t resets = segs_of(counter ? &g->energy : &g->power, counter, g->win0_ns, g->win1_ns, &s);
    if (resets)
        en_warn(res, "%s: the energy counter went down %zu time(s) (reset): those intervals "
                "are left out", g->name, resets);
    struct attr_ctx c = { &s, gcol, w, res->nkernels, -2 };
    struct en_sweep_cb cb = { attr_piece, attr_seg_done, &c };
    en_sweep(ev, res->ncols, s.a, s.b, s.n, 0, &cb);
    w->segments = s.n;
    w->segment_ms = seg_median_ms(&s);
    w->total_J = w->kernels_J + w->copies_J + w->idle_J;
    w->mean_W = w->covered_ns > 0 ? w->total_J / (w->covered_ns * 1e-9) : NAN;
    if (w->src != EN_SRC_NONE && w->covered_ns < 0.99 * w->window_ns)
        en_warn(res, "%s: the %s covers %.1f%% of the kernel window: energy outside it is "
                "not counted", g->name, en_src_name(w->src),
                w->window_ns > 0 ? 100 * w->covered_ns / w->window_ns : 0.0);
    segs_free(&s);
    struct segs k;
    segs_of(&g->clock, false, g->win0_ns, g->win1_ns, &k);
    c.s = &k;
    cb = (struct en_sweep_cb){ clock_piece, NULL, &c };
    en_sweep(ev, res->ncols, k.a, k.b, k.n, 0, &cb);
    segs_free(&k);
    cross_check(g, w);
}
