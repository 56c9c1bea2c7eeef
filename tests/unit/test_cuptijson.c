/* test_cuptijson.c - the NVIDIA collector's companion JSON per pass: the
 * launch counts main's library writes (inject.c), launch sampling's per-kernel
 * kernels_without_counters, summed over processes, the message analyze
 * prints, files without those fields, and text that is not a JSON object. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "read/cuptijson.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "msgcap.h"
#include "tmpdir.h"

#include <stdlib.h>
#include <string.h>

/* Fields as libbenchrun-cupti writes them (src/trace/cupti/inject.c). */
static const char MAIN_JSON[] =
    "{\n  \"tool\": \"libbenchrun-cupti\",\n  \"pid\": 11,\n  \"mode\": \"counters\",\n"
    "  \"ranges\": 40,\n  \"ranges_dropped\": 0,\n  \"ranges_unmatched\": 1,\n"
    "  \"counter_rows\": 37,\n  \"launches_dropped\": 3,\n  \"launches_captured\": 2,\n"
    "  \"launches_reentrant\": 0,\n  \"memory_copies\": 4,\n"
    "  \"error\": \"cuptiProfilerPushRange: CUPTI_ERROR_INVALID_OPERATION\"\n}\n";
/* A later library's per-kernel reasons (launch sampling), and a second error. */
static const char KERNELS_JSON[] =
    "{\"launches_dropped\": 1, \"launches_failed\": 0, \"graph_launches_unprofiled\": 4,"
    " \"kernels_without_counters\": ["
    "{\"kernel\": \"gemm_fusion_dot_general_1\", \"launches\": 20, \"profiled\": 15,"
    " \"profiler_failed\": 1, \"graph_launches\": 4, \"captured\": 0, \"no_range\": 0},"
    "{\"kernel\": \"wrapped_subtract\", \"launches\": 3, \"profiled\": 1, \"captured\": 2},"
    "{\"launches\": 9}, 7],"
    " \"error\": \"second\"}";

static void test_sum_and_describe(void **state)
{
    (void)state;
    struct cj_pass cp;
    memset(&cp, 0, sizeof(cp));
    assert_int_equal(cj_add_text(&cp, "a_cupti.json", MAIN_JSON, strlen(MAIN_JSON)), 0);
    assert_int_equal(cj_add_text(&cp, "b_cupti.json", KERNELS_JSON, strlen(KERNELS_JSON)), 0);
    assert_int_equal(cp.files, 2);
    assert_int_equal(cp.dropped, 4);
    assert_int_equal(cp.captured, 2);
    assert_int_equal(cp.graph_unprofiled, 4);
    assert_int_equal(cp.ranges_unmatched, 1);
    assert_int_equal(cj_lost(&cp), 10);   /* 4 + 2 + 4 */
    assert_string_equal(cp.error, "cuptiProfilerPushRange: CUPTI_ERROR_INVALID_OPERATION");
    assert_int_equal(cp.nkernels, 2);     /* the entries without a name are skipped */
    assert_int_equal(cp.kernels[0].launches, 20);
    assert_int_equal(cp.kernels[0].nreasons, 2);
    char *m = cj_describe(&cp, "01_flops_sass");
    assert_string_equal(m, "pass 01_flops_sass: the collector (libbenchrun-cupti, 2 process file(s)) "
        "could not profile 10 launch(es): 4 dropped (a profiler call failed), 2 launched into a "
        "capturing stream (they did not run), 4 graph launches not profiled, 1 counter ranges that "
        "matched no launch; kernels without counters: gemm_fusion_dot_general_1 (5 of 20 launches "
        "without counters: profiler failed 1, graph launches 4), wrapped_subtract (2 of 3 launches "
        "without counters: captured 2); first error: cuptiProfilerPushRange: "
        "CUPTI_ERROR_INVALID_OPERATION");
    free(m);
    cj_release(&cp);
}

/* range_offset as the library writes it (rangeprof.c, two contexts in one
 * file, a second file): the largest per counter; null, negative, string and
 * missing offsets are none. */
static void test_offsets(void **state)
{
    (void)state;
    static const char one[] =
        "{\"range_offset\": {\"empty_ranges\": 3, \"contexts\": ["
        "{\"pushed\": 3, \"decoded\": 3, \"offset\": {\"lts__t_bytes.sum\": 36512,"
        " \"smsp__inst_executed.sum\": 0, \"dram__bytes_read.sum\": -1}},"
        "{\"pushed\": 3, \"decoded\": 2, \"offset\": {\"lts__t_bytes.sum\": 40192,"
        " \"dram__bytes_read.sum\": \"256\"}},"
        "{\"pushed\": 3, \"decoded\": 0, \"offset\": {}}, 7]}}";
    static const char two[] =
        "{\"range_offset\": {\"empty_ranges\": 3, \"contexts\": [{\"offset\": "
        "{\"lts__t_bytes.sum\": 38000, \"dram__bytes_read.sum\": 256.5}}]}}";
    static const char none[] = "{\"range_offset\": null}";
    struct cj_pass cp;
    memset(&cp, 0, sizeof(cp));
    assert_int_equal(cj_add_text(&cp, "a", none, strlen(none)), 0);
    assert_int_equal(cp.offset_counters.n, 0);
    assert_int_equal(cj_add_text(&cp, "b", one, strlen(one)), 0);
    assert_int_equal(cj_add_text(&cp, "c", two, strlen(two)), 0);
    assert_int_equal(cp.offset_counters.n, 3);
    assert_true(cj_offset(&cp, "lts__t_bytes.sum") == 40192);
    assert_true(cj_offset(&cp, "smsp__inst_executed.sum") == 0);
    assert_true(cj_offset(&cp, "dram__bytes_read.sum") == 256.5);
    assert_true(cj_offset(&cp, "sm__cycles_elapsed.sum") == 0);
    char *m = cj_describe(&cp, "02");   /* an offset is no missing launch */
    assert_null(m);
    cj_release(&cp);
    assert_int_equal(cp.offset_counters.n, 0);
}

/* Nothing missing, or an older file without the fields: no message. */
static void test_nothing(void **state)
{
    (void)state;
    struct cj_pass cp;
    memset(&cp, 0, sizeof(cp));
    const char *old = "{\"tool\": \"libbenchrun-cupti\", \"launches_dropped\": 0, \"error\": null}";
    assert_int_equal(cj_add_text(&cp, "x", old, strlen(old)), 0);
    assert_null(cj_describe(&cp, "p"));
    assert_int_equal(cj_add_text(&cp, "x", "[1, 2]", 6), -1);
    assert_int_equal(cj_add_text(&cp, "x", "{\"launches_dropped\": ", 21), -1);
    assert_int_equal(cj_add_text(&cp, "x", "{\"launches_dropped\": -5, \"error\": 3}", 36), 0);
    assert_int_equal(cj_lost(&cp), 0);
    assert_null(cp.error);
    assert_int_equal(cp.files, 2);
    cj_release(&cp);
}

/* A pass folder: every *_cupti.json under it; a broken one is warned about. */
static void test_read_pass(void **state)
{
    (void)state;
    char *dir = tmpdir_new("cj");
    char *sub = fs_path_join(dir, "host");
    assert_int_equal(fs_mkdir_p(sub), 0);
    char *a = fs_path_join(dir, "p_11_cupti.json"), *b = fs_path_join(sub, "p_12_cupti.json"),
         *c = fs_path_join(dir, "p_13_cupti.json");
    assert_int_equal(fs_write_atomic(a, MAIN_JSON, strlen(MAIN_JSON)), 0);
    assert_int_equal(fs_write_atomic(b, KERNELS_JSON, strlen(KERNELS_JSON)), 0);
    assert_int_equal(fs_write_atomic(c, "{oops", 5), 0);
    struct cj_pass cp;
    memset(&cp, 0, sizeof(cp));
    assert_int_equal(cj_read_pass(&cp, dir), 2);
    assert_int_equal(cj_lost(&cp), 10);
    assert_non_null(strstr(g_msgs.buf, "p_13_cupti.json: not read"));
    cj_release(&cp);
    tmpdir_remove(dir);
    free(a), free(b), free(c), free(sub), free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum_and_describe),
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_nothing),
        cmocka_unit_test(test_read_pass),
    };
    return cmocka_run_group_tests(tests, msgcap_setup, msgcap_teardown);
}
