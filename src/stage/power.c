/* power.c - the power stage: the app under the sampler and the kernel tracer
 * (the seed's run_power.sbatch; contract in power.h). */
#include "stage/power.h"

#include "collect/collect.h"
#include "stage/nodesamp.h"
#include "stage/runinfo.h"
#include "stage/stage.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* rocprofv3's output of the trace: "csv" or "rocpd" (ROCPROF_FORMAT). */
struct trace_fmt {
    char *tool_version;
    const char *format, *why;
};

/* Kernel tracer argv (empty when there is none for this vendor). */
static int tracer_argv(const struct stage *st, const char *ktrace, struct trace_fmt *tf,
                       struct strv *out)
{
    strv_init(out);
    if (st->vendor == GPU_VENDOR_NONE)
        return 0;
    enum gpu_vendor v = st->vendor == GPU_VENDOR_NVIDIA ? GPU_VENDOR_NVIDIA : GPU_VENDOR_AMD;
    const struct br_collector_ops *c = br_collector_for_vendor(v);
    if (!c || !c->trace_argv) {
        br_warn("no kernel tracer for %s GPUs in this build: the power run has no kernel trace",
                gpu_vendor_name(v));
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
    strv_release(out);
    return c->trace_argv(&req, out);
}

static void sample_prefix(const struct stage *st, struct strv *out)
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

/* One node: sample [...] -- app. Several nodes (stage/nodesamp.h): the app alone;
 * the samplers run as their own step (stage/nodesamp.h) and each node's
 * trace goes to ktrace_<tag>/<node>/. */
static int build_argv(const struct stage *st, char **ktrace, struct trace_fmt *tf,
                      struct strv *argv)
{
    char *leaf = xasprintf("ktrace_%s", st->conf.workload);
    *ktrace = fs_path_join(st->rundir, leaf);
    free(leaf);
    bool multi = stage_node_samplers_wanted(&st->conf);
    char *tdir = multi ? fs_path_join(*ktrace, COLLECT_NODE_TOKEN) : xstrdup(*ktrace);
    struct strv tracer, app;
    int rc = tracer_argv(st, tdir, tf, &tracer);
    free(tdir);
    if (rc != 0)
        return -1;
    rc = stage_app_argv(st, NULL, tracer.n ? &tracer : NULL, &app);
    strv_release(&tracer);
    if (rc != 0)
        return -1;
    if (multi)
        strv_init(argv);
    else
        sample_prefix(st, argv);
    strv_extend(argv, &app);
    strv_release(&app);
    return 0;
}

/* The app between the start and the stop of the per-node samplers. */
static int exec_with_node_samplers(const struct stage *st, const struct strv *argv,
                                   const char *log, struct stage_exec_result *r)
{
    char *self = fs_self_exe();
    struct strv sargv;
    stage_node_samplers_argv(st, self ? self : "benchrun", &sargv);
    free(self);
    char *slog = fs_path_join(st->rundir, "samplers.txt");
    struct stage_node_samplers ns;
    int rc = stage_node_samplers_start(&ns, st, &sargv, slog, 120);
    if (rc == 0) {
        rc = stage_exec(argv, log, r);
        /* Killed (time limit): Slurm is stopping the sampler step too and
         * SIGKILLs everything KillWait s later: record why first, wait little. */
        bool killed = rc == 0 && r->forwarded_signal;
        if (killed)
            stage_run_info_write(st, argv, r, NULL);
        int src = stage_node_samplers_stop(&ns, killed ? 2 : 30);
        if (src != 0 && src != -1 && !killed)
            br_warn("the sampler step ended with status %d (see '%s')", src, slog);
    }
    strv_release(&sargv);
    free(slog);
    return rc;
}

static int power_run(struct stage *st, const struct strv *argv, const char *ktrace,
                     const struct trace_fmt *tf, const struct stage_power_opts *o,
                     json_t **summary)
{
    char *log = fs_path_join(st->rundir, "app.txt");
    struct stage_exec_result r;
    int rc = stage_run_info_write(st, argv, NULL, NULL);
    /* multi-node: the tracer writes ktrace_<tag>/<node>/; the CUPTI library
     * creates only its own folder (one level), so the parent must exist */
    if (rc == 0 && stage_node_samplers_wanted(&st->conf))
        rc = fs_mkdir_p(ktrace);
    if (rc == 0)
        rc = stage_node_samplers_wanted(&st->conf) ? exec_with_node_samplers(st, argv, log, &r)
                                                : stage_exec(argv, log, &r);
    if (rc != 0) {
        free(log);
        return -1;
    }
    json_t *extra = json_object();
    if (tf->format) {
        json_object_set_new(extra, "output_format", json_string(tf->format));
        json_object_set_new(extra, "output_format_reason", json_string(tf->why));
    }
    stage_perf_lines(st, log, extra);
    json_t *sum = o->summarize(st->rundir, st->conf.workload, ktrace);
    json_object_set(extra, "power_summary", sum);
    rc = stage_run_info_write(st, argv, &r, extra);
    stage_summary(st, &r);
    *summary = sum;
    json_decref(extra);
    int code = strcmp(stage_run_status(&r), "ok") == 0 && rc == 0 ? 0 : -1;
    stage_exec_result_release(&r);
    free(log);
    return code;
}

int stage_power(const struct stage_power_opts *o, json_t **summary)
{
    *summary = NULL;
    struct stage st;
    if (stage_begin(&st, "prof", o->conf, o->dry_run) != 0)
        return -1;
    struct strv cmd;
    char *ktrace = NULL;
    struct trace_fmt tf = { 0 };
    if (build_argv(&st, &ktrace, &tf, &cmd) != 0) {
        free(ktrace);
        free(tf.tool_version);
        stage_release(&st);
        return -1;
    }
    int rc;
    if (o->dry_run) {
        stage_dry_run_header(&st);
        if (tf.format)
            stage_dry_run_note("kernel trace output: %s (%s)", tf.format, tf.why);
        if (stage_node_samplers_wanted(&st.conf)) {
            char *self = fs_self_exe();
            struct strv sargv;
            stage_node_samplers_argv(&st, self ? self : "benchrun", &sargv);
            free(self);
            stage_dry_run_note("NNODES=%ld: one sampler per node (own step, stopped after the "
                               "app through %s/%s)", st.conf.nnodes, st.rundir,
                               STAGE_SAMPLERS_STOP);
            stage_dry_run_print(&sargv);
            strv_release(&sargv);
        }
        stage_dry_run_print(&cmd);
        rc = 0;
    } else {
        rc = power_run(&st, &cmd, ktrace, &tf, o, summary);
    }
    strv_release(&cmd);
    free(ktrace);
    free(tf.tool_version);
    stage_release(&st);
    return rc;
}
