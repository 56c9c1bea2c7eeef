/* fuzz_rocprof_trace.c - libFuzzer target for the rocprofv3 kernel_trace
 * reader (src/read/rocprof.c through rp_check_mem). The first input byte picks
 * one of the three documented headers (6.2, 6.3/6.4, 7.x; rocprofv3-formats.md)
 * and the rest are the rows, so the fuzzer spends its time in row parsing
 * rather than in rediscovering a header. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/rocprof.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const headers[] = {
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n",
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n",
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n",
};

static void quiet(void *ctx, int is_warning, const char *msg)
{
    (void)ctx, (void)is_warning, (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    br_error_set_sink(quiet, NULL);
    const char *h = headers[data[0] % 3];
    size_t hn = strlen(h);
    char *buf = malloc(hn + size - 1 + 1);
    if (!buf)
        return 0;
    memcpy(buf, h, hn);
    memcpy(buf + hn, data + 1, size - 1);
    struct rp_file_info info;
    (void)rp_check_mem("fuzz_kernel_trace.csv", buf, hn + size - 1, &info);
    free(buf);
    return 0;
}
