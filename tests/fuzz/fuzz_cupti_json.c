/* fuzz_cupti_json.c - libFuzzer target for the NVIDIA collector's companion
 * JSON reader (src/read/cuptijson.c): any text, summed and described. */
#include "read/cuptijson.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cj_pass cp;
    memset(&cp, 0, sizeof(cp));
    (void)cj_add_text(&cp, "fuzz_cupti.json", (const char *)data, size);
    (void)cj_add_text(&cp, "fuzz_cupti.json", (const char *)data, size);   /* merged twice */
    free(cj_describe(&cp, "p"));
    cj_release(&cp);
    return 0;
}
