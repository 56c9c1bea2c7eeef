/* cmd_pmc.c - 'benchrun pmc CONF [--counters SET] [--collector C] [--dry-run]':
 * one full app run per counter pass (seed run_pmc.sbatch).
 *
 * What the stage does and the folder it leaves: stage/pmc.h.
 */
#include "cli/cli.h"
#include "stage/pmc.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchrun pmc CONF [--counters SET] [--collector NAME] [--launches all|sampled]\n"
    "                   [--dry-run]\n"
    "\n"
    "Hardware-counter profile of the workload in CONF: one full app run per\n"
    "counter pass, each under the collector (rocprofv3 --pmc ... --kernel-trace\n"
    "on AMD). Creates RESULTS_DIR/pmc-<jobid>/ with counters.json, run.json,\n"
    "run_info.txt, workload.conf and one folder per pass.\n"
    "\n"
    "  -c, --counters SET   counter set name of the arch profile\n"
    "                       (share/benchrun/arch/<ARCH>.json \"counter_sets\"),\n"
    "                       or a JSON file with a \"passes\" array;\n"
    "                       default: COUNTERS from the conf, else the seed's\n"
    "                       $PROFILING_DIR/counters.json when it exists, else\n"
    "                       \"default\"\n"
    "      --collector NAME collector (default: the first for the GPU vendor)\n"
    "      --launches MODE  all: counters on every launch; sampled: on a bounded\n"
    "                       sample per kernel (first 10, then one in each block\n"
    "                       of 50, 100, 200... launches), every launch traced and\n"
    "                       the sums scaled up with a 95 % interval;\n"
    "                       sampled:FIRST:EVERY:BLOCKS:SEED another plan; default:\n"
    "                       the conf's LAUNCHES, else sampled on NVIDIA, all on AMD\n"
    "  -n, --dry-run        print every command that would run, create nothing\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit status: 0 every pass succeeded, 1 a pass failed or the conf is\n"
    "invalid, 2 usage error.\n";

static int parse(int argc, char **argv, struct stage_pmc_opts *o)
{
    static const struct option opts[] = {
        { .name = "counters", .has_arg = required_argument, .val = 'c' },
        { .name = "collector", .has_arg = required_argument, .val = 'C' },
        { .name = "launches", .has_arg = required_argument, .val = 'L' },
        { .name = "dry-run", .has_arg = no_argument, .val = 'n' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    memset(o, 0, sizeof(*o));
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "c:nh", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(usage, stdout); return 1;
        case 'c': o->counters = optarg; break;
        case 'C': o->collector = optarg; break;
        case 'L':
            if (strcmp(optarg, "all") && strcmp(optarg, "sampled") && strncmp(optarg, "sampled:", 8))
                return cli_usage_error("pmc", "--launches: expected all, sampled or "
                                       "sampled:FIRST:EVERY:BLOCKS:SEED, got '%s'", optarg);
            o->launches = optarg;
            break;
        case 'n': o->dry_run = true; break;
        default:
            return cli_usage_error("pmc", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("pmc", optind >= argc ? "missing CONF" : "too many arguments");
    o->conf = argv[optind];
    return 0;
}

int cmd_pmc(int argc, char **argv)
{
    struct stage_pmc_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc == 1 ? BR_EXIT_OK : rc;
    return stage_pmc(&o) == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
}
