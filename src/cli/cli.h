/* cli.h - the command table and the helpers every command uses.
 *
 * Adding a command:
 *   1. write src/cli/cmd_<name>.c with `int cmd_<name>(int argc, char **argv)`
 *      (argv[0] is the command name; parse with getopt_long; -h/--help prints
 *      the usage to stdout and returns 0; a usage error returns BR_EXIT_USAGE);
 *   2. declare it below and add a row to the table in main.c;
 *   3. add tests/cli/NNNN-<name>-*.sh; tests/cli/0001-help.sh checks that
 *      `benchrun <name> --help` exits 0 for every row of the table.
 * Commands return an exit status (enum br_exit); they never call exit().
 */
#ifndef BR_CLI_H
#define BR_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "util/error.h"

typedef int (*br_cmd_fn)(int argc, char **argv);

struct br_cmd {
    const char *name;
    br_cmd_fn fn;
    const char *summary;
};

/* The table, terminated by a NULL name (main.c). */
extern const struct br_cmd br_commands[];

int cmd_plain(int argc, char **argv);
int cmd_pmc(int argc, char **argv);
int cmd_power(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_vectors(int argc, char **argv);
int cmd_energy(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_counters(int argc, char **argv);
int cmd_runbook(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_doc(int argc, char **argv);

/* Usage error: prints "benchrun <cmd>: <msg>" and a hint; returns BR_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Strict number parsing for option values; on error prints a usage error
 * naming the option and returns -1. */
int cli_parse_long(const char *cmd, const char *opt, const char *s, long min, long max, long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max,
                     double *out);

/* getopt_long over argv (optind reset, getopt's own messages off): -h
 * prints usage and returns 1; -P sets *progress; a missing value or an
 * unknown option is a usage error; every other option goes to fn(ctx, c,
 * optarg), which returns 0 or BR_EXIT_USAGE (after cli_usage_error). On 0,
 * optind is the first operand. Returns 0, 1 or BR_EXIT_USAGE. */
struct option;
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
               const struct option *longopts, const char *usage, bool *progress,
               int (*fn)(void *ctx, int c, const char *arg), void *ctx);

/* True when progress may be shown: stderr is a TTY or --progress was given. */
bool cli_show_progress(bool forced);

#endif
