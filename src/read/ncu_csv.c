/* ncu_csv.c - reader for Nsight Compute raw-page CSV (see ncu_csv.h).
 *
 * One pass over the buffer, line by line; fields are unquoted into fresh
 * strings (the files are small: ncu is used for small cross-check runs only).
 */
#include "read/ncu_csv.h"

#include "read/csvtab.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void add_row(struct ncu_table *t, struct csvtab_rec *f, size_t *cap)
{
    xgrow((void **)&t->cells, cap, (t->nrows + 1) * t->ncols, sizeof(*t->cells));
    memcpy(t->cells + t->nrows * t->ncols, f->v, t->ncols * sizeof(*t->cells));
    f->n = 0;
    t->nrows++;
}

/* Handles one line; *state: 0 before the header, 1 expecting units, 2 rows. */
static int take_line(struct ncu_table *t, const char *line, size_t len, const char *file,
                     long lineno, int *state, struct csvtab_rec *f, size_t *cap)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len == 0 || (len >= 2 && line[0] == '=' && line[1] == '=') ||
        (*state == 0 && (len < 5 || memcmp(line, "\"ID\",", 5) != 0))) {
        t->skipped++;
        return 0;
    }
    if (*state == 2 && line[0] != '"') {   /* application output between rows */
        t->skipped++;
        return 0;
    }
    size_t pos = 0;
    if (csvtab_next_record(line, len, &pos, f, NULL) != 0)
        return br_error_at(file, lineno, 0, "malformed CSV field (unterminated quote)");
    if (*state == 0) {
        t->ncols = f->n;
        t->names = csvtab_rec_take(f);
        *state = 1;
        return 0;
    }
    if (f->n != t->ncols)
        return br_error_at(file, lineno, 0, "expected %zu fields as in the header, found %zu",
                           t->ncols, f->n);
    if (*state == 1 && f->v[0][0] == '\0') {
        t->units = csvtab_rec_take(f);
        *state = 2;
        return 0;
    }
    *state = 2;
    add_row(t, f, cap);
    return 0;
}

int ncu_csv_parse(const char *buf, size_t len, const char *file, struct ncu_table *out)
{
    memset(out, 0, sizeof(*out));
    struct csvtab_rec f = { 0 };
    size_t cap = 0, pos = 0;
    int state = 0, rc = 0;
    for (long lineno = 1; pos < len && rc == 0; lineno++) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len;
        rc = take_line(out, buf + pos, end - pos, file, lineno, &state, &f, &cap);
        pos = end + 1;
    }
    csvtab_rec_release(&f);
    if (rc == 0 && state == 0)
        rc = br_error("%s: no ncu CSV header (a line starting with \"ID\") found", file);
    if (rc == 0 && !out->units) {
        out->units = xcalloc(out->ncols, sizeof(*out->units));
        for (size_t i = 0; i < out->ncols; i++)
            out->units[i] = xstrdup("");
    }
    if (rc != 0)
        ncu_table_release(out);
    return rc;
}

int ncu_csv_read_file(const char *path, struct ncu_table *out)
{
    size_t len = 0;
    char *buf = fs_read_file(path, &len);
    if (!buf)
        return -1;
    int rc = ncu_csv_parse(buf, len, path, out);
    free(buf);
    return rc;
}

void ncu_table_release(struct ncu_table *t)
{
    csvtab_strv_free(t->names, t->ncols);
    csvtab_strv_free(t->units, t->ncols);
    csvtab_strv_free(t->cells, t->nrows * t->ncols);
    memset(t, 0, sizeof(*t));
}

long ncu_table_col(const struct ncu_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->names[i], name) == 0)
            return (long)i;
    return -1;
}

const char *ncu_table_cell(const struct ncu_table *t, size_t row, size_t col)
{
    if (row >= t->nrows || col >= t->ncols)
        return "";
    return t->cells[row * t->ncols + col];
}

int ncu_parse_number(const char *s, double *out)
{
    if (s[0] == '\0' || strcmp(s, "n/a") == 0) {
        *out = NAN;
        return 1;
    }
    struct strbuf sb;
    sb_init(&sb);
    for (const char *p = s; *p; p++) {
        if (*p == ',') {   /* a separator sits between digits */
            if (p == s || !isdigit((unsigned char)p[-1]) || !isdigit((unsigned char)p[1]))
                goto bad;
            continue;
        }
        if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
            goto bad;
        sb_addc(&sb, *p);
    }
    char *end;
    errno = 0;
    *out = strtod(sb.buf, &end);
    if (end == sb.buf || *end != '\0' || errno == ERANGE)
        goto bad;
    sb_release(&sb);
    return 0;
bad:
    sb_release(&sb);
    return -1;
}

int ncu_parse_dim3(const char *s, unsigned long v[3])
{
    int used = 0;
    if (strchr(s, '-'))
        return -1;
    if (sscanf(s, " (%lu , %lu , %lu )%n", &v[0], &v[1], &v[2], &used) != 3 || used == 0)
        return -1;
    return s[used] == '\0' ? 0 : -1;
}
