/* test_stage.c - stage and collect modules: GPU name decoding, KFD
 * properties, job ids and never-reused run folders, launcher argv, process
 * execution (exit status, log, signals), PERF_GREP, the rocprofv3 collector
 * argv (6.3+ and 6.2), pass loading, ROCm version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/passes.h"
#include "collect/collect.h"
#include "stage/jobdir.h"
#include "stage/launcher.h"
#include "stage/perfgrep.h"
#include "stage/stage.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void quiet(void *ctx, int w, const char *m)
{
    (void)ctx; (void)w; (void)m;
}

static void test_gpu_names(void **state)
{
    (void)state;
    struct { long v; const char *name; } cases[] = {
        { 90402, "gfx942" }, { 90010, "gfx90a" }, { 90400, "gfx940" }, { 110000, "gfx1100" },
        { 90008, "gfx908" }, { 120001, "gfx1201" }, { 90500, "gfx950" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *n = gpu_gfx_name(cases[i].v);
        assert_string_equal(n, cases[i].name);
        free(n);
    }
    assert_null(gpu_gfx_name(0));
    char *sm = gpu_sm_name("9.0");
    assert_string_equal(sm, "sm_90");
    free(sm);
    sm = gpu_sm_name("10.3");
    assert_string_equal(sm, "sm_103");
    free(sm);
    assert_null(gpu_sm_name("9"));
    assert_null(gpu_sm_name("9.0x"));
    assert_null(gpu_sm_name(NULL));
}

static void test_kfd_props(void **state)
{
    (void)state;
    const char gpu[] = "cpu_cores_count 0\nsimd_count 1216\nmem_banks_count 1\n"
                       "gfx_target_version 90402\nvendor_id 4098\n";
    long v = -1, simd = -1;
    assert_int_equal(gpu_kfd_parse_props(gpu, strlen(gpu), &v, &simd), 0);
    assert_int_equal(v, 90402);
    assert_int_equal(simd, 1216);
    const char cpu[] = "cpu_cores_count 96\nsimd_count 0\ngfx_target_version 0";   /* no final \n */
    assert_int_equal(gpu_kfd_parse_props(cpu, strlen(cpu), &v, &simd), 0);
    assert_int_equal(v, 0);
    const char bad[] = "gfx_target_version x90402\n";
    assert_int_equal(gpu_kfd_parse_props(bad, strlen(bad), &v, &simd), -1);
    const char prefix[] = "gfx_target_version_x 5\n";   /* a longer key is not the key */
    assert_int_equal(gpu_kfd_parse_props(prefix, strlen(prefix), &v, &simd), -1);
    assert_int_equal(gpu_kfd_parse_props("", 0, &v, &simd), -1);
}

static void test_job_id_and_run_dir(void **state)
{
    (void)state;
    unsetenv("SLURM_JOB_ID");
    char *id = stage_job_id();
    int pid;
    char ts[32];
    assert_int_equal(sscanf(id, "local-%16[0-9TZ]-%d", ts, &pid), 2);
    assert_int_equal(strlen(ts), 16);
    assert_int_equal(pid, (int)getpid());
    free(id);
    setenv("SLURM_JOB_ID", "123456", 1);
    id = stage_job_id();
    assert_string_equal(id, "123456");
    assert_true(stage_in_slurm());
    free(id);
    unsetenv("SLURM_JOB_ID");

    char *d = tmpdir_new("test_stage");
    char *res = fs_path_join(d, "a/b/results"), *r1 = NULL, *r2 = NULL, *r3 = NULL;
    assert_int_equal(stage_run_dir_create(res, "plain", "9", &r1), 0);
    assert_int_equal(stage_run_dir_create(res, "plain", "9", &r2), 0);
    assert_int_equal(stage_run_dir_create(res, "plain", "9", &r3), 0);
    char *want = fs_path_join(res, "plain-9");
    assert_string_equal(r1, want);
    assert_non_null(strstr(r2, "/plain-9.2"));
    assert_non_null(strstr(r3, "/plain-9.3"));
    free(want); free(r1); free(r2); free(r3); free(res);
    assert_int_equal(tmpdir_remove(d), 0);
    free(d);
}

static struct br_conf mini_conf(long ntasks)
{
    struct br_conf c;
    memset(&c, 0, sizeof(c));
    c.path = xstrdup("/x.conf");
    c.ntasks = ntasks;
    c.nnodes = 1;
    c.ngpus = 1;
    strv_init(&c.launcher);
    return c;
}

static void test_launcher(void **state)
{
    (void)state;
    br_error_set_sink(quiet, NULL);
    unsetenv("SLURM_JOB_ID");
    struct br_conf c = mini_conf(1);
    struct strv a;
    assert_int_equal(stage_launcher_argv(&c, false, &a), 0);
    assert_int_equal(a.n, 0);                                /* direct exec */
    strv_release(&a);
    c.ntasks = 4;
    assert_int_equal(stage_launcher_argv(&c, false, &a), -1);          /* needs a launcher */
    strv_release(&a);
    setenv("SLURM_JOB_ID", "5", 1);
    assert_int_equal(stage_launcher_argv(&c, false, &a), 0);
    assert_int_equal(a.n, 2);
    assert_string_equal(a.v[0], "srun");
    assert_string_equal(a.v[1], "-n4");
    strv_release(&a);
    c.nnodes = 2;
    assert_int_equal(stage_launcher_argv(&c, false, &a), 0);
    assert_string_equal(a.v[1], "-N2");
    strv_release(&a);
    strv_push(&c.launcher, "mpirun");
    strv_push(&c.launcher, "-np");
    strv_push(&c.launcher, "4");
    assert_int_equal(stage_launcher_argv(&c, false, &a), 0);           /* LAUNCHER wins */
    assert_int_equal(a.n, 3);
    assert_string_equal(a.v[0], "mpirun");
    strv_release(&a);
    strv_release(&c.launcher);
    strv_init(&c.launcher);
    strv_push(&c.launcher, "none");
    c.ntasks = 1;
    assert_int_equal(stage_launcher_argv(&c, false, &a), 0);    /* none: direct even in Slurm */
    assert_int_equal(a.n, 0);
    strv_release(&a);
    unsetenv("SLURM_JOB_ID");
    br_conf_release(&c);
    br_error_set_sink(NULL, NULL);
}

static void test_exec(void **state)
{
    (void)state;
    char *d = tmpdir_new("test_stage");
    char *log = fs_path_join(d, "log.txt");
    struct strv a;
    strv_init(&a);
    strv_pushv(&a, (const char *const[]){ "sh", "-c", "echo out; echo err >&2; exit 7", NULL });
    struct stage_exec_result r;
    assert_int_equal(stage_exec(&a, log, &r), 0);
    assert_int_equal(r.exit_code, 7);
    assert_null(r.reason);
    assert_true(r.wall_s >= 0);
    char *text = fs_read_file(log, NULL);
    assert_string_equal(text, "out\nerr\n");
    free(text);
    stage_exec_result_release(&r);
    strv_release(&a);

    strv_init(&a);
    strv_pushv(&a, (const char *const[]){ "sh", "-c", "kill -9 $$", NULL });
    assert_int_equal(stage_exec(&a, log, &r), 0);
    assert_int_equal(r.exit_code, 128 + SIGKILL);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_non_null(strstr(r.reason, "killed by signal 9"));
    stage_exec_result_release(&r);
    strv_release(&a);

    strv_init(&a);
    strv_push(&a, "/nonexistent/program");
    assert_int_equal(stage_exec(&a, log, &r), 0);
    assert_int_equal(r.exit_code, 127);
    stage_exec_result_release(&r);
    strv_release(&a);

    struct strv lines;
    strv_init(&lines);
    assert_int_equal(stage_perf_grep("^e.r$", log, &lines, NULL, NULL), 0);
    assert_int_equal(lines.n, 1);
    assert_string_equal(lines.v[0], "err");
    br_error_set_sink(quiet, NULL);
    assert_int_equal(stage_perf_grep("([", log, &lines, NULL, NULL), -1);
    br_error_set_sink(NULL, NULL);
    strv_release(&lines);
    free(log);
    assert_int_equal(tmpdir_remove(d), 0);
    free(d);
}

static void test_rocprofv3_argv(void **state)
{
    (void)state;
    const struct br_collector_ops *c = br_collector_for_vendor(GPU_VENDOR_AMD);
    assert_non_null(c);
    assert_string_equal(c->name, "rocprofv3");
    assert_ptr_equal(br_collector_find("rocprofv3"), c);
    assert_null(br_collector_find("nope"));
    const char *ctrs[] = { "SQ_WAVES", "GRBM_GUI_ACTIVE", NULL };
    struct br_collect_req req = { .dir = "/r/p1", .name = "p1", .counters = ctrs };
    struct strv a;
    assert_int_equal(c->pmc_argv(&req, &a), 0);
    char *q = strv_quoted(&a);
    assert_string_equal(q, "rocprofv3 --pmc SQ_WAVES GRBM_GUI_ACTIVE --kernel-trace "
                           "--memory-copy-trace --output-format csv -d /r/p1 -o p1 --");
    free(q);
    strv_release(&a);
    req.per_process = true;
    assert_int_equal(c->trace_argv(&req, &a), 0);
    q = strv_quoted(&a);
    assert_string_equal(q, "rocprofv3 --kernel-trace --memory-copy-trace --output-format csv -d /r/p1 "
                           "-o p1_%pid% --");
    free(q);
    strv_release(&a);

    char *d = tmpdir_new("test_stage");                  /* 6.2: an input file instead of --pmc */
    req.dir = d;
    req.tool_version = "6.2";
    req.per_process = false;
    assert_int_equal(c->pmc_argv(&req, &a), 0);
    assert_string_equal(a.v[1], "-i");
    char *text = fs_read_file(a.v[2], NULL);
    assert_string_equal(text, "pmc: SQ_WAVES GRBM_GUI_ACTIVE\n");
    free(text);
    strv_release(&a);
    char *sub = fs_path_join(d, "pmc_1");   /* fixup moves pmc_1/ files up */
    assert_int_equal(fs_mkdir_p(sub), 0);
    char *f = fs_path_join(sub, "p1_counter_collection.csv");
    assert_int_equal(fs_write_atomic(f, "x\n", 2), 0);
    assert_int_equal(c->fixup(&req), 0);
    struct strv out;
    strv_init(&out);
    assert_int_equal(fs_list_suffix(d, "_counter_collection.csv", &out), 1);
    strv_release(&out);
    free(f); free(sub);
    assert_int_equal(tmpdir_remove(d), 0);
    free(d);
}

static void test_passes_and_version(void **state)
{
    (void)state;
    char *d = tmpdir_new("test_stage");
    char *f = fs_path_join(d, "set.json");
    const char js[] = "{\"passes\": [{\"name\": \"a\", \"counters\": [\"X\", \"Y\"]},"
                      " {\"name\": \"b\", \"counters\": [\"Z\"]}]}";
    assert_int_equal(fs_write_atomic(f, js, strlen(js)), 0);
    struct arch_passes p;
    assert_int_equal(arch_passes_load(&p, f, NULL), 0);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.v[0].name, "a");
    assert_int_equal(p.v[0].counters.n, 2);
    assert_string_equal(p.v[1].counters.v[0], "Z");
    json_t *o = arch_passes_json(&p);
    assert_int_equal(json_array_size(json_object_get(o, "passes")), 2);
    json_decref(o);
    arch_passes_release(&p);
    const char bad[] = "{\"passes\": [{\"name\": \"a/b\", \"counters\": [\"X\"]}]}";
    assert_int_equal(fs_write_atomic(f, bad, strlen(bad)), 0);
    br_error_set_sink(quiet, NULL);
    assert_int_equal(arch_passes_load(&p, f, NULL), -1);      /* not a folder name */
    assert_int_equal(arch_passes_load(&p, "/no/such.json", NULL), -1);
    br_error_set_sink(NULL, NULL);

    char *info = fs_path_join(d, ".info");
    assert_int_equal(fs_mkdir_p(info), 0);
    char *ver = fs_path_join(info, "version");
    assert_int_equal(fs_write_atomic(ver, "6.2.4-120\n", 10), 0);
    char *v = br_rocm_version(d);
    assert_string_equal(v, "6.2");
    free(v);
    assert_int_equal(fs_write_atomic(ver, "garbage", 7), 0);
    assert_null(br_rocm_version(d));
    free(ver); free(info); free(f);
    assert_int_equal(tmpdir_remove(d), 0);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_names),
        cmocka_unit_test(test_kfd_props),
        cmocka_unit_test(test_job_id_and_run_dir),
        cmocka_unit_test(test_launcher),
        cmocka_unit_test(test_exec),
        cmocka_unit_test(test_rocprofv3_argv),
        cmocka_unit_test(test_passes_and_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
