/* jsonw.c - streaming JSON writer with Python repr() numbers (see jsonw.h).
 *
 * Number layout follows CPython's float_repr (Objects/floatobject.c ->
 * PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0)): shortest digits that
 * round-trip; exponent form when decpt <= -4 or decpt > 16, with a sign and
 * at least two exponent digits; otherwise positional with ".0" for integers.
 */
#include "util/jsonw.h"

#include "util/textesc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest "%.*e" text of v that reads back as v: digits into dig (no dot),
 * returns their count; *exp10 is the exponent of the first digit. */
static int shortest_digits(double v, char *dig, int *exp10)
{
    char tmp[40];
    for (int prec = 0; prec < 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec, v);
        if (strtod(tmp, NULL) == v || prec == 16)
            break;
    }
    int n = 0;
    const char *p = tmp;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            dig[n++] = *p;
    *exp10 = atoi(p + 1);
    while (n > 1 && dig[n - 1] == '0')
        n--;
    dig[n] = '\0';
    return n;
}

int jw_repr_double(char *buf, size_t n, double v)
{
    if (isnan(v))
        return snprintf(buf, n, "nan");
    if (isinf(v))
        return snprintf(buf, n, v > 0 ? "inf" : "-inf");
    char dig[24];
    int e10, nd = shortest_digits(fabs(v), dig, &e10);
    int decpt = e10 + 1;
    const char *sign = signbit(v) ? "-" : "";
    if (v == 0)
        return snprintf(buf, n, "%s0.0", sign);
    if (decpt <= -4 || decpt > 16) {
        return snprintf(buf, n, "%s%c%s%.*se%c%02d", sign, dig[0], nd > 1 ? "." : "",
                        nd - 1, dig + 1, e10 < 0 ? '-' : '+', abs(e10));
    }
    char out[48];
    size_t k = 0;
    if (*sign)
        out[k++] = '-';
    if (decpt <= 0) {                       /* 0.000ddd */
        out[k++] = '0', out[k++] = '.';
        for (int z = 0; z < -decpt; z++)
            out[k++] = '0';
        for (int d = 0; d < nd; d++)
            out[k++] = dig[d];
    } else if (decpt >= nd) {               /* ddd000.0 */
        for (int d = 0; d < decpt; d++)
            out[k++] = d < nd ? dig[d] : '0';
        out[k++] = '.', out[k++] = '0';
    } else {                                /* dd.ddd */
        for (int d = 0; d < nd; d++) {
            if (d == decpt)
                out[k++] = '.';
            out[k++] = dig[d];
        }
    }
    out[k] = '\0';
    return snprintf(buf, n, "%s", out);
}

/* ---- structure ----------------------------------------------------------- */

void jw_init(struct jsonw *w, struct strbuf *out)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->first[0] = true;
}

static void newline_indent(struct jsonw *w)
{
    sb_addc(w->out, '\n');
    for (int i = 0; i < w->depth; i++)
        sb_adds(w->out, "  ");
}

/* Separator and layout before a value or a key at the current level. */
static void before_item(struct jsonw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0)
        return;
    bool first = w->first[w->depth];
    w->first[w->depth] = false;
    if (!first)
        sb_addc(w->out, ',');
    if (!w->inl[w->depth])
        newline_indent(w);
    else if (!first)
        sb_addc(w->out, ' ');
}

static void open_level(struct jsonw *w, char c, bool inl)
{
    before_item(w);
    sb_addc(w->out, c);
    if (w->depth + 1 < JW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = true;
    w->inl[w->depth] = inl;
}

static void close_level(struct jsonw *w, char c)
{
    bool empty = w->first[w->depth], inl = w->inl[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (!empty && !inl)
        newline_indent(w);
    sb_addc(w->out, c);
    if (w->depth == 0)
        sb_addc(w->out, '\n');
}

void jw_obj_begin(struct jsonw *w) { open_level(w, '{', false); }
void jw_obj_end(struct jsonw *w) { close_level(w, '}'); }
void jw_arr_begin(struct jsonw *w) { open_level(w, '[', false); }
void jw_arr_begin_inline(struct jsonw *w) { open_level(w, '[', true); }
void jw_arr_end(struct jsonw *w) { close_level(w, ']'); }

/* ---- values ---------------------------------------------------------------- */

/* A JSON string; bytes that are not valid UTF-8 (a label or a path from
 * outside) become "\\xNN" first (util/textesc.h), so Python can load the file. */
void jw_quote(struct strbuf *sb, const char *s)
{
    struct strbuf fixed;
    sb_init(&fixed);
    size_t n = strlen(s);
    if (!esc_utf8_valid(s, n)) {
        esc_utf8(&fixed, s, n);
        s = fixed.buf;
    }
    sb_addc(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': sb_adds(sb, "\\\""); break;
        case '\\': sb_adds(sb, "\\\\"); break;
        case '\n': sb_adds(sb, "\\n"); break;
        case '\r': sb_adds(sb, "\\r"); break;
        case '\t': sb_adds(sb, "\\t"); break;
        default:
            if (*p < 0x20)
                sb_addf(sb, "\\u%04x", *p);
            else
                sb_addc(sb, (char)*p);
        }
    }
    sb_addc(sb, '"');
    sb_release(&fixed);
}

void jw_key(struct jsonw *w, const char *key)
{
    before_item(w);
    jw_quote(w->out, key);
    sb_adds(w->out, ": ");
    w->after_key = true;
}

void jw_str(struct jsonw *w, const char *s)
{
    before_item(w);
    if (s)
        jw_quote(w->out, s);
    else
        sb_adds(w->out, "null");
}

void jw_num(struct jsonw *w, double v)
{
    before_item(w);
    if (!isfinite(v)) {
        sb_adds(w->out, "null");
        return;
    }
    char buf[48];
    jw_repr_double(buf, sizeof(buf), v);
    sb_adds(w->out, buf);
}

void jw_int(struct jsonw *w, int64_t v)
{
    before_item(w);
    sb_addf(w->out, "%" PRId64, v);
}

void jw_bool(struct jsonw *w, bool v)
{
    before_item(w);
    sb_adds(w->out, v ? "true" : "false");
}

void jw_null(struct jsonw *w)
{
    before_item(w);
    sb_adds(w->out, "null");
}

void jw_json(struct jsonw *w, const json_t *j)
{
    if (json_is_object(j)) {
        jw_obj_begin(w);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) {
            jw_key(w, k);
            jw_json(w, v);
        }
        jw_obj_end(w);
    } else if (json_is_array(j)) {
        jw_arr_begin(w);
        for (size_t i = 0; i < json_array_size(j); i++)
            jw_json(w, json_array_get(j, i));
        jw_arr_end(w);
    } else if (json_is_string(j)) {
        jw_str(w, json_string_value(j));
    } else if (json_is_integer(j)) {
        jw_int(w, (int64_t)json_integer_value(j));
    } else if (json_is_real(j)) {
        jw_num(w, json_real_value(j));
    } else if (json_is_boolean(j)) {
        jw_bool(w, json_is_true(j));
    } else {
        jw_null(w);
    }
}

void jw_kstr(struct jsonw *w, const char *key, const char *s) { jw_key(w, key); jw_str(w, s); }
void jw_knum(struct jsonw *w, const char *key, double v) { jw_key(w, key); jw_num(w, v); }
void jw_kint(struct jsonw *w, const char *key, int64_t v) { jw_key(w, key); jw_int(w, v); }
void jw_kbool(struct jsonw *w, const char *key, bool v) { jw_key(w, key); jw_bool(w, v); }
