/* wr_compare_html.c - dendrogram.svg and compare.html of `benchrun compare`
 * (wr_compare.h). The dendrogram is drawn root left, leaves right with their
 * labels (long workload names stay readable), in scipy's leaf order and
 * link colours (cmp_dendrogram); x is the merge height, the dashed line the
 * colour threshold. The page adds the distance heat map (leaf order, white 0
 * to dark blue at the largest distance), every workload's vector as bars on
 * one scale in its cluster's colour (wr_svg_bars), the nearest neighbours and
 * the inputs. Every label is escaped; no script, no external resource.
 */
#include "write/wr_compare.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "write/wr_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ROW = 18, TOP = 24, LEFT = 20, PLOT_W = 520 };
enum { HEAT_MAX = 150, BARS_MAX = 60, TABLE_MAX = 500 };   /* beyond: a note instead */


/* ---- dendrogram --------------------------------------------------------------- */

struct dlayout {
    double hmax;
    double *ypos, *hgt;   /* per cluster id (2n - 1) */
    size_t label_w;
};

static double dx(const struct dlayout *l, double h)
{
    return LEFT + (l->hmax > 0 ? 1 - h / l->hmax : 1) * PLOT_W;
}

static void layout(const struct wr_compare *c, struct dlayout *l)
{
    size_t n = c->s->n;
    l->ypos = xcalloc(2 * n - 1, sizeof(*l->ypos));
    l->hgt = xcalloc(2 * n - 1, sizeof(*l->hgt));
    l->hmax = 0, l->label_w = 0;
    for (size_t i = 0; i < n; i++) {
        l->ypos[i] = TOP + ROW * (double)c->d->pos[i] + ROW / 2.0;
        size_t len = strlen(c->s->w[i].label);
        l->label_w = len > l->label_w ? len : l->label_w;
    }
    for (size_t r = 0; r + 1 < n; r++) {   /* children always have lower ids */
        l->ypos[n + r] = (l->ypos[(size_t)c->Z[r][0]] + l->ypos[(size_t)c->Z[r][1]]) / 2;
        l->hgt[n + r] = c->Z[r][2];
        l->hmax = fmax(l->hmax, c->Z[r][2]);
    }
    l->label_w = l->label_w > 60 ? 60 : l->label_w;
}

static void d_axis(FILE *fp, const struct dlayout *l, double ybase, const struct wr_compare *c)
{
    char b[32];
    fprintf(fp, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#333'/>\n", LEFT, ybase,
            LEFT + PLOT_W, ybase);
    for (int k = 0; k <= 4; k++) {
        double h = l->hmax * k / 4, x = dx(l, h);
        fprintf(fp, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#333'/>"
                    "<text x='%.1f' y='%.1f' text-anchor='middle'>%s</text>\n", x, ybase, x,
                ybase + 4, x, ybase + 16, wr_html_num(h, b));
        if (l->hmax == 0)
            break;
    }
    fprintf(fp, "<text x='%d' y='%.1f'>merge height (%s distance, %s linkage)</text>\n", LEFT,
            ybase + 32, cmp_metric_name(c->metric), cmp_method_name(c->method));
    if (c->d->threshold > 0 && l->hmax > 0) {
        double x = dx(l, c->d->threshold);
        fprintf(fp, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%.1f' stroke='#888' "
                    "stroke-dasharray='4 3'/><text x='%.1f' y='%d' font-size='10' fill='#555'>"
                    "threshold %s</text>\n", x, TOP - 6, x, ybase, x + 3, TOP - 10,
                wr_html_num(c->d->threshold, b));
    }
}

void wr_compare_dendrogram(FILE *fp, const struct wr_compare *c, int standalone)
{
    struct dlayout l;
    char b[32];
    size_t n = c->s->n;
    layout(c, &l);
    double ybase = TOP + ROW * (double)n + 6;
    double w = LEFT + PLOT_W + 12 + 7.0 * (double)l.label_w, h = ybase + 44;
    fprintf(fp, "<svg %swidth='%.0f' height='%.0f' font-family='sans-serif' font-size='11'>\n",
            standalone ? "xmlns='http://www.w3.org/2000/svg' " : "", w, h);
    if (standalone)
        fprintf(fp, "<rect width='%.0f' height='%.0f' fill='#fff'/>\n", w, h);
    for (size_t r = 0; r + 1 < n; r++) {
        size_t a = (size_t)c->Z[r][0], bb = (size_t)c->Z[r][1];
        fprintf(fp, "<polyline fill='none' stroke='%s' stroke-width='1.5' points='%.1f,%.1f "
                    "%.1f,%.1f %.1f,%.1f %.1f,%.1f'><title>cluster %zu = %zu + %zu at %s "
                    "(%.0f workloads)</title></polyline>\n",
                cmp_color_hex(c->d->link_color[r]), dx(&l, l.hgt[a]), l.ypos[a], dx(&l, c->Z[r][2]),
                l.ypos[a], dx(&l, c->Z[r][2]), l.ypos[bb], dx(&l, l.hgt[bb]), l.ypos[bb], n + r, a,
                bb, wr_html_num(c->Z[r][2], b), c->Z[r][3]);
    }
    for (size_t p = 0; p < n; p++) {
        size_t i = c->d->leaves[p];
        fprintf(fp, "<text x='%d' y='%.1f' fill='%s'><title>", LEFT + PLOT_W + 6, l.ypos[i] + 4,
                cmp_color_hex(c->d->leaf_color[i]));
        wr_html_esc(fp, c->s->w[i].path);
        fputs("</title>", fp);
        wr_html_esc(fp, c->s->w[i].label);
        fputs("</text>\n", fp);
    }
    d_axis(fp, &l, ybase, c);
    fputs("</svg>\n", fp);
    free(l.ypos);
    free(l.hgt);
}

int wr_compare_svg(const struct wr_compare *c, const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) != 0)
        return -1;
    fputs("<?xml version='1.0' encoding='UTF-8'?>\n", a.fp);
    wr_compare_dendrogram(a.fp, c, 1);
    if (ferror(a.fp)) {
        fs_atomic_abort(&a);
        return br_error("cannot write '%s'", path);
    }
    return fs_atomic_commit(&a);
}

/* ---- heat map --------------------------------------------------------------------- */

/* At most max bytes of s, not splitting a UTF-8 sequence. */
static char *utf8_prefix(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return xstrdup(s);
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return xstrndup(s, max);
}

/* White (0) to dark blue (1), as matplotlib's "Blues" ends. */
static void ramp(double t, char *hex)
{
    static const int lo[3] = { 247, 251, 255 }, hi[3] = { 8, 48, 107 };
    int rgb[3];
    t = isfinite(t) ? fmin(fmax(t, 0), 1) : 0;
    for (int k = 0; k < 3; k++)
        rgb[k] = (int)lround(lo[k] + (hi[k] - lo[k]) * t);
    snprintf(hex, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static void heat_map(FILE *fp, const struct wr_compare *c)
{
    size_t n = c->s->n;
    char hex[8], b[32];
    fprintf(fp, "<h2>Distance heat map</h2>\n");
    if (n > HEAT_MAX) {
        fprintf(fp, "<p>%zu workloads: more than %d, not drawn (distances.csv has the "
                    "matrix).</p>\n", n, HEAT_MAX);
        return;
    }
    double dmax = 0, cs = fmax(4, fmin(16, 640.0 / (double)n));
    for (size_t k = 0; k < n * (n - 1) / 2; k++)
        dmax = fmax(dmax, c->y[k]);
    size_t chars = 0;   /* row labels when the rows are tall enough to read */
    for (size_t i = 0; cs >= 8 && i < n; i++)
        chars = strlen(c->s->w[i].label) > chars ? strlen(c->s->w[i].label) : chars;
    chars = chars > 28 ? 28 : chars;
    double lm = chars ? 8 + 6.0 * (double)chars : 0;
    fprintf(fp, "<p>%s distance in dendrogram order, white 0 to dark blue %s (the largest); "
                "hover a cell for the pair.</p>\n", cmp_metric_name(c->metric),
            wr_html_num(dmax, b));
    fprintf(fp, "<svg width='%.0f' height='%.0f' font-size='%.0f'>\n", lm + cs * (double)n + 2,
            cs * (double)n + 2, fmin(11, cs - 1));
    for (size_t p = 0; p < n; p++) {
        size_t i = c->d->leaves[p];
        if (chars) {
            fprintf(fp, "<text x='%.1f' y='%.1f' text-anchor='end'>", lm - 4,
                    1 + cs * ((double)p + 0.75));
            char *cut = utf8_prefix(c->s->w[i].label, chars);
            wr_html_esc(fp, cut);
            free(cut);
            fputs("</text>\n", fp);
        }
        for (size_t q = 0; q < n; q++) {
            size_t j = c->d->leaves[q];
            double d = wr_cmp_dist(c, i, j);
            ramp(dmax > 0 ? d / dmax : 0, hex);
            fprintf(fp, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'><title>",
                    lm + 1 + cs * (double)q, 1 + cs * (double)p, cs, cs, hex);
            wr_html_esc(fp, c->s->w[i].label);
            fputs(" / ", fp);
            wr_html_esc(fp, c->s->w[j].label);
            fprintf(fp, ": %s</title></rect>\n", wr_html_num(d, b));
        }
    }
    fputs("</svg>\n", fp);
}

/* ---- vectors ---------------------------------------------------------------------- */

static void vector_bars(FILE *fp, const struct wr_compare *c)
{
    size_t n = c->s->n;
    fprintf(fp, "<h2>Vectors (%s)</h2>\n", c->s->kind);
    if (n > BARS_MAX) {
        fprintf(fp, "<p>%zu workloads: more than %d, not drawn (app_vectors.json has the "
                    "values).</p>\n", n, BARS_MAX);
        return;
    }
    double ymax = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < c->s->dim; k++)
            ymax = fmax(ymax, c->s->w[i].v[k]);
    fputs("<p>In dendrogram order, one scale for all, in each workload's cluster colour; "
          "hover a bar for its bin.</p>\n<div>\n", fp);
    for (size_t p = 0; p < n; p++) {
        size_t i = c->d->leaves[p];
        wr_svg_bars(fp, c->s->w[i].label, c->s->unit, c->s->w[i].v, c->s->dim, c->s->edges,
                    ymax, cmp_color_hex(c->d->leaf_color[i]));
    }
    fputs("</div>\n", fp);
}

/* ---- tables ----------------------------------------------------------------------- */

static void label_cell(FILE *fp, const struct wr_compare *c, size_t i)
{
    fprintf(fp, "<td class=l><span style='color:%s'>&#9632;</span> ",
            cmp_color_hex(c->d->leaf_color[i]));
    wr_html_esc(fp, c->s->w[i].label);
    fputs("</td>", fp);
}

static void query_table(FILE *fp, const struct wr_compare *c)
{
    char b[32];
    if (c->query < 0)
        return;
    fputs("<h2>Nearest to ", fp);
    wr_html_esc(fp, c->s->w[c->query].label);
    fprintf(fp, "</h2>\n<table><tr><th>rank</th><th class=l>workload</th><th>%s distance</th>"
                "</tr>\n", cmp_metric_name(c->metric));
    for (size_t i = 0; i < c->nnear; i++) {
        fprintf(fp, "<tr><td>%zu</td>", i + 1);
        label_cell(fp, c, c->near[i]);
        double d = wr_cmp_dist(c, (size_t)c->query, c->near[i]);
        fprintf(fp, "<td>%s</td></tr>\n", wr_html_num(d, b));
    }
    fputs("</table>\n", fp);
}

static void neighbours_table(FILE *fp, const struct wr_compare *c)
{
    size_t near[WR_CMP_NEIGHBOURS];
    char b[32];
    fputs("<h2>Nearest neighbours</h2>\n<table><tr><th class=l>workload</th><th>cluster</th>", fp);
    for (int k = 1; k <= WR_CMP_NEIGHBOURS; k++)
        fprintf(fp, "<th class=l>nearest %d</th><th>distance</th>", k);
    fputs("</tr>\n", fp);
    for (size_t p = 0; p < c->s->n && p < TABLE_MAX; p++) {
        size_t i = c->d->leaves[p], k = cmp_nearest(c->y, c->s->n, i, WR_CMP_NEIGHBOURS, near);
        fputs("<tr>", fp);
        label_cell(fp, c, i);
        fprintf(fp, "<td>%zu</td>", c->d->cluster[i]);
        for (size_t j = 0; j < k; j++) {
            label_cell(fp, c, near[j]);
            fprintf(fp, "<td>%s</td>", wr_html_num(wr_cmp_dist(c, i, near[j]), b));
        }
        fputs("</tr>\n", fp);
    }
    fputs("</table>\n", fp);
    if (c->s->n > TABLE_MAX)
        fprintf(fp, "<p>First %d of %zu (compare.json lists all).</p>\n", TABLE_MAX, c->s->n);
}

static void whole_value(FILE *fp, const json_t *v)
{
    char b[32];
    if (json_is_number(v))
        fprintf(fp, "<td>%s</td>", wr_html_num(json_number_value(v), b));
    else if (json_is_string(v)) {
        fputs("<td class=l>", fp);
        wr_html_esc(fp, json_string_value(v));
        fputs("</td>", fp);
    } else {
        fputs("<td>\xe2\x80\x94</td>", fp);
    }
}

static void inputs_table(FILE *fp, const struct wr_compare *c)
{
    bool any = false;
    for (size_t i = 0; i < c->s->n; i++)
        any = any || c->s->w[i].whole_run;
    fputs("<h2>Inputs</h2>\n<div class=scroll><table><tr><th class=l>workload</th>"
          "<th>cluster</th><th class=l>path</th><th class=l>vectors</th>", fp);
    for (size_t k = 0; any && wr_cmp_whole_keys[k]; k++)
        fprintf(fp, "<th>%s</th>", wr_cmp_whole_keys[k]);
    fputs("</tr>\n", fp);
    for (size_t i = 0; i < c->s->n && i < TABLE_MAX; i++) {
        const struct cmp_workload *w = &c->s->w[i];
        fputs("<tr>", fp);
        label_cell(fp, c, i);
        fprintf(fp, "<td>%zu</td><td class=l><code>", c->d->cluster[i]);
        wr_html_esc(fp, w->path);
        fputs("</code></td><td class=l>", fp);
        wr_html_esc(fp, w->origin);
        fputs("</td>", fp);
        for (size_t k = 0; any && wr_cmp_whole_keys[k]; k++)
            whole_value(fp, json_object_get(w->whole_run, wr_cmp_whole_keys[k]));
        fputs("</tr>\n", fp);
    }
    fputs("</table></div>\n", fp);
    if (any)
        fputs("<p>Whole-run values from each attached analysis (summary.json "
              "whole_run).</p>\n", fp);
}

int wr_compare_html(const struct wr_compare *c, const char *path)
{
    struct fs_atomic a;
    char b[32];
    if (fs_atomic_open(&a, path) != 0)
        return -1;
    FILE *fp = a.fp;
    wr_html_begin(fp, "benchrun compare");
    fprintf(fp, "<p>%zu workloads; vector <code>%s</code> (%zu entries%s", c->s->n, c->s->kind,
            c->s->dim, c->s->unit ? ", " : "");
    wr_html_esc(fp, c->s->unit);
    fprintf(fp, "); distance %s, linkage %s (as scipy's pdist and linkage); %zu cluster(s) at "
                "the colour threshold %s (0.7 &times; the largest merge height).</p>\n",
            cmp_metric_name(c->metric), cmp_method_name(c->method), c->d->nclusters,
            wr_html_num(c->d->threshold, b));
    query_table(fp, c);
    fputs("<h2>Dendrogram</h2>\n", fp);
    wr_compare_dendrogram(fp, c, 0);
    heat_map(fp, c);
    vector_bars(fp, c);
    neighbours_table(fp, c);
    inputs_table(fp, c);
    fputs("</body></html>\n", fp);
    if (ferror(fp)) {
        fs_atomic_abort(&a);
        return br_error("cannot write '%s'", path);
    }
    return fs_atomic_commit(&a);
}
