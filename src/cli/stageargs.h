/* stageargs.h - argument parsing shared by plain, power (CONF [--dry-run]). */
#ifndef BR_CLI_STAGEARGS_H
#define BR_CLI_STAGEARGS_H

#include <stdbool.h>

/* Parses "CONF [--dry-run|-n] [--help|-h]" in any order. Returns 0 with
 * *conf and *dry_run set, 1 after printing help (exit 0), or BR_EXIT_USAGE after
 * printing a usage error. */
int cli_stage_args(const char *cmd, const char *help, int argc, char **argv,
                   const char **conf, bool *dry_run);

#endif
