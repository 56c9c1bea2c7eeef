/* ktrace_write.h - rows of rocprofv3 7.x kernel_trace.csv and counter_collection.csv.
 *
 * Owns the exact on-disk schemas that the NVIDIA collectors (the CUPTI injection
 * library and the ncu converter) write, so that the readers, analysis, power and
 * vectors stages consume NVIDIA runs unchanged. Schemas and number formats are
 * rocprofv3 7.x's (docs/design.md §11, csv.hpp of
 * rocprofiler-sdk): strings in double quotes (inner quotes not escaped), numbers
 * unquoted, counter values >= 1 as %.6f and < 1 as %.8e.
 *
 * CUDA → rocprofv3 field mapping (documented in README "NVIDIA"):
 *   Agent_Id "Agent <CUDA ordinal>", Queue_Id and Stream_Id = CUDA stream id,
 *   VGPR_Count = registers per thread, LDS_Block_Size = static + dynamic shared
 *   memory per block in bytes (not rounded), Scratch_Size = local memory per
 *   thread, Grid_Size = blocks × threads per block (work-items, as rocprofv3),
 *   Accum_VGPR_Count and SGPR_Count = 0. Timestamps are CLOCK_BOOTTIME ns.
 * This file needs no CUDA: it is linked into libbenchrun_core.a and into
 * libbenchrun-cupti.so.
 */
#ifndef BR_KTRACE_WRITE_H
#define BR_KTRACE_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One kernel launch, already in the rocprofv3 vocabulary. */
struct ktw_kernel {
    const char *name;          /* demangled kernel name */
    uint64_t kernel_id;        /* interned name index, 1-based */
    uint64_t dispatch_id;      /* per-process launch number, 1-based */
    uint64_t correlation_id;   /* CUPTI correlation id */
    uint32_t agent;            /* CUDA device ordinal */
    uint32_t stream_id;        /* CUDA stream id (also written as Queue_Id) */
    uint64_t thread_id;        /* OS thread id of the launching thread, 0 if unknown */
    uint64_t start_ns, end_ns; /* CLOCK_BOOTTIME ns */
    uint32_t lds_bytes;        /* static + dynamic shared memory per block */
    uint32_t scratch_bytes;    /* local memory per thread */
    uint32_t vgpr;             /* registers per thread */
    uint32_t block[3];         /* threads per block, x y z */
    uint32_t grid[3];          /* blocks per grid, x y z (CUDA meaning) */
};

/* Number of columns of each 7.x schema. */
enum { KTW_TRACE_COLS = 22, KTW_COUNTER_COLS = 19 };

/* Header lines (with trailing newline). */
extern const char ktw_kernel_trace_header[];
extern const char ktw_counter_header[];

/* Formats a counter value the way rocprofv3 7.x does into buf (>= 32 bytes):
 * v >= 1 → "%.6f", otherwise "%.8e"; NaN → "nan". Returns buf. */
char *ktw_format_value(char *buf, size_t size, double v);

/* Writes one kernel_trace.csv row. Returns 0, or -1 if the stream failed. */
int ktw_write_trace_row(FILE *fp, const struct ktw_kernel *k);

/* Writes one counter_collection.csv row for (launch k, counter name, value);
 * pid is the Process_Id column. Returns 0, or -1 if the stream failed. */
int ktw_write_counter_row(FILE *fp, const struct ktw_kernel *k, long pid,
                          const char *counter, double value);

#endif
