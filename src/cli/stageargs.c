/* stageargs.c - the argument shape the stage commands share. */
#include "cli/cli.h"
#include "cli/stageargs.h"

#include <getopt.h>

int cli_stage_args(const char *cmd, const char *help, int argc, char **argv,
                   const char **conf, bool *dry_run)
{
    static const struct option opts[] = {
        { .name = "dry-run", .has_arg = no_argument, .val = 'n' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    *dry_run = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return 1;
        }
        if (c == 'n')
            *dry_run = true;
        else
            return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
    }
    if (optind != argc - 1)
        return cli_usage_error(cmd, optind >= argc ? "missing CONF" : "too many arguments");
    *conf = argv[optind];
    return 0;
}

