/* rplayout.h - rocprofv3 CSV header → column map and layout (release) label.
 *
 * The known columns of counter_collection, kernel_trace and agent_info files
 * (ROCm 6.2 – 7.x, docs/design.md §11) are found by name in
 * the header, ignoring case; positions never matter, unknown columns are
 * ignored; memory_copy_trace files are told by their Direction column
 * (read/rpcopy.h). rocpd2csv (rocpd convert) writes title-case names (Lds_Block_Size,
 * Vgpr_Count, Accum_Vgpr_Count, Sgpr_Count) and a leading Guid (kernel_trace)
 * or Pid (counter_collection) column, e.g. amd/HPCTrainingExamples
 * Rocprofv3/rocpd/README.md and rocprofiler-sdk source/lib/python/rocpd/
 * source/csv.cpp; its layouts are labelled "rocpd2csv ...". Used by
 * the pmc and power-run readers (rocprof.h) and by writers of the same schema
 * (the NVIDIA CUPTI tracer writes the 7.x kernel_trace layout).
 */
#ifndef BR_READ_RPLAYOUT_H
#define BR_READ_RPLAYOUT_H

#include "read/rocprof.h"

enum rp_col {
    RC_CORR, RC_DISPATCH, RC_AGENT, RC_QUEUE, RC_PID, RC_TID, RC_GRID, RC_KID, RC_NAME,
    RC_WG, RC_LDS, RC_SCRATCH, RC_VGPR, RC_AGPR, RC_SGPR, RC_CNAME, RC_CVALUE, RC_START,
    RC_END, RC_KIND, RC_STREAM, RC_PRIV_SEG, RC_GROUP_SEG, RC_WGX, RC_WGY, RC_WGZ,
    RC_GRIDX, RC_GRIDY, RC_GRIDZ, RC_AGENT_TYPE, RC_GUID, RC_ROCPD_PID,
    /* memory_copy_trace (read/rpcopy.h) */
    RC_DIRECTION, RC_SRC_AGENT, RC_DST_AGENT, RC_BYTES, RC_NCOL
};

_Static_assert(RC_NCOL <= 64, "rp_agg.cc_missing holds one bit per column");

/* Header names, e.g. rp_col_names[RC_CVALUE] = "Counter_Value". */
extern const char *const rp_col_names[RC_NCOL];

struct rp_header {
    enum rp_kind kind;
    int ncols;              /* fields in the header */
    int idx[RC_NCOL];       /* column of each known name, -1 when absent */
    const char *layout;     /* static text: "6.2 (15 cols)", "7.x (22 cols)", ... */
    char **names;           /* every header name (agent_info lookups); NULL-terminated */
    /* counter_collection: kernel-attribute columns the occupancy metrics need
     * that the header lacks (max_waves_CU, Occupancy_of_max_pct stay empty
     * or ignore that limit); the readers warn about them. */
    int nmissing;
    enum rp_col missing[3];
};

/* Parses a header line. Returns 0, or -1 with *err set to an allocated
 * message (without file:line): empty header, duplicate column (also two
 * names equal but for case), unknown file kind, missing required column.
 * rp_header_release frees names. */
int rp_header_parse(struct rp_header *h, const char *line, size_t len, char **err);
void rp_header_release(struct rp_header *h);

#endif
