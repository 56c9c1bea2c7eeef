/* series.c - min/max-decimated series (series.h). */
#include "model/series.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void series_dec_init(struct series_dec *d, double x0, double x1, size_t nb, double *ox,
                     double *oy)
{
    *d = (struct series_dec){ .x0 = x0, .span = x1 > x0 ? x1 - x0 : 1, .nb = nb,
                              .cur = (size_t)-1, .ox = ox, .oy = oy };
}

/* The bucket's lowest and highest points, in x order (one when they coincide). */
static size_t emit(double lx, double ly, double hx, double hy, double *ox, double *oy)
{
    bool lo_first = lx <= hx;
    ox[0] = lo_first ? lx : hx, oy[0] = lo_first ? ly : hy;
    if (lx == hx)
        return 1;
    ox[1] = lo_first ? hx : lx, oy[1] = lo_first ? hy : ly;
    return 2;
}

void series_dec_flush(struct series_dec *d)
{
    if (d->cur == (size_t)-1)
        return;
    d->k += emit(d->lx, d->ly, d->hx, d->hy, d->ox + d->k, d->oy + d->k);
}

void series_dec_push(struct series_dec *d, double x, double y)
{
    if (isnan(x) || isnan(y))
        return;
    double f = (x - d->x0) / d->span * (double)d->nb;
    size_t b = f <= 0 ? 0 : f >= (double)d->nb ? d->nb - 1 : (size_t)f;
    if (b != d->cur) {
        series_dec_flush(d);
        d->cur = b, d->lx = d->hx = x, d->ly = d->hy = y;
        return;
    }
    if (y < d->ly)
        d->lx = x, d->ly = y;
    if (y > d->hy)
        d->hx = x, d->hy = y;
}

void series_grow_init(struct series_grow *g, size_t nb)
{
    memset(g, 0, sizeof(*g));
    g->nb = nb < 2 ? 2 : nb + (nb & 1);
    g->lx = xmalloc(g->nb * sizeof(double));
    g->ly = xmalloc(g->nb * sizeof(double));
    g->hx = xmalloc(g->nb * sizeof(double));
    g->hy = xmalloc(g->nb * sizeof(double));
}

/* Bucket j takes buckets 2j and 2j+1 (an empty one: lx NaN): the width doubles. */
static void halve(struct series_grow *g)
{
    size_t m = 0;
    for (size_t j = 0; 2 * j < g->used; j++, m++) {
        size_t a = 2 * j, b = a + 1;
        bool ea = isnan(g->lx[a]), eb = b >= g->used || isnan(g->lx[b]);
        if (ea && eb) {
            g->lx[j] = g->hx[j] = NAN, g->ly[j] = g->hy[j] = 0;
            continue;
        }
        size_t from = ea ? b : a;
        double lx = g->lx[from], ly = g->ly[from], hx = g->hx[from], hy = g->hy[from];
        if (!ea && !eb) {
            if (g->ly[b] < ly)
                lx = g->lx[b], ly = g->ly[b];
            if (g->hy[b] > hy)
                hx = g->hx[b], hy = g->hy[b];
        }
        g->lx[j] = lx, g->ly[j] = ly, g->hx[j] = hx, g->hy[j] = hy;
    }
    g->used = m;
    g->width *= 2;
}

void series_grow_push(struct series_grow *g, double x, double y)
{
    if (isnan(x) || isnan(y))
        return;
    if (g->n++ == 0) {
        g->x0 = x, g->width = 0, g->used = 1;
        g->lx[0] = g->hx[0] = x, g->ly[0] = g->hy[0] = y;
        return;
    }
    if (g->width == 0) {            /* the second distinct x sets the first width */
        if (x <= g->x0) {
            if (y < g->ly[0])
                g->lx[0] = x, g->ly[0] = y;
            if (y > g->hy[0])
                g->hx[0] = x, g->hy[0] = y;
            return;
        }
        g->width = x - g->x0;           /* one sample per bucket until they are too many */
    }
    double f = (x - g->x0) / g->width;
    while (f >= (double)g->nb) {
        halve(g);
        f = (x - g->x0) / g->width;
    }
    size_t b = f <= 0 ? 0 : (size_t)f;
    if (b >= g->used) {
        for (size_t i = g->used; i < b; i++)            /* empty buckets between: marked */
            g->lx[i] = g->hx[i] = NAN;
        g->used = b + 1;
        g->lx[b] = g->hx[b] = x, g->ly[b] = g->hy[b] = y;
        return;
    }
    if (isnan(g->lx[b])) {
        g->lx[b] = g->hx[b] = x, g->ly[b] = g->hy[b] = y;
        return;
    }
    if (y < g->ly[b])
        g->lx[b] = x, g->ly[b] = y;
    if (y > g->hy[b])
        g->hx[b] = x, g->hy[b] = y;
}

size_t series_grow_points(const struct series_grow *g, double **x, double **y)
{
    *x = *y = NULL;
    if (!g->n)
        return 0;
    *x = xmalloc(2 * g->used * sizeof(double));
    *y = xmalloc(2 * g->used * sizeof(double));
    size_t k = 0;
    for (size_t i = 0; i < g->used; i++)
        if (!isnan(g->lx[i]))
            k += emit(g->lx[i], g->ly[i], g->hx[i], g->hy[i], *x + k, *y + k);
    return k;
}

void series_grow_release(struct series_grow *g)
{
    free(g->lx);
    free(g->ly);
    free(g->hx);
    free(g->hy);
    memset(g, 0, sizeof(*g));
}
