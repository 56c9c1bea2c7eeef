/* cmp_distance.c - pairwise distances of the compared vectors, as
 * scipy.spatial.distance.pdist(X, metric) computes them (scipy 1.10), so that
 * equal inputs give bit-equal distances and the linkage sees the same ties:
 *
 *   cosine       c = dot(x, y) / (|x| |y|), clipped to [-1, 1]; d = 1 - c
 *                (distance_impl.h pdist_cosine, _row_norms, dot_product).
 *                scipy compiles that file with -funsafe-math-optimizations
 *                and -ftree-vectorize (a #pragma in distance_wrap.c), so GCC
 *                sums the dot products and squared norms in two interleaved
 *                partial sums (SSE2 lanes: even and odd indices), adds them,
 *                then the last element of an odd length; measured here against
 *                Debian 12's python3-scipy 1.10.1 on amd64, bit for bit, for
 *                lengths 2 to 257 (tests/cli/compare_ref.py checks it)
 *   correlation  the cosine distance of x - mean(x), the mean as numpy sums a
 *                contiguous row (pairwise summation, 8 partial sums) divided
 *                by n (distance.py _correlation_pdist_wrap; numpy
 *                loops_utils.h pairwise_sum)
 *   euclidean    sqrt(sum |x_k - y_k|^2), index order (distance_metrics.h)
 *   cityblock    sum |x_k - y_k|, index order
 *
 * scipy's cosine of a zero vector is 0/0 = nan, and its linkage refuses
 * non-finite distances; here that is an error naming the input.
 */
#include "compare/compare.h"

#include "util/error.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[] = {
    [CMP_COSINE] = "cosine", [CMP_CORRELATION] = "correlation",
    [CMP_EUCLIDEAN] = "euclidean", [CMP_CITYBLOCK] = "cityblock",
};

int cmp_metric_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++)
        if (strcmp(name, metric_names[i]) == 0)
            return (int)i;
    return -1;
}

const char *cmp_metric_name(enum cmp_metric m)
{
    return metric_names[m];
}

size_t cmp_condensed_index(size_t n, size_t i, size_t j)
{
    if (i > j) {
        size_t t = i;
        i = j, j = t;
    }
    return n * i - i * (i + 1) / 2 + (j - i - 1);
}

/* numpy's pairwise summation of a contiguous double array (the order
 * numpy.add.reduce uses along the fast axis). */
static double numpy_sum(const double *a, size_t n)
{
    if (n < 8) {
        double res = 0.;
        for (size_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        for (i = 0; i < 8; i++)
            r[i] = a[i];
        for (i = 8; i < n - (n % 8); i += 8)
            for (size_t k = 0; k < 8; k++)
                r[k] += a[i + k];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return numpy_sum(a, n2) + numpy_sum(a + n2, n - n2);
}

/* Rows of s (correlation: centred), n x dim; NULL after an error. */
static double *rows_of(const struct cmp_set *s, enum cmp_metric m)
{
    size_t d = s->dim;
    double *x = xcalloc(s->n * d, sizeof(*x));
    for (size_t i = 0; i < s->n; i++) {
        memcpy(x + i * d, s->w[i].v, d * sizeof(*x));
        if (m != CMP_CORRELATION)
            continue;
        double mean = 0. + numpy_sum(x + i * d, d);
        mean /= (double)d;
        for (size_t k = 0; k < d; k++)
            x[i * d + k] -= mean;
    }
    return x;
}

/* sum a_k b_k as scipy's vectorized dot_product/_row_norms add it: two
 * partial sums over even and odd k, then the odd last term. */
static double lane2_dot(const double *a, const double *b, size_t d)
{
    double even = 0.0, odd = 0.0;
    size_t k = 0;
    for (; k + 1 < d; k += 2) {
        even += a[k] * b[k];
        odd += a[k + 1] * b[k + 1];
    }
    double s = even + odd;
    if (k < d)
        s += a[k] * b[k];
    return s;
}

/* Row norms for cosine/correlation; -1 (printed) when one is 0. */
static int row_norms(const struct cmp_set *s, enum cmp_metric m, const double *x, double *norm)
{
    for (size_t i = 0; i < s->n; i++) {
        norm[i] = sqrt(lane2_dot(x + i * s->dim, x + i * s->dim, s->dim));
        if (norm[i] == 0 || !isfinite(norm[i]))
            return br_error("%s: %s of '%s' is %s: its %s distance to any workload is undefined "
                            "(scipy's pdist gives nan and its linkage refuses it); leave this "
                            "input out or use --metric euclidean", s->w[i].path, s->kind,
                            s->w[i].label, m == CMP_CORRELATION ? "constant" : "all zeros",
                            cmp_metric_name(m));
    }
    return 0;
}

static double cosine(const double *u, const double *v, size_t d, double nu, double nv)
{
    double c = lane2_dot(u, v, d) / (nu * nv);
    if (fabs(c) > 1.)
        c = copysign(1, c);      /* rounding error */
    return 1. - c;
}

static double minkowski1or2(const double *u, const double *v, size_t d, bool squared)
{
    double acc = 0;
    for (size_t k = 0; k < d; k++) {
        double diff = fabs(u[k] - v[k]);
        acc = acc + (squared ? diff * diff : diff);
    }
    return squared ? sqrt(acc) : acc;
}

double *cmp_pdist(const struct cmp_set *s, enum cmp_metric m)
{
    size_t n = s->n, d = s->dim;
    if (n < 2 || (n - 1) > SIZE_MAX / 8 / n)
        return br_error("compare: %zu workloads: need at least 2", n), NULL;
    double *x = rows_of(s, m), *norm = xcalloc(n, sizeof(*norm));
    double *y = xcalloc(n * (n - 1) / 2, sizeof(*y));
    bool cos_like = m == CMP_COSINE || m == CMP_CORRELATION;
    if (cos_like && row_norms(s, m, x, norm) != 0) {
        free(y);
        y = NULL;
    }
    for (size_t i = 0, k = 0; y && i < n; i++) {
        for (size_t j = i + 1; j < n; j++, k++) {
            const double *u = x + i * d, *v = x + j * d;
            y[k] = cos_like ? cosine(u, v, d, norm[i], norm[j])
                            : minkowski1or2(u, v, d, m == CMP_EUCLIDEAN);
        }
    }
    free(x);
    free(norm);
    return y;
}

size_t cmp_nearest(const double *y, size_t n, size_t q, size_t k, size_t *idx)
{
    size_t got = 0;
    for (size_t j = 0; j < n; j++) {
        if (j == q)
            continue;
        double dj = y[cmp_condensed_index(n, q, j)];
        /* insertion into the sorted prefix; equal distances keep input order */
        size_t at = got;
        while (at > 0 && y[cmp_condensed_index(n, q, idx[at - 1])] > dj)
            at--;
        if (at >= k)
            continue;
        size_t last = got < k ? got : k - 1;
        memmove(idx + at + 1, idx + at, (last - at) * sizeof(*idx));
        idx[at] = j;
        if (got < k)
            got++;
    }
    return got;
}
