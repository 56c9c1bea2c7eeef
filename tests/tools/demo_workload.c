/* demo_workload.c - the bundled example workload (needs no GPU): a STREAM-like
 * triad over double arrays, timed, printing a LAMMPS-style timing line
 *   Loop time of <s> on 1 procs for <iters> steps with <n> elements
 * so the same PERF_GREP ('^Loop time of') works for the demo and LAMMPS.
 * Test knobs: --fail CODE exits with CODE after the loop, --sleep-ms MS
 * sleeps first (signal tests), --log FILE also writes the timing line there,
 * --print-env VAR prints VAR's value (GPU binding tests).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct opts {
    long size, iters, fail, sleep_ms;
    const char *log;
    const char *env[8];
    int nenv;
};

static long num(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0) {
        fprintf(stderr, "demo_workload: %s: expected a non-negative integer, got '%s'\n", opt, s);
        exit(2);
    }
    return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "demo_workload: unknown or incomplete option '%s'\n", a);
            exit(2);
        }
        if (!strcmp(a, "--size")) o->size = num(a, v);
        else if (!strcmp(a, "--iters")) o->iters = num(a, v);
        else if (!strcmp(a, "--fail")) o->fail = num(a, v);
        else if (!strcmp(a, "--sleep-ms")) o->sleep_ms = num(a, v);
        else if (!strcmp(a, "--log")) o->log = v;
        else if (!strcmp(a, "--print-env") && o->nenv < 8) o->env[o->nenv++] = v;
        else {
            fprintf(stderr, "demo_workload: unknown option '%s'\n", a);
            exit(2);
        }
        i++;
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double triad(long n, long iters)
{
    double *a = malloc((size_t)n * sizeof(*a)), *b = malloc((size_t)n * sizeof(*b));
    double *c = malloc((size_t)n * sizeof(*c));
    if (!a || !b || !c) {
        fprintf(stderr, "demo_workload: out of memory for %ld elements\n", n);
        exit(1);
    }
    for (long i = 0; i < n; i++) {
        b[i] = (double)i;
        c[i] = 1.0;
    }
    for (long it = 0; it < iters; it++)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + 3.0 * c[i] + (double)it;
    double check = n ? a[n - 1] : 0.0;
    free(a);
    free(b);
    free(c);
    return check;
}

int main(int argc, char **argv)
{
    struct opts o = { .size = 1000000, .iters = 20 };
    parse(argc, argv, &o);
    for (int i = 0; i < o.nenv; i++) {
        const char *v = getenv(o.env[i]);
        printf("env %s=%s\n", o.env[i], v ? v : "(unset)");
    }
    if (o.sleep_ms) {
        struct timespec ts = { o.sleep_ms / 1000, (o.sleep_ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
    }
    double t0 = now();
    double check = triad(o.size, o.iters);
    double dt = now() - t0;
    printf("demo_workload: triad checksum %.1f\n", check);
    printf("Loop time of %.6f on 1 procs for %ld steps with %ld elements\n", dt, o.iters, o.size);
    if (o.log) {
        FILE *fp = fopen(o.log, "w");
        if (!fp || fprintf(fp, "Loop time of %.6f on 1 procs for %ld steps\n", dt, o.iters) < 0 ||
            fclose(fp) != 0) {
            fprintf(stderr, "demo_workload: cannot write '%s': %s\n", o.log, strerror(errno));
            return 1;
        }
    }
    if (o.fail)
        fprintf(stderr, "demo_workload: failing on purpose with status %ld\n", o.fail);
    return (int)o.fail;
}
