/* fuzz_rocprof_file.c - libFuzzer target for rocprofv3 CSV files as a whole:
 * any bytes, header detection included (rp_check_mem decides counter,
 * trace or agent_info from the header). */
#include <stddef.h>
#include <stdint.h>

#include "read/rocprof.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct rp_file_info info;
    (void)rp_check_mem("fuzz.csv", data, size, &info);
    return 0;
}
