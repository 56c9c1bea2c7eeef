/* sigsafe.c - async-signal-safe number formatting and writes (see sigsafe.h). */
#include "util/sigsafe.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

size_t ss_utoa(char *buf, size_t cap, uint64_t v, unsigned base)
{
    char tmp[24];   /* 2^64 - 1 has 20 decimal digits, 16 hex digits */
    size_t n = 0;
    if (cap > 0)
        buf[0] = '\0';
    if (base != 10 && base != 16)
        return 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (n + 1 > cap)
        return 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

size_t ss_append(char *buf, size_t cap, size_t *len, const char *s)
{
    if (cap == 0)
        return *len;
    while (s && *s && *len + 1 < cap)
        buf[(*len)++] = *s++;
    buf[*len] = '\0';
    return *len;
}

size_t ss_append_u(char *buf, size_t cap, size_t *len, uint64_t v, unsigned base)
{
    char digits[24];
    if (ss_utoa(digits, sizeof(digits), v, base) == 0)
        return *len;
    return ss_append(buf, cap, len, digits);
}

void ss_write(int fd, const char *s)
{
    size_t left = s ? strlen(s) : 0;
    while (left > 0) {
        ssize_t w = write(fd, s, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        left -= (size_t)w;
    }
}
