/* test_nvtrace.c - known answers for the NVIDIA collector's pure logic:
 * rocprofv3 7.x row writing (ktrace_write), CUPTI→boottime clock conversion
 * (clockconv) and single-pass grouping (passgroup). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/clockconv.h"
#include "trace/copytrace.h"
#include "trace/ktrace_write.h"
#include "trace/passgroup.h"
#include "util/error.h"

static struct ktw_kernel axpy_kernel(void)
{
    struct ktw_kernel k = {
        .name = "axpy(int, float, float const*, float*)", .kernel_id = 3, .dispatch_id = 7,
        .correlation_id = 42, .agent = 1, .stream_id = 13, .thread_id = 0,
        .start_ns = 1550151853029637ull, .end_ns = 1550151853042437ull,
        .lds_bytes = 2048, .scratch_bytes = 16, .vgpr = 32,
        .block = { 256, 1, 1 }, .grid = { 4096, 2, 1 },
    };
    return k;
}

static char *write_to_string(int counter)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct ktw_kernel k = axpy_kernel();
    if (counter)
        assert_int_equal(ktw_write_counter_row(fp, &k, 15606, "SQ_WAVES", 16384.0), 0);
    else
        assert_int_equal(ktw_write_trace_row(fp, &k), 0);
    fclose(fp);
    return buf;
}

static int count_fields(const char *line)
{
    int n = 1, q = 0;
    for (; *line && *line != '\n'; line++) {
        if (*line == '"')
            q = !q;
        else if (*line == ',' && !q)
            n++;
    }
    return n;
}

static void test_trace_row(void **state)
{
    (void)state;
    char *s = write_to_string(0);
    assert_string_equal(s, "\"KERNEL_DISPATCH\",\"Agent 1\",13,13,0,7,3,"
                           "\"axpy(int, float, float const*, float*)\",42,"
                           "1550151853029637,1550151853042437,2048,16,32,0,0,256,1,1,"
                           "1048576,2,1\n");
    assert_int_equal(count_fields(s), KTW_TRACE_COLS);
    assert_int_equal(count_fields(ktw_kernel_trace_header), KTW_TRACE_COLS);
    free(s);
}

static void test_counter_row(void **state)
{
    (void)state;
    char *s = write_to_string(1);
    /* Same shape as the rocprofv3 7.0 sample row in rocprofv3-formats.md. */
    assert_string_equal(s, "42,7,\"Agent 1\",13,15606,0,2097152,3,"
                           "\"axpy(int, float, float const*, float*)\",256,2048,16,32,0,0,"
                           "\"SQ_WAVES\",16384.000000,1550151853029637,1550151853042437\n");
    assert_int_equal(count_fields(s), KTW_COUNTER_COLS);
    assert_int_equal(count_fields(ktw_counter_header), KTW_COUNTER_COLS);
    free(s);
}

/* memory_copy_trace.csv rows: rocprofv3 7.x columns + Bytes (copytrace.h);
 * a host-to-device copy of 1 GiB on stream 7, a set, and unknown bytes. */
static void test_copy_rows(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    struct ct_copy h2d = { CT_H2D, CT_HOST, 0, 7, 51, 1000, 20001000, 1073741824 };
    struct ct_copy set = { CT_SET, 1, 1, 0, 52, 5, 9, 4096 };
    struct ct_copy d2d = { CT_D2D, 0, 1, 3, 53, 10, 20, CT_BYTES_UNKNOWN };
    assert_int_equal(ct_write_row(fp, &h2d), 0);
    assert_int_equal(ct_write_row(fp, &set), 0);
    assert_int_equal(ct_write_row(fp, &d2d), 0);
    fclose(fp);
    assert_string_equal(buf,
        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",7,\"Host\",\"Agent 0\",51,1000,20001000,1073741824\n"
        "\"MEMORY_SET\",\"MEMORY_SET_DEVICE\",0,\"Agent 1\",\"Agent 1\",52,5,9,4096\n"
        "\"MEMORY_COPY\",\"MEMORY_COPY_DEVICE_TO_DEVICE\",3,\"Agent 0\",\"Agent 1\",53,10,20,\n");
    assert_int_equal(count_fields(ct_header), 9);
    assert_int_equal(count_fields(buf), 9);
    assert_string_equal(ct_dir_label(CT_D2H), "D2H");
    assert_string_equal(ct_dir_name(CT_NDIR), "");
    free(buf);
}

static void test_value_format(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(ktw_format_value(b, sizeof(b), 16384.0), "16384.000000");
    assert_string_equal(ktw_format_value(b, sizeof(b), 1.0), "1.000000");
    assert_string_equal(ktw_format_value(b, sizeof(b), 0.168555351), "1.68555351e-01");
    assert_string_equal(ktw_format_value(b, sizeof(b), 0.0), "0.00000000e+00");
    assert_string_equal(ktw_format_value(b, sizeof(b), NAN), "nan");
}

/* A fake pair of clocks: boot = src × (1 + 50 ppm) + 1e9, read with 100 ns brackets. */
struct fake_clock {
    uint64_t src, calls;
};

static uint64_t fake_src(void *ctx)
{
    struct fake_clock *f = ctx;
    return f->src;
}

static uint64_t fake_boot(void *ctx)
{
    struct fake_clock *f = ctx;
    /* first call of a bracket: 100 ns before, second: 100 ns after (3rd try tighter) */
    uint64_t truth = f->src + f->src / 20000 + 1000000000ull;
    uint64_t w = (f->calls / 2 == 2) ? 10 : 100;
    return (f->calls++ % 2 == 0) ? truth - w : truth + w;
}

static void test_clock_measure(void **state)
{
    (void)state;
    struct fake_clock f = { 2000000000ull, 0 };
    struct clk_point p = clk_measure(fake_src, fake_boot, &f, 5);
    assert_int_equal(p.src_ns, 2000000000ull);
    assert_int_equal(p.boot_ns, 2000000000ull + 100000ull + 1000000000ull);
    assert_int_equal(p.err_ns, 10);   /* the narrowest bracket was kept */
}

static void test_clock_convert(void **state)
{
    (void)state;
    struct clk_conv c;
    clk_conv_init(&c);
    assert_int_equal(clk_conv_to_boot(&c, 123), 123);   /* no point: identity */
    /* offset 1 s at src = 1e9; 1 s + 50 µs at src = 2e9 (drift 50 ppm). */
    assert_int_equal(clk_conv_add(&c, (struct clk_point){ 1000000000ull, 2000000000ull, 5 }), 0);
    assert_int_equal(clk_conv_to_boot(&c, 1500000000ull), 2500000000ull);   /* one point */
    assert_int_equal(clk_conv_add(&c, (struct clk_point){ 2000000000ull, 3000050000ull, 5 }), 0);
    assert_int_equal(clk_conv_add(&c, (struct clk_point){ 2000000000ull, 1, 0 }), -1);
    assert_true(fabs(clk_conv_drift_ppm(&c) - 50.0) < 1e-9);
    assert_int_equal(clk_conv_to_boot(&c, 1000000000ull), 2000000000ull);
    assert_int_equal(clk_conv_to_boot(&c, 1500000000ull), 2500025000ull);   /* interpolated */
    assert_int_equal(clk_conv_to_boot(&c, 3000000000ull), 4000100000ull);   /* extrapolated */
    assert_int_equal(clk_conv_to_boot(&c, 500000000ull), 1499975000ull);
    /* A third point with another slope: piecewise. */
    assert_int_equal(clk_conv_add(&c, (struct clk_point){ 3000000000ull, 4000050000ull, 5 }), 0);
    assert_int_equal(clk_conv_to_boot(&c, 2500000000ull), 3500050000ull);
    assert_true(fabs(clk_conv_drift_ppm(&c) - 25.0) < 1e-9);
    clk_conv_release(&c);
}

/* Fake oracle: metrics whose name starts with "sass" fit 2 per pass, others 3
 * per pass, and sass and others never share a pass; "bad" is unknown, "huge"
 * needs 2 passes alone. */
static int fake_passes(void *ctx, const char *const *names, size_t n, size_t *passes)
{
    (void)ctx;
    size_t sass = 0, other = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], "bad") == 0)
            return -1;
        if (strcmp(names[i], "huge") == 0)
            other += 4;
        else if (strncmp(names[i], "sass", 4) == 0)
            sass++;
        else
            other++;
    }
    *passes = (sass + 1) / 2 + (other + 2) / 3;
    return 0;
}

static void sink(void *ctx, int warn, const char *msg)
{
    (void)warn;
    snprintf(ctx, 256, "%s", msg);
}

static void test_group(void **state)
{
    (void)state;
    const char *names[] = { "sass1", "sass2", "sass3", "a", "b", "c", "d" };
    struct pg_groups g;
    assert_int_equal(pg_group(names, 7, fake_passes, NULL, &g), 0);
    assert_int_equal(g.ngroups, 4);   /* {sass1 sass2} {sass3} {a b c} {d} */
    size_t want_start[] = { 0, 2, 3, 6, 7 };
    for (size_t i = 0; i <= 4; i++)
        assert_int_equal(g.start[i], want_start[i]);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(g.order[i], i);
    pg_groups_release(&g);
    char msg[256] = "";
    br_error_set_sink(sink, msg);
    const char *bad[] = { "a", "bad" };
    assert_int_equal(pg_group(bad, 2, fake_passes, NULL, &g), -1);
    assert_non_null(strstr(msg, "'bad' is not known"));
    const char *huge[] = { "huge" };
    assert_int_equal(pg_group(huge, 1, fake_passes, NULL, &g), -1);
    assert_non_null(strstr(msg, "needs 2 hardware passes"));
    br_error_set_sink(NULL, NULL);
    assert_int_equal(pg_group(names, 0, fake_passes, NULL, &g), 0);
    assert_int_equal(g.ngroups, 0);
    pg_groups_release(&g);
}

static void test_base_name(void **state)
{
    (void)state;
    char *b = pg_base_name("dram__bytes_read.sum.per_second");
    assert_string_equal(b, "dram__bytes_read");
    free(b);
    b = pg_base_name("sm__cycles_active");
    assert_string_equal(b, "sm__cycles_active");
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_row),     cmocka_unit_test(test_counter_row),
        cmocka_unit_test(test_copy_rows),
        cmocka_unit_test(test_value_format),  cmocka_unit_test(test_clock_measure),
        cmocka_unit_test(test_clock_convert), cmocka_unit_test(test_group),
        cmocka_unit_test(test_base_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
