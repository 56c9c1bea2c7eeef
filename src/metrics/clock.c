/* clock.c - the sampled gfx clock (docs/design.md §7): mean gfx_clock_MHz of the
 * power run's telemetry samples that fall inside a running kernel, the
 * intervals being the merged kernel intervals of the power-run trace
 * (rp_power.busy_iv), with the seed's sample counts (all, inside the kernel
 * window, inside a kernel) and median, 5th and 95th percentile. Not the whole-file mean: startup (~138 MHz) and the
 * profiler's output write would dominate it. Samples of every telemetry file
 * are pooled; timestamps and intervals share the CLOCK_BOOTTIME ns domain.
 * That domain is per node (time since the node booted): in a multi-node run
 * (mx_sampled_clock_nodes) a node's samples are matched only against the
 * intervals of its own traces, ktrace_<tag>/<node>/ (read/nodepath.h). */
#include "metrics/metrics.h"

#include "read/nodepath.h"
#include "read/telemetry.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_iv(const void *a, const void *b)
{
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

/* Sorts and merges intervals (pairs) in place; returns the merged count. */
static size_t merge(int64_t *iv, size_t n)
{
    if (n == 0)
        return 0;
    qsort(iv, n, 2 * sizeof(int64_t), cmp_iv);
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        if (iv[2 * i] <= iv[2 * m + 1]) {
            if (iv[2 * i + 1] > iv[2 * m + 1])
                iv[2 * m + 1] = iv[2 * i + 1];
        } else {
            m++;
            iv[2 * m] = iv[2 * i];
            iv[2 * m + 1] = iv[2 * i + 1];
        }
    }
    return m + 1;
}

/* t inside some [start, end] of the merged, sorted intervals. */
static bool inside(const int64_t *iv, size_t m, int64_t t)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t < iv[2 * mid])
            hi = mid;
        else if (t > iv[2 * mid + 1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* Samples of the telemetry files: all, inside the kernel window, and the
 * clock of those inside a running kernel (the ones averaged). */
struct acc {
    uint64_t total, window;
    uint64_t no_clock;       /* inside a running kernel, gfx clock 0 or below: left out */
    double *mhz;
    size_t n, cap;
};

static void acc_add(struct acc *a, double v)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->mhz = xrealloc(a->mhz, a->cap * sizeof(double));
    }
    a->mhz[a->n++] = v;
}

/* One file against m merged intervals; the window is [first start, last end]. */
static int one_file(const char *path, const int64_t *iv, size_t m, struct acc *a)
{
    struct br_telem *t = br_telem_open(path);
    if (!t)
        return -1;
    struct br_telem_row row;
    int rc;
    while ((rc = br_telem_next(t, &row)) > 0) {
        double c = row.v[TELEM_GFX_CLOCK];
        a->total++;
        if (m && row.timestamp_ns >= iv[0] && row.timestamp_ns <= iv[2 * m - 1])
            a->window++;
        if (!isfinite(c) || !inside(iv, m, row.timestamp_ns))
            continue;
        if (c > 0)
            acc_add(a, c);
        else                /* no reading (some drivers write 0): never averaged in */
            a->no_clock++;
    }
    br_telem_close(t);
    return rc < 0 ? -1 : 0;
}

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

static void acc_finish(struct acc *a, size_t nfiles, struct mx_clock_stats *st)
{
    double sum = 0;
    for (size_t i = 0; i < a->n; i++)
        sum += a->mhz[i];
    if (a->n)
        qsort(a->mhz, a->n, sizeof(double), cmp_double);
    *st = (struct mx_clock_stats){ .files = nfiles, .samples_total = a->total,
                                   .samples_window = a->window, .samples_running = a->n,
                                   .samples_no_clock = a->no_clock,
                                   .mean = a->n ? sum / (double)a->n : NAN,
                                   .median = percentile(a->mhz, a->n, 50),
                                   .p5 = percentile(a->mhz, a->n, 5),
                                   .p95 = percentile(a->mhz, a->n, 95) };
    free(a->mhz);
}

int mx_sampled_clock(char *const *telemetry, size_t nfiles, const int64_t *iv, size_t niv,
                     double *mhz, uint64_t *n)
{
    int64_t *w = xmalloc(2 * niv * sizeof(int64_t) + 1);
    if (niv)
        memcpy(w, iv, 2 * niv * sizeof(int64_t));
    size_t m = merge(w, niv);
    struct acc a = { 0 };
    int rc = 0;
    for (size_t i = 0; i < nfiles && rc == 0; i++)
        rc = one_file(telemetry[i], w, m, &a);
    free(w);
    struct mx_clock_stats st;
    acc_finish(&a, nfiles, &st);
    *mhz = st.mean;
    *n = st.samples_running;
    return rc;
}

/* Copies the merged intervals of the trace files under a folder named node
 * into out (room for pw->nbusy_iv pairs); returns the pair count. */
static size_t node_intervals(const struct rp_power *pw, const char *root, const char *node,
                             int64_t *out)
{
    size_t m = 0;
    for (uint32_t k = 0; k < pw->ngpus; k++) {
        const struct rp_gpu_busy *g = &pw->gpu[k];
        if (!rp_path_in_node(root, pw->files[g->file], node))
            continue;
        memcpy(out + 2 * m, pw->busy_iv + 2 * g->iv_first, 2 * g->iv_n * sizeof(int64_t));
        m += g->iv_n;
    }
    return m;
}

/* True when some telemetry file's node owns a trace folder. */
static bool traces_by_node(const struct rp_power *pw, const char *root, char **nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; nodes[i] && k < pw->ngpus; k++)
            if (rp_path_in_node(root, rp_gpu_path(pw, &pw->gpu[k]), nodes[i]))
                return true;
    return false;
}

/* One file against its node's intervals (all of them when it has no node). */
static int node_file(const char *path, const char *node, const struct rp_power *pw,
                     const char *root, int64_t *w, struct acc *a)
{
    size_t m = node ? node_intervals(pw, root, node, w) : pw->nbusy_iv;
    if (!node && m)
        memcpy(w, pw->busy_iv, 2 * m * sizeof(int64_t));
    if (node && m == 0)
        br_warn("%s: no kernel trace under a '%s/' folder: none of its samples is used for "
                "the sampled clock (CLOCK_BOOTTIME is per node)", path, node);
    m = merge(w, m);
    return one_file(path, w, m, a);
}

int mx_sampled_clock_nodes(char *const *telemetry, size_t nfiles, const struct rp_power *pw,
                           const char *root, struct mx_clock_stats *st)
{
    char **nodes = xcalloc(nfiles + 1, sizeof(*nodes));
    for (size_t i = 0; i < nfiles; i++)
        nodes[i] = rp_telem_node(telemetry[i]);
    bool by_node = traces_by_node(pw, root, nodes, nfiles);
    int64_t *w = xmalloc(2 * pw->nbusy_iv * sizeof(int64_t) + 1);
    struct acc a = { 0 };
    int rc = 0;
    for (size_t i = 0; i < nfiles && rc == 0; i++)
        rc = node_file(telemetry[i], by_node ? nodes[i] : NULL, pw, root, w, &a);
    free(w);
    acc_finish(&a, nfiles, st);
    for (size_t i = 0; i < nfiles; i++)
        free(nodes[i]);
    free(nodes);
    return rc;
}
