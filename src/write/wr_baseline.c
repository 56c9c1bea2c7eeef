/* wr_baseline.c - the outputs of `benchrun compare --baseline A B`
 * (wr_compare.h): baseline.md and baseline.html (whole-run deltas, the
 * kernels of both with their time, the kernels of one only, then every
 * metric of each kernel of both: A, B, change) and baseline.csv (the same
 * values, one row per scope, kernel and metric). Change = (B - A) / |A| x
 * 100 % (cmp_change_pct); labels (bound, precision) show A -> B. */
#include "write/wr_compare.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "write/analysis.h"
#include "write/wr_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One value pair as text: a, b and the change ("" when not a number). */
struct pair {
    char a[48], b[48], change[48];
};

static void show(const char *s, char *out)
{
    double v;
    if (!s || !*s)
        snprintf(out, 48, "\xe2\x80\x94");
    else if (cmp_parse_num(s, &v))
        wr_html_num(v, out);
    else
        snprintf(out, 48, "%.47s", s);
}

static void change_text(const char *a, const char *b, char *out)
{
    double x, y;
    out[0] = '\0';
    if (a && b && cmp_parse_num(a, &x) && cmp_parse_num(b, &y)) {
        double c = cmp_change_pct(x, y);
        if (isnan(c))
            snprintf(out, 48, "%s", x == 0 ? "new (A is 0)" : "");
        else
            snprintf(out, 48, fabs(c) < 1000 ? "%+.1f %%" : "%+.3g %%", c);
    } else if (a && b && *a && *b && strcmp(a, b) != 0) {
        snprintf(out, 48, "changed");
    }
}

static void make_pair(const char *a, const char *b, struct pair *p)
{
    show(a, p->a);
    show(b, p->b);
    change_text(a, b, p->change);
}

/* Whole-run value as CSV-style text ("" for null). */
static const char *json_text(const json_t *v, char *buf)
{
    if (json_is_number(v))
        return wr_exact_num(json_number_value(v), buf);
    if (json_is_string(v))
        return json_string_value(v);
    return strcpy(buf, "");
}

static const char *cell_a(const struct cmp_baseline *bl, size_t r, size_t m)
{
    return csvtab_cell(&bl->a.t, r, (size_t)bl->ca[m]);
}

static const char *cell_b(const struct cmp_baseline *bl, size_t r, size_t m)
{
    return csvtab_cell(&bl->b.t, r, (size_t)bl->cb[m]);
}

static const char *kname(const struct cmp_analysis *a, size_t r)
{
    return csvtab_cell(&a->t, r, (size_t)a->kcol);
}

/* The column used for the kernel overview: time_ms, else the first metric. */
static long time_metric(const struct cmp_baseline *bl)
{
    for (size_t m = 0; m < bl->nmetrics; m++)
        if (strcmp(bl->metric[m], "time_ms") == 0)
            return (long)m;
    return bl->nmetrics ? 0 : -1;
}

/* ---- baseline.csv ---------------------------------------------------------- */

static void csv_row(FILE *fp, const char *scope, const char *k, const char *full,
                    const char *metric, const char *a, const char *b)
{
    double x, y;
    char c[32];
    fprintf(fp, "%s,", scope);
    wr_csv_field(fp, k);
    fputc(',', fp);
    wr_csv_field(fp, full);
    fputc(',', fp);
    wr_csv_field(fp, metric);
    fputc(',', fp);
    wr_csv_field(fp, a);
    fputc(',', fp);
    wr_csv_field(fp, b);
    bool num = a && b && cmp_parse_num(a, &x) && cmp_parse_num(b, &y);
    fprintf(fp, ",%s\n", num ? wr_exact_num(cmp_change_pct(x, y), c) : "");
}

static void csv_kernels(FILE *fp, const struct cmp_baseline *bl)
{
    for (size_t k = 0; k < bl->nboth; k++) {
        size_t ra = bl->both[k][0], rb = bl->both[k][1];
        for (size_t m = 0; m < bl->nmetrics; m++)
            csv_row(fp, "both", kname(&bl->a, ra), cmp_analysis_key(&bl->a, ra), bl->metric[m],
                    cell_a(bl, ra, m), cell_b(bl, rb, m));
    }
    for (size_t k = 0; k < bl->nonly_a; k++)
        for (size_t m = 0; m < bl->nmetrics; m++)
            csv_row(fp, "a_only", kname(&bl->a, bl->only_a[k]),
                    cmp_analysis_key(&bl->a, bl->only_a[k]), bl->metric[m],
                    cell_a(bl, bl->only_a[k], m), "");
    for (size_t k = 0; k < bl->nonly_b; k++)
        for (size_t m = 0; m < bl->nmetrics; m++)
            csv_row(fp, "b_only", kname(&bl->b, bl->only_b[k]),
                    cmp_analysis_key(&bl->b, bl->only_b[k]), bl->metric[m], "",
                    cell_b(bl, bl->only_b[k], m));
}

static void baseline_csv(FILE *fp, const struct cmp_baseline *bl)
{
    char ba[32], bb[32];
    fputs("scope,kernel,kernel_full_name,metric,a,b,change_pct\n", fp);
    for (size_t i = 0; i < bl->nwhole; i++) {
        const char *k = bl->whole_key[i];
        csv_row(fp, "whole_run", "TOTAL", "", k, json_text(json_object_get(bl->whole_a, k), ba),
                json_text(json_object_get(bl->whole_b, k), bb));
    }
    csv_kernels(fp, bl);
}

/* ---- baseline.md ----------------------------------------------------------- */

static void md_pair_row(FILE *fp, const char *name, const char *a, const char *b)
{
    struct pair p;
    make_pair(a, b, &p);
    const char *cells[] = { name, p.a, p.b, p.change };
    for (size_t i = 0; i < 4; i++) {
        fputs(i ? " | " : "| ", fp);
        wr_md_cell(fp, cells[i]);
    }
    fputs(" |\n", fp);
}

static void md_whole(FILE *fp, const struct cmp_baseline *bl)
{
    char ba[32], bb[32];
    fputs("## Whole run\n\n| metric | A | B | change |\n|---|---|---|---|\n", fp);
    for (size_t i = 0; i < bl->nwhole; i++) {
        const char *k = bl->whole_key[i];
        md_pair_row(fp, k, json_text(json_object_get(bl->whole_a, k), ba),
                    json_text(json_object_get(bl->whole_b, k), bb));
    }
    fputc('\n', fp);
}

static void md_only(FILE *fp, const char *title, const struct cmp_analysis *a, const size_t *rows,
                    size_t n, const struct cmp_baseline *bl, long tm, bool is_a)
{
    char b[48];
    fprintf(fp, "### %s (%zu)\n\n", title, n);
    if (!n) {
        fputs("none\n\n", fp);
        return;
    }
    fprintf(fp, "| kernel | %s |\n|---|---|\n", tm >= 0 ? bl->metric[tm] : "-");
    for (size_t k = 0; k < n; k++) {
        fputs("| ", fp);
        wr_md_cell(fp, kname(a, rows[k]));
        const char *v = tm < 0 ? "" : is_a ? cell_a(bl, rows[k], (size_t)tm)
                                           : cell_b(bl, rows[k], (size_t)tm);
        show(v, b);
        fputs(" | ", fp);
        wr_md_cell(fp, b);
        fputs(" |\n", fp);
    }
    fputc('\n', fp);
}

static void md_kernels(FILE *fp, const struct cmp_baseline *bl)
{
    long tm = time_metric(bl);
    fprintf(fp, "## Kernels\n\n%zu in both (matched by kernel_full_name), %zu only in A, %zu only "
                "in B.\n\n### In both (A's order)\n\n| kernel | %s A | %s B | change |\n"
                "|---|---|---|---|\n", bl->nboth, bl->nonly_a, bl->nonly_b,
            tm >= 0 ? bl->metric[tm] : "-", tm >= 0 ? bl->metric[tm] : "-");
    for (size_t k = 0; k < bl->nboth && tm >= 0; k++)
        md_pair_row(fp, kname(&bl->a, bl->both[k][0]), cell_a(bl, bl->both[k][0], (size_t)tm),
                    cell_b(bl, bl->both[k][1], (size_t)tm));
    fputc('\n', fp);
    md_only(fp, "Only in A", &bl->a, bl->only_a, bl->nonly_a, bl, tm, true);
    md_only(fp, "Only in B", &bl->b, bl->only_b, bl->nonly_b, bl, tm, false);
}

static void md_per_kernel(FILE *fp, const struct cmp_baseline *bl)
{
    fputs("## Per kernel: every metric\n\n", fp);
    for (size_t k = 0; k < bl->nboth; k++) {
        size_t ra = bl->both[k][0], rb = bl->both[k][1];
        fputs("### ", fp);
        wr_md_cell(fp, kname(&bl->a, ra));
        fputs("\n\n`", fp);
        wr_md_cell(fp, cmp_analysis_key(&bl->a, ra));
        fputs("`\n\n| metric | A | B | change |\n|---|---|---|---|\n", fp);
        for (size_t m = 0; m < bl->nmetrics; m++)
            md_pair_row(fp, bl->metric[m], cell_a(bl, ra, m), cell_b(bl, rb, m));
        fputc('\n', fp);
    }
}

static void md_columns(FILE *fp, const char *title, const json_t *cols)
{
    if (!json_array_size(cols))
        return;
    fprintf(fp, "%s:", title);
    for (size_t i = 0; i < json_array_size(cols); i++)
        fprintf(fp, "%s %s", i ? "," : "", json_string_value(json_array_get(cols, i)));
    fputs("\n\n", fp);
}

static void baseline_md(FILE *fp, const struct cmp_baseline *bl)
{
    fputs("# benchrun compare --baseline\n\n- A (baseline): `", fp);
    wr_md_cell(fp, bl->a.dir);
    fputs("`\n- B: `", fp);
    wr_md_cell(fp, bl->b.dir);
    fputs("`\n\nChange = (B - A) / |A| x 100 %; labels show \"changed\" when they differ.\n\n", fp);
    md_whole(fp, bl);
    md_kernels(fp, bl);
    md_per_kernel(fp, bl);
    md_columns(fp, "Columns only in A", bl->cols_only_a);
    md_columns(fp, "Columns only in B", bl->cols_only_b);
}

/* ---- baseline.html --------------------------------------------------------- */

static void html_pair_row(FILE *fp, const char *name, const char *a, const char *b)
{
    struct pair p;
    make_pair(a, b, &p);
    fputs("<tr><td class=l>", fp);
    wr_html_esc(fp, name);
    fputs("</td><td>", fp);
    wr_html_esc(fp, p.a);
    fputs("</td><td>", fp);
    wr_html_esc(fp, p.b);
    fputs("</td><td>", fp);
    wr_html_esc(fp, p.change);
    fputs("</td></tr>\n", fp);
}

static const char table_head[] =
    "<table><tr><th class=l>%s</th><th>A</th><th>B</th><th>change</th></tr>\n";

static void html_only(FILE *fp, const char *title, const struct cmp_analysis *a,
                      const size_t *rows, size_t n)
{
    fprintf(fp, "<h3>%s (%zu)</h3>\n<ul>\n", title, n);
    for (size_t k = 0; k < n; k++) {
        fputs("<li title=\"", fp);
        wr_html_esc(fp, cmp_analysis_key(a, rows[k]));
        fputs("\">", fp);
        wr_html_esc(fp, kname(a, rows[k]));
        fputs("</li>\n", fp);
    }
    fputs("</ul>\n", fp);
}

static void html_kernels(FILE *fp, const struct cmp_baseline *bl)
{
    long tm = time_metric(bl);
    fprintf(fp, "<h2>Kernels</h2>\n<p>%zu in both (matched by kernel_full_name), %zu only in A, "
                "%zu only in B. Open a kernel for every metric.</p>\n",
            bl->nboth, bl->nonly_a, bl->nonly_b);
    for (size_t k = 0; k < bl->nboth; k++) {
        size_t ra = bl->both[k][0], rb = bl->both[k][1];
        struct pair p;
        make_pair(tm >= 0 ? cell_a(bl, ra, (size_t)tm) : "",
                  tm >= 0 ? cell_b(bl, rb, (size_t)tm) : "", &p);
        fputs("<details><summary>", fp);
        wr_html_esc(fp, kname(&bl->a, ra));
        fprintf(fp, ": %s %s &rarr; %s (%s)</summary>\n<p><code>", tm >= 0 ? bl->metric[tm] : "",
                p.a, p.b, p.change);
        wr_html_esc(fp, cmp_analysis_key(&bl->a, ra));
        fputs("</code></p>\n", fp);
        fprintf(fp, table_head, "metric");
        for (size_t m = 0; m < bl->nmetrics; m++)
            html_pair_row(fp, bl->metric[m], cell_a(bl, ra, m), cell_b(bl, rb, m));
        fputs("</table></details>\n", fp);
    }
    html_only(fp, "Only in A", &bl->a, bl->only_a, bl->nonly_a);
    html_only(fp, "Only in B", &bl->b, bl->only_b, bl->nonly_b);
}

static void baseline_html(FILE *fp, const struct cmp_baseline *bl)
{
    char ba[32], bb[32];
    wr_html_begin(fp, "benchrun compare --baseline");
    fputs("<ul><li>A (baseline): <code>", fp);
    wr_html_esc(fp, bl->a.dir);
    fputs("</code></li><li>B: <code>", fp);
    wr_html_esc(fp, bl->b.dir);
    fputs("</code></li></ul>\n<p>Change = (B - A) / |A| &times; 100 %.</p>\n"
          "<h2>Whole run</h2>\n", fp);
    fprintf(fp, table_head, "metric");
    for (size_t i = 0; i < bl->nwhole; i++) {
        const char *k = bl->whole_key[i];
        html_pair_row(fp, k, json_text(json_object_get(bl->whole_a, k), ba),
                      json_text(json_object_get(bl->whole_b, k), bb));
    }
    fputs("</table>\n", fp);
    html_kernels(fp, bl);
    fputs("</body></html>\n", fp);
}

static int write_one(const char *dir, const char *name, const struct cmp_baseline *bl,
                     void (*fn)(FILE *, const struct cmp_baseline *))
{
    struct fs_atomic a;
    char *path = fs_path_join(dir, name);
    int rc = fs_atomic_open(&a, path);
    if (rc == 0) {
        fn(a.fp, bl);
        if (ferror(a.fp)) {
            fs_atomic_abort(&a);
            rc = br_error("cannot write '%s'", path);
        } else {
            rc = fs_atomic_commit(&a);
        }
    }
    free(path);
    return rc;
}

int wr_baseline(const struct cmp_baseline *bl, const char *out_dir)
{
    if (fs_mkdir_p(out_dir) != 0)
        return -1;
    int rc = write_one(out_dir, "baseline.md", bl, baseline_md);
    if (rc == 0)
        rc = write_one(out_dir, "baseline.html", bl, baseline_html);
    if (rc == 0)
        rc = write_one(out_dir, "baseline.csv", bl, baseline_csv);
    return rc;
}
