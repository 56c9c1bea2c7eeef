/* cmd_power.c - 'benchrun power CONF [--dry-run]': the seed's power run.
 *
 * Folder RESULTS_DIR/prof-<jobid>/ with workload.conf, run_info.txt, run.json
 * and app.txt; this same executable's `sample` command (found through
 * /proc/self/exe) samples SAMPLE_GPUS every SAMPLE_MS ms around
 *   [launcher] bash launch.sh CONF RUNDIR RUNDIR [kernel tracer --] app
 * writing profiling_result_<tag>_<gpu>.csv and clock_ref.txt; the kernel
 * tracer (AMD: rocprofv3 --kernel-trace into ktrace_<tag>/; NVIDIA: the
 * collector registered for nvidia, when built) puts kernel timestamps on the
 * same clock. Then prints the seed's summary (samples, power, clock,
 * temperature, kernels traced, alignment evidence) and stores it in run.json.
 */
#include "cli/cli.h"
#include "cli/stageargs.h"
#include "collect/collect.h"
#include "stage/nodesamp.h"
#include "stage/stage.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchrun power CONF [--dry-run]\n"
    "\n"
    "Power run of the workload in CONF: power, energy, gfx clock and\n"
    "temperatures of SAMPLE_GPUS sampled every SAMPLE_MS ms (benchrun sample,\n"
    "backend SAMPLE_BACKEND) while the app runs under a kernel tracer\n"
    "(rocprofv3 --kernel-trace on AMD), on one clock. Creates\n"
    "RESULTS_DIR/prof-<jobid>/ with profiling_result_<tag>_<gpu>.csv,\n"
    "ktrace_<tag>/, clock_ref.txt, app.txt, run_info.txt, run.json,\n"
    "workload.conf, and prints a summary.\n"
    "\n"
    "  -n, --dry-run  print every command that would run, create nothing\n"
    "  -h, --help     this help\n"
    "\n"
    "Exit status: 0 the app succeeded, 1 it failed or the conf is invalid,\n"
    "2 usage error.\n";

/* rocprofv3's output of the trace: "csv" or "rocpd" (ROCPROF_FORMAT). */
struct trace_fmt {
    char *tool_version;
    const char *format, *why;
};

/* Kernel tracer argv (empty when there is none for this vendor). */
static int tracer_argv(const struct br_stage *st, const char *ktrace, struct trace_fmt *tf,
                       struct strv *out)
{
    strv_init(out);
    if (strcmp(st->vendor, "none") == 0)
        return 0;
    const char *v = strcmp(st->vendor, "nvidia") == 0 ? "nvidia" : "amd";
    const struct br_collector_ops *c = br_collector_for_vendor(v);
    if (!c || !c->trace_argv) {
        br_warn("no kernel tracer for %s GPUs in this build: the power run has no kernel trace", v);
        return 0;
    }
    tf->format = "csv";
    tf->why = "the tracer writes CSV";
    if (strcmp(c->name, "rocprofv3") == 0) {
        tf->tool_version = br_rocm_version(st->conf.rocm_path);
        if (br_rocprof_format(st->conf.rocprof_format, tf->tool_version, &tf->format, &tf->why) < 0)
            return -1;
    }
    struct br_collect_req req = {
        .dir = ktrace, .name = st->conf.workload, .per_process = st->conf.ntasks > 1,
        .tool_version = tf->tool_version, .format = tf->format, .dry_run = st->dry_run,
    };
    strv_free(out);
    return c->trace_argv(&req, out);
}

static void sample_prefix(const struct br_stage *st, struct strv *out)
{
    char *self = fs_self_exe();
    strv_init(out);
    strv_push(out, self ? self : "benchrun");
    free(self);
    strv_push(out, "sample");
    strv_push(out, "--gpus");
    strv_push(out, st->conf.sample_gpus);
    strv_push(out, "--interval-ms");
    strv_pushf(out, "%ld", st->conf.sample_ms);
    if (strcmp(st->conf.sample_backend, "auto") != 0) {
        strv_push(out, "--backend");
        strv_push(out, st->conf.sample_backend);
    }
    strv_push(out, "--prefix");
    strv_push(out, st->conf.workload);
    strv_push(out, "-o");
    strv_push(out, st->rundir);
    strv_push(out, "--");
}

/* One node: sample [...] -- app. Several nodes (h7, issue 4): the app alone;
 * the samplers run as their own step (stage/nodesamp.h) and each node's
 * trace goes to ktrace_<tag>/<node>/. */
static int build_argv(const struct br_stage *st, char **ktrace, struct trace_fmt *tf,
                      struct strv *argv)
{
    char *leaf = xasprintf("ktrace_%s", st->conf.workload);
    *ktrace = fs_path_join(st->rundir, leaf);
    free(leaf);
    bool multi = br_node_samplers_wanted(&st->conf);
    char *tdir = multi ? fs_path_join(*ktrace, BR_NODE_TOKEN) : xstrdup(*ktrace);
    struct strv tracer, app;
    int rc = tracer_argv(st, tdir, tf, &tracer);
    free(tdir);
    if (rc != 0)
        return -1;
    rc = br_app_argv(st, NULL, tracer.n ? &tracer : NULL, &app);
    strv_free(&tracer);
    if (rc != 0)
        return -1;
    if (multi)
        strv_init(argv);
    else
        sample_prefix(st, argv);
    strv_extend(argv, &app);
    strv_free(&app);
    return 0;
}

/* The app between the start and the stop of the per-node samplers. */
static int exec_with_node_samplers(const struct br_stage *st, const struct strv *argv,
                                   const char *log, struct br_exec_result *r)
{
    char *self = fs_self_exe();
    struct strv sargv;
    br_node_samplers_argv(st, self ? self : "benchrun", &sargv);
    free(self);
    char *slog = fs_path_join(st->rundir, "samplers.txt");
    struct br_node_samplers ns;
    int rc = br_node_samplers_start(&ns, st, &sargv, slog, 120);
    if (rc == 0) {
        rc = br_stage_exec(argv, log, r);
        /* Killed (time limit): Slurm is stopping the sampler step too and
         * SIGKILLs everything KillWait s later: record why first, wait little. */
        bool killed = rc == 0 && r->forwarded_signal;
        if (killed)
            br_run_info_write(st, argv, r, NULL);
        int src = br_node_samplers_stop(&ns, killed ? 2 : 30);
        if (src != 0 && src != -1 && !killed)
            br_warn("the sampler step ended with status %d (see '%s')", src, slog);
    }
    strv_free(&sargv);
    free(slog);
    return rc;
}

static int power_run(struct br_stage *st, const struct strv *argv, const char *ktrace,
                     const struct trace_fmt *tf)
{
    char *log = fs_path_join(st->rundir, "app.txt");
    struct br_exec_result r;
    int rc = br_run_info_write(st, argv, NULL, NULL);
    /* multi-node: the tracer writes ktrace_<tag>/<node>/; the CUPTI library
     * creates only its own folder (one level), so the parent must exist */
    if (rc == 0 && br_node_samplers_wanted(&st->conf))
        rc = fs_mkdir_p(ktrace);
    if (rc == 0)
        rc = br_node_samplers_wanted(&st->conf) ? exec_with_node_samplers(st, argv, log, &r)
                                                : br_stage_exec(argv, log, &r);
    if (rc != 0) {
        free(log);
        return BR_EXIT_FAIL;
    }
    json_t *extra = json_object();
    if (tf->format) {
        json_object_set_new(extra, "output_format", json_string(tf->format));
        json_object_set_new(extra, "output_format_reason", json_string(tf->why));
    }
    br_stage_perf_lines(st, log, extra);
    json_t *sum = br_power_summary(st->rundir, st->conf.workload, ktrace);
    json_object_set_new(extra, "power_summary", sum);
    rc = br_run_info_write(st, argv, &r, extra);
    br_stage_summary(st, &r);
    br_power_summary_print(sum);
    json_decref(extra);
    int code = strcmp(br_run_status(&r), "ok") == 0 && rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
    br_exec_result_release(&r);
    free(log);
    return code;
}

int cmd_power(int argc, char **argv)
{
    const char *conf;
    bool dry;
    int rc = cli_stage_args("power", usage, argc, argv, &conf, &dry);
    if (rc != 0)
        return rc == 1 ? BR_EXIT_OK : rc;
    struct br_stage st;
    if (br_stage_begin(&st, "prof", conf, dry) != 0)
        return BR_EXIT_FAIL;
    struct strv cmd;
    char *ktrace = NULL;
    struct trace_fmt tf = { 0 };
    if (build_argv(&st, &ktrace, &tf, &cmd) != 0) {
        free(ktrace);
        free(tf.tool_version);
        br_stage_release(&st);
        return BR_EXIT_FAIL;
    }
    if (dry) {
        br_dry_run_header(&st);
        if (tf.format)
            br_dry_run_note("kernel trace output: %s (%s)", tf.format, tf.why);
        if (br_node_samplers_wanted(&st.conf)) {
            char *self = fs_self_exe();
            struct strv sargv;
            br_node_samplers_argv(&st, self ? self : "benchrun", &sargv);
            free(self);
            br_dry_run_note("NNODES=%ld: one sampler per node (own step, stopped after the "
                            "app through %s/%s)", st.conf.nnodes, st.rundir, BR_SAMPLERS_STOP);
            br_dry_run_print(&sargv);
            strv_free(&sargv);
        }
        br_dry_run_print(&cmd);
        rc = BR_EXIT_OK;
    } else {
        rc = power_run(&st, &cmd, ktrace, &tf);
    }
    strv_free(&cmd);
    free(ktrace);
    free(tf.tool_version);
    br_stage_release(&st);
    return rc;
}
