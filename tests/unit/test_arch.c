/* test_arch.c - arch profiles: gfx942.json loads and equals docs/design.md §14;
 * expressions (precedence, NaN, x/0, functions); max waves per CU examples of
 * docs/design.md §14 evaluated from the profile's own expressions; malformed
 * profiles name the file, the JSON path and what is wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "arch/arch.h"
#include "arch/expr.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "archeval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct strbuf g_msgs;
static void sink(void *ctx, int w, const char *msg)
{
    (void)ctx;
    sb_addf(&g_msgs, "%s%s\n", w ? "W:" : "E:", msg);
}

static const char *PROFILE = BR_SOURCE_DIR "/share/benchrun/arch/gfx942.json";

static int bind_xy(void *ctx, enum ex_bind_kind k, const char *name, const char *pass, char **why)
{
    (void)ctx; (void)pass;
    if (k == EX_BIND_VALUE && !strcmp(name, "x")) return 0;
    if (k == EX_BIND_VALUE && !strcmp(name, "y")) return 1;
    *why = xasprintf("unknown name '%s'", name);
    return -1;
}

static double ev(const char *src, double x, double y)
{
    char *err; long col;
    struct ex_node *e = ex_parse(src, bind_xy, NULL, &err, &col);
    if (!e) fail_msg("parse '%s': %s", src, err);
    double s[2] = { x, y };
    double v = ex_eval(e, s);
    ex_free(e);
    return v;
}

static void test_expr(void **st)
{
    (void)st;
    assert_true(ev("1 + 2 * 3", 0, 0) == 7);
    assert_true(ev("(1 + 2) * 3 - -1", 0, 0) == 10);
    assert_true(ev("x / y", 1, 4) == 0.25);
    assert_true(isnan(ev("x / y", 1, 0)));
    assert_true(isnan(ev("x + 1", NAN, 0)));
    assert_true(ev("min(x, y, 3)", 5, 4) == 3);
    assert_true(isnan(ev("max(x, y)", NAN, 4)));
    assert_true(ev("ceilto(x, 8)", 20, 0) == 24);
    assert_true(ev("if(x > 0, 1, 2)", 0, 0) == 2);
    assert_true(isnan(ev("if(x > 0, 1, 2)", NAN, 0)));
    assert_true(ev("nansum(x, y, 1)", NAN, 2) == 3);
    assert_true(isnan(ev("nansum(x, y)", NAN, NAN)));
    assert_true(ev("x <= 1 && y >= 2 || 0", 1, 2) == 1);
    assert_true(ev("!(x != 1)", 1, 0) == 1);
    char *err; long col;
    assert_null(ex_parse("1 + z", bind_xy, NULL, &err, &col));
    assert_string_equal(err, "unknown name 'z'");
    assert_int_equal(col, 5);
    free(err);
    assert_null(ex_parse("foo(1)", bind_xy, NULL, &err, &col));
    free(err);
    assert_null(ex_parse("(1", bind_xy, NULL, &err, &col));
    free(err);
    assert_null(ex_parse("1 2", bind_xy, NULL, &err, &col));
    free(err);
}

/* "<open>" n times, core, "<close>" n times. */
static char *nest(const char *open, const char *core, const char *close, size_t n)
{
    size_t lo = strlen(open), lc = strlen(close), lk = strlen(core);
    char *s = xmalloc(n * (lo + lc) + lk + 1), *p = s;
    for (size_t i = 0; i < n; i++, p += lo)
        memcpy(p, open, lo);
    memcpy(p, core, lk);
    p += lk;
    for (size_t i = 0; i < n; i++, p += lc)
        memcpy(p, close, lc);
    *p = '\0';
    return s;
}

static void expect_too_deep(const char *src)
{
    char *err = NULL;
    long col;
    assert_null(ex_parse(src, bind_xy, NULL, &err, &col));
    assert_non_null(strstr(err, "nested more than"));
    assert_true(col > 1);
    free(err);
}

/* Hostile expressions must not overflow the stack. Depth (parens,
 * unary operators, calls) is limited; a long flat sum is fine (chains of one
 * precedence level are one node, evaluated in a loop). */
static void test_expr_limits(void **st)
{
    (void)st;
    char *s = nest("(", "1", ")", 50000);
    expect_too_deep(s);
    free(s);
    s = nest("-", "1", "", 500000);
    expect_too_deep(s);
    free(s);
    s = nest("!", "1", "", 500000);
    expect_too_deep(s);
    free(s);
    s = nest("abs(", "1", ")", 100000);
    expect_too_deep(s);
    free(s);
    s = nest("(", "x", ")", 100);          /* deep but within the limit */
    assert_true(ev(s, 7, 0) == 7);
    free(s);
    s = nest("-", "x", "", 100);
    assert_true(ev(s, 7, 0) == 7);         /* an even number of minus signs */
    free(s);
    s = nest("", "1", "+1", 199999);       /* a flat sum of 200,000 terms */
    assert_true(ev(s, 0, 0) == 200000);
    free(s);
    s = nest("", "x", "-1", 199999);
    assert_true(ev(s, 200000, 0) == 1);
    free(s);
    s = nest("", "x", "/2", 60);           /* left to right: x / 2^60 */
    assert_true(ev(s, ldexp(1, 62), 0) == 4);
    free(s);
    s = nest("", "1", "*x", 200000);
    assert_true(ev(s, 1, 0) == 1);
    free(s);
    s = nest("", "x", "&&1", 200000);
    assert_true(ev(s, 3, 0) == 1);
    free(s);
    s = nest("", "0", "||x", 200000);
    assert_true(ev(s, 0, 0) == 0);
    free(s);
    assert_true(ev("10 - 1 - 1 + 2 * 3 / 2", 0, 0) == 11);
    assert_true(isnan(ev("1 + x / y - 1", 1, 0)));
}

static void test_constants(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(PROFILE, NULL, 0);
    assert_non_null(ap);
    assert_string_equal(ap->arch, "gfx942");
    struct { const char *n; double v; } want[] = {
        { "N_XCC", 8 }, { "N_CU", 304 }, { "N_SIMD", 1216 }, { "WAVE", 64 }, { "MAX_WAVES_CU", 32 },
        { "VGPR_PER_SIMD", 512 }, { "LDS_PER_CU", 65536 }, { "MOPS_UNIT", 512 },
        { "F_BOOST_MHZ", 2100 }, { "PEAK_FP64_VALU", 81.7 }, { "PEAK_FP32_VALU", 163.4 },
        { "PEAK_FP64_MFMA", 163.4 }, { "PEAK_FP32_MFMA", 163.4 }, { "PEAK_FP16_VALU", 163.4 },
        { "PEAK_BF16_MFMA", 1307.4 }, { "PEAK_F16_MFMA", 1307.4 }, { "PEAK_F8_MFMA", 2614.9 },
        { "PEAK_I8_MFMA", 2614.9 }, { "PEAK_MEM_BW", 5.3 },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
        if (arch_const(ap, want[i].n) != want[i].v)
            fail_msg("%s = %g, want %g", want[i].n, arch_const(ap, want[i].n), want[i].v);
    assert_int_equal(ap->npasses, 7);
    assert_string_equal(ap->passes[0].name, "01_fp64_flops");
    for (int p = 0; p < ap->npasses; p++) {
        bool grbm = false;
        for (size_t c = 0; c < ap->passes[p].counters.n; c++)
            grbm |= !strcmp(ap->passes[p].counters.v[c], "GRBM_GUI_ACTIVE");
        assert_true(grbm);
    }
    assert_int_equal(arch_block_limit(ap, "SQ_WAVES"), 8);
    assert_int_equal(arch_block_limit(ap, "TCC_EA0_RDREQ_sum"), 4);
    /* agent_info override: N_SIMD follows N_CU (CPX partition). */
    assert_int_equal(arch_set_const(ap, "N_CU", 38, "agent_info Cu_Count"), 0);
    assert_true(arch_const(ap, "N_SIMD") == 152);
    /* ... and the compute peaks are the partition's: 38/304 of the device's
     * (docs/design.md §14: 304 CU x FLOP/clk/CU x 2.1 GHz); memory stays */
    assert_true(fabs(arch_const(ap, "PEAK_FP64_VALU") - 81.7 / 8) < 1e-12);
    assert_true(fabs(arch_const(ap, "PEAK_BF16_MFMA") - 1307.4 / 8) < 1e-12);
    assert_true(arch_const(ap, "PEAK_MEM_BW") == 5.3);
    /* a lower maximum engine clock scales them too */
    assert_int_equal(arch_set_const(ap, "F_BOOST_MHZ", 1050, "agent_info Max_Engine_Clk_Fcompute"), 0);
    assert_true(fabs(arch_const(ap, "PEAK_F8_MFMA") - 2614.9 / 16) < 1e-12);
    arch_free(ap);
}

/* Metric `name` for one kernel from its attributes only (counters NaN). */
static double metric_for(struct arch_profile *ap, const char *name, double vgpr, double agpr,
                         double lds, double wg)
{
    double attr[AA_COUNT] = { vgpr, agpr, 0, lds, 0, wg, 0 };
    return metric_eval(ap, name, attr, NULL, NAN);
}

static void test_max_waves(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(PROFILE, NULL, 0);
    assert_non_null(ap);
    /* docs/design.md §14 examples */
    assert_true(metric_for(ap, "max_waves_CU", 28, 4, 0, 256) == 32);
    assert_true(metric_for(ap, "max_waves_CU", 20, 132, 0, 256) == 12);
    assert_true(metric_for(ap, "max_waves_CU", 128, 0, 0, 256) == 16);
    /* LDS limit: 16 KiB per 256-thread workgroup -> 4 WG x 4 waves = 16 */
    assert_true(metric_for(ap, "max_waves_CU", 16, 0, 16384, 256) == 16);
    /* 2-D workgroup 16x16 = 256 threads given as product; 40 KiB LDS -> 1 WG = 4 waves */
    assert_true(metric_for(ap, "max_waves_CU", 16, 0, 40960, 256) == 4);
    arch_free(ap);
}

/* A pass name is data. Per-pass metrics refer to their pass
 * through the symbol table, never by pasting the name into the formula
 * (a pass named "p*0+1234567" used to turn 1000 * GRBM_GUI_ACTIVE@{pass} /
 * N_XCC into 1000 * GRBM_GUI_ACTIVE@p * 0 + 1234567 / N_XCC). */
static void test_pass_names_are_data(void **st)
{
    (void)st;
    const char *names[] = { "p*0+1234567" };
    struct arch_profile *ap = arch_load(PROFILE, names, 1);
    assert_non_null(ap);
    int bound = 0;
    for (int i = 0; i < ap->nsyms; i++)
        if (ap->syms[i].kind == AS_RATE && ap->syms[i].pass) {
            assert_string_equal(ap->syms[i].pass, "p*0+1234567");
            bound++;
        }
    assert_true(bound > 0);
    double attr[AA_COUNT] = { 0 };
    const struct rate rates[] = { { "GRBM_GUI_ACTIVE", 2.0 }, { NULL, 0 } };
    /* 1000 x 2 cycles/ns / N_XCC 8 = 250 MHz (by hand) */
    assert_true(metric_eval(ap, "clock_MHz_p*0+1234567", attr, rates, NAN) == 250);
    arch_free(ap);
}

/* gh100: CUPTI's SASS metrics patch the kernel code; hardware counters do not. */
static void test_instrumented(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(BR_SOURCE_DIR "/share/benchrun/arch/gh100.json", NULL, 0);
    assert_non_null(ap);
    assert_true(arch_counter_instrumented(ap, "sm__sass_thread_inst_executed_op_dfma_pred_on.sum"));
    assert_true(arch_counter_instrumented(ap, "smsp__sass_inst_executed.sum"));
    assert_false(arch_counter_instrumented(ap, "smsp__inst_executed.sum"));
    assert_false(arch_counter_instrumented(ap, "dram__bytes_read.sum"));
    arch_free(ap);
    ap = arch_load(PROFILE, NULL, 0);
    assert_non_null(ap);
    assert_false(arch_counter_instrumented(ap, "SQ_WAVES"));   /* gfx942: none */
    arch_free(ap);
}

static void expect_load_error(const char *json, const char *msg)
{
    char path[] = "/tmp/h2archXXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    sb_reset(&g_msgs);
    br_error_set_sink(sink, NULL);
    struct arch_profile *ap = arch_load(path, NULL, 0);
    br_error_set_sink(NULL, NULL);
    unlink(path);
    assert_null(ap);
    if (!strstr(g_msgs.buf, msg))
        fail_msg("expected '%s' in: %s", msg, g_msgs.buf);
}

#define HEAD "{\"arch\":\"t\",\"constants\":{\"A\":2},\"peaks\":{},\"block_limits\":{\"SQ\":8}," \
             "\"passes\":[{\"name\":\"p1\",\"counters\":[\"SQ_X\"]}],\"counter_sets\":{\"d\":[\"p1\"]},"

static void test_malformed(void **st)
{
    (void)st;
    sb_init(&g_msgs);
    expect_load_error("{", "invalid JSON");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"A * FOO\"}]}",
                      ": metrics[0].expr: column 5: unknown name 'FOO'");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"A * n2\"},{\"name\":\"n2\",\"expr\":\"1\"}]}",
                      "metrics[0].expr: column 5: unknown name 'n2'");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\"}]}", "metrics[0].expr: expected an expression");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"1\",\"total\":\"x\"}]}",
                      "metrics[0]: total: expected");
    expect_load_error("{\"arch\":\"t\",\"constants\":{\"A\":\"B+1\",\"B\":1}}", "constants.A: column 1: unknown name 'B'");
    expect_load_error("{\"arch\":\"t\",\"constants\":{},\"peaks\":{},\"block_limits\":{},\"passes\":[],"
                      "\"counter_sets\":{}}", "passes: expected a non-empty array");
    expect_load_error("{\"arch\":\"t\",\"constants\":{},\"peaks\":{},\"block_limits\":{},\"passes\":[{\"name\":\"p\",\"counters\":[]}],"
                      "\"counter_sets\":{\"d\":[\"zz\"]}}", "counter_sets.d: unknown pass 'zz'");
    expect_load_error(HEAD "\"instrumented_counters\":\"sm__sass_\"}", "instrumented_counters: expected an array");
    expect_load_error(HEAD "\"instrumented_counters\":[\"a\",3]}", "instrumented_counters: item 1: expected a string");
    expect_load_error(HEAD "\"constant_sources\":{\"A\":\"x\",\"B\":\"y\"}}",
                      "constant_sources: B: no such constant or peak");
    expect_load_error(HEAD "\"constant_sources\":{\"A\":2}}", "constant_sources: A: expected a non-empty string");
    expect_load_error("{\"arch\":\"t\",\"constants\":{\"A\":2,\"C\":3},\"peaks\":{},\"constant_sources\":{\"A\":\"x\"}}",
                      "constant_sources: no source for C");
    /* the seed-compatibility keys */
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"1\",\"when_no_data\":\"zero\"}]}",
                      "metrics[0]: when_no_data: expected");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"1\",\"int\":1}]}",
                      "metrics[0]: int: expected true or false");
    expect_load_error(HEAD "\"launch_counter\":3,\"metrics\":[{\"name\":\"m\",\"expr\":\"1\"}]}",
                      "launch_counter: expected a counter name");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"1\"}],\"report_whole_run\":"
                      "[{\"label\":\"x\",\"metric\":\"nope\",\"format\":\"%.1f\"}]}",
                      "report_whole_run[0]: expected \"label\" and \"metric\"");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"1\"}],\"report_whole_run\":"
                      "[{\"label\":\"x\",\"metric\":\"m\",\"format\":\"%s\"}]}",
                      "report_whole_run[0]: format: expected a printf conversion");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"1\"}],\"report_whole_run\":"
                      "[{\"label\":\"x\",\"metric\":\"m\",\"format\":\"%.1f%n\"}]}",
                      "report_whole_run[0]: format: expected a printf conversion");
    expect_load_error(HEAD "\"metrics\":[{\"name\":\"b\",\"label\":\"bound\",\"latency\":\"no\","
                      "\"compute_pct\":\"1\",\"mem_pct\":\"1\",\"flops\":\"1\"}]}",
                      "metrics[0]: latency: expected true or false");
    assert_true(arch_double_format("%.3e") && arch_double_format("%g") && arch_double_format("%.0f"));
    assert_false(arch_double_format("%d") || arch_double_format("x%f") || arch_double_format("%.1f %f"));
    /* {first_pass}: the run's first pass */
    char *e = arch_subst_first_pass("G@{first_pass} + {first_pass}", "01_x");
    assert_string_equal(e, "G@01_x + 01_x");
    free(e);
    /* a counter of a known block that no pass collects is accepted */
    char path[] = "/tmp/h2archXXXXXX.json";
    int fd = mkstemps(path, 5);
    const char *ok = HEAD "\"metrics\":[{\"name\":\"m\",\"expr\":\"SQ_OTHER + sum(SQ_X) + dur(SQ_X@p1)\"}]}";
    assert_int_equal(write(fd, ok, strlen(ok)), (ssize_t)strlen(ok));
    close(fd);
    struct arch_profile *ap = arch_load(path, NULL, 0);
    unlink(path);
    assert_non_null(ap);
    arch_free(ap);
    sb_release(&g_msgs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expr),
        cmocka_unit_test(test_expr_limits),
        cmocka_unit_test(test_pass_names_are_data),
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_max_waves),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_instrumented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
