/* fuzz_drvpower.c - libFuzzer target for the NVML driver power sample reader
 * (src/read/drvpower.c): any bytes as a whole file. */
#include <stddef.h>
#include <stdint.h>

#include "read/drvpower.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double g_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct br_drvpower d;
    (void)br_drvpower_read_mem("fuzz_driver_power.csv", data, size, &d);
    for (size_t i = 0; i < d.n; i++)
        g_sink += (double)d.t_ns[i] + d.power_W[i] + d.gap_before[i];
    br_drvpower_free(&d);
    return 0;
}
