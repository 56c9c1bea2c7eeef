/* cmd_power.c - 'benchrun power CONF [--dry-run]': the seed's power run.
 *
 * What the stage does and the folder it leaves: stage/power.h. This file
 * parses, calls stage_power with the summary of the run (an_power_summary)
 * and prints that summary.
 */
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "cli/stageargs.h"
#include "stage/power.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>

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

int cmd_power(int argc, char **argv)
{
    struct stage_power_opts o = { .summarize = an_power_summary };
    int rc = cli_stage_args("power", usage, argc, argv, &o.conf, &o.dry_run);
    if (rc != 0)
        return rc == 1 ? BR_EXIT_OK : rc;
    json_t *sum;
    rc = stage_power(&o, &sum);
    if (sum)
        print_summary(sum);
    json_decref(sum);
    return rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
}
