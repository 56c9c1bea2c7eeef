/* fuzz_counterlist.c - libFuzzer target for the rocprofv3 counter-list parser
 * (src/counters/counterlist.c): any bytes, then every lookup over the result. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "counters/counterlist.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct counterlist cl;
    if (counterlist_parse(&cl, "fuzz.txt", (const char *)data, size) != 0)
        return 0;
    size_t n;
    const char **archs = counterlist_archs(&cl, &n);
    for (size_t i = 0; i < cl.nentries; i++)
        if (!counterlist_find(&cl, cl.entries[i].name, NULL))
            abort();                     /* every parsed entry must be found */
    for (size_t i = 0; i < n; i++)
        (void)counterlist_find(&cl, "SQ_WAVES", archs[i]);
    (void)counterlist_find(&cl, "dram__bytes_read.sum", NULL);   /* NVIDIA base-name fallback */
    free(archs);
    counterlist_release(&cl);
    return 0;
}
