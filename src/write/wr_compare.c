/* wr_compare.c - the data files of `benchrun compare` (see wr_compare.h):
 * app_vectors.json, distances.csv, linkage.csv, compare.json and the
 * Markdown summary compare.md; the SVG and HTML are in wr_compare_html.c. */
#include "write/wr_compare.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/jsonw.h"
#include "write/analysis.h"
#include "write/wr_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const wr_cmp_whole_keys[] = {
    "time_ms", "GPU_busy_pct", "TFLOPs_all", "compute_peak_pct", "mem_BW_TBps",
    "mem_BW_peak_pct", "dominant_precision", "bound_mix", NULL,
};

const char *wr_exact_num(double v, char *buf)
{
    if (isnan(v))
        return strcpy(buf, "");
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

double wr_cmp_dist(const struct wr_compare *c, size_t i, size_t j)
{
    return i == j ? 0 : c->y[cmp_condensed_index(c->s->n, i, j)];
}

static int write_json_file(const char *dir, const char *name, struct strbuf *sb)
{
    char *path = fs_path_join(dir, name);
    sb_addc(sb, '\n');
    int rc = fs_write_atomic(path, sb->buf, sb->len);
    free(path);
    return rc;
}

/* ---- app_vectors.json ------------------------------------------------------ */

static int app_vectors(const struct wr_compare *c)
{
    struct strbuf sb;
    struct jsonw w;
    sb_init(&sb);
    jw_init(&w, &sb);
    jw_obj_begin(&w);
    for (size_t i = 0; i < c->s->n; i++) {
        jw_key(&w, c->s->w[i].label);
        jw_arr_begin_inline(&w);
        for (size_t k = 0; k < c->s->dim; k++)
            jw_num(&w, c->s->w[i].v[k]);
        jw_arr_end(&w);
    }
    jw_obj_end(&w);
    int rc = write_json_file(c->out_dir, "app_vectors.json", &sb);
    sb_release(&sb);
    return rc;
}

/* ---- CSV ---------------------------------------------------------------------- */

static int out_open(const struct wr_compare *c, const char *name, struct fs_atomic *a)
{
    char *path = fs_path_join(c->out_dir, name);
    int rc = fs_atomic_open(a, path);
    free(path);
    return rc;
}

static int out_close(struct fs_atomic *a)
{
    if (ferror(a->fp)) {
        int rc = br_error("cannot write '%s'", a->path);
        fs_atomic_abort(a);
        return rc;
    }
    return fs_atomic_commit(a);
}

static int distances_csv(const struct wr_compare *c)
{
    struct fs_atomic a;
    if (out_open(c, "distances.csv", &a) != 0)
        return -1;
    fputs("label", a.fp);
    for (size_t j = 0; j < c->s->n; j++) {
        fputc(',', a.fp);
        wr_csv_field(a.fp, c->s->w[j].label);
    }
    fputc('\n', a.fp);
    for (size_t i = 0; i < c->s->n; i++) {
        wr_csv_field(a.fp, c->s->w[i].label);
        for (size_t j = 0; j < c->s->n; j++)
            fprintf(a.fp, ",%.17g", wr_cmp_dist(c, i, j));
        fputc('\n', a.fp);
    }
    return out_close(&a);
}

static const char *leaf_label(const struct wr_compare *c, double id)
{
    return (size_t)id < c->s->n ? c->s->w[(size_t)id].label : "";
}

static int linkage_csv(const struct wr_compare *c)
{
    struct fs_atomic a;
    char b[32];
    size_t n = c->s->n;
    if (out_open(c, "linkage.csv", &a) != 0)
        return -1;
    fputs("cluster_a,cluster_b,height,size,cluster,color,label_a,label_b\n", a.fp);
    for (size_t r = 0; r + 1 < n; r++) {
        fprintf(a.fp, "%.0f,%.0f,%s,%.0f,%zu,%s,", c->Z[r][0], c->Z[r][1],
                wr_exact_num(c->Z[r][2], b), c->Z[r][3], n + r,
                cmp_color_name(c->d->link_color[r]));
        wr_csv_field(a.fp, leaf_label(c, c->Z[r][0]));
        fputc(',', a.fp);
        wr_csv_field(a.fp, leaf_label(c, c->Z[r][1]));
        fputc('\n', a.fp);
    }
    return out_close(&a);
}

/* ---- compare.json ------------------------------------------------------------- */

static void json_neighbours(struct jsonw *w, const struct wr_compare *c, size_t q,
                            const size_t *idx, size_t k)
{
    jw_arr_begin(w);
    for (size_t i = 0; i < k; i++) {
        jw_obj_begin(w);
        jw_kstr(w, "label", c->s->w[idx[i]].label);
        jw_knum(w, "distance", wr_cmp_dist(c, q, idx[i]));
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void json_inputs(struct jsonw *w, const struct wr_compare *c)
{
    size_t near[WR_CMP_NEIGHBOURS];
    jw_key(w, "workloads");
    jw_arr_begin(w);
    for (size_t i = 0; i < c->s->n; i++) {
        const struct cmp_workload *wl = &c->s->w[i];
        jw_obj_begin(w);
        jw_kstr(w, "label", wl->label);
        jw_kstr(w, "path", wl->path);
        jw_kstr(w, "vectors", wl->origin);
        jw_kstr(w, "analysis", wl->analysis);
        jw_kint(w, "cluster", (int64_t)c->d->cluster[i]);
        jw_kstr(w, "color", cmp_color_name(c->d->leaf_color[i]));
        jw_key(w, "nearest");
        json_neighbours(w, c, i, near, cmp_nearest(c->y, c->s->n, i, WR_CMP_NEIGHBOURS, near));
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static int compare_json(const struct wr_compare *c)
{
    struct strbuf sb;
    struct jsonw w;
    sb_init(&sb);
    jw_init(&w, &sb);
    jw_obj_begin(&w);
    jw_kstr(&w, "vector", c->s->kind);
    jw_kint(&w, "entries", (int64_t)c->s->dim);
    jw_kstr(&w, "unit", c->s->unit);
    jw_kstr(&w, "metric", cmp_metric_name(c->metric));
    jw_kstr(&w, "method", cmp_method_name(c->method));
    jw_knum(&w, "color_threshold", c->d->threshold);
    jw_kstr(&w, "color_threshold_rule",
            "0.7 x the largest merge height (scipy dendrogram default)");
    jw_key(&w, "leaves");
    jw_arr_begin(&w);
    for (size_t p = 0; p < c->s->n; p++)
        jw_str(&w, c->s->w[c->d->leaves[p]].label);
    jw_arr_end(&w);
    jw_kint(&w, "clusters", (int64_t)c->d->nclusters);
    json_inputs(&w, c);
    jw_key(&w, "nearest");
    if (c->query >= 0) {
        jw_obj_begin(&w);
        jw_kstr(&w, "query", c->s->w[c->query].label);
        jw_key(&w, "neighbours");
        json_neighbours(&w, c, (size_t)c->query, c->near, c->nnear);
        jw_obj_end(&w);
    } else {
        jw_null(&w);
    }
    jw_obj_end(&w);
    int rc = write_json_file(c->out_dir, "compare.json", &sb);
    sb_release(&sb);
    return rc;
}

/* ---- compare.md --------------------------------------------------------------- */

enum { MD_MAX_ROWS = 100 };   /* longer tables are cut; compare.json has all */

void wr_md_cell(FILE *fp, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '|')
            fputs("\\|", fp);
        else
            fputc(*p == '\n' || *p == '\r' ? ' ' : *p, fp);
    }
}

static void md_clusters(FILE *fp, const struct wr_compare *c)
{
    fprintf(fp, "## Clusters at the colour threshold\n\n%zu cluster(s): the subtrees below "
                "the threshold (one colour each); a workload alone is C0.\n\n"
                "| cluster | colour | workloads |\n|---|---|---|\n", c->d->nclusters);
    for (size_t k = 1; k <= c->d->nclusters && k <= MD_MAX_ROWS; k++) {
        fprintf(fp, "| %zu | %s | ", k, cmp_color_name(c->d->cluster_color[k]));
        bool first = true;
        for (size_t p = 0; p < c->s->n; p++) {
            size_t i = c->d->leaves[p];
            if (c->d->cluster[i] != k)
                continue;
            fputs(first ? "" : ", ", fp);
            wr_md_cell(fp, c->s->w[i].label);
            first = false;
        }
        fputs(" |\n", fp);
    }
    fputc('\n', fp);
}

static void md_query(FILE *fp, const struct wr_compare *c)
{
    char b[32];
    if (c->query < 0)
        return;
    fputs("## Nearest to ", fp);
    wr_md_cell(fp, c->s->w[c->query].label);
    fprintf(fp, "\n\n| rank | workload | %s distance |\n|---|---|---|\n",
            cmp_metric_name(c->metric));
    for (size_t i = 0; i < c->nnear; i++) {
        fprintf(fp, "| %zu | ", i + 1);
        wr_md_cell(fp, c->s->w[c->near[i]].label);
        fprintf(fp, " | %s |\n", wr_html_num(wr_cmp_dist(c, (size_t)c->query, c->near[i]), b));
    }
    fputc('\n', fp);
}

static void md_neighbours(FILE *fp, const struct wr_compare *c)
{
    size_t near[WR_CMP_NEIGHBOURS];
    char b[32];
    fputs("## Nearest neighbours\n\n| workload | cluster |", fp);
    for (int k = 1; k <= WR_CMP_NEIGHBOURS; k++)
        fprintf(fp, " nearest %d | distance |", k);
    fputs("\n|---|---|", fp);
    for (int k = 0; k < WR_CMP_NEIGHBOURS; k++)
        fputs("---|---|", fp);
    fputc('\n', fp);
    for (size_t p = 0; p < c->s->n && p < MD_MAX_ROWS; p++) {
        size_t i = c->d->leaves[p];
        size_t k = cmp_nearest(c->y, c->s->n, i, WR_CMP_NEIGHBOURS, near);
        fputs("| ", fp);
        wr_md_cell(fp, c->s->w[i].label);
        fprintf(fp, " | %zu |", c->d->cluster[i]);
        for (size_t j = 0; j < WR_CMP_NEIGHBOURS; j++) {
            if (j < k) {
                fputc(' ', fp);
                wr_md_cell(fp, c->s->w[near[j]].label);
                fprintf(fp, " | %s |", wr_html_num(wr_cmp_dist(c, i, near[j]), b));
            } else {
                fputs(" | |", fp);
            }
        }
        fputc('\n', fp);
    }
    if (c->s->n > MD_MAX_ROWS)
        fprintf(fp, "\n(first %d of %zu in dendrogram order; compare.json lists all)\n",
                MD_MAX_ROWS, c->s->n);
    fputc('\n', fp);
}

static void md_inputs(FILE *fp, const struct wr_compare *c)
{
    fputs("## Inputs\n\n| workload | path | vectors | analysis |\n|---|---|---|---|\n", fp);
    for (size_t i = 0; i < c->s->n && i < MD_MAX_ROWS; i++) {
        const struct cmp_workload *w = &c->s->w[i];
        fputs("| ", fp);
        wr_md_cell(fp, w->label);
        fputs(" | ", fp);
        wr_md_cell(fp, w->path);
        fputs(" | ", fp);
        wr_md_cell(fp, w->origin);
        fputs(" | ", fp);
        wr_md_cell(fp, w->analysis ? w->analysis : "");
        fputs(" |\n", fp);
    }
    if (c->s->n > MD_MAX_ROWS)
        fprintf(fp, "\n(first %d of %zu; compare.json lists all)\n", MD_MAX_ROWS, c->s->n);
    fputc('\n', fp);
}

static int compare_md(const struct wr_compare *c)
{
    struct fs_atomic a;
    char b[32];
    if (out_open(c, "compare.md", &a) != 0)
        return -1;
    FILE *fp = a.fp;
    fprintf(fp, "# benchrun compare\n\n%zu workloads; vector %s (%zu entries", c->s->n, c->s->kind,
            c->s->dim);
    if (c->s->unit)
        fprintf(fp, ", %s", c->s->unit);
    fprintf(fp, "); distance %s (scipy pdist), linkage %s (scipy linkage); colour threshold "
                "0.7 x the largest merge height = %s.\n\n", cmp_metric_name(c->metric),
            cmp_method_name(c->method), wr_html_num(c->d->threshold, b));
    md_query(fp, c);
    md_clusters(fp, c);
    md_neighbours(fp, c);
    md_inputs(fp, c);
    fputs("Files: app_vectors.json (the Minos dendrogram.py input), distances.csv, linkage.csv "
          "(scipy's Z), dendrogram.svg, compare.html, compare.json.\n", fp);
    return out_close(&a);
}

int wr_compare(const struct wr_compare *c)
{
    if (fs_mkdir_p(c->out_dir) != 0)
        return -1;
    char *svg = fs_path_join(c->out_dir, "dendrogram.svg");
    char *html = fs_path_join(c->out_dir, "compare.html");
    int rc = app_vectors(c);
    if (rc == 0)
        rc = distances_csv(c);
    if (rc == 0)
        rc = linkage_csv(c);
    if (rc == 0)
        rc = compare_json(c);
    if (rc == 0)
        rc = compare_md(c);
    if (rc == 0)
        rc = wr_compare_svg(c, svg);
    if (rc == 0)
        rc = wr_compare_html(c, html);
    free(svg);
    free(html);
    return rc;
}
