/* intern.c - string interning with an open-addressing hash table
 * (contract in intern.h). Load factor kept at or below 1/2. */
#include "model/intern.h"

#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void intern_init(struct intern *t)
{
    memset(t, 0, sizeof(*t));
}

void intern_release(struct intern *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->str[i]);
    free(t->str);
    free(t->len);
    free(t->slot);
    free(t->hash);
    memset(t, 0, sizeof(*t));
}

uint64_t intern_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    while (n--)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
    h ^= h >> 32;
    return h * 0x9e3779b97f4a7c15ull;
}

static uint32_t probe(const struct intern *t, const char *s, size_t n, uint64_t h)
{
    uint32_t mask = t->nslot - 1;
    for (uint32_t i = (uint32_t)(h >> 32) & mask;; i = (i + 1) & mask) {
        uint32_t v = t->slot[i];
        if (v == 0)
            return i;
        uint32_t id = v - 1;
        if (t->hash[id] == h && t->len[id] == n && memcmp(t->str[id], s, n) == 0)
            return i;
    }
}

static void rehash(struct intern *t)
{
    free(t->slot);
    t->nslot = t->nslot ? t->nslot * 2 : 64;
    t->slot = xcalloc(t->nslot, sizeof(*t->slot));
    uint32_t mask = t->nslot - 1;
    for (uint32_t id = 0; id < t->n; id++) {
        uint32_t i = (uint32_t)(t->hash[id] >> 32) & mask;
        while (t->slot[i])
            i = (i + 1) & mask;
        t->slot[i] = id + 1;
    }
}

uint32_t intern_find(const struct intern *t, const char *s, size_t n)
{
    if (!t->nslot)
        return UINT32_MAX;
    uint32_t v = t->slot[probe(t, s, n, intern_hash(s, n))];
    return v ? v - 1 : UINT32_MAX;
}

uint32_t intern_add(struct intern *t, const char *s, size_t n)
{
    if ((t->n + 1) * 2 > t->nslot)
        rehash(t);
    uint64_t h = intern_hash(s, n);
    uint32_t i = probe(t, s, n, h);
    if (t->slot[i])
        return t->slot[i] - 1;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->str = xrealloc(t->str, t->cap * sizeof(*t->str));
        t->len = xrealloc(t->len, t->cap * sizeof(*t->len));
        t->hash = xrealloc(t->hash, t->cap * sizeof(*t->hash));
    }
    uint32_t id = t->n++;
    t->str[id] = xstrndup(s, n);
    t->len[id] = (uint32_t)n;
    t->hash[id] = h;
    t->slot[i] = id + 1;
    return id;
}
