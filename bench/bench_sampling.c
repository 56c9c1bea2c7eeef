/* bench_sampling.c - what launch sampling costs and saves off the GPU, in one
 * run (README "Launch sampling"): the same generated rocprofv3 run
 * (tests/tools/gen_rocprof) written with counter rows for every launch and
 * with the default sampling plan (--sample 10:50:20:1), then read by the pmc
 * reader (rp_run_load, the part of `benchrun analyze` that sampling changes)
 * several times each.
 * Prints the counter bytes and rows sampled/full, the read time sampled/full
 * (the estimator's extra work against the rows it no longer reads), and the
 * plan's cost per launch decision (lp_next, what the CUPTI library calls per
 * profiled launch, and lp_profiled). The GPU side (profiler arms, events) is
 * measured by tests/gpu/final18.sh.
 *
 * usage: bench_sampling [--gen PATH] [--dir DIR] [--launches N] [--reps N] [--keep]
 */
#include "trace/launchplan.h"
#include "read/rocprof.h"
#include "util/xalloc.h"

#include "bench_util.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct opts {
    const char *gen, *dir;
    long launches;
    int reps;
    bool keep;
};

/* Bytes and lines of every counter file of a pmc folder (shell tools: the
 * reader under test does not count its own input). */
static void counter_size(const char *pmc, long long *bytes, long long *rows)
{
    char *cmd = xasprintf("cat %s/*/*_counter_collection.csv | wc -lc", pmc);
    FILE *p = popen(cmd, "r");
    *bytes = *rows = -1;
    if (p && fscanf(p, "%lld %lld", rows, bytes) != 2)
        *bytes = *rows = -1;
    if (p)
        pclose(p);
    free(cmd);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median time of rp_run_load over reps; the profiled and traced launches. */
static double read_time(const char *pmc, int reps, uint64_t *profiled, uint64_t *launches)
{
    char **names = rp_find_passes(pmc);
    size_t n = 0;
    while (names && names[n])
        n++;
    double *t = xcalloc((size_t)reps, sizeof(double));
    for (int i = 0; i < reps; i++) {
        struct rp_run run;
        double t0 = bench_now_s();
        if (rp_run_load(&run, pmc, (const char *const *)names, n, 1) != 0) {
            fprintf(stderr, "bench_sampling: cannot read %s\n", pmc);
            exit(1);
        }
        t[i] = bench_now_s() - t0;
        *profiled = *launches = 0;
        for (uint32_t p = 0; p < run.npasses; p++) {
            *profiled += run.passes[p].profiled_total;
            *launches += run.passes[p].launches_total;
        }
        rp_run_release(&run);
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    double med = t[reps / 2];
    free(t);
    str_array_free(names);
    return med;
}

static void plan_cost(void)
{
    struct lp_plan p;
    lp_plan_default(&p);
    const uint64_t n = 20000000;
    double t0 = bench_now_s();
    uint64_t hits = 0;
    for (uint64_t r = 1; r <= n; r++)
        hits += lp_profiled(&p, r);
    double per = (bench_now_s() - t0) / (double)n * 1e9;
    t0 = bench_now_s();
    uint64_t steps = 0;
    for (uint64_t r = lp_next(&p, 1); r <= n; r = lp_next(&p, r + 1))
        steps++;
    double per_next = steps ? (bench_now_s() - t0) / (double)steps * 1e9 : 0;
    printf("plan 10:50:20:1 on %llu launches of one kernel: %llu profiled (%.4f %%); "
           "lp_profiled %.1f ns per launch, lp_next %.1f ns per profiled launch\n",
           (unsigned long long)n, (unsigned long long)hits, 100.0 * (double)hits / (double)n,
           per, per_next);
}

static int parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        { "gen", 1, NULL, 'g' }, { "dir", 1, NULL, 'd' }, { "launches", 1, NULL, 'l' },
        { "reps", 1, NULL, 'r' }, { "keep", 0, NULL, 'k' }, { NULL, 0, NULL, 0 },
    };
    o->gen = BR_BINARY_DIR "/tests/gen_rocprof";
    o->dir = NULL;
    o->launches = 200000;
    o->reps = 3;
    o->keep = false;
    int c;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'g': o->gen = optarg; break;
        case 'd': o->dir = optarg; break;
        case 'l': o->launches = atol(optarg); break;
        case 'r': o->reps = atoi(optarg); break;
        case 'k': o->keep = true; break;
        default: return -1;
        }
    }
    return o->launches > 0 && o->reps > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct opts o;
    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: bench_sampling [--gen PATH] [--dir DIR] [--launches N] "
                        "[--reps N] [--keep]\n");
        return 2;
    }
    char tmpl[] = "/tmp/bench_sampling.XXXXXX";
    const char *dir = o.dir ? o.dir : mkdtemp(tmpl);
    if (!dir)
        return perror("mkdtemp"), 1;
    char *full = xasprintf("%s/full", dir), *samp = xasprintf("%s/sampled", dir);
    char *g1 = xasprintf("'%s' --kernels 40 --launches %ld --seed 3 '%s' >/dev/null", o.gen,
                         o.launches, full);
    char *g2 = xasprintf("'%s' --kernels 40 --launches %ld --seed 3 --sample 10:50:20:1 '%s' "
                         ">/dev/null", o.gen, o.launches, samp);
    if (system(g1) != 0 || system(g2) != 0) {
        fprintf(stderr, "bench_sampling: %s failed\n", o.gen);
        return 1;
    }
    long long fb, fr, sb, sr;
    counter_size(full, &fb, &fr);
    counter_size(samp, &sb, &sr);
    uint64_t fp, fl, sp, sl;
    double tf = read_time(full, o.reps, &fp, &fl), ts = read_time(samp, o.reps, &sp, &sl);
    printf("generated run: 40 kernels, %ld launches per pass, 6 passes\n", o.launches);
    printf("counter files: full %.1f MB (%lld rows), sampled %.1f MB (%lld rows): %.4f x\n",
           (double)fb / 1e6, fr, (double)sb / 1e6, sr, (double)sb / (double)fb);
    printf("launches with counters: full %llu, sampled %llu of %llu (%.2f %%)\n",
           (unsigned long long)fp, (unsigned long long)sp, (unsigned long long)sl,
           100.0 * (double)sp / (double)sl);
    printf("read (rp_run_load, median of %d): full %.3f s, sampled %.3f s: %.3f x\n", o.reps, tf,
           ts, ts / tf);
    plan_cost();
    if (!o.keep && !o.dir) {
        char *rm = xasprintf("rm -rf '%s'", dir);
        if (system(rm) != 0)
            fprintf(stderr, "bench_sampling: cannot remove %s\n", dir);
        free(rm);
    }
    free(full);
    free(samp);
    free(g1);
    free(g2);
    return 0;
}
