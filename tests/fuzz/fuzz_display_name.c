/* fuzz_display_name.c - libFuzzer target for the kernel display-name parser
 * (src/metrics/names.c): any byte string (NUL-cut) through mx_display_name,
 * then the set of names through mx_unique_names. Checks the contract: the
 * short name is never longer than the full name (every rule keeps or drops
 * parts of it), and unique names are pairwise different. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = xstrndup((const char *)data, size);
    /* up to 4 names separated by newlines */
    char *names[4];
    size_t n = 0;
    for (char *p = s, *nl; p && n < 4; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        names[n] = mx_display_name(p);
        if (strlen(names[n]) > strlen(p))
            abort();
        n++;
    }
    mx_unique_names(names, n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (!strcmp(names[i], names[j]))
                abort();
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(s);
    return 0;
}
