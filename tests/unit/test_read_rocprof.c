/* test_read_rocprof.c - rocprofv3 readers: layouts of every release (sample
 * rows of docs/design.md §11), quotes in kernel names,
 * CRLF, truncated last lines, malformed files, aggregation of file sets,
 * multi-process pass folders, 6.2 duration join, power-run busy %, rocpd2csv
 * files (real kernel trace, title-case names) and missing attribute columns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "read/csv.h"
#include "read/rocprof.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct strbuf g_msgs;
static void sink(void *ctx, int is_warning, const char *msg)
{
    (void)ctx;
    sb_addf(&g_msgs, "%s%s\n", is_warning ? "W:" : "E:", msg);
}
static int setup(void **st)
{
    (void)st;
    sb_init(&g_msgs);
    br_error_set_sink(sink, NULL);
    return 0;
}
static int teardown(void **st)
{
    (void)st;
    br_error_set_sink(NULL, NULL);
    sb_release(&g_msgs);
    return 0;
}

static const char CC62_H[] = "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\","
    "\"Thread_Id\",\"Grid_Size\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\","
    "\"VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\"\n";
static const char CC64_H[] = "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\","
    "\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\","
    "\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n";
static const char KT7_H[] = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
    "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
    "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\","
    "\"Grid_Size_Z\"\n";
static const char KT62_H[] = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\","
    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\","
    "\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
static const char KT63_H[] = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\","
    "\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

static int check(const char *text, struct rp_file_info *fi)
{
    return rp_check_mem("t.csv", text, strlen(text), fi);
}

static void test_numbers(void **st)
{
    (void)st;
    const char *ok[] = { "16384.000000", "1.68555351e-01", "0.00000000e+00", "-2.5", "65536",
                         "1e300", "123456789012345678901234", "nan", "4.9e-324" };
    for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
        struct csv_span s = { ok[i], (uint32_t)strlen(ok[i]), false };
        double v;
        assert_int_equal(csv_double(&s, &v), 0);
        double want = strtod(ok[i], NULL);
        if (isnan(want))
            assert_true(isnan(v));
        else
            assert_true(v == want);
    }
    const char *bad[] = { "", "abc", "1.2.3", "1e", "12x", "0x10", "--1" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        struct csv_span s = { bad[i], (uint32_t)strlen(bad[i]), false };
        double v;
        assert_int_equal(csv_double(&s, &v), -1);
    }
    /* The prefix forms stop after the number; malformed is NULL. */
    static const struct {
        const char *text;
        size_t stop;            /* bytes of the number; 0: NULL */
        double want;
    } pre[] = {
        { "1.5,2", 3, 1.5 },       { "-.25e1 ", 6, -2.5 },    { "7\"", 1, 7 },
        { "infinity,", 8, INFINITY }, { "-inf,", 4, -INFINITY }, { "infinit", 3, INFINITY },
        { "NaN,", 3, NAN },        { "1e,", 0, 0 },           { "1e+x", 0, 0 },
        { ".,", 0, 0 },            { "-", 0, 0 },             { ",", 0, 0 },
        { "1e400x", 5, INFINITY }, { "000000000000000000000012.5|", 26, 12.5 },
    };
    for (size_t i = 0; i < sizeof(pre) / sizeof(*pre); i++) {
        const char *p = pre[i].text, *end = p + strlen(p);
        double v = 0;
        const char *stop = csv_scan_double(p, end, &v);
        if (pre[i].stop == 0) {
            assert_null(stop);
            continue;
        }
        assert_ptr_equal(stop, p + pre[i].stop);
        assert_true(isnan(pre[i].want) ? isnan(v) : v == pre[i].want);
    }
    uint64_t u = 0;
    const char *digits = "18446744073709551615,";
    assert_ptr_equal(csv_scan_u64(digits, digits + 21, &u), digits + 20);
    assert_true(u == UINT64_MAX);
    const char *over = "18446744073709551616", *zeros = "000000000000000000001";
    assert_null(csv_scan_u64(over, over + 20, &u));
    assert_null(csv_scan_u64(zeros, zeros + 21, &u));      /* 21 digits, as csv_u64 */
    assert_null(csv_scan_u64(",1", ",1" + 2, &u));
    struct csv_span z = { zeros, 21, false }, part = { "12,", 3, false };
    u = 5;
    assert_int_equal(csv_u64(&z, &u), -1);
    assert_int_equal(csv_u64(&part, &u), -1);
    assert_true(u == 5);                                    /* untouched on -1 */

    struct csv_span a = { "Agent 4", 7, true }, b = { "12", 2, false }, c = { "x", 1, true };
    uint64_t id;
    assert_int_equal(csv_agent_id(&a, &id), 0);
    assert_int_equal(id, 4);
    assert_int_equal(csv_agent_id(&b, &id), 0);
    assert_int_equal(id, 12);
    assert_int_equal(csv_agent_id(&c, &id), -1);
}

static void test_split_free_quotes(void **st)
{
    (void)st;
    /* An unescaped '"' and '",' inside the kernel name. */
    const char *line = "1,\"Agent 2\",\"void k<\"a\", 3>(x, \"y\")\",7,\"SQ_WAVES\",2.5";
    struct csv_span f[6];
    assert_int_equal(csv_split_freetext(line, strlen(line), 6, 2, f), 6);
    assert_true(csv_eq(&f[2], "void k<\"a\", 3>(x, \"y\")"));
    assert_true(csv_eq(&f[1], "Agent 2"));
    assert_true(csv_eq(&f[4], "SQ_WAVES"));
    assert_true(csv_eq(&f[5], "2.5"));
    assert_int_equal(csv_split_freetext("1,2,3", 5, 6, 2, f), -1);
    assert_int_equal(csv_split_freetext("1,x,3,4,5,6", 11, 6, 1, f), -1);  /* name not quoted */
    /* Generic split: a quote followed by ',' and text that cannot start a field. */
    const char *g = "\"a\",\"b\", c\",3";
    struct csv_span h[4];
    assert_int_equal(csv_split(g, strlen(g), h, 4), 3);
    assert_true(csv_eq(&h[1], "b\", c"));
}

static void test_layouts(void **st)
{
    (void)st;
    struct rp_file_info fi;
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, CC62_H);
    sb_adds(&sb, "0,1,1,139892123975680,5619,5619,1048576,\"matrixTranspose(float*, float*, int)\",16,0,0,8,16,\"SQ_WAVES\",65536\n");
    assert_int_equal(check(sb.buf, &fi), 0);
    assert_int_equal(fi.kind, RP_KIND_COUNTER);
    assert_string_equal(fi.layout, "6.2 (15 cols)");
    assert_int_equal(fi.dispatches, 1);
    sb_reset(&sb);
    sb_adds(&sb, "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
                 "\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\","
                 "\"Scratch_Size\",\"VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\","
                 "\"Start_Timestamp\",\"End_Timestamp\"\n"
                 "2,2,1,1,15309,15309,2097152,16,\"void mm<16u>(float const*, float*)\",256,2048,1024,48,128,\"MemUnitBusy\",0.00000000e+00,1203600507426,1203701866465\n");
    assert_int_equal(check(sb.buf, &fi), 0);
    assert_string_equal(fi.layout, "6.3 (18 cols)");
    sb_reset(&sb);
    sb_adds(&sb, CC64_H);
    sb_adds(&sb, "1,1,\"Agent 1\",1,15606,15606,1048576,17,\"void addition_kernel<float>(float*, float const*, float const*, int, int)\",64,0,0,8,0,16,\"SQ_WAVES\",16384.000000,3200098838431081,3200098838483232\r\n"
                 "1,1,\"Agent 1\",1,15606,15606,1048576,17,\"void addition_kernel<float>(float*, float const*, float const*, int, int)\",64,0,0,8,0,16,\"GRBM_GUI_ACTIVE\",1.68555351e-01,3200098838431081,3200098838483232\r\n");
    assert_int_equal(check(sb.buf, &fi), 0);
    assert_string_equal(fi.layout, "6.4/7.x (19 cols)");
    assert_int_equal(fi.rows, 2);
    assert_int_equal(fi.dispatches, 1);
    assert_int_equal(fi.counters, 2);
    sb_reset(&sb);
    sb_adds(&sb, KT7_H);
    sb_adds(&sb, "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,834304,1,10,\"void addition_kernel<float>(float*, float const*, float const*, int, int)\",1,1550151853029637,1550151853042437,0,0,8,0,16,64,1,1,1024,1024,1");
    assert_int_equal(check(sb.buf, &fi), 0);   /* no final newline, complete row */
    assert_string_equal(fi.layout, "7.x (22 cols)");
    assert_int_equal(fi.dispatches, 1);
    assert_int_equal(fi.truncated, 0);
    sb_reset(&sb);
    sb_adds(&sb, KT63_H);
    sb_adds(&sb, "\"KERNEL_DISPATCH\",4,1,40021,1,11,\"simple_add_kernel(float*, float const*, int)\",1,2060159320877,2060159329157,0,0,1024,1,1,1048576,1,1\n");
    assert_int_equal(check(sb.buf, &fi), 0);
    assert_string_equal(fi.layout, "6.3/6.4 (18 cols)");
    sb_reset(&sb);
    sb_adds(&sb, KT62_H);
    sb_adds(&sb, "\"KERNEL_DISPATCH\",4,1,11,\"simple_add_kernel(float*, float const*, int)\",1,2060159320877,2060159329157,0,0,1024,1,1,1048576,1,1\n");
    assert_int_equal(check(sb.buf, &fi), 0);
    assert_string_equal(fi.layout, "6.2 (16 cols)");
    sb_release(&sb);
}

static void expect_error(const char *text, const char *msg)
{
    sb_reset(&g_msgs);
    assert_int_equal(check(text, NULL), -1);
    if (!strstr(g_msgs.buf, msg))
        fail_msg("expected '%s' in: %s", msg, g_msgs.buf);
}

static void test_malformed(void **st)
{
    (void)st;
    expect_error("", "t.csv: empty file");
    expect_error(CC64_H, "t.csv:1: header only");
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, CC64_H);
    sb_adds(&sb, "1,1,1,1,1,1,64,17,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",1.0,10,20\n1,1,1,1,1,1,64,17,\"k\",64,0,0,\"SQ_WAVES\",1.0,10,20\n");
    expect_error(sb.buf, "t.csv:3: expected 19 columns (6.4/7.x (19 cols) layout), found 16");
    sb_reset(&sb);
    sb_adds(&sb, CC64_H);
    sb_adds(&sb, "1,1,1,1,1,1,64,17,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",abc,10,20\n");
    expect_error(sb.buf, "t.csv:2: column Counter_Value: expected a number, got 'abc'");
    sb_reset(&sb);
    sb_adds(&sb, CC64_H);
    sb_adds(&sb, "1,x1,1,1,1,1,64,17,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",1,10,20\n");
    expect_error(sb.buf, "t.csv:2: column Dispatch_Id: expected a non-negative integer, got 'x1'");
    expect_error("\"Kind\",\"Kernel_Name\",\"Kind\"\n", "t.csv:1: duplicate column 'Kind'");
    expect_error("\"Kind\",\"Kernel_Name\",\"VGPR_Count\",\"Vgpr_Count\"\n",
                 "t.csv:1: columns 'VGPR_Count' and 'Vgpr_Count' are the same column VGPR_Count");
    expect_error("\"Kind\",\"Kernel_Name\",\"Start_Timestamp\"\n", "no column End_Timestamp");
    expect_error("\"a\",\"b\"\n1,2\n", "not a rocprofv3");
    sb_release(&sb);
}

static void test_truncated(void **st)
{
    (void)st;
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, CC64_H);
    sb_adds(&sb, "1,1,1,1,1,1,64,17,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",1.0,10,20\n1,2,1,1,1,1,64,17,\"k\",64,0,0,8");
    sb_reset(&g_msgs);
    struct rp_file_info fi;
    assert_int_equal(check(sb.buf, &fi), 0);
    assert_int_equal(fi.truncated, 1);
    assert_int_equal(fi.dispatches, 1);
    assert_non_null(strstr(g_msgs.buf, "W:t.csv:3: truncated last line ignored"));
    sb_release(&sb);
}

/* ---- folders --------------------------------------------------------------- */

static char *g_dir;

static void put(const char *rel, const char *text)
{
    char *p = fs_path_join(g_dir, rel);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    assert_int_equal(fs_mkdir_p(p), 0);
    *slash = '/';
    assert_int_equal(fs_write_atomic(p, text, strlen(text)), 0);
    free(p);
}

static void cc_row(struct strbuf *sb, int disp, const char *name, int vgpr, int agpr, const char *ctr,
                   double v, long s, long e)
{
    sb_addf(sb, "%d,%d,\"Agent 4\",1,9,9,4096,3,\"%s\",256,1024,0,%d,%d,16,\"%s\",%.6f,%ld,%ld\n", disp,
            disp, name, vgpr, agpr, ctr, v, s, e);
}

static void test_pass_multiprocess(void **st)
{
    (void)st;
    char tmpl[] = "/tmp/h2readXXXXXX";
    g_dir = mkdtemp(tmpl);
    struct strbuf a, b, t;
    sb_init(&a);
    sb_init(&b);
    sb_init(&t);
    const char *K1 = "void f<\"q\", 2>(double*, int)", *K2 = "g()";
    sb_adds(&a, CC64_H);
    /* process 100: K1 twice (ids 1, 2), K2 once (id 3); rows of id 2 split. */
    cc_row(&a, 1, K1, 28, 4, "SQ_WAVES", 10, 1000, 1100);
    cc_row(&a, 1, K1, 28, 4, "GRBM_GUI_ACTIVE", 800, 1000, 1100);
    cc_row(&a, 2, K1, 28, 4, "SQ_WAVES", 30, 2000, 2300);
    cc_row(&a, 3, K2, 128, 0, "SQ_WAVES", 5, 3000, 3050);
    cc_row(&a, 2, K1, 28, 4, "GRBM_GUI_ACTIVE", 2400, 2000, 2300);
    put("01_x/01_x_100_counter_collection.csv", a.buf);
    /* process 200 restarts Dispatch_Id at 1 */
    sb_adds(&b, CC64_H);
    cc_row(&b, 1, K1, 28, 4, "SQ_WAVES", 20, 5000, 5200);
    put("01_x/01_x_200_counter_collection.csv", b.buf);
    /* trace of process 200: its launch plus one without counters (id 2) */
    sb_adds(&t, KT7_H);
    sb_addf(&t, "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,1,3,\"%s\",1,5000,5200,0,0,28,4,16,16,16,1,4096,1,1\n", K1);
    sb_addf(&t, "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,2,3,\"%s\",2,6000,6400,0,0,28,4,16,16,16,1,4096,1,1\n", K1);
    put("01_x/01_x_200_kernel_trace.csv", t.buf);
    const char *passes[] = { "01_x", "02_missing" };
    struct rp_run run;
    assert_int_equal(rp_run_load(&run, g_dir, passes, 2, 2), 0);
    assert_int_equal(run.names.n, 2);
    uint32_t k1 = intern_find(&run.names, K1, strlen(K1)), k2 = intern_find(&run.names, K2, 3);
    struct rp_pass *p = &run.passes[0];
    assert_true(p->present);
    assert_int_equal(p->nsets, 2);
    assert_int_equal(p->ncounters, 2);
    assert_int_equal(p->launches[k1], 3);
    assert_int_equal(p->launches[k2], 1);
    assert_true(p->dur_ns[k1] == 100 + 300 + 200);
    assert_true(p->dur_ns[k2] == 50);
    int cw = strcmp(p->counters[0], "SQ_WAVES") == 0 ? 0 : 1;
    assert_true(p->csum[k1 * p->ncounters + cw] == 60);
    assert_true(p->csum[k1 * p->ncounters + !cw] == 3200);
    assert_int_equal(p->crows[k2 * p->ncounters + !cw], 0);
    assert_int_equal(p->trace_launches, 2);
    assert_int_equal(p->uncounted_launches, 1);
    assert_true(p->uncounted_ns == 400);
    assert_int_equal(run.attr[k1].vgpr, 28);
    assert_int_equal(run.attr[k1].agpr, 4);
    assert_int_equal(run.attr[k1].wg_size, 256);
    assert_int_equal(run.attr[k1].wg_x, 16);
    assert_false(run.passes[1].present);
    rp_run_release(&run);
    sb_release(&a);
    sb_release(&b);
    sb_release(&t);
}

static void test_62_join(void **st)
{
    (void)st;
    char tmpl[] = "/tmp/h2readXXXXXX";
    g_dir = mkdtemp(tmpl);
    struct strbuf a, t;
    sb_init(&a);
    sb_init(&t);
    sb_adds(&a, CC62_H);
    sb_adds(&a, "7,1,1,1,5,5,1024,\"k62\",64,0,0,8,16,\"SQ_WAVES\",100\n"
                "7,1,1,1,5,5,1024,\"k62\",64,0,0,8,16,\"GRBM_GUI_ACTIVE\",5000\n"
                "8,2,1,1,5,5,1024,\"k62\",64,0,0,8,16,\"SQ_WAVES\",300\n"
                "8,2,1,1,5,5,1024,\"k62\",64,0,0,8,16,\"GRBM_GUI_ACTIVE\",7000\n");
    put("p/p_counter_collection.csv", a.buf);
    sb_adds(&t, KT62_H);
    sb_adds(&t, "\"KERNEL_DISPATCH\",1,1,3,\"k62\",7,100,600,0,0,64,1,1,1024,1,1\n"
                "\"KERNEL_DISPATCH\",1,1,3,\"k62\",8,1000,1500,0,0,64,1,1,1024,1,1\n");
    put("p/p_kernel_trace.csv", t.buf);
    const char *passes[] = { "p" };
    struct rp_run run;
    assert_int_equal(rp_run_load(&run, g_dir, passes, 1, 1), 0);
    struct rp_pass *p = &run.passes[0];
    assert_int_equal(p->launches[0], 2);
    assert_true(p->dur_ns[0] == 1000);
    assert_int_equal(p->untimed_launches, 0);
    assert_int_equal(p->uncounted_launches, 0);
    assert_non_null(strstr(p->layout, "6.2 (15 cols)"));
    rp_run_release(&run);
    sb_release(&a);
    sb_release(&t);
}

/* rp_check_mem reads agent_info rows too (fuzz_agent_info used to stop at
 * the header). */
static void test_agent_info_rows(void **st)
{
    (void)st;
    const char *text =
        "\"Node_Id\",\"Agent_Type\",\"Cu_Count\",\"Name\"\n"
        "0,\"CPU\",96,\"AMD EPYC\"\n"
        "2,\"GPU\",304,\"gfx942\"\n";
    struct rp_file_info fi;
    assert_int_equal(rp_check_mem("agent_info.csv", text, strlen(text), &fi), 0);
    assert_int_equal(fi.kind, RP_KIND_AGENT_INFO);
    assert_int_equal(fi.rows, 2);
}

static void test_power(void **st)
{
    (void)st;
    char tmpl[] = "/tmp/h2readXXXXXX";
    g_dir = mkdtemp(tmpl);
    struct strbuf t;
    sb_init(&t);
    sb_adds(&t, KT7_H);
    /* agent 1: [0,100) [50,150) [300,400) -> busy 250 of span 400 = 62.5% */
    sb_adds(&t, "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,9,1,3,\"a\",1,0,100,0,0,8,0,16,64,1,1,64,1,1\n"
                "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,9,2,3,\"b\",2,50,150,0,0,8,0,16,64,1,1,64,1,1\n"
                "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,9,3,3,\"a\",3,300,400,0,0,8,0,16,64,1,1,64,1,1\n"
    /* agent 2: [1000,1100) -> 100% */
                "\"KERNEL_DISPATCH\",\"Agent 2\",1,1,9,4,3,\"a\",4,1000,1100,0,0,8,0,16,64,1,1,64,1,1\n");
    put("ktrace/x/1_kernel_trace.csv", t.buf);
    struct intern names;
    intern_init(&names);
    struct rp_power pw;
    assert_int_equal(rp_power_load(&pw, &names, g_dir), 0);
    assert_int_equal(pw.dispatches, 4);
    assert_int_equal(pw.ngpus, 2);
    assert_true(fabs(rp_power_busy_pct(&pw) - (62.5 + 100) / 2) < 1e-12);
    assert_true(pw.dur_ns[intern_find(&names, "a", 1)] == 300);
    assert_int_equal(pw.launches[intern_find(&names, "a", 1)], 3);
    assert_int_equal(pw.first_start, 0);
    assert_int_equal(pw.last_end, 1100);
    rp_power_release(&pw);
    intern_release(&names);
    int64_t f, l;
    assert_int_equal(rp_kernel_window(g_dir, &f, &l), 0);
    assert_int_equal(f, 0);
    assert_int_equal(l, 1100);
    sb_release(&t);
}

/* ---- rocpd2csv (tests/fixtures/amd/rocpd2csv/README.md) ---------------------- */

static const char *RPD = BR_SOURCE_DIR "/tests/fixtures/amd/rocpd2csv";

static char *fixture(const char *name, size_t *len)
{
    char *p = fs_path_join(RPD, name);
    char *text = fs_read_file(p, len);
    assert_non_null(text);
    free(p);
    return text;
}

static void test_rocpd2csv(void **st)
{
    (void)st;
    size_t len;
    char *kt = fixture("out_kernel_trace.csv", &len);
    struct rp_file_info fi;
    sb_reset(&g_msgs);
    assert_int_equal(rp_check_mem("out_kernel_trace.csv", kt, len, &fi), 0);
    assert_int_equal(fi.kind, RP_KIND_TRACE);
    assert_string_equal(fi.layout, "rocpd2csv 7.x (23 cols)");
    assert_int_equal(fi.dispatches, 9);
    char *cc = fixture("out_counter_collection.csv", &len);
    assert_int_equal(rp_check_mem("out_counter_collection.csv", cc, len, &fi), 0);
    assert_int_equal(fi.kind, RP_KIND_COUNTER);
    assert_string_equal(fi.layout, "rocpd2csv 7.x (20 cols)");
    assert_int_equal(fi.dispatches, 3);
    assert_int_equal(fi.counters, 2);
    assert_string_equal(g_msgs.buf, "");

    /* As a pass folder: Vgpr_Count, Accum_Vgpr_Count, Lds_Block_Size read. */
    g_dir = tmpdir_new("rpd2csv");
    put("01_x/out_counter_collection.csv", cc);
    put("01_x/out_kernel_trace.csv", kt);
    const char *passes[] = { "01_x" };
    struct rp_run run;
    assert_int_equal(rp_run_load(&run, g_dir, passes, 1, 1), 0);
    assert_string_equal(g_msgs.buf, "");
    const char *norm = "__omp_offloading_30_57b9f__QMnorm_modPnorm_l23";
    const char *bnd = "__omp_offloading_30_57b7d__QMboundary_modPboundary_conditions_l24";
    uint32_t kn = intern_find(&run.names, norm, strlen(norm));
    uint32_t kb = intern_find(&run.names, bnd, strlen(bnd));
    assert_int_equal(run.attr[kn].vgpr, 16);
    assert_int_equal(run.attr[kn].lds, 8456);
    assert_int_equal(run.attr[kn].sgpr, 32);
    assert_int_equal(run.attr[kn].wg_size, 256);
    assert_int_equal(run.attr[kb].vgpr, 20);
    assert_int_equal(run.attr[kb].agpr, 4);
    assert_true(run.attr[kb].has_agpr);
    assert_int_equal(run.attr[kb].wg_x, 32);
    struct rp_pass *p = &run.passes[0];
    assert_non_null(strstr(p->layout, "counter_collection rocpd2csv 7.x (20 cols)"));
    assert_non_null(strstr(p->layout, "kernel_trace rocpd2csv 7.x (23 cols)"));
    assert_int_equal(p->launches[kn], 1);
    assert_true(p->dur_ns[kn] == 1678314003082277.0 - 1678314002982197.0);
    /* the 6 trace dispatches after the 3 counted ones have no counters */
    assert_int_equal(p->trace_launches, 9);
    assert_int_equal(p->uncounted_launches, 6);
    rp_run_release(&run);

    /* The power-run reader takes registers and LDS from the same names. */
    struct intern names;
    intern_init(&names);
    struct rp_power pw;
    assert_int_equal(rp_power_load(&pw, &names, g_dir), 0);
    assert_int_equal(pw.dispatches, 9);
    assert_int_equal(pw.vgpr[intern_find(&names, norm, strlen(norm))], 16);
    assert_int_equal(pw.lds[intern_find(&names, norm, strlen(norm))], 8456);
    rp_power_release(&pw);
    intern_release(&names);
    assert_int_equal(tmpdir_remove(g_dir), 0);
    free(g_dir);
    free(kt);
    free(cc);
}

/* A counter file without the attribute columns the occupancy limit needs:
 * one warning per pass and column, naming the file. */
static void test_missing_attr_columns(void **st)
{
    (void)st;
    g_dir = tmpdir_new("rpmiss");
    const char *h = "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\","
                    "\"Start_Timestamp\",\"End_Timestamp\",\"Workgroup_Size\"\n"
                    "1,\"k\",\"SQ_WAVES\",4,100,200,64\n";
    put("01_x/a_counter_collection.csv", h);
    put("01_x/b_counter_collection.csv", h);
    const char *passes[] = { "01_x" };
    struct rp_run run;
    sb_reset(&g_msgs);
    assert_int_equal(rp_run_load(&run, g_dir, passes, 1, 1), 0);
    char *want = xasprintf("W:%s/01_x/a_counter_collection.csv:1: no column VGPR_Count (nor 1 "
                           "other counter file of this pass)", g_dir);
    if (!strstr(g_msgs.buf, want))
        fail_msg("expected '%s' in: %s", want, g_msgs.buf);
    assert_non_null(strstr(g_msgs.buf, "no column LDS_Block_Size"));
    assert_null(strstr(g_msgs.buf, "no column Workgroup_Size"));
    assert_null(strstr(g_msgs.buf, "b_counter_collection.csv"));
    assert_string_equal(run.passes[0].layout, "counter_collection 6.3-like (no Accum_VGPR_Count)");
    free(want);
    rp_run_release(&run);
    assert_int_equal(tmpdir_remove(g_dir), 0);
    free(g_dir);
}

/* Constant fields among the counter rows (rpconst.h) are no counters: left
 * out of the columns, named in constants; the counters beside them keep their
 * sums (k: SQ_WAVES 10 + 30 = 40, GRBM 800 + 2400 = 3200; g: 7, 500). */
static void test_constant_fields(void **st)
{
    (void)st;
    g_dir = tmpdir_new("rpconst");
    struct strbuf a;
    sb_init(&a);
    sb_adds(&a, CC64_H);
    cc_row(&a, 1, "k", 28, 4, "CU_NUM", 304, 1000, 1100);
    cc_row(&a, 1, "k", 28, 4, "SQ_WAVES", 10, 1000, 1100);
    cc_row(&a, 1, "k", 28, 4, "processor_id_low", 2147487744.0, 1000, 1100);
    cc_row(&a, 1, "k", 28, 4, "GRBM_GUI_ACTIVE", 800, 1000, 1100);
    cc_row(&a, 2, "k", 28, 4, "CU_NUM", 304, 2000, 2300);
    cc_row(&a, 2, "k", 28, 4, "SQ_WAVES", 30, 2000, 2300);
    cc_row(&a, 2, "k", 28, 4, "processor_id_low", 2147487744.0, 2000, 2300);
    cc_row(&a, 2, "k", 28, 4, "GRBM_GUI_ACTIVE", 2400, 2000, 2300);
    cc_row(&a, 3, "g", 16, 0, "GRBM_GUI_ACTIVE", 500, 3000, 3050);   /* a second row of kernels */
    cc_row(&a, 3, "g", 16, 0, "CU_NUM", 304, 3000, 3050);
    cc_row(&a, 3, "g", 16, 0, "SQ_WAVES", 7, 3000, 3050);
    put("01_x/01_x_counter_collection.csv", a.buf);
    sb_release(&a);
    const char *passes[] = { "01_x" };
    struct rp_run run;
    assert_int_equal(rp_run_load(&run, g_dir, passes, 1, 1), 0);
    struct rp_pass *p = &run.passes[0];
    assert_int_equal(p->ncounters, 2);
    assert_string_equal(p->counters[0], "SQ_WAVES");
    assert_string_equal(p->counters[1], "GRBM_GUI_ACTIVE");
    assert_null(p->counters[2]);
    assert_int_equal(p->nconstants, 2);
    assert_string_equal(p->constants[0], "CU_NUM");
    assert_string_equal(p->constants[1], "processor_id_low");
    uint32_t k = intern_find(&run.names, "k", 1);
    assert_true(p->csum[k * 2] == 40 && p->csum[k * 2 + 1] == 3200);
    assert_true(p->crows[k * 2] == 2 && p->crows[k * 2 + 1] == 2);
    assert_int_equal(p->launches[k], 2);
    assert_true(p->dur_ns[k] == 400);
    uint32_t g = intern_find(&run.names, "g", 1);
    assert_true(p->csum[g * 2] == 7 && p->csum[g * 2 + 1] == 500);
    rp_run_release(&run);
    assert_int_equal(tmpdir_remove(g_dir), 0);
    free(g_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_split_free_quotes),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_pass_multiprocess),
        cmocka_unit_test(test_62_join),
        cmocka_unit_test(test_power),
        cmocka_unit_test(test_rocpd2csv),
        cmocka_unit_test(test_missing_attr_columns),
        cmocka_unit_test(test_agent_info_rows),
        cmocka_unit_test(test_constant_fields),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
