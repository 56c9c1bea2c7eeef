/* clockconv.h - convert timestamps of another clock (CUPTI's) to CLOCK_BOOTTIME ns.
 *
 * Every timestamp benchrun writes is CLOCK_BOOTTIME ns (docs/design.md §2), the
 * domain of rocprofv3's kernel timestamps. CUPTI stamps activity records with
 * its own clock (cuptiGetTimestamp). We read both clocks together at several
 * moments (start, each flush, end): each reading is a clk_point. Between two
 * points a timestamp is converted by linear interpolation of the offset
 * (boot − src), i.e. offset + drift; before the first and after the last point
 * the nearest segment is extrapolated. The points, offsets and drift (ppm) go
 * into the trace's companion JSON so the alignment can be checked.
 * Pure logic (no CUDA): tests/unit/test_nvtrace.c (test_clock_convert).
 */
#ifndef BR_CLOCKCONV_H
#define BR_CLOCKCONV_H

#include <stddef.h>
#include <stdint.h>

/* One simultaneous reading of both clocks. */
struct clk_point {
    uint64_t src_ns;   /* the other clock */
    uint64_t boot_ns;  /* CLOCK_BOOTTIME, midpoint of the bracket */
    uint64_t err_ns;   /* half the width of the boottime bracket around src */
};

/* Reads the other clock (ns); ctx is passed through. */
typedef uint64_t (*clk_src_fn)(void *ctx);
/* Reads CLOCK_BOOTTIME (ns); replaceable for tests. */
typedef uint64_t (*clk_boot_fn)(void *ctx);

/* CLOCK_BOOTTIME now, ns. */
uint64_t clk_boottime_ns(void);

/* Takes `tries` brackets boot/src/boot and keeps the narrowest. boot may be
 * NULL (CLOCK_BOOTTIME). Returns the point. */
struct clk_point clk_measure(clk_src_fn src, clk_boot_fn boot, void *ctx, int tries);

/* Piecewise-linear conversion model over points sorted by src_ns. */
struct clk_conv {
    struct clk_point *pts;
    size_t n, cap;
};

void clk_conv_init(struct clk_conv *c);
void clk_conv_release(struct clk_conv *c);
/* Appends a point (points must come in increasing src order; an out-of-order
 * or duplicate point is ignored and -1 returned). */
int clk_conv_add(struct clk_conv *c, struct clk_point p);
/* Offset boot − src at point i, ns. */
int64_t clk_offset_ns(const struct clk_point *p);
/* Drift between the first and last point, in ppm of src time (0 with < 2 points). */
double clk_conv_drift_ppm(const struct clk_conv *c);
/* Converts src timestamp t to CLOCK_BOOTTIME ns. With no point, returns t. */
uint64_t clk_conv_to_boot(const struct clk_conv *c, uint64_t t);

#endif
