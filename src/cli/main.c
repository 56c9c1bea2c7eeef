/* main.c - benchrun entry point: git-style dispatch to one command per file.
 *
 * Owns: the command table, --help/--version, exit statuses (0 ok, 1 the work
 * failed, 2 usage), and the final check that stdout was written completely.
 */
#include "cli/cli.h"
#include "version.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const struct br_cmd br_commands[] = {
    { "plain",     cmd_plain,     "plain run: correctness and reference timing" },
    { "pmc",       cmd_pmc,       "one app run per hardware-counter pass" },
    { "power",     cmd_power,     "telemetry sampling + kernel trace of one run" },
    { "analyze",   cmd_analyze,   "metrics, top kernels and report from a pmc run" },
    { "vectors",   cmd_vectors,   "binned telemetry vectors from a power run" },
    { "energy",    cmd_energy,    "energy per kernel from a power run" },
    { "compare",   cmd_compare,   "cluster workloads by their vectors; compare two analyses" },
    { "counters",  cmd_counters,  "list what this GPU exposes; check a counter set" },
    { "runbook",   cmd_runbook,   "write RUNBOOK_<tag>.md with every command filled in" },
    { "submit",    cmd_submit,    "submit the stages with sbatch, chained" },
    { "sample",    cmd_sample,    "sample power/clock/temperature around a command" },
    { "trace",     cmd_trace,     "kernel trace of a command" },
    { "calibrate", cmd_calibrate, "known-answer kernels check counters on this GPU" },
    { "doctor",    cmd_doctor,    "what this node has: GPUs, tools, permissions" },
    { "doc",       cmd_doc,       "generated reference pages (doc metrics: docs/metrics.md)" },
    { NULL, NULL, NULL },
};

static void print_usage(FILE *fp)
{
    fprintf(fp, "usage: benchrun [--version] [--help] <command> [<args>]\n\n"
                "Characterize a GPU workload: plain run, counter passes, power run,\n"
                "analysis and telemetry vectors, from one workload.conf.\n\n"
                "Commands:\n");
    for (const struct br_cmd *c = br_commands; c->name; c++)
        fprintf(fp, "  %-10s %s\n", c->name, c->summary);
    fprintf(fp, "\nRun 'benchrun <command> --help' for a command's options.\n"
                "Exit status: 0 success, 1 the work failed, 2 usage error.\n");
}

static const struct br_cmd *find_cmd(const char *name)
{
    for (const struct br_cmd *c = br_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

/* A command's output must reach its destination: a full disk or a closed pipe
 * on stdout is a failure, not a silent success. */
static int finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "benchrun: cannot write standard output: %s\n", strerror(errno));
        return BR_EXIT_FAIL;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return BR_EXIT_USAGE;
    }
    const char *arg = argv[1];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        print_usage(stdout);
        return finish_stdout(BR_EXIT_OK);
    }
    if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
        printf("benchrun %s\n", BR_VERSION_STRING);
        return finish_stdout(BR_EXIT_OK);
    }
    if (strcmp(arg, "help") == 0) {
        if (argc < 3) {
            print_usage(stdout);
            return finish_stdout(BR_EXIT_OK);
        }
        const struct br_cmd *c = find_cmd(argv[2]);
        if (!c)
            return cli_usage_error(NULL, "'%s' is not a benchrun command", argv[2]);
        char *hargv[] = { argv[2], "--help", NULL };
        return finish_stdout(c->fn(2, hargv));
    }
    if (arg[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'", arg);
    const struct br_cmd *c = find_cmd(arg);
    if (!c)
        return cli_usage_error(NULL, "'%s' is not a benchrun command", arg);
    return finish_stdout(c->fn(argc - 1, argv + 1));
}
