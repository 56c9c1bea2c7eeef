/* wr_svg.c - the inline SVG plots of report.html (wr_html.h): the roofline
 * (log-log, arithmetic intensity AI_all FLOP/B vs achieved TFLOPs_all, memory
 * roof PEAK_MEM_BW x AI, compute roofs at each top kernel's peak_TFLOPs_mix),
 * the power-run timeline (socket power W and gfx clock MHz of each telemetry
 * file, min/max-decimated to <= 2 points per pixel column, above the merged
 * kernel-busy intervals; x = CLOCK_BOOTTIME seconds from the first kernel
 * start) and bar charts of the sampling_vectors.json vectors (METRICS.md §9).
 * Units: TB/s x FLOP/B = TFLOP/s. */
#include "write/wr_html.h"

#include "read/telemetry.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))

size_t wr_decimate(const double *x, const double *y, size_t n, double x0, double x1, size_t nb,
                   double *ox, double *oy)
{
    size_t k = 0, cur = (size_t)-1, lo = 0, hi = 0;
    double span = x1 > x0 ? x1 - x0 : 1;
    for (size_t i = 0; i <= n; i++) {
        size_t b = (size_t)-1;
        if (i < n) {
            if (isnan(y[i]) || isnan(x[i]))
                continue;
            double f = (x[i] - x0) / span * (double)nb;
            b = f <= 0 ? 0 : f >= (double)nb ? nb - 1 : (size_t)f;
        }
        if (b != cur && cur != (size_t)-1) {   /* flush the finished bucket */
            size_t a = lo < hi ? lo : hi, z = lo < hi ? hi : lo;
            ox[k] = x[a], oy[k++] = y[a];
            if (z != a)
                ox[k] = x[z], oy[k++] = y[z];
        }
        if (i == n)
            break;
        if (b != cur)
            cur = b, lo = hi = i;
        if (y[i] < y[lo])
            lo = i;
        if (y[i] > y[hi])
            hi = i;
    }
    return k;
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
                    "<title>#%d ", cx, cy, colors[(size_t)rank % NCOLORS], rank);
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
    fputs("<h2>Roofline</h2>\n<p>Top kernels (numbered by time share) and TOTAL (diamond): "
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

/* ---- power-run timeline ---- */

struct tline {
    char *name;
    size_t n, cap;
    double *t, *pw, *mhz;       /* s from the first kernel start, W, MHz */
};

static int tline_read(struct tline *l, const char *path, int64_t t0)
{
    struct br_telem *t = br_telem_open(path);
    if (!t)
        return -1;
    struct br_telem_row row;
    int rc;
    while ((rc = br_telem_next(t, &row)) > 0) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 1024;
            l->t = xrealloc(l->t, l->cap * sizeof(double));
            l->pw = xrealloc(l->pw, l->cap * sizeof(double));
            l->mhz = xrealloc(l->mhz, l->cap * sizeof(double));
        }
        double w = row.v[BR_TV_SOCKET_POWER];
        l->t[l->n] = (double)(row.timestamp_ns - t0) / 1e9;
        l->pw[l->n] = isfinite(w) ? w : row.v[BR_TV_INST_POWER];
        l->mhz[l->n++] = row.v[BR_TV_GFX_CLOCK];
    }
    br_telem_close(t);
    return rc < 0 ? -1 : 0;
}

#define TL_X0 70.0
#define TL_W 1000.0
#define TL_BUCKETS 1000

/* One line (≤ 2 x TL_BUCKETS points) of values v in the band [top, top+h]. */
static void tl_poly(FILE *fp, const struct tline *l, const double *v, double t0, double t1,
                    double lo, double hi, double top, double h, const char *color)
{
    double *ox = xmalloc(2 * TL_BUCKETS * sizeof(double)), *oy = xmalloc(2 * TL_BUCKETS * sizeof(double));
    size_t k = wr_decimate(l->t, v, l->n, t0, t1, TL_BUCKETS, ox, oy);
    fprintf(fp, "<polyline class='tl' fill='none' stroke='%s' stroke-width='1' points='", color);
    for (size_t i = 0; i < k; i++)
        fprintf(fp, "%s%.1f,%.1f", i ? " " : "", TL_X0 + (ox[i] - t0) / (t1 - t0) * TL_W,
                top + h - (oy[i] - lo) / (hi - lo) * h);
    fputs("'><title>", fp);
    wr_html_esc(fp, l->name);
    fputs("</title></polyline>\n", fp);
    free(ox);
    free(oy);
}

static void tl_range(const struct tline *l, size_t nl, const double *const *v, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t f = 0; f < nl; f++)
        for (size_t i = 0; i < l[f].n; i++)
            if (isfinite(v[f][i]))
                *lo = fmin(*lo, v[f][i]), *hi = fmax(*hi, v[f][i]);
    if (!(*hi > *lo))
        *lo = isfinite(*lo) ? *lo - 1 : 0, *hi = *lo + 2;
}

static void tl_panel(FILE *fp, const struct tline *l, size_t nl, bool power, double t0, double t1,
                     double top, double h)
{
    const double **v = xcalloc(nl + 1, sizeof(double *));
    for (size_t f = 0; f < nl; f++)
        v[f] = power ? l[f].pw : l[f].mhz;
    double lo, hi;
    tl_range(l, nl, v, &lo, &hi);
    fprintf(fp, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' stroke='#999'/>"
                "<text x='%.1f' y='%.1f' text-anchor='end'>%.4g</text>"
                "<text x='%.1f' y='%.1f' text-anchor='end'>%.4g</text>"
                "<text x='12' y='%.1f' transform='rotate(-90 12 %.1f)' text-anchor='middle'>%s</text>\n",
            TL_X0, top, TL_W, h, TL_X0 - 4, top + 10, hi, TL_X0 - 4, top + h, lo, top + h / 2,
            top + h / 2, power ? "power (W)" : "gfx clock (MHz)");
    for (size_t f = 0; f < nl; f++)
        tl_poly(fp, &l[f], v[f], t0, t1, lo, hi, top, h, colors[f % NCOLORS]);
    free(v);
}

/* Merged busy intervals as rects, adjacent ones within half a pixel joined. */
static void tl_busy(FILE *fp, const struct rp_power *pw, double t0, double t1, double top)
{
    double s = -1, e = -1, k = TL_W / (t1 - t0);
    fprintf(fp, "<text x='%.1f' y='%.1f' text-anchor='end'>busy</text>\n", TL_X0 - 4, top + 12);
    for (size_t i = 0; i <= pw->nbusy_iv; i++) {
        double a = 0, b = 0;
        if (i < pw->nbusy_iv) {
            a = TL_X0 + ((double)(pw->busy_iv[2 * i] - pw->first_start) / 1e9 - t0) * k;
            b = TL_X0 + ((double)(pw->busy_iv[2 * i + 1] - pw->first_start) / 1e9 - t0) * k;
            if (s >= 0 && a >= s && a <= e + 0.5) {
                e = fmax(e, b);
                continue;
            }
        }
        if (s >= 0)
            fprintf(fp, "<rect class='busy' x='%.1f' y='%.1f' width='%.2f' height='16' "
                        "fill='#f0a030'/>\n", s, top, fmax(e - s, 0.5));
        s = a, e = b;
    }
}

/* Time ticks at multiples of a 1/2/5 x 10^k step giving 4-10 ticks. */
static void tl_ticks(FILE *fp, double t0, double t1)
{
    double step = pow(10, floor(log10((t1 - t0) / 5)));
    step *= (t1 - t0) / step > 20 ? 5 : (t1 - t0) / step > 10 ? 2 : 1;
    for (double t = ceil(t0 / step) * step; t <= t1 + 1e-12; t += step) {
        double px = TL_X0 + (t - t0) / (t1 - t0) * TL_W, v = fabs(t) < step * 1e-6 ? 0 : t;
        fprintf(fp, "<line x1='%.1f' y1='10' x2='%.1f' y2='385' stroke='#ddd'/><text x='%.1f' "
                    "y='400' text-anchor='middle'>%.4g s</text>\n", px, px, px, v);
    }
}

static int tl_load(const struct wr_info *in, struct tline **out, size_t *nl)
{
    size_t n = 0;
    while (in->telemetry && in->telemetry[n])
        n++;
    n = n > NCOLORS ? NCOLORS : n;
    struct tline *l = xcalloc(n + 1, sizeof(*l));
    int rc = 0;
    for (size_t f = 0; f < n && rc == 0; f++) {
        const char *b = strrchr(in->telemetry[f], '/');
        l[f].name = xstrdup(b ? b + 1 : in->telemetry[f]);
        rc = tline_read(&l[f], in->telemetry[f], in->power->first_start);
    }
    *out = l, *nl = n;
    return rc;
}

static void tl_free(struct tline *l, size_t n)
{
    for (size_t f = 0; f < n; f++) {
        free(l[f].name);
        free(l[f].t);
        free(l[f].pw);
        free(l[f].mhz);
    }
    free(l);
}

int wr_svg_timeline(FILE *fp, const struct wr_info *in)
{
    struct tline *l;
    size_t nl;
    int rc = tl_load(in, &l, &nl);
    double span = (double)(in->power->last_end - in->power->first_start) / 1e9, t0 = 0, t1 = span;
    fputs("<h2>Power run timeline</h2>\n", fp);
    for (size_t f = 0; rc == 0 && f < nl; f++) {
        if (l[f].n && l[f].t[l[f].n - 1] >= -span && l[f].t[0] <= 2 * span + 1) {
            t0 = fmin(t0, l[f].t[0]), t1 = fmax(t1, l[f].t[l[f].n - 1]);
            continue;
        }
        fputs("<p>not drawn: ", fp);   /* another node's CLOCK_BOOTTIME, or empty */
        wr_html_esc(fp, l[f].name);
        fputs(" (no samples near the kernel window on this clock)</p>\n", fp);
        l[f].n = 0;
    }
    if (rc == 0 && nl && t1 > t0) {
        fprintf(fp, "<p>Telemetry of each file (one color per GPU; min/max per pixel column so "
                    "spikes stay visible) and the merged kernel-busy intervals of the power-run "
                    "trace (orange); x: CLOCK_BOOTTIME seconds from the first kernel start, "
                    "%.4g to %.4g s.</p>\n<svg class=timeline width='1100' height='420' "
                    "font-size='12'>\n", t0, t1);
        tl_panel(fp, l, nl, true, t0, t1, 10, 170);
        tl_panel(fp, l, nl, false, t0, t1, 200, 150);
        tl_busy(fp, in->power, t0, t1, 365);
        tl_ticks(fp, t0, t1);
        double z = TL_X0 - t0 / (t1 - t0) * TL_W;   /* first kernel start */
        fprintf(fp, "<line x1='%.1f' y1='10' x2='%.1f' y2='385' stroke='#f0a030' "
                    "stroke-dasharray='4 3'><title>first kernel start (0 s)</title></line>\n", z, z);
        fputs("</svg>\n<p>", fp);
        for (size_t f = 0; f < nl; f++) {
            fprintf(fp, "%s<span style='color:%s'>&#9632;</span> ", f ? ", " : "", colors[f % NCOLORS]);
            wr_html_esc(fp, l[f].name);
        }
        fputs("</p>\n", fp);
    } else if (rc == 0) {
        fputs("<p>no telemetry samples</p>\n", fp);
    }
    tl_free(l, nl);
    return rc;
}

/* ---- sampling_vectors.json ---- */

static void bars(FILE *fp, const char *name, json_t *vec, json_t *desc)
{
    json_t *edges = json_object_get(desc, "edges");
    const char *unit = json_string_value(json_object_get(desc, "unit"));
    size_t n = json_array_size(vec);
    double mx = 0, w = 340.0 / (double)(n ? n : 1);
    char b[3][32];
    for (size_t i = 0; i < n; i++)
        mx = fmax(mx, json_number_value(json_array_get(vec, i)));
    fputs("<figure><svg class=vector width='380' height='170' font-size='10'>\n", fp);
    for (size_t i = 0; i < n; i++) {
        double v = json_number_value(json_array_get(vec, i)), h = mx > 0 ? v / mx * 120 : 0;
        fprintf(fp, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='#1f77b4'><title>[%s, %s): %s"
                    "</title></rect>\n", 30 + i * w, 140 - h, fmax(w - 1, 0.5), h,
                wr_html_num(json_number_value(json_array_get(edges, i)), b[0]),
                wr_html_num(json_number_value(json_array_get(edges, i + 1)), b[1]), wr_html_num(v, b[2]));
    }
    fprintf(fp, "<line x1='30' y1='140' x2='370' y2='140' stroke='#333'/><text x='30' y='155'>%s</text>"
                "<text x='370' y='155' text-anchor='end'>%s</text><text x='2' y='24'>%s</text>"
                "</svg><figcaption>", wr_html_num(json_number_value(json_array_get(edges, 0)), b[0]),
            wr_html_num(json_number_value(json_array_get(edges, n)), b[1]), wr_html_num(mx, b[2]));
    wr_html_esc(fp, name);
    fputs(" (", fp);
    wr_html_esc(fp, unit ? unit : "?");
    fputs(")</figcaption></figure>\n", fp);
}

void wr_svg_vectors(FILE *fp, const char *prof_dir)
{
    char *path = fs_path_join(prof_dir, "sampling_vectors.json");
    json_t *root = fs_exists(path) ? json_load_file(path, 0, NULL) : NULL;
    json_t *bins = json_object_get(json_object_get(root, "description"), "bins"), *v;
    const char *key;
    if (root) {
        fputs("<h2>Telemetry vectors (sampling_vectors.json)</h2>\n<p>Fraction of the in-window "
              "samples per bin; hover a bar for its bin.</p>\n", fp);
        json_object_foreach(root, key, v) {
            if (json_is_array(v) && json_array_size(v) && json_is_number(json_array_get(v, 0)))
                bars(fp, key, v, json_object_get(bins, key));
        }
    }
    json_decref(root);
    free(path);
}
