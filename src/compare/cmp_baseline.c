/* cmp_baseline.c - analysis folders and the baseline comparison of two of
 * them (see baseline.h): reads per_kernel_metrics.csv with the RFC 4180
 * reader (read/csvtab.h) and summary.json with jansson, matches kernels by
 * kernel_full_name and metrics by column name. The TOTAL row is recognised
 * by its kernel column "TOTAL" wherever it stands (benchrun and the seed's
 * postprocess_pmc.py write it first, with an empty kernel_full_name; older
 * benchrun analyses last).
 */
#include "compare/baseline.h"

#include "compare/compare.h"
#include "util/error.h"
#include "util/textesc.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool cmp_parse_num(const char *s, double *v)
{
    if (!*s)
        return false;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(x))
        return false;
    *v = x;
    return true;
}

double cmp_change_pct(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == 0)
        return b == 0 ? 0 : NAN;
    return (b - a) / fabs(a) * 100;
}

const char *cmp_analysis_key(const struct cmp_analysis *a, size_t r)
{
    const char *f = a->fcol >= 0 ? csvtab_cell(&a->t, r, (size_t)a->fcol) : "";
    return *f ? f : csvtab_cell(&a->t, r, (size_t)a->kcol);
}

static bool is_total(const struct cmp_analysis *a, size_t r)
{
    return strcmp(csvtab_cell(&a->t, r, (size_t)a->kcol), "TOTAL") == 0;
}

int cmp_analysis_load_csv(struct cmp_analysis *a, const char *text, size_t len,
                          const char *name)
{
    if (csvtab_parse(text, len, name, &a->t) != 0)
        return -1;
    a->kcol = csvtab_col(&a->t, "kernel");
    a->fcol = csvtab_col(&a->t, "kernel_full_name");
    a->total = -1;
    if (a->kcol < 0)
        return br_error_at(name, 1, 0, "no 'kernel' column: not a per_kernel_metrics.csv");
    for (size_t r = 0; r < a->t.nrows; r++) {
        if (is_total(a, r)) {
            a->total = (long)r;
            continue;
        }
        const char *k = cmp_analysis_key(a, r);
        for (size_t q = 0; q < r; q++)
            if (!is_total(a, q) && strcmp(cmp_analysis_key(a, q), k) == 0)
                return br_error_at(name, a->t.line[r], 0, "kernel '%s' appears twice (also on "
                                   "line %ld)", k, a->t.line[q]);
    }
    return 0;
}

static int load_summary(struct cmp_analysis *a, const char *path)
{
    json_error_t err;
    a->summary = fs_read_json(path, 0, &err);
    if (!a->summary)
        return br_error_at(path, err.line, err.column, "%s", err.text);
    if (!json_is_object(a->summary))
        return br_error("%s: expected a JSON object (benchrun analyze's summary.json)", path);
    return 0;
}

int cmp_analysis_open(const char *arg, bool need_csv, struct cmp_analysis *a)
{
    memset(a, 0, sizeof(*a));
    a->kcol = a->fcol = a->total = -1;
    char *sub = fs_path_join(arg, "analysis");
    a->dir = fs_is_dir(sub) ? sub : xstrdup(arg);
    if (a->dir != sub)
        free(sub);
    if (!fs_is_dir(a->dir))
        return br_error("%s: not a folder (expected a pmc analysis/ folder)", arg);
    char *csv = fs_path_join(a->dir, "per_kernel_metrics.csv");
    char *sum = fs_path_join(a->dir, "summary.json");
    int rc = 0;
    if (need_csv && !fs_exists(csv))
        rc = br_error("%s: no per_kernel_metrics.csv (run 'benchrun analyze PMC_DIR' first)",
                      a->dir);
    else if (!need_csv && !fs_exists(sum))
        rc = br_error("%s: no summary.json (run 'benchrun analyze PMC_DIR' first)", a->dir);
    if (rc == 0 && need_csv) {
        size_t len;
        char *text = fs_read_file(csv, &len);
        rc = text ? cmp_analysis_load_csv(a, text, len, csv) : -1;
        free(text);
        a->csv = csv;
        csv = NULL;
    }
    if (rc == 0 && fs_exists(sum))
        rc = load_summary(a, sum);
    free(csv);
    free(sum);
    return rc;
}

void cmp_analysis_release(struct cmp_analysis *a)
{
    free(a->dir), free(a->csv);
    csvtab_release(&a->t);
    json_decref(a->summary);
    memset(a, 0, sizeof(*a));
}

static json_t *cell_json(const char *s)
{
    double v;
    if (!*s)
        return json_null();
    return cmp_parse_num(s, &v) ? json_real(v) : esc_json_string(s);
}

json_t *cmp_analysis_whole(const struct cmp_analysis *a)
{
    const json_t *wr = json_object_get(a->summary, "whole_run");
    if (json_is_object(wr)) {
        json_t *o = json_deep_copy(wr);
        const json_t *busy = json_object_get(json_object_get(a->summary, "power_run"),
                                             "GPU_busy_pct");
        if (!json_object_get(o, "GPU_busy_pct") && json_is_number(busy))
            json_object_set_new(o, "GPU_busy_pct", json_real(json_number_value(busy)));
        return o;
    }
    json_t *o = json_object();
    if (a->total < 0)
        return o;
    for (size_t c = 0; c < a->t.ncols; c++)
        if ((long)c != a->kcol && (long)c != a->fcol)
            esc_json_set(o, a->t.names[c], cell_json(csvtab_cell(&a->t, (size_t)a->total, c)));
    return o;
}

/* ---- matching ----------------------------------------------------------------- */

static bool wanted(const struct strv *keep, const char *name)
{
    if (!keep->n)
        return true;
    for (size_t i = 0; i < keep->n; i++)
        if (strcmp(keep->v[i], name) == 0)
            return true;
    return false;
}

static void match_columns(struct cmp_baseline *bl, const struct strv *keep)
{
    const struct csvtab *ta = &bl->a.t, *tb = &bl->b.t;
    bl->metric = xcalloc(ta->ncols + 1, sizeof(*bl->metric));
    bl->ca = xcalloc(ta->ncols + 1, sizeof(*bl->ca));
    bl->cb = xcalloc(ta->ncols + 1, sizeof(*bl->cb));
    bl->cols_only_a = json_array();
    bl->cols_only_b = json_array();
    for (size_t c = 0; c < ta->ncols; c++) {
        if ((long)c == bl->a.kcol || (long)c == bl->a.fcol || !wanted(keep, ta->names[c]))
            continue;
        long cb = csvtab_col(tb, ta->names[c]);
        if (cb < 0) {
            json_array_append_new(bl->cols_only_a, esc_json_string(ta->names[c]));
            continue;
        }
        bl->metric[bl->nmetrics] = ta->names[c];
        bl->ca[bl->nmetrics] = (long)c;
        bl->cb[bl->nmetrics++] = cb;
    }
    for (size_t c = 0; c < tb->ncols; c++)
        if ((long)c != bl->b.kcol && (long)c != bl->b.fcol && wanted(keep, tb->names[c]) &&
            csvtab_col(ta, tb->names[c]) < 0)
            json_array_append_new(bl->cols_only_b, esc_json_string(tb->names[c]));
}

static long find_key(const struct cmp_analysis *a, const char *key)
{
    for (size_t r = 0; r < a->t.nrows; r++)
        if (!is_total(a, r) && strcmp(cmp_analysis_key(a, r), key) == 0)
            return (long)r;
    return -1;
}

static void match_kernels(struct cmp_baseline *bl)
{
    size_t na = bl->a.t.nrows, nb = bl->b.t.nrows;
    bl->both = xcalloc(na + 1, sizeof(*bl->both));
    bl->only_a = xcalloc(na + 1, sizeof(*bl->only_a));
    bl->only_b = xcalloc(nb + 1, sizeof(*bl->only_b));
    for (size_t r = 0; r < na; r++) {
        if (is_total(&bl->a, r))
            continue;
        long q = find_key(&bl->b, cmp_analysis_key(&bl->a, r));
        if (q < 0) {
            bl->only_a[bl->nonly_a++] = r;
            continue;
        }
        bl->both[bl->nboth][0] = r;
        bl->both[bl->nboth++][1] = (size_t)q;
    }
    for (size_t r = 0; r < nb; r++)
        if (!is_total(&bl->b, r) && find_key(&bl->a, cmp_analysis_key(&bl->b, r)) < 0)
            bl->only_b[bl->nonly_b++] = r;
}

static void match_whole(struct cmp_baseline *bl, const struct strv *keep)
{
    bl->whole_a = cmp_analysis_whole(&bl->a);
    bl->whole_b = cmp_analysis_whole(&bl->b);
    bl->whole_key = xcalloc(json_object_size(bl->whole_a) + 1, sizeof(*bl->whole_key));
    const char *k;
    json_t *v;
    json_object_foreach(bl->whole_a, k, v) {
        if (json_object_get(bl->whole_b, k) && wanted(keep, k))
            bl->whole_key[bl->nwhole++] = xstrdup(k);
    }
}

/* Every --metrics name must be a column or a whole-run key of A or B. */
static int check_keep(const struct cmp_baseline *bl, const struct strv *keep)
{
    for (size_t i = 0; i < keep->n; i++) {
        const char *m = keep->v[i];
        if (csvtab_col(&bl->a.t, m) < 0 && csvtab_col(&bl->b.t, m) < 0 &&
            !json_object_get(bl->whole_a, m) && !json_object_get(bl->whole_b, m))
            return br_error("--metrics: '%s' is a metric of neither %s nor %s", m, bl->a.csv,
                            bl->b.csv);
    }
    return 0;
}

static void split_list(const char *list, struct strv *out)
{
    strv_init(out);
    if (!list)
        return;
    char *copy = xstrdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (*t)
            strv_push(out, t);
    free(copy);
}

int cmp_baseline_build(const char *a, const char *b, const char *metrics,
                       struct cmp_baseline *bl)
{
    memset(bl, 0, sizeof(*bl));
    if (cmp_analysis_open(a, true, &bl->a) != 0 || cmp_analysis_open(b, true, &bl->b) != 0)
        return -1;
    if (!bl->a.summary)
        br_warn("%s: no summary.json: whole-run values from the TOTAL row", bl->a.dir);
    if (!bl->b.summary)
        br_warn("%s: no summary.json: whole-run values from the TOTAL row", bl->b.dir);
    struct strv keep;
    split_list(metrics, &keep);
    match_columns(bl, &keep);
    match_kernels(bl);
    match_whole(bl, &keep);
    int rc = check_keep(bl, &keep);
    strv_release(&keep);
    return rc;
}

void cmp_baseline_release(struct cmp_baseline *bl)
{
    for (size_t i = 0; i < bl->nwhole; i++)
        free(bl->whole_key[i]);
    free(bl->whole_key);
    free(bl->metric), free(bl->ca), free(bl->cb), free(bl->both), free(bl->only_a),
        free(bl->only_b);
    json_decref(bl->cols_only_a), json_decref(bl->cols_only_b);
    json_decref(bl->whole_a), json_decref(bl->whole_b);
    cmp_analysis_release(&bl->a);
    cmp_analysis_release(&bl->b);
    memset(bl, 0, sizeof(*bl));
}

/* ---- --analysis LABEL=DIR -------------------------------------------------- */

int cmp_attach_analysis(struct cmp_set *s, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return br_error("--analysis '%s': expected LABEL=DIR", arg);
    char *label = xstrndup(arg, (size_t)(eq - arg));
    long i = cmp_find(s, label);
    int rc = 0;
    if (i < 0)
        rc = br_error("--analysis '%s': no workload labelled '%s'", arg, label);
    struct cmp_analysis a;
    if (rc == 0 && cmp_analysis_open(eq + 1, false, &a) == 0) {
        struct cmp_workload *w = &s->w[i];
        free(w->analysis);
        json_decref(w->whole_run);
        w->analysis = xstrdup(a.dir);
        w->whole_run = cmp_analysis_whole(&a);
        cmp_analysis_release(&a);
    } else if (rc == 0) {
        cmp_analysis_release(&a);
        rc = -1;
    }
    free(label);
    return rc;
}
