/* fuzz_energy.c - libFuzzer target for the energy module (src/energy): the
 * bytes become one or two GPUs' activities (any order, lengths, overlaps,
 * kernel ids and copy classes), energy readings, power and clock samples
 * (any values, NaN and resets included) and fit windows; en_compute must
 * return (0 or -1 with a message) without crashing whatever they are. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "energy/energy.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rd {
    const uint8_t *p;
    size_t n;
};

static uint32_t u32(struct rd *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4 && r->n; i++, r->p++, r->n--)
        v = v << 8 | *r->p;
    return v;
}

static double val(struct rd *r)
{
    uint32_t v = u32(r);
    if ((v & 0xff) == 0xff)
        return NAN;
    return (double)(int32_t)v / 65536.0;
}

#define MAXN 64

struct gpu_buf {
    struct en_act act[MAXN];
    int64_t t[MAXN], et[MAXN], wa[MAXN], wb[MAXN];
    double pw[MAXN], ck[MAXN], ev[MAXN], wp[MAXN];
};

static void fill(struct rd *r, struct gpu_buf *b, struct en_gpu *g, uint32_t nk)
{
    size_t na = u32(r) % MAXN, ns = u32(r) % MAXN, ne = u32(r) % MAXN, nw = u32(r) % MAXN;
    int64_t t = 0;
    for (size_t i = 0; i < na; i++) {
        t += u32(r) % 5000;
        uint32_t len = u32(r) % 20000, id = u32(r);
        bool copy = id & 1;
        b->act[i] = (struct en_act){ t, t + len, copy ? (id >> 1) % (EN_NCOPY + 1)
                                                     : (id >> 1) % (nk + 1), copy ? EN_COPY : EN_KERNEL };
    }
    int64_t s = -(int64_t)(u32(r) % 10000);
    for (size_t i = 0; i < ns; i++) {
        s += u32(r) % 3000;
        b->t[i] = s, b->pw[i] = val(r), b->ck[i] = val(r);
    }
    int64_t e = 0;
    for (size_t i = 0; i < ne; i++) {
        e += u32(r) % 9000;
        b->et[i] = e, b->ev[i] = val(r);
    }
    int64_t w = 0;
    for (size_t i = 0; i < nw; i++) {
        w += u32(r) % 4000;
        b->wa[i] = w;
        w += u32(r) % 4000;
        b->wb[i] = w, b->wp[i] = val(r);
    }
    *g = (struct en_gpu){ .name = "fuzz", .win0_ns = (int64_t)(u32(r) % 5000),
                          .win1_ns = (int64_t)(u32(r) % 100000),
                          .energy = { ne, b->et, b->ev }, .power = { ns, b->t, b->pw },
                          .clock = { ns, b->t, b->ck }, .driver = { ns, b->t, b->pw },
                          .fit = { nw, b->wa, b->wb, b->wp }, .fit_src = EN_SRC_DRIVER,
                          .act = b->act, .nact = na };
}

static struct gpu_buf bufs[2];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rd r = { data, size };
    uint32_t nk = u32(&r) % 8 + 1, ng = u32(&r) % 2 + 1;
    struct en_gpu g[2];
    for (uint32_t i = 0; i < ng; i++)
        fill(&r, &bufs[i], &g[i], nk);
    struct en_opts o;
    en_opts_default(&o);
    o.lag_ms = (u32(&r) & 1) ? NAN : 0.5;
    o.fit_max_cols = u32(&r) % 6 + 1;
    struct en_result res;
    (void)en_compute(g, ng, nk, &o, &res);
    en_release(&res);
    return 0;
}
