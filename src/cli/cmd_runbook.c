/* cmd_runbook.c - 'benchrun runbook CONF [--out FILE]': RUNBOOK_<tag>.md for
 * one workload. What it holds: stage/runbook.h. This file parses, calls
 * stage_runbook and prints where the runbook is.
 */
#include "cli/cli.h"
#include "stage/runbook.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: benchrun runbook CONF [--out FILE]\n"
    "\n"
    "Writes RUNBOOK_<WORKLOAD>.md next to CONF (or FILE): every step of the\n"
    "pipeline (dry runs, counter list and check, plain, pmc with a -t estimate,\n"
    "power, analyze, vectors) with its command filled in for this workload,\n"
    "what to check after each step, and an sbatch --dependency=afterok chain.\n"
    "\n"
    "  -o, --out FILE  where to write the runbook\n"
    "  -h, --help      this help\n";

static int parse(int argc, char **argv, const char **conf, const char **out)
{
    static const struct option opts[] = {
        { .name = "out", .has_arg = required_argument, .val = 'o' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    optind = 1;
    opterr = 0;
    *out = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return 1;
        }
        if (c != 'o')
            return cli_usage_error("runbook", "unknown option or missing value: '%s'", argv[optind - 1]);
        *out = optarg;
    }
    if (optind != argc - 1)
        return cli_usage_error("runbook", optind >= argc ? "missing CONF" : "too many arguments");
    *conf = argv[optind];
    return 0;
}
int cmd_runbook(int argc, char **argv)
{
    const char *conf = NULL, *out = NULL;
    int rc = parse(argc, argv, &conf, &out);
    if (rc != 0)
        return rc == 1 ? BR_EXIT_OK : rc;
    char *path;
    if (stage_runbook(conf, out, &path) != 0)
        return BR_EXIT_FAIL;
    printf("runbook: %s\n", path);
    free(path);
    return BR_EXIT_OK;
}
