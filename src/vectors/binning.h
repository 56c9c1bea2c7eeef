/* binning.h - Minos dendrogram binning of telemetry samples (docs/design.md §9),
 * bit-exact with numpy.arange edges and Python's round().
 *
 * A vector spec bins x = value / reference: samples with x >= lo (the first
 * edge; NaN never qualifies) form the population; edges are
 * numpy.arange(lo, hi, step); entry i counts edge_i <= x < edge_{i+1}
 * (i = 0 .. nedges-2); samples at or above the last edge stay in the
 * population but fall in no entry, so a vector may sum to less than 1.
 *
 * numpy.arange arithmetic (numpy/core/src/multiarray/ctors.c _calc_length and
 * arraytypes.c.src DOUBLE_fill, numpy 1.x and 2.x): length = ceil((hi - lo) /
 * step); edge_0 = lo; edge_1 = lo + step; edge_i = lo + i * ((lo + step) - lo)
 * for i >= 2, each operation rounded separately (no fused multiply-add).
 * E.g. for lo 0.5, step 0.1: edge_7 = 1.1999999999999997, not 0.5 + 7 * 0.1 =
 * 1.2000000000000002, so 900 W / 750 W = 1.2 falls in entry 7.
 */
#ifndef BR_VECTORS_BINNING_H
#define BR_VECTORS_BINNING_H

#include <stddef.h>
#include <stdint.h>

#include "read/telemetry.h"

/* One vector of the Minos scheme. */
struct vec_spec {
    const char *name;          /* JSON key, e.g. "inst_power" */
    enum telem_col col;   /* telemetry column */
    int by_tdp;                /* 1: reference = TDP (W); 0: reference = 1 */
    double lo, hi, step;       /* numpy.arange(lo, hi, step) */
    const char *unit;          /* unit of x, e.g. "fraction of TDP" */
};

/* The five vectors of docs/design.md §9, in output order. */
#define VEC_NSPECS 5
extern const struct vec_spec vec_specs[VEC_NSPECS];

/* Edges of numpy.arange(lo, hi, step) as numpy computes them. Returns the
 * number of edges written to out (at most max), or the count needed when out
 * is NULL. 0 when the range is empty. */
size_t vec_arange(double lo, double hi, double step, double *out, size_t max);

/* Index i with edges[i] <= x < edges[i+1] (0 .. n-2); -1 when x < edges[0] or
 * x is NaN; n-1 when x >= edges[n-1] (kept, in no entry). step is the
 * spacing used for the first guess; the edges decide. */
long vec_bin_index(const double *edges, size_t n, double step, double x);

/* Python's round(x, 4) for a float: the double nearest to x correctly
 * rounded to 4 decimals, ties to even on x's exact binary value. */
double vec_round4(double x);

#endif
