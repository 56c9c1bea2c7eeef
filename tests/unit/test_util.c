/* test_util.c - strbuf, shell quoting, paths and atomic writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/textesc.h"
#include "util/xalloc.h"

static char *esc_of(const char *s, size_t n, int utf8)
{
    struct strbuf sb;
    sb_init(&sb);
    if (utf8)
        esc_utf8(&sb, s, n);
    else
        esc_line_n(&sb, s, n);
    return sb_detach(&sb);
}

/* Known answers (Unicode 15 Table 3-7 for well-formed UTF-8). */
static void test_textesc(void **state)
{
    (void)state;
    static const struct { const char *in; size_t n; const char *line, *utf8; } k[] = {
        { "a\nb\tc\r", 6, "a\\nb\\tc\\r", "a\nb\tc\r" },
        { "x\x1f\x7f\\", 4, "x\\x1F\\x7F\\", "x\x1f\x7f\\" },
        { "caf\xc3\xa9", 5, "caf\xc3\xa9", "caf\xc3\xa9" },        /* é, valid */
        { "caf\xe9!", 5, "caf\xe9!", "caf\\xE9!" },                /* Latin-1 é */
        { "\xc0\xaf", 2, "\xc0\xaf", "\\xC0\\xAF" },               /* overlong '/' */
        { "\xed\xa0\x80", 3, "\xed\xa0\x80", "\\xED\\xA0\\x80" },  /* surrogate D800 */
        { "\xf4\x90\x80\x80", 4, "\xf4\x90\x80\x80", "\\xF4\\x90\\x80\\x80" },  /* > U+10FFFF */
        { "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },      /* U+1F600 */
        { "\xe2\x82", 2, "\xe2\x82", "\\xE2\\x82" },               /* cut short */
    };
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        char *a = esc_of(k[i].in, k[i].n, 0), *b = esc_of(k[i].in, k[i].n, 1);
        assert_string_equal(a, k[i].line);
        assert_string_equal(b, k[i].utf8);
        assert_int_equal(esc_utf8_valid(k[i].in, k[i].n), strcmp(k[i].in, k[i].utf8) == 0);
        free(a);
        free(b);
    }
    char *nul = esc_of("1\0" "2", 3, 0);          /* a NUL inside a number, shown */
    assert_string_equal(nul, "1\\x002");
    free(nul);
    json_t *j = esc_json_string("k\xff");
    assert_string_equal(json_string_value(j), "k\\xFF");
    json_decref(j);
    j = esc_json_string(NULL);
    assert_true(json_is_null(j));
    json_decref(j);
}

static void test_strbuf(void **state)
{
    (void)state;
    struct strbuf sb;
    sb_init(&sb);
    assert_string_equal(sb.buf, "");
    sb_adds(&sb, "a");
    sb_addf(&sb, "%d-%s", 42, "x");
    sb_addc(&sb, '!');
    assert_string_equal(sb.buf, "a42-x!");
    assert_int_equal(sb.len, 6);
    for (int i = 0; i < 1000; i++)
        sb_adds(&sb, "0123456789");
    assert_int_equal(sb.len, 10006);
    char *s = sb_detach(&sb);
    assert_int_equal(strlen(s), 10006);
    free(s);
    assert_string_equal(sb.buf, "");
    sb_release(&sb);
}

static void test_shquote(void **state)
{
    (void)state;
    struct strbuf sb;
    sb_init(&sb);
    const char *argv[] = { "srun", "-n", "2", "my app", "it's", "$HOME", "", NULL };
    sh_quote_argv(&sb, argv);
    assert_string_equal(sb.buf, "srun -n 2 'my app' 'it'\\''s' '$HOME' ''");
    sb_release(&sb);
}

static void test_path_join(void **state)
{
    (void)state;
    char *p = fs_path_join("/a/b/", "/c");
    assert_string_equal(p, "/a/b/c");
    free(p);
    p = fs_path_join("/", "x");
    assert_string_equal(p, "/x");
    free(p);
}

static void test_ends_with(void **state)
{
    (void)state;
    assert_true(fs_ends_with("run/p1_kernel_trace.csv", "kernel_trace.csv"));
    assert_true(fs_ends_with("a.csv", "a.csv"));
    assert_true(fs_ends_with("a.csv", ""));
    assert_false(fs_ends_with("csv", ".csv"));        /* shorter than the suffix */
    assert_false(fs_ends_with("a.csv.gz", ".csv"));
    assert_false(fs_ends_with("a.CSV", ".csv"));      /* case counts */
}

static void test_strv_has(void **state)
{
    (void)state;
    struct strv sv;
    strv_init(&sv);
    assert_false(strv_has(&sv, ""));                  /* empty list */
    strv_push(&sv, "SQ_WAVES");
    strv_push(&sv, "GRBM_COUNT");
    assert_true(strv_has(&sv, "GRBM_COUNT"));
    assert_false(strv_has(&sv, "GRBM"));              /* a prefix is not the string */
    assert_false(strv_has(&sv, "sq_waves"));          /* case counts */
    strv_release(&sv);
}

static void test_atomic_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/brutil.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *sub = fs_path_join(dir, "x/y/z");
    assert_int_equal(fs_mkdir_p(sub), 0);
    assert_true(fs_is_dir(sub));
    char *f = fs_path_join(sub, "f.txt");
    assert_int_equal(fs_write_atomic(f, "hello\n", 6), 0);
    size_t len;
    char *data = fs_read_file(f, &len);
    assert_non_null(data);
    assert_int_equal(len, 6);
    assert_string_equal(data, "hello\n");
    free(data);
    unlink(f);
    free(f);
    free(sub);
    assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_textesc),
        cmocka_unit_test(test_shquote),
        cmocka_unit_test(test_path_join),
        cmocka_unit_test(test_ends_with),
        cmocka_unit_test(test_strv_has),
        cmocka_unit_test(test_atomic_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
