/* rangeoffset.h - what a CUPTI user range counts of its own, and taking it out.
 *
 * A pushed user range counts the profiler's own work between its push and
 * its pop along with the launch inside it. Measured on the H200
 * (tests/gpu/l2src18.sh, axpy, x and y L2-resident, docs/validation.md §16):
 * the same launch's range held ~1,850 more L2 sectors (lts__t_bytes / 32,
 * ~59 KB) under user ranges than under auto ranges, at 1M floats and at 256K
 * alike; none of it from the SMs (lts__t_sectors_srcunit_tex exact, 393,216
 * a launch, in every mode) nor from the L2 fabric. A fixed cost per range:
 * +0.35 % of axpy's L2 bytes, more on smaller kernels, and no spread of the
 * sampled launches shows it.
 *
 * So a pass in user ranges first pushes a few ranges around no work, each
 * with the synchronization a launch's range gets (the CUPTI library's
 * rangeprof.c), and subtracts their median, counter by counter, from every
 * launch's range. Only from counters that add up work (".sum" rollups, not
 * the elapsed ones: a user range does not write those, rptoggle.h); a value
 * below its offset becomes 0 and is counted.
 * Pure arithmetic, no allocation; tests/unit/test_rangeoffset.c.
 */
#ifndef BR_TRACE_RANGEOFFSET_H
#define BR_TRACE_RANGEOFFSET_H

#include <stdbool.h>
#include <stddef.h>

/* Empty ranges a pass pushes by default (BENCHRUN_CUPTI_EMPTY_RANGES). */
#define RO_DEFAULT_EMPTY_RANGES 3

/* An empty range's name, "benchrun-empty:<index>" (not a dispatch-numbered
 * name: rptoggle.h's join never takes it); ro_empty_index reads it back. */
void ro_empty_name(char *buf, size_t size, unsigned index);
bool ro_empty_index(const char *name, unsigned *index);

/* Whether the counter's value in a range is offset by the range's own work:
 * a ".sum" rollup that is not an elapsed counter (lp_elapsed_counter). */
bool ro_counter_offset(const char *counter);

/* offset[m]: the median of the k empty ranges' finite values of counter m
 * (samples: k rows of nm values), for the counters ro_counter_offset takes;
 * NaN for the others and where no value is finite. Returns the counters
 * given an offset. */
size_t ro_offset(const double *samples, size_t k, size_t nm, const char *const *counters,
                 double *offset);

/* vals[m] minus offset[m] where the offset is a number and the value
 * finite, 0 where that would be below 0. Returns the values so floored. */
size_t ro_subtract(double *vals, const double *offset, size_t nm);

#endif
