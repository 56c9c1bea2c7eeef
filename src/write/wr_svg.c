/* wr_svg.c - the inline SVG plots of report.html (wr_html.h): the roofline
 * (log-log, arithmetic intensity AI_all FLOP/B vs achieved TFLOPs_all, memory
 * roof PEAK_MEM_BW x AI, compute roofs at each top kernel's peak_TFLOPs_mix),
 * bar charts of the sampling_vectors.json vectors (docs/design.md §9), and the
 * min/max decimator the timeline (wr_timeline.c) shares.
 * Units: TB/s x FLOP/B = TFLOP/s. */
#include "write/wr_html.h"

#include "model/series.h"
#include "util/xalloc.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const wr_colors[WR_NCOLORS] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                             "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };

size_t wr_decimate(const double *x, const double *y, size_t n, double x0, double x1, size_t nb,
                   double *ox, double *oy)
{
    struct series_dec d;
    series_dec_init(&d, x0, x1, nb, ox, oy);
    for (size_t i = 0; i < n; i++)
        series_dec_push(&d, x[i], y[i]);
    series_dec_flush(&d);
    return d.k;
}

/* ---- roofline ---- */

struct axis {
    double l0, l1;      /* log10 range */
    double p0, p1;      /* pixel range */
};

static double lpos(const struct axis *a, double v)
{
    return a->p0 + (log10(v) - a->l0) / (a->l1 - a->l0) * (a->p1 - a->p0);
}

static void log_ticks(FILE *fp, const struct axis *a, bool xaxis, double o0, double o1)
{
    for (double d = a->l0; d <= a->l1 + 1e-9; d += 1) {
        double p = lpos(a, pow(10, d));
        if (xaxis)
            fprintf(fp, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>"
                        "<text x='%.1f' y='%.1f' text-anchor='middle'>%g</text>\n",
                    p, o0, p, o1, p, o0 + 16, pow(10, d));
        else
            fprintf(fp, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>"
                        "<text x='%.1f' y='%.1f' text-anchor='end'>%g</text>\n",
                    o0, p, o1, p, o0 - 4, p + 4, pow(10, d));
    }
}

struct rpt {
    uint32_t row;
    double ai, tf, peak;
    int rank;     /* 1.. in time-share order; 0 = TOTAL */
};

static void range_of(const struct rpt *p, size_t n, double mem, struct axis *x, struct axis *y)
{
    double xa = INFINITY, xb = 0, ya = INFINITY, yb = 0;
    for (size_t i = 0; i < n; i++) {
        xa = fmin(xa, p[i].ai), xb = fmax(xb, p[i].ai);
        ya = fmin(ya, p[i].tf), yb = fmax(yb, p[i].tf);
        if (p[i].peak > 0) {
            yb = fmax(yb, p[i].peak);
            if (mem > 0)
                xa = fmin(xa, p[i].peak / mem), xb = fmax(xb, p[i].peak / mem);
        }
    }
    x->l0 = floor(log10(xa)), x->l1 = ceil(log10(xb));
    y->l0 = floor(log10(ya)), y->l1 = ceil(log10(yb * 1.5));
    if (x->l1 <= x->l0)
        x->l1 = x->l0 + 1;
    if (y->l1 <= y->l0)
        y->l1 = y->l0 + 1;
}

static void roofs(FILE *fp, const struct rpt *p, size_t n, double mem, const struct axis *x,
                  const struct axis *y)
{
    double xe = pow(10, x->l1), drawn[8], labely[8], me = 0;
    size_t nd = 0;
    for (size_t i = 0; i < n; i++)
        me = fmax(me, p[i].peak > 0 && mem > 0 ? p[i].peak / mem : 0);
    if (mem > 0) {
        double xs = pow(10, x->l0), xm = me > 0 ? me : xe;
        fprintf(fp, "<polyline clip-path='url(#rfclip)' fill='none' stroke='#444' stroke-width='2' "
                    "points='%.1f,%.1f %.1f,%.1f'><title>memory roof: PEAK_MEM_BW %g TB/s x FLOP/B"
                    "</title></polyline>\n", lpos(x, xs), lpos(y, mem * xs), lpos(x, xm),
                lpos(y, mem * xm), mem);
    }
    for (size_t i = 0; i < n && nd < 8; i++) {
        bool seen = !(p[i].peak > 0);
        for (size_t j = 0; j < nd && !seen; j++)
            seen = fabs(drawn[j] - p[i].peak) <= 0.01 * drawn[j];
        if (seen)
            continue;
        drawn[nd++] = p[i].peak;
        double xs = mem > 0 ? p[i].peak / mem : pow(10, x->l0), yy = lpos(y, p[i].peak);
        bool room = true;   /* a label only where it does not overlap one drawn */
        for (size_t q = 0; q + 1 < nd; q++)
            room = room && fabs(yy - labely[q]) >= 11;
        labely[nd - 1] = room ? yy : -1e9;
        fprintf(fp, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#888' "
                    "stroke-dasharray='6 3'><title>compute roof: peak_TFLOPs_mix %.4g TFLOP/s"
                    "</title></line>\n", lpos(x, xs), yy, lpos(x, xe), yy, p[i].peak);
        if (room)
            fprintf(fp, "<text x='%.1f' y='%.1f' fill='#666' font-size='10' text-anchor='end'>"
                        "peak %.4g TF/s</text>\n", lpos(x, xe) - 3, yy - 3, p[i].peak);
    }
}

static void dot(FILE *fp, const struct mx_result *res, const struct rpt *p, const struct axis *x,
                const struct axis *y, int rank)
{
    char b[3][32];
    bool tot = p->row == res->nk;
    double cx = lpos(x, p->ai), cy = lpos(y, p->tf);
    int bm = mx_metric_index(res->ap, "bound_mix");
    const char *bound = bm >= 0 ? mx_label(res, p->row, bm) : NULL;
    if (tot)
        fprintf(fp, "<rect class='tdot' x='%.1f' y='%.1f' width='12' height='12' fill='#000' "
                    "transform='rotate(45 %.1f %.1f)'><title>", cx - 6, cy - 6, cx, cy);
    else
        fprintf(fp, "<circle class='kdot' cx='%.1f' cy='%.1f' r='5' fill='%s' fill-opacity='.8'>"
                    "<title>#%d ", cx, cy, wr_colors[(size_t)rank % WR_NCOLORS], rank);
    wr_html_esc(fp, tot ? "TOTAL" : res->shortname[p->row]);
    fprintf(fp, ": %s FLOP/B, %s TFLOP/s, peak %s TF/s, bound ", wr_html_num(p->ai, b[0]),
            wr_html_num(p->tf, b[1]), wr_html_num(p->peak, b[2]));
    wr_html_esc(fp, bound && *bound ? bound : "\xe2\x80\x94");
    fputs(tot ? "</title></rect>" : "</title></circle>", fp);
    fprintf(fp, "<text x='%.1f' y='%.1f' font-size='10'>%s</text>\n", cx + 7, cy - 5,
            tot ? "TOTAL" : wr_html_num(rank, b[0]));
}

static void off_list(FILE *fp, const struct mx_result *res, const uint32_t *off, size_t n)
{
    if (!n)
        return;
    fputs("<p>Not on the roofline (no FLOPs or no bytes):</p>\n<ul class=offroof>\n", fp);
    for (size_t i = 0; i < n; i++) {
        fputs("<li>", fp);
        wr_html_esc(fp, off[i] == res->nk ? "TOTAL" : res->shortname[off[i]]);
        fputs("</li>\n", fp);
    }
    fputs("</ul>\n", fp);
}

void wr_svg_roofline(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    (void)in;
    int mai = mx_metric_index(res->ap, "AI_all"), mtf = mx_metric_index(res->ap, "TFLOPs_all");
    int mpk = mx_metric_index(res->ap, "peak_TFLOPs_mix");
    double mem = arch_const(res->ap, "PEAK_MEM_BW");
    struct rpt *p = xcalloc((size_t)res->ntop + 1, sizeof(*p));
    uint32_t *off = xcalloc((size_t)res->ntop + 1, sizeof(*off));
    size_t np = 0, noff = 0;
    for (uint32_t i = 0; i <= res->ntop; i++) {
        uint32_t r = i == res->ntop ? res->nk : res->order[i];
        struct rpt q = { r, mx_value(res, r, mai), mx_value(res, r, mtf), mx_value(res, r, mpk),
                          i == res->ntop ? 0 : (int)i + 1 };
        if (isfinite(q.ai) && q.ai > 0 && isfinite(q.tf) && q.tf > 0)
            p[np++] = q;
        else
            off[noff++] = r;
    }
    fputs("<h2 id=roofline>Roofline</h2>\n<p>Top kernels (numbered by time share) and TOTAL (diamond): "
          "arithmetic intensity AI_all (FLOP/B, x) vs achieved TFLOPs_all (TFLOP/s, y), log-log; "
          "solid: memory roof PEAK_MEM_BW x AI; dashed: compute roof peak_TFLOPs_mix of the "
          "kernels' precision mixes. Hover a dot for its values.</p>\n", fp);
    if (np) {
        struct axis x = { 0, 0, 70, 880 }, y = { 0, 0, 410, 20 };
        range_of(p, np, mem, &x, &y);
        fputs("<svg class=roofline width='900' height='460' "
              "font-size='12'>\n<defs><clipPath id='rfclip'><rect x='70' y='20' width='810' "
              "height='390'/></clipPath></defs>\n", fp);
        log_ticks(fp, &x, true, 410, 20);
        log_ticks(fp, &y, false, 70, 880);
        fputs("<rect x='70' y='20' width='810' height='390' fill='none' stroke='#999'/>\n"
              "<text x='475' y='450' text-anchor='middle'>arithmetic intensity (FLOP/B)</text>\n"
              "<text x='16' y='215' text-anchor='middle' transform='rotate(-90 16 215)'>"
              "TFLOP/s</text>\n", fp);
        roofs(fp, p, np, mem, &x, &y);
        for (size_t i = 0; i < np; i++)
            dot(fp, res, &p[i], &x, &y, p[i].rank);
        fputs("</svg>\n", fp);
    }
    off_list(fp, res, off, noff);
    free(p);
    free(off);
}

/* ---- sampling_vectors.json ---- */

void wr_svg_bars(FILE *fp, const char *name, const char *unit, const double *v, size_t n,
                 const double *edges, double ymax, const char *fill)
{
    double mx = ymax, w = 340.0 / (double)(n ? n : 1);
    char b[3][32];
    for (size_t i = 0; ymax <= 0 && i < n; i++)
        mx = fmax(mx, v[i]);
    fputs("<figure><svg class=vector width='380' height='170' font-size='10'>\n", fp);
    for (size_t i = 0; i < n; i++) {
        double h = mx > 0 ? fmax(v[i], 0) / mx * 120 : 0;
        fprintf(fp, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'><title>", 30 + i * w,
                140 - h, fmax(w - 1, 0.5), h, fill);
        if (edges)
            fprintf(fp, "[%s, %s)", wr_html_num(edges[i], b[0]), wr_html_num(edges[i + 1], b[1]));
        else
            fprintf(fp, "entry %zu", i);
        fprintf(fp, ": %s</title></rect>\n", wr_html_num(v[i], b[2]));
    }
    fprintf(fp, "<line x1='30' y1='140' x2='370' y2='140' stroke='#333'/>"
                "<text x='2' y='24'>%s</text>", wr_html_num(mx, b[2]));
    if (edges)
        fprintf(fp, "<text x='30' y='155'>%s</text><text x='370' y='155' text-anchor='end'>%s</text>",
                wr_html_num(edges[0], b[0]), wr_html_num(edges[n], b[1]));
    fputs("</svg><figcaption>", fp);
    wr_html_esc(fp, name);
    fputs(" (", fp);
    wr_html_esc(fp, unit ? unit : "?");
    fputs(")</figcaption></figure>\n", fp);
}

static void bars(FILE *fp, const char *name, json_t *vec, json_t *desc)
{
    json_t *je = json_object_get(desc, "edges");
    size_t n = json_array_size(vec);
    double *v = xcalloc(n + 1, sizeof(*v)), *e = xcalloc(n + 1, sizeof(*e));
    for (size_t i = 0; i < n; i++)
        v[i] = json_number_value(json_array_get(vec, i));
    for (size_t i = 0; i <= n; i++)
        e[i] = json_number_value(json_array_get(je, i));
    wr_svg_bars(fp, name, json_string_value(json_object_get(desc, "unit")), v, n, e, 0, "#1f77b4");
    free(v);
    free(e);
}

void wr_svg_vectors(FILE *fp, json_t *root)
{
    json_t *bins = json_object_get(json_object_get(root, "description"), "bins"), *v;
    const char *key;
    fputs("<h2>Telemetry vectors (sampling_vectors.json)</h2>\n<p>Fraction of the in-window "
          "samples per bin; hover a bar for its bin.</p>\n", fp);
    json_object_foreach(root, key, v) {
        if (json_is_array(v) && json_array_size(v) && json_is_number(json_array_get(v, 0)))
            bars(fp, key, v, json_object_get(bins, key));
    }
}
