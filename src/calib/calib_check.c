/* calib_check.c - compares an analysis' per_kernel_metrics.csv with the
 * expected calibration values, and keeps the results table.
 *
 * Owns: a small in-memory CSV table (the per-kernel file has one row per
 * kernel: small), row and column lookup by name (column candidates, first
 * present wins), the tolerance tests and the result strings. Column names are
 * the seed's (docs/design.md §11); kernel rows are found
 * by `kernel` or `kernel_full_name`.
 * SPDX-License-Identifier: MIT
 */
#include "calib/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "read/csv.h"
#include "util/error.h"
#include "util/xalloc.h"

/* ---- results -------------------------------------------------------------- */

void br_calib_result_add(struct br_calib_results *r, const char *check, const char *expected,
                         const char *measured, const char *source,
                         enum br_calib_status status, const char *note)
{
    xgrow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v));
    r->v[r->n++] = (struct br_calib_result){
        .check = xstrdup(check), .expected = xstrdup(expected ? expected : ""),
        .measured = xstrdup(measured ? measured : "n/a"), .source = xstrdup(source ? source : ""),
        .status = status, .note = note ? xstrdup(note) : NULL,
    };
}

void br_calib_results_release(struct br_calib_results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].check);
        free(r->v[i].expected);
        free(r->v[i].measured);
        free(r->v[i].source);
        free(r->v[i].note);
    }
    free(r->v);
    *r = (struct br_calib_results){ 0 };
}

size_t br_calib_misses(const struct br_calib_results *r)
{
    size_t m = 0;
    for (size_t i = 0; i < r->n; i++)
        m += r->v[i].status == BR_CALIB_MISS;
    return m;
}

/* ---- table ------------------------------------------------------------------- */

struct ctab {
    struct strv hdr;
    size_t nrows;
    struct strv *rows;
};

static void ctab_free(struct ctab *t)
{
    strv_release(&t->hdr);
    for (size_t i = 0; i < t->nrows; i++)
        strv_release(&t->rows[i]);
    free(t->rows);
}

static int split_into(struct csv_src *s, const char *line, size_t len, struct strv *out,
                      int want)
{
    int max = want > 0 ? want : 4096;
    struct csv_span *f = xcalloc((size_t)max, sizeof(*f));
    int nf = csv_split(line, len, f, max);
    int rc = 0;
    if (nf < 0 || (want > 0 && nf != want))
        rc = br_error_at(csv_name(s), csv_line_no(s), 0, "expected %d fields, found %d", want, nf);
    for (int i = 0; rc == 0 && i < nf && i < max; i++) {
        char *v = xstrndup(f[i].p, f[i].n);
        strv_push(out, v);
        free(v);
    }
    free(f);
    return rc;
}

/* Reads the whole table from s (closed here). */
static int ctab_load(struct csv_src *s, struct ctab *t)
{
    *t = (struct ctab){ 0 };
    strv_init(&t->hdr);
    if (!s)
        return -1;
    const char *line;
    size_t len, cap = 0;
    int rc = 0, got;
    while (rc == 0 && (got = csv_next_line(s, &line, &len)) > 0) {
        if (len == 0)
            continue;
        if (t->hdr.n == 0) {
            rc = split_into(s, line, len, &t->hdr, 0);
            continue;
        }
        xgrow((void **)&t->rows, &cap, t->nrows + 1, sizeof(*t->rows));
        strv_init(&t->rows[t->nrows]);
        rc = split_into(s, line, len, &t->rows[t->nrows++], (int)t->hdr.n);
    }
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0 && t->hdr.n == 0)
        rc = br_error("%s: empty file (no header)", csv_name(s));
    csv_close(s);
    return rc;
}

static int ctab_col(const struct ctab *t, const char *name)
{
    for (size_t i = 0; i < t->hdr.n; i++)
        if (strcmp(t->hdr.v[i], name) == 0)
            return (int)i;
    return -1;
}

/* First present of candidates; *used gets its name. */
static int ctab_col_any(const struct ctab *t, const char *const *cands, const char **used)
{
    for (size_t i = 0; cands && cands[i]; i++) {
        int c = ctab_col(t, cands[i]);
        if (c >= 0) {
            *used = cands[i];
            return c;
        }
    }
    return -1;
}

static bool cell_num(const struct ctab *t, size_t row, int col, double *out)
{
    const char *s = t->rows[row].v[col];
    char *end;
    if (!*s)
        return false;
    *out = strtod(s, &end);
    return *end == '\0';
}

/* ---- row selection --------------------------------------------------------------- */

static bool name_matches(const char *cell, const char *name)
{
    size_t n = strlen(name);
    return strcmp(cell, name) == 0 || (strncmp(cell, name, n) == 0 && cell[n] == '(');
}

static long find_kernel(const struct ctab *t, const char *name)
{
    int ck = ctab_col(t, "kernel"), cf = ctab_col(t, "kernel_full_name");
    for (size_t r = 0; r < t->nrows; r++)
        if ((ck >= 0 && name_matches(t->rows[r].v[ck], name)) ||
            (cf >= 0 && name_matches(t->rows[r].v[cf], name)))
            return (long)r;
    return -1;
}

/* The non-TOTAL row with the largest value of the first present column of
 * "A|B|..." (*used gets the kernel name); -1 when none has a value > 0. */
static long find_max_of(const struct ctab *t, const char *alts, const char **kname)
{
    char *dup = xstrdup(alts), *save = NULL;
    int col = -1;
    for (char *a = strtok_r(dup, "|", &save); a && col < 0; a = strtok_r(NULL, "|", &save))
        col = ctab_col(t, a);
    free(dup);
    int ck = ctab_col(t, "kernel");
    long best = -1;
    double bv = 0;
    for (size_t r = 0; col >= 0 && ck >= 0 && r < t->nrows; r++) {
        double v;
        if (strcmp(t->rows[r].v[ck], "TOTAL") != 0 && cell_num(t, r, col, &v) && v > bv) {
            bv = v;
            best = (long)r;
        }
    }
    if (best >= 0)
        *kname = t->rows[best].v[ck];
    return best;
}

static long select_row(const struct ctab *t, const struct br_calib_expect *e, const char **kname)
{
    switch (e->row) {
    case BR_CALIB_ROW_KERNEL:
        *kname = e->kernel;
        return find_kernel(t, e->kernel);
    case BR_CALIB_ROW_TOTAL:
        *kname = "TOTAL";
        return find_kernel(t, "TOTAL");
    case BR_CALIB_ROW_MAX_OF:
        *kname = "(kernel with the most of it)";
        return find_max_of(t, e->max_col, kname);
    }
    return -1;
}

/* ---- one check ---------------------------------------------------------------- */

static char *expected_text(const struct br_calib_expect *e)
{
    switch (e->how) {
    case BR_CALIB_REL:   return xasprintf("%.6g ±%g%%", e->value, 100 * e->tol);
    case BR_CALIB_ABS:   return xasprintf("%.4g ±%g", e->value, e->tol);
    case BR_CALIB_RANGE: return xasprintf("%.4g .. %.4g", e->lo, e->hi);
    case BR_CALIB_LABEL: return xstrdup(e->label);
    }
    return xstrdup("?");
}

/* Judges the cell; *measured gets its text. */
static enum br_calib_status judge(const struct br_calib_expect *e, const char *cell,
                                  char **measured, const char **note)
{
    if (e->how == BR_CALIB_LABEL) {
        *measured = xstrdup(*cell ? cell : "(empty)");
        return strcmp(cell, e->label) == 0 ? BR_CALIB_PASS : BR_CALIB_MISS;
    }
    char *end;
    double m = strtod(cell, &end);
    if (!*cell || *end || isnan(m)) {
        *measured = xstrdup(*cell ? cell : "(empty)");
        *note = "no number in the analysis";
        return BR_CALIB_MISS;
    }
    bool ok = false;
    if (e->how == BR_CALIB_REL) {
        double d = e->value != 0 ? (m - e->value) / fabs(e->value) : m;
        *measured = xasprintf("%.6g (%+.3f%%)", m, 100 * d);
        ok = fabs(m - e->value) <= e->tol * fabs(e->value);
    } else if (e->how == BR_CALIB_ABS) {
        *measured = xasprintf("%.4g (%+.2f)", m, m - e->value);
        ok = fabs(m - e->value) <= e->tol;
    } else {
        *measured = xasprintf("%.4g", m);
        ok = m >= e->lo && m <= e->hi;
    }
    return ok ? BR_CALIB_PASS : BR_CALIB_MISS;
}

static void check_one(const struct ctab *t, const struct br_calib_expect *e,
                      struct br_calib_results *res)
{
    char *exp = expected_text(e), *meas = NULL, *src = NULL;
    const char *kname = NULL, *col = NULL, *note = NULL;
    enum br_calib_status st;
    long row = select_row(t, e, &kname);
    int c = ctab_col_any(t, e->cols, &col);
    if (c < 0) {
        st = e->optional ? BR_CALIB_SKIP : BR_CALIB_MISS;
        note = "metric not in this analysis";
        src = xasprintf("%s %s", kname ? kname : "", e->cols[0]);
    } else if (row < 0) {
        st = BR_CALIB_MISS;
        note = "kernel not found in the analysis";
        src = xasprintf("%s %s", kname ? kname : "", col);
    } else {
        st = judge(e, t->rows[row].v[c], &meas, &note);
        src = xasprintf("%s %s", kname, col);
    }
    br_calib_result_add(res, e->check, exp, meas, src, st, note);
    free(exp);
    free(meas);
    free(src);
}

static int check_src(struct csv_src *s, const struct br_calib_expect *e, size_t n,
                     struct br_calib_results *res)
{
    struct ctab t;
    const char *name = s ? csv_name(s) : "";
    char *dup = xstrdup(name);
    int rc = ctab_load(s, &t);
    if (rc == 0 && ctab_col(&t, "kernel") < 0)
        rc = br_error("%s: no 'kernel' column in the header", dup);
    for (size_t i = 0; rc == 0 && i < n; i++)
        check_one(&t, &e[i], res);
    ctab_free(&t);
    free(dup);
    return rc;
}

int br_calib_check_analysis(const char *per_kernel_csv, const struct br_calib_expect *e,
                            size_t n, struct br_calib_results *res)
{
    return check_src(csv_open(per_kernel_csv), e, n, res);
}

int br_calib_check_analysis_mem(const char *name, const void *data, size_t len,
                                const struct br_calib_expect *e, size_t n,
                                struct br_calib_results *res)
{
    return check_src(csv_open_mem(name, data, len), e, n, res);
}

int br_calib_analysis_value(const char *per_kernel_csv, const char *kernel,
                            const char *const *cols, double *out)
{
    struct ctab t;
    const char *used = NULL;
    int rc = ctab_load(csv_open(per_kernel_csv), &t);
    long row = rc == 0 ? find_kernel(&t, kernel) : -1;
    int c = row >= 0 ? ctab_col_any(&t, cols, &used) : -1;
    rc = c >= 0 && cell_num(&t, (size_t)row, c, out) && !isnan(*out) ? 0 : -1;
    ctab_free(&t);
    return rc;
}
