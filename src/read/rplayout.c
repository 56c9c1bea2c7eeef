/* rplayout.c - rocprofv3 CSV header parsing and layout detection
 * (contract in rplayout.h; column sets from rocprofiler-sdk csv.hpp / the
 * formats note, releases 6.2 - 7.x). */
#include "read/rplayout.h"

#include "read/csv.h"
#include "model/intern.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

const char *const rp_col_names[RC_NCOL] = {
    "Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id",
    "Grid_Size", "Kernel_Id", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size",
    "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Counter_Name",
    "Counter_Value", "Start_Timestamp", "End_Timestamp", "Kind", "Stream_Id",
    "Private_Segment_Size", "Group_Segment_Size", "Workgroup_Size_X", "Workgroup_Size_Y",
    "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z", "Agent_Type", "Guid", "Pid",
    "Direction", "Source_Agent_Id", "Destination_Agent_Id", "Bytes",
};

void rp_header_release(struct rp_header *h)
{
    if (h->names)
        for (char **p = h->names; *p; p++)
            free(*p);
    free(h->names);
    h->names = NULL;
}

/* rocpd2csv files carry a Guid (kernel_trace) or Pid (counter_collection)
 * column that rocprofv3's own CSV writer never writes. */
static bool from_rocpd2csv(const struct rp_header *h)
{
    return h->idx[RC_GUID] >= 0 || h->idx[RC_ROCPD_PID] >= 0;
}

static const char *counter_layout(const struct rp_header *h)
{
    if (from_rocpd2csv(h))
        return h->ncols == 20 ? "rocpd2csv 7.x (20 cols)" : "rocpd2csv 7.x-like";
    if (h->idx[RC_START] < 0)
        return h->ncols == 15 ? "6.2 (15 cols)" : "6.2-like (no timestamps)";
    if (h->idx[RC_AGPR] < 0)
        return h->ncols == 18 ? "6.3 (18 cols)" : "6.3-like (no Accum_VGPR_Count)";
    return h->ncols == 19 ? "6.4/7.x (19 cols)" : "6.4/7.x-like";
}

static const char *trace_layout(const struct rp_header *h)
{
    if (from_rocpd2csv(h))
        return h->ncols == 23 ? "rocpd2csv 7.x (23 cols)" : "rocpd2csv 7.x-like";
    if (h->idx[RC_DISPATCH] < 0)
        return h->ncols == 16 ? "6.2 (16 cols)" : "6.2-like (no Dispatch_Id)";
    if (h->idx[RC_STREAM] >= 0 || h->idx[RC_VGPR] >= 0)
        return h->ncols == 22 ? "7.x (22 cols)" : "7.x-like";
    return h->ncols == 18 ? "6.3/6.4 (18 cols)" : "6.3/6.4-like";
}

/* memory_copy_trace layouts (rocprofiler-sdk source/docs/data/
 * memory_copy_trace.csv at 785cc39 / 81e93a6 and generateCSV.cpp of 7.x;
 * rocpd's csv.cpp; benchrun's CUPTI writer, trace/copytrace.h). */
static const char *copy_layout(const struct rp_header *h)
{
    if (from_rocpd2csv(h))
        return h->ncols == 9 ? "rocpd2csv 7.x (9 cols)" : "rocpd2csv 7.x-like";
    if (h->idx[RC_BYTES] >= 0)
        return h->ncols == 9 ? "7.x + Bytes (benchrun CUPTI, 9 cols)" : "7.x-like + Bytes";
    if (h->idx[RC_STREAM] >= 0)
        return h->ncols == 8 ? "7.x (8 cols)" : "7.x-like";
    return h->ncols == 7 ? "6.x (7 cols)" : "6.x-like (no Stream_Id)";
}

static int need(const struct rp_header *h, enum rp_col c, const char *what, char **err)
{
    if (h->idx[c] >= 0)
        return 0;
    *err = xasprintf("%s header has no column %s", what, rp_col_names[c]);
    return -1;
}

/* Attribute columns of a counter file that the occupancy limit needs. */
static void note_missing(struct rp_header *h)
{
    static const enum rp_col want[] = { RC_VGPR, RC_LDS, RC_WG };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (h->idx[want[i]] < 0)
            h->missing[h->nmissing++] = want[i];
}

static int classify(struct rp_header *h, char **err)
{
    if (h->idx[RC_DIRECTION] >= 0) {   /* before the trace: copy files have Kind too */
        h->kind = RP_KIND_COPY;
        h->layout = copy_layout(h);
        return need(h, RC_START, "memory_copy_trace", err) || need(h, RC_END, "memory_copy_trace", err) ||
               need(h, RC_SRC_AGENT, "memory_copy_trace", err) ||
               need(h, RC_DST_AGENT, "memory_copy_trace", err) ? -1 : 0;
    }
    if (h->idx[RC_CNAME] >= 0 || h->idx[RC_CVALUE] >= 0) {
        h->kind = RP_KIND_COUNTER;
        h->layout = counter_layout(h);
        note_missing(h);
        if (need(h, RC_NAME, "counter_collection", err) || need(h, RC_CNAME, "counter_collection", err) ||
            need(h, RC_CVALUE, "counter_collection", err) || need(h, RC_DISPATCH, "counter_collection", err))
            return -1;
        if ((h->idx[RC_START] < 0) != (h->idx[RC_END] < 0))
            return need(h, h->idx[RC_START] < 0 ? RC_START : RC_END, "counter_collection", err);
        if (h->idx[RC_START] < 0)
            return need(h, RC_CORR, "counter_collection (no timestamps)", err);
        return 0;
    }
    if (h->idx[RC_NAME] >= 0 || h->idx[RC_KIND] >= 0) {
        h->kind = RP_KIND_TRACE;
        h->layout = trace_layout(h);
        if (need(h, RC_NAME, "kernel_trace", err) || need(h, RC_START, "kernel_trace", err) ||
            need(h, RC_END, "kernel_trace", err))
            return -1;
        if (h->idx[RC_DISPATCH] < 0)
            return need(h, RC_CORR, "kernel_trace", err);
        return 0;
    }
    if (h->idx[RC_AGENT_TYPE] >= 0) {
        h->kind = RP_KIND_AGENT_INFO;
        h->layout = "agent_info";
        return 0;
    }
    *err = xasprintf("header is not a rocprofv3 counter_collection, kernel_trace, memory_copy_trace or agent_info header");
    return -1;
}

int rp_header_parse(struct rp_header *h, const char *line, size_t len, char **err)
{
    memset(h, 0, sizeof(*h));
    for (int c = 0; c < RC_NCOL; c++)
        h->idx[c] = -1;
    *err = NULL;
    int n = csv_split(line, len, NULL, 0);
    if (len == 0 || n <= 0) {
        *err = xasprintf(len == 0 ? "empty header line" : "header: unterminated quoted name");
        return -1;
    }
    struct csv_span *f = xcalloc((size_t)n, sizeof(*f));
    csv_split(line, len, f, n);
    h->ncols = n;
    h->names = xcalloc((size_t)n + 1, sizeof(*h->names));
    struct intern seen;
    intern_init(&seen);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        h->names[i] = xstrndup(f[i].p, f[i].n);
        if (intern_find(&seen, f[i].p, f[i].n) != UINT32_MAX) {
            *err = xasprintf("duplicate column '%s' in the header", h->names[i]);
            rc = -1;
        }
        intern_add(&seen, f[i].p, f[i].n);
        for (int c = 0; c < RC_NCOL && rc == 0; c++) {
            if (!csv_ieq(&f[i], rp_col_names[c]))
                continue;
            if (h->idx[c] >= 0) {
                *err = xasprintf("columns '%s' and '%s' are the same column %s (names are "
                                 "matched ignoring case)", h->names[h->idx[c]], h->names[i],
                                 rp_col_names[c]);
                rc = -1;
            }
            h->idx[c] = i;
        }
    }
    intern_release(&seen);
    free(f);
    if (rc == 0)
        rc = classify(h, err);
    return rc;
}
