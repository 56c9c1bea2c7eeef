/* cmd_energy.c - 'benchrun energy PROF_DIR': energy per kernel from a power
 * run alone: the telemetry and the kernel trace read with
 * src/read/prun.h, the two methods of src/energy/energy.h, the outputs of
 * src/write/wr_energy.h in PROF_DIR/energy/ (or --out-dir). */
#include "cli/cli.h"

#include "energy/energy.h"
#include "read/prun.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "write/wr_energy.h"
#include "write/wr_set.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchrun energy PROF_DIR [--out-dir DIR] [--ktrace DIR|CSV] [--telemetry CSV]...\n"
    "                       [--energy-from auto|counter|power]\n"
    "                       [--fit-from auto|counter|driver|power|none] [--lag-ms auto|MS]\n"
    "                       [--top N] [--progress]\n"
    "\n"
    "Energy per kernel of a power run (benchrun power): each sensor segment's\n"
    "energy (energy counter, else power x time) split over the kernels, copies\n"
    "and idle time that ran in it by overlap time, per GPU, pooled over GPUs;\n"
    "and each kernel's mean power while running from a least-squares fit over\n"
    "the sensor's windows, with its standard error. Writes energy_per_kernel.csv,\n"
    "energy_summary.json, energy.md and power_trace.json (open it in\n"
    "ui.perfetto.dev or chrome://tracing) to PROF_DIR/energy/.\n"
    "\n"
    "  -o, --out-dir DIR        output folder (default PROF_DIR/energy)\n"
    "  -k, --ktrace P           kernel trace: a *kernel_trace.csv or a folder\n"
    "                           (default: PROF_DIR)\n"
    "  -T, --telemetry CSV      telemetry file (repeatable; default: PROF_DIR's\n"
    "                           profiling_result_*.csv)\n"
    "  -e, --energy-from S      attribution source: counter (energy_J), power\n"
    "                           (power x time) or auto: the counter when present\n"
    "  -f, --fit-from S         fit windows: counter, driver (NVML driver power\n"
    "                           samples), power (sampled power refreshes), none,\n"
    "                           or auto: the source with the most windows\n"
    "  -l, --lag-ms L           sensor delay for the fit (default auto: estimated)\n"
    "  -n, --top N              kernel rows in energy.md (default 20)\n"
    "  -P, --progress           progress on stderr\n"
    "  -h, --help               this help\n"
    "\n"
    "Exit status: 0 written, 1 the run cannot be read (the error names file and\n"
    "line), 2 usage error.\n";

struct en_cli {
    const char *prof, *out, *ktrace;
    char **tel;
    size_t ntel;
    struct prun_opts po;
    struct en_opts eo;
    long top;
    bool progress;
};

static int opt_value(void *ctx, int c, const char *a)
{
    struct en_cli *o = ctx;
    switch (c) {
    case 'o': o->out = a; return 0;
    case 'k': o->ktrace = a; return 0;
    case 'T':
        o->tel = xrealloc(o->tel, (o->ntel + 2) * sizeof(*o->tel));
        o->tel[o->ntel++] = (char *)a;
        o->tel[o->ntel] = NULL;
        return 0;
    case 'e':
        return prun_parse_energy_from(a, &o->po) == 0 ? 0
             : cli_usage_error("energy", "--energy-from: auto, counter or power, not '%s'", a);
    case 'f':
        return prun_parse_fit_from(a, &o->po) == 0 ? 0
             : cli_usage_error("energy", "--fit-from: auto, counter, driver, power or none, not '%s'", a);
    case 'l':
        return prun_parse_lag(a, &o->eo.lag_ms) == 0 ? 0
             : cli_usage_error("energy", "--lag-ms: auto or milliseconds (-10000..10000), not '%s'", a);
    case 'n': return cli_parse_long("energy", "--top", a, 1, 1000000, &o->top);
    default: return -1;
    }
}

static int parse_args(int argc, char **argv, struct en_cli *o)
{
    static const struct option lo[] = {
        { "out-dir", required_argument, NULL, 'o' }, { "ktrace", required_argument, NULL, 'k' },
        { "telemetry", required_argument, NULL, 'T' }, { "energy-from", required_argument, NULL, 'e' },
        { "fit-from", required_argument, NULL, 'f' }, { "lag-ms", required_argument, NULL, 'l' },
        { "top", required_argument, NULL, 'n' }, { "progress", no_argument, NULL, 'P' },
        { "help", no_argument, NULL, 'h' }, { 0 },
    };
    int rc = cli_getopt("energy", argc, argv, ":o:k:T:e:f:l:n:Ph", lo, usage, &o->progress,
                        opt_value, o);
    if (rc != 0)
        return rc;
    if (optind == argc)
        return cli_usage_error("energy", "expected the power run folder PROF_DIR");
    if (optind != argc - 1)
        return cli_usage_error("energy", "expected one PROF_DIR, got %d arguments", argc - optind);
    o->prof = argv[optind];
    return 0;
}

static void summary(const struct en_result *en, const char *out)
{
    const struct en_whole *a = &en->all;
    const struct en_fit *f = &en->fit;
    printf("energy: %zu GPU(s), %.6g J in the kernel window: kernels %.6g J, copies %.6g J, "
           "idle %.6g J (%s)\n", en->ngpus, a->total_J, a->kernels_J, a->copies_J, a->idle_J,
           a->mixed ? "mixed sources" : en_src_name(a->src));
    if (f->done)
        printf("  fit: %zu %s windows, lag %.3g ms, idle %.4g W, R² %.4f\n", f->nwin,
               en_src_name(f->src), f->lag_ms, f->idle_W, f->r2);
    else
        printf("  fit: not done (%s)\n", f->why_not ? f->why_not : "");
    printf("report: %s/energy.md\n", out);
}

/* The four files as one set (write/wr_set.h): a kill or a full disk leaves
 * the previous set whole. */
static int write_set(const struct wr_energy *w, const char *out, int top)
{
    char *tmp = NULL;
    if (wr_set_begin_for(out, "energy", "an energy", "energy_summary.json", &tmp) != 0)
        return -1;
    char *trace = fs_path_join(tmp, "power_trace.json");
    int rc = wr_energy_files(w, tmp, top);
    if (rc == 0)
        rc = wr_power_trace(w, trace);
    free(trace);
    if (rc == 0)
        rc = wr_set_commit(out, &tmp);
    wr_set_abort(&tmp);
    return rc;
}

static void progress(const struct en_cli *o, const char *what)
{
    if (cli_show_progress(o->progress))
        fprintf(stderr, "energy: %s\n", what);
}

int cmd_energy(int argc, char **argv)
{
    struct en_cli o = { .top = 20 };
    en_opts_default(&o.eo);
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        free(o.tel);
        return rc == 1 ? BR_EXIT_OK : rc;
    }
    if (!fs_is_dir(o.prof)) {
        free(o.tel);
        return br_error("energy: '%s' is not a folder", o.prof), BR_EXIT_FAIL;
    }
    char *out = o.out ? xstrdup(o.out) : fs_path_join(o.prof, "energy");
    char *abs = fs_abspath(o.prof);
    struct intern names;
    intern_init(&names);
    struct prun pr;
    struct en_result en = { 0 };
    struct wr_energy w = { 0 };
    progress(&o, "reading the power run");
    rc = prun_load(&pr, o.prof, o.ktrace, o.tel, &names, &o.po);
    if (rc == 0) {
        progress(&o, "attribution and fit");
        rc = prun_energy(&pr, &o.po, &o.eo, &en);
    }
    if (rc == 0) {
        progress(&o, "writing");
        wr_energy_init(&w, &en, &pr, abs, &names, NULL);
        rc = write_set(&w, out, (int)o.top);
    }
    if (rc == 0) {
        for (size_t i = 0; i < pr.warn.n; i++)
            br_warn("%s", pr.warn.v[i]);
        for (size_t i = 0; i < en.warn.n; i++)
            br_warn("%s", en.warn.v[i]);
        summary(&en, out);
    }
    if (w.en)
        wr_energy_release(&w);
    en_release(&en);
    prun_release(&pr);
    intern_release(&names);
    free(out);
    free(abs);
    free(o.tel);
    return rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
}
