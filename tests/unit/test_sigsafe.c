/* test_sigsafe.c - async-signal-safe formatting used by the CUPTI crash reporter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/sigsafe.h"

static void test_utoa_known(void **state)
{
    (void)state;
    char b[32];
    assert_int_equal(ss_utoa(b, sizeof(b), 0, 10), 1);
    assert_string_equal(b, "0");
    assert_int_equal(ss_utoa(b, sizeof(b), 139, 10), 3);
    assert_string_equal(b, "139");
    assert_int_equal(ss_utoa(b, sizeof(b), UINT64_MAX, 10), 20);
    assert_string_equal(b, "18446744073709551615");
    assert_int_equal(ss_utoa(b, sizeof(b), UINT64_MAX, 16), 16);
    assert_string_equal(b, "ffffffffffffffff");
    assert_int_equal(ss_utoa(b, sizeof(b), 0x7f3a12c0, 16), 8);
    assert_string_equal(b, "7f3a12c0");
}

static void test_utoa_limits(void **state)
{
    (void)state;
    char b[4];
    assert_int_equal(ss_utoa(b, sizeof(b), 999, 10), 3);   /* 3 digits + NUL fit */
    assert_string_equal(b, "999");
    assert_int_equal(ss_utoa(b, sizeof(b), 1000, 10), 0);  /* does not fit: "" */
    assert_string_equal(b, "");
    assert_int_equal(ss_utoa(b, sizeof(b), 7, 8), 0);      /* unsupported base */
    assert_string_equal(b, "");
    assert_int_equal(ss_utoa(b, 0, 7, 10), 0);
}

static void test_append(void **state)
{
    (void)state;
    char b[16];
    size_t len = 0;
    ss_append(&b[0], sizeof(b), &len, "sig ");
    ss_append_u(b, sizeof(b), &len, 11, 10);
    ss_append(b, sizeof(b), &len, " 0x");
    ss_append_u(b, sizeof(b), &len, 0xdead, 16);
    assert_string_equal(b, "sig 11 0xdead");
    assert_int_equal(len, 13);
    ss_append(b, sizeof(b), &len, "-overflowing");   /* cut at capacity - 1 */
    assert_int_equal(len, 15);
    assert_string_equal(b, "sig 11 0xdead-o");
    ss_append(b, sizeof(b), &len, NULL);
    assert_int_equal(len, 15);
}

static void test_write(void **state)
{
    (void)state;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    ss_write(fd[1], "crash report\n");
    ss_write(fd[1], NULL);
    close(fd[1]);
    char b[64] = { 0 };
    assert_int_equal(read(fd[0], b, sizeof(b) - 1), 13);
    assert_string_equal(b, "crash report\n");
    close(fd[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utoa_known),
        cmocka_unit_test(test_utoa_limits),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
