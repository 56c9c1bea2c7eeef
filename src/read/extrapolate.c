/* extrapolate.c - counter totals of launch-sampled passes and their 95 %
 * intervals (formulas and sources in extrapolate.h). */
#include "read/extrapolate.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- estimators ------------------------------------------------------------ */

double xp_t975(double df)
{
    /* t(0.975, df), df = 1..30 (any statistics table), then 40, 60, 120, ∞ */
    static const double t[30] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                  2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                  2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
    static const double far_df[4] = { 30, 40, 60, 120 }, far_t[4] = { 2.042, 2.021, 2.000, 1.980 };
    if (!(df >= 1))
        df = 1;
    if (df <= 30) {
        int i = (int)df;
        double f = df - i;   /* fractional df: linear between neighbours */
        return i >= 30 ? t[29] : t[i - 1] + f * (t[i] - t[i - 1]);
    }
    if (df >= 120)
        return 1.980 + (1.960 - 1.980) * (1 - 120 / df);   /* linear in 1/df to z */
    for (int i = 0; i < 3; i++)
        if (df <= far_df[i + 1]) {   /* linear in 1/df, as tables are interpolated */
            double a = 1 / far_df[i], b = 1 / far_df[i + 1];
            return far_t[i] + (1 / df - a) / (b - a) * (far_t[i + 1] - far_t[i]);
        }
    return 1.960;
}

double xp_half_width(double var, double df)
{
    if (isnan(var))
        return NAN;
    return var > 0 ? xp_t975(df) * sqrt(var) : 0;
}

struct moments {
    size_t n;
    double sum, sumsq;   /* Σx, Σx² about the first value (stable) */
    double shift;
};

static void mom_add(struct moments *m, double x)
{
    if (m->n == 0)
        m->shift = x;
    double d = x - m->shift;
    m->n++;
    m->sum += d;
    m->sumsq += d * d;
}

static double mom_mean(const struct moments *m)
{
    return m->shift + m->sum / (double)m->n;
}

/* Sample variance; NaN below 2 values. */
static double mom_var(const struct moments *m)
{
    if (m->n < 2)
        return NAN;
    double v = (m->sumsq - m->sum * m->sum / (double)m->n) / (double)(m->n - 1);
    return v > 0 ? v : 0;
}

/* The stratified mean-per-launch estimator. */
static struct xp_estimate stratified(const struct lp_plan *plan, const struct xp_unit_data *u)
{
    uint64_t lo, hi;
    uint32_t hmax = lp_stratum(plan, u->launches, &lo, &hi);
    /* one pass sorts the samples into their strata (lp_stratum walks the
     * phases: once per sample, not once per sample and stratum) */
    struct moments all = { 0 }, *by = xcalloc((size_t)hmax + 1, sizeof(*by));
    for (size_t i = 0; i < u->n; i++) {
        mom_add(&all, u->x[i]);
        uint32_t h = lp_stratum(plan, u->rank[i], &lo, &hi);
        if (h <= hmax)
            mom_add(&by[h], u->x[i]);
    }
    double pooled_var = mom_var(&all), mean = mom_mean(&all);
    struct xp_estimate e = { 0, 0, 0 };
    for (uint32_t h = 0; h <= hmax; h++) {
        double Lh = (double)lp_stratum_size(plan, h, u->launches);
        if (Lh == 0)
            continue;
        const struct moments m = by[h];
        if (m.n == 0) {   /* no launch of this stratum profiled: the unit's mean */
            e.total += Lh * mean;
            e.var += Lh * Lh * pooled_var / (double)all.n;
            continue;
        }
        e.total += Lh * mom_mean(&m);
        if ((double)m.n >= Lh)
            continue;     /* a census: exact */
        double s2 = m.n >= 2 ? mom_var(&m) : pooled_var;
        e.var += Lh * Lh * s2 / (double)m.n;   /* one per block: no correction (extrapolate.h) */
        if (m.n >= 2)
            e.df += (double)m.n - 1;
    }
    free(by);
    if (e.var > 0 && e.df < 1)
        e.df = all.n > 1 ? (double)all.n - 1 : 1;
    return e;
}

/* The ratio estimator on the launches after the census; -1 when a duration
 * is missing (then the stratified one is used). */
static int by_time(const struct lp_plan *plan, const struct xp_unit_data *u, struct xp_estimate *e)
{
    double cx = 0, cd = 0, sx = 0, sd = 0;
    size_t nc = 0, ns = 0;
    for (size_t i = 0; i < u->n; i++) {
        if (!(u->dur_ns[i] > 0) || isnan(u->x[i]))
            return -1;
        if (u->rank[i] <= plan->first) {
            cx += u->x[i], cd += u->dur_ns[i], nc++;
        } else {
            sx += u->x[i], sd += u->dur_ns[i], ns++;
        }
    }
    double rest_L = (double)u->launches - (double)nc, rest_D = u->trace_ns - cd;
    if (!(u->trace_ns > 0) || rest_D < 0)
        return -1;
    double R = ns ? sx / sd : cx / cd;
    e->total = cx + rest_D * R;
    e->var = 0;
    e->df = 0;
    if (rest_L <= (double)ns)
        return 0;
    /* the residuals of the launches after the census; with fewer than two
     * of them, of every profiled launch (as the stratified estimator pools) */
    bool pooled = ns < 2;
    size_t nr = pooled ? ns + nc : ns;
    if (nr < 2) {
        e->var = NAN;
        return 0;
    }
    double ss = 0, dbar = 0;
    for (size_t i = 0; i < u->n; i++) {
        if (!pooled && u->rank[i] <= plan->first)
            continue;
        double r = u->x[i] - R * u->dur_ns[i];
        ss += r * r;
        dbar += u->dur_ns[i];
    }
    dbar /= (double)nr;
    e->var = rest_D * rest_D * (ss / (double)(nr - 1)) / ((double)nr * dbar * dbar);
    e->df = (double)nr - 1;
    return 0;
}

struct xp_estimate xp_estimate_unit(const struct lp_plan *plan, const struct xp_unit_data *u,
                                    bool time_prop)
{
    struct xp_estimate e = { NAN, NAN, 0 };
    if (u->n == 0)
        return e;
    if ((uint64_t)u->n >= u->launches) {   /* every launch profiled */
        e.total = 0;
        for (size_t i = 0; i < u->n; i++)
            e.total += u->x[i];
        e.var = 0;
        e.df = (double)u->n - 1;
        return e;
    }
    if (time_prop && u->dur_ns && by_time(plan, u, &e) == 0)
        return e;
    return stratified(plan, u);
}

/* ---- one file set ----------------------------------------------------------- */

struct sample {
    uint64_t key;
    uint32_t unit;
    bool traced;
    double dur;
    uint64_t rank;
};

struct unit {
    uint32_t kernel;
    uint64_t grid, wg;
    uint32_t variant;
    uint64_t launches;
    double trace_ns;
    uint32_t *samp;            /* sample indices; sorted by key once the trace starts */
    size_t ns, capns;
    uint64_t *below;           /* [ns + 1] traced keys falling before sample j (and after j-1) */
};

struct value {
    uint32_t sample, counter;
    double v;
};

struct xp_set {
    struct xp_sampling s;
    struct unit *u;
    size_t nu, capu;
    uint32_t *slot;            /* hash: unit index + 1, 0 empty */
    size_t nslot;
    struct sample *smp;
    size_t nsmp, capsmp;
    uint32_t *kslot;           /* hash of sample keys: sample index + 1, 0 empty */
    size_t nkslot;
    struct value *val;
    size_t nval, capval;
    bool frozen;               /* the trace started: samples sorted per unit */
};

bool xp_kernel_times(const struct xp_set *e)
{
    return e->s.kernel_times;
}

struct xp_set *xp_set_new(const struct xp_sampling *s)
{
    struct xp_set *e = xcalloc(1, sizeof(*e));
    e->s = *s;
    return e;
}

void xp_set_free(struct xp_set *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->nu; i++) {
        free(e->u[i].samp);
        free(e->u[i].below);
    }
    free(e->u);
    free(e->slot);
    free(e->kslot);
    free(e->smp);
    free(e->val);
    free(e);
}

static uint64_t unit_hash(uint32_t k, uint64_t g, uint64_t w, uint64_t v)
{
    uint64_t h = (k + 1 + v * 0xd6e8feb86659fd93ull) * 0x9e3779b97f4a7c15ull;
    h ^= (g + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
    h ^= (w + 0x85ebca6b) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

static void rehash(struct xp_set *e)
{
    free(e->slot);
    e->nslot = e->nslot ? e->nslot * 2 : 64;
    e->slot = xcalloc(e->nslot, sizeof(*e->slot));
    for (size_t i = 0; i < e->nu; i++) {
        size_t j = unit_hash(e->u[i].kernel, e->u[i].grid, e->u[i].wg, e->u[i].variant) &
                   (e->nslot - 1);
        while (e->slot[j])
            j = (j + 1) & (e->nslot - 1);
        e->slot[j] = (uint32_t)i + 1;
    }
}

static uint32_t unit_of(struct xp_set *e, uint32_t k, uint64_t g, uint64_t w, uint32_t v)
{
    if (e->s.unit == XP_UNIT_KERNEL)
        g = w = 0;
    if ((e->nu + 1) * 2 > e->nslot)
        rehash(e);
    size_t j = unit_hash(k, g, w, v) & (e->nslot - 1);
    for (; e->slot[j]; j = (j + 1) & (e->nslot - 1)) {
        struct unit *u = &e->u[e->slot[j] - 1];
        if (u->kernel == k && u->grid == g && u->wg == w && u->variant == v)
            return e->slot[j] - 1;
    }
    xgrow((void **)&e->u, &e->capu, e->nu + 1, sizeof(*e->u));
    struct unit *u = &e->u[e->nu];
    memset(u, 0, sizeof(*u));
    u->kernel = k, u->grid = g, u->wg = w, u->variant = v;
    e->slot[j] = (uint32_t)e->nu + 1;
    return (uint32_t)e->nu++;
}

static size_t key_slot(const struct xp_set *e, uint64_t key)
{
    size_t j = (size_t)((key + 1) * 0x9e3779b97f4a7c15ull >> 17) & (e->nkslot - 1);
    while (e->kslot[j] && e->smp[e->kslot[j] - 1].key != key)
        j = (j + 1) & (e->nkslot - 1);
    return j;
}

static void key_insert(struct xp_set *e, uint32_t idx)
{
    if ((e->nsmp + 1) * 2 > e->nkslot) {
        free(e->kslot);
        e->nkslot = e->nkslot ? e->nkslot * 2 : 256;
        e->kslot = xcalloc(e->nkslot, sizeof(*e->kslot));
        for (uint32_t i = 0; i < e->nsmp; i++)
            e->kslot[key_slot(e, e->smp[i].key)] = i + 1;
    }
    e->kslot[key_slot(e, e->smp[idx].key)] = idx + 1;
}

uint32_t xp_find_sample(const struct xp_set *e, uint64_t key)
{
    if (!e->nkslot)
        return UINT32_MAX;
    uint32_t v = e->kslot[key_slot(e, key)];
    return v ? v - 1 : UINT32_MAX;
}

uint32_t xp_add_sample(struct xp_set *e, uint32_t kernel, uint64_t grid, uint64_t wg,
                       uint32_t variant, uint64_t key, double dur_ns)
{
    uint32_t have = xp_find_sample(e, key);
    if (have != UINT32_MAX)
        return have;
    uint32_t ui = unit_of(e, kernel, grid, wg, variant);
    xgrow((void **)&e->smp, &e->capsmp, e->nsmp + 1, sizeof(*e->smp));
    struct sample *s = &e->smp[e->nsmp];
    memset(s, 0, sizeof(*s));
    s->key = key, s->unit = ui, s->dur = dur_ns;
    struct unit *u = &e->u[ui];
    if (!e->frozen) {   /* a sample after the trace started gets no rank */
        xgrow((void **)&u->samp, &u->capns, u->ns + 1, sizeof(*u->samp));
        u->samp[u->ns++] = (uint32_t)e->nsmp;
    }
    key_insert(e, (uint32_t)e->nsmp);
    return (uint32_t)e->nsmp++;
}

void xp_add_value(struct xp_set *e, uint32_t sample, uint32_t counter, double v)
{
    xgrow((void **)&e->val, &e->capval, e->nval + 1, sizeof(*e->val));
    e->val[e->nval++] = (struct value){ sample, counter, v };
}

/* qsort_r (glibc): file sets are read on several threads at once. */
static int by_key(const void *a, const void *b, void *ctx)
{
    const struct xp_set *e = ctx;
    uint64_t x = e->smp[*(const uint32_t *)a].key, y = e->smp[*(const uint32_t *)b].key;
    return x < y ? -1 : x > y;
}

static void freeze(struct xp_set *e)
{
    e->frozen = true;
    for (size_t i = 0; i < e->nu; i++) {
        struct unit *u = &e->u[i];
        if (u->ns > 1)
            qsort_r(u->samp, u->ns, sizeof(*u->samp), by_key, e);
        u->below = xcalloc(u->ns + 1, sizeof(*u->below));
    }
}

void xp_add_trace(struct xp_set *e, uint32_t kernel, uint64_t grid, uint64_t wg,
                  uint32_t variant, uint64_t key, double dur_ns)
{
    if (!e->frozen)
        freeze(e);
    uint32_t ui = unit_of(e, kernel, grid, wg, variant);   /* may move e->u */
    struct unit *u = &e->u[ui];
    if (!u->below)
        u->below = xcalloc(u->ns + 1, sizeof(*u->below));
    u->launches++;
    u->trace_ns += dur_ns;
    size_t lo = 0, hi = u->ns;   /* first sample with key >= this one */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->smp[u->samp[mid]].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    u->below[lo]++;
    if (lo < u->ns && e->smp[u->samp[lo]].key == key) {
        struct sample *s = &e->smp[u->samp[lo]];
        s->traced = true;
        if (isnan(s->dur))
            s->dur = dur_ns;
    }
}

/* Ranks: traced keys up to and including each sample (an untraced sample
 * counts itself, and counts as a launch). */
static void rank_unit(struct xp_set *e, struct unit *u, uint64_t *untraced)
{
    uint64_t seen = 0, extra = 0;
    for (size_t j = 0; j < u->ns; j++) {
        struct sample *s = &e->smp[u->samp[j]];
        seen += u->below ? u->below[j] : 0;
        if (!s->traced) {
            extra++;
            if (!isnan(s->dur))
                u->trace_ns += s->dur;
        }
        s->rank = seen + extra;
    }
    u->launches += extra;
    *untraced += extra;
}

static void out_alloc(struct xp_out *o, uint32_t nk, uint32_t nc, uint32_t ncap)
{
    memset(o, 0, sizeof(*o));
    o->nkernels = nk, o->ncounters = nc, o->ncap = ncap;
    o->launches = xcalloc((size_t)nk + 1, sizeof(*o->launches));
    o->uncounted_k = xcalloc((size_t)nk + 1, sizeof(*o->uncounted_k));
    o->profiled = xcalloc((size_t)nk + 1, sizeof(*o->profiled));
    o->trace_ns = xcalloc((size_t)nk + 1, sizeof(*o->trace_ns));
    o->total = xcalloc((size_t)nk * ncap + 1, sizeof(*o->total));
    o->var = xcalloc((size_t)nk * ncap + 1, sizeof(*o->var));
    o->df = xcalloc((size_t)nk * ncap + 1, sizeof(*o->df));
}

/* Whether a sample counts: all of them, or under --resample those the plan
 * profiles. */
static bool kept(const struct xp_set *e, const struct sample *s)
{
    return !e->s.resample || lp_profiled(&e->s.plan, s->rank);
}

/* The unit's samples that count. */
static size_t kept_samples(const struct xp_set *e, const struct unit *u)
{
    size_t n = 0;
    for (size_t j = 0; j < u->ns; j++)
        n += kept(e, &e->smp[u->samp[j]]);
    return n;
}

/* One unit, one counter: its estimate added to the kernel's. */
static void estimate_into(struct xp_set *e, const struct unit *u, uint32_t c, const double *vals,
                          uint32_t nc, const char *name, struct xp_out *o, uint64_t *rk,
                          double *du, double *xs)
{
    size_t n = 0;
    for (size_t j = 0; j < u->ns; j++) {
        const struct sample *s = &e->smp[u->samp[j]];
        double x = vals[(size_t)u->samp[j] * nc + c];
        if (isnan(x) || !kept(e, s))
            continue;
        rk[n] = s->rank, du[n] = s->dur, xs[n] = x;
        n++;
    }
    struct xp_unit_data d = { u->launches, u->trace_ns, n, rk, du, xs };
    bool by_time = e->s.kernel_times && name && lp_elapsed_counter(name);
    struct xp_estimate est = xp_estimate_unit(&e->s.plan, &d, by_time);
    if (isnan(est.total))
        return;
    size_t at = (size_t)u->kernel * o->ncap + c;
    o->total[at] += est.total;
    o->var[at] += est.var;   /* NaN (unknown) stays NaN */
    o->df[at] += est.df;
}

void xp_finish(struct xp_set *e, uint32_t nkernels, uint32_t ncounters, uint32_t ncap,
               const char *const *counters, struct xp_out *o)
{
    if (!e->frozen)
        freeze(e);
    out_alloc(o, nkernels, ncounters, ncap);
    double *vals = xcalloc(e->nsmp * ncounters + 1, sizeof(*vals));
    for (size_t i = 0; i < e->nsmp * ncounters; i++)
        vals[i] = NAN;
    for (size_t i = 0; i < e->nval; i++) {
        const struct value *v = &e->val[i];
        double *p = &vals[(size_t)v->sample * ncounters + v->counter];
        *p = isnan(*p) ? v->v : *p + v->v;   /* several rows of one counter add up */
    }
    size_t maxn = 1;
    for (size_t i = 0; i < e->nu; i++)
        maxn = e->u[i].ns > maxn ? e->u[i].ns : maxn;
    uint64_t *rk = xcalloc(maxn, sizeof(*rk));
    double *du = xcalloc(maxn, sizeof(*du)), *xs = xcalloc(maxn, sizeof(*xs));
    for (size_t i = 0; i < e->nu; i++) {
        struct unit *u = &e->u[i];
        rank_unit(e, u, &o->untraced);
        size_t nkept = kept_samples(e, u);
        if (u->kernel >= nkernels || nkept == 0) {   /* no profiled launch */
            o->uncounted += u->launches;
            o->uncounted_ns += u->trace_ns;
            if (u->kernel < nkernels)
                o->uncounted_k[u->kernel] += u->launches;
            continue;
        }
        o->launches[u->kernel] += u->launches;
        o->profiled[u->kernel] += nkept;
        o->trace_ns[u->kernel] += u->trace_ns;
        for (uint32_t c = 0; c < ncounters; c++)
            estimate_into(e, u, c, vals, ncounters, counters ? counters[c] : NULL, o, rk, du, xs);
    }
    free(rk);
    free(du);
    free(xs);
    free(vals);
}

void xp_out_release(struct xp_out *o)
{
    free(o->launches);
    free(o->uncounted_k);
    free(o->profiled);
    free(o->trace_ns);
    free(o->total);
    free(o->var);
    free(o->df);
    memset(o, 0, sizeof(*o));
}
