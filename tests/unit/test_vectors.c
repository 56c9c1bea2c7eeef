/* test_vectors.c - telemetry vectors (src/vectors/): numpy.arange edges and
 * bin membership against tables derived by hand from numpy 1.24 output,
 * Python round()/repr(), and vec_compute() known answers on small power-run
 * folders: trimming, pooling, per-GPU and multi-node names, all-NaN column,
 * no sample in range, malformed telemetry, TDP from the arch profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msgcap.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "vectors/binning.h"
#include "util/jsonw.h"
#include "vectors/vectors.h"

/* repr() of every element of numpy.arange(0.5, 2.05, 0.1) (numpy 1.24). */
static const char *const power_edges[] = {
    "0.5", "0.6", "0.7", "0.7999999999999999", "0.8999999999999999", "0.9999999999999999",
    "1.0999999999999999", "1.1999999999999997", "1.2999999999999998", "1.4",
    "1.4999999999999998", "1.5999999999999996", "1.6999999999999997", "1.7999999999999998",
    "1.8999999999999997", "1.9999999999999996",
};

static void test_arange_tables(void **state)
{
    (void)state;
    double e[40];
    assert_int_equal(vec_arange(0.5, 2.05, 0.1, NULL, 0), 16);
    assert_int_equal(vec_arange(0.5, 2.05, 0.1, e, 40), 16);
    for (size_t i = 0; i < 16; i++) {
        double want = strtod(power_edges[i], NULL);
        if (memcmp(&e[i], &want, sizeof(double)) != 0)
            fail_msg("edge %zu: %.17g, numpy %s", i, e[i], power_edges[i]);
    }
    assert_int_equal(vec_arange(0, 2300, 100, e, 40), 23);
    for (int i = 0; i < 23; i++)
        assert_true(e[i] == 100.0 * i);
    assert_int_equal(vec_arange(30, 115, 5, e, 40), 17);
    for (int i = 0; i < 17; i++)
        assert_true(e[i] == 30 + 5.0 * i);
    assert_int_equal(vec_arange(1, 1, 0.1, e, 40), 0);
    assert_int_equal(vec_arange(2, 1, 0.1, e, 40), 0);
    assert_int_equal(vec_arange(0.5, 2.05, 0.1, e, 3), 3);   /* capped by max */
    /* The trap the brief names: the naive edge is one ulp-ish above 1.2. */
    volatile double seven = 7, tenth = 0.1;
    assert_true(0.5 + seven * tenth == 1.2000000000000002);
    assert_true(e[2] == 0.7);
}

/* Reference membership by linear scan over given edges. */
static long scan_index(const double *e, size_t n, double x)
{
    if (!(x >= e[0]))
        return -1;
    for (size_t i = 0; i + 1 < n; i++)
        if (e[i] <= x && x < e[i + 1])
            return (long)i;
    return (long)n - 1;
}

static void test_bin_examples(void **state)
{
    (void)state;
    double e[16];
    vec_arange(0.5, 2.05, 0.1, e, 16);
    /* Hand table: W / 750 -> entry (numpy edges); naive entry in comment. */
    static const struct { double watts; long entry; } t[] = {
        { 374, -1 }, { 375, 0 }, { 449.99, 0 }, { 450, 1 },
        { 900, 7 },   /* 1.2 >= 1.1999999999999997; naive edges: 6 */
        { 1275, 12 }, /* 1.7 >= 1.6999999999999997; naive: 11 */
        { 1425, 14 }, /* 1.9 >= 1.8999999999999997; naive: 13 */
        { 1499.99, 14 }, { 1500, 15 } /* 2.0 >= last edge: in no entry */, { 3000, 15 },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        long got = vec_bin_index(e, 16, 0.1, t[i].watts / 750.0);
        if (got != t[i].entry)
            fail_msg("%g W: entry %ld, want %ld", t[i].watts, got, t[i].entry);
    }
    assert_true(900.0 / 750.0 == 1.2 && 1275.0 / 750.0 == 1.7 && 1425.0 / 750.0 == 1.9);
    /* With naive edges 1.2 would fall one entry lower. */
    double naive[16];
    for (int i = 0; i < 16; i++) {
        volatile double vi = i;
        naive[i] = 0.5 + vi * 0.1;
    }
    assert_int_equal(scan_index(naive, 16, 1.2), 6);
    assert_int_equal(scan_index(naive, 16, 1.7), 11);
    assert_int_equal(scan_index(naive, 16, 1.9), 13);
    assert_int_equal(vec_bin_index(e, 16, 0.1, NAN), -1);
    assert_int_equal(vec_bin_index(e, 16, 0.1, INFINITY), 15);
    assert_int_equal(vec_bin_index(e, 16, 0.1, -INFINITY), -1);
}

/* On, one ulp below and one ulp above every edge of every vector. */
static void test_bin_every_edge(void **state)
{
    (void)state;
    for (int s = 0; s < VEC_NSPECS; s++) {
        const struct vec_spec *sp = &vec_specs[s];
        double e[40];
        size_t n = vec_arange(sp->lo, sp->hi, sp->step, e, 40);
        for (size_t i = 0; i < n; i++) {
            double xs[3] = { e[i], nextafter(e[i], -INFINITY), nextafter(e[i], INFINITY) };
            for (int k = 0; k < 3; k++) {
                long got = vec_bin_index(e, n, sp->step, xs[k]);
                long want = scan_index(e, n, xs[k]);
                if (got != want)
                    fail_msg("%s x=%.17g: %ld, want %ld", sp->name, xs[k], got, want);
            }
            long on = vec_bin_index(e, n, sp->step, e[i]);
            assert_int_equal(on, (long)i);
        }
    }
}

static void test_round4(void **state)
{
    (void)state;
    /* Python 3.11: round(x, 4). */
    static const struct { double x, want; } t[] = {
        { 0.03125, 0.0312 },   /* exact tie: to even */
        { 0.09375, 0.0938 },   /* exact tie: to even */
        { 0.12345, 0.1235 },   /* 0.12345 is slightly above the tie */
        { 0.00005, 0.0001 },
        { 2.0 / 3.0, 0.6667 },
        { 1.0 / 3.0, 0.3333 },
        { 0.5, 0.5 }, { 0, 0 }, { 1, 1 },
        { 0.99995, 1.0 },      /* 0.99995000000000000551 */
        { 0.00004999, 0.0 },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (vec_round4(t[i].x) != t[i].want)
            fail_msg("round(%.17g, 4) = %.17g, want %.17g", t[i].x, vec_round4(t[i].x), t[i].want);
}

static void test_repr(void **state)
{
    (void)state;
    /* Python 3.11 repr(). */
    static const struct { double x; const char *want; } t[] = {
        { 1e-5, "1e-05" }, { 1e16, "1e+16" }, { 123456789012345678.0, "1.2345678901234568e+17" },
        { 0.0001, "0.0001" }, { -0.0, "-0.0" }, { 2200, "2200.0" }, { 1.5e-7, "1.5e-07" },
        { 0.1, "0.1" }, { 1.1999999999999997, "1.1999999999999997" }, { 0.0312, "0.0312" },
        { 1234567890123456.0, "1234567890123456.0" }, { 0.5, "0.5" }, { -2.5, "-2.5" },
        { 1e300, "1e+300" }, { 5e-324, "5e-324" }, { 750, "750.0" }, { 0.2, "0.2" },
        { 0.00012345, "0.00012345" }, { 12.5, "12.5" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char buf[48];
        jw_repr_double(buf, sizeof(buf), t[i].x);
        if (strcmp(buf, t[i].want) != 0)
            fail_msg("repr(%.17g) = '%s', want '%s'", t[i].x, buf, t[i].want);
    }
}

static void test_jsonw(void **state)
{
    (void)state;
    struct strbuf sb;
    sb_init(&sb);
    struct jsonw w;
    jw_init(&w, &sb);
    jw_obj_begin(&w);
    jw_kstr(&w, "a\"b", "x\ny\x01");
    jw_key(&w, "v");
    jw_arr_begin_inline(&w);
    jw_num(&w, 0.1);
    jw_num(&w, NAN);
    jw_int(&w, -3);
    jw_arr_end(&w);
    jw_key(&w, "e");
    jw_arr_begin(&w);
    jw_arr_end(&w);
    jw_key(&w, "o");
    json_t *j = json_pack("{s:i, s:[b, n, s]}", "k", 1, "l", 1, "z");
    jw_json(&w, j);
    json_decref(j);
    jw_obj_end(&w);
    assert_string_equal(sb.buf,
        "{\n  \"a\\\"b\": \"x\\ny\\u0001\",\n  \"v\": [0.1, null, -3],\n  \"e\": [],\n"
        "  \"o\": {\n    \"k\": 1,\n    \"l\": [\n      true,\n      null,\n      \"z\"\n"
        "    ]\n  }\n}\n");
    sb_release(&sb);
}

/* ---- vec_compute on small run folders ------------------------------------ */

#define HDR "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C," \
            "hotspot_temp_C,energy_J\n"
#define TRACE_HDR "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\"," \
    "\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\"," \
    "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\"," \
    "\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\"," \
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"

static char *g_dir, *g_root;

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

static void trace(long long start, long long end)
{
    char *t = xasprintf(TRACE_HDR "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,7,1,10,\"void k(int)\",1,"
                        "%lld,%lld,0,0,8,0,16,64,1,1,1024,1,1\n"
                        "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,7,2,10,\"void k(int)\",2,"
                        "%lld,%lld,0,0,8,0,16,64,1,1,1024,1,1\n",
                        start, start + 10, end - 10, end);
    put("ktrace_demo/host/77_kernel_trace.csv", t);
    free(t);
}

static int dir_setup(void **state)
{
    msgcap_setup(state);
    char tmpl[] = "/tmp/test_vectors.XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    g_root = xstrdup(tmpl);
    g_dir = fs_path_join(tmpl, "prof-77");
    assert_int_equal(fs_mkdir_p(g_dir), 0);
    return 0;
}

static int dir_teardown(void **state)
{
    if (tmpdir_remove(g_root) != 0)
        fprintf(stderr, "cannot clean %s\n", g_dir);
    free(g_dir);
    free(g_root);
    return msgcap_teardown(state);
}

static int find_gpu(const struct vec_result *r, const char *suffix)
{
    for (size_t i = 0; i < r->ngpus; i++)
        if (strcmp(r->gpus[i].suffix, suffix) == 0)
            return (int)i;
    return -1;
}

/* Two GPUs; window [1500, 6500]; hand-computed counts and fractions. */
static void test_compute_pooled(void **state)
{
    (void)state;
    put("profiling_result_demo_0.csv", "# device=0 interval_ms=1 backend=sim\n" HDR
        "1000,300,300,138,nan,40,0\n"     /* before the window */
        "2000,900,900,2100,nan,50,1\n"    /* 1.2 -> 7 */
        "3000,1275,1275,2200,nan,60,2\n"  /* 1.7 -> 12; 2200 MHz above */
        "4000,1425,1425,1500,nan,70,3\n"  /* 1.9 -> 14 */
        "5000,1500,1500,99,nan,115,4\n"   /* 2.0 above; 115 C above */
        "6000,375,nan,2299,nan,29,5\n"    /* 0.5 -> 0 (socket); inst nan; 29 C out */
        "7000,600,600,100,nan,30,6\n");   /* after the window */
    put("profiling_result_demo_1.csv", "# device=1 interval_ms=1 backend=sim\n" HDR
        "1500,374,374,0,nan,30,0\n"       /* 0.49866 out; 0 MHz -> 0; 30 C -> 0 */
        "6500,450,450,100,nan,34.999,1\n" /* 0.6 -> 1; 100 -> 1; 34.999 -> 0 */
        "6501,750,750,100,nan,35,1\n");   /* after */
    trace(1500, 6500);
    struct vec_opts o = { .prof_dir = g_dir, .tdp_W = 750, .per_gpu = true };
    struct vec_result r;
    assert_int_equal(vec_compute(&o, &r), 0);
    assert_int_equal(r.ngpus, 2);
    assert_true(r.win.trimmed && r.win.start == 1500 && r.win.end == 6500);
    assert_int_equal(r.win.dispatches, 2);
    assert_int_equal(r.rows, 10);
    assert_int_equal(r.used, 7);
    assert_int_equal(r.gpus[0].before, 1);
    assert_int_equal(r.gpus[0].after, 1);
    assert_int_equal(r.gpus[1].after, 1);
    const struct vec_hist *sp = &r.pooled[1], *ip = &r.pooled[0];
    /* socket: 900,1275,1425,1500,375 (gpu0) + 450 (gpu1); 374 out. */
    assert_int_equal(sp->population, 6);
    assert_int_equal(sp->above, 1);
    assert_int_equal(sp->count[0], 1);
    assert_int_equal(sp->count[1], 1);
    assert_int_equal(sp->count[7], 1);
    assert_int_equal(sp->count[12], 1);
    assert_int_equal(sp->count[14], 1);
    assert_true(vec_fraction(sp, 7) == 0.1667);   /* round(1/6, 4) */
    /* inst: same minus the nan one. */
    assert_int_equal(ip->population, 5);
    assert_int_equal(ip->count[0], 0);
    assert_true(vec_fraction(ip, 7) == 0.2);
    /* clock: 2100,2200,1500,99,2299 + 0,100: 2200 and 2299 above. */
    const struct vec_hist *fp = &r.pooled[2];
    assert_int_equal(fp->population, 7);
    assert_int_equal(fp->above, 2);
    assert_int_equal(fp->count[0], 2);
    assert_int_equal(fp->count[1], 1);
    assert_true(vec_fraction(fp, 0) == 0.2857);   /* 2/7 */
    /* hotspot: 50,60,70,115 + 30,34.999; 29 out. */
    const struct vec_hist *hp = &r.pooled[3];
    assert_int_equal(hp->population, 6);
    assert_int_equal(hp->count[0], 2);
    assert_int_equal(hp->above, 1);
    /* edge temp all nan: skipped with a reason. */
    char *why = vec_skip_reason(&vec_specs[4], &r.pooled[4], r.used);
    assert_non_null(why);
    assert_non_null(strstr(why, "no valid samples in edge_temp_C (sensor not exposed: all nan)"));
    free(why);
    assert_null(vec_skip_reason(&vec_specs[0], ip, r.used));
    /* Per GPU. */
    int g1 = find_gpu(&r, "gpu1");
    assert_true(g1 >= 0);
    assert_int_equal(r.gpus[g1].h[1].population, 1);
    assert_true(vec_fraction(&r.gpus[g1].h[1], 1) == 1.0);
    assert_true(r.ival.requested_ms == 1.0);
    assert_int_equal(r.ival.gaps, 8);
    assert_true(r.ival.max_ms == 0.005);
    char *out = fs_path_join(g_dir, "v.json");
    assert_int_equal(vec_write_json(&o, &r, out), 0);
    json_error_t err;
    json_t *j = json_load_file(out, 0, &err);
    assert_non_null(j);
    assert_int_equal(json_array_size(json_object_get(j, "socket_power")), 15);
    assert_true(json_real_value(json_array_get(json_object_get(j, "socket_power"), 7)) == 0.1667);
    assert_non_null(json_object_get(j, "inst_power_gpu1"));
    assert_null(json_object_get(j, "edge_temp"));
    assert_null(json_object_get(j, "edge_temp_gpu0"));
    json_t *d = json_object_get(j, "description");
    assert_int_equal(json_integer_value(json_object_get(d, "samples_used")), 7);
    assert_int_equal(json_array_size(json_object_get(d, "skipped_vectors")), 3);
    json_decref(j);
    free(out);
    vec_result_release(&r);

    /* --no-trim keeps every sample. */
    o.no_trim = true;
    assert_int_equal(vec_compute(&o, &r), 0);
    assert_false(r.win.trimmed);
    assert_int_equal(r.used, 10);
    assert_int_equal(r.pooled[1].population, 8);   /* + 600 (0.8), 750 (1.0); 300 out */
    vec_result_release(&r);
}

static void test_compute_multinode_no_trace(void **state)
{
    (void)state;
    put("profiling_result_my_app_nid001_0.csv", "x=1\n" HDR "1,750,750,1000,45,50,0\n");
    put("profiling_result_my_app_nid001_1.csv", "x=1\n" HDR "1,750,750,1000,45,50,0\n");
    put("profiling_result_my_app_nid002_0.csv", "clock=CLOCK_REALTIME\n" HDR "1,100,100,1000,45,50,0\n");
    put("profiling_result_my_app_nid001_0_driver_power.csv", "not,a,telemetry,file\n");
    struct vec_opts o = { .prof_dir = g_dir, .tdp_W = 500, .per_gpu = true };
    struct vec_result r;
    assert_int_equal(vec_compute(&o, &r), 0);
    assert_int_equal(r.ngpus, 3);
    assert_string_equal(r.gpus[0].suffix, "nid001_gpu0");
    assert_string_equal(r.gpus[1].suffix, "nid001_gpu1");
    assert_string_equal(r.gpus[2].suffix, "nid002_gpu0");
    assert_false(r.win.trimmed);
    assert_non_null(strstr(g_msgs.buf, "no kernel trace found"));
    assert_non_null(strstr(g_msgs.buf, "profiling_result_my_app_nid002_0.csv: timestamps on "
                                       "clock=CLOCK_REALTIME"));
    /* 750/500 = 1.5 >= 1.4999999999999998 -> entry 10; 100/500 out. */
    assert_int_equal(r.pooled[0].population, 2);
    assert_int_equal(r.pooled[0].count[10], 2);
    char *why = vec_skip_reason(&vec_specs[0], &r.gpus[2].h[0], r.gpus[2].used);
    assert_non_null(strstr(why, "no sample at or above the first edge"));
    free(why);
    assert_null(vec_skip_reason(&vec_specs[4], &r.pooled[4], r.used));   /* edge temp here */
    vec_result_release(&r);
}

static void test_compute_errors(void **state)
{
    (void)state;
    struct vec_opts o = { .prof_dir = g_dir, .tdp_W = 750 };
    struct vec_result r;
    assert_int_equal(vec_compute(&o, &r), -1);
    assert_non_null(strstr(g_msgs.buf, "no telemetry file"));
    vec_result_release(&r);

    put("profiling_result_t_0.csv", "x=1\n" HDR "100,1,2,3,4,5,6\n200,1,2,x,4,5,6\n");
    sb_reset(&g_msgs);
    assert_int_equal(vec_compute(&o, &r), -1);
    assert_non_null(strstr(g_msgs.buf, "profiling_result_t_0.csv:4: column 'gfx_clock_MHz'"));
    vec_result_release(&r);

    put("profiling_result_t_0.csv", "x=1\n" HDR "100,1,2,3,4,5,6\n200,1,2,3,4,5,6\n");
    trace(5000, 9000);
    sb_reset(&g_msgs);
    assert_int_equal(vec_compute(&o, &r), -1);
    assert_non_null(strstr(g_msgs.buf, "no telemetry sample inside the kernel window [5000, 9000]"));
    vec_result_release(&r);

    o.tdp_W = 0;                          /* no --tdp, no arch anywhere */
    sb_reset(&g_msgs);
    assert_int_equal(vec_compute(&o, &r), -1);
    assert_non_null(strstr(g_msgs.buf, "pass --arch NAME or --tdp W"));
    vec_result_release(&r);
}

/* TDP from share/benchrun/arch/<arch>.json ("tdp_W"), arch from run.json. */
static void test_compute_tdp_profile(void **state)
{
    (void)state;
    char *share = fs_path_join(g_dir, "../share");
    setenv("BENCHRUN_SHARE", share, 1);
    put("../share/arch/gfxtest.json", "{\"name\": \"gfxtest\", \"tdp_W\": 600}");
    put("../share/arch/gfxnotdp.json", "{\"name\": \"gfxnotdp\"}");
    put("../share/arch/gfxconst.json", "{\"product\": \"Test GPU\", "
                                       "\"constants\": {\"TDP_W\": 400}}");
    put("run.json", "{\"workload\": \"lammps\", \"job_id\": \"77\", \"gpu_arch\": \"gfxtest\"}");
    put("profiling_result_w_0.csv", "x=1\n" HDR "100,600,600,3,4,5,6\n");
    struct vec_opts o = { .prof_dir = g_dir };
    struct vec_result r;
    assert_int_equal(vec_compute(&o, &r), 0);
    assert_true(r.tdp_W == 600);
    assert_string_equal(r.label, "lammps");
    assert_string_equal(r.arch, "gfxtest");
    assert_int_equal(r.pooled[0].count[5], 1);   /* 1.0 >= 0.9999999999999999 -> 5 */
    vec_result_release(&r);
    o.arch = "gfxconst";
    assert_int_equal(vec_compute(&o, &r), 0);
    assert_true(r.tdp_W == 400);
    assert_string_equal(r.gpu_name, "Test GPU");
    assert_string_equal(r.arch_source, "--arch");
    vec_result_release(&r);
    o.arch = "gfxnotdp";
    assert_int_equal(vec_compute(&o, &r), -1);
    assert_non_null(strstr(g_msgs.buf, "no positive \"tdp_W\" or constants.TDP_W"));
    vec_result_release(&r);
    unsetenv("BENCHRUN_SHARE");
    free(share);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arange_tables),
        cmocka_unit_test(test_bin_examples),
        cmocka_unit_test(test_bin_every_edge),
        cmocka_unit_test(test_round4),
        cmocka_unit_test(test_repr),
        cmocka_unit_test(test_jsonw),
        cmocka_unit_test_setup_teardown(test_compute_pooled, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_compute_multinode_no_trace, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_compute_errors, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_compute_tdp_profile, dir_setup, dir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
