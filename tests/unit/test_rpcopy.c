/* test_rpcopy.c - memory copy traces: every rocprofv3 layout (the real files
 * of tests/fixtures/amd/<version>/, README there), rocpd2csv, benchrun's
 * NVIDIA file (written by ct_write_row and read back), malformed input, the
 * GPUs a copy occupies, sums by direction, interval unions, and GPU busy %
 * of a power run with copies (known answers worked by hand in comments). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "read/rocprof.h"
#include "read/rpcopy.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "msgcap.h"
#include "tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *fixture(const char *rel)
{
    return xasprintf("%s/tests/fixtures/amd/%s", BR_SOURCE_DIR, rel);
}

static void load_fixture(struct rp_copies *cp, const char *rel)
{
    char *p = fixture(rel);
    memset(cp, 0, sizeof(*cp));
    assert_int_equal(rp_copies_load(cp, p), 0);
    assert_int_equal(cp->nfiles, 1);
    free(p);
}

static int64_t dur(const struct rp_copies *cp, size_t i)
{
    return (int64_t)(cp->v[i].c.end_ns - cp->v[i].c.start_ns);
}

/* 785cc39 (6.2 docs): bare directions and node ids, no newline at the end.
 * 81e93a6 (6.3): prefixed directions. Durations by hand: 14955950239443 -
 * 14955949675563 = 563880, 14955953315285 - 14955952733485 = 581800. */
static void test_layout_6x(void **state)
{
    (void)state;
    const char *files[] = { "6.2/memory_copy_trace.csv", "6.3/memory_copy_trace.csv" };
    for (int f = 0; f < 2; f++) {
        struct rp_copies cp;
        load_fixture(&cp, files[f]);
        assert_string_equal(cp.layouts[0], "6.x (7 cols)");
        assert_int_equal(cp.n, 2);
        assert_int_equal(cp.v[0].c.dir, CT_H2D);
        assert_int_equal(cp.v[0].c.src_agent, CT_HOST);
        assert_int_equal(cp.v[0].c.dst_agent, 1);
        assert_int_equal(dur(&cp, 0), 563880);
        assert_int_equal(cp.v[1].c.dir, CT_D2H);
        assert_int_equal(cp.v[1].c.src_agent, 1);
        assert_int_equal(cp.v[1].c.dst_agent, CT_HOST);
        assert_int_equal(dur(&cp, 1), 581800);
        assert_true(cp.v[0].c.bytes == CT_BYTES_UNKNOWN && cp.v[1].c.bytes == CT_BYTES_UNKNOWN);
        rp_copies_release(&cp);
    }
}

/* 029ff02a (7.x docs data): Stream_Id, bare ids; four host-to-device copies
 * to agent 2 of 101594 + 99629 + 101673 + 99870 = 402766 ns. */
static void test_layout_7x(void **state)
{
    (void)state;
    struct rp_copies cp;
    load_fixture(&cp, "7.0/memory_copy_trace.csv");
    assert_string_equal(cp.layouts[0], "7.x (8 cols)");
    assert_int_equal(cp.n, 4);
    struct rp_copy_sum by[CT_NDIR], all;
    rp_copies_sum(&cp, by, &all);
    assert_int_equal(by[CT_H2D].copies, 4);
    assert_true(by[CT_H2D].time_ns == 402766 && all.time_ns == 402766);
    assert_int_equal(all.unknown_bytes, 4);
    assert_int_equal(all.bytes, 0);
    assert_int_equal(cp.v[2].c.stream, 2);
    assert_int_equal(cp.v[2].c.correlation, 1066);
    assert_int_equal(cp.v[3].c.dst_agent, 2);
    rp_copies_release(&cp);
}

/* The 1.1.0 docs' table ("Agent 0", "Agent 4") and its rocpd2csv form (a
 * Guid first): H2D 77040 + 75361 = 152401 ns, D2H 75440 + 101321 = 176761. */
static void test_layout_agents_rocpd2csv(void **state)
{
    (void)state;
    const char *files[] = { "7.1/memory_copy_trace.csv", "rocpd2csv/out_memory_copy_trace.csv" };
    const char *layouts[] = { "7.x (8 cols)", "rocpd2csv 7.x (9 cols)" };
    for (int f = 0; f < 2; f++) {
        struct rp_copies cp;
        load_fixture(&cp, files[f]);
        assert_string_equal(cp.layouts[0], layouts[f]);
        struct rp_copy_sum by[CT_NDIR];
        rp_copies_sum(&cp, by, NULL);
        assert_true(by[CT_H2D].copies == 2 && by[CT_H2D].time_ns == 152401);
        assert_true(by[CT_D2H].copies == 2 && by[CT_D2H].time_ns == 176761);
        assert_int_equal(cp.v[0].c.dst_agent, 4);
        assert_int_equal(cp.v[3].c.src_agent, 4);
        int32_t g[2];
        assert_int_equal(rp_copy_gpus(&cp.v[0].c, g), 1);
        assert_int_equal(g[0], 4);
        assert_int_equal(rp_copy_gpus(&cp.v[3].c, g), 1);
        assert_int_equal(g[0], 4);
        rp_copies_release(&cp);
    }
}

/* benchrun's NVIDIA file: written by the collector's writer, read back. */
static void test_nvidia_roundtrip(void **state)
{
    (void)state;
    struct ct_copy in[] = {
        { CT_H2D, CT_HOST, 0, 7, 51, 1000, 20001000, 1073741824 },
        { CT_D2D, 0, 0, 7, 52, 30000000, 30503500, 1073741824 },
        { CT_D2D, 0, 1, 3, 53, 40, 90, CT_BYTES_UNKNOWN },   /* peer copy: P2P */
        { CT_SET, 1, 1, 0, 54, 5, 9, 4096 },
        { CT_H2H, CT_HOST, CT_HOST, 0, 55, 100, 130, 64 },
    };
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    fputs(ct_header, fp);
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        assert_int_equal(ct_write_row(fp, &in[i]), 0);
    fclose(fp);
    struct rp_copies cp;
    memset(&cp, 0, sizeof(cp));
    assert_int_equal(rp_copies_read_mem(&cp, "nv_memory_copy_trace.csv", buf, len), 0);
    assert_string_equal(cp.layouts[0], "7.x + Bytes (benchrun CUPTI, 9 cols)");
    assert_int_equal(cp.n, 5);
    assert_int_equal(cp.v[1].c.dir, CT_D2D);
    assert_int_equal(cp.v[2].c.dir, CT_P2P);
    assert_true(cp.v[2].c.bytes == CT_BYTES_UNKNOWN);
    assert_int_equal(cp.v[3].c.dir, CT_SET);
    assert_int_equal(cp.v[4].c.dir, CT_H2H);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(cp.v[i].c.start_ns, in[i].start_ns);
        assert_int_equal(cp.v[i].c.end_ns, in[i].end_ns);
        assert_int_equal(cp.v[i].c.correlation, in[i].correlation);
        assert_int_equal(cp.v[i].c.stream, in[i].stream);
    }
    int32_t g[2];
    assert_int_equal(rp_copy_gpus(&cp.v[0].c, g), 1);   /* H2D: the destination */
    assert_int_equal(g[0], 0);
    assert_int_equal(rp_copy_gpus(&cp.v[2].c, g), 2);   /* P2P: both, source first */
    assert_true(g[0] == 0 && g[1] == 1);
    assert_int_equal(rp_copy_gpus(&cp.v[3].c, g), 1);   /* set: its device */
    assert_int_equal(g[0], 1);
    assert_int_equal(rp_copy_gpus(&cp.v[4].c, g), 0);   /* H2H: no GPU */
    /* by direction: bytes 1 GiB H2D, 1 GiB D2D, the P2P unknown, 4096 set */
    struct rp_copy_sum by[CT_NDIR], all;
    rp_copies_sum(&cp, by, &all);
    assert_true(by[CT_H2D].bytes == 1073741824 && by[CT_H2D].time_ns == 20000000);
    assert_true(by[CT_D2D].bytes == 1073741824 && by[CT_D2D].time_ns == 503500);
    assert_true(by[CT_P2P].unknown_bytes == 1 && by[CT_P2P].bytes == 0);
    assert_true(all.copies == 5 && all.bytes == 2147483648ull + 4096 + 64);
    assert_string_equal(ct_dir_label(CT_P2P), "P2P");
    rp_copies_release(&cp);
    free(buf);
}

static void test_dir_parse(void **state)
{
    (void)state;
    enum ct_dir d;
    static const struct {
        const char *s;
        int rc;
        enum ct_dir d;
    } cases[] = {
        { "MEMORY_COPY_HOST_TO_DEVICE", 0, CT_H2D }, { "HOST_TO_DEVICE", 0, CT_H2D },
        { "memory_copy_device_to_host", 0, CT_D2H }, { "DEVICE_TO_DEVICE", 0, CT_D2D },
        { "MEMORY_COPY_HOST_TO_HOST", 0, CT_H2H }, { "MEMORY_SET_DEVICE", 0, CT_SET },
        { "MEMORY_COPY_NONE", -1, CT_H2D }, { "MEMORY_COPY_", -1, CT_H2D }, { "", -1, CT_H2D },
        { "MEMORY_COPY_HOST_TO_DEVICEX", -1, CT_H2D },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(rp_copy_dir_parse(cases[i].s, strlen(cases[i].s), &d), cases[i].rc);
        if (cases[i].rc == 0)
            assert_int_equal(d, cases[i].d);
    }
}

static const char KT7[] = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
    "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
    "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\","
    "\"Grid_Size_Z\"\n";

static const char H7[] = "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\","
                         "\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\","
                         "\"End_Timestamp\"\n";

/* Reads text (H7 + rows); the return code and the messages. */
static int read_text(const char *rows, struct rp_copies *cp)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, rows);
    memset(cp, 0, sizeof(*cp));
    sb_release(&g_msgs);
    sb_init(&g_msgs);
    int rc = rp_copies_read_mem(cp, "t_memory_copy_trace.csv", sb.buf, sb.len);
    sb_release(&sb);
    return rc;
}

static void expect_error(const char *text, const char *msg)
{
    struct rp_copies cp;
    assert_int_equal(read_text(text, &cp), -1);
    if (!strstr(g_msgs.buf, msg))
        fail_msg("expected '%s' in: %s", msg, g_msgs.buf);
    rp_copies_release(&cp);
}

/* Rows after the 7.x header and the message each must give. */
static const struct {
    const char *row, *msg;
} bad_rows[] = {
    { "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Agent 0\",\"Agent 4\",1,10\n",
      "t_memory_copy_trace.csv:2: wrong number of fields" },
    { "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Agent 0\",\"Agent 4\",1,1x,20\n",
      ":2: Start_Timestamp, End_Timestamp: expected integers" },
    { "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Agent 0\",\"Agent 4\",1,30,20\n",
      ":2: End_Timestamp is before Start_Timestamp" },
    { "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Agent 0\",\"Agent x\",1,10,20\n",
      ":2: Source_Agent_Id, Destination_Agent_Id: expected" },
    { "\"MEMORY_COPY\",\"MEMORY_COPY_DEVICE_TO_DEVICE\",0,\"Host\",\"Agent 4\",1,10,20\n",
      ":2: a device side of the copy is the host" },
    { "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Agent 0\",\"Agent 4\",1,10,99999999999999999999\n",
      ":2: Start_Timestamp, End_Timestamp" },
    { "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE,0,\"Agent 0\",\"Agent 4\",1,10,20\n", ":2:" },
};

static void test_malformed(void **state)
{
    (void)state;
    expect_error("", "empty file");
    expect_error("\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"End_Timestamp\"\n",
                 "has no column Start_Timestamp");
    expect_error("\"Kind\",\"Direction\",\"Start_Timestamp\",\"End_Timestamp\",\"Source_Agent_Id\"\n",
                 "has no column Destination_Agent_Id");
    expect_error("\"Foo\",\"Bar\"\n", "not a rocprofv3");
    expect_error(KT7, "not a memory_copy_trace header");
    for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
        char *t = xasprintf("%s%s", H7, bad_rows[i].row);
        expect_error(t, bad_rows[i].msg);
        free(t);
    }
    expect_error("\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\","
                 "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n"
                 "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Host\",\"Agent 0\",1,10,20,12k\n",
                 ":2: Bytes: expected an integer");
    expect_error("\"Direction\",\"direction\"\n", "same column");
}

/* Header only: a process without copies. Unknown directions are counted,
 * a cut last line dropped with a warning; CRLF and case-insensitive names. */
static void test_lenient(void **state)
{
    (void)state;
    struct rp_copies cp;
    assert_int_equal(read_text(H7, &cp), 0);
    assert_int_equal(cp.n, 0);
    assert_int_equal(cp.nfiles, 1);
    rp_copies_release(&cp);
    char *t = xasprintf("%s\"MEMORY_COPY\",\"MEMORY_COPY_TELEPORT\",0,\"Agent 0\",\"Agent 4\",1,10,20\n"
                        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Agent 0\",\"Agent 4\",2,30,70\n"
                        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEV", H7);
    assert_int_equal(read_text(t, &cp), 0);
    assert_int_equal(cp.n, 1);
    assert_int_equal(cp.unknown, 1);
    assert_string_equal(cp.unknown_at, "t_memory_copy_trace.csv:2: 'MEMORY_COPY_TELEPORT'");
    assert_int_equal(cp.truncated, 1);
    assert_non_null(strstr(g_msgs.buf, ":4: truncated last line ignored"));
    rp_copies_release(&cp);
    free(t);
    assert_int_equal(read_text("\"KIND\",\"direction\",\"source_agent_id\",\"DESTINATION_AGENT_ID\","
                               "\"start_timestamp\",\"END_TIMESTAMP\",\"Extra\"\r\n"
                               "\"MEMORY_COPY\",\"DEVICE_TO_HOST\",3,0,5,9,\"x\"\r\n", &cp), 0);
    assert_int_equal(cp.n, 1);
    assert_true(cp.v[0].c.dir == CT_D2H && cp.v[0].c.src_agent == 3 && dur(&cp, 0) == 4);
    rp_copies_release(&cp);
}

/* Merged unions: [5,10) [0,3) [3,4) [8,12) [20,21) → [0,4) [5,12) [20,21): 4 + 7 + 1. */
static void test_iv_union(void **state)
{
    (void)state;
    int64_t se[] = { 5, 10, 0, 3, 3, 4, 8, 12, 20, 21 };
    double len;
    size_t n = rp_iv_union(se, 5, &len);
    assert_int_equal(n, 3);
    assert_true(len == 12);
    int64_t want[] = { 0, 4, 5, 12, 20, 21 };
    assert_memory_equal(se, want, sizeof(want));
    assert_int_equal(rp_iv_union(se, 0, &len), 0);
    assert_true(len == 0);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char *p = fs_path_join(dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(p);
}

/* A power run of two processes. p: kernels on agent 4 [100,200) [150,300)
 * [500,600); copies H2D to 4 [250,400), D2H from 4 [700,800), P2P 4→5
 * [50,120), a set on 5 [900,950). q: copies only, D2D on 4 [1000,1100).
 * By hand: (p,4) kernels [100,300)+[500,600) = 300; copies [50,120)+[250,400)
 * +[700,800) = 320; all [50,400)+[500,600)+[700,800) = 550 over 50..800 = 750:
 * 73.33 %, kernels 40 %. (p,5) no kernel: [50,120)+[900,950) = 120 of 900.
 * (q,4): 100 of 100. */
static void test_power_busy(void **state)
{
    (void)state;
    char *dir = tmpdir_new("rpcopy");
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, KT7);
    const int64_t k[3][2] = { { 100, 200 }, { 150, 300 }, { 500, 600 } };
    for (int i = 0; i < 3; i++)
        sb_addf(&sb, "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,7,%d,1,\"gemm(float*)\",%d,%lld,%lld,"
                     "0,0,16,0,16,256,1,1,1024,1,1\n", i + 1, i + 1, (long long)k[i][0],
                (long long)k[i][1]);
    write_file(dir, "p_kernel_trace.csv", sb.buf);
    sb_release(&sb);
    write_file(dir, "p_memory_copy_trace.csv",
               "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\","
               "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n"
               "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Host\",\"Agent 4\",1,250,400,100\n"
               "\"MEMORY_COPY\",\"MEMORY_COPY_DEVICE_TO_HOST\",0,\"Agent 4\",\"Host\",2,700,800,200\n"
               "\"MEMORY_COPY\",\"MEMORY_COPY_DEVICE_TO_DEVICE\",0,\"Agent 4\",\"Agent 5\",3,50,120,300\n"
               "\"MEMORY_SET\",\"MEMORY_SET_DEVICE\",0,\"Agent 5\",\"Agent 5\",4,900,950,400\n");
    write_file(dir, "q_memory_copy_trace.csv",
               "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\","
               "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
               "\"MEMORY_COPY\",\"MEMORY_COPY_DEVICE_TO_DEVICE\",0,\"Agent 4\",\"Agent 4\",1,1000,1100\n");
    struct intern names;
    intern_init(&names);
    struct rp_power pw;
    assert_int_equal(rp_power_load(&pw, &names, dir), 0);
    assert_int_equal(pw.copies.n, 5);
    assert_int_equal(pw.ngpus, 3);
    const struct rp_gpu_busy *g = pw.gpu;
    assert_true(g[0].agent == 4 && g[0].file == 0 && g[0].dispatches == 3 && g[0].copies == 3);
    assert_true(g[0].kernel_busy_ns == 300 && g[0].copy_busy_ns == 320 && g[0].busy_ns == 550);
    assert_true(g[0].span_first == 50 && g[0].span_last == 800);
    assert_true(g[0].first_start == 100 && g[0].last_end == 600);   /* kernels: the seed's */
    assert_true(fabs(rp_gpu_busy_pct(&g[0]) - 100.0 * 550 / 750) < 1e-12);
    assert_true(fabs(rp_gpu_kernel_busy_pct(&g[0]) - 40.0) < 1e-12);
    assert_true(g[1].agent == 5 && g[1].file == 0 && g[1].dispatches == 0 && g[1].copies == 2);
    assert_true(g[1].busy_ns == 120 && g[1].first_start == 50 && g[1].last_end == 950);
    assert_true(g[2].agent == 4 && g[2].file == UINT32_MAX && g[2].busy_ns == 100);
    assert_non_null(strstr(rp_gpu_path(&pw, &g[2]), "q_memory_copy_trace.csv"));
    double want = (100.0 * 550 / 750 + 100.0 * 120 / 900 + 100.0) / 3;
    assert_true(fabs(rp_power_busy_pct(&pw) - want) < 1e-9);
    /* the merged copy intervals of (p,4) for the timeline band */
    assert_int_equal(g[0].cv_n, 3);
    assert_true(pw.copy_iv[2 * g[0].cv_first] == 50 && pw.copy_iv[2 * g[0].cv_first + 5] == 800);
    assert_int_equal(pw.dispatches, 3);
    assert_true(pw.first_start == 100 && pw.last_end == 600);   /* the kernel window */
    rp_power_release(&pw);

    /* a kernel trace given as a file brings its twin copy trace */
    char *kt = fs_path_join(dir, "p_kernel_trace.csv");
    char **c = rp_find_copies(kt);
    assert_non_null(c[0]);
    assert_non_null(strstr(c[0], "p_memory_copy_trace.csv"));
    assert_null(c[1]);
    str_array_free(c);
    assert_true(rp_same_file_set(kt, "/x/p_kernel_trace.csv") == 0);
    free(kt);
    assert_true(rp_same_file_set("/a/b_results.db", "/a/b_memory_copy_trace.csv"));
    assert_true(rp_same_file_set("/a/b_kernel_trace.csv", "/a/b_memory_copy_trace.csv"));
    assert_false(rp_same_file_set("/a/b_kernel_trace.csv", "/a/c_memory_copy_trace.csv"));

    /* copies only (no kernel trace at all): read, not an error */
    char *only = fs_path_join(dir, "only");
    assert_int_equal(fs_mkdir_p(only), 0);
    write_file(only, "r_memory_copy_trace.csv",
               "\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\","
               "\"Start_Timestamp\",\"End_Timestamp\"\n\"MEMORY_COPY\",\"HOST_TO_DEVICE\",0,2,0,10,30\n");
    assert_int_equal(rp_power_load(&pw, &names, only), 0);
    assert_true(pw.dispatches == 0 && pw.ngpus == 1 && pw.gpu[0].busy_ns == 20);
    rp_power_release(&pw);
    free(only);
    intern_release(&names);
    tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_6x),
        cmocka_unit_test(test_layout_7x),
        cmocka_unit_test(test_layout_agents_rocpd2csv),
        cmocka_unit_test(test_nvidia_roundtrip),
        cmocka_unit_test(test_dir_parse),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_lenient),
        cmocka_unit_test(test_iv_union),
        cmocka_unit_test(test_power_busy),
    };
    return cmocka_run_group_tests(tests, msgcap_setup, msgcap_teardown);
}
