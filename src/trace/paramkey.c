/* paramkey.c - a launch's parameters as a key, addresses left out (paramkey.h). */
#include "trace/paramkey.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* User-space virtual addresses of x86-64 and aarch64 Linux are below 2^57
 * (5-level paging); the first 64 KiB are never mapped (vm.mmap_min_addr). */
#define ADDR_MIN 0x10000ull
#define ADDR_END (1ull << 57)

void pk_func_init(struct pk_func *f, size_t bytes)
{
    f->nwords = (bytes + 7) / 8;
    f->last = f->nwords ? xcalloc(2 * f->nwords, sizeof(*f->last)) : NULL;
    f->addr = f->nwords ? xcalloc(f->nwords, sizeof(*f->addr)) : NULL;
}

void pk_func_release(struct pk_func *f)
{
    free(f->last);
    free(f->addr);
    memset(f, 0, sizeof(*f));
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

uint64_t pk_key(struct pk_func *f, const uint8_t *buf, size_t bytes, pk_is_address is_address,
                void *ud)
{
    uint64_t h = 0x243f6a8885a308d3ull;
    for (size_t w = 0; w < f->nwords; w++) {
        if (f->addr[w])
            continue;
        uint64_t v = 0;
        size_t at = w * 8;
        if (at + 8 <= bytes)
            memcpy(&v, buf + at, 8);   /* the host's order: a key needs only consistency */
        else if (at < bytes)
            memcpy(&v, buf + at, bytes - at);   /* the tail, zero-padded */
        if (v == 0)
            continue;
        uint64_t *seen = &f->last[2 * w];
        if (v != seen[0] && v != seen[1]) {
            if (v >= ADDR_MIN && v < ADDR_END && is_address && is_address(v, ud)) {
                f->addr[w] = 1;
                continue;
            }
            seen[1] = seen[0];   /* two values kept: shapes that alternate ask once each */
            seen[0] = v;
        }
        h = mix(h, v ^ (w + 1) * 0x94d049bb133111ebull);
    }
    return h ? h : 1;
}

bool pk_gather(uint8_t *block, size_t bytes, const void *const *params, const size_t *offset,
               const size_t *size, size_t n)
{
    memset(block, 0, bytes);
    for (size_t i = 0; i < n; i++) {
        if (offset[i] > bytes || size[i] > bytes - offset[i] || (size[i] && !params[i]))
            return false;
        if (size[i])
            memcpy(block + offset[i], params[i], size[i]);
    }
    return true;
}
