/* test_html.c - report.html helpers (src/write/wr_html.h): HTML escaping,
 * the NaN/number text and min/max decimation (known answers, NaN skipped,
 * single-point buckets, bound of 2 points per bucket, extremes kept). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/wr_html.h"

static char *escaped(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    wr_html_esc(fp, s);
    fclose(fp);
    return buf;
}

static void test_escape(void **state)
{
    (void)state;
    char *e = escaped("void k<float, 4>(a&b, \"q\", 'c')");
    assert_string_equal(e, "void k&lt;float, 4&gt;(a&amp;b, &quot;q&quot;, &#39;c&#39;)");
    free(e);
    e = escaped(NULL);
    assert_string_equal(e, "");
    free(e);
    e = escaped("plain \xc3\xa9");   /* UTF-8 passes through */
    assert_string_equal(e, "plain \xc3\xa9");
    free(e);
}

static void test_num(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(wr_html_num(NAN, b), "\xe2\x80\x94");
    assert_string_equal(wr_html_num(INFINITY, b), "\xe2\x80\x94");
    assert_string_equal(wr_html_num(1700, b), "1700");
    assert_string_equal(wr_html_num(3.14159, b), "3.142");
    assert_string_equal(wr_html_num(1.5e-7, b), "1.5e-07");
}

static void test_decimate_known(void **state)
{
    (void)state;
    double x[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    double y[10] = { 1, 5, 0, 3, 2, 7, 7, -1, 4, 9 };
    double ox[4], oy[4];
    /* bucket 0 = x in [0, 5): min (2, 0), max (1, 5); bucket 1: min (7, -1), max (9, 9) */
    size_t k = wr_decimate(x, y, 10, 0, 10, 2, ox, oy);
    assert_int_equal(k, 4);
    double wx[4] = { 1, 2, 7, 9 }, wy[4] = { 5, 0, -1, 9 };
    for (size_t i = 0; i < 4; i++) {
        assert_true(ox[i] == wx[i]);
        assert_true(oy[i] == wy[i]);
    }
    /* NaN samples are skipped; a constant bucket gives one point */
    double y2[10] = { NAN, 2, 2, 2, NAN, NAN, NAN, NAN, NAN, 3 };
    k = wr_decimate(x, y2, 10, 0, 10, 2, ox, oy);
    assert_int_equal(k, 2);
    assert_true(ox[0] == 1 && oy[0] == 2);
    assert_true(ox[1] == 9 && oy[1] == 3);
    /* nothing in, nothing out; points outside [x0, x1] go to the end buckets */
    assert_int_equal(wr_decimate(x, y, 0, 0, 10, 2, ox, oy), 0);
    k = wr_decimate(x, y, 10, 3, 4, 2, ox, oy);
    assert_true(k <= 4);
    assert_true(oy[0] == 0 || oy[1] == 0);
}

static void test_decimate_bound(void **state)
{
    (void)state;
    size_t n = 100000, nb = 1000;
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    double *ox = malloc(2 * nb * sizeof(double)), *oy = malloc(2 * nb * sizeof(double));
    assert_true(x && y && ox && oy);
    srand(3);
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)i * 1e-3;
        y[i] = 300 + rand() % 50;
    }
    y[31415] = 999;   /* one-sample spikes must survive */
    y[77777] = -5;
    size_t k = wr_decimate(x, y, n, 0, x[n - 1], nb, ox, oy);
    assert_true(k <= 2 * nb && k >= nb);
    double hi = -1e9, lo = 1e9;
    for (size_t i = 0; i < k; i++) {
        hi = fmax(hi, oy[i]), lo = fmin(lo, oy[i]);
        if (i)
            assert_true(ox[i] > ox[i - 1]);
    }
    assert_true(hi == 999 && lo == -5);
    free(x), free(y), free(ox), free(oy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_num),
        cmocka_unit_test(test_decimate_known),
        cmocka_unit_test(test_decimate_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
