/* cmd_sample.c - 'benchrun sample': sample GPU power/clock/temperature around a command.
 *
 * Parses the options, picks the backend (--backend, else the first one whose
 * probe succeeds: amdgpu, amdsmi, nvml) and runs the deadline loop of
 * src/sample/sampler.h. Exit status: the command's own (128 + signal when it
 * was killed, 127 when it could not be started); 1 when sampling could not
 * start; 2 for a usage error.
 */
#include "cli/cli.h"
#include "sample/sample.h"
#include "sample/sampler.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

struct sample_opts {
    int *gpus;
    size_t ngpus;
    double interval_ms;
    const char *backend, *prefix, *outdir, *node;
    bool progress;
};

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: benchrun sample [--gpus LIST] [--interval-ms N] [--backend B] [--prefix P]\n"
            "                       [-o DIR] [--node NAME] [--progress] -- CMD [ARGS...]\n\n"
            "Samples power, energy, clocks and temperatures of the listed GPUs every N ms\n"
            "(absolute deadlines on CLOCK_BOOTTIME) while CMD runs, and returns CMD's exit\n"
            "status. SIGINT/SIGTERM/SIGHUP/SIGQUIT are forwarded to CMD.\n\n"
            "  -g, --gpus LIST        GPU indices as the application numbers them: 0,1,4-7 (0)\n"
            "  -i, --interval-ms N    sampling interval in ms, 0.1 to 60000 (1)\n"
            "  -b, --backend B        amdgpu, amdsmi (when built), nvml, sim (tests only);\n"
            "                         default: the first that works here\n"
            "  -p, --prefix P         file name part: profiling_result_<P>_<gpu>.csv (sample)\n"
            "  -o, --output DIR       output folder, created if needed (.)\n"
            "  -n, --node NAME        put NAME in file names (multi-node runs):\n"
            "                         profiling_result_<P>_<NAME>_<gpu>.csv\n"
            "      --progress         a status line on stderr every second\n"
            "  -h, --help             this help\n\n"
            "Writes, in DIR: profiling_result_<P>[_<NAME>]_<gpu>.csv per GPU (metadata line,\n"
            "header, one line per sample; nan where a sensor is absent; CLOCK_BOOTTIME ns),\n"
            "clock_ref[_<NAME>].txt before CMD starts, sampler_<P>[_<NAME>].json at the end,\n"
            "and with nvml <stem>_driver_power.csv (the driver's buffered power samples).\n"
            "Exit status: CMD's; 1 if sampling could not start; 2 usage error.\n");
}

/* "0,2,4-7" -> list; -1 on a malformed entry. */
static int parse_gpus(const char *s, struct sample_opts *o)
{
    char *copy = xstrdup(s), *save = NULL;
    size_t cap = 0;
    int rc = 0;
    for (char *it = strtok_r(copy, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save)) {
        char *end, *end2;
        long a = strtol(it, &end, 10), b = a;
        if (*end == '-')
            b = strtol(end + 1, &end2, 10), end = end2;
        if (end == it || *end || a < 0 || b < a || b > 4095) {
            rc = -1;
            break;
        }
        for (long v = a; v <= b; v++) {
            xgrow((void **)&o->gpus, &cap, o->ngpus + 1, sizeof(*o->gpus));
            o->gpus[o->ngpus++] = (int)v;
        }
    }
    free(copy);
    return rc == 0 && o->ngpus > 0 ? 0 : -1;
}

/* A file-name part: no '/', blank or control character (a newline would
 * also split the metadata line of the telemetry files). */
static bool is_name(const char *s)
{
    for (const char *p = s; *p; p++)
        if (*p == '/' || isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
            return false;
    return *s && strcmp(s, ".") && strcmp(s, "..");
}

/* Fills o; returns -1 (help printed: exit 0), 0, or BR_EXIT_USAGE. */
static int parse_opts(int argc, char **argv, struct sample_opts *o)
{
    enum { OPT_PROGRESS = 256 };
    static const struct option longopts[] = {
        { .name = "gpus", .has_arg = required_argument, .val = 'g' },
        { .name = "interval-ms", .has_arg = required_argument, .val = 'i' },
        { .name = "backend", .has_arg = required_argument, .val = 'b' },
        { .name = "prefix", .has_arg = required_argument, .val = 'p' },
        { .name = "output", .has_arg = required_argument, .val = 'o' },
        { .name = "node", .has_arg = required_argument, .val = 'n' },
        { .name = "progress", .has_arg = no_argument, .val = OPT_PROGRESS },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    const char *gpus = "0";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+g:i:b:p:o:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': gpus = optarg; break;
        case 'i':
            if (cli_parse_double("sample", "--interval-ms", optarg, 0.1, 60000, &o->interval_ms))
                return BR_EXIT_USAGE;
            break;
        case 'b': o->backend = optarg; break;
        case 'p': o->prefix = optarg; break;
        case 'o': o->outdir = optarg; break;
        case 'n': o->node = optarg; break;
        case OPT_PROGRESS: o->progress = true; break;
        case 'h': usage(stdout); return -1;
        default: return cli_usage_error("sample", "unknown option");
        }
    }
    if (parse_gpus(gpus, o) != 0)
        return cli_usage_error("sample", "--gpus: expected indices like 0,1,4-7, got '%s'", gpus);
    if (!is_name(o->prefix) || (o->node && !is_name(o->node)))
        return cli_usage_error("sample", "--prefix and --node must be non-empty names "
                                         "without '/', blanks or control characters");
    if (optind >= argc)
        return cli_usage_error("sample", "no command given (benchrun sample [opts] -- CMD...)");
    return 0;
}

int cmd_sample(int argc, char **argv)
{
    struct sample_opts o = { .interval_ms = 1.0, .prefix = "sample", .outdir = "." };
    int rc = parse_opts(argc, argv, &o);
    if (rc != 0) {
        free(o.gpus);
        return rc < 0 ? BR_EXIT_OK : rc;
    }
    const struct br_sampler_ops *ops = o.backend ? br_sampler_find(o.backend) : br_sampler_auto();
    if (!ops) {
        free(o.gpus);
        if (o.backend)
            return cli_usage_error("sample", "--backend: unknown backend '%s'", o.backend);
        return BR_EXIT_FAIL;
    }
    struct br_sampler_config cfg = {
        .ops = ops, .gpus = o.gpus, .ngpus = o.ngpus,
        .interval_ns = (int64_t)(o.interval_ms * 1e6 + 0.5),
        .outdir = o.outdir, .prefix = o.prefix, .node = o.node,
        .argv = argv + optind, .progress = cli_show_progress(o.progress),
    };
    int st = br_sampler_run(&cfg, NULL);
    free(o.gpus);
    return st < 0 ? BR_EXIT_FAIL : st;
}
