/* cmd_analyze.c - 'benchrun analyze PMC_DIR': per-kernel and whole-run
 * metrics of a counter run (docs/design.md §6-§8) → per_kernel_metrics.csv,
 * top_kernels.csv, summary.json and report.md in PMC_DIR/analysis (or
 * --out-dir). This file parses the options and chains the pieces: passes
 * (counters.json), readers (src/read), arch profile and agent_info overrides
 * (src/arch), the power run and the sampled clock, the engine (src/metrics)
 * and the writers (src/write). */
#include "cli/cli.h"
#include "arch/passes.h"

#include "energy/energy.h"
#include "metrics/metrics.h"
#include "read/cuptijson.h"
#include "read/prun.h"
#include "read/rocprof.h"
#include "read/telemetry.h"
#include "read/telread.h"
#include "vectors/vectors.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"
#include "write/analysis.h"
#include "write/wr_energy.h"
#include "write/wr_html.h"
#include "write/wr_set.h"

#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The seed's default: LAMMPS' timing line, group 1 in seconds. */
static const char default_perf_regex[] = "Loop time of ([0-9.eE+-]+)";

static const char usage[] =
    "usage: benchrun analyze PMC_DIR [--power PROF_DIR] [--power-ktrace DIR|CSV]\n"
    "                        [--telemetry CSV...] [--clock-mhz X] [--counters FILE]\n"
    "                        [--arch NAME|FILE] [--out-dir DIR] [--top N] [--time-pct P]\n"
    "                        [--top-n N] [--latency-pct P] [--perf-regex RE]\n"
    "                        [--energy-from S] [--fit-from S] [--lag-ms L] [--progress]\n"
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
    "  -P, --progress           progress on stderr\n"
    "  -h, --help               this help\n"
    "\n"
    "Exit status: 0 written (warnings do not fail), 1 unreadable input (the error\n"
    "names file and line), 2 usage error.\n";

struct an_opts {
    const char *pmc_dir, *power, *ktrace, *clock, *counters, *arch, *out_dir, *perf_regex;
    char **telemetry;
    size_t ntelemetry;
    double clock_mhz, time_pct, latency_pct;
    long top, top_n;
    bool progress;
    struct prun_opts energy;
    struct en_opts fit;
};

enum { OPT_ENERGY_FROM = 1000, OPT_FIT_FROM, OPT_LAG };

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

/* ---- passes: counters.json, else the pass folders ---- */

struct an_passes {
    struct arch_passes set;
    const char **names;      /* NULL-terminated view of the pass names */
    const char *file;        /* counters file read, or NULL */
};

static void passes_free(struct an_passes *p)
{
    arch_passes_release(&p->set);
    free(p->names);
}

/* The pass's LABEL file (written by the pmc stage, as the seed's), first line. */
static char *label_file(const char *pmc_dir, const char *pass)
{
    char *path = xasprintf("%s/%s/LABEL", pmc_dir, pass);
    size_t len;
    char *text = fs_exists(path) ? fs_read_file(path, &len) : NULL;
    free(path);
    if (text)
        text[strcspn(text, "\r\n")] = '\0';
    return text;
}

/* The pass folders of the run, when it has no counters file. */
static int passes_from_folders(struct arch_passes *set, const char *pmc_dir)
{
    arch_passes_init(set);
    char **found = rp_find_passes(pmc_dir);
    int rc = found ? 0 : -1;
    for (char **f = found; found && *f && rc == 0; f++) {
        const char *why = arch_pass_name_problem(*f);
        if (why)
            rc = br_error("%s/%s: pass folder name %s", pmc_dir, *f, why);
        else if (set->n >= ARCH_MAX_PASSES)
            rc = br_error("%s: more than %d pass folders", pmc_dir, ARCH_MAX_PASSES);
        else
            arch_passes_add(set, *f);
    }
    str_array_free(found);
    if (rc == 0 && set->n == 0)
        rc = br_error("%s: no pass folder with a *_counter_collection.csv or *" RP_ROCPD_SUFFIX,
                      pmc_dir);
    return rc;
}

static int load_passes(struct an_passes *p, const struct an_opts *o)
{
    memset(p, 0, sizeof(*p));
    char *def = fs_path_join(o->pmc_dir, "counters.json");
    const char *path = o->counters ? o->counters : fs_exists(def) ? def : NULL;
    int rc = path ? arch_passes_load_file(&p->set, path) : passes_from_folders(&p->set, o->pmc_dir);
    free(def);
    if (rc != 0)
        return -1;
    p->file = path ? p->set.source : NULL;
    p->names = xcalloc(p->set.n + 1, sizeof(*p->names));
    for (size_t i = 0; i < p->set.n; i++) {
        p->names[i] = p->set.v[i].name;
        if (!p->set.v[i].label)
            p->set.v[i].label = label_file(o->pmc_dir, p->set.v[i].name);
    }
    return 0;
}

/* Passes without a counter list (no counters file, or none in it): the
 * profile's. */
static void passes_from_profile(struct an_passes *p, const struct arch_profile *ap)
{
    for (size_t i = 0; i < p->set.n; i++) {
        const struct arch_pass *def = arch_pass_find(ap, p->set.v[i].name);
        if (!p->set.v[i].counters.n && def)
            strv_copy(&p->set.v[i].counters, &def->counters);
    }
}

/* ---- arch: --arch, agent_info Name, run.json gpu_arch, gfx942 ---- */

static char *arch_from_run_json(const char *pmc_dir)
{
    char *path = fs_path_join(pmc_dir, "run.json");
    char *out = NULL;
    if (fs_exists(path)) {
        json_t *r = fs_read_json(path, 0, NULL);
        const char *a = json_string_value(json_object_get(r, "gpu_arch"));
        if (a && *a)
            out = xstrdup(a);
        json_decref(r);
    }
    free(path);
    return out;
}

/* --arch against the GPU that was profiled: a profile for another GPU gives
 * wrong peaks and limits without any other sign. */
static void warn_arch_mismatch(const struct arch_profile *ap, const struct rp_agent *ag)
{
    const char *ai = rp_agent_get(ag, "Name");
    if (!ai || strncmp(ai, "gfx", 3) != 0)
        return;
    size_t n = strcspn(ai, ":");
    if (strlen(ap->arch) != n || strncmp(ap->arch, ai, n) != 0)
        br_warn("--arch: profile %s (%s) but agent_info Name is %.*s (%s): peaks, limits and "
                "counters are %s's", ap->arch, ap->path, (int)n, ai, ag->file, ap->arch);
}

static struct arch_profile *load_arch(const struct an_opts *o, const struct rp_run *run,
                                      const struct an_passes *p, char **source)
{
    char *name = NULL;
    const char *ai = rp_agent_get(&run->agent, "Name");
    if (o->arch) {
        name = xstrdup(o->arch);
        *source = xstrdup("--arch");
    } else if (ai && !strncmp(ai, "gfx", 3)) {
        name = xstrndup(ai, strcspn(ai, ":"));
        *source = xasprintf("agent_info Name (%s)", run->agent.file);
    } else if ((name = arch_from_run_json(o->pmc_dir))) {
        *source = xstrdup("run.json gpu_arch");
    } else {
        name = xstrdup(arch_default(GPU_VENDOR_UNKNOWN));
        *source = xstrdup("default (no agent_info Name, no run.json gpu_arch)");
    }
    char *path = arch_profile_path(name, *source);
    free(name);
    struct arch_profile *ap = path ? arch_load(path, p->names, (int)p->set.n) : NULL;
    free(path);
    if (ap && o->arch)
        warn_arch_mismatch(ap, &run->agent);
    return ap;
}

/* Constants from agent_info.csv where present (docs/design.md §14). A value more
 * than 16x above or 64x below the profile's (a CPX partition has 1/8 of the
 * CUs) cannot be this GPU: it is not used, and a warning says so. */
static void agent_overrides(struct arch_profile *ap, const struct rp_agent *ag, struct strv *warn)
{
    for (int i = 0; ag->present && i < ap->nagent; i++) {
        double v, def = arch_const(ap, ap->agent_consts[i]);
        if (rp_agent_num(ag, ap->agent_cols[i], &v) < 0 || !(v > 0))
            continue;
        if (isfinite(def) && def > 0 && !(v <= 16 * def && v >= def / 64)) {
            strv_pushf(warn, "agent_info %s = %g (%s) is not used: it is far from the "
                       "profile's %g for %s (more than 16x above or 64x below)",
                       ap->agent_cols[i], v, ag->file, def, ap->agent_consts[i]);
            continue;
        }
        char *src = xasprintf("agent_info %s (%s)", ap->agent_cols[i], ag->file);
        arch_set_const(ap, ap->agent_consts[i], v, src);
        free(src);
    }
}

/* ---- power run and clock ---- */


/* True when dir itself holds a telemetry file. */
static bool has_telemetry(const char *dir)
{
    DIR *d = opendir(dir);
    bool any = false;
    for (struct dirent *e; d && !any && (e = readdir(d));)
        any = telem_is_sample_file(e->d_name);
    if (d)
        closedir(d);
    return any;
}

/* The seed's --power-ktrace alone: the telemetry of the power run that holds
 * the trace, i.e. the nearest folder above it (ktrace_<tag>/ or a CSV in it;
 * up to 3 levels for ktrace_<tag>/<node>/) holding profiling_result_*.csv. */
static char *power_dir_of(const char *ktrace)
{
    char *dir = fs_abspath(ktrace);
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            break;
        *slash = '\0';
        if (has_telemetry(dir))
            return dir;
    }
    free(dir);
    return NULL;
}

static char **telemetry_files(const struct an_opts *o)
{
    if (o->ntelemetry || (!o->power && !o->ktrace)) {
        char **v = xcalloc(o->ntelemetry + 1, sizeof(char *));
        for (size_t i = 0; i < o->ntelemetry; i++)
            v[i] = fs_abspath(o->telemetry[i]);
        return v;
    }
    char *dir = o->power ? fs_abspath(o->power) : power_dir_of(o->ktrace);
    char **v = dir ? prun_find_telemetry(dir) : xcalloc(1, sizeof(char *));
    free(dir);
    return v;
}

/* The telemetry read once (read/telread.h): the sampled clock's samples
 * and the timeline's lines. */
static int pick_clock(const struct an_opts *o, const struct rp_power *pw, char **tel,
                      struct telem_run *run, struct mx_opts *mo, struct wr_info *wi,
                      struct strv *warn)
{
    wi->clock.mean = NAN;
    if (tel[0] && pw) {
        size_t n = 0;
        while (tel[n])
            n++;
        struct telem_read_opts ro = { .pw = pw, .root = wi->power_path,
                                      .line_buckets = WR_TIMELINE_COLUMNS };
        if (telem_read_run(run, tel, n, &ro) < 0)
            return -1;
        wi->telem = run;
        mx_clock_stats(run, &wi->clock);
        wi->sampled = true;
        if (wi->clock.samples_no_clock)
            strv_pushf(warn, "telemetry: %llu in-kernel sample(s) with gfx_clock_MHz 0 or below "
                       "left out of the sampled clock (no clock reading)",
                       (unsigned long long)wi->clock.samples_no_clock);
    } else if (tel[0]) {
        br_warn("--telemetry without a power-run kernel trace: the in-kernel samples cannot be "
                "selected; the sampled clock is not used");
    }
    if (o->clock_mhz > 0) {
        mo->clock_src = MX_CLOCK_OVERRIDE;
        mo->clock_mhz = o->clock_mhz;
    } else if (isfinite(wi->clock.mean)) {
        mo->clock_src = MX_CLOCK_SAMPLED;
        mo->clock_mhz = wi->clock.mean;
    } else {
        mo->clock_src = MX_CLOCK_FALLBACK;
        mo->clock_mhz = NAN;
    }
    return 0;
}

/* ---- --perf-regex: the app's timing line in each pass's output ---- */

/* Files of dir matching the seed's log.*, *.txt, *.log, in that order (each
 * sorted), then the older <pmc_dir>/rocprof.<pass>.txt. */
static char **perf_files(const char *pmc_dir, const char *pass)
{
    char *dir = fs_path_join(pmc_dir, pass);
    char **all = rp_find_files(dir, "");
    size_t n = 0;
    while (all[n])
        n++;
    char **v = xcalloc(n + 2, sizeof(char *));
    size_t k = 0;
    for (int kind = 0; kind < 3; kind++)
        for (size_t i = 0; i < n; i++) {
            const char *base = strrchr(all[i], '/') ? strrchr(all[i], '/') + 1 : all[i];
            size_t bl = strlen(base);
            bool in_dir = strlen(all[i]) == strlen(dir) + 1 + bl;   /* not in a subfolder */
            bool hit = kind == 0 ? !strncmp(base, "log.", 4)
                     : kind == 1 ? bl > 4 && !strcmp(base + bl - 4, ".txt")
                                 : bl > 4 && !strcmp(base + bl - 4, ".log") && strncmp(base, "log.", 4);
            if (in_dir && hit)
                v[k++] = xstrdup(all[i]);
        }
    char *old = xasprintf("%s/rocprof.%s.txt", pmc_dir, pass);
    if (fs_exists(old))
        v[k++] = old;
    else
        free(old);
    str_array_free(all);
    free(dir);
    return v;
}

/* The last line of path matching re, with group 1 as a number in *secs.
 * Read line by line with a bounded buffer: an app output of any
 * size, lines of any length (the first 4 KiB of each are matched); a file
 * that is not regular (a FIFO) is skipped. */
static char *perf_in_file(const regex_t *re, const char *path, double *secs)
{
    char *why, *hit = NULL;
    int fd = fs_open_read(path, &why);
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!fp) {
        free(why);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *line = xmalloc(4097);
    regmatch_t m[2];
    while (fs_read_line_bounded(fp, line, 4097, NULL) >= 0) {
        if (regexec(re, line, 2, m, 0) != 0)
            continue;
        free(hit);
        hit = xstrdup(line);
        *secs = NAN;
        if (re->re_nsub >= 1 && m[1].rm_so >= 0) {
            char *g = xstrndup(line + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so)), *end;
            double v = strtod(g, &end);
            *secs = end != g && *end == '\0' ? v : NAN;
            free(g);
        }
    }
    free(line);
    fclose(fp);
    return hit;
}

/* The first file (perf_files order) with a match gives the pass's line. */
static void perf_pass(const regex_t *re, const char *pmc_dir, struct mx_pass *mp)
{
    char **files = perf_files(pmc_dir, mp->name);
    for (char **f = files; *f && !mp->perf; f++)
        mp->perf = perf_in_file(re, *f, &mp->perf_s);
    str_array_free(files);
}

static int perf_lines(const struct an_opts *o, struct mx_result *res)
{
    regex_t re;
    if (regcomp(&re, o->perf_regex, REG_EXTENDED) != 0)
        return br_error("analyze: --perf-regex: invalid regular expression '%s'", o->perf_regex);
    for (uint32_t p = 0; p < res->npasses; p++)
        perf_pass(&re, o->pmc_dir, &res->pass[p]);
    regfree(&re);
    return 0;
}

/* ---- main ---- */

struct an_state {
    struct an_passes passes;
    struct rp_run run;
    struct rp_power power;
    bool have_power;
    struct prun pr;                 /* the power run's telemetry, for the energy */
    struct en_result en;
    struct wr_energy we;
    bool have_energy;
    struct arch_profile *ap;
    char *arch_source, *out_dir, *pmc_abs, *power_path;
    char **tel;
    struct telem_run telem;     /* the telemetry files, read once */
    json_t *vectors;            /* the power run's sampling_vectors.json, or NULL */
    struct strv input_warn;     /* found while reading, before the engine runs */
    char *tmp_dir;              /* where the outputs are written before they replace out_dir */
    struct mx_result res;
    struct rp_copies *pcopies;      /* [npcopies] per pass */
    uint32_t npcopies;
};

static void progress(const struct an_opts *o, const char *what)
{
    if (cli_show_progress(o->progress))
        fprintf(stderr, "analyze: %s\n", what);
}

static bool has_trace(const char *dir)
{
    char **f = rp_find_traces(dir), **c = rp_find_copies(dir);
    bool any = f[0] != NULL || c[0] != NULL;
    str_array_free(f);
    str_array_free(c);
    return any;
}

/* Each pass folder's memory copy traces (pmc asks rocprofv3 for them too). */
static int load_pass_copies(struct an_state *s)
{
    s->npcopies = s->run.npasses;
    s->pcopies = xcalloc(s->npcopies + 1, sizeof(*s->pcopies));
    for (uint32_t p = 0; p < s->run.npasses; p++) {
        const char *dir = s->run.passes[p].dir;
        if (dir && fs_is_dir(dir) && rp_copies_load(&s->pcopies[p], dir) < 0)
            return -1;
    }
    return 0;
}

static int load_inputs(const struct an_opts *o, struct an_state *s)
{
    progress(o, "reading the counter passes");
    if (load_passes(&s->passes, o) < 0 ||
        rp_run_load(&s->run, o->pmc_dir, s->passes.names, s->passes.set.n, 0) < 0)
        return -1;
    if (load_pass_copies(s) < 0 || !(s->ap = load_arch(o, &s->run, &s->passes, &s->arch_source)))
        return -1;
    passes_from_profile(&s->passes, s->ap);
    agent_overrides(s->ap, &s->run.agent, &s->input_warn);
    const char *kt = o->ktrace ? o->ktrace : o->power;
    if (kt && !o->ktrace && !has_trace(kt)) {
        br_warn("%s: no *kernel_trace.csv, *memory_copy_trace.csv or *" RP_ROCPD_SUFFIX ": time "
                "shares from the passes, no GPU busy %%", kt);
        kt = NULL;
    }
    if (kt) {
        progress(o, "reading the power-run kernel trace");
        s->power_path = fs_abspath(kt);   /* as the seed's summary.json and report.md show it */
        s->have_power = true;   /* released even after a failed load */
        if (rp_power_load_launches(&s->power, &s->run.names, s->power_path) < 0)
            return -1;
    }
    progress(o, "reading the telemetry for the sampled clock");
    s->tel = telemetry_files(o);
    return 0;
}

/* What the NVIDIA collector's companion files say about launches without
 * counters, one warning per pass (read/cuptijson.h). */
static void collector_notes(struct an_state *s)
{
    for (uint32_t p = 0; p < s->run.npasses; p++) {
        const struct rp_pass *ps = &s->run.passes[p];
        struct cj_pass cj;
        memset(&cj, 0, sizeof(cj));
        if (ps->dir && fs_is_dir(ps->dir) && cj_read_pass(&cj, ps->dir) > 0) {
            char *msg = cj_describe(&cj, ps->name);
            if (msg)
                mx_warn(&s->res, "%s", msg);
            free(msg);
        }
        cj_release(&cj);
    }
}

/* The energy of the power run (src/energy, as `benchrun energy`): needs its
 * kernel trace and telemetry. No telemetry file: a warning, no energy. */
static int energy(const struct an_opts *o, struct an_state *s, struct wr_info *wi)
{
    const char *dir = o->power ? o->power : s->power_path;
    if (!s->have_power || (!o->ntelemetry && (!s->tel || !s->tel[0]))) {
        if (s->have_power)
            br_warn("energy: the power run has no telemetry file (profiling_result_*.csv): "
                    "no energy per kernel");
        return 0;
    }
    progress(o, "energy");
    s->have_energy = true;         /* released even after a failure */
    if (prun_read(&s->pr, dir, s->power_path, s->tel, &s->run.names, &s->power) != 0)
        return -1;
    prun_finish(&s->pr, dir, &o->energy);
    if (prun_energy(&s->pr, &o->energy, &o->fit, &s->en) != 0)
        return -1;
    /* Not the seed's data checks: in summary.json energy.warnings, report.md Energy. */
    for (size_t i = 0; i < s->pr.warn.n; i++)
        br_warn("energy: %s", s->pr.warn.v[i]);
    for (size_t i = 0; i < s->en.warn.n; i++)
        br_warn("energy: %s", s->en.warn.v[i]);
    char *abs = fs_abspath(dir);
    wr_energy_init(&s->we, &s->en, &s->pr, abs, &s->run.names, &s->res);
    s->we.prof_dir_owned = abs;
    wi->energy = &s->we;
    return 0;
}

static int run_analysis(const struct an_opts *o, struct an_state *s)
{
    if (load_inputs(o, s) < 0)
        return -1;
    struct mx_opts mo = { .time_pct = o->time_pct, .top_n = (int)o->top_n,
                          .latency_pct = o->latency_pct };
    struct wr_info wi = { .pmc_dir = s->pmc_abs,
                          .arch_source = s->arch_source, .counters_file = s->passes.file,
                          .run = &s->run, .power = s->have_power ? &s->power : NULL,
                          .power_path = s->power_path, .telemetry = s->tel,
                          .top_rows = (int)o->top, .time_pct = o->time_pct,
                          .latency_pct = o->latency_pct, .top_n = (int)o->top_n,
                          .perf_regex = o->perf_regex, .pass_copies = s->pcopies,
                          .npass_copies = s->npcopies };
    progress(o, "sampled clock");
    if (pick_clock(o, wi.power, s->tel, &s->telem, &mo, &wi, &s->input_warn) < 0)
        return -1;
    if (o->power)
        s->vectors = vec_json_read(o->power, &s->input_warn);
    wi.vectors = s->vectors;
    mo.input_warn = s->input_warn.v;
    mo.ninput_warn = s->input_warn.n;
    progress(o, "metrics");
    if (mx_compute(&s->res, s->ap, &s->run, wi.power, s->passes.set.v, (int)s->passes.set.n,
                   &mo) < 0 ||
        perf_lines(o, &s->res) < 0 || energy(o, s, &wi) < 0)
        return -1;
    collector_notes(s);
    progress(o, "writing");
    if (wr_set_begin(s->out_dir, &s->tmp_dir) < 0)
        return -1;
    wi.out_dir = s->tmp_dir;
    char *html = fs_path_join(s->tmp_dir, "report.html");
    int rc = wr_analysis(&s->res, &wi) < 0 ? -1 : wr_report_html(&s->res, &wi, html);
    free(html);
    if (rc == 0 && wi.energy) {         /* part of the set: in the folder being written */
        char *trace = fs_path_join(s->tmp_dir, "power_trace.json");
        rc = wr_power_trace(wi.energy, trace);
        free(trace);
    }
    return rc == 0 ? wr_set_commit(s->out_dir, &s->tmp_dir) : -1;
}

static void state_free(struct an_state *s)
{
    wr_set_abort(&s->tmp_dir);  /* not committed: a failed write leaves the old set whole */
    strv_release(&s->input_warn);
    if (s->we.en)
        wr_energy_release(&s->we);
    en_release(&s->en);
    if (s->have_energy)
        prun_release(&s->pr);
    mx_release(&s->res);
    arch_free(s->ap);
    if (s->have_power)
        rp_power_release(&s->power);
    for (uint32_t p = 0; p < s->npcopies; p++)
        rp_copies_release(&s->pcopies[p]);
    free(s->pcopies);
    rp_run_release(&s->run);
    passes_free(&s->passes);
    str_array_free(s->tel);
    telem_run_release(&s->telem);
    json_decref(s->vectors);
    free(s->arch_source);
    free(s->out_dir);
    free(s->pmc_abs);
    free(s->power_path);
}

int cmd_analyze(int argc, char **argv)
{
    struct an_opts o = { .time_pct = 90, .latency_pct = 10, .top = 20 };
    en_opts_default(&o.fit);
    int rc = parse_args(argc, argv, &o);
    if (!o.perf_regex)
        o.perf_regex = default_perf_regex;
    if (rc != 0) {
        free(o.telemetry);
        return rc == 1 ? BR_EXIT_OK : rc;
    }
    struct an_state s;
    memset(&s, 0, sizeof(s));
    strv_init(&s.input_warn);
    s.pmc_abs = fs_abspath(o.pmc_dir);
    s.out_dir = o.out_dir ? xstrdup(o.out_dir) : fs_path_join(o.pmc_dir, "analysis");
    rc = fs_is_dir(o.pmc_dir) ? run_analysis(&o, &s)
                              : br_error("analyze: '%s' is not a folder", o.pmc_dir);
    if (rc == 0) {
        for (size_t i = 0; i < s.res.nwarn; i++)
            br_warn("%s", s.res.warn[i]);
        printf("analyze: %u kernels, %u top kernels, %zu warning(s)\nreport: %s/report.md\n",
               s.res.nk, s.res.ntop, s.res.nwarn, s.out_dir);
    }
    state_free(&s);
    free(o.telemetry);
    return rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
}
