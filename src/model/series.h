/* series.h - min/max-decimated series: a long run of samples kept as at most
 * two points per bucket (the lowest and the highest sample of the bucket, in
 * time order), so a one-sample spike survives the thinning. The readers
 * decimate telemetry as they stream it (bounded memory on runs of millions
 * of samples); the report draws the points (write/wr_timeline.c).
 *
 * series_dec: a fixed x range [x0, x1) split into nb buckets; samples are
 * pushed in x order (an x outside the range falls in the first or last
 * bucket), NaN samples are skipped. series_grow: the range is not known in
 * advance: buckets of a width that doubles (pairs merged) whenever a sample
 * falls past the last, from the first sample on.
 */
#ifndef BR_MODEL_SERIES_H
#define BR_MODEL_SERIES_H

#include <stddef.h>

struct series_dec {
    double x0, span;
    size_t nb, cur, k;
    double lx, ly, hx, hy;     /* lowest and highest point of bucket cur */
    double *ox, *oy;           /* room for 2 * nb points (the caller's) */
};
void series_dec_init(struct series_dec *d, double x0, double x1, size_t nb, double *ox,
                     double *oy);
void series_dec_push(struct series_dec *d, double x, double y);
/* Writes the last bucket's points; d->k is then the number of points. */
void series_dec_flush(struct series_dec *d);

struct series_grow {
    size_t nb;                 /* buckets kept (even) */
    size_t used;               /* buckets [0, used) hold samples */
    double x0, width;          /* bucket i covers [x0 + i·width, x0 + (i+1)·width) */
    double *lx, *ly, *hx, *hy; /* [nb] per bucket: lowest and highest point */
    size_t n;                  /* samples pushed */
};
void series_grow_init(struct series_grow *g, size_t nb);
void series_grow_push(struct series_grow *g, double x, double y);
/* The points in x order (at most 2 per bucket) into new arrays *x and *y;
 * returns their count (0: none, arrays NULL). */
size_t series_grow_points(const struct series_grow *g, double **x, double **y);
void series_grow_release(struct series_grow *g);

#endif
