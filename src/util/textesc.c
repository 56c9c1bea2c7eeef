/* textesc.c - escaping for line-based files and UTF-8 repair for JSON
 * (contract in textesc.h; UTF-8 well-formedness: Unicode 15 Table 3-7). */
#include "util/textesc.h"

#include <string.h>

void esc_line(struct strbuf *sb, const char *s)
{
    esc_line_n(sb, s, s ? strlen(s) : 0);
}

void esc_line_n(struct strbuf *sb, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (const unsigned char *end = p + n; p < end; p++) {
        switch (*p) {
        case '\n': sb_adds(sb, "\\n"); break;
        case '\r': sb_adds(sb, "\\r"); break;
        case '\t': sb_adds(sb, "\\t"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                sb_addf(sb, "\\x%02X", *p);
            else
                sb_addc(sb, (char)*p);
        }
    }
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when p[0] does not
 * start one. */
static size_t seq_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xbf;   /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;               /* no overlong forms */
        if (c == 0xed)
            hi = 0x9f;               /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        if (c == 0xf4)
            hi = 0x8f;               /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}

bool esc_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t l = seq_len(p + i, n - i);
        if (!l)
            return false;
        i += l;
    }
    return true;
}

void esc_utf8(struct strbuf *sb, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t l = seq_len(p + i, n - i);
        if (l) {
            sb_add(sb, p + i, l);
            i += l;
        } else {
            sb_addf(sb, "\\x%02X", p[i]);
            i++;
        }
    }
}

json_t *esc_json_string(const char *s)
{
    if (!s)
        return json_null();
    size_t n = strlen(s);
    if (esc_utf8_valid(s, n))
        return json_stringn(s, n);
    struct strbuf sb;
    sb_init(&sb);
    esc_utf8(&sb, s, n);
    json_t *j = json_stringn(sb.buf, sb.len);
    sb_release(&sb);
    return j;
}

int esc_json_set(json_t *obj, const char *key, json_t *value)
{
    size_t n = strlen(key);
    if (esc_utf8_valid(key, n))
        return json_object_set_new(obj, key, value);
    struct strbuf sb;
    sb_init(&sb);
    esc_utf8(&sb, key, n);
    int rc = json_object_set_new(obj, sb.buf, value);
    sb_release(&sb);
    return rc;
}
