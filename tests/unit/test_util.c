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
#include "util/xalloc.h"

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
        cmocka_unit_test(test_shquote),
        cmocka_unit_test(test_path_join),
        cmocka_unit_test(test_atomic_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
