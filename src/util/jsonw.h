/* jsonw.h - small streaming JSON writer with Python-compatible numbers.
 *
 * Why not jansson's dump: json_dumps prints reals with "%.17g" (0.1 becomes
 * 0.10000000000000001), while the vectors must read like the seed's Python
 * output (json.dumps uses repr(): shortest round-trip digits, 0.1 and
 * 1.1999999999999997). This writer produces the same text as Python for
 * every double, keeps key order, and embeds jansson values (run.json) as is.
 *
 * Layout: 2-space indentation, one member per line; arrays opened with
 * jw_arr_begin_inline stay on one line. NaN/inf are written as null.
 */
#ifndef BR_UTIL_JSONW_H
#define BR_UTIL_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/strbuf.h"

enum { JW_MAX_DEPTH = 64 };

struct jsonw {
    struct strbuf *out;
    int depth;
    bool first[JW_MAX_DEPTH];   /* no member written yet at this level */
    bool inl[JW_MAX_DEPTH];     /* this array stays on one line */
    bool after_key;             /* a key was written; the value follows */
};

void jw_init(struct jsonw *w, struct strbuf *out);
void jw_obj_begin(struct jsonw *w);
void jw_obj_end(struct jsonw *w);
void jw_arr_begin(struct jsonw *w);
void jw_arr_begin_inline(struct jsonw *w);
void jw_arr_end(struct jsonw *w);
void jw_key(struct jsonw *w, const char *key);
void jw_str(struct jsonw *w, const char *s);       /* NULL writes null */
void jw_num(struct jsonw *w, double v);            /* non-finite writes null */
void jw_int(struct jsonw *w, int64_t v);
void jw_bool(struct jsonw *w, bool v);
void jw_null(struct jsonw *w);
void jw_json(struct jsonw *w, const json_t *j);    /* any jansson value */

/* Shorthands for a member: key then value. */
void jw_kstr(struct jsonw *w, const char *key, const char *s);
void jw_knum(struct jsonw *w, const char *key, double v);
void jw_kint(struct jsonw *w, const char *key, int64_t v);
void jw_kbool(struct jsonw *w, const char *key, bool v);

/* s as a JSON string literal appended to sb: bytes that are not UTF-8 as
 * "\\xNN" (util/textesc.h), quotes, backslashes and control characters
 * escaped. For JSON written without this writer (a trace file's events). */
void jw_quote(struct strbuf *sb, const char *s);

/* Python repr() of a float: shortest round-trip digits, exponent form when
 * the decimal point position is <= -4 or > 16 ("1e-05", "1e+16"), ".0" added
 * to integral values. Non-finite: "nan", "inf", "-inf". Writes at most n
 * bytes including the NUL (n >= 32 is always enough); returns the length. */
int jw_repr_double(char *buf, size_t n, double v);

#endif
