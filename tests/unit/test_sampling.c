/* test_sampling.c - launch sampling: the plan (trace/launchplan.h), the
 * estimators and their intervals (read/extrapolate.h), the reader on a
 * sampled file set (read/rpagg.h), launch_sampling.json (read/sampfile.h)
 * and rocprofv3's iteration list (collect/collect.h).
 *
 * Known answers: computed by hand in the comments and independently by
 * tests/unit/sampling_ref.py (textbook formulas, its own strata). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "msgcap.h"
#include "tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "read/extrapolate.h"
#include "trace/launchplan.h"
#include "read/rpagg.h"
#include "read/sampfile.h"
#include "trace/ktrace_write.h"
#include "util/xalloc.h"

#define CLOSE(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* ---- the plan ------------------------------------------------------------- */

/* first 3, blocks of 4 (2 of them), then 8, 16...: strata [1,3], [4,11],
 * [12,27], [28,59], [60,123] (by hand: 3 + 2·4, + 2·8, + 2·16, + 2·32). */
static void test_plan_strata(void **state)
{
    (void)state;
    struct lp_plan p = { 3, 4, 2, 7 };
    static const uint64_t lo[5] = { 1, 4, 12, 28, 60 }, hi[5] = { 3, 11, 27, 59, 123 };
    for (uint32_t h = 0; h < 5; h++) {
        uint64_t a, b;
        assert_int_equal(lp_stratum(&p, lo[h], &a, &b), h);
        assert_int_equal(a, lo[h]);
        assert_int_equal(b, hi[h]);
        assert_int_equal(lp_stratum(&p, hi[h], &a, &b), h);
    }
    /* 50 launches: 3, 8, 16, 23 (28..50), 0 */
    static const uint64_t size50[5] = { 3, 8, 16, 23, 0 };
    for (uint32_t h = 0; h < 5; h++)
        assert_int_equal(lp_stratum_size(&p, h, 50), size50[h]);
    assert_int_equal(lp_stratum_size(&p, 0, 2), 2);
    /* blocks longer than the ranks: the stratum ends at the last rank, not at
     * a wrapped-around sum (found by fuzz_launch_sampling) */
    struct lp_plan huge = { 36, UINT64_MAX, 1, 9 };
    uint64_t a, b;
    assert_int_equal(lp_stratum(&huge, 100, &a, &b), 1);
    assert_int_equal(a, 37);
    assert_true(b == UINT64_MAX);
    assert_int_equal(lp_stratum_size(&huge, 1, 100), 64);
    assert_true(lp_next(&huge, 100) >= 100);
}

/* Exactly one profiled launch per block, every census launch, and lp_next
 * the next profiled rank (brute force). */
static void test_plan_blocks(void **state)
{
    (void)state;
    struct lp_plan plans[3] = { { 3, 4, 2, 7 }, { 10, 50, 20, 1 }, { 2, 5, 0, 3 } };
    for (int i = 0; i < 3; i++) {
        const struct lp_plan *p = &plans[i];
        for (uint64_t r = 1; r <= p->first; r++)
            assert_true(lp_profiled(p, r));
        uint64_t r = p->first + 1, len = p->every, blocks = 0, profiled = 0;
        while (r + len <= 200000) {   /* block by block */
            uint64_t n = 0;
            for (uint64_t q = r; q < r + len; q++)
                n += lp_profiled(p, q);
            assert_int_equal(n, 1);
            profiled += n;
            r += len;
            if (p->blocks_per_phase && ++blocks == p->blocks_per_phase) {
                blocks = 0;
                len *= 2;
            }
        }
        assert_true(profiled > 0);
        for (uint64_t q = 1, next = lp_next(p, 1); q < 5000; q++) {
            if (q > next)
                next = lp_next(p, q);
            assert_int_equal(lp_profiled(p, q), q == next);
        }
    }
    /* the default plan on 20,001 launches: 10 + 4 phases of 20 + part of a fifth
     * (phase j spans 20·50·2^j launches: 1000, 2000, 4000, 8000, then 4991 of 16000) */
    struct lp_plan d;
    lp_plan_default(&d);
    uint64_t n = 0;
    for (uint64_t q = 1; q <= 20001; q++)
        n += lp_profiled(&d, q);
    assert_true(n >= 10 + 80 + 6 && n <= 10 + 80 + 7);   /* 4991/800 of the fifth's blocks */
}

static void test_plan_parse(void **state)
{
    (void)state;
    struct lp_plan p = { 0 };
    assert_int_equal(lp_plan_parse("10:50:20:1", &p), 0);
    assert_int_equal(p.first, 10);
    assert_int_equal(p.every, 50);
    assert_int_equal(p.blocks_per_phase, 20);
    assert_int_equal(p.seed, 1);
    char buf[96];
    lp_plan_format(&p, buf, sizeof(buf));
    assert_string_equal(buf, "10:50:20:1");
    static const char *const bad[] = { "", "1:2:3", "1:0:3:4", "a:1:1:1", "1:2:3:4x",
                                       "1:2:3:4:5", "-1:2:3:4", ":2:3:4",
                                       "1:18446744073709551616:3:4", NULL };   /* > 2^64 - 1 */
    for (int i = 0; bad[i]; i++) {
        struct lp_plan q = { 9, 9, 9, 9 };
        assert_int_equal(lp_plan_parse(bad[i], &q), -1);
        assert_int_equal(q.first, 9);   /* unchanged */
    }
    assert_int_equal(lp_plan_parse(NULL, &p), -1);
}

/* rocprofv3's list: the census as a range, then one iteration per block. */
static void test_rocprof_iterations(void **state)
{
    (void)state;
    struct lp_plan p = { 3, 4, 2, 7 };
    char *s = br_rocprof_iterations(&p, 27);
    assert_int_equal(strncmp(s, "[1-3,", 5), 0);
    unsigned a, b, c, d;
    char end;
    assert_int_equal(sscanf(s + 5, "%u,%u,%u,%u%c", &a, &b, &c, &d, &end), 5);
    assert_int_equal(end, ']');
    assert_true(a >= 4 && a <= 7 && b >= 8 && b <= 11 && c >= 12 && c <= 19 && d >= 20 && d <= 27);
    assert_true(lp_profiled(&p, a) && lp_profiled(&p, b) && lp_profiled(&p, c) && lp_profiled(&p, d));
    free(s);
    struct lp_plan one = { 1, 4, 2, 7 };
    s = br_rocprof_iterations(&one, 1);
    assert_string_equal(s, "[1]");
    free(s);
    assert_int_equal(br_rocprof_can_sample("6.3"), 0);
    assert_int_equal(br_rocprof_can_sample(NULL), 0);
    assert_int_equal(br_rocprof_can_sample("6.2"), -1);
    assert_non_null(strstr(g_msgs.buf, "ROCm 6.3+"));
}

/* ---- estimators -------------------------------------------------------------- */

/* Plan first 2, blocks of 3 (no doubling); 11 launches; ranks 1, 2 (census)
 * and 4, 8, 9 of stratum [3, ...] with 9 launches. Census 10 + 12 = 22;
 * stratum: mean 23, s² = (9 + 9 + 0) / 2 = 9: 9·23 = 207; variance
 * 9²·9/3 = 243 (one launch per block: no SRS correction), df 2. Total 229,
 * half width t(0.975, 2)·√243 = 4.303·15.588 = 67.08. */
static void test_stratified(void **state)
{
    (void)state;
    struct lp_plan p = { 2, 3, 0, 1 };
    uint64_t rank[5] = { 1, 2, 4, 8, 9 };
    double x[5] = { 10, 12, 20, 26, 23 };
    struct xp_unit_data u = { 11, 0, 5, rank, NULL, x };
    struct xp_estimate e = xp_estimate_unit(&p, &u, false);
    CLOSE(e.total, 229, 1e-9);
    CLOSE(e.var, 243, 1e-9);
    CLOSE(e.df, 2, 0);
    CLOSE(xp_half_width(e.var, e.df), 67.077, 1e-3);
}

/* The same ranks, a time-proportional counter x with durations d (total
 * traced time 30): census 22 (time 2); the rest R = 75 / 7.5 = 10, so
 * 22 + (30 - 2)·10 = 302; residuals x - R·d = 1, 0, -1, s_e² = 1, d̄ = 2.5:
 * Var = 28²·1 / (3·2.5²) = 41.8133, df 2. */
static void test_ratio(void **state)
{
    (void)state;
    struct lp_plan p = { 2, 3, 0, 1 };
    uint64_t rank[5] = { 1, 2, 4, 8, 9 };
    double d[5] = { 1, 1, 2, 3, 2.5 }, x[5] = { 10, 12, 21, 30, 24 };
    struct xp_unit_data u = { 11, 30, 5, rank, d, x };
    struct xp_estimate e = xp_estimate_unit(&p, &u, true);
    CLOSE(e.total, 302, 1e-9);
    CLOSE(e.var, 41.813333333333, 1e-9);
    CLOSE(e.df, 2, 0);
    /* a missing duration: the stratified estimator instead */
    d[3] = NAN;
    e = xp_estimate_unit(&p, &u, true);
    CLOSE(e.total, 22 + 9 * (21 + 30 + 24) / 3.0, 1e-9);
}

/* A stratum without any profiled launch. Plan first 1, blocks of 2, one per
 * phase: strata [1], [2,3], [4,7]; 5 launches, ranks 1 and 3 with 4 and 8:
 * pooled mean 6, s² 8. [1]: 4. [2,3]: 2·8 = 16, var 2²·8/1 = 32.
 * [4,5]: 2·6 = 12, var 2²·8/2 = 16. Total 32, var 48, df 1. */
static void test_empty_stratum(void **state)
{
    (void)state;
    struct lp_plan p = { 1, 2, 1, 1 };
    uint64_t rank[2] = { 1, 3 };
    double x[2] = { 4, 8 };
    struct xp_unit_data u = { 5, 0, 2, rank, NULL, x };
    struct xp_estimate e = xp_estimate_unit(&p, &u, false);
    CLOSE(e.total, 32, 1e-9);
    CLOSE(e.var, 48, 1e-9);
    CLOSE(e.df, 1, 0);
}

static void test_census_and_edges(void **state)
{
    (void)state;
    struct lp_plan p = { 2, 3, 0, 1 };
    uint64_t rank[3] = { 1, 2, 3 };
    double x[3] = { 5, 6, 7.5 };
    struct xp_unit_data all = { 3, 0, 3, rank, NULL, x };
    struct xp_estimate e = xp_estimate_unit(&p, &all, false);
    CLOSE(e.total, 18.5, 1e-12);
    CLOSE(e.var, 0, 0);
    assert_true(xp_half_width(e.var, e.df) == 0);
    struct xp_unit_data none = { 3, 0, 0, rank, NULL, x };
    assert_true(isnan(xp_estimate_unit(&p, &none, false).total));
    /* identical launches: exact however few are profiled */
    uint64_t r2[3] = { 1, 2, 7 };
    double same[3] = { 4, 4, 4 };
    struct xp_unit_data flat = { 1000, 0, 3, r2, NULL, same };
    e = xp_estimate_unit(&p, &flat, false);
    CLOSE(e.total, 4000, 1e-9);
    CLOSE(e.var, 0, 1e-12);
    /* one profiled launch of several: no interval */
    struct xp_unit_data lone = { 4, 0, 1, rank, NULL, x };
    struct lp_plan p0 = { 0, 4, 0, 1 };
    e = xp_estimate_unit(&p0, &lone, false);
    CLOSE(e.total, 20, 1e-12);
    assert_true(isnan(xp_half_width(e.var, e.df)));
}

static void test_t975(void **state)
{
    (void)state;
    CLOSE(xp_t975(1), 12.706, 1e-9);
    CLOSE(xp_t975(2), 4.303, 1e-9);
    CLOSE(xp_t975(10), 2.228, 1e-9);
    CLOSE(xp_t975(30), 2.042, 1e-9);
    CLOSE(xp_t975(40), 2.021, 1e-9);
    CLOSE(xp_t975(60), 2.000, 1e-9);
    CLOSE(xp_t975(120), 1.980, 1e-9);
    CLOSE(xp_t975(45), 2.014, 1e-9);   /* 1/df between 40 and 60: a third of the way */
    CLOSE(xp_t975(1e9), 1.960, 1e-6);
    CLOSE(xp_t975(0), 12.706, 1e-9);   /* clamped to 1 */
}

static void test_time_proportional(void **state)
{
    (void)state;
    assert_true(lp_elapsed_counter("sm__cycles_elapsed.sum"));
    assert_true(lp_elapsed_counter("sm__cycles_elapsed.avg.per_second"));
    assert_true(lp_elapsed_counter("gpu__time_duration.sum"));
    assert_true(lp_elapsed_counter("GRBM_GUI_ACTIVE"));
    assert_true(lp_elapsed_counter("GRBM_COUNT"));
    assert_false(lp_elapsed_counter("sm__cycles_active.sum"));
    assert_false(lp_elapsed_counter("dram__bytes_read.sum"));
    assert_false(lp_elapsed_counter("SQ_WAVES"));
}

/* ---- the reader on a sampled file set ---------------------------------------- */

static void row(struct ktw_kernel *k, const char *name, uint64_t id, uint64_t start, uint64_t dur,
                uint32_t grid)
{
    memset(k, 0, sizeof(*k));
    k->name = name;
    k->kernel_id = name[1] == '1' ? 1 : 2;
    k->dispatch_id = id;
    k->correlation_id = id;
    k->start_ns = start;
    k->end_ns = start + dur;
    k->grid[0] = grid, k->grid[1] = k->grid[2] = 1;
    k->block[0] = 64, k->block[1] = k->block[2] = 1;
}

/* k1: 11 launches, ranks 1, 2, 4, 8, 9 profiled (the cases above, durations
 * ×1000 ns, traced time 30,000 ns); k2: 3 launches, none profiled. */
static void write_sampled_set(const char *dir, char **cc, char **kt)
{
    *cc = xasprintf("%s/s_counter_collection.csv", dir);
    *kt = xasprintf("%s/s_kernel_trace.csv", dir);
    FILE *c = fopen(*cc, "w"), *t = fopen(*kt, "w");
    assert_non_null(c);
    assert_non_null(t);
    fputs(ktw_counter_header, c);
    fputs(ktw_kernel_trace_header, t);
    static const uint64_t dur[11] = { 1000, 1000, 3500, 2000, 3500, 3500, 3500,
                                      3000, 2500, 3500, 3000 };   /* Σ 30,000 */
    static const int prof[11] = { 0, 1, -1, 2, -1, -1, -1, 3, 4, -1, -1 };
    static const double inst[5] = { 10, 12, 20, 26, 23 }, cyc[5] = { 10, 12, 21, 30, 24 };
    struct ktw_kernel k;
    uint64_t t0 = 1000000, id = 0;
    for (int i = 0; i < 11; i++) {
        row(&k, "k1(int)", ++id, t0, dur[i], 128);
        ktw_write_trace_row(t, &k);
        if (prof[i] >= 0) {
            ktw_write_counter_row(c, &k, 7, "inst.sum", inst[prof[i]]);
            ktw_write_counter_row(c, &k, 7, "sm__cycles_elapsed.sum", cyc[prof[i]]);
            ktw_write_counter_row(c, &k, 7, "gpu__time_duration.sum", (double)dur[i]);
        }
        t0 += 10000;
        if (i % 4 == 0) {   /* k2 in between */
            row(&k, "k2(int)", ++id, t0, 500, 32);
            ktw_write_trace_row(t, &k);
            t0 += 10000;
        }
    }
    fclose(c);
    fclose(t);
}

static uint32_t kernel(const struct rp_agg *a, const char *name)
{
    for (uint32_t k = 0; k < a->kn.n; k++)
        if (!strcmp(a->kn.str[k], name))
            return k;
    fail_msg("kernel %s not read", name);
    return 0;
}

static uint32_t counter(const struct rp_agg *a, const char *name)
{
    for (uint32_t c = 0; c < a->cn.n; c++)
        if (!strcmp(a->cn.str[c], name))
            return c;
    fail_msg("counter %s not read", name);
    return 0;
}

/* Units seen only in the trace (every launch of them without counters: on
 * the H200, user ranges dropped with a NaN value or a module load) are made
 * while the trace is read, after the samples; many of them move the unit
 * array (ResNet-18's sampled run crashed analyze there, SIGSEGV). */
static void test_trace_only_units(void **state)
{
    (void)state;
    struct xp_sampling s = { { 2, 3, 0, 1 }, XP_UNIT_SIGNATURE, true, false };
    struct xp_set *e = xp_set_new(&s);
    uint32_t smp = xp_add_sample(e, 0, 64, 128, 0, 1, 1000);
    xp_add_value(e, smp, 0, 42);
    xp_add_trace(e, 0, 64, 128, 0, 1, 1000);
    for (uint32_t k = 1; k <= 300; k++)   /* 300 units without a profiled launch */
        xp_add_trace(e, k, 64, 128, 0, 1 + k, 500);
    const char *const counters[] = { "inst.sum" };
    struct xp_out o;
    xp_finish(e, 301, 1, 1, counters, &o);
    assert_int_equal(o.launches[0], 1);
    assert_int_equal(o.profiled[0], 1);
    CLOSE(o.total[0], 42, 0);
    assert_int_equal(o.uncounted, 300);
    CLOSE(o.uncounted_ns, 300 * 500.0, 0);
    assert_int_equal(o.uncounted_k[300], 1);
    assert_int_equal(o.launches[300], 0);   /* counted as launches without counters */
    assert_int_equal(o.profiled[300], 0);
    xp_out_release(&o);
    xp_set_free(e);
}

static void test_reader_sampled(void **state)
{
    (void)state;
    char *dir = tmpdir_new("sampling"), *cc, *kt;
    write_sampled_set(dir, &cc, &kt);
    struct xp_sampling s = { { 2, 3, 0, 1 }, XP_UNIT_SIGNATURE, true, false };
    struct rp_agg a;
    assert_int_equal(rp_agg_read_set(&a, cc, kt, NULL, &s), 0);
    uint32_t k1 = kernel(&a, "k1(int)"), k2 = kernel(&a, "k2(int)");
    size_t ii = (size_t)k1 * a.ccap + counter(&a, "inst.sum");
    size_t ic = (size_t)k1 * a.ccap + counter(&a, "sm__cycles_elapsed.sum");
    assert_int_equal(a.launches[k1], 11);
    assert_int_equal(a.profiled[k1], 5);
    CLOSE(a.dur[k1], 30000, 0);
    CLOSE(a.csum[ii], 229, 1e-9);          /* test_stratified */
    CLOSE(a.cvar[ii], 243, 1e-9);
    CLOSE(a.csum[ic], 302, 1e-9);          /* test_ratio: elapsed cycles scale with time */
    CLOSE(a.cvar[ic], 41.813333333333, 1e-9);
    assert_int_equal(a.crows[ii], 5);
    assert_int_equal(a.uncounted_launches, 3);   /* k2: no profiled launch at all */
    assert_int_equal(a.uncounted[k2], 3);
    assert_int_equal(a.launches[k2], 0);
    assert_int_equal(a.trace_launches, 14);
    rp_agg_release(&a);

    /* launch-event durations (libbenchrun-cupti): elapsed cycles scale by
     * launches too, 22 + 9·(21 + 30 + 24)/3 = 247 */
    s.kernel_times = false;
    assert_int_equal(rp_agg_read_set(&a, cc, kt, NULL, &s), 0);
    k1 = kernel(&a, "k1(int)");
    CLOSE(a.csum[(size_t)k1 * a.ccap + counter(&a, "sm__cycles_elapsed.sum")], 247, 1e-9);
    CLOSE(a.csum[(size_t)k1 * a.ccap + counter(&a, "inst.sum")], 229, 1e-9);
    /* kernel time: gpu__time_duration.sum's estimate, not the events' 30,000:
     * 1000 + 1000 + 9·(2000 + 3000 + 2500)/3 = 24,500 */
    CLOSE(a.dur[k1], 24500, 1e-9);
    rp_agg_release(&a);
    s.kernel_times = true;

    /* the same files read as a full collection: plain sums, 6 launches lost */
    assert_int_equal(rp_agg_read_set(&a, cc, kt, NULL, NULL), 0);
    k1 = kernel(&a, "k1(int)");
    ii = (size_t)k1 * a.ccap + counter(&a, "inst.sum");
    CLOSE(a.csum[ii], 10 + 12 + 20 + 26 + 23, 0);
    assert_int_equal(a.launches[k1], 5);
    assert_int_equal(a.uncounted_launches, 9);
    assert_null(a.cvar);
    rp_agg_release(&a);

    /* sampled without its trace: the profiled sums, and a warning */
    assert_int_equal(rp_agg_read_set(&a, cc, NULL, NULL, &s), 0);
    assert_non_null(strstr(a.warn.buf, "without its kernel trace"));
    k1 = kernel(&a, "k1(int)");
    CLOSE(a.csum[(size_t)k1 * a.ccap + counter(&a, "inst.sum")], 91, 0);
    rp_agg_release(&a);
    free(cc);
    free(kt);
    assert_int_equal(tmpdir_remove(dir), 0);
    free(dir);
}

/* One signature "gemm", two parameter keys (two GEMM shapes under one
 * kernel, grid and block, as cuBLAS's nvjet kernels in a transformer step):
 * shape A does 100 units of work, shape B 1000, launched A B B A B B ...
 * (10 A, 20 B). The writer ranks each shape in its own unit and profiles
 * what the plan picks there (first 2, then one in every 3); launch_units.csv
 * names each launch's unit. */
static void write_keyed_set(const char *dir, const struct lp_plan *plan, char **cc, char **kt,
                            char **units)
{
    *cc = xasprintf("%s/g_counter_collection.csv", dir);
    *kt = xasprintf("%s/g_kernel_trace.csv", dir);
    *units = xasprintf("%s/g_launch_units.csv", dir);
    FILE *c = fopen(*cc, "w"), *t = fopen(*kt, "w"), *u = fopen(*units, "w");
    assert_non_null(c);
    assert_non_null(t);
    assert_non_null(u);
    fputs(ktw_counter_header, c);
    fputs(ktw_kernel_trace_header, t);
    fputs("Dispatch_Id,Launch_Unit\n", u);
    uint64_t rank[2] = { 0, 0 }, t0 = 1000000;
    for (uint64_t id = 1; id <= 30; id++) {
        int shape = id % 3 == 1 ? 0 : 1;
        struct ktw_kernel k;
        row(&k, "gemm", id, t0, shape ? 5000 : 500, 132);
        ktw_write_trace_row(t, &k);
        fprintf(u, "%llu,%d\n", (unsigned long long)id, shape + 7);
        if (lp_profiled(plan, ++rank[shape]))
            ktw_write_counter_row(c, &k, 7, "inst.sum", shape ? 1000 : 100);
        t0 += 10000;
    }
    fclose(c);
    fclose(t);
    fclose(u);
}

/* The set (cc, kt) read with `units` holding `text`: rp_agg_read_set's
 * result; on an error, the message must contain `want` (NULL: no error). */
static int read_with_units(const char *cc, const char *kt, const char *units,
                           const struct xp_sampling *s, const char *text, const char *want)
{
    FILE *u = fopen(units, "w");
    assert_non_null(u);
    fputs(text, u);
    fclose(u);
    struct rp_agg a;
    int rc = rp_agg_read_set(&a, cc, kt, units, s);
    if (want) {
        assert_non_null(a.err);
        assert_non_null(strstr(a.err, want));
    }
    rp_agg_release(&a);
    return rc;
}

static void test_reader_units(void **state)
{
    (void)state;
    char *dir = tmpdir_new("units"), *cc, *kt, *units;
    struct xp_sampling s = { { 2, 3, 0, 1 }, XP_UNIT_SIGNATURE, true, false };
    write_keyed_set(dir, &s.plan, &cc, &kt, &units);
    struct rp_agg a;
    /* with the units: each shape is its own unit of constant work, exact */
    assert_int_equal(rp_agg_read_set(&a, cc, kt, units, &s), 0);
    uint32_t g = kernel(&a, "gemm");
    size_t at = (size_t)g * a.ccap + counter(&a, "inst.sum");
    assert_int_equal(a.launches[g], 30);
    CLOSE(a.csum[at], 10 * 100 + 20 * 1000, 1e-12);
    CLOSE(a.cvar[at], 0, 0);
    uint64_t profiled = a.profiled[g];
    rp_agg_release(&a);
    /* without them the launches are ranked as one unit the plan did not
     * sample: the same rows give another total (which is why the file is
     * written): 19,936.4 here, -5.1 % */
    assert_int_equal(rp_agg_read_set(&a, cc, kt, NULL, &s), 0);
    g = kernel(&a, "gemm");
    at = (size_t)g * a.ccap + counter(&a, "inst.sum");
    assert_int_equal(a.profiled[g], profiled);
    assert_true(fabs(a.csum[at] - 21000) > 210);
    rp_agg_release(&a);
    /* read as a full collection: the units file changes nothing */
    assert_int_equal(rp_agg_read_set(&a, cc, kt, units, NULL), 0);
    rp_agg_release(&a);

    /* a bad row: file and line named, nothing read */
    FILE *u = fopen(units, "a");
    assert_non_null(u);
    fputs("31,x\n", u);
    fclose(u);
    assert_int_equal(rp_agg_read_set(&a, cc, kt, units, &s), -1);
    char *want = xasprintf("%s:32: expected two unsigned numbers", units);
    assert_non_null(a.err);
    assert_non_null(strstr(a.err, want));
    free(want);
    rp_agg_release(&a);
    /* another header */
    assert_int_equal(read_with_units(cc, kt, units, &s, "Dispatch,Unit\n1,2\n",
                                     ":1: not the header Dispatch_Id,Launch_Unit"), -1);
    /* a unit past 32 bits (the library writes an index + 1) */
    assert_int_equal(read_with_units(cc, kt, units, &s, "Dispatch_Id,Launch_Unit\n1,4294967296\n",
                                     ":2: Launch_Unit above 4294967295"), -1);
    /* cut short by a kill: the rows before the cut count */
    assert_int_equal(read_with_units(cc, kt, units, &s, "Dispatch_Id,Launch_Unit\n1,7\n2,8", NULL), 0);
    free(cc);
    free(kt);
    free(units);
    assert_int_equal(tmpdir_remove(dir), 0);
    free(dir);
}

/* ---- launch_sampling.json ------------------------------------------------------ */

static void test_sampfile(void **state)
{
    (void)state;
    struct xp_sampling s = { { 10, 50, 20, 1 }, XP_UNIT_KERNEL, false, false }, r;
    bool sampled = false;
    char *text = sf_format(&s, "rocprofv3");
    assert_int_equal(sf_parse("x.json", text, strlen(text), &sampled, &r), 0);
    assert_true(sampled);
    assert_int_equal(r.plan.every, 50);
    assert_int_equal(r.plan.blocks_per_phase, 20);
    assert_int_equal(r.unit, XP_UNIT_KERNEL);
    assert_false(r.kernel_times);   /* "launch events" */
    free(text);
    text = sf_format(NULL, NULL);
    assert_int_equal(sf_parse("x.json", text, strlen(text), &sampled, &r), 0);
    assert_false(sampled);
    free(text);
    static const char *const bad[] = {
        "[]", "{}", "{\"launches\": \"some\"}", "not json",
        "{\"launches\": \"sampled\", \"every\": 5, \"blocks_per_phase\": 1, \"seed\": 1, \"unit\": \"kernel\"}",
        "{\"launches\": \"sampled\", \"first\": 1, \"every\": 0, \"blocks_per_phase\": 1, \"seed\": 1, \"unit\": \"kernel\"}",
        "{\"launches\": \"sampled\", \"first\": 1, \"every\": 2, \"blocks_per_phase\": 1, \"seed\": 1, \"unit\": \"grid\"}",
        "{\"launches\": \"sampled\", \"first\": -1, \"every\": 2, \"blocks_per_phase\": 1, \"seed\": 1, \"unit\": \"kernel\"}",
        NULL };
    for (int i = 0; bad[i]; i++) {
        sb_reset(&g_msgs);
        assert_int_equal(sf_parse("bad.json", bad[i], strlen(bad[i]), &sampled, &r), -1);
        assert_non_null(strstr(g_msgs.buf, "bad.json"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_strata),
        cmocka_unit_test(test_plan_blocks),
        cmocka_unit_test(test_plan_parse),
        cmocka_unit_test_setup_teardown(test_rocprof_iterations, msgcap_setup, msgcap_teardown),
        cmocka_unit_test(test_stratified),
        cmocka_unit_test(test_ratio),
        cmocka_unit_test(test_empty_stratum),
        cmocka_unit_test(test_census_and_edges),
        cmocka_unit_test(test_t975),
        cmocka_unit_test(test_time_proportional),
        cmocka_unit_test(test_trace_only_units),
        cmocka_unit_test(test_reader_sampled),
        cmocka_unit_test(test_reader_units),
        cmocka_unit_test_setup_teardown(test_sampfile, msgcap_setup, msgcap_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
