/* fuzz_cmp_vectors.c - libFuzzer target for the vectors JSON reader of
 * `benchrun compare` (src/compare/cmp_vectors.c): any bytes as a
 * sampling_vectors.json or app_vectors.json, appended to a set that already
 * holds one workload (so the length check runs too), then the distances of
 * what was read. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "compare/compare.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char first[] = "{\"first\": [0.25, 0.5, 0.25]}";
    fuzz_silence();
    struct cmp_set s;
    cmp_set_init(&s, "inst_power");
    (void)cmp_parse_vectors(first, sizeof(first) - 1, "first.json", NULL, &s);
    if (cmp_parse_vectors((const char *)data, size, "fuzz.json", size % 2 ? "L" : NULL, &s) == 0 &&
        cmp_check_labels(&s) == 0 && s.n < 64) {
        free(cmp_pdist(&s, CMP_COSINE));
        (void)cmp_find(&s, "first");
    }
    cmp_set_release(&s);
    return 0;
}
