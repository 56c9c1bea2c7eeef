/* test_rptoggle.c - the range profiler's calls per launch in each toggle mode
 * (trace/rptoggle.h): a sampled pass's launch sequence run through each mode,
 * the CUPTI calls counted against counts worked out by hand (in the comments),
 * and the edge rules (busy while a range is open, flushes, late launches, the
 * startstop fallback). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "trace/rptoggle.h"

enum { C_SYNC, C_POP, C_STOP, C_DECODE, C_INIT, C_START, C_PUSH, C_BUSY, NC };

/* Runs steps in bit order, counting each, as rangeprof.c does. */
static void run(struct rpt_state *s, unsigned steps, unsigned counts[NC])
{
    for (unsigned b = 0; b < NC; b++) {
        if (!(steps & (1u << b)))
            continue;
        counts[b]++;
        rpt_apply(s, 1u << b);
    }
}

/* Launches 1..n, profiled where want[i] (1-based); the image decoded at limit. */
static void pass(enum rpt_mode mode, const char *want, size_t limit, unsigned counts[NC])
{
    struct rpt_state s;
    rpt_init(&s, mode);
    memset(counts, 0, NC * sizeof(*counts));
    for (const char *w = want; *w; w++) {
        if (*w == 'P') {
            unsigned st = rpt_profiled(&s, limit);
            run(&s, st, counts);
            if (st & RPT_BUSY)
                continue;
            rpt_count(&s);
            run(&s, rpt_launch_done(&s, false), counts);
        } else {
            run(&s, rpt_unprofiled(&s), counts);
        }
    }
    run(&s, rpt_finish(&s), counts);
}

/* 12 launches, profiled 1-3, 7, 10-11: three stretches, six profiled launches. */
static const char *const seq = "PPP...P..PP.";

static void expect(const unsigned got[NC], unsigned sync, unsigned pop, unsigned stop,
                   unsigned decode, unsigned init, unsigned start, unsigned push)
{
    assert_int_equal(got[C_SYNC], sync);
    assert_int_equal(got[C_POP], pop);
    assert_int_equal(got[C_STOP], stop);
    assert_int_equal(got[C_DECODE], decode);
    assert_int_equal(got[C_INIT], init);
    assert_int_equal(got[C_START], start);
    assert_int_equal(got[C_PUSH], push);
    assert_int_equal(got[C_BUSY], 0);
}

/* The counts worked out by hand for seq, per mode and image limit. */
static const struct {
    enum rpt_mode mode;
    size_t limit;
    unsigned sync, pop, stop, decode, init, start, push;
} passes[] = {
    /* each stretch initialized+started at its first launch, stopped+decoded at
     * the next unprofiled one (launches 4, 8, 12): 3 of each */
    { RPT_FULL, 4, 0, 0, 3, 3, 3, 3, 0 },
    /* limit 2: launch 3 finds 2 ranges: one decode and re-arm more */
    { RPT_FULL, 2, 0, 0, 4, 4, 4, 4, 0 },
    /* init+start at 1; stop at 4; start at 7 (4 ranges); stop at 8; at 10 the
     * image is full: decode, init, start; stop at 12; decode at the end */
    { RPT_STARTSTOP, 4, 0, 0, 3, 2, 2, 3, 0 },
    /* a large image: one init, one decode at the end */
    { RPT_STARTSTOP, 100, 0, 0, 3, 1, 1, 3, 0 },
    /* started once at 1 and kept; a push and a pop per profiled launch, each
     * after a sync; at 10 the image holds 4: stop, decode, init, start; the
     * end: stop, decode */
    { RPT_USER, 4, 12, 6, 2, 2, 2, 2, 6 },
    { RPT_USER_ASYNC, 4, 0, 6, 2, 2, 2, 2, 6 },
    { RPT_USER, 100, 12, 6, 1, 1, 1, 1, 6 },
};

static void test_passes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(passes) / sizeof(*passes); i++) {
        unsigned c[NC];
        pass(passes[i].mode, seq, passes[i].limit, c);
        expect(c, passes[i].sync, passes[i].pop, passes[i].stop, passes[i].decode,
               passes[i].init, passes[i].start, passes[i].push);
    }
}

static void test_busy_and_failed(void **state)
{
    (void)state;
    struct rpt_state s;
    unsigned c[NC] = { 0 };
    rpt_init(&s, RPT_USER);
    run(&s, rpt_profiled(&s, 8), c);
    rpt_count(&s);
    assert_true(s.pushed);
    /* another thread's launch while the range is open */
    assert_int_equal(rpt_profiled(&s, 8), RPT_BUSY);
    assert_int_equal(rpt_flush(&s), 0);
    /* the launch failed: popped without a sync, the (empty) range stays counted */
    assert_int_equal(rpt_launch_done(&s, true), RPT_POP);
    run(&s, RPT_POP, c);
    rpt_uncount_failed(&s);
    assert_int_equal(s.in_image, 1);
    assert_int_equal(rpt_launch_done(&s, false), 0);   /* nothing open */
    /* auto range: a failed launch made no range */
    rpt_init(&s, RPT_FULL);
    run(&s, rpt_profiled(&s, 8), c);
    rpt_count(&s);
    rpt_uncount_failed(&s);
    assert_int_equal(s.in_image, 0);
    rpt_uncount_failed(&s);
    assert_int_equal(s.in_image, 0);
}

static void test_flush_finish_late(void **state)
{
    (void)state;
    struct rpt_state s;
    unsigned c[NC] = { 0 };
    rpt_init(&s, RPT_STARTSTOP);
    assert_int_equal(rpt_flush(&s), 0);                  /* nothing configured */
    assert_int_equal(rpt_finish(&s), 0);
    assert_false(rpt_count_late(&s));                    /* not started */
    run(&s, rpt_profiled(&s, 8), c);
    rpt_count(&s);
    assert_true(rpt_count_late(&s));                     /* started: a range */
    assert_int_equal(s.in_image, 2);
    assert_int_equal(rpt_flush(&s), RPT_STOP | RPT_DECODE);
    run(&s, rpt_unprofiled(&s), c);
    assert_int_equal(rpt_flush(&s), RPT_DECODE);         /* stopped, not decoded */
    assert_int_equal(rpt_finish(&s), RPT_DECODE);
    run(&s, rpt_flush(&s), c);
    assert_int_equal(rpt_finish(&s), 0);
    assert_int_equal(rpt_profiled(&s, 8), RPT_INIT | RPT_START);
    /* full never defers */
    rpt_init(&s, RPT_FULL);
    run(&s, rpt_profiled(&s, 8), c);
    rpt_count(&s);
    assert_int_equal(rpt_flush(&s), 0);
    assert_int_equal(rpt_finish(&s), RPT_STOP | RPT_DECODE);
    /* user ranges: late launches are outside any range; the end pops first */
    rpt_init(&s, RPT_USER_ASYNC);
    run(&s, rpt_profiled(&s, 8), c);
    assert_false(rpt_count_late(&s));
    assert_int_equal(rpt_finish(&s), RPT_POP | RPT_STOP | RPT_DECODE);
}

static void test_start_fallback(void **state)
{
    (void)state;
    struct rpt_state s;
    unsigned c[NC] = { 0 };
    rpt_init(&s, RPT_STARTSTOP);
    run(&s, rpt_profiled(&s, 8), c);
    assert_int_equal(rpt_start_failed(&s), 0);   /* the first start of an image: no retry */
    rpt_count(&s);
    run(&s, rpt_unprofiled(&s), c);
    unsigned st = rpt_profiled(&s, 8);
    assert_int_equal(st, RPT_START);
    /* the restart failed: decode what the image holds, init, start; full from now on */
    assert_int_equal(rpt_start_failed(&s), RPT_DECODE | RPT_INIT | RPT_START);
    assert_int_equal(s.mode, RPT_FULL);
    assert_int_equal(s.fallbacks, 1);
    run(&s, RPT_DECODE | RPT_INIT | RPT_START, c);
    assert_int_equal(rpt_unprofiled(&s), RPT_STOP | RPT_DECODE);
    assert_int_equal(rpt_start_failed(&s), 0);
}

static void test_range_names(void **state)
{
    (void)state;
    char buf[40];
    uint64_t d = 0;
    rpt_range_name(buf, sizeof(buf), 20001, "_Z4axpyifPKfPf");
    assert_string_equal(buf, "20001:_Z4axpyifPKfPf");
    assert_true(rpt_range_dispatch(buf, &d));
    assert_int_equal(d, 20001);
    /* a long kernel name is cut, the number kept */
    rpt_range_name(buf, sizeof(buf), UINT64_MAX, "_ZN7cutlass6KernelINS_4gemm6kernel13GemmUniversal");
    assert_int_equal(strlen(buf), sizeof(buf) - 1);
    assert_true(rpt_range_dispatch(buf, &d));
    assert_true(d == UINT64_MAX);
    rpt_range_name(buf, sizeof(buf), 7, NULL);
    assert_string_equal(buf, "7:?");
    /* CUPTI's auto range names and malformed ones are not dispatch names */
    const char *const bad[] = { "0", "axpy", "12", ":5", "-3:k", " 3:k", "18446744073709551616:k",
                                "", NULL };
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        d = 99;
        assert_false(rpt_range_dispatch(bad[i], &d));
        assert_int_equal(d, 99);
    }
}

static void test_user_range_values(void **state)
{
    (void)state;
    /* the H200 case: 2,362 decoded for 2,000 pushed */
    assert_int_equal(rpt_ranges_kept(RPT_USER, 2362, 2000), 2000);
    assert_int_equal(rpt_ranges_kept(RPT_USER_ASYNC, 31, 16), 16);
    assert_int_equal(rpt_ranges_kept(RPT_USER, 12, 16), 12);   /* fewer: all of them */
    assert_int_equal(rpt_ranges_kept(RPT_FULL, 2362, 2000), 2362);   /* auto ranges: every kernel */
    assert_int_equal(rpt_ranges_kept(RPT_STARTSTOP, 5, 0), 5);
    assert_true(rpt_counter_spans_range(RPT_USER, "sm__cycles_elapsed.sum"));
    assert_true(rpt_counter_spans_range(RPT_USER, "gpc__cycles_elapsed.max"));
    assert_true(rpt_counter_spans_range(RPT_USER_ASYNC, "gpu__time_duration.sum"));
    assert_false(rpt_counter_spans_range(RPT_USER, "sm__cycles_active.sum"));
    assert_false(rpt_counter_spans_range(RPT_USER, "lts__t_bytes.sum"));
    assert_false(rpt_counter_spans_range(RPT_FULL, "sm__cycles_elapsed.sum"));
    assert_false(rpt_counter_spans_range(RPT_USER, NULL));
}

static void test_names(void **state)
{
    (void)state;
    enum rpt_mode m = RPT_USER;
    m = RPT_STARTSTOP;
    assert_int_equal(rpt_parse(NULL, false, &m), 0);
    assert_int_equal(m, RPT_FULL);   /* the default with every launch profiled */
    m = RPT_STARTSTOP;
    assert_int_equal(rpt_parse("", false, &m), 0);
    assert_int_equal(m, RPT_FULL);
    assert_int_equal(rpt_parse(NULL, true, &m), 0);
    assert_int_equal(m, RPT_USER);   /* ... and in sampled passes */
    assert_int_equal(rpt_default(true), RPT_USER);
    assert_int_equal(rpt_default(false), RPT_FULL);
    assert_int_equal(rpt_parse("full", true, &m), 0);
    assert_int_equal(m, RPT_FULL);
    const char *const all[] = { "full", "startstop", "user", "user-async" };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rpt_parse(all[i], i % 2 == 0, &m), 0);
        assert_int_equal(m, i);
        assert_string_equal(rpt_name(m), all[i]);
    }
    m = RPT_STARTSTOP;
    assert_int_equal(rpt_parse("light", false, &m), -1);
    assert_int_equal(rpt_parse("User", true, &m), -1);
    assert_int_equal(m, RPT_STARTSTOP);
    assert_false(rpt_user_ranges(RPT_STARTSTOP));
    assert_true(rpt_user_ranges(RPT_USER_ASYNC));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_passes),         cmocka_unit_test(test_busy_and_failed),
        cmocka_unit_test(test_flush_finish_late), cmocka_unit_test(test_start_fallback),
        cmocka_unit_test(test_range_names),    cmocka_unit_test(test_names),
        cmocka_unit_test(test_user_range_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
