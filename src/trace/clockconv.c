/* clockconv.c - convert timestamps of another clock (CUPTI's) to CLOCK_BOOTTIME ns.
 *
 * See clockconv.h. Offsets are kept as signed 64-bit ns; interpolation uses
 * long double so that hour-long segments keep sub-ns precision.
 */
#include "trace/clockconv.h"

#include <stdlib.h>
#include <time.h>

#include "util/xalloc.h"

uint64_t clk_boottime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t boot_default(void *ctx)
{
    (void)ctx;
    return clk_boottime_ns();
}

struct clk_point clk_measure(clk_src_fn src, clk_boot_fn boot, void *ctx, int tries)
{
    struct clk_point best = { 0, 0, UINT64_MAX };
    if (!boot)
        boot = boot_default;
    if (tries < 1)
        tries = 1;
    for (int i = 0; i < tries; i++) {
        uint64_t b0 = boot(ctx);
        uint64_t s = src(ctx);
        uint64_t b1 = boot(ctx);
        if (b1 < b0)
            continue;
        uint64_t half = (b1 - b0) / 2;
        if (half < best.err_ns) {
            best.src_ns = s;
            best.boot_ns = b0 + half;
            best.err_ns = half;
        }
    }
    return best;
}

void clk_conv_init(struct clk_conv *c)
{
    c->pts = NULL;
    c->n = c->cap = 0;
}

void clk_conv_release(struct clk_conv *c)
{
    free(c->pts);
    clk_conv_init(c);
}

int clk_conv_add(struct clk_conv *c, struct clk_point p)
{
    if (c->n > 0 && p.src_ns <= c->pts[c->n - 1].src_ns)
        return -1;
    xgrow((void **)&c->pts, &c->cap, c->n + 1, sizeof(*c->pts));
    c->pts[c->n++] = p;
    return 0;
}

int64_t clk_offset_ns(const struct clk_point *p)
{
    return (int64_t)(p->boot_ns - p->src_ns);
}

double clk_conv_drift_ppm(const struct clk_conv *c)
{
    if (c->n < 2)
        return 0.0;
    const struct clk_point *a = &c->pts[0], *b = &c->pts[c->n - 1];
    long double doff = (long double)(clk_offset_ns(b) - clk_offset_ns(a));
    return (double)(doff / (long double)(b->src_ns - a->src_ns) * 1e6L);
}

/* Index of the segment [i, i+1] used for t (extrapolating at the ends). */
static size_t segment_for(const struct clk_conv *c, uint64_t t)
{
    size_t lo = 0, hi = c->n - 1;   /* invariant: answer in [lo, hi - 1] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->pts[mid].src_ns <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint64_t clk_conv_to_boot(const struct clk_conv *c, uint64_t t)
{
    if (c->n == 0)
        return t;
    if (c->n == 1)
        return (uint64_t)((int64_t)t + clk_offset_ns(&c->pts[0]));
    size_t i = segment_for(c, t);
    const struct clk_point *a = &c->pts[i], *b = &c->pts[i + 1];
    long double oa = (long double)clk_offset_ns(a), ob = (long double)clk_offset_ns(b);
    long double frac = ((long double)t - (long double)a->src_ns) /
                       ((long double)b->src_ns - (long double)a->src_ns);
    long double off = oa + (ob - oa) * frac;
    long double r = (long double)t + off;
    return r <= 0 ? 0 : (uint64_t)(r + 0.5L);
}
