/* clock.c - the sampled gfx clock (METRICS.md §3): mean gfx_clock_MHz of the
 * power run's telemetry samples that fall inside a running kernel, the
 * intervals being the merged kernel intervals of the power-run trace
 * (rp_power.busy_iv). Not the whole-file mean: startup (~138 MHz) and the
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

static int one_file(const char *path, const int64_t *iv, size_t m, double *sum, uint64_t *n)
{
    struct br_telem *t = br_telem_open(path);
    if (!t)
        return -1;
    struct br_telem_row row;
    int rc;
    while ((rc = br_telem_next(t, &row)) > 0) {
        double c = row.v[BR_TV_GFX_CLOCK];
        if (isfinite(c) && inside(iv, m, row.timestamp_ns)) {
            *sum += c;
            (*n)++;
        }
    }
    br_telem_close(t);
    return rc < 0 ? -1 : 0;
}

int mx_sampled_clock(char *const *telemetry, size_t nfiles, const int64_t *iv, size_t niv,
                     double *mhz, uint64_t *n)
{
    int64_t *w = xmalloc(2 * niv * sizeof(int64_t) + 1);
    if (niv)
        memcpy(w, iv, 2 * niv * sizeof(int64_t));
    size_t m = merge(w, niv);
    double sum = 0;
    *n = 0;
    int rc = 0;
    for (size_t i = 0; i < nfiles && rc == 0; i++)
        rc = one_file(telemetry[i], w, m, &sum, n);
    free(w);
    *mhz = *n ? sum / (double)*n : NAN;
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
            if (rp_path_in_node(root, pw->files[pw->gpu[k].file], nodes[i]))
                return true;
    return false;
}

/* One file against its node's intervals (all of them when it has no node). */
static int node_file(const char *path, const char *node, const struct rp_power *pw,
                     const char *root, int64_t *w, double *sum, uint64_t *n)
{
    size_t m = node ? node_intervals(pw, root, node, w) : pw->nbusy_iv;
    if (!node && m)
        memcpy(w, pw->busy_iv, 2 * m * sizeof(int64_t));
    if (node && m == 0)
        br_warn("%s: no kernel trace under a '%s/' folder: none of its samples is used for "
                "the sampled clock (CLOCK_BOOTTIME is per node)", path, node);
    m = merge(w, m);
    return one_file(path, w, m, sum, n);
}

int mx_sampled_clock_nodes(char *const *telemetry, size_t nfiles, const struct rp_power *pw,
                           const char *root, double *mhz, uint64_t *n)
{
    char **nodes = xcalloc(nfiles + 1, sizeof(*nodes));
    for (size_t i = 0; i < nfiles; i++)
        nodes[i] = rp_telem_node(telemetry[i]);
    int rc = 0;
    if (!traces_by_node(pw, root, nodes, nfiles)) {
        rc = mx_sampled_clock(telemetry, nfiles, pw->busy_iv, pw->nbusy_iv, mhz, n);
    } else {
        int64_t *w = xmalloc(2 * pw->nbusy_iv * sizeof(int64_t) + 1);
        double sum = 0;
        *n = 0;
        for (size_t i = 0; i < nfiles && rc == 0; i++)
            rc = node_file(telemetry[i], nodes[i], pw, root, w, &sum, n);
        free(w);
        *mhz = *n ? sum / (double)*n : NAN;
    }
    for (size_t i = 0; i < nfiles; i++)
        free(nodes[i]);
    free(nodes);
    return rc;
}
