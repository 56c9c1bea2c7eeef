/* fuzz_headed.h - shared by the rocprofv3 reader fuzz targets: the first
 * input byte picks one of the documented headers, the rest are the rows, so
 * the fuzzer spends its time in row parsing rather than in rediscovering a
 * header. Header-only: each target includes it once. */
#ifndef BR_FUZZ_HEADED_H
#define BR_FUZZ_HEADED_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_quiet.h"
#include "read/rocprof.h"

/* headers[data[0] % nheaders] followed by data[1..] (malloc'd, *len set);
 * NULL for an empty input or no memory. Messages silenced. */
static inline char *fuzz_headed_input(const char *const *headers, size_t nheaders,
                                      const uint8_t *data, size_t size, size_t *len)
{
    if (size < 1)
        return NULL;
    fuzz_silence();
    const char *h = headers[data[0] % nheaders];
    size_t hn = strlen(h);
    char *buf = malloc(hn + size);
    if (!buf)
        return NULL;
    memcpy(buf, h, hn);
    memcpy(buf + hn, data + 1, size - 1);
    *len = hn + size - 1;
    return buf;
}

/* Runs rp_check_mem on headers[data[0] % nheaders] followed by data[1..]. */
static inline int fuzz_with_header(const char *const *headers, size_t nheaders, const char *name,
                                   const uint8_t *data, size_t size)
{
    size_t len;
    char *buf = fuzz_headed_input(headers, nheaders, data, size, &len);
    if (!buf)
        return 0;
    struct rp_file_info info;
    (void)rp_check_mem(name, buf, len, &info);
    free(buf);
    return 0;
}

#endif
