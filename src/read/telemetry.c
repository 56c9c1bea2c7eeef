/* telemetry.c - streaming reader of the sampler's telemetry CSV (docs/design.md §10).
 *
 * Owns: the metadata line, the header/column plan and the row rules
 * (contract in telemetry.h). Lines, field splitting and numbers are
 * read/csv.h's, the reader of every other CSV benchrun reads.
 */
#include "read/telemetry.h"

#include "read/csv.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { PLAN_SKIP = -1, PLAN_TIME = -2 };

struct br_telem {
    char *name;
    struct csv_src *src;
    long rows;
    bool truncated, done;
    char **mkeys, **mvals;
    size_t nmeta;
    char **cols;
    size_t ncols;
    int *plan;                     /* per column: PLAN_*, or a value index */
    int *plan_extra;               /* per column: extra slot or -1 */
    size_t last_parsed;            /* highest column index that is parsed */
    double *extra;
    size_t nextra;
    struct csv_span *fields;       /* [last_parsed + 1] */
};

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static inline void trim(const char **s, const char **e)
{
    while (*s < *e && is_blank(**s))
        (*s)++;
    while (*e > *s && is_blank((*e)[-1]))
        (*e)--;
}

/* Next line: 1 with [*s, *e), 0 at the end, -1 on a read error. */
static int next_line(struct br_telem *t, const char **s, const char **e)
{
    const char *line;
    size_t len;
    int rc = csv_next_line(t->src, &line, &len);
    if (rc == 1)
        *s = line, *e = line + len;
    return rc;
}

static long line_no(const struct br_telem *t) { return csv_line_no(t->src); }

/* ---- metadata and header ----------------------------------------------- */

static void meta_add(struct br_telem *t, const char *k, size_t kn, const char *v, size_t vn)
{
    t->mkeys = xrealloc(t->mkeys, (t->nmeta + 1) * sizeof(*t->mkeys));
    t->mvals = xrealloc(t->mvals, (t->nmeta + 1) * sizeof(*t->mvals));
    t->mkeys[t->nmeta] = xstrndup(k, kn);
    t->mvals[t->nmeta] = xstrndup(v, vn);
    t->nmeta++;
}

static bool is_meta_sep(char c) { return is_blank(c) || c == ',' || c == ';'; }

/* True when the word at s (up to a separator) is a key=value pair. */
static bool next_is_pair(const char *s, const char *e)
{
    for (; s < e && !is_meta_sep(*s); s++)
        if (*s == '=')
            return true;
    return false;
}

/* key=value pairs separated by blanks, ';' or ','; a ',' followed by a word
 * without '=' continues the value (a list, as the sampler's caps=a,b,c). A
 * value may be double-quoted to hold separators. Words without '=' (e.g. a
 * tool name) are ignored. */
static void parse_meta(struct br_telem *t, const char *s, const char *e)
{
    while (s < e && (*s == '#' || is_blank(*s)))
        s++;
    while (s < e) {
        while (s < e && is_meta_sep(*s))
            s++;
        const char *k = s;
        while (s < e && !is_meta_sep(*s) && *s != '=')
            s++;
        if (s == e || *s != '=' || s == k) {
            while (s < e && !is_meta_sep(*s))
                s++;
            continue;
        }
        const char *ke = s++;
        const char *v = s, *ve;
        if (s < e && *s == '"') {
            v = ++s;
            while (s < e && *s != '"')
                s++;
            ve = s;
            if (s < e)
                s++;
        } else {
            while (s < e && !is_meta_sep(*s))
                s++;
            while (s < e && *s == ',' && !next_is_pair(s + 1, e))
                for (s++; s < e && !is_meta_sep(*s); s++)
                    ;                      /* a list value: caps=a,b,c */
            ve = s;
        }
        meta_add(t, k, (size_t)(ke - k), v, (size_t)(ve - v));
    }
}

static int find_col(const struct br_telem *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i], name) == 0)
            return (int)i;
    return -1;
}

/* Splits the header into names (blanks and double quotes around a name are
 * dropped) and checks for duplicates. */
static int split_header(struct br_telem *t, const char *s, const char *e)
{
    for (;;) {
        const char *f = s;
        while (s < e && *s != ',')
            s++;
        const char *fe = s;
        trim(&f, &fe);
        if (fe - f >= 2 && *f == '"' && fe[-1] == '"')
            f++, fe--;
        char *name = xstrndup(f, (size_t)(fe - f));
        if (*name && find_col(t, name) >= 0) {
            br_error_at(t->name, line_no(t), 0, "duplicate column '%s' in the header", name);
            free(name);
            return -1;
        }
        t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof(*t->cols));
        t->cols[t->ncols++] = name;
        if (s == e)
            return 0;
        s++;
    }
}

/* Builds the per-column plan: timestamp, a required value, or skip. */
static int plan_columns(struct br_telem *t)
{
    t->plan = xmalloc(t->ncols * sizeof(*t->plan));
    t->plan_extra = xmalloc(t->ncols * sizeof(*t->plan_extra));
    for (size_t i = 0; i < t->ncols; i++)
        t->plan[i] = PLAN_SKIP, t->plan_extra[i] = -1;
    int ts = find_col(t, TELEM_TIMESTAMP_COL);
    if (ts < 0)
        return br_error_at(t->name, line_no(t), 0, "missing column '%s' in the header",
                           TELEM_TIMESTAMP_COL);
    t->plan[ts] = PLAN_TIME;
    for (int v = 0; v < TELEM_NREQUIRED; v++) {
        int c = find_col(t, telem_cols[v].name);
        if (c < 0)
            return br_error_at(t->name, line_no(t), 0, "missing column '%s' in the header",
                               telem_cols[v].name);
        t->plan[c] = v;
        if ((size_t)c > t->last_parsed)
            t->last_parsed = (size_t)c;
    }
    if ((size_t)ts > t->last_parsed)
        t->last_parsed = (size_t)ts;
    return 0;
}

/* True when one comma-separated field of the line is "timestamp_ns": the
 * line is a header (a file with no metadata line). */
static bool has_timestamp_field(const char *s, const char *e)
{
    while (s <= e) {
        const char *c = memchr(s, ',', (size_t)(e - s));
        const char *f = s, *fe = c ? c : e;
        trim(&f, &fe);
        if (fe - f >= 2 && *f == '"' && fe[-1] == '"')
            f++, fe--;
        size_t n = strlen(TELEM_TIMESTAMP_COL);
        if ((size_t)(fe - f) == n && memcmp(f, TELEM_TIMESTAMP_COL, n) == 0)
            return true;
        if (!c)
            break;
        s = c + 1;
    }
    return false;
}

/* Lines 1-2: metadata (optional) and header. */
static int read_head(struct br_telem *t)
{
    const char *s = NULL, *e = NULL;
    int rc = next_line(t, &s, &e);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return br_error_at(t->name, 0, 0, "empty file: expected a metadata line and a "
                                          "header (timestamp_ns,...)");
    if (!has_timestamp_field(s, e)) {
        parse_meta(t, s, e);
        rc = next_line(t, &s, &e);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return br_error_at(t->name, line_no(t) + 1, 0,
                               "expected the header line (timestamp_ns,...), found end of file");
    }
    if (split_header(t, s, e) != 0)
        return -1;
    return plan_columns(t);
}

/* ---- public API -------------------------------------------------------- */

static struct br_telem *finish_open(struct br_telem *t)
{
    if (read_head(t) != 0) {
        br_telem_close(t);
        return NULL;
    }
    t->fields = xcalloc(t->last_parsed + 1, sizeof(*t->fields));
    return t;
}

static struct br_telem *telem_new(const char *name, struct csv_src *src)
{
    if (!src)
        return NULL;
    struct br_telem *t = xcalloc(1, sizeof(*t));
    t->name = xstrdup(name);
    t->src = src;
    return finish_open(t);
}

struct br_telem *br_telem_open(const char *path)
{
    return telem_new(path, csv_open(path));
}

struct br_telem *br_telem_open_mem(const char *name, const void *data, size_t len)
{
    return telem_new(name, csv_open_mem(name, data, len));
}

void br_telem_close(struct br_telem *t)
{
    if (!t)
        return;
    csv_close(t->src);
    for (size_t i = 0; i < t->nmeta; i++)
        free(t->mkeys[i]), free(t->mvals[i]);
    for (size_t i = 0; i < t->ncols; i++)
        free(t->cols[i]);
    free(t->mkeys);
    free(t->mvals);
    free(t->cols);
    free(t->plan);
    free(t->plan_extra);
    free(t->extra);
    free(t->fields);
    free(t->name);
    free(t);
}

int br_telem_want(struct br_telem *t, const char *name)
{
    int c = find_col(t, name);
    if (c < 0)
        return -1;
    if (t->plan_extra[c] >= 0)
        return t->plan_extra[c];
    t->plan_extra[c] = (int)t->nextra;
    if ((size_t)c > t->last_parsed) {
        t->last_parsed = (size_t)c;
        t->fields = xrealloc(t->fields, (t->last_parsed + 1) * sizeof(*t->fields));
    }
    t->extra = xrealloc(t->extra, (t->nextra + 1) * sizeof(*t->extra));
    t->extra[t->nextra] = NAN;
    return (int)t->nextra++;
}

/* A value field: blanks around it allowed, empty means absent (NaN). */
static int field_double(const struct csv_span *f, double *out)
{
    const char *s = f->p, *e = f->p + f->n;
    trim(&s, &e);
    if (s == e) {
        *out = NAN;
        return 0;
    }
    struct csv_span v = { s, (uint32_t)(e - s), f->quoted };
    return csv_double(&v, out);
}

/* timestamp_ns: a non-negative integer that fits int64. */
static int field_time(const struct csv_span *f, int64_t *out)
{
    const char *s = f->p, *e = f->p + f->n;
    trim(&s, &e);
    struct csv_span v = { s, (uint32_t)(e - s), f->quoted };
    uint64_t u;
    if (csv_u64(&v, &u) != 0 || u > (uint64_t)INT64_MAX)
        return -1;
    *out = (int64_t)u;
    return 0;
}

/* One parsed field of a row into *row according to the column plan. */
static int store_field(struct br_telem *t, size_t col, const struct csv_span *f,
                       struct br_telem_row *row)
{
    int p = t->plan[col], x = t->plan_extra[col];
    if (p == PLAN_TIME) {
        if (field_time(f, &row->timestamp_ns) == 0)
            return 0;
        return br_error_at(t->name, line_no(t), 0, "column '%s': expected a non-negative "
                           "integer (ns), found '%.*s'", t->cols[col], (int)f->n, f->p);
    }
    double v;
    if (field_double(f, &v) != 0) {
        const char *s = f->p, *e = f->p + f->n;
        trim(&s, &e);
        return br_error_at(t->name, line_no(t), 0, "column '%s': expected a number or nan, "
                           "found '%.*s'", t->cols[col], (int)(e - s), s);
    }
    if (p >= 0)
        row->v[p] = v;
    if (x >= 0)
        t->extra[x] = v;
    return 0;
}

/* Blanks from s: the field's end (',' or e) when only blanks are left in
 * it, NULL otherwise. */
static inline const char *field_rest(const char *s, const char *e)
{
    while (s < e && is_blank(*s))
        s++;
    return s == e || *s == ',' ? s : NULL;
}

/* The common row in one pass, converting while it splits: no field of the
 * plan quoted, each converted one a plain number (or empty). 0 with the row
 * filled; -1 when the row needs parse_row_fields (quotes, a malformed value,
 * a wrong field count), which then decides and reports as before. */
static int parse_row_plain(struct br_telem *t, const char *s, const char *e,
                           struct br_telem_row *row)
{
    for (size_t col = 0;; col++) {
        while (s < e && is_blank(*s))
            s++;
        if (s < e && *s == '"')
            return -1;
        int p = t->plan[col], x = t->plan_extra[col];
        if (p == PLAN_TIME) {
            uint64_t u;
            s = csv_scan_u64(s, e, &u);
            if (!s || u > (uint64_t)INT64_MAX || !(s = field_rest(s, e)))
                return -1;
            row->timestamp_ns = (int64_t)u;
        } else if (p != PLAN_SKIP || x >= 0) {
            double v = NAN;
            if (s < e && *s != ',' && !(s = csv_scan_double(s, e, &v)))
                return -1;
            if (!(s = field_rest(s, e)))
                return -1;
            if (p >= 0)
                row->v[p] = v;
            if (x >= 0)
                t->extra[x] = v;
        } else {
            s = memchr(s, ',', (size_t)(e - s));
            if (!s)
                return -1;
        }
        if (col == t->last_parsed) {
            long rest = s == e ? 0 : csv_count_fields(s + 1, (size_t)(e - s - 1));
            return rest >= 0 && (size_t)rest == t->ncols - col - 1 ? 0 : -1;
        }
        if (s == e)
            return -1;                     /* fewer fields than the plan */
        s++;
    }
}

/* Splits one data line (every field counted, the columns of the plan
 * converted) and checks the field count. */
static int parse_row_fields(struct br_telem *t, const char *s, const char *e,
                            struct br_telem_row *row)
{
    int n = csv_split(s, (size_t)(e - s), t->fields, (int)t->last_parsed + 1);
    if (n < 0 || (size_t)n != t->ncols)
        return br_error_at(t->name, line_no(t), 0, "expected %zu fields as in the header, "
                           "found %d", t->ncols, n < 0 ? 0 : n);
    for (size_t col = 0; col <= t->last_parsed; col++)
        if ((t->plan[col] != PLAN_SKIP || t->plan_extra[col] >= 0) &&
            store_field(t, col, &t->fields[col], row) != 0)
            return -1;
    return 0;
}

static int parse_row(struct br_telem *t, const char *s, const char *e, struct br_telem_row *row)
{
    return parse_row_plain(t, s, e, row) == 0 ? 0 : parse_row_fields(t, s, e, row);
}

int br_telem_next(struct br_telem *t, struct br_telem_row *row)
{
    while (!t->done) {
        const char *s = NULL, *e = NULL;
        int rc = next_line(t, &s, &e);
        if (rc <= 0) {
            t->done = true;
            return rc;
        }
        if (csv_last_unterminated(t->src)) {
            t->truncated = true;
            t->done = true;
            br_warn("%s:%ld: last line has no end (cut short, e.g. a killed job): ignored",
                    t->name, line_no(t));
            return 0;
        }
        if (s == e)
            continue;                      /* blank line */
        row->line = line_no(t);
        row->extra = t->extra;
        if (parse_row(t, s, e, row) != 0) {
            t->done = true;
            return -1;
        }
        t->rows++;
        return 1;
    }
    return 0;
}

size_t br_telem_meta_count(const struct br_telem *t) { return t->nmeta; }
const char *br_telem_meta_key(const struct br_telem *t, size_t i) { return t->mkeys[i]; }
const char *br_telem_meta_value(const struct br_telem *t, size_t i) { return t->mvals[i]; }

const char *br_telem_meta(const struct br_telem *t, const char *key)
{
    for (size_t i = 0; i < t->nmeta; i++)
        if (strcmp(t->mkeys[i], key) == 0)
            return t->mvals[i];
    return NULL;
}

size_t br_telem_ncols(const struct br_telem *t) { return t->ncols; }
const char *br_telem_colname(const struct br_telem *t, size_t i) { return t->cols[i]; }
int br_telem_col(const struct br_telem *t, const char *name) { return find_col(t, name); }
const char *br_telem_name(const struct br_telem *t) { return t->name; }
long br_telem_rows(const struct br_telem *t) { return t->rows; }
bool br_telem_truncated(const struct br_telem *t) { return t->truncated; }
