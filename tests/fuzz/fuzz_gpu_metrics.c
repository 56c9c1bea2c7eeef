/* fuzz_gpu_metrics.c - libFuzzer target for the amdgpu gpu_metrics decoder
 * (src/sample/gpu_metrics.c): any bytes as the sysfs table, fixed layouts and
 * the v1.9 attribute walker; the decoded numbers are touched so a read past the
 * input shows up under ASan. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gpu_metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size heap copy: ASan catches any read beyond `size`. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    struct br_gpu_metrics m;
    volatile double sink = 0;
    if (!br_gpu_metrics_decode(copy, size, &m))
        sink += m.socket_power_W + m.hotspot_temp_C + m.mem_temp_C + m.gfxclk_mean_MHz +
                m.gfxclk_max_MHz + m.uclk_MHz + (double)m.energy_acc +
                (double)m.system_clock_ns + (double)m.firmware_ts_ns;
    (void)sink;
    free(copy);
    return 0;
}
