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
#include "metrics/powersum.h"
#include "read/psumread.h"
#include "stage/nodesamp.h"
#include "stage/runinfo.h"
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

/* ---- the summary printed at the end (metrics/powersum.h has the values) ---- */

static void line_num(const char *label, json_t *o, const char *k1, const char *k2, const char *unit)
{
    json_t *a = json_object_get(o, k1), *b = k2 ? json_object_get(o, k2) : NULL;
    printf("  %-16s", label);
    if (json_is_real(a))
        printf(" mean %.1f %s", json_real_value(a), unit);
    if (json_is_real(b))
        printf("%s max %.1f %s", json_is_real(a) ? "," : "", json_real_value(b), unit);
    if (!json_is_real(a) && !json_is_real(b))
        printf(" n/a");
    printf("\n");
}

/* "alignment  clock_ref boottime N ns; first sample +x s; first kernel +y s". */
static void alignment_line(const char *label, json_t *o)
{
    json_t *r = json_object_get(o, "clock_ref_boottime_ns");
    json_t *s = json_object_get(o, "first_sample_after_ref_s");
    json_t *k = json_object_get(o, "first_kernel_after_ref_s");
    printf("  %-16s clock_ref boottime %s", label, json_is_integer(r) ? "" : "missing");
    if (json_is_integer(r))
        printf("%lld ns", (long long)json_integer_value(r));
    if (json_is_real(s))
        printf("; first sample %+.3f s", json_real_value(s));
    if (json_is_real(k))
        printf("; first kernel %+.3f s", json_real_value(k));
    printf("\n");
}

static void print_summary(json_t *o)
{
    printf("  %-16s %lld in %lld telemetry file(s)\n", "samples",
           (long long)json_integer_value(json_object_get(o, "samples")),
           (long long)json_integer_value(json_object_get(o, "telemetry_files")));
    line_num("socket power", o, "socket_power_W_mean", "socket_power_W_max", "W");
    line_num("gfx clock", o, "gfx_clock_MHz_mean", "gfx_clock_MHz_max", "MHz");
    line_num("hotspot temp", o, NULL, "hotspot_temp_C_max", "C");
    if (json_is_real(json_object_get(o, "edge_temp_C_max")))
        line_num("edge/GPU temp", o, NULL, "edge_temp_C_max", "C");
    printf("  %-16s %lld in %lld trace file(s)\n", "kernels traced",
           (long long)json_integer_value(json_object_get(o, "kernels_traced")),
           (long long)json_integer_value(json_object_get(o, "trace_files")));
    json_t *nodes = json_object_get(o, "nodes");
    if (!json_array_size(nodes)) {
        alignment_line("alignment", o);
        return;
    }
    size_t i;
    json_t *n;
    json_array_foreach(nodes, i, n) {
        char *label = xasprintf("alignment %s", json_string_value(json_object_get(n, "node")));
        alignment_line(label, n);
        free(label);
    }
}

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
                     const struct trace_fmt *tf)
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
        return BR_EXIT_FAIL;
    }
    json_t *extra = json_object();
    if (tf->format) {
        json_object_set_new(extra, "output_format", json_string(tf->format));
        json_object_set_new(extra, "output_format_reason", json_string(tf->why));
    }
    stage_perf_lines(st, log, extra);
    struct psum_run pr;
    psum_read(&pr, st->rundir, st->conf.workload, ktrace);
    json_t *sum = mx_power_summary(&pr);
    psum_run_release(&pr);
    json_object_set_new(extra, "power_summary", sum);
    rc = stage_run_info_write(st, argv, &r, extra);
    stage_summary(st, &r);
    print_summary(sum);
    json_decref(extra);
    int code = strcmp(stage_run_status(&r), "ok") == 0 && rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
    stage_exec_result_release(&r);
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
    struct stage st;
    if (stage_begin(&st, "prof", conf, dry) != 0)
        return BR_EXIT_FAIL;
    struct strv cmd;
    char *ktrace = NULL;
    struct trace_fmt tf = { 0 };
    if (build_argv(&st, &ktrace, &tf, &cmd) != 0) {
        free(ktrace);
        free(tf.tool_version);
        stage_release(&st);
        return BR_EXIT_FAIL;
    }
    if (dry) {
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
        rc = BR_EXIT_OK;
    } else {
        rc = power_run(&st, &cmd, ktrace, &tf);
    }
    strv_release(&cmd);
    free(ktrace);
    free(tf.tool_version);
    stage_release(&st);
    return rc;
}
