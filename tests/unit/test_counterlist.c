/* test_counterlist.c - the rocprofv3 counter-list parser (counters/counterlist.c)
 * on each documented layout, and the counter-set checks (counters/counterset.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/counterlist.h"
#include "counters/counterset.h"
#include "util/error.h"
#include "util/strbuf.h"

static int parse(struct counterlist *cl, const char *text)
{
    return counterlist_parse(cl, "test.txt", text, strlen(text));
}

static void test_layout_62(void **state)
{
    (void)state;
    struct counterlist cl;
    const char *t = "gpu-agent1:\tSQ_WAVES\nDescription:\tWaves: a count.\nBlock:\tSQ\n"
                    "Dimensions:\tDIMENSION_XCC[0:7]\n\n"
                    "gpu-agent1:\tTCC_HIT_sum\nDescription:\tsum\nExpression:\treduce(TCC_HIT,sum)\n\n"
                    "gpu-agent1:\tCU_NUM\nDescription:\tconstant\nExpression:\t304\n";
    assert_int_equal(parse(&cl, t), 0);
    assert_string_equal(cl.layout, "6.2");
    assert_int_equal(cl.nentries, 3);
    assert_int_equal(cl.ngpus, 1);
    assert_null(cl.gpus[0].arch);
    assert_string_equal(cl.entries[0].block, "SQ");
    assert_false(cl.entries[0].derived);
    assert_true(cl.entries[1].derived);
    assert_null(cl.entries[1].block);
    assert_true(cl.entries[2].constant);
    assert_non_null(counterlist_find(&cl, "TCC_HIT_sum", "gfx942"));   /* arch unknown: accepted */
    assert_null(counterlist_find(&cl, "TCC_MISS_sum", NULL));
    counterlist_release(&cl);
}

static void test_layout_64_staging(void **state)
{
    (void)state;
    struct counterlist cl;
    const char *t = "gpu-agent:2\nName:\tSQ_WAVES\nDescription:\tx\nBlock:\tSQ\n\n"
                    "gpu-agent:3\nName:\tGRBM_GUI_ACTIVE\nBlock:\tGRBM\n";
    assert_int_equal(parse(&cl, t), 0);
    assert_string_equal(cl.layout, "6.4");
    assert_int_equal(cl.nentries, 2);
    assert_int_equal(cl.ngpus, 2);
    assert_int_equal(cl.entries[1].gpu, 3);
    assert_string_equal(cl.entries[1].name, "GRBM_GUI_ACTIVE");
    counterlist_release(&cl);
}

static void test_layout_7x(void **state)
{
    (void)state;
    struct counterlist cl;
    const char *t = "GPU     :\t0\nName    :\tgfx942\nconfigs :\n\tMethod\t: host_trap\n\n"
                    "GPU:0\nName:gfx942\nCounter_Name        :\tSQ_WAVES\r\n"
                    "Description         :\tWaves. Name: not a key here\nBlock               :\tSQ\n\n"
                    "GPU:1\r\nname : gfx90a\r\ncounter_name:TCC_EA_RDREQ\r\nblock:TCC\r\n";
    assert_int_equal(parse(&cl, t), 0);
    assert_string_equal(cl.layout, "7.x");
    assert_int_equal(cl.ngpus, 2);
    assert_string_equal(counterlist_gpu_arch(&cl, 0), "gfx942");
    assert_string_equal(counterlist_gpu_arch(&cl, 1), "gfx90a");
    assert_int_equal(cl.nentries, 2);
    assert_non_null(counterlist_find(&cl, "SQ_WAVES", "gfx942"));
    assert_null(counterlist_find(&cl, "SQ_WAVES", "gfx90a"));
    assert_non_null(counterlist_find(&cl, "TCC_EA_RDREQ", "gfx90a"));
    assert_string_equal(cl.entries[1].block, "TCC");
    size_t n;
    const char **a = counterlist_archs(&cl, &n);
    assert_int_equal(n, 2);
    assert_string_equal(a[0], "gfx942");
    free(a);
    counterlist_release(&cl);
}

static void quiet(void *ctx, int w, const char *msg)
{
    (void)w;
    strncpy(ctx, msg, 255);
}

static void test_empty_and_garbage(void **state)
{
    (void)state;
    struct counterlist cl;
    char msg[256] = "";
    br_error_set_sink(quiet, msg);
    assert_int_equal(parse(&cl, ""), -1);
    assert_non_null(strstr(msg, "test.txt: no counters found"));
    assert_int_equal(parse(&cl, "hello\n: :\n::::\nGPU:\nName:\n"), -1);
    assert_int_equal(counterlist_parse(&cl, "nul.txt", "Counter_Name:\0X\n", 16), -1);
    br_error_set_sink(NULL, NULL);
}

static void test_check_limits(void **state)
{
    (void)state;
    char path[] = "/tmp/brcl.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *json =
        "{\"arch\": \"gfx942\", \"block_limits\": {\"TCC\": 2, \"SQ\": 8},"
        " \"passes\": [{\"name\": \"p1\", \"counters\": [\"TCC_A_sum\", \"TCC_B_sum\", \"CU_NUM\","
        " \"SQ_WAVES\"]}, {\"name\": \"p2\", \"counters\": [\"TCC_A_sum\", \"TCC_B_sum\","
        " \"TCC_C_sum\"]}],"
        " \"metrics\": [{\"name\": \"m\", \"expr\": \"TCC_A_sum / TCC_D_sum + N_CU\"}]}";
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    struct counterset cs;
    assert_int_equal(counterset_load(&cs, path, NULL), 0);
    assert_int_equal(cs.passes.n, 2);
    assert_int_equal(cs.nlimits, 2);
    struct counterlist cl;
    const char *t = "GPU:0\nName:gfx942\nCounter_Name:TCC_A_sum\nExpression:x\n"
                    "Counter_Name:TCC_B_sum\nCounter_Name:TCC_C_sum\nCounter_Name:SQ_WAVES\n"
                    "Counter_Name:CU_NUM\nExpression:304\n";
    assert_int_equal(parse(&cl, t), 0);
    struct strbuf p, n;
    sb_init(&p);
    sb_init(&n);
    /* p1: 2 TCC (the constant uses no slot) = OK; p2: 3 TCC > 2; m uses TCC_D_sum */
    assert_int_equal(counterset_check(&cs, &cl, &p, &n), 2);
    assert_non_null(strstr(p.buf, "pass p2: block TCC has 3 counters, limit 2 per pass"));
    assert_null(strstr(p.buf, "pass p1"));
    assert_non_null(strstr(p.buf, "metric m uses TCC_D_sum, which no pass collects"));
    assert_non_null(strstr(n.buf, "CU_NUM is a constant"));
    sb_release(&p);
    sb_release(&n);
    counterlist_release(&cl);
    counterset_release(&cs);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_62), cmocka_unit_test(test_layout_64_staging),
        cmocka_unit_test(test_layout_7x), cmocka_unit_test(test_empty_and_garbage),
        cmocka_unit_test(test_check_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
