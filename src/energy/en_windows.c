/* en_windows.c - sensor windows for the fit (energy.h): from energy counter
 * readings (ΔE / Δt over each reading interval) and from power samples (a
 * sample is the mean since the previous one; for a sensor that refreshes
 * slower than it is sampled, since the previous change of value). Windows
 * after a gap (a stopped sampler, a dropped read) are left out: their
 * reading is real but the length says the sensor was not followed.
 */
#include "energy/en_int.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void en_wbuf_free(struct en_wbuf *w)
{
    free(w->a);
    free(w->b);
    free(w->p);
    memset(w, 0, sizeof(*w));
}

static void wpush(struct en_wbuf *w, int64_t a, int64_t b, double p)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 256;
        w->a = xrealloc(w->a, w->cap * sizeof(*w->a));
        w->b = xrealloc(w->b, w->cap * sizeof(*w->b));
        w->p = xrealloc(w->p, w->cap * sizeof(*w->p));
    }
    w->a[w->n] = a, w->b[w->n] = b, w->p[w->n] = p;
    w->n++;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double en_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof(*v), cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double en_windows_median_ms(const struct en_windows *w)
{
    double *d = xmalloc((w->n + 1) * sizeof(*d));
    for (size_t i = 0; i < w->n; i++)
        d[i] = (double)(w->b_ns[i] - w->a_ns[i]) / 1e6;
    double m = en_median(d, w->n);
    free(d);
    return m;
}

/* Keeps the windows of tmp no longer than gap_factor × their median. */
static void keep_short(struct en_wbuf *tmp, double gap_factor, struct en_wbuf *out)
{
    struct en_windows v = en_wbuf_view(tmp);
    double limit = en_windows_median_ms(&v) * gap_factor * 1e6;
    for (size_t i = 0; i < tmp->n; i++)
        if (!(gap_factor > 0) || (double)(tmp->b[i] - tmp->a[i]) <= limit)
            wpush(out, tmp->a[i], tmp->b[i], tmp->p[i]);
    en_wbuf_free(tmp);
}

void en_windows_from_counter(const struct en_series *e, double gap_factor, struct en_wbuf *out)
{
    struct en_wbuf tmp = { 0 };
    for (size_t i = 1; i < e->n; i++) {
        int64_t dt = e->t_ns[i] - e->t_ns[i - 1];
        double de = e->v[i] - e->v[i - 1];
        if (dt > 0 && de >= 0 && isfinite(de))
            wpush(&tmp, e->t_ns[i - 1], e->t_ns[i], de / ((double)dt * 1e-9));
    }
    keep_short(&tmp, gap_factor, out);
}

void en_windows_from_power(const struct en_series *p, int64_t refresh_ns, double gap_factor,
                           struct en_wbuf *out)
{
    struct en_wbuf tmp = { 0 };
    size_t last = SIZE_MAX;             /* the previous finite sample / reading */
    for (size_t i = 0; i < p->n; i++) {
        if (!isfinite(p->v[i]))
            continue;
        if (refresh_ns > 0) {
            if (last != SIZE_MAX && p->v[i] != p->v[last]) {
                int64_t a = p->t_ns[i] - refresh_ns;
                if (tmp.n && a < tmp.b[tmp.n - 1])
                    a = tmp.b[tmp.n - 1];     /* jitter: never overlap the previous */
                if (p->t_ns[i] > a)
                    wpush(&tmp, a, p->t_ns[i], p->v[i]);
            }
            if (last == SIZE_MAX || p->v[i] != p->v[last])
                last = i;
            continue;
        }
        if (last != SIZE_MAX && p->t_ns[i] > p->t_ns[last])
            wpush(&tmp, p->t_ns[last], p->t_ns[i], p->v[i]);
        last = i;
    }
    keep_short(&tmp, gap_factor, out);
}

/* The q-quantile (0..1) of the gaps between samples, or between changes
 * of value. */
static int64_t gap_quantile(const struct en_series *p, bool changes, double q)
{
    double *g = xmalloc((p->n + 1) * sizeof(*g));
    size_t n = 0, last = SIZE_MAX;
    for (size_t i = 0; i < p->n; i++) {
        if (!isfinite(p->v[i]))
            continue;
        bool take = last == SIZE_MAX || !changes || p->v[i] != p->v[last];
        if (!take)
            continue;
        if (last != SIZE_MAX)
            g[n++] = (double)(p->t_ns[i] - p->t_ns[last]);
        last = i;
    }
    double m = 0;
    if (n >= (changes ? 2u : 1u)) {
        double med = en_median(g, n);   /* sorts g */
        m = q == 0.5 ? med : g[(size_t)(q * (double)(n - 1))];
    }
    free(g);
    return (int64_t)m;
}

/* The 10th percentile, not the median: a sensor that refreshes every sample
 * but reads the same value for a while (a plateau) has long gaps between
 * changes too, while a slow sensor has no short ones. */
int64_t en_refresh_ns(const struct en_series *p)
{
    return gap_quantile(p, true, 0.1);
}

int64_t en_sample_ns(const struct en_series *p)
{
    return gap_quantile(p, false, 0.5);
}
