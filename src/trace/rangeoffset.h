/* rangeoffset.h - what a CUPTI user range counts of its own, and taking it out.
 *
 * A pushed user range counts the profiler's own work between its push and
 * its pop along with the launch inside it. Measured on the H200
 * (tests/gpu/l2src18.sh, axpy, x and y L2-resident, docs/validation.md §16):
 * the same launch's range held ~1,750 more L2 sectors (lts__t_bytes / 32,
 * ~56 KB) under user ranges than under auto ranges, at 1M floats and at 256K
 * alike; none of it from the SMs (lts__t_sectors_srcunit_tex exact, 393,216
 * a launch, in every mode) nor from the L2 fabric. A fixed cost per range:
 * +0.35 % of axpy's L2 bytes, more on smaller kernels, and no spread of the
 * sampled launches shows it.
 *
 * The first range after each start of the profiler held more again (+1,650
 * to +3,600 sectors on the same launch). So a pass in user ranges pushes,
 * after every start, one warm-up range around no work, never read; after
 * the first start, then a few empty ranges, each with the synchronization a
 * launch's range gets (the CUPTI library's rangeprof.c), and subtracts their
 * median, counter by counter, from every launch's range. Only from counters
 * that add up work (".sum" rollups, not the elapsed ones: a user range does
 * not write those, rptoggle.h); a value below its offset becomes 0 and is
 * counted. The empty ranges saw ~1,150-1,350 of the ~1,750 sectors. The
 * rest, ~600-750 sectors on axpy at 1M floats and at 32 alike, is the
 * launch's own traffic outside its kernel, per launch: ranges around one and
 * two launches of a do-nothing kernel held 1,437 and 1,737 sectors against
 * 1,141 empty (docs/validation.md §17), so no range of the library's own
 * measures an application kernel's share. The reader bounds it by the
 * offset (launch_sampling.csv's offset_bound, read/cuptijson.h).
 * Pure arithmetic, no allocation; tests/unit/test_rangeoffset.c.
 */
#ifndef BR_TRACE_RANGEOFFSET_H
#define BR_TRACE_RANGEOFFSET_H

#include <stdbool.h>
#include <stddef.h>

/* Empty ranges a pass pushes by default (BENCHRUN_CUPTI_EMPTY_RANGES). */
#define RO_DEFAULT_EMPTY_RANGES 3

enum ro_range {
    RO_LAUNCH,    /* any other name: a launch's range */
    RO_EMPTY,     /* "benchrun-empty:<index>": its counts are the offset's samples */
    RO_WARMUP,    /* "benchrun-warmup:<index>": pushed first after a start, not read */
};

/* The range's name (not a dispatch-numbered one: rptoggle.h's join never
 * takes it); ro_range_kind reads it back (*index set for the two kinds). */
void ro_range_name(char *buf, size_t size, enum ro_range kind, unsigned index);
enum ro_range ro_range_kind(const char *name, unsigned *index);

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
