/* fuzz_rocprof_counter.c - libFuzzer target for the rocprofv3 counter_collection
 * reader (src/read/rocprof.c through rp_check_mem). The first input byte picks
 * one of the three distinct documented headers (6.2, 6.3, 6.4 = 7.x;
 * rocprofv3-formats.md)
 * and the rest are the rows, so the fuzzer spends its time in row parsing
 * rather than in rediscovering a header. */

#include "fuzz_headed.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_with_header(headers, sizeof(headers) / sizeof(headers[0]), "fuzz_counter_collection.csv", data, size);
}
