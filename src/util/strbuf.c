/* strbuf.c - growable string buffer. */
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char empty_buf[1];

void sb_init(struct strbuf *sb)
{
    sb->buf = empty_buf;
    sb->len = 0;
    sb->cap = 0;
}

void sb_release(struct strbuf *sb)
{
    if (sb->cap)
        free(sb->buf);
    sb_init(sb);
}

void sb_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->cap)
        sb->buf[0] = '\0';
}

static void reserve(struct strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    size_t ncap = sb->cap ? sb->cap : 64;
    while (ncap < need)
        ncap *= 2;
    char *nb = sb->cap ? xrealloc(sb->buf, ncap) : xmalloc(ncap);
    if (!sb->cap)
        nb[0] = '\0';
    sb->buf = nb;
    sb->cap = ncap;
}

void sb_add(struct strbuf *sb, const void *data, size_t n)
{
    reserve(sb, n);
    memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
    sb_add(sb, &c, 1);
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        reserve(sb, (size_t)n);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap2);
        sb->len += (size_t)n;
    }
    va_end(ap2);
}

char *sb_detach(struct strbuf *sb)
{
    char *b = sb->cap ? sb->buf : xstrdup("");
    sb_init(sb);
    return b;
}
