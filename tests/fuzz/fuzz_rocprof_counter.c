/* fuzz_rocprof_counter.c - libFuzzer target for the rocprofv3 counter_collection
 * reader (src/read/rocprof.c through rp_check_mem). The first input byte picks
 * one of the three distinct documented headers (6.2, 6.3, 6.4 = 7.x;
 * rocprofv3-formats.md)
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
    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
    "\"Grid_Size\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\","
    "\"VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\"\n",
    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
    "\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\","
    "\"Start_Timestamp\",\"End_Timestamp\"\n",
    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
    "\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\","
    "\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n",
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
    (void)rp_check_mem("fuzz_counter_collection.csv", buf, hn + size - 1, &info);
    free(buf);
    return 0;
}
