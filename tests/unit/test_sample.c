/* test_sample.c - gpu_metrics decoding per revision, the amdgpu backend on fake sysfs
 * trees (tests/fixtures/sysfs/, written by tests/tools/mkgpumetrics.c with the
 * kernel's byte offsets), GPU index mapping, number formatting, and the
 * sampler loop under the sim backend. */
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
#include <sys/stat.h>
#include <unistd.h>

#include "sample/clockref.h"
#include "sample/gpu_metrics.h"
#include "sample/sample.h"
#include "sample/sampler.h"
#include "sample/sampler_report.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define FIX BR_SOURCE_DIR "/tests/fixtures/sysfs"

static struct strbuf g_err;

static void capture(void *ctx, int is_warning, const char *msg)
{
    (void)ctx, (void)is_warning;
    sb_addf(&g_err, "%s\n", msg);
}

static void start_capture(void)
{
    sb_release(&g_err);
    br_error_set_sink(capture, NULL);
}

static void stop_capture(void)
{
    br_error_set_sink(NULL, NULL);
}

static char *blob(const char *tree, int minor, size_t *len)
{
    char *p = xasprintf(FIX "/%s/sys/class/drm/renderD%d/device/gpu_metrics", tree, minor);
    char *b = fs_read_file(p, len);
    free(p);
    assert_non_null(b);
    return b;
}

/* Every revision decodes to the values mkgpumetrics wrote (GPU 0). */
static void test_decode_revisions(void **state)
{
    (void)state;
    for (unsigned r = 4; r <= 9; r++) {
        char tree[16];
        snprintf(tree, sizeof(tree), "v1_%u", r);
        size_t len;
        char *b = blob(tree, 128, &len);
        struct br_gpu_metrics m;
        const char *err = br_gpu_metrics_decode(b, len, &m);
        assert_null(err);
        assert_int_equal(m.format_rev, 1);
        assert_int_equal(m.content_rev, r);
        assert_true(m.hotspot_temp_C == 50.0 + r);
        assert_true(m.mem_temp_C == 40.0 + r);
        assert_true(m.socket_power_W == 300.0 + r);
        assert_true(m.has_energy);
        uint64_t want_e = r == 9 ? 0x10000000ULL * 10 : 0x10000000ULL * (r + 1);
        assert_true(m.energy_acc == want_e);
        assert_true(m.has_system_clock && m.system_clock_ns == 1000000000000ULL + r);
        assert_true(m.has_firmware_ts && m.firmware_ts_ns == (5000000000ULL + r) * 10);
        assert_int_equal(m.n_gfxclk, 4);
        assert_true(m.gfxclk_mean_MHz == 1950.0);
        assert_true(m.gfxclk_max_MHz == 2100.0);
        assert_true(m.uclk_MHz == 1300.0);
        if (r <= 8)
            assert_int_equal(len, br_gpu_metrics_fixed_size(1, r));
        free(b);
    }
    /* The sizes the kernel reports for each fixed layout. */
    assert_int_equal(br_gpu_metrics_fixed_size(1, 4), 288);
    assert_int_equal(br_gpu_metrics_fixed_size(1, 5), 360);
    assert_int_equal(br_gpu_metrics_fixed_size(1, 6), 1664);
    assert_int_equal(br_gpu_metrics_fixed_size(1, 7), 2208);
    assert_int_equal(br_gpu_metrics_fixed_size(1, 8), 3872);
    assert_int_equal(br_gpu_metrics_fixed_size(1, 9), 0);
}

static void test_decode_unset_fields(void **state)
{
    (void)state;
    size_t len;
    char *b = blob("v1_8", 128, &len);
    memset(b + 4, 0xFF, 2);   /* hotspot */
    memset(b + 24, 0xFF, 8);  /* energy */
    memset(b + 296, 0xFF, 16); /* every gfxclk */
    struct br_gpu_metrics m;
    assert_null(br_gpu_metrics_decode(b, len, &m));
    assert_true(isnan(m.hotspot_temp_C));
    assert_false(m.has_energy);
    assert_int_equal(m.n_gfxclk, 0);
    assert_true(isnan(m.gfxclk_mean_MHz) && isnan(m.gfxclk_max_MHz));
    free(b);
}

static void expect_error(const void *b, size_t len, const char *needle)
{
    struct br_gpu_metrics m;
    const char *err = br_gpu_metrics_decode(b, len, &m);
    assert_non_null(err);
    if (!strstr(err, needle))
        fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_decode_malformed(void **state)
{
    (void)state;
    size_t len;
    char *b = blob("short", 128, &len);
    assert_int_equal(len, 100);
    expect_error(b, len, "short file: 100 bytes, the table needs 3872");
    free(b);
    b = blob("unknown", 128, &len);
    expect_error(b, len, "unknown gpu_metrics revision 1.3");
    free(b);
    expect_error("", 0, "short file: 0 bytes");
    b = blob("v1_6", 128, &len);
    b[0] = 0x10; /* structure_size no longer 1664 */
    expect_error(b, len, "header says");
    free(b);
    /* v1.9: count larger than the table, truncated values, bad type */
    b = blob("v1_9", 128, &len);
    b[4] = 0x7f;
    expect_error(b, len, "attribute count");
    free(b);
    b = blob("v1_9", 128, &len);
    expect_error(b, len - 3, "short file");
    b[0] = (char)(len - 3), b[1] = (char)((len - 3) >> 8);
    expect_error(b, len - 3, "run past byte");
    free(b);
    /* regression (fuzz): a last attribute with zero instances ends the table */
    unsigned char z[16] = { 16, 0, 1, 9, 1, 0, 0, 0, 0, 0, 0x60, 0, 0, 0, 0, 0 };
    struct br_gpu_metrics m;
    assert_null(br_gpu_metrics_decode(z, sizeof(z), &m));
    assert_true(isnan(m.socket_power_W));
    b = blob("v1_9", 128, &len);
    b[8 + 2] = (char)0xF0; /* type nibble of the first descriptor = 15 */
    expect_error(b, len, "unknown value type 15");
    free(b);
}

static void set_root(const char *tree)
{
    char *root = xasprintf(FIX "/%s", tree);
    setenv("BENCHRUN_SYSFS_ROOT", root, 1);
    free(root);
}

static struct br_sampler_dev *open_amd(int index, struct br_dev_info *info)
{
    struct br_open_opts o = { .outdir = "/tmp", .file_stem = "x", .interval_ns = 1000000 };
    memset(info, 0, sizeof(*info));
    return br_sampler_amdgpu.open(index, &o, info);
}

static void read_one(struct br_sampler_dev *d, struct br_sample *s)
{
    br_sample_clear(s);
    assert_int_equal(br_sampler_amdgpu.read(d, s), 0);
}

static void test_amdgpu_backend(void **state)
{
    (void)state;
    set_root("v1_7");
    unsetenv("ROCR_VISIBLE_DEVICES");
    unsetenv("HIP_VISIBLE_DEVICES");
    struct br_dev_info info;
    struct br_sampler_dev *d = open_amd(1, &info);
    assert_non_null(d);
    assert_string_equal(info.pci_bus_id, "0000:26:00.0");
    assert_string_equal(info.detail, "gpu_metrics_v1.7");
    assert_true(info.caps & BR_CAP_ENERGY);
    assert_false(info.caps & BR_CAP_EDGE_TEMP);
    assert_true(info.energy_resolution_J == 1.0 / 65536.0);
    struct br_sample s;
    read_one(d, &s);
    assert_true(s.socket_power_W == 308.0);  /* 300 + 7 + GPU 1 */
    assert_true(s.energy_J == (double)(0x10000000ULL * 8 + 1) / 65536.0);
    assert_true(s.energy_time_ns == (int64_t)(5000000007ULL * 10));
    assert_true(s.source_time_ns == 1000000000007LL);
    assert_true(s.gfx_clock_MHz == 1950.0 && s.gfx_clock_max_MHz == 2100.0);
    assert_true(s.mem_clock_MHz == 1300.0 && s.hotspot_temp_C == 57.0 && s.mem_temp_C == 47.0);
    assert_true(isnan(s.edge_temp_C));
    br_sampler_amdgpu.close(d);
    br_dev_info_release(&info);
}

/* ROCR numbering: KFD GPU nodes in node order, then ROCR_VISIBLE_DEVICES. */
static void test_amdgpu_mapping(void **state)
{
    (void)state;
    set_root("v1_8");
    struct br_dev_info info;
    struct br_sample s;
    setenv("ROCR_VISIBLE_DEVICES", "1", 1);
    struct br_sampler_dev *d = open_amd(0, &info);
    assert_non_null(d);
    assert_string_equal(info.pci_bus_id, "0000:26:00.0"); /* KFD node 2 */
    read_one(d, &s);
    assert_true(s.socket_power_W == 309.0);
    br_sampler_amdgpu.close(d);
    br_dev_info_release(&info);

    start_capture();
    assert_null(open_amd(1, &info)); /* only one visible */
    stop_capture();
    assert_non_null(strstr(g_err.buf, "no AMD GPU with index 1 (1 visible"));
    setenv("ROCR_VISIBLE_DEVICES", "0,x", 1);
    start_capture();
    assert_null(open_amd(0, &info));
    stop_capture();
    assert_non_null(strstr(g_err.buf, "ROCR_VISIBLE_DEVICES='0,x'"));
    unsetenv("ROCR_VISIBLE_DEVICES");
    setenv("HIP_VISIBLE_DEVICES", "1,0", 1);
    d = open_amd(1, &info);
    assert_non_null(d);
    assert_string_equal(info.pci_bus_id, "0000:05:00.0");
    br_sampler_amdgpu.close(d);
    br_dev_info_release(&info);
    unsetenv("HIP_VISIBLE_DEVICES");
}

static void test_amdgpu_hwmon(void **state)
{
    (void)state;
    set_root("hwmon");
    struct br_dev_info info;
    struct br_sampler_dev *d = open_amd(0, &info);
    assert_non_null(d);
    assert_string_equal(info.detail, "hwmon");
    assert_false(info.caps & BR_CAP_ENERGY);
    assert_false(info.caps & BR_CAP_EDGE_TEMP); /* no temp1_input, as on MI300X */
    assert_true(info.caps & BR_CAP_HOTSPOT_TEMP);
    struct br_sample s;
    read_one(d, &s);
    assert_true(fabs(s.socket_power_W - 345.0) < 1e-9);
    assert_true(fabs(s.gfx_clock_MHz - 2100.0) < 1e-9);
    assert_true(fabs(s.mem_clock_MHz - 1300.0) < 1e-9);
    assert_true(fabs(s.hotspot_temp_C - 56.0) < 1e-9 && fabs(s.mem_temp_C - 47.0) < 1e-9);
    assert_true(isnan(s.edge_temp_C) && isnan(s.energy_J));
    br_sampler_amdgpu.close(d);
    br_dev_info_release(&info);
    /* forced hwmon on a tree that has gpu_metrics too */
    set_root("v1_4");
    setenv("BENCHRUN_AMDGPU_SOURCE", "hwmon", 1);
    d = open_amd(0, &info);
    unsetenv("BENCHRUN_AMDGPU_SOURCE");
    assert_non_null(d);
    assert_string_equal(info.detail, "hwmon");
    br_sampler_amdgpu.close(d);
    br_dev_info_release(&info);
}

static void test_amdgpu_errors(void **state)
{
    (void)state;
    struct br_dev_info info;
    const char *trees[] = { "short", "unknown" };
    const char *msgs[] = { "short file: 100 bytes", "unknown gpu_metrics revision 1.3" };
    for (int i = 0; i < 2; i++) {
        set_root(trees[i]);
        start_capture();
        assert_null(open_amd(0, &info));
        stop_capture();
        assert_non_null(strstr(g_err.buf, msgs[i]));
        assert_non_null(strstr(g_err.buf, "renderD128/device/gpu_metrics"));
    }
    setenv("BENCHRUN_SYSFS_ROOT", "/nonexistent-benchrun-root", 1);
    char *why = NULL;
    assert_int_equal(br_sampler_amdgpu.probe(&why), -1);
    assert_non_null(strstr(why, "no AMD GPU"));
    free(why);
    start_capture();
    assert_null(open_amd(0, &info));
    stop_capture();
    assert_non_null(strstr(g_err.buf, "no AMD GPU with index 0 (0 visible"));
    unsetenv("BENCHRUN_SYSFS_ROOT");
}

static void test_nvml_missing(void **state)
{
    (void)state;
    setenv("BENCHRUN_NVML_LIBRARY", "libnvidia-ml-benchrun-missing.so.1", 1);
    char *why = NULL;
    assert_int_equal(br_sampler_nvml.probe(&why), -1);
    assert_non_null(strstr(why, "cannot load libnvidia-ml-benchrun-missing.so.1"));
    free(why);
    struct br_dev_info info = { 0 };
    struct br_open_opts o = { .outdir = "/tmp", .file_stem = "x", .interval_ns = 1000000 };
    start_capture();
    assert_null(br_sampler_nvml.open(0, &o, &info));
    stop_capture();
    assert_non_null(strstr(g_err.buf, "nvml: cannot load"));
    unsetenv("BENCHRUN_NVML_LIBRARY");
}

static void check_fmt(double v, int d, const char *want)
{
    char buf[40];
    int n = br_fmt_fixed(buf, v, d);
    assert_string_equal(buf, want);
    assert_int_equal(n, (int)strlen(want));
}

static void test_fmt_fixed(void **state)
{
    (void)state;
    check_fmt(1.5, 3, "1.500");
    check_fmt(-0.25, 2, "-0.25");
    check_fmt(0.0, 1, "0.0");
    check_fmt(12345.6789, 1, "12345.7");
    check_fmt(0.001, 3, "0.001");
    check_fmt(-0.0004, 3, "0.000");
    check_fmt(7.0, 0, "7");
    check_fmt(303.14159, 3, "303.142");
    check_fmt(188.182134, 6, "188.182134");
    check_fmt(NAN, 2, "nan");
    check_fmt(-NAN, 2, "nan");
    check_fmt(1e300, 3, "1.0000000000000001e+300");
}

static void test_lists_and_quantiles(void **state)
{
    (void)state;
    int *v = NULL;
    assert_int_equal(br_parse_index_list("3,0,x,12", &v), 4);
    assert_int_equal(v[0], 3);
    assert_int_equal(v[1], 0);
    assert_int_equal(v[2], -1);
    assert_int_equal(v[3], 12);
    free(v);
    assert_int_equal(br_parse_index_list("1,", &v), -1);
    uint32_t q[] = { 5, 1, 4, 2, 3, 100 };
    assert_true(br_quantile_u32(q, 6, 0.5) == 3.5);
    assert_true(br_quantile_u32(q, 6, 0.99) == 100.0);
    assert_true(br_quantile_u32(q, 5, 0.5) == 3.0); /* first five after sorting: 1..5 */
    assert_true(isnan(br_quantile_u32(q, 0, 0.5)));
}

static void test_clock_ref(void **state)
{
    (void)state;
    struct br_clock_ref r;
    br_clock_ref_read(&r);
    assert_true(r.spread_ns >= 0 && r.spread_ns < 10000000);
    assert_true(r.boottime_ns >= r.monotonic_ns - r.spread_ns);
    char *t = br_clock_ref_format(&r);
    char want[64];
    snprintf(want, sizeof(want), "\nboottime_ns=%lld\n", (long long)r.boottime_ns);
    assert_non_null(strstr(t, want));
    assert_non_null(strstr(t, "\nmonotonic_ns="));
    assert_non_null(strstr(t, "\nrealtime_ns="));
    assert_non_null(strstr(t, "\nrealtime_iso=20"));
    assert_non_null(strstr(t, "\nspread_ns="));
    free(t);
}

/* The loop without a command (duration mode) under sim: two GPUs, stats. */
static void test_sampler_sim_duration(void **state)
{
    (void)state;
    char *dir = tmpdir_new("test_sample");
    int gpus[] = { 0, 3 };
    struct br_sampler_config cfg = {
        .ops = &br_sampler_sim, .gpus = gpus, .ngpus = 2, .interval_ns = 2000000,
        .outdir = dir, .prefix = "u", .node = "n1", .duration_ns = 60000000, .quiet = true,
    };
    struct br_sampler_stats st;
    assert_int_equal(br_sampler_run(&cfg, &st), 0);
    assert_true(st.iterations >= 20 && st.iterations <= 40);
    assert_true(st.interval_median_ns > 1.5e6 && st.interval_median_ns < 3e6);
    char *p = xasprintf("%s/profiling_result_u_n1_3.csv", dir);
    size_t len;
    char *text = fs_read_file(p, &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "device=3 backend=sim"));
    assert_non_null(strstr(text, "node=n1"));
    assert_non_null(strstr(text, "\ntimestamp_ns,current_socket_power_W,inst_power_W,"
                                 "gfx_clock_MHz,edge_temp_C,hotspot_temp_C,energy_J,"
                                 "mem_clock_MHz,source_timestamp_ns,refreshed,mem_temp_C,"
                                 "gfx_clock_max_MHz\n"));
    free(text);
    free(p);
    p = xasprintf("%s/clock_ref_n1.txt", dir);
    assert_true(fs_exists(p));
    free(p);
    p = xasprintf("%s/sampler_u_n1.json", dir);
    assert_true(fs_exists(p));
    free(p);
    assert_int_equal(tmpdir_remove(dir), 0);
    free(dir);
}

static void test_sampler_command_status(void **state)
{
    (void)state;
    char *dir = tmpdir_new("test_sample");
    int gpu = 0;
    char *const ok[] = { "sh", "-c", "exit 3", NULL };
    char *const missing[] = { "/nonexistent/benchrun-no-such-cmd", NULL };
    struct br_sampler_config cfg = {
        .ops = &br_sampler_sim, .gpus = &gpu, .ngpus = 1, .interval_ns = 1000000,
        .outdir = dir, .prefix = "c", .argv = ok, .quiet = true,
    };
    assert_int_equal(br_sampler_run(&cfg, NULL), 3);
    cfg.argv = missing;
    start_capture();
    assert_int_equal(br_sampler_run(&cfg, NULL), 127);
    stop_capture();
    assert_non_null(strstr(g_err.buf, "cannot run '/nonexistent/benchrun-no-such-cmd'"));
    /* an output folder that is a file */
    char *file = xasprintf("%s/afile", dir);
    assert_int_equal(fs_write_atomic(file, "x", 1), 0);
    cfg.outdir = file;
    cfg.argv = ok;
    start_capture();
    assert_int_equal(br_sampler_run(&cfg, NULL), -1);
    stop_capture();
    assert_non_null(strstr(g_err.buf, "afile"));
    free(file);
    assert_int_equal(tmpdir_remove(dir), 0);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_revisions),
        cmocka_unit_test(test_decode_unset_fields),
        cmocka_unit_test(test_decode_malformed),
        cmocka_unit_test(test_amdgpu_backend),
        cmocka_unit_test(test_amdgpu_mapping),
        cmocka_unit_test(test_amdgpu_hwmon),
        cmocka_unit_test(test_amdgpu_errors),
        cmocka_unit_test(test_nvml_missing),
        cmocka_unit_test(test_fmt_fixed),
        cmocka_unit_test(test_lists_and_quantiles),
        cmocka_unit_test(test_clock_ref),
        cmocka_unit_test(test_sampler_sim_duration),
        cmocka_unit_test(test_sampler_command_status),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    sb_release(&g_err);
    return rc;
}
