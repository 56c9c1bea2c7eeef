/* test_rangeoffset.c - the offset of a user range's own work
 * (trace/rangeoffset.h): empty-range names, which counters take an offset,
 * the median per counter (NaN values left out), the subtraction with its
 * floor at 0; every expected value worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "trace/rangeoffset.h"
#include "trace/rptoggle.h"

static void test_names(void **state)
{
    (void)state;
    char buf[64];
    unsigned k = 99;
    uint64_t d;
    ro_range_name(buf, sizeof(buf), RO_EMPTY, 2);
    assert_string_equal(buf, "benchrun-empty:2");
    assert_int_equal(ro_range_kind(buf, &k), RO_EMPTY);
    assert_int_equal(k, 2);
    /* never a dispatch-numbered name: the join by dispatch id cannot take it */
    assert_false(rpt_range_dispatch(buf, &d));
    ro_range_name(buf, sizeof(buf), RO_WARMUP, 4000000000u);
    assert_string_equal(buf, "benchrun-warmup:4000000000");
    assert_int_equal(ro_range_kind(buf, &k), RO_WARMUP);
    assert_int_equal(k, 4000000000u);
    assert_false(rpt_range_dispatch(buf, &d));
    /* a launch's range, whatever else */
    k = 7;
    char launch[64];
    rpt_range_name(launch, sizeof(launch), 12, "benchrun-empty:1");
    assert_int_equal(ro_range_kind(launch, &k), RO_LAUNCH);
    assert_int_equal(ro_range_kind("benchrun-empty:", &k), RO_LAUNCH);
    assert_int_equal(ro_range_kind("benchrun-empty:1x", &k), RO_LAUNCH);
    assert_int_equal(ro_range_kind("benchrun-empty:-1", &k), RO_LAUNCH);
    assert_int_equal(ro_range_kind("benchrun-warmup:99999999999", &k), RO_LAUNCH);
    assert_int_equal(ro_range_kind("benchrun-warm:1", &k), RO_LAUNCH);
    assert_int_equal(ro_range_kind(NULL, &k), RO_LAUNCH);
    assert_int_equal(k, 7);   /* unchanged unless one of the two kinds */
}

static void test_counters(void **state)
{
    (void)state;
    assert_true(ro_counter_offset("lts__t_bytes.sum"));
    assert_true(ro_counter_offset("dram__bytes_read.sum"));
    assert_true(ro_counter_offset("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"));
    /* elapsed counters span the range: not written in user ranges, no offset */
    assert_false(ro_counter_offset("sm__cycles_elapsed.sum"));
    assert_false(ro_counter_offset("gpu__time_duration.sum"));
    /* not additive rollups */
    assert_false(ro_counter_offset("sm__warps_active.avg"));
    assert_false(ro_counter_offset("sm__cycles_active.max"));
    assert_false(ro_counter_offset("lts__t_bytes.sum.per_second"));
    assert_false(ro_counter_offset(".sum"));
    assert_false(ro_counter_offset(NULL));
}

static void test_offset_median(void **state)
{
    (void)state;
    const char *const counters[] = { "lts__t_bytes.sum", "dram__bytes_read.sum",
                                     "gpu__time_duration.sum", "sm__warps_active.avg",
                                     "smsp__inst_executed.sum" };
    /* three empty ranges x five counters */
    const double s[] = {
        59200, 0, 9000, 3, NAN,
        58880, 64, 8000, 4, NAN,
        59520, 32, 7000, 5, 12,
    };
    double off[5];
    /* lts: median of 59200, 58880, 59520 = 59200; dram: of 0, 64, 32 = 32;
     * time and .avg: none; inst: the one finite value, 12 */
    assert_int_equal(ro_offset(s, 3, 5, counters, off), 3);
    assert_float_equal(off[0], 59200, 0);
    assert_float_equal(off[1], 32, 0);
    assert_true(isnan(off[2]));
    assert_true(isnan(off[3]));
    assert_float_equal(off[4], 12, 0);
    /* an even number of finite values: the mean of the middle two; the
     * samples are left as they were */
    const double two[] = { 100, 0, 0, 0, NAN, 50, 0, 0, 0, NAN };
    assert_int_equal(ro_offset(two, 2, 5, counters, off), 2);
    assert_float_equal(off[0], 75, 0);
    assert_float_equal(two[0], 100, 0);
    assert_true(isnan(off[4]));   /* no finite value */
    /* no empty range at all: no offset */
    assert_int_equal(ro_offset(s, 0, 5, counters, off), 0);
    assert_true(isnan(off[0]) && isnan(off[1]) && isnan(off[4]));
}

static void test_subtract(void **state)
{
    (void)state;
    const double off[] = { 59200, 32, NAN, NAN, 12 };
    /* axpy's range, 1M floats: 16,707,456 L2 bytes under user ranges
     * - 59,200 = 16,648,256; dram 20 < 32: 0, floored; the time and the
     * .avg untouched; a NaN value stays NaN */
    double v[] = { 16707456, 20, 4500, 61.5, NAN };
    assert_int_equal(ro_subtract(v, off, 5), 1);
    assert_float_equal(v[0], 16648256, 0);
    assert_float_equal(v[1], 0, 0);
    assert_float_equal(v[2], 4500, 0);
    assert_float_equal(v[3], 61.5, 0);
    assert_true(isnan(v[4]));
    /* an infinite value is not a count: left for the non-finite check */
    double w[] = { INFINITY, 32, 1, 1, 12 };
    assert_int_equal(ro_subtract(w, off, 5), 0);
    assert_true(isinf(w[0]));
    assert_float_equal(w[1], 0, 0);   /* equal to its offset: 0, not floored */
    assert_float_equal(w[4], 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_offset_median),
        cmocka_unit_test(test_subtract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
