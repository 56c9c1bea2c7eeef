/* copytrace.h - memory copies and sets as rocprofv3 memory_copy_trace.csv rows.
 *
 * Owns the on-disk schema the NVIDIA collector writes for copies and sets
 * and the copy record the reader fills (read/rpcopy.h: every rocprofv3
 * layout, rocpd, this one). The
 * columns are rocprofv3 7.x's (rocprofiler-sdk source/docs/data/
 * memory_copy_trace.csv at 029ff02a: Kind, Direction, Stream_Id,
 * Source_Agent_Id, Destination_Agent_Id, Correlation_Id, Start_Timestamp,
 * End_Timestamp) followed by Bytes, which rocprofv3 does not write (its copies
 * then have unknown bytes). Older rocprofv3 layouts: without Stream_Id
 * (commit 81e93a6) and with Direction values lacking the MEMORY_COPY_ prefix
 * (commit 785cc39).
 *
 * NVIDIA mapping: Kind "MEMORY_COPY" (cudaMemcpy*, peer copies) or
 * "MEMORY_SET" (cudaMemset*: rocprofv3 has no such kind, HIP sets are
 * kernels there); Direction MEMORY_COPY_HOST_TO_DEVICE, _DEVICE_TO_HOST,
 * _DEVICE_TO_DEVICE, _HOST_TO_HOST, MEMORY_SET_DEVICE (from CUPTI's copyKind;
 * array copies count as device memory); agents "Agent <CUDA ordinal>" for a
 * GPU and "Host" for host memory; Stream_Id the CUDA stream id; timestamps
 * CLOCK_BOOTTIME ns. No CUDA needed: linked into libbenchrun_core.a and
 * libbenchrun-cupti.so.
 */
#ifndef BR_COPYTRACE_H
#define BR_COPYTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CT_P2P is a device-to-device copy between two GPUs: files say
 * MEMORY_COPY_DEVICE_TO_DEVICE (rocprofv3 and CUPTI's peer copies alike) and
 * the reader tells it by its agents. CT_SET: a memory set (device). */
enum ct_dir {
    CT_H2D, CT_D2H, CT_D2D, CT_P2P, CT_H2H, CT_SET,
    CT_NDIR
};

#define CT_HOST (-1)            /* agent of host memory */
#define CT_BYTES_UNKNOWN UINT64_MAX   /* written as an empty Bytes cell */

struct ct_copy {
    enum ct_dir dir;
    int32_t src_agent, dst_agent;   /* GPU ordinal / rocprofv3 agent id, or CT_HOST */
    uint64_t stream, correlation;
    uint64_t start_ns, end_ns;
    uint64_t bytes;                 /* CT_BYTES_UNKNOWN when the file has none */
};

extern const char ct_header[];   /* with its trailing newline */

/* "MEMORY_COPY_HOST_TO_DEVICE", ... and a short label "H2D", "D2H", "D2D",
 * "P2P", "H2H", "set" (report columns). */
const char *ct_dir_name(enum ct_dir d);
const char *ct_dir_label(enum ct_dir d);

/* One row. 0, or -1 when the stream failed. */
int ct_write_row(FILE *fp, const struct ct_copy *c);

#endif
