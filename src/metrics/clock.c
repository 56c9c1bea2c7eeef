/* clock.c - the sampled gfx clock (docs/design.md §7): mean gfx_clock_MHz of the
 * power run's telemetry samples that fall inside a running kernel, with the
 * seed's sample counts (all, inside the kernel window, inside a kernel) and
 * median, 5th and 95th percentile. Not the whole-file mean: startup
 * (~138 MHz) and the profiler's output write would dominate it. Samples of
 * every telemetry file are pooled. Which samples fall inside a kernel (per
 * node: CLOCK_BOOTTIME counts from each node's boot) is decided where the
 * files are read (read/telread.h); this file only computes. */
#include "metrics/metrics.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile q (0-100) of sorted v[n]: the sample at index floor(q / 100 x n)
 * (the last one at most). This is what reproduces the seed's figures: p5 of
 * its 47 in-kernel samples is the third smallest (numpy's default linear
 * interpolation would give another value); with an odd count the median is
 * the middle sample. */
static double percentile(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    size_t i = (size_t)floor(q / 100 * (double)n);
    return v[i < n ? i : n - 1];
}

void mx_clock_stats(const struct telem_run *tel, struct mx_clock_stats *st)
{
    size_t n = 0;
    uint64_t total = 0, window = 0, no_clock = 0;
    for (size_t i = 0; i < tel->n; i++) {
        n += tel->f[i].nkernel_clock;
        total += tel->f[i].rows;
        window += tel->f[i].in_window;
        no_clock += tel->f[i].no_clock;
    }
    double *mhz = xmalloc((n + 1) * sizeof(double)), sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < tel->n; i++)
        for (size_t j = 0; j < tel->f[i].nkernel_clock; j++)
            sum += mhz[k++] = tel->f[i].kernel_clock[j];
    if (n)
        qsort(mhz, n, sizeof(double), cmp_double);
    *st = (struct mx_clock_stats){ .files = tel->n, .samples_total = total,
                                   .samples_window = window, .samples_running = n,
                                   .samples_no_clock = no_clock,
                                   .mean = n ? sum / (double)n : NAN,
                                   .median = percentile(mhz, n, 50),
                                   .p5 = percentile(mhz, n, 5),
                                   .p95 = percentile(mhz, n, 95) };
    free(mhz);
}
