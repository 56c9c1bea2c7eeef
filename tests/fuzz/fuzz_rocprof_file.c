/* fuzz_rocprof_file.c - libFuzzer target for rocprofv3 CSV files as a whole:
 * any bytes, header detection included (rp_check_mem decides counter,
 * trace or agent_info from the header). */
#include <stddef.h>
#include <stdint.h>

#include "read/rocprof.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *ctx, int is_warning, const char *msg)
{
    (void)ctx, (void)is_warning, (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    br_error_set_sink(quiet, NULL);
    struct rp_file_info info;
    (void)rp_check_mem("fuzz.csv", data, size, &info);
    return 0;
}
