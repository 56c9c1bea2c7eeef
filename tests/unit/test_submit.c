/* test_submit.c - benchrun submit: Slurm time strings, the pmc estimate,
 * sbatch argv, --parsable output, the newest plain run, submitted.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"
#include "stage/submit.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

static void quiet(void *ctx, int is_warning, const char *msg)
{
    (void)ctx;
    (void)is_warning;
    (void)msg;
}

/* sbatch(1): -t formats and their meaning in seconds. */
static void test_time_parse(void **state)
{
    (void)state;
    static const struct { const char *s; long want; } ok[] = {
        { "10", 600 },          { "0", 0 },           { "90", 5400 },
        { "5:30", 330 },        { "1:00:00", 3600 },  { "01:30:15", 5415 },
        { "2-0", 172800 },      { "1-12", 129600 },   { "1-02:03", 93780 },
        { "1-02:03:04", 93784 }, { "UNLIMITED", -1 }, { "infinite", -1 },
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        long s = -2;
        assert_int_equal(submit_slurm_time_parse(ok[i].s, &s), 0);
        assert_int_equal(s, ok[i].want);
    }
    static const char *bad[] = { "", "abc", "1:2:3:4", "-5", "1-", "1-x", "10m",
                                 "1:", ":5", "1- 2", "99999999999999999999",
                                 "0-47777777" /* 1990740 days */ };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        long s;
        assert_int_equal(submit_slurm_time_parse(bad[i], &s), -1);
    }
}

static void test_time_format(void **state)
{
    (void)state;
    static const struct { long s; const char *want; } cases[] = {
        { 60, "00:01:00" }, { 780, "00:13:00" }, { 3600, "01:00:00" },
        { 86399, "23:59:59" }, { 86400, "1-00:00:00" }, { 93784, "1-02:03:04" },
        { -1, "UNLIMITED" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *f = submit_slurm_time_format(cases[i].s);
        assert_string_equal(f, cases[i].want);
        long back;
        assert_int_equal(submit_slurm_time_parse(f, &back), 0);
        assert_int_equal(back, cases[i].s);
        free(f);
    }
}

/* passes x 3 x wall, rounded up to whole minutes, at least one. */
static void test_pmc_estimate(void **state)
{
    (void)state;
    assert_int_equal(submit_pmc_seconds(6, 42.0), 13 * 60);   /* 756 s -> 13 min */
    assert_int_equal(submit_pmc_seconds(6, 40.0), 12 * 60);   /* 720 s exactly */
    assert_int_equal(submit_pmc_seconds(6, 40.01), 13 * 60);  /* 720.18 s */
    assert_int_equal(submit_pmc_seconds(2, 0.5), 60);         /* 3 s -> 1 min */
    assert_int_equal(submit_pmc_seconds(7, 3600.0), 21 * 3600);
    assert_int_equal(submit_pmc_seconds(0, 10.0), -1);
    assert_int_equal(submit_pmc_seconds(6, 0.0), -1);
    assert_int_equal(submit_pmc_seconds(6, -1.0), -1);
    assert_int_equal(submit_pmc_seconds(6, 0.0 / 0.0), -1);
}

static void test_parse_jobid(void **state)
{
    (void)state;
    static const struct { const char *out, *want; } cases[] = {
        { "1234\n", "1234" }, { "1234", "1234" }, { "77;cluster1\n", "77" },
        { "  5\r\n", "5" },   { "", NULL },       { "\n", NULL },
        { "Submitted batch job 12\n", NULL },     { "12\n13\n", NULL },
        { "12abc\n", NULL },  { "123456789012345678901\n", NULL },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *id = submit_parse_jobid(cases[i].out);
        if (cases[i].want) {
            assert_non_null(id);
            assert_string_equal(id, cases[i].want);
        } else {
            assert_null(id);
        }
        free(id);
    }
}

static struct submit_params params(void)
{
    return (struct submit_params){
        .conf_path = "/w/demo.conf", .workload = "demo", .results_dir = "/r",
        .nnodes = 2, .ntasks = 4, .scripts_dir = "/s", .benchrun_exe = "/b/benchrun",
    };
}

static char *joined(const struct strv *v)
{
    size_t n = 1;
    for (size_t i = 0; i < v->n; i++)
        n += strlen(v->v[i]) + 1;
    char *s = xcalloc(n, 1);
    for (size_t i = 0; i < v->n; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, v->v[i]);
    }
    return s;
}

static void test_build_argv(void **state)
{
    (void)state;
    struct submit_params p = params();
    struct submit_job j;
    assert_int_equal(submit_build(&p, "plain", NULL, &j), 0);
    char *s = joined(&j.argv);
    assert_string_equal(s, "sbatch --parsable -N 2 -n 4 -J demo-plain --output "
                           "/r/demo-plain-%j.out --export=ALL,BENCHRUN=/b/benchrun "
                           "/s/run_plain.sbatch /w/demo.conf");
    assert_null(j.time_limit);
    assert_non_null(strstr(j.time_note, "no TIME_LIMIT"));
    free(s);
    submit_job_release(&j);

    p.partition = "mi3008x";
    p.time_limit = "02:00:00";
    assert_int_equal(submit_build(&p, "power", "1234", &j), 0);
    s = joined(&j.argv);
    assert_string_equal(s, "sbatch --parsable -p mi3008x -N 2 -n 4 -J demo-power -t 02:00:00 "
                           "--output /r/demo-power-%j.out --dependency=afterok:1234 "
                           "--export=ALL,BENCHRUN=/b/benchrun /s/run_power.sbatch /w/demo.conf");
    assert_string_equal(j.depends_on, "1234");
    free(s);
    submit_job_release(&j);
}

/* pmc: estimate from the plain run; TIME_LIMIT wins only when longer. */
static void test_pmc_time_limit(void **state)
{
    (void)state;
    struct submit_params p = params();
    p.pmc_passes = 6;
    p.plain_wall_s = 42.0;
    p.plain_run = "plain-17";
    char *lim, *note;
    assert_int_equal(submit_time_limit(&p, "pmc", &lim, &note), 0);
    assert_string_equal(lim, "00:13:00");
    assert_non_null(strstr(note, "6 passes x 3 x plain wall 42.0 s (plain-17)"));
    free(lim);
    free(note);
    p.time_limit = "10";                   /* 10 min < 13 min: estimate */
    assert_int_equal(submit_time_limit(&p, "pmc", &lim, &note), 0);
    assert_string_equal(lim, "00:13:00");
    free(lim);
    free(note);
    p.time_limit = "1:00:00";              /* longer: kept */
    assert_int_equal(submit_time_limit(&p, "pmc", &lim, &note), 0);
    assert_string_equal(lim, "1:00:00");
    free(lim);
    free(note);
    assert_int_equal(submit_time_limit(&p, "plain", &lim, &note), 0);
    assert_string_equal(lim, "1:00:00");    /* other stages: TIME_LIMIT as is */
    free(lim);
    free(note);
    p.time_limit = "1:2:3:4";
    br_error_set_sink(quiet, NULL);
    assert_int_equal(submit_time_limit(&p, "plain", &lim, &note), -1);
    br_error_set_sink(NULL, NULL);
    assert_null(lim);
}

static void write_text(const char *dir, const char *rel, const char *text)
{
    char *path = fs_path_join(dir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    assert_int_equal(fs_mkdir_p(path), 0);
    *slash = '/';
    assert_int_equal(fs_write_atomic(path, text, strlen(text)), 0);
    free(path);
}

static void test_find_plain(void **state)
{
    (void)state;
    char *d = tmpdir_new("test_submit");
    struct submit_plain_run r;
    assert_int_equal(submit_find_plain(d, &r), 1);
    assert_null(r.run);
    write_text(d, "plain-1/run.json", "{\"status\": \"ok\", \"exit_status\": 0, "
                                      "\"wall_time_s\": 12.5, \"gpu_arch\": \"gfx942\"}");
    write_text(d, "plain-2/run.json", "{\"status\": \"failed\", \"exit_status\": 1, "
                                      "\"wall_time_s\": 99}");
    write_text(d, "plain-3/run.json", "not json");
    write_text(d, "plain-5/run.json", "{\"status\": \"killed\", \"exit_status\": 0, "
                                      "\"wall_time_s\": 80}");      /* killed: not a reference */
    write_text(d, "plain-6/run.json", "{\"status\": \"running\"}");
    write_text(d, "pmc-4/run.json", "{\"status\": \"ok\", \"exit_status\": 0, "
                                    "\"wall_time_s\": 500}");      /* not plain */
    assert_int_equal(submit_find_plain(d, &r), 0);
    assert_string_equal(r.run, "plain-1");
    assert_true(r.wall_s == 12.5);
    assert_string_equal(r.arch, "gfx942");
    submit_plain_run_release(&r);
    sleep(1);                               /* newer mtime wins */
    write_text(d, "plain-9/run.json", "{\"status\": \"ok\", \"exit_status\": 0, "
                                      "\"wall_time_s\": 30}");
    assert_int_equal(submit_find_plain(d, &r), 0);
    assert_string_equal(r.run, "plain-9");
    assert_true(r.wall_s == 30.0);
    assert_null(r.arch);
    submit_plain_run_release(&r);
    assert_int_equal(tmpdir_remove(d), 0);
    free(d);
}

/* submitted.json: entries appended; incomplete submissions listed. */
static void test_record(void **state)
{
    (void)state;
    char *d = tmpdir_new("test_submit");
    struct submit_params p = params();
    p.results_dir = d;
    struct submit_job j[2];
    assert_int_equal(submit_build(&p, "plain", NULL, &j[0]), 0);
    j[0].job_id = xstrdup("41");
    assert_int_equal(submit_build(&p, "pmc", "41", &j[1]), 0);
    assert_int_equal(submit_record_check(d), 0);
    assert_int_equal(submit_record(&p, j, 2, false), 0);
    j[1].job_id = xstrdup("42");
    assert_int_equal(submit_record(&p, j, 2, true), 0);
    char *path = fs_path_join(d, "submitted.json");
    json_t *root = json_load_file(path, 0, NULL);
    assert_non_null(root);
    json_t *subs = json_object_get(root, "submissions");
    assert_int_equal(json_array_size(subs), 2);
    json_t *first = json_array_get(subs, 0), *second = json_array_get(subs, 1);
    assert_true(json_is_false(json_object_get(first, "complete")));
    assert_int_equal(json_array_size(json_object_get(first, "jobs")), 1);
    assert_string_equal(json_string_value(json_array_get(json_object_get(first, "not_submitted"),
                                                         0)), "pmc");
    json_t *pmc = json_array_get(json_object_get(second, "jobs"), 1);
    assert_string_equal(json_string_value(json_object_get(pmc, "job_id")), "42");
    assert_string_equal(json_string_value(json_object_get(pmc, "depends_on")), "41");
    assert_string_equal(json_string_value(json_object_get(second, "workload")), "demo");
    json_decref(root);
    /* a damaged record is refused before anything is submitted */
    assert_int_equal(fs_write_atomic(path, "{oops", 5), 0);
    br_error_set_sink(quiet, NULL);
    assert_int_equal(submit_record_check(d), -1);
    assert_int_equal(submit_record(&p, j, 2, true), -1);
    br_error_set_sink(NULL, NULL);
    submit_job_release(&j[0]);
    submit_job_release(&j[1]);
    assert_int_equal(tmpdir_remove(d), 0);
    free(path);
    free(d);
}

/* Pass count: a COUNTERS JSON file, or a set of the arch profile. */
static void test_pmc_passes(void **state)
{
    (void)state;
    char *d = tmpdir_new("test_submit");
    write_text(d, "mine.json", "{\"passes\": [{\"name\": \"a\"}, {\"name\": \"b\"}]}");
    /* profiles as arch_open reads them: 7 passes, sets of 6 and 7 */
#define PROFILE_HEAD "\"constants\": {}, \"peaks\": {}, \"block_limits\": {}, \"passes\": ["
#define P(n) "{\"name\": \"" #n "\", \"counters\": [\"SQ_WAVES\"]}"
    write_text(d, "share/arch/gfxT.json",
               "{\"arch\": \"gfxT\", " PROFILE_HEAD P(1) "," P(2) "," P(3) "," P(4) "," P(5) ","
               P(6) "," P(7) "], \"counter_sets\": "
               "{\"default\": [\"1\", \"2\", \"3\", \"4\", \"5\", \"6\"], \"ml\": "
               "[\"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\"]}}");
    char *share = fs_path_join(d, "share");
    setenv("BENCHRUN_SHARE", share, 1);
    struct br_conf c = { .dir = d };
    long n = 0;
    char *why = NULL;
    c.counters = "mine.json";                       /* relative to the conf's folder */
    assert_int_equal(submit_pmc_passes(&c, NULL, &n, &why), 0);
    assert_int_equal(n, 2);
    c.counters = NULL;                              /* default set, arch from the plain run */
    assert_int_equal(submit_pmc_passes(&c, "gfxT", &n, &why), 0);
    assert_int_equal(n, 6);
    c.counters = "ml";
    c.arch = "gfxT";
    assert_int_equal(submit_pmc_passes(&c, NULL, &n, &why), 0);
    assert_int_equal(n, 7);
    /* NVIDIA: the plain run records sm_90, whose profile is gh100.json (a bug:
     * submit looked for arch/sm_90.json and lost the pmc time estimate) */
    write_text(d, "share/arch/gh100.json",
               "{\"arch\": \"gh100\", " PROFILE_HEAD P(1) "," P(2) "," P(3) "], "
               "\"counter_sets\": {\"default\": [\"1\", \"2\", \"3\"]}}");
#undef P
#undef PROFILE_HEAD
    c.counters = NULL;
    c.arch = NULL;
    assert_int_equal(submit_pmc_passes(&c, "sm_90", &n, &why), 0);
    assert_int_equal(n, 3);
    c.counters = "nosuchset";
    c.arch = "gfxT";
    assert_int_equal(submit_pmc_passes(&c, NULL, &n, &why), -1);
    assert_non_null(strstr(why, "no counter set 'nosuchset'"));
    free(why);
    c.counters = NULL;
    c.arch = NULL;
    assert_int_equal(submit_pmc_passes(&c, NULL, &n, &why), -1);
    assert_non_null(strstr(why, "ARCH is not set"));
    free(why);
    c.counters = "missing.json";
    assert_int_equal(submit_pmc_passes(&c, NULL, &n, &why), -1);
    free(why);
    unsetenv("BENCHRUN_SHARE");
    assert_int_equal(tmpdir_remove(d), 0);
    free(share);
    free(d);
}

/* #SBATCH --time / -t in a wrapper's header, not after the first command. */
static void test_script_time(void **state)
{
    (void)state;
    char *d = tmpdir_new("test_submit");
    write_text(d, "a.sbatch", "#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH --time=01:00:00\n"
                              "# comment\nexec true\n");
    write_text(d, "b.sbatch", "#!/bin/bash\n#SBATCH -t 30   # half an hour\n");
    write_text(d, "c.sbatch", "#!/bin/bash\necho hi\n#SBATCH --time=5\n");
    write_text(d, "e.sbatch", "#!/bin/bash\n#SBATCH --time=\n");
    static const struct { const char *f, *want; } cases[] = {
        { "a.sbatch", "01:00:00" }, { "b.sbatch", "30" }, { "c.sbatch", NULL },
        { "e.sbatch", NULL }, { "missing.sbatch", NULL },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *path = fs_path_join(d, cases[i].f);
        char *t = submit_sbatch_script_time(path);
        if (cases[i].want) {
            assert_non_null(t);
            assert_string_equal(t, cases[i].want);
        } else {
            assert_null(t);
        }
        free(t);
        free(path);
    }
    assert_int_equal(tmpdir_remove(d), 0);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_parse),
        cmocka_unit_test(test_time_format),
        cmocka_unit_test(test_pmc_estimate),
        cmocka_unit_test(test_parse_jobid),
        cmocka_unit_test(test_build_argv),
        cmocka_unit_test(test_pmc_time_limit),
        cmocka_unit_test(test_find_plain),
        cmocka_unit_test(test_record),
        cmocka_unit_test(test_pmc_passes),
        cmocka_unit_test(test_script_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
