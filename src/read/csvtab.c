/* csvtab.c - RFC 4180 records and tables (see csvtab.h). One pass over the
 * buffer; every field is copied into its own string (the tables read here
 * are small: analysis outputs, ncu cross-check runs). */
#include "read/csvtab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void csvtab_rec_reset(struct csvtab_rec *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i]);
    r->n = 0;
}

void csvtab_rec_release(struct csvtab_rec *r)
{
    csvtab_rec_reset(r);
    free(r->v);
    memset(r, 0, sizeof(*r));
}

static void rec_push(struct csvtab_rec *r, struct strbuf *sb)
{
    xgrow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v));
    r->v[r->n++] = sb_detach(sb);
}

/* A quoted field from s[*i] (the opening quote) into sb; *i ends past the
 * closing quote. -1 when the quote is not closed. */
static int quoted_field(const char *s, size_t len, size_t *i, struct strbuf *sb, long *lines)
{
    for (size_t k = *i + 1; k < len; k++) {
        if (s[k] != '"') {
            if (s[k] == '\n' && lines)
                (*lines)++;
            sb_addc(sb, s[k]);
            continue;
        }
        if (k + 1 < len && s[k + 1] == '"') {
            sb_addc(sb, '"');
            k++;
            continue;
        }
        *i = k + 1;
        return 0;
    }
    return -1;
}

int csvtab_next_record(const char *s, size_t len, size_t *pos, struct csvtab_rec *r,
                       long *lines)
{
    struct strbuf sb;
    sb_init(&sb);
    csvtab_rec_reset(r);
    size_t i = *pos;
    for (;;) {
        if (i < len && s[i] == '"') {
            if (quoted_field(s, len, &i, &sb, lines) != 0)
                goto bad;
            if (i < len && s[i] == '\r' && i + 1 < len && s[i + 1] == '\n')
                i++;
            if (i < len && s[i] != ',' && s[i] != '\n' && !(s[i] == '\r' && i + 1 == len))
                goto bad;
        } else {
            size_t b = i;
            while (i < len && s[i] != ',' && s[i] != '\n')
                i++;
            size_t e = i;
            if (e > b && s[e - 1] == '\r' && (e == len || s[e] == '\n'))
                e--;                    /* CRLF line end */
            sb_add(&sb, s + b, e - b);
        }
        rec_push(r, &sb);
        if (i < len && s[i] == '\r')
            i++;                        /* a quoted last field before CR at EOF */
        if (i >= len || s[i] == '\n')
            break;
        i++;                            /* the comma */
    }
    if (i < len) {
        i++;                            /* the LF */
        if (lines)
            (*lines)++;
    }
    *pos = i;
    sb_release(&sb);
    return 0;
bad:
    sb_release(&sb);
    csvtab_rec_reset(r);
    return -1;
}

char **csvtab_rec_take(struct csvtab_rec *r)
{
    char **v = xcalloc(r->n ? r->n : 1, sizeof(*v));
    memcpy(v, r->v, r->n * sizeof(*v));
    r->n = 0;
    return v;
}

static void add_row(struct csvtab *t, struct csvtab_rec *r, long line, size_t *cap,
                    size_t *lcap)
{
    xgrow((void **)&t->cells, cap, (t->nrows + 1) * t->ncols, sizeof(*t->cells));
    xgrow((void **)&t->line, lcap, t->nrows + 1, sizeof(*t->line));
    memcpy(t->cells + t->nrows * t->ncols, r->v, t->ncols * sizeof(*t->cells));
    r->n = 0;
    t->line[t->nrows++] = line;
}

static bool blank_line(const char *s, size_t len, size_t pos)
{
    return pos < len && (s[pos] == '\n' || (s[pos] == '\r' && pos + 1 < len && s[pos + 1] == '\n'));
}

int csvtab_parse(const char *buf, size_t len, const char *file, struct csvtab *t)
{
    memset(t, 0, sizeof(*t));
    struct csvtab_rec r = { 0 };
    size_t pos = 0, cap = 0, lcap = 0;
    long line = 1;
    int rc = 0;
    while (pos < len && rc == 0) {
        if (blank_line(buf, len, pos)) {
            pos += buf[pos] == '\r' ? 2 : 1;
            line++;
            continue;
        }
        long start = line;
        if (csvtab_next_record(buf, len, &pos, &r, &line) != 0) {
            rc = br_error_at(file, start, 0, "malformed CSV field (a quote that is not closed, "
                                             "or text after a closing quote)");
        } else if (!t->names) {
            t->ncols = r.n;
            t->names = csvtab_rec_take(&r);
        } else if (r.n != t->ncols) {
            rc = br_error_at(file, start, 0, "expected %zu fields as in the header, found %zu",
                             t->ncols, r.n);
        } else {
            add_row(t, &r, start, &cap, &lcap);
        }
    }
    csvtab_rec_release(&r);
    if (rc == 0 && !t->names)
        rc = br_error("%s: empty CSV file (no header)", file);
    if (rc != 0)
        csvtab_release(t);
    return rc;
}

int csvtab_read_file(const char *path, struct csvtab *t)
{
    size_t len = 0;
    char *buf = fs_read_file(path, &len);
    if (!buf)
        return -1;
    int rc = csvtab_parse(buf, len, path, t);
    free(buf);
    return rc;
}

void csvtab_strv_free(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void csvtab_release(struct csvtab *t)
{
    csvtab_strv_free(t->names, t->ncols);
    csvtab_strv_free(t->cells, t->nrows * t->ncols);
    free(t->line);
    memset(t, 0, sizeof(*t));
}

long csvtab_col(const struct csvtab *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->names[i], name) == 0)
            return (long)i;
    return -1;
}

const char *csvtab_cell(const struct csvtab *t, size_t row, size_t col)
{
    if (row >= t->nrows || col >= t->ncols)
        return "";
    return t->cells[row * t->ncols + col];
}
