/* test_powersum.c - the power summary's alignment evidence (read/psumread.c,
 * metrics/powersum.c):
 * one node (clock_ref.txt) and multi-node runs, where CLOCK_BOOTTIME is per
 * node: each node's first sample and first kernel against its own
 * clock_ref_<node>.txt, on two nodes whose clocks are 3 days apart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include "analysis/analyze.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define D 259200000000000LL
#define TH "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\"," \
           "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\"," \
           "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\"," \
           "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\"," \
           "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
#define H "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C," \
          "hotspot_temp_C\n"

static char dir[32];

static void put(const char *rel, const char *text)
{
    char *p = xasprintf("%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(p);
}

static void sub(const char *rel)
{
    char *p = xasprintf("%s/%s", dir, rel);
    mkdir(p, 0755);
    free(p);
}

static int setup(void **st)
{
    (void)st;
    strcpy(dir, "/tmp/h13psumXXXXXX");
    assert_non_null(mkdtemp(dir));
    sub("ktrace_app");
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    int rc = tmpdir_remove(dir);
    return rc == 0 ? 0 : -1;
}

/* Node off: clock_ref at off, samples from off + 1e8, kernel at off + 5e8 (ns). */
static void node(const char *name, long long off)
{
    char *t = xasprintf("boottime_ns=%lld monotonic_ns=1\n", off);
    char *rel = xasprintf("clock_ref_%s.txt", name);
    put(rel, t);
    free(t), free(rel);
    for (int g = 0; g < 2; g++) {
        t = xasprintf("node=%s device=%d\n" H "%lld,100,100,1000,nan,50\n%lld,100,100,1000,nan,"
                      "50\n", name, g, off + 100000000LL + g, off + 900000000LL);
        rel = xasprintf("profiling_result_app_%s_%d.csv", name, g);
        put(rel, t);
        free(t), free(rel);
    }
    rel = xasprintf("ktrace_app/%s", name);
    sub(rel);
    free(rel);
    t = xasprintf(TH "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,1,3,\"k\",1,%lld,%lld,0,0,8,0,16,"
                  "64,1,1,64,1,1\n", off + 500000000LL, off + 600000000LL);
    rel = xasprintf("ktrace_app/%s/app_7_kernel_trace.csv", name);
    put(rel, t);
    free(t), free(rel);
}

static double real_of(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    assert_true(json_is_real(v));
    return json_real_value(v);
}

static void test_per_node(void **st)
{
    (void)st;
    node("nid001", 1000000000LL);
    node("nid002", D);
    char *kt = xasprintf("%s/ktrace_app", dir);
    json_t *o = an_power_summary(dir, "app", kt);
    assert_int_equal(json_integer_value(json_object_get(o, "telemetry_files")), 4);
    assert_int_equal(json_integer_value(json_object_get(o, "kernels_traced")), 2);
    assert_true(json_is_null(json_object_get(o, "clock_ref_boottime_ns")));
    json_t *nodes = json_object_get(o, "nodes");
    assert_int_equal(json_array_size(nodes), 2);
    const char *names[2] = { "nid001", "nid002" };
    for (size_t i = 0; i < 2; i++) {
        json_t *n = json_array_get(nodes, i);
        assert_string_equal(json_string_value(json_object_get(n, "node")), names[i]);
        assert_true(fabs(real_of(n, "first_sample_after_ref_s") - 0.1) < 1e-9);
        assert_true(fabs(real_of(n, "first_kernel_after_ref_s") - 0.5) < 1e-9);
        assert_int_equal(json_integer_value(json_object_get(n, "kernels_traced")), 1);
    }
    assert_int_equal(json_integer_value(json_object_get(json_array_get(nodes, 1),
                                                        "clock_ref_boottime_ns")), D);
    json_decref(o);
    free(kt);
}

/* Node i of the summary: its kernels and first kernel after its clock_ref
 * (s; NaN: no kernel, first_kernel_ns null). */
static void check_node(json_t *o, size_t i, json_int_t kernels, double after_s)
{
    json_t *nodes = json_object_get(o, "nodes");
    assert_int_equal(json_array_size(nodes), 2);
    json_t *n = json_array_get(nodes, i);
    assert_int_equal(json_integer_value(json_object_get(n, "kernels_traced")), kernels);
    if (isnan(after_s))
        assert_true(json_is_null(json_object_get(n, "first_kernel_ns")));
    else
        assert_true(fabs(real_of(n, "first_kernel_after_ref_s") - after_s) < 1e-9);
}

/* A node's figures are over all of its GPUs' traces: the kernels summed, the
 * earliest start (a second process on nid001 started at off + 2e8). */
static void test_node_two_traces(void **st)
{
    (void)st;
    node("nid001", 1000000000LL);
    node("nid002", D);
    put("ktrace_app/nid001/app_8_kernel_trace.csv",
        TH "\"KERNEL_DISPATCH\",\"Agent 5\",1,1,9,1,3,\"k\",1,1200000000,1300000000,0,0,8,0,"
        "16,64,1,1,64,1,1\n\"KERNEL_DISPATCH\",\"Agent 5\",1,1,9,2,3,\"k\",2,1400000000,"
        "1450000000,0,0,8,0,16,64,1,1,64,1,1\n");
    char *kt = xasprintf("%s/ktrace_app", dir);
    json_t *o = an_power_summary(dir, "app", kt);
    assert_int_equal(json_integer_value(json_object_get(o, "kernels_traced")), 4);
    check_node(o, 0, 3, 0.2);
    check_node(o, 1, 1, 0.5);
    json_decref(o);
    free(kt);
}

/* One node's trace cannot be read: the run's total is unknown (0), the
 * other node's evidence is still there. */
static void test_node_trace_unreadable(void **st)
{
    (void)st;
    node("nid001", 1000000000LL);
    node("nid002", D);
    put("ktrace_app/nid002/app_7_kernel_trace.csv",
        TH "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,1,3,\"k\",1,soon,later,0,0,8,0,16,64,1,1,"
        "64,1,1\n");
    char *kt = xasprintf("%s/ktrace_app", dir);
    json_t *o = an_power_summary(dir, "app", kt);
    assert_int_equal(json_integer_value(json_object_get(o, "kernels_traced")), 0);
    check_node(o, 0, 1, 0.5);
    check_node(o, 1, 0, NAN);
    json_decref(o);
    free(kt);
}

static void test_one_node(void **st)
{
    (void)st;
    put("clock_ref.txt", "boottime_ns=1000\n");
    put("profiling_result_app_0.csv", "device=0\n" H "3000,1,1,1,nan,50\n");
    put("ktrace_app/app_kernel_trace.csv", TH "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,1,3,\"k\""
        ",1,5000,6000,0,0,8,0,16,64,1,1,64,1,1\n");
    char *kt = xasprintf("%s/ktrace_app", dir);
    json_t *o = an_power_summary(dir, "app", kt);
    assert_null(json_object_get(o, "nodes"));
    assert_true(fabs(real_of(o, "first_sample_after_ref_s") - 2e-6) < 1e-15);
    assert_true(fabs(real_of(o, "first_kernel_after_ref_s") - 4e-6) < 1e-15);
    json_decref(o);
    free(kt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_per_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_two_traces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_trace_unreadable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_node, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
