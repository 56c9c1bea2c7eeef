/* test_conf.c - workload.conf: the record decoder (known streams, malformed
 * streams), defaults and validation, and the bash loader on real files
 * (arrays, functions, $OUT_DIR inside app_cmd, strings split like bash). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Captured error messages (br_error_set_sink). */
static struct strbuf g_errs;
static void sink(void *ctx, int is_warning, const char *msg)
{
    (void)ctx;
    if (!is_warning) {
        sb_adds(&g_errs, msg);
        sb_addc(&g_errs, '\n');
    }
}

static int setup(void **state)
{
    (void)state;
    sb_init(&g_errs);
    br_error_set_sink(sink, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    br_error_set_sink(NULL, NULL);
    sb_release(&g_errs);
    return 0;
}

/* Builds a record stream from "|"-separated items ("|" becomes NUL). */
static char *stream(const char *spec, size_t *len)
{
    char *s = xstrdup(spec);
    *len = strlen(s);
    for (size_t i = 0; i < *len; i++)
        if (s[i] == '|')
            s[i] = '\0';
    return s;
}

#define MINIMAL "S|WORKLOAD|w1|S|RESULTS_DIR|res|S|NGPUS|2|S|NTASKS|1|F|app_cmd|R|0|A|APP_CMD|2|/bin/app|-x|"

static void test_decode_minimal(void **state)
{
    (void)state;
    size_t len;
    char *buf = stream(MINIMAL "Z|", &len);
    struct br_conf c;
    assert_int_equal(br_conf_decode(buf, len, "/d/x.conf", 0, &c), 0);
    assert_string_equal(c.workload, "w1");
    assert_string_equal(c.results_dir, "/d/res");       /* relative: from the conf's folder */
    assert_string_equal(c.profiling_dir, "/d");         /* default */
    assert_int_equal(c.ngpus, 2);
    assert_int_equal(c.ntasks, 1);
    assert_int_equal(c.nnodes, 1);
    assert_int_equal(c.sample_ms, 1);
    assert_string_equal(c.sample_gpus, "0,1");          /* default 0..NGPUS-1 */
    assert_string_equal(c.sample_backend, "auto");
    assert_false(c.bind_gpu_per_task);
    assert_null(c.perf_grep);
    assert_int_equal(c.vendor, GPU_VENDOR_UNKNOWN);
    assert_int_equal(c.app_cmd.n, 2);
    assert_string_equal(c.app_cmd.v[1], "-x");
    assert_null(c.app_cmd.v[2]);
    assert_int_equal(c.modules.n, 0);
    assert_non_null(c.modules.v);
    br_conf_release(&c);
    free(buf);
}

/* The older seed confs' GPU=N: the sampled GPU when SAMPLE_GPUS is unset. */
static void test_decode_legacy_gpu(void **state)
{
    (void)state;
    size_t len;
    char *buf = stream(MINIMAL "S|GPU|3|Z|", &len);
    struct br_conf c;
    assert_int_equal(br_conf_decode(buf, len, "/d/x.conf", 0, &c), 0);
    assert_string_equal(c.sample_gpus, "3");
    br_conf_release(&c);
    free(buf);
    buf = stream(MINIMAL "S|GPU|3|S|SAMPLE_GPUS|0,1|Z|", &len);   /* SAMPLE_GPUS wins */
    assert_int_equal(br_conf_decode(buf, len, "/d/x.conf", 0, &c), 0);
    assert_string_equal(c.sample_gpus, "0,1");
    br_conf_release(&c);
    free(buf);
}

/* decode(spec) must fail with a message containing want. */
static void expect_error(const char *spec, const char *want)
{
    size_t len;
    char *buf = stream(spec, &len);
    struct br_conf c;
    sb_reset(&g_errs);
    assert_int_equal(br_conf_decode(buf, len, "/d/x.conf", 0, &c), -1);
    if (!strstr(g_errs.buf, want))
        fail_msg("expected '%s' in '%s'", want, g_errs.buf);
    assert_non_null(strstr(g_errs.buf, "/d/x.conf: "));
    assert_null(c.workload);                            /* released on failure */
    free(buf);
}

static void test_decode_errors(void **state)
{
    (void)state;
    expect_error("E|syntax|/d/x.conf: line 3: syntax error near `}'|", "bash syntax error: line 3:");
    expect_error(MINIMAL, "stopped bash before its end");
    expect_error("S|RESULTS_DIR|r|S|NGPUS|1|S|NTASKS|1|Z|", "required field WORKLOAD is not set");
    expect_error("S|WORKLOAD||Z|", "WORKLOAD is empty");
    expect_error("S|WORKLOAD|a b|Z|", "without blanks or '/', got 'a b'");
    expect_error("S|WORKLOAD|a/b|Z|", "got 'a/b'");
    expect_error("S|WORKLOAD|w|S|NGPUS|0|S|NTASKS|1|Z|", "NGPUS must be a positive integer, got '0'");
    expect_error("S|WORKLOAD|w|S|NGPUS|+3|S|NTASKS|1|Z|", "got '+3'");
    expect_error("S|WORKLOAD|w|S|NGPUS|1|S|NTASKS|9999999999999999999999|Z|", "NTASKS must be");
    expect_error("S|WORKLOAD|w|S|NGPUS|1|S|NTASKS|1|Z|", "required field RESULTS_DIR is not set");
    expect_error("S|WORKLOAD|w|S|NGPUS|1|S|NTASKS|1|S|RESULTS_DIR|r|Z|", "no app_cmd function");
    expect_error("S|WORKLOAD|w|S|NGPUS|1|S|NTASKS|1|S|RESULTS_DIR|r|F|app_cmd|R|0|Z|",
                 "app_cmd did not set APP_CMD");
    expect_error("S|WORKLOAD|w|S|NGPUS|1|S|NTASKS|1|S|RESULTS_DIR|r|F|app_cmd|R|0|A|APP_CMD|0|Z|",
                 "app_cmd did not set APP_CMD");
    expect_error(MINIMAL "S|BIND_GPU_PER_TASK|2|Z|", "BIND_GPU_PER_TASK must be 0 or 1");
    expect_error(MINIMAL "S|VENDOR|Intel|Z|", "VENDOR must be amd, nvidia or none, got 'intel'");
    expect_error(MINIMAL "S|SAMPLE_GPUS|0,,1|Z|", "SAMPLE_GPUS must be GPU indices");
    expect_error(MINIMAL "S|SAMPLE_MS|fast|Z|", "SAMPLE_MS must be a positive integer");
    /* found by fuzz_conf_decode: a huge NGPUS made the default SAMPLE_GPUS list exhaust memory */
    expect_error("S|WORKLOAD|w|S|NGPUS|713226315987390001|S|NTASKS|1|Z|",
                 "NGPUS=713226315987390001 is more than 65536");
    /* malformed streams (not from our loader): one clear error, no crash */
    expect_error("A|MODULES|5|a|", "malformed output from the bash loader");
    expect_error("Q|", "malformed output from the bash loader");
    expect_error("S|WORKLOAD", "malformed output");          /* cut short */
}

static void test_decode_optional(void **state)
{
    (void)state;
    size_t len;
    char *buf = stream(MINIMAL "S|VENDOR|NVIDIA|S|NNODES|2|S|BIND_GPU_PER_TASK|1|S|PERF_GREP|it/s|"
                       "A|MODULES|2|rocm/7.2.0|cray-mpich|A|LAUNCHER|3|mpirun|-np|4|"
                       "F|stage_inputs|S|SAMPLE_GPUS|0,3|S|PARTITION|mi3008x|Z|", &len);
    struct br_conf c;
    assert_int_equal(br_conf_decode(buf, len, "x.conf", 0, &c), 0);
    assert_int_equal(c.vendor, GPU_VENDOR_NVIDIA);
    assert_int_equal(c.nnodes, 2);
    assert_true(c.bind_gpu_per_task);
    assert_string_equal(c.perf_grep, "it/s");
    assert_int_equal(c.modules.n, 2);
    assert_string_equal(c.modules.v[1], "cray-mpich");
    assert_int_equal(c.launcher.n, 3);
    assert_true(c.has_stage_inputs);
    assert_false(c.has_app_env);
    assert_string_equal(c.sample_gpus, "0,3");
    assert_string_equal(c.partition, "mi3008x");
    assert_string_equal(c.dir, ".");
    br_conf_release(&c);
    free(buf);
}

/* name with text in a fresh folder; drop_tmp() removes both. */
static char *write_tmp(const char *name, const char *text)
{
    char *dir = tmpdir_new("test_conf");
    char *p = fs_path_join(dir, name);
    assert_int_equal(fs_write_atomic(p, text, strlen(text)), 0);
    free(dir);
    return p;
}

static void drop_tmp(char *p)
{
    *strrchr(p, '/') = '\0';
    assert_int_equal(tmpdir_remove(p), 0);
    free(p);
}

static const char k_seed_conf[] =
    "BASE=/opt/app\n"
    "WORKLOAD=hns\n"
    "WORKLOAD_DESC=\"LAMMPS HNS, 100 steps\"\n"
    "RESULTS_DIR=/tmp/results\n"
    "NGPUS=8\nNTASKS=8\n"
    "MODULES=\"rocm/7.2.0 openmpi\"\n"          /* a string: split like bash */
    "REQUIRED_FILES=()\n"
    "echo 'noise on stdout'\n"
    "stage_inputs() { ln -sf $BASE/in.hns .; }\n"
    "app_cmd() { APP_CMD=(\"$BASE/lmp\" -in 'in file.hns' -log \"$OUT_DIR/log.lammps\"); }\n";

static void test_load_seed_conf(void **state)
{
    (void)state;
    char *p = write_tmp("seed.conf", k_seed_conf);
    struct br_conf c;
    assert_int_equal(br_conf_load(p, "/r/plain-7", BR_CONF_CHECK_FILES, &c), 0);
    assert_string_equal(c.workload_desc, "LAMMPS HNS, 100 steps");
    assert_int_equal(c.modules.n, 2);
    assert_string_equal(c.modules.v[0], "rocm/7.2.0");
    assert_int_equal(c.app_cmd.n, 5);
    assert_string_equal(c.app_cmd.v[0], "/opt/app/lmp");
    assert_string_equal(c.app_cmd.v[2], "in file.hns");           /* one argument */
    assert_string_equal(c.app_cmd.v[4], "/r/plain-7/log.lammps"); /* $OUT_DIR */
    assert_string_equal(c.out_dir, "/r/plain-7");
    assert_true(c.has_stage_inputs);
    assert_int_equal(br_conf_reload_app_cmd(&c, "/r/other"), 0);
    assert_string_equal(c.app_cmd.v[4], "/r/other/log.lammps");
    br_conf_release(&c);
    drop_tmp(p);
}

static void test_load_errors(void **state)
{
    (void)state;
    struct br_conf c;
    sb_reset(&g_errs);
    assert_int_equal(br_conf_load("/nonexistent/x.conf", NULL, 0, &c), -1);
    assert_non_null(strstr(g_errs.buf, "/nonexistent/x.conf: cannot read the workload conf"));
    char *p = write_tmp("bad.conf", "WORKLOAD=x\nif true; then\n");
    sb_reset(&g_errs);
    assert_int_equal(br_conf_load(p, NULL, 0, &c), -1);
    assert_non_null(strstr(g_errs.buf, "bash syntax error: line 3: syntax error"));
    assert_ptr_equal(strchr(g_errs.buf, '\n'), g_errs.buf + g_errs.len - 1);   /* one line */
    drop_tmp(p);
    p = write_tmp("req.conf", "WORKLOAD=x\nRESULTS_DIR=/tmp\nNGPUS=1\nNTASKS=1\n"
                              "REQUIRED_FILES=(/no/such/file)\napp_cmd() { APP_CMD=(true); }\n");
    sb_reset(&g_errs);
    assert_int_equal(br_conf_load(p, NULL, BR_CONF_CHECK_FILES, &c), -1);
    assert_non_null(strstr(g_errs.buf, "REQUIRED_FILES entry '/no/such/file' does not exist"));
    assert_int_equal(br_conf_load(p, NULL, 0, &c), 0);              /* not checked: loads */
    br_conf_release(&c);
    drop_tmp(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_decode_minimal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_decode_legacy_gpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_decode_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_decode_optional, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_seed_conf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
