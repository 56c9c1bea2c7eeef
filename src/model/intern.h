/* intern.h - string interning: each distinct string gets a small dense id.
 *
 * Used for kernel names (a run has hundreds of distinct names but millions of
 * rows) and counter names. Strings are copied once; ids are 0, 1, 2, ... in
 * first-seen order and never change. Not thread-safe: each reader thread
 * interns into its own table, and tables are merged afterwards.
 */
#ifndef BR_MODEL_INTERN_H
#define BR_MODEL_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern {
    char **str;        /* id -> NUL-terminated copy */
    uint32_t *len;     /* id -> length */
    uint32_t n, cap;   /* ids in use, capacity of str/len */
    uint32_t *slot;    /* open-addressing table of id+1 (0 = empty) */
    uint64_t *hash;    /* id -> hash */
    uint32_t nslot;    /* power of two */
};

void intern_init(struct intern *t);
void intern_release(struct intern *t);
/* Id of s[0..n), adding it when new. */
uint32_t intern_add(struct intern *t, const char *s, size_t n);
/* Id of s[0..n), or UINT32_MAX when absent. */
uint32_t intern_find(const struct intern *t, const char *s, size_t n);
/* 64-bit hash used by the table (FNV-1a variant, 8 bytes at a time). */
uint64_t intern_hash(const char *s, size_t n);

#endif
