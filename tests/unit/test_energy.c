/* test_energy.c - the energy module (src/energy/energy.h) on hand-made
 * inputs: the linear algebra against hand-computed inverses and eigenvalues,
 * attribution against a timeline worked out by hand (idle, concurrency, a
 * copy, resolved segments, clock, counter vs power), the fit against exact
 * window means computed here by direct overlap sums (never by the module):
 * noiseless recovery, a collinear pair reported as a group, a known sensor
 * lag, and the standard error's coverage over 300 noisy repetitions; the
 * split by time x fitted power against a timeline worked by hand and against
 * each kernel's P x time under a slow, late energy counter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "energy/en_int.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("got %.12g, want %.12g (tol %.3g)\n", got, want, tol);
        fail();
    }
}

/* ---- linear algebra ---- */

static void test_linalg(void **st)
{
    (void)st;
    double a[4] = { 4, 2, 2, 3 };          /* inverse = [3 -2; -2 4] / 8 */
    assert_int_equal(en_spd_inverse(a, 2), 0);
    near(a[0], 3.0 / 8, 1e-15), near(a[1], -2.0 / 8, 1e-15);
    near(a[2], -2.0 / 8, 1e-15), near(a[3], 4.0 / 8, 1e-15);
    double s[4] = { 1, 2, 2, 1 };          /* eigenvalues -1 and 3: not SPD */
    assert_int_equal(en_spd_inverse(s, 2), -1);
    double e[9] = { 2, 1, 0, 1, 2, 0, 0, 0, 5 }, w[3], v[9];
    en_sym_eigen(e, 3, w, v);
    double lo = fmin(w[0], fmin(w[1], w[2])), hi = fmax(w[0], fmax(w[1], w[2]));
    near(lo, 1, 1e-12), near(hi, 5, 1e-12), near(w[0] + w[1] + w[2], 9, 1e-12);   /* the trace */
    /* Eigenvector of 1: (1, -1, 0)/sqrt(2) up to sign. */
    for (int k = 0; k < 3; k++)
        if (fabs(w[k] - 1) < 1e-9)
            near(fabs(v[0 * 3 + k] + v[1 * 3 + k]), 0, 1e-12);
}

/* ---- attribution ---- */

/* Timeline (ms):   0    1    3  4  5  6    8  9  10      12
 * power series:   [  100 W      )[     200 W       )[ 300 W )
 * kernel 0:            [====)          [====)              (concurrent 6-8)
 * kernel 1:                       [==============)   [======)
 * copy H2D:                            [====)
 * By hand: k0 = 0.2 + 0.4/3 J, k1 = 0.2 + 0.4/3 + 0.2 + 0.6 J, copy 0.4/3 J,
 * idle = 0.1 + 0.1 + 0.2 + 0.2 J; k1 alone for the whole 10-12 segment. */
static void test_attribution(void **st)
{
    (void)st;
    struct en_act act[] = {
        { 1 * MS, 3 * MS, 0, EN_KERNEL }, { 5 * MS, 9 * MS, 1, EN_KERNEL },
        { 6 * MS, 8 * MS, 0, EN_KERNEL }, { 6 * MS, 8 * MS, EN_COPY_H2D, EN_COPY },
        { 10 * MS, 12 * MS, 1, EN_KERNEL },
    };
    int64_t pt[] = { 0, 4 * MS, 10 * MS, 12 * MS };
    double pv[] = { NAN, 100, 200, 300 };
    double cv[] = { NAN, 1000, 2000, 1500 };   /* clock, held like power */
    struct en_gpu g = { .name = "g0", .win0_ns = 0, .win1_ns = 12 * MS,
                        .power = { 4, pt, pv }, .clock = { 4, pt, cv },
                        .act = act, .nact = 5 };
    struct en_result r;
    assert_int_equal(en_compute(&g, 1, 2, NULL, &r), 0);
    const double third = 0.4 / 3;
    near(r.col[0].energy_J, 0.2 + third, 1e-12);
    near(r.col[1].energy_J, 0.2 + third + 0.2 + 0.6, 1e-12);
    uint32_t cc = en_col_of(&r, EN_COPY, EN_COPY_H2D);
    near(r.col[cc].energy_J, third, 1e-12);
    near(r.all.idle_J, 0.6, 1e-12);
    near(r.all.total_J, 0.4 + 1.2 + 0.6, 1e-12);
    near(r.all.kernels_J, 0.2 + third + 1.0 + third, 1e-12);
    near(r.all.copies_J, third, 1e-12);
    assert_int_equal(r.gpu[0].src, EN_SRC_POWER);
    near(r.col[0].time_ns, 4 * MS, 0);
    near(r.col[1].time_ns, 6 * MS, 0);
    near(r.col[0].launches, 2, 0);
    near(r.col[1].resolved_ns, 2 * MS, 0);    /* 10-12 */
    near(r.col[0].resolved_ns, 0, 0);
    near(r.all.busy_ns, 2 * MS + 4 * MS + 2 * MS, 0);
    near(r.all.idle_ns, 4 * MS, 0);
    near(r.all.peak_W, 300, 0);
    near(r.all.mean_W, 2.2 / 0.012, 1e-9);
    /* Clock while running: k0 1-3 at 1000, 6-8 at 2000 -> 1500 MHz. */
    near(r.col[0].clock_int / r.col[0].clock_ns, 1500, 1e-9);
    /* k1: 5-9 at 2000 (4 ms), 10-12 at 1500 (2 ms). */
    near(r.col[1].clock_int / r.col[1].clock_ns, (4 * 2000 + 2 * 1500) / 6.0, 1e-9);
    en_release(&r);
}

/* The same power as an energy counter gives the same split; a window that
 * starts mid-segment takes its share of that segment. */
static void test_counter(void **st)
{
    (void)st;
    struct en_act act[] = { { 2 * MS, 6 * MS, 0, EN_KERNEL } };
    int64_t et[] = { 0, 4 * MS, 8 * MS };
    double ev[] = { 5.0, 5.4, 6.6 };        /* 100 W then 300 W */
    double pv[] = { NAN, 110, 290 };        /* a power sensor 10 W off */
    struct en_gpu g = { .name = "g0", .win0_ns = 1 * MS, .win1_ns = 8 * MS,
                        .energy = { 3, et, ev }, .power = { 3, et, pv }, .act = act, .nact = 1 };
    struct en_result r;
    assert_int_equal(en_compute(&g, 1, 1, NULL, &r), 0);
    assert_int_equal(r.gpu[0].src, EN_SRC_COUNTER);
    near(r.col[0].energy_J, 0.2 + 0.6, 1e-12);      /* 2-4 at 100 W, 4-6 at 300 W */
    near(r.all.idle_J, 0.1 + 0.6, 1e-12);           /* 1-2 and 6-8 */
    /* Cross-check between the readings inside the window, 4 and 8 ms. */
    near(r.all.xspan_ns, 4 * MS, 0);
    near(r.all.counter_J, 1.2, 1e-12);
    near(r.all.power_J, 290 * 0.004, 1e-12);
    assert_true(isnan(r.all.driver_J));
    en_release(&r);
}

static void test_bad_input(void **st)
{
    (void)st;
    struct en_act act[] = { { 5, 9, 0, EN_KERNEL }, { 1, 2, 0, EN_KERNEL } };
    struct en_gpu g = { .name = "g0", .win0_ns = 0, .win1_ns = 10, .act = act, .nact = 2 };
    struct en_result r;
    assert_int_equal(en_compute(&g, 1, 1, NULL, &r), -1);
    assert_non_null(strstr(r.warn.v[0], "not sorted"));
    en_release(&r);
    act[1] = (struct en_act){ 6, 7, 3, EN_KERNEL };
    assert_int_equal(en_compute(&g, 1, 1, NULL, &r), -1);
    assert_non_null(strstr(r.warn.v[0], "unknown kernel id"));
    en_release(&r);
}

/* ---- fit ---- */

/* Exact mean power over [a, b) of non-overlapping activities with powers
 * P[id] and idle P_idle: a direct overlap sum. */
static double mean_power(const struct en_act *act, size_t n, const double *P, double P_idle,
                         int64_t a, int64_t b)
{
    double busy = 0, e = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t s = act[i].start_ns > a ? act[i].start_ns : a;
        int64_t t = act[i].end_ns < b ? act[i].end_ns : b;
        if (t > s) {
            busy += (double)(t - s);
            e += P[act[i].id] * (double)(t - s);
        }
    }
    return (e + P_idle * ((double)(b - a) - busy)) / (double)(b - a);
}

static uint64_t rng_state;
static double urand(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static double gauss(void)
{
    double u = urand(), v = urand();
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* A pseudo-random schedule of nk kernels (lengths 0.5-8 ms, gaps 0-4 ms) over
 * span ms. */
static size_t schedule(struct en_act *act, size_t cap, uint32_t nk, int64_t span)
{
    size_t n = 0;
    for (int64_t t = 0; n < cap;) {
        int64_t d = (int64_t)((0.5 + 7.5 * urand()) * MS), gap = (int64_t)(4 * urand() * MS);
        if (t + d > span)
            break;
        act[n++] = (struct en_act){ t, t + d, (uint32_t)(urand() * nk) % nk, EN_KERNEL };
        t += d + gap;
    }
    return n;
}

struct wins {
    int64_t a[4096], b[4096];
    double p[4096];
    size_t n;
};

/* Windows of len ms from 0 to span; each reads the mean over [a - lag, b - lag),
 * plus noise of sd W. */
static void windows(struct wins *w, const struct en_act *act, size_t n, const double *P,
                    double P_idle, int64_t span, int64_t len, int64_t lag, double sd)
{
    w->n = 0;
    for (int64_t a = 0; a + len <= span; a += len, w->n++) {
        w->a[w->n] = a, w->b[w->n] = a + len;
        w->p[w->n] = mean_power(act, n, P, P_idle, a - lag, a + len - lag) + sd * gauss();
    }
}

static void gpu_of(struct en_gpu *g, const struct en_act *act, size_t n, const struct wins *w,
                   int64_t span)
{
    *g = (struct en_gpu){ .name = "g0", .win0_ns = 0, .win1_ns = span, .act = act, .nact = n,
                          .fit = { w->n, w->a, w->b, w->p }, .fit_src = EN_SRC_DRIVER };
}

static struct en_act acts[20000];
static struct wins win;

static void test_fit_exact(void **st)
{
    (void)st;
    rng_state = 12345;
    const double P[3] = { 300, 520, 410 }, idle = 95;
    int64_t span = 4000 * MS;
    size_t n = schedule(acts, 20000, 3, span);
    windows(&win, acts, n, P, idle, span, 20 * MS, 0, 0);
    struct en_gpu g;
    gpu_of(&g, acts, n, &win, span);
    struct en_opts o;
    en_opts_default(&o);
    struct en_result r;
    assert_int_equal(en_compute(&g, 1, 3, &o, &r), 0);
    assert_true(r.fit.done);
    near(r.fit.lag_ms, 0, 0);
    assert_true(r.fit.lag_estimated);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(r.col[k].fit_status, EN_FIT_OK);
        near(r.col[k].fit_W, P[k], 1e-7 * P[k]);
    }
    near(r.fit.idle_W, idle, 1e-7 * idle);
    assert_int_equal(r.fit.ngroups, 0);
    near(r.fit.rms_W, 0, 1e-6);
    /* Σ fit × time + idle = the true energy. */
    double truth = 0, busy = 0;
    for (size_t i = 0; i < n; i++) {
        truth += P[acts[i].id] * (double)(acts[i].end_ns - acts[i].start_ns) * 1e-9;
        busy += (double)(acts[i].end_ns - acts[i].start_ns);
    }
    truth += idle * ((double)span - busy) * 1e-9;
    near(r.fit.total_J, truth, 1e-6 * truth);
    en_release(&r);
}

/* Kernel 1 always runs right after kernel 0 for the same time: no window can
 * tell them apart. They must come out as one group at their mean power. */
static void test_fit_collinear(void **st)
{
    (void)st;
    const double P[3] = { 300, 500, 650 }, idle = 100;
    size_t n = 0;
    for (int64_t t = 0; t + 10 * MS <= 2000 * MS; t += 10 * MS) {
        int64_t d = (int64_t)((1 + (t / (10 * MS)) % 3) * MS);   /* 1, 2, 3 ms */
        acts[n++] = (struct en_act){ t, t + d, 0, EN_KERNEL };
        acts[n++] = (struct en_act){ t + d, t + 2 * d, 1, EN_KERNEL };
        if ((t / (10 * MS)) % 4 == 0)
            acts[n++] = (struct en_act){ t + 2 * d, t + 2 * d + MS, 2, EN_KERNEL };
    }
    windows(&win, acts, n, P, idle, 2000 * MS, 10 * MS, 0, 0);
    struct en_gpu g;
    gpu_of(&g, acts, n, &win, 2000 * MS);
    struct en_opts o;
    en_opts_default(&o);
    o.lag_ms = 0;
    struct en_result r;
    assert_int_equal(en_compute(&g, 1, 3, &o, &r), 0);
    assert_true(r.fit.done);
    assert_int_equal(r.col[0].fit_status, EN_FIT_GROUPED);
    assert_int_equal(r.col[1].fit_status, EN_FIT_GROUPED);
    assert_int_equal(r.col[0].fit_group, r.col[1].fit_group);
    assert_int_equal(r.fit.ngroups, 1);
    assert_int_equal(r.fit.group[0].n, 2);
    near(r.fit.group[0].W, (P[0] + P[1]) / 2, 1e-6);
    assert_int_equal(r.col[2].fit_status, EN_FIT_OK);
    near(r.col[2].fit_W, P[2], 1e-6);
    near(r.fit.idle_W, idle, 1e-6);
    en_release(&r);
}

/* A sensor 7 ms late: the lag search finds it and the powers come back. */
static void test_fit_lag(void **st)
{
    (void)st;
    rng_state = 777;
    const double P[2] = { 250, 600 }, idle = 80;
    int64_t span = 3000 * MS;
    size_t n = schedule(acts, 20000, 2, span);
    windows(&win, acts, n, P, idle, span, 20 * MS, 7 * MS, 0);
    struct en_gpu g;
    gpu_of(&g, acts, n, &win, span);
    struct en_result r;
    assert_int_equal(en_compute(&g, 1, 2, NULL, &r), 0);
    assert_true(r.fit.done);
    near(r.fit.lag_ms, 7, 1e-9);
    near(r.col[0].fit_W, P[0], 1e-6 * P[0]);
    near(r.col[1].fit_W, P[1], 1e-6 * P[1]);
    en_release(&r);
}

/* Noise of 5 W per window: the true power lies within 1.96 SE in about 95 %
 * of 300 repetitions (binomial sd 1.3 %: accept 90-99 %), and the SE is what
 * the noise predicts within a factor 2. */
static void test_fit_se_coverage(void **st)
{
    (void)st;
    const double P[2] = { 300, 450 }, idle = 120, sd = 5;
    int64_t span = 600 * MS;
    int hits = 0, trials = 0;
    double se_sum = 0;
    for (int rep = 0; rep < 300; rep++) {
        rng_state = 1000 + (uint64_t)rep * 7919;
        size_t n = schedule(acts, 20000, 2, span);
        windows(&win, acts, n, P, idle, span, 20 * MS, 0, sd);
        struct en_gpu g;
        gpu_of(&g, acts, n, &win, span);
        struct en_opts o;
        en_opts_default(&o);
        o.lag_ms = 0;
        struct en_result r;
        assert_int_equal(en_compute(&g, 1, 2, &o, &r), 0);
        assert_true(r.fit.done);
        for (int k = 0; k < 2; k++) {
            assert_int_equal(r.col[k].fit_status, EN_FIT_OK);
            hits += fabs(r.col[k].fit_W - P[k]) <= 1.96 * r.col[k].fit_se_W;
            se_sum += r.col[k].fit_se_W;
            trials++;
        }
        en_release(&r);
    }
    double cover = (double)hits / trials, se_mean = se_sum / trials;
    print_message("coverage %.3f, mean SE %.3f W\n", cover, se_mean);
    assert_true(cover >= 0.90 && cover <= 0.99);
    /* 30 windows, each kernel ~30-40 % of each: SE ~ sd / sqrt(30 x 0.1) ~ 3 W. */
    assert_true(se_mean > 0.5 && se_mean < 10);
}

static void test_windows(void **st)
{
    (void)st;
    int64_t t[] = { 0, 10, 20, 30, 40, 300 };
    double e[] = { 0, 1, 3, 2, 4, 5 };       /* a reset at 30, a gap at 300 */
    struct en_series s = { 6, t, e };
    struct en_wbuf w = { 0 };
    en_windows_from_counter(&s, 3, &w);
    assert_int_equal(w.n, 3);                /* [0,10) [10,20) [30,40) */
    near(w.p[0], 1e8, 1e-3), near(w.p[1], 2e8, 1e-3), near(w.p[2], 2e8, 1e-3);
    en_wbuf_free(&w);
    /* A sensor refreshing every 3 samples, held: changes at 3, 6, 12 (the
     * reading at 9 repeated the value: no window). */
    double p[] = { 5, 5, 5, 7, 7, 7, 9, 9, 9, 9, 9, 9, 4, 4 };
    int64_t tp[14];
    for (int i = 0; i < 14; i++)
        tp[i] = 10 * i;
    struct en_series ps = { 14, tp, p };
    assert_int_equal(en_refresh_ns(&ps), 30);
    assert_int_equal(en_sample_ns(&ps), 10);
    en_windows_from_power(&ps, 30, 0, &w);
    assert_int_equal(w.n, 3);                /* [0,30) 7, [30,60) 9, [90,120) 4 */
    assert_int_equal(w.a[0], 0), assert_int_equal(w.b[0], 30), near(w.p[0], 7, 0);
    assert_int_equal(w.a[2], 90), assert_int_equal(w.b[2], 120), near(w.p[2], 4, 0);
    en_wbuf_free(&w);
    en_windows_from_power(&ps, 0, 0, &w);    /* every sample its own window */
    assert_int_equal(w.n, 13);
    assert_int_equal(w.a[5], 50), assert_int_equal(w.b[5], 60), near(w.p[5], 9, 0);
    en_wbuf_free(&w);
}

/* ---- the split by time x fitted power ---- */

/* Counter readings (J) at 0, 100, 200, 300 ms (+ at): 300, 200, 600 W.
 *   k0: [0,40) and twice concurrently [200,300) (fitted 500 W);
 *   k1: [40,70), [100,150), [200,300) (no fitted power: the segment's mean).
 * By hand, idle fitted at 100 W:
 *   seg 1: weights k0 .04x500 = 20, k1 .03x300 = 9, idle .03x100 = 3 (of 32):
 *          30 J -> k0 18.75, k1 8.4375, idle 2.8125;
 *   seg 2: k1 .05x200 = 10, idle .05x100 = 5: 20 J -> k1 13.3333, idle 6.6667;
 *   seg 3: k0 2x.1x500 = 100, k1 .1x600 = 60: 60 J -> k0 37.5, k1 22.5.
 * Idle not fitted: seg 1 idle weighs .03x300 = 9 (of 38): k0 30x20/38, k1 and
 * idle 30x9/38; seg 2 has no fitted class: by time, k1 10, idle 10. */
static const struct en_act hand_act[] = {
    { 0, 40 * MS, 0, EN_KERNEL }, { 40 * MS, 70 * MS, 1, EN_KERNEL },
    { 100 * MS, 150 * MS, 1, EN_KERNEL }, { 200 * MS, 300 * MS, 0, EN_KERNEL },
    { 200 * MS, 300 * MS, 0, EN_KERNEL }, { 200 * MS, 300 * MS, 1, EN_KERNEL },
};

static void weighted_hand(double idle_W, int64_t at, int64_t lag, double *k0, double *k1,
                          double *idle, size_t *nweighted)
{
    int64_t et[] = { at, 100 * MS + at, 200 * MS + at, 300 * MS + at };
    double ev[] = { 7, 37, 57, 117 };
    struct en_gpu g = { .name = "g0", .win0_ns = 0, .win1_ns = 300 * MS,
                        .energy = { 4, et, ev }, .act = hand_act, .nact = 6 };
    struct en_result r = { .nkernels = 2, .ncols = 2 + EN_NCOPY };
    struct en_col col[2 + EN_NCOPY];
    struct en_whole w;
    memset(col, 0, sizeof(col));
    memset(&w, 0, sizeof(w));
    double W[2 + EN_NCOPY];
    for (size_t c = 0; c < 2 + EN_NCOPY; c++)
        W[c] = NAN;
    W[0] = 500;
    struct en_events ev_;
    en_events_build(&ev_, hand_act, 6, 2);
    en_attribute_weighted(&g, &ev_, &r, W, idle_W, lag, col, &w);
    en_events_free(&ev_);
    *k0 = col[0].energy_J, *k1 = col[1].energy_J, *idle = w.idle_J;
    *nweighted = w.segments_weighted;
    near(w.kernels_J, *k0 + *k1, 1e-12);
    near(w.copies_J, 0, 0);
    near(*k0 + *k1 + *idle, 110, 1e-12);         /* the counter's energy, all of it */
    assert_int_equal(w.segments_shifted, 3);
}

static void test_weighted_hand(void **st)
{
    (void)st;
    double k0, k1, idle;
    size_t nw;
    weighted_hand(100, 0, 0, &k0, &k1, &idle, &nw);
    near(k0, 18.75 + 37.5, 1e-12);
    near(k1, 8.4375 + 20.0 * 2 / 3 + 22.5, 1e-12);
    near(idle, 2.8125 + 20.0 / 3, 1e-12);
    assert_int_equal(nw, 3);
    /* Readings 10 ms late, shifted back by 10 ms: the same split. */
    weighted_hand(100, 10 * MS, 10 * MS, &k0, &k1, &idle, &nw);
    near(k0, 18.75 + 37.5, 1e-9);
    near(k1, 8.4375 + 20.0 * 2 / 3 + 22.5, 1e-9);
    weighted_hand(NAN, 0, 0, &k0, &k1, &idle, &nw);
    near(k0, 30.0 * 20 / 38 + 37.5, 1e-12);
    near(k1, 30.0 * 9 / 38 + 10 + 22.5, 1e-12);
    near(idle, 30.0 * 9 / 38 + 10, 1e-12);
    assert_int_equal(nw, 2);                     /* seg 2 by time */
}

/* Cumulative energy at t of the schedule at powers P, idle P_idle, from t0. */
static double energy_to(const struct en_act *act, size_t n, const double *P, double P_idle,
                        int64_t t0, int64_t t)
{
    double e = P_idle * (double)(t - t0);
    for (size_t i = 0; i < n && act[i].start_ns < t; i++) {
        int64_t b = act[i].end_ns < t ? act[i].end_ns : t;
        e += (P[act[i].id] - P_idle) * (double)(b - act[i].start_ns);
    }
    return e * 1e-9;
}

/* An energy counter of 100 ms segments read 37 ms late (what it reads at t
 * is the energy up to t - 37 ms) over kernels of 0.5-8 ms: every segment
 * holds dozens of them, so the time split gives each about the mean power;
 * the fit (20 ms driver windows, 7 ms late) finds the powers, the delay
 * search finds 37 ms, and the split by fitted power gives each kernel its
 * P x time (computed here from the schedule). */
static int64_t ctr_t[64];
static double ctr_v[64];

static void test_weighted_slow_counter(void **st)
{
    (void)st;
    rng_state = 4242;
    const double P[3] = { 520, 90, 330 }, idle = 70;
    int64_t span = 3000 * MS, late = 37 * MS;
    size_t n = schedule(acts, 20000, 3, span);
    windows(&win, acts, n, P, idle, span, 20 * MS, 7 * MS, 0);
    struct en_gpu g;
    gpu_of(&g, acts, n, &win, span);
    size_t m = 0;
    for (int64_t t = 0; t <= span + 100 * MS; t += 100 * MS, m++)
        ctr_t[m] = t, ctr_v[m] = 1000 + energy_to(acts, n, P, idle, -1000 * MS, t - late);
    g.energy = (struct en_series){ m, ctr_t, ctr_v };
    struct en_result r;
    assert_int_equal(en_compute(&g, 1, 3, NULL, &r), 0);
    assert_true(r.fit.done && r.weighted);
    near(r.attr_lag_ms, 37, 1e-9);
    double t[3] = { 0 }, busy = 0;
    for (size_t i = 0; i < n; i++) {
        t[acts[i].id] += (double)(acts[i].end_ns - acts[i].start_ns) * 1e-9;
        busy += (double)(acts[i].end_ns - acts[i].start_ns) * 1e-9;
    }
    for (int k = 0; k < 3; k++) {
        near(r.col[k].energy_J, P[k] * t[k], 1e-5 * P[k] * t[k]);
        near(r.col[k].weight_W, P[k], 1e-6 * P[k]);
    }
    near(r.all.idle_J, idle * (3.0 - busy), 1e-5 * idle * (3.0 - busy));
    /* The time split of the same segments is far off for the low-power one. */
    assert_true(r.col[1].energy_time_J > 1.5 * P[1] * t[1]);
    en_release(&r);
}

/* A fit of barely as many windows as unknowns does not weigh the split. */
static void test_weighted_few_windows(void **st)
{
    (void)st;
    rng_state = 99;
    const double P[2] = { 400, 150 }, idle = 60;
    int64_t span = 200 * MS;
    size_t n = schedule(acts, 20000, 2, span);
    windows(&win, acts, n, P, idle, span, 20 * MS, 0, 0);   /* 10 windows, 3 powers */
    struct en_gpu g;
    gpu_of(&g, acts, n, &win, span);
    size_t m = 0;
    for (int64_t t = 0; t <= span; t += 100 * MS, m++)
        ctr_t[m] = t, ctr_v[m] = energy_to(acts, n, P, idle, 0, t);
    g.energy = (struct en_series){ m, ctr_t, ctr_v };
    struct en_result r;
    assert_int_equal(en_compute(&g, 1, 2, NULL, &r), 0);
    assert_true(r.fit.done);
    assert_false(r.weighted);
    assert_true(r.few_windows);
    near(r.col[0].energy_J, r.col[0].energy_time_J, 0);
    assert_true(isnan(r.attr_lag_ms));
    en_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linalg),
        cmocka_unit_test(test_attribution),
        cmocka_unit_test(test_counter),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_fit_exact),
        cmocka_unit_test(test_fit_collinear),
        cmocka_unit_test(test_fit_lag),
        cmocka_unit_test(test_fit_se_coverage),
        cmocka_unit_test(test_weighted_hand),
        cmocka_unit_test(test_weighted_slow_counter),
        cmocka_unit_test(test_weighted_few_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
