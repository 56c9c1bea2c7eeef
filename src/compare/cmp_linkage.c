/* cmp_linkage.c - hierarchical clustering of a condensed distance matrix,
 * step for step as scipy.cluster.hierarchy.linkage (scipy 1.10,
 * scipy/cluster/_hierarchy.pyx and _hierarchy_distance_update.pxi), so that
 * ties are broken the same way and Z equals scipy's:
 *
 *  - single: minimum spanning tree (mst_single_linkage): grow from input 0,
 *    each step takes the outside point of least distance to the tree, the
 *    first one on equal distances;
 *  - complete, average, weighted, ward: nearest-neighbour chain (nn_chain):
 *    the chain starts at the lowest live cluster; from its tip it moves to
 *    the first cluster of strictly least distance, the previous chain
 *    element preferred on equal distances; two mutual nearest neighbours
 *    merge into the higher slot, and the distances to it are updated by
 *    Lance-Williams (ward: sqrt(((ni+nx) d_xi^2 + (ni+ny) d_yi^2 - ni d_xy^2)
 *    / (nx+ny+ni)), written as scipy evaluates it; ward applied to whatever
 *    distances are given, e.g. cosine, as minos' dendrogram.py does);
 *  - then Z is sorted by height with a stable sort (numpy's mergesort: equal
 *    heights keep the order they were merged in) and relabelled with a
 *    union-find, cluster n + i being row i's, smaller id first.
 *
 * The source must be compiled without floating-point contraction (CMake sets
 * -ffp-contract=off on src/compare/): a fused multiply-add would round
 * differently from scipy's separate operations.
 */
#include "compare/compare.h"

#include "util/error.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {
    [CMP_SINGLE] = "single", [CMP_COMPLETE] = "complete", [CMP_AVERAGE] = "average",
    [CMP_WEIGHTED] = "weighted", [CMP_WARD] = "ward",
};

int cmp_method_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(method_names) / sizeof(method_names[0]); i++)
        if (strcmp(name, method_names[i]) == 0)
            return (int)i;
    return -1;
}

const char *cmp_method_name(enum cmp_method m)
{
    return method_names[m];
}

/* Distance from cluster i to the merge of x and y (sizes nx, ny, ni). */
static double lance_williams(enum cmp_method m, double d_xi, double d_yi, double d_xy, int nx,
                             int ny, int ni)
{
    switch (m) {
    case CMP_COMPLETE: return d_xi > d_yi ? d_xi : d_yi;
    case CMP_AVERAGE: return (nx * d_xi + ny * d_yi) / (nx + ny);
    case CMP_WEIGHTED: return 0.5 * (d_xi + d_yi);
    case CMP_WARD: {
        double t = 1.0 / (nx + ny + ni);
        return sqrt((ni + nx) * t * d_xi * d_xi + (ni + ny) * t * d_yi * d_yi -
                    ni * t * d_xy * d_xy);
    }
    case CMP_SINGLE: break;
    }
    return d_xi < d_yi ? d_xi : d_yi;
}

static void mst_single(const double *y, size_t n, double (*Z)[4])
{
    bool *merged = xcalloc(n, sizeof(*merged));
    double *D = xmalloc(n * sizeof(*D));
    for (size_t i = 0; i < n; i++)
        D[i] = INFINITY;
    size_t x = 0, to = 0;
    for (size_t k = 0; k + 1 < n; k++) {
        double best = INFINITY;
        merged[x] = true;
        for (size_t i = 0; i < n; i++) {
            if (merged[i])
                continue;
            double d = y[cmp_condensed_index(n, x, i)];
            if (D[i] > d)
                D[i] = d;
            if (D[i] < best)
                to = i, best = D[i];
        }
        Z[k][0] = (double)x, Z[k][1] = (double)to, Z[k][2] = best, Z[k][3] = 0;
        x = to;
    }
    free(merged);
    free(D);
}

/* The chain's next link from its tip x: the first live cluster of strictly
 * least distance, the previous element (prev, or none when prev == n) first. */
static size_t chain_next(const double *D, size_t n, const int *size, size_t x, size_t prev,
                         double *best)
{
    size_t to = prev;
    *best = prev < n ? D[cmp_condensed_index(n, x, prev)] : INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (size[i] == 0 || i == x)
            continue;
        double d = D[cmp_condensed_index(n, x, i)];
        if (d < *best)
            *best = d, to = i;
    }
    return to;
}

static void nn_chain(const double *y, size_t n, enum cmp_method m, double (*Z)[4])
{
    double *D = xmalloc(n * (n - 1) / 2 * sizeof(*D));
    memcpy(D, y, n * (n - 1) / 2 * sizeof(*D));
    int *size = xmalloc(n * sizeof(*size));
    size_t *chain = xmalloc(n * sizeof(*chain)), len = 0;
    for (size_t i = 0; i < n; i++)
        size[i] = 1;
    for (size_t k = 0; k + 1 < n; k++) {
        if (len == 0) {
            for (size_t i = 0; i < n; i++)
                if (size[i] > 0) {
                    chain[len++] = i;
                    break;
                }
        }
        size_t x, to;
        double best;
        for (;;) {
            x = chain[len - 1];
            size_t prev = len > 1 ? chain[len - 2] : n;
            to = chain_next(D, n, size, x, prev, &best);
            if (len > 1 && to == prev)
                break;
            chain[len++] = to;
        }
        len -= 2;
        if (x > to) {
            size_t t = x;
            x = to, to = t;
        }
        int nx = size[x], ny = size[to];
        Z[k][0] = (double)x, Z[k][1] = (double)to, Z[k][2] = best, Z[k][3] = nx + ny;
        size[x] = 0;
        size[to] = nx + ny;
        for (size_t i = 0; i < n; i++) {
            if (size[i] == 0 || i == to)
                continue;
            size_t iy = cmp_condensed_index(n, i, to);
            D[iy] = lance_williams(m, D[cmp_condensed_index(n, i, x)], D[iy], best, nx, ny,
                                   size[i]);
        }
    }
    free(D);
    free(size);
    free(chain);
}

/* ---- stable sort by height, then labels ------------------------------------ */

struct zrow {
    double r[4];
    size_t order;
};

static int by_height(const void *a, const void *b)
{
    const struct zrow *p = a, *q = b;
    if (p->r[2] != q->r[2])
        return p->r[2] < q->r[2] ? -1 : 1;
    return p->order < q->order ? -1 : p->order > q->order;
}

static size_t uf_find(size_t *parent, size_t x)
{
    size_t root = x;
    while (parent[root] != root)
        root = parent[root];
    while (parent[x] != root) {
        size_t next = parent[x];
        parent[x] = root;
        x = next;
    }
    return root;
}

/* Rows hold slot numbers (a slot is named after the input it started from);
 * union-find turns them into cluster ids in merge order. */
static void relabel(double (*Z)[4], size_t n)
{
    size_t *parent = xmalloc((2 * n - 1) * sizeof(*parent));
    double *count = xmalloc((2 * n - 1) * sizeof(*count));
    for (size_t i = 0; i < 2 * n - 1; i++)
        parent[i] = i, count[i] = 1;
    for (size_t i = 0; i + 1 < n; i++) {
        size_t a = uf_find(parent, (size_t)Z[i][0]), b = uf_find(parent, (size_t)Z[i][1]);
        Z[i][0] = (double)(a < b ? a : b);
        Z[i][1] = (double)(a < b ? b : a);
        parent[a] = parent[b] = n + i;
        count[n + i] = count[a] + count[b];
        Z[i][3] = count[n + i];
    }
    free(parent);
    free(count);
}

static void sort_and_label(double (*Z)[4], size_t n)
{
    struct zrow *rows = xmalloc((n - 1) * sizeof(*rows));
    for (size_t i = 0; i + 1 < n; i++) {
        memcpy(rows[i].r, Z[i], sizeof(rows[i].r));
        rows[i].order = i;
    }
    qsort(rows, n - 1, sizeof(*rows), by_height);
    for (size_t i = 0; i + 1 < n; i++)
        memcpy(Z[i], rows[i].r, sizeof(rows[i].r));
    free(rows);
    relabel(Z, n);
}

int cmp_linkage(const double *y, size_t n, enum cmp_method m, double (*Z)[4])
{
    if (n < 2)
        return br_error("compare: %zu workload(s): clustering needs at least 2", n);
    for (size_t i = 0; i < n * (n - 1) / 2; i++)
        if (!isfinite(y[i]))
            return br_error("compare: distance %zu is not finite", i);
    if (m == CMP_SINGLE)
        mst_single(y, n, Z);
    else
        nn_chain(y, n, m, Z);
    sort_and_label(Z, n);
    for (size_t i = 0; i + 1 < n; i++)
        if (!isfinite(Z[i][2]))
            return br_error("compare: merge %zu of the %s linkage has no finite height (the "
                            "distances are too far from Euclidean for its update); try "
                            "--method average or --metric euclidean", i, cmp_method_name(m));
    return 0;
}
