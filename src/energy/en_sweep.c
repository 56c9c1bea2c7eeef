/* en_sweep.c - the one walk both energy methods use (en_int.h): activity
 * start/end events against a list of time segments, cut into pieces during
 * which the set of running activity classes does not change.
 *
 * Events are sorted once per GPU and reused for every sweep (the fit's lag
 * search sweeps the same events many times). Cost: O(events + segments +
 * pieces × columns running).
 */
#include "energy/en_int.h"

#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct ev_rec {
    int64_t t;
    uint32_t col;
    int8_t d;
};

static int cmp_ev(const void *a, const void *b)
{
    const struct ev_rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->d < y->d) - (x->d > y->d);       /* starts (+1) first */
}

void en_events_build(struct en_events *ev, const struct en_act *act, size_t nact,
                     uint32_t nkernels)
{
    struct ev_rec *r = xmalloc((2 * nact + 1) * sizeof(*r));
    size_t n = 0;
    for (size_t i = 0; i < nact; i++) {
        if (act[i].end_ns <= act[i].start_ns)
            continue;                           /* no time: nothing to share */
        uint32_t c = act[i].kind == EN_KERNEL ? act[i].id : nkernels + act[i].id;
        r[n++] = (struct ev_rec){ act[i].start_ns, c, +1 };
        r[n++] = (struct ev_rec){ act[i].end_ns, c, -1 };
    }
    qsort(r, n, sizeof(*r), cmp_ev);
    ev->n = n;
    ev->t = xmalloc((n + 1) * sizeof(*ev->t));
    ev->col = xmalloc((n + 1) * sizeof(*ev->col));
    ev->d = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        ev->t[i] = r[i].t, ev->col[i] = r[i].col, ev->d[i] = r[i].d;
    free(r);
}

void en_events_free(struct en_events *ev)
{
    free(ev->t);
    free(ev->col);
    free(ev->d);
    memset(ev, 0, sizeof(*ev));
}

/* The running set: counts by column and the list of columns counted. */
struct running {
    uint32_t *cnt, *list, *pos;
    uint32_t n, total;
};

static void apply(struct running *r, const struct en_events *ev, size_t i)
{
    uint32_t c = ev->col[i];
    if (ev->d[i] > 0) {
        if (r->cnt[c]++ == 0) {
            r->pos[c] = r->n;
            r->list[r->n++] = c;
        }
        r->total++;
        return;
    }
    if (r->cnt[c] == 0)
        return;                                 /* cannot happen: starts sort first */
    r->total--;
    if (--r->cnt[c] == 0) {
        uint32_t last = r->list[--r->n];
        r->list[r->pos[c]] = last;
        r->pos[last] = r->pos[c];
    }
}

void en_sweep(const struct en_events *ev, uint32_t ncols, const int64_t *a, const int64_t *b,
              size_t nseg, int64_t shift, const struct en_sweep_cb *cb)
{
    struct running r = { xcalloc(ncols + 1, sizeof(uint32_t)), xmalloc((ncols + 1) * sizeof(uint32_t)),
                         xmalloc((ncols + 1) * sizeof(uint32_t)), 0, 0 };
    size_t ei = 0;
    int64_t prev_end = INT64_MIN;
    for (size_t j = 0; j < nseg; j++) {
        int64_t s0 = a[j] - shift, s1 = b[j] - shift;
        if (s1 <= s0 || s0 < prev_end)
            continue;
        prev_end = s1;
        while (ei < ev->n && ev->t[ei] <= s0)
            apply(&r, ev, ei++);
        for (int64_t u = s0; u < s1;) {
            int64_t v = ei < ev->n && ev->t[ei] < s1 ? ev->t[ei] : s1;
            if (v > u) {
                struct en_active act = { r.n, r.total, r.list, r.cnt };
                cb->piece(cb->ctx, j, u, v, &act);
            }
            u = v;
            while (ei < ev->n && ev->t[ei] <= u && u < s1)
                apply(&r, ev, ei++);
        }
        if (cb->seg_done)
            cb->seg_done(cb->ctx, j);
    }
    free(r.cnt);
    free(r.list);
    free(r.pos);
}

double en_busy_ns(const struct en_events *ev, int64_t w0, int64_t w1)
{
    double busy = 0;
    long depth = 0;
    int64_t since = 0;
    for (size_t i = 0; i < ev->n; i++) {
        int64_t t = ev->t[i] < w0 ? w0 : ev->t[i] > w1 ? w1 : ev->t[i];
        if (ev->d[i] > 0 && depth++ == 0)
            since = t;
        else if (ev->d[i] < 0 && depth > 0 && --depth == 0)
            busy += (double)(t - since);
    }
    return busy;
}
