/* fuzz_agent_info.c - libFuzzer target for the rocprofv3 agent_info.csv reader
 * (src/read/rocprof.c through rp_check_mem). Input = rows after a fixed
 * header with the columns benchrun uses (rocprofv3-formats.md). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/rocprof.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char header[] =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Simd_Count\",\"Max_Waves_Per_Simd\","
    "\"Lds_Size_In_Kb\",\"Wave_Front_Size\",\"Num_Xcc\",\"Cu_Count\",\"Simd_Per_Cu\","
    "\"Max_Engine_Clk_Fcompute\",\"Max_Waves_Per_Cu\",\"Name\",\"Product_Name\"\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    size_t hn = sizeof(header) - 1;
    char *buf = malloc(hn + size + 1);
    if (!buf)
        return 0;
    memcpy(buf, header, hn);
    memcpy(buf + hn, data, size);
    struct rp_file_info info;
    (void)rp_check_mem("fuzz_agent_info.csv", buf, hn + size, &info);
    free(buf);
    return 0;
}
