/* fuzz_kfd_props.c - libFuzzer target for the KFD topology "properties"
 * parser (src/gpu/gpu.c gpu_kfd_parse_props) and the gfx name it feeds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu/gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    long v = 0, simd = 0;
    if (gpu_kfd_parse_props((const char *)data, size, &v, &simd) == 0)
        free(gpu_gfx_name(v));
    return 0;
}
