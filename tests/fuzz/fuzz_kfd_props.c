/* fuzz_kfd_props.c - libFuzzer target for the KFD topology "properties"
 * parser (src/stage/gpu.c br_kfd_parse_props) and the gfx name it feeds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "stage/stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    long v = 0, simd = 0;
    if (br_kfd_parse_props((const char *)data, size, &v, &simd) == 0)
        free(br_gfx_name(v));
    return 0;
}
