/* binning.c - numpy.arange edges, bin lookup and Python round() for the
 * telemetry vectors (docs/design.md §9). Contract and sources in binning.h.
 *
 * The vector table restates docs/design.md §9 (the binning of minos-analysis
 * dendrogram.py calculate_power_distribution, as the seed's
 * build_sampling_json.py implements it). The TDP itself is not here: it comes
 * from the arch profile ("tdp_W") or --tdp.
 */
#include "vectors/binning.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const struct vec_spec vec_specs[VEC_NSPECS] = {
    { "inst_power", TELEM_INST_POWER, 1, 0.5, 2.05, 0.1, "fraction of TDP" },
    { "socket_power", TELEM_SOCKET_POWER, 1, 0.5, 2.05, 0.1, "fraction of TDP" },
    { "gfx_frequency", TELEM_GFX_CLOCK, 0, 0, 2300, 100, "MHz" },
    { "hotspot_temp", TELEM_HOTSPOT_TEMP, 0, 30, 115, 5, "degrees C" },
    { "edge_temp", TELEM_EDGE_TEMP, 0, 30, 115, 5, "degrees C" },
};

size_t vec_arange(double lo, double hi, double step, double *out, size_t max)
{
    double len = ceil((hi - lo) / step);
    if (!(len > 0) || len > 1e9)
        return 0;
    size_t n = (size_t)len;
    if (!out)
        return n;
    if (n > max)
        n = max;
    /* volatile: keep each product and sum separately rounded, as numpy does
     * (no contraction into a fused multiply-add). */
    volatile double delta = (lo + step) - lo;
    for (size_t i = 0; i < n; i++) {
        if (i == 0) {
            out[i] = lo;
        } else if (i == 1) {
            out[i] = lo + step;
        } else {
            volatile double prod = (double)i * delta;
            out[i] = lo + prod;
        }
    }
    return n;
}

long vec_bin_index(const double *edges, size_t n, double step, double x)
{
    if (n == 0 || !(x >= edges[0]))
        return -1;
    if (x >= edges[n - 1])
        return (long)n - 1;
    /* Guess from the spacing, then let the edges decide. */
    double g = floor((x - edges[0]) / step);
    long i = g < 0 ? 0 : g > (double)(n - 2) ? (long)n - 2 : (long)g;
    while (i > 0 && x < edges[i])
        i--;
    while (i < (long)n - 2 && x >= edges[i + 1])
        i++;
    return i;
}

double vec_round4(double x)
{
    if (!isfinite(x))
        return x;
    /* glibc printf rounds the exact binary value correctly (ties to even),
     * and strtod returns the nearest double: the two steps of CPython's
     * float round() (_Py_dg_dtoa mode 3, then _Py_dg_strtod). */
    char buf[400];
    snprintf(buf, sizeof(buf), "%.4f", x);
    return strtod(buf, NULL);
}
