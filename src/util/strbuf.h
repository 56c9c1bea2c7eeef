/* strbuf.h - growable NUL-terminated byte buffer.
 *
 * Invariant: buf is always NUL-terminated and valid after sb_init (never NULL),
 * len excludes the NUL. sb_release frees and re-initializes.
 */
#ifndef BR_STRBUF_H
#define BR_STRBUF_H

#include <stddef.h>

struct strbuf {
    char *buf;
    size_t len;
    size_t cap;
};

void sb_init(struct strbuf *sb);
void sb_release(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
void sb_add(struct strbuf *sb, const void *data, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Detaches the buffer; the caller frees it. sb is re-initialized. */
char *sb_detach(struct strbuf *sb);

#endif
