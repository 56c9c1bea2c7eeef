/* test_nodeclock.c - the per-node sampled clock (read/telread.h picks each
 * node's in-kernel samples, mx_clock_stats pools them) and the node helpers
 * of read/nodepath.h. CLOCK_BOOTTIME is per node: two node
 * folders whose clocks are 3 days apart; each node's samples must be matched
 * against its own trace only (known answers), and a union over both nodes
 * would pick up samples of the other node's clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sampledclock.h"
#include "tmpdir.h"

#include "metrics/metrics.h"
#include "model/intern.h"
#include "read/nodepath.h"
#include "read/rocprof.h"
#include "read/telread.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define D 259200000000000LL   /* 3 days in ns */
#define TH "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\"," \
           "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\"," \
           "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\"," \
           "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\"," \
           "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"

static char dir[] = "/tmp/h13nodeXXXXXX";

static void put(const char *rel, const char *text)
{
    char *p = xasprintf("%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(p);
}

/* One kernel [off + 100, off + 200] on node's trace. */
static void trace(const char *node, long long off)
{
    char *d = xasprintf("%s/ktrace_app/%s", dir, node);
    mkdir(d, 0755);
    free(d);
    char *rel = xasprintf("ktrace_app/%s/app_1_kernel_trace.csv", node);
    char *t = xasprintf(TH "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,1,3,\"k\",1,%lld,%lld,"
                        "0,0,8,0,16,64,1,1,64,1,1\n", off + 100, off + 200);
    put(rel, t);
    free(rel);
    free(t);
}

/* Samples at off + 150 (inside its kernel, clock in_mhz) and at the other
 * node's kernel time other + 150 (clock 100: used only by a union). */
static void telem(const char *node, long long off, long long other, double in_mhz)
{
    char *rel = xasprintf("profiling_result_app_%s_0.csv", node);
    char *t = xasprintf("node=%s device=0 clock=CLOCK_BOOTTIME\n"
                        "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,"
                        "edge_temp_C,hotspot_temp_C\n"
                        "%lld,100,100,%g,nan,50\n%lld,100,100,100,nan,50\n",
                        node, off + 150, in_mhz, other + 150);
    put(rel, t);
    free(rel);
    free(t);
}

static int setup(void **st)
{
    (void)st;
    strcpy(dir, "/tmp/h13nodeXXXXXX");
    assert_non_null(mkdtemp(dir));
    char *k = xasprintf("%s/ktrace_app", dir);
    mkdir(k, 0755);
    free(k);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    int rc = tmpdir_remove(dir);
    return rc == 0 ? 0 : -1;
}

static void test_path_in_node(void **st)
{
    (void)st;
    assert_true(rp_path_in_node("/r", "/r/ktrace_a/n1/x_kernel_trace.csv", "n1"));
    assert_true(rp_path_in_node("/r/", "/r/n1/x.csv", "n1"));
    assert_false(rp_path_in_node("/r", "/r/ktrace_a/n1/x_kernel_trace.csv", "n"));
    assert_false(rp_path_in_node("/r", "/r/ktrace_a/n1", "n1"));     /* the file itself */
    assert_false(rp_path_in_node("/n1", "/n1/ktrace_a/x.csv", "n1")); /* root excluded */
    assert_true(rp_path_in_node("/q", "ktrace_a/n1/x.csv", "n1"));    /* not under root */
    assert_false(rp_path_in_node("/r", "/r/n1/x.csv", ""));
    assert_false(rp_path_in_node("/r", "/r/n1/x.csv", NULL));
}

static void load(struct rp_power *pw, struct intern *names)
{
    intern_init(names);
    char *kt = xasprintf("%s/ktrace_app", dir);
    assert_int_equal(rp_power_load(pw, names, kt), 0);
    free(kt);
}

static void test_clock_per_node(void **st)
{
    (void)st;
    trace("nid001", 0);
    trace("nid002", D);
    telem("nid001", 0, D, 1800);
    telem("nid002", D, 0, 1200);
    struct rp_power pw;
    struct intern names;
    load(&pw, &names);
    assert_int_equal(pw.ngpus, 2);
    assert_int_equal(pw.gpu[0].iv_n + pw.gpu[1].iv_n, pw.nbusy_iv);
    char *f[3] = { xasprintf("%s/profiling_result_app_nid001_0.csv", dir),
                   xasprintf("%s/profiling_result_app_nid002_0.csv", dir), NULL };
    char *n1 = rp_telem_node(f[0]);
    assert_string_equal(n1, "nid001");
    free(n1);
    char *root = xasprintf("%s/ktrace_app", dir);
    struct mx_clock_stats cs;
    assert_int_equal(sampled_clock(f, 2, NULL, 0, &pw, root, &cs), 0);
    assert_int_equal(cs.samples_running, 2);         /* one in-kernel sample per node */
    assert_true(fabs(cs.mean - 1500) < 1e-9);
    /* the union over both nodes (what a single window would do) also takes
     * each node's sample at the other node's kernel time */
    assert_int_equal(sampled_clock(f, 2, pw.busy_iv, pw.nbusy_iv, NULL, NULL, &cs), 0);
    assert_int_equal(cs.samples_running, 4);
    free(root), free(f[0]), free(f[1]);
    rp_power_release(&pw);
    intern_release(&names);
}

/* Traces outside node folders (single-node layout): all intervals, as before;
 * a file without node metadata too. */
static void test_clock_flat(void **st)
{
    (void)st;
    trace(".", 0);
    put("profiling_result_app_0.csv", "device=0 node=none\ntimestamp_ns,current_socket_power_W,"
        "inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C\n150,1,1,1700,nan,50\n"
        "300,1,1,100,nan,50\n");
    struct rp_power pw;
    struct intern names;
    load(&pw, &names);
    char *f[2] = { xasprintf("%s/profiling_result_app_0.csv", dir), NULL };
    assert_null(rp_telem_node(f[0]));
    char *root = xasprintf("%s/ktrace_app", dir);
    struct mx_clock_stats cs;
    assert_int_equal(sampled_clock(f, 1, NULL, 0, &pw, root, &cs), 0);
    assert_int_equal(cs.samples_running, 1);
    assert_int_equal(cs.samples_total, 2);
    assert_true(fabs(cs.mean - 1700) < 1e-9);
    free(root), free(f[0]);
    rp_power_release(&pw);
    intern_release(&names);
}

/* A node without its own trace folder contributes no sample (warning). */
static void test_clock_node_without_trace(void **st)
{
    (void)st;
    trace("nid001", 0);
    telem("nid001", 0, D, 1800);
    telem("nid002", D, 0, 1200);
    struct rp_power pw;
    struct intern names;
    load(&pw, &names);
    char *f[3] = { xasprintf("%s/profiling_result_app_nid001_0.csv", dir),
                   xasprintf("%s/profiling_result_app_nid002_0.csv", dir), NULL };
    char *root = xasprintf("%s/ktrace_app", dir);
    struct mx_clock_stats cs;
    assert_int_equal(sampled_clock(f, 2, NULL, 0, &pw, root, &cs), 0);
    assert_int_equal(cs.samples_running, 1);
    assert_true(fabs(cs.mean - 1800) < 1e-9);
    free(root), free(f[0]), free(f[1]);
    rp_power_release(&pw);
    intern_release(&names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_in_node),
        cmocka_unit_test_setup_teardown(test_clock_per_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clock_flat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clock_node_without_trace, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
