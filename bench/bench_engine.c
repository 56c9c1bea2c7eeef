/* bench_engine.c - cost of the metric engine and the writers of `benchrun
 * analyze` relative to the readers they follow (the engine works on
 * per-kernel aggregates, so it must add little). Times, in one process and one
 * run: rp_run_load (the baseline: the readers), mx_compute, and the four
 * output files; prints each and its ratio to the reader time (median of
 * --reps). Data: a pmc folder, e.g. the one bench_analyze --keep leaves.
 *
 * usage: bench_engine PMC_DIR [--reps N]
 */
#include "arch/arch.h"
#include "metrics/metrics.h"
#include "read/rocprof.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "write/analysis.h"

#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One repetition: t[0] read, t[1] engine, t[2] writers. */
static int once(const char *pmc, char **passes, int np, double *t)
{
    struct rp_run run;
    double t0 = bench_now_s();
    if (rp_run_load(&run, pmc, (const char *const *)passes, (size_t)np, 0) < 0)
        return -1;
    double t1 = bench_now_s();
    char *prof = arch_path_for("gfx942");
    struct arch_profile *ap = arch_load(prof, (const char *const *)passes, np);
    free(prof);
    if (!ap)
        return -1;
    struct arch_pass *defs = xcalloc((size_t)np, sizeof(*defs));
    for (int i = 0; i < np; i++) {       /* borrowed: the profile's counter lists */
        const struct arch_pass *def = arch_pass_find(ap, passes[i]);
        if (def)
            defs[i] = (struct arch_pass){ .name = passes[i], .counters = def->counters };
    }
    struct mx_opts o = { .time_pct = 90, .latency_pct = 10, .clock_src = MX_CLOCK_OVERRIDE,
                         .clock_mhz = 1700 };
    struct mx_result res;
    int rc = mx_compute(&res, ap, &run, NULL, defs, np, &o);
    double t2 = bench_now_s();
    char *out = fs_path_join(pmc, "bench-engine-out");
    struct wr_info wi = { .pmc_dir = pmc, .out_dir = out, .run = &run, .top_rows = 20,
                          .time_pct = 90, .latency_pct = 10, .clock = { .mean = NAN } };
    if (rc == 0)
        rc = wr_analysis(&res, &wi);
    double t3 = bench_now_s();
    t[0] = t1 - t0;
    t[1] = t2 - t1;
    t[2] = t3 - t2;
    free(out);
    mx_release(&res);
    free(defs);
    arch_free(ap);
    rp_run_release(&run);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_engine PMC_DIR [--reps N]\n");
        return 2;
    }
    int reps = argc > 3 && !strcmp(argv[2], "--reps") ? atoi(argv[3]) : 5;
    if (reps < 1 || reps > 100)
        reps = 5;
    char **passes = rp_find_passes(argv[1]);
    int np = 0;
    while (passes && passes[np])
        np++;
    if (np == 0) {
        fprintf(stderr, "bench_engine: no passes in %s\n", argv[1]);
        return 1;
    }
    double *t[3];
    for (int i = 0; i < 3; i++)
        t[i] = xcalloc((size_t)reps, sizeof(double));
    for (int r = 0; r < reps; r++) {
        double v[3];
        if (once(argv[1], passes, np, v) < 0)
            return 1;
        for (int i = 0; i < 3; i++)
            t[i][r] = v[i];
    }
    static const char *const what[3] = { "read (rp_run_load, baseline)", "engine (mx_compute)",
                                         "writers (4 files)" };
    double med[3];
    for (int i = 0; i < 3; i++) {
        qsort(t[i], (size_t)reps, sizeof(double), cmp_d);
        med[i] = t[i][reps / 2];
        printf("%-32s %9.4f s   %6.2f%% of read\n", what[i], med[i], 100 * med[i] / med[0]);
        free(t[i]);
    }
    printf("engine + writers over read: %.4f (median of %d runs, %d passes)\n",
           (med[1] + med[2]) / med[0], reps, np);
    str_array_free(passes);
    return 0;
}
