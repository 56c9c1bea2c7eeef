/* cmd_analyze.c - 'benchrun analyze PMC_DIR': per-kernel and whole-run
 * metrics of a counter run. This file parses the options, calls an_run
 * (analysis/analyze.h: the steps and the outputs) and prints the warnings
 * and where the report is. */
#include "cli/cli.h"
#include "analysis/analyze.h"

#include "read/prun.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchrun analyze PMC_DIR [--power PROF_DIR] [--power-ktrace DIR|CSV]\n"
    "                        [--telemetry CSV...] [--clock-mhz X] [--counters FILE]\n"
    "                        [--arch NAME|FILE] [--out-dir DIR] [--top N] [--time-pct P]\n"
    "                        [--top-n N] [--latency-pct P] [--perf-regex RE]\n"
    "                        [--energy-from S] [--fit-from S] [--lag-ms L]\n"
    "                        [--resample sampled|F:E:B:S] [--progress]\n"
    "\n"
    "Per-kernel and whole-run metrics of a counter-profiling run (benchrun pmc):\n"
    "per-name sums within each pass, cross-pass rates only, roofline and bound\n"
    "labels, top kernels, data checks. Writes per_kernel_metrics.csv,\n"
    "top_kernels.csv, summary.json, report.md and report.html (self-contained:\n"
    "tables, roofline, power-run timeline and vectors as inline SVG). With a power\n"
    "run: the energy of each kernel too (columns, summary.json energy, report.md\n"
    "Energy, as benchrun energy computes it) and power_trace.json (Perfetto).\n"
    "\n"
    "  -p, --power PROF_DIR     power run (benchrun power): its kernel trace gives\n"
    "                           time shares and GPU busy %, its telemetry\n"
    "                           (profiling_result_*.csv) the sampled clock\n"
    "  -k, --power-ktrace P     power-run kernel trace: a *kernel_trace.csv, a rocpd\n"
    "                           *_results.db, or a folder searched for them\n"
    "                           (default: PROF_DIR); its power run's\n"
    "                           profiling_result_*.csv give the clock\n"
    "  -T, --telemetry CSV...   telemetry files (one or more after the option, or\n"
    "                           repeated; default: the power run's)\n"    "  -c, --clock-mhz X        gfx clock for cycles (overrides the sampled clock)\n"
    "  -C, --counters FILE      passes JSON (default PMC_DIR/counters.json; else the\n"
    "                           pass folders and the arch profile's counters)\n"
    "  -a, --arch NAME|FILE     arch profile (default: agent_info Name, else\n"
    "                           run.json gpu_arch, else gfx942)\n"
    "  -o, --out-dir DIR        output folder (default PMC_DIR/analysis)\n"
    "  -n, --top N              kernel rows in report.md (default 20)\n"
    "  -t, --time-pct P         top kernels: the fewest covering P% of GPU time (90)\n"
    "  -N, --top-n N            top kernels: exactly N instead\n"
    "  -l, --latency-pct P      bound = latency when compute and bandwidth are both\n"
    "                           below P% of peak (default 10)\n"
    "  -r, --perf-regex RE      the app's timing line (POSIX extended regex; group 1\n"
    "                           = seconds) in each pass folder's log.*, *.txt, *.log\n"
    "                           (default: LAMMPS 'Loop time of ([0-9.eE+-]+)')\n"
    "      --energy-from S      energy attribution source: auto, counter or power\n"
    "      --fit-from S         power fit windows: auto, counter, driver, power, none\n"
    "      --lag-ms L           sensor delay for the fit (default auto: estimated)\n"
    "      --resample PLAN      a run with every launch profiled, read as if only the\n"
    "                           launches of this plan had been (sampled: the default\n"
    "                           plan 10:50:20:1; README \"Launch sampling\"): what a\n"
    "                           sampled pmc run would report, in launch_sampling.csv\n"
    "                           beside the run's own totals\n"
    "  -P, --progress           progress on stderr\n"
    "  -h, --help               this help\n"
    "\n"
    "Exit status: 0 written (warnings do not fail), 1 unreadable input (the error\n"
    "names file and line), 2 usage error.\n";

enum { OPT_ENERGY_FROM = 1000, OPT_FIT_FROM, OPT_LAG, OPT_RESAMPLE };

static int opt_value(void *ctx, int c, const char *a)
{
    struct an_opts *o = ctx;
    switch (c) {
    case 'p': o->power = a; return 0;
    case 'k': o->ktrace = a; return 0;
    case 'C': o->counters = a; return 0;
    case 'a': o->arch = a; return 0;
    case 'o': o->out_dir = a; return 0;
    case 'r': o->perf_regex = a; return 0;
    case 'c': return cli_parse_double("analyze", "--clock-mhz", a, 1, 100000, &o->clock_mhz);
    case 't': return cli_parse_double("analyze", "--time-pct", a, 0.001, 100, &o->time_pct);
    case 'l': return cli_parse_double("analyze", "--latency-pct", a, 0, 100, &o->latency_pct);
    case 'n': return cli_parse_long("analyze", "--top", a, 1, 1000000, &o->top);
    case 'N': return cli_parse_long("analyze", "--top-n", a, 1, 1000000, &o->top_n);
    case OPT_ENERGY_FROM:
        return prun_parse_energy_from(a, &o->energy) == 0 ? 0
             : cli_usage_error("analyze", "--energy-from: auto, counter or power, not '%s'", a);
    case OPT_FIT_FROM:
        return prun_parse_fit_from(a, &o->energy) == 0 ? 0
             : cli_usage_error("analyze", "--fit-from: auto, counter, driver, power or none, not '%s'", a);
    case OPT_LAG:
        return prun_parse_lag(a, &o->fit.lag_ms) == 0 ? 0
             : cli_usage_error("analyze", "--lag-ms: auto or milliseconds, not '%s'", a);
    case OPT_RESAMPLE:
        o->resample = true;
        if (!strcmp(a, "sampled")) {
            lp_plan_default(&o->resample_plan);
            return 0;
        }
        return lp_plan_parse(a, &o->resample_plan) == 0 ? 0
             : cli_usage_error("analyze", "--resample: sampled or FIRST:EVERY:BLOCKS:SEED, not '%s'", a);
    default: return -1;
    }
}

static bool is_option(const char *a)
{
    return a[0] == '-' && a[1] != '\0';
}

static void add_telemetry(struct an_opts *o, const char *a)
{
    o->telemetry = xrealloc(o->telemetry, (o->ntelemetry + 2) * sizeof(char *));
    o->telemetry[o->ntelemetry++] = (char *)a;
    o->telemetry[o->ntelemetry] = NULL;
}

/* The seed's --telemetry takes one or more files (argparse nargs='+'): every
 * argument after it up to the next option is a telemetry file. They are taken
 * out of argv before getopt; a trailing folder among them is left as PMC_DIR
 * (`--telemetry a.csv b.csv PMC_DIR`). *argc is updated; 0, or the usage exit. */
static int take_telemetry(int *argc, char **argv, struct an_opts *o)
{
    int out = 1, i;
    for (i = 1; i < *argc; i++) {
        const char *a = argv[i];
        bool eq = !strncmp(a, "--telemetry=", 12);
        if (!strcmp(a, "--"))
            break;
        if (!eq && strcmp(a, "--telemetry") && strcmp(a, "-T")) {
            argv[out++] = argv[i];
            continue;
        }
        if (eq)
            add_telemetry(o, a + 12);
        int j = i + 1;
        while (j < *argc && !is_option(argv[j]))
            j++;
        int last = j - 1;   /* the files: argv[i + 1 .. last] */
        if (last > (eq ? i : i + 1) && fs_is_dir(argv[last]))
            last--;
        if (!eq && last == i)
            return cli_usage_error("analyze", "option '%s' needs a value", a);
        for (int k = i + 1; k <= last; k++)
            add_telemetry(o, argv[k]);
        for (int k = last + 1; k < j; k++)
            argv[out++] = argv[k];
        i = j - 1;
    }
    while (i < *argc)
        argv[out++] = argv[i++];
    for (int k = out; k < *argc; k++)
        argv[k] = NULL;
    *argc = out;
    return 0;
}

static int parse_args(int argc, char **argv, struct an_opts *o)
{
    if (take_telemetry(&argc, argv, o) != 0)
        return BR_EXIT_USAGE;
    static const struct option lo[] = {
        { "power", required_argument, NULL, 'p' }, { "power-ktrace", required_argument, NULL, 'k' },
        { "clock-mhz", required_argument, NULL, 'c' },
        { "counters", required_argument, NULL, 'C' }, { "arch", required_argument, NULL, 'a' },
        { "out-dir", required_argument, NULL, 'o' }, { "top", required_argument, NULL, 'n' },
        { "time-pct", required_argument, NULL, 't' }, { "top-n", required_argument, NULL, 'N' },
        { "latency-pct", required_argument, NULL, 'l' },
        { "perf-regex", required_argument, NULL, 'r' }, { "progress", no_argument, NULL, 'P' },
        { "energy-from", required_argument, NULL, OPT_ENERGY_FROM },
        { "fit-from", required_argument, NULL, OPT_FIT_FROM },
        { "lag-ms", required_argument, NULL, OPT_LAG },
        { "resample", required_argument, NULL, OPT_RESAMPLE },
        { "help", no_argument, NULL, 'h' }, { 0 },
    };
    int rc = cli_getopt("analyze", argc, argv, ":p:k:c:C:a:o:n:t:N:l:r:Ph", lo, usage,
                        &o->progress, opt_value, o);
    if (rc != 0)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error("analyze", "expected one PMC_DIR, got %d arguments", argc - optind);
    o->pmc_dir = argv[optind];
    regex_t re;
    if (o->perf_regex && regcomp(&re, o->perf_regex, REG_EXTENDED | REG_NOSUB) != 0)
        return cli_usage_error("analyze", "--perf-regex: invalid regular expression '%s'",
                               o->perf_regex);
    if (o->perf_regex)
        regfree(&re);
    return 0;
}

int cmd_analyze(int argc, char **argv)
{
    struct an_opts o;
    an_opts_init(&o);
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        free(o.telemetry);
        return rc == 1 ? BR_EXIT_OK : rc;
    }
    o.progress = cli_show_progress(o.progress);
    struct an_result r;
    rc = an_run(&o, &r);
    if (rc == 0) {
        for (size_t i = 0; i < r.warnings.n; i++)
            br_warn("%s", r.warnings.v[i]);
        printf("analyze: %u kernels, %u top kernels, %zu warning(s)\nreport: %s/report.md\n",
               r.nkernels, r.ntop, r.warnings.n, r.out_dir);
    }
    an_result_release(&r);
    free(o.telemetry);
    return rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
}
