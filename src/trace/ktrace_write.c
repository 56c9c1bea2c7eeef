/* ktrace_write.c - rows of rocprofv3 7.x kernel_trace.csv and counter_collection.csv.
 *
 * See ktrace_write.h for the schemas and the CUDA field mapping. Column order is
 * taken from rocprofiler-sdk 7.0 (rocprofv3-formats.md, "kernel_trace.csv" 7.x
 * and "counter_collection.csv" 6.4/7.x rows).
 */
#include "trace/ktrace_write.h"

#include <math.h>

const char ktw_kernel_trace_header[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
    "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
    "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

const char ktw_counter_header[] =
    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
    "\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\","
    "\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n";

char *ktw_format_value(char *buf, size_t size, double v)
{
    if (isnan(v))
        snprintf(buf, size, "nan");
    else if (v >= 1.0)
        snprintf(buf, size, "%.6f", v);
    else
        snprintf(buf, size, "%.8e", v);
    return buf;
}

static const char *safe_name(const struct ktw_kernel *k)
{
    return k->name ? k->name : "";
}

int ktw_write_trace_row(FILE *fp, const struct ktw_kernel *k)
{
    /* Grid_Size_* are work-items, as rocprofv3 writes them. */
    unsigned long long gx = (unsigned long long)k->grid[0] * k->block[0];
    unsigned long long gy = (unsigned long long)k->grid[1] * k->block[1];
    unsigned long long gz = (unsigned long long)k->grid[2] * k->block[2];
    int n = fprintf(fp,
                    "\"KERNEL_DISPATCH\",\"Agent %u\",%u,%u,%llu,%llu,%llu,\"%s\",%llu,%llu,%llu,"
                    "%u,%u,%u,0,0,%u,%u,%u,%llu,%llu,%llu\n",
                    k->agent, k->stream_id, k->stream_id, (unsigned long long)k->thread_id,
                    (unsigned long long)k->dispatch_id, (unsigned long long)k->kernel_id,
                    safe_name(k), (unsigned long long)k->correlation_id,
                    (unsigned long long)k->start_ns, (unsigned long long)k->end_ns,
                    k->lds_bytes, k->scratch_bytes, k->vgpr, k->block[0], k->block[1],
                    k->block[2], gx, gy, gz);
    return n < 0 ? -1 : 0;
}

int ktw_write_counter_row(FILE *fp, const struct ktw_kernel *k, long pid,
                          const char *counter, double value)
{
    unsigned long long wg = (unsigned long long)k->block[0] * k->block[1] * k->block[2];
    unsigned long long grid = wg * k->grid[0] * k->grid[1] * k->grid[2];
    char val[64];
    int n = fprintf(fp,
                    "%llu,%llu,\"Agent %u\",%u,%ld,%llu,%llu,%llu,\"%s\",%llu,%u,%u,%u,0,0,"
                    "\"%s\",%s,%llu,%llu\n",
                    (unsigned long long)k->correlation_id, (unsigned long long)k->dispatch_id,
                    k->agent, k->stream_id, pid, (unsigned long long)k->thread_id, grid,
                    (unsigned long long)k->kernel_id, safe_name(k), wg, k->lds_bytes,
                    k->scratch_bytes, k->vgpr, counter, ktw_format_value(val, sizeof(val), value),
                    (unsigned long long)k->start_ns, (unsigned long long)k->end_ns);
    return n < 0 ? -1 : 0;
}
