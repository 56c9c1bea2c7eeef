/* cli.c - helpers shared by the commands: usage errors and number parsing. */
#include "cli/cli.h"

#include <getopt.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (cmd) {
        fprintf(stderr, "benchrun %s: %s\n", cmd, msg);
        fprintf(stderr, "Try 'benchrun %s --help'.\n", cmd);
    } else {
        fprintf(stderr, "benchrun: %s\n", msg);
        fprintf(stderr, "Try 'benchrun --help'.\n");
    }
    return BR_EXIT_USAGE;
}

int cli_parse_long(const char *cmd, const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        cli_usage_error(cmd, "%s: expected an integer from %ld to %ld, got '%s'", opt, min, max, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max,
                     double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
        cli_usage_error(cmd, "%s: expected a number from %g to %g, got '%s'", opt, min, max, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
               const struct option *longopts, const char *usage, bool *progress,
               int (*fn)(void *ctx, int c, const char *arg), void *ctx)
{
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return 1;
        }
        if (c == 'P' && progress)
            *progress = true;
        else if (c == ':')
            return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        else if (c == '?')
            return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        else if (fn(ctx, c, optarg) != 0)
            return BR_EXIT_USAGE;
    }
    return 0;
}

bool cli_show_progress(bool forced)
{
    return forced || isatty(STDERR_FILENO);
}
