/* wr_svg.c - the inline SVG plots of report.html (wr_html.h): the roofline
 * (log-log, arithmetic intensity AI_all FLOP/B vs achieved TFLOPs_all, memory
 * roof PEAK_MEM_BW x AI, compute roofs at each top kernel's peak_TFLOPs_mix),
 * the power-run timeline (socket power W and gfx clock MHz of each telemetry
 * file, min/max-decimated to <= 2 points per pixel column, above the merged
 * kernel-busy intervals; x = CLOCK_BOOTTIME seconds from the first kernel
 * start, of each node on a multi-node run: CLOCK_BOOTTIME is per node,
 * read/nodepath.h) and bar charts of the sampling_vectors.json vectors (METRICS.md §9).
 * Units: TB/s x FLOP/B = TFLOP/s. */
#include "write/wr_html.h"

#include "read/nodepath.h"
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

/* Streaming min/max decimator (wr_decimate's rule, one point at a time). */
struct dec {
    double x0, span;
    size_t nb, cur, k;
    double lx, ly, hx, hy;     /* lowest and highest point of bucket cur */
    double *ox, *oy;           /* room for 2 * nb points */
};

static void dec_init(struct dec *d, double x0, double x1, size_t nb, double *ox, double *oy)
{
    *d = (struct dec){ .x0 = x0, .span = x1 > x0 ? x1 - x0 : 1, .nb = nb, .cur = (size_t)-1,
                       .ox = ox, .oy = oy };
}

static void dec_flush(struct dec *d)
{
    if (d->cur == (size_t)-1)
        return;
    bool lo_first = d->lx <= d->hx;
    d->ox[d->k] = lo_first ? d->lx : d->hx, d->oy[d->k++] = lo_first ? d->ly : d->hy;
    if (d->lx != d->hx)
        d->ox[d->k] = lo_first ? d->hx : d->lx, d->oy[d->k++] = lo_first ? d->hy : d->ly;
}

static void dec_push(struct dec *d, double x, double y)
{
    if (isnan(x) || isnan(y))
        return;
    double f = (x - d->x0) / d->span * (double)d->nb;
    size_t b = f <= 0 ? 0 : f >= (double)d->nb ? d->nb - 1 : (size_t)f;
    if (b != d->cur) {
        dec_flush(d);
        d->cur = b, d->lx = d->hx = x, d->ly = d->hy = y;
        return;
    }
    if (y < d->ly)
        d->lx = x, d->ly = y;
    if (y > d->hy)
        d->hx = x, d->hy = y;
}

size_t wr_decimate(const double *x, const double *y, size_t n, double x0, double x1, size_t nb,
                   double *ox, double *oy)
{
    struct dec d;
    dec_init(&d, x0, x1, nb, ox, oy);
    for (size_t i = 0; i < n; i++)
        dec_push(&d, x[i], y[i]);
    dec_flush(&d);
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

#define TL_X0 70.0
#define TL_W 1000.0
#define TL_BUCKETS 1000

/* One telemetry file: its time span, then its decimated power and clock
 * lines (the file is streamed twice; memory does not grow with its length). */
struct tline {
    char *path, *name;
    int64_t k0;                 /* its node's first kernel start, ns */
    double first, last;         /* s from k0 */
    uint64_t rows;
    size_t k[2];                /* points of [0] power (W), [1] gfx clock (MHz) */
    double *x[2], *y[2];        /* room for 2 * TL_BUCKETS each */
};

/* Pass 1 (decs NULL): span and rows. Pass 2: decimated lines into decs. */
static int tline_scan(struct tline *l, struct dec *decs)
{
    int64_t k0 = l->k0;
    struct br_telem *t = br_telem_open(l->path);
    if (!t)
        return -1;
    struct br_telem_row row;
    int rc;
    while ((rc = br_telem_next(t, &row)) > 0) {
        double ts = (double)(row.timestamp_ns - k0) / 1e9, w = row.v[BR_TV_SOCKET_POWER];
        if (!decs) {
            l->first = l->rows++ ? fmin(l->first, ts) : ts;
            l->last = l->rows > 1 ? fmax(l->last, ts) : ts;
            continue;
        }
        dec_push(&decs[0], ts, isfinite(w) ? w : row.v[BR_TV_INST_POWER]);
        dec_push(&decs[1], ts, row.v[BR_TV_GFX_CLOCK]);
    }
    br_telem_close(t);
    return rc < 0 ? -1 : 0;
}

static int tline_decimate(struct tline *l, double t0, double t1)
{
    struct dec d[2];
    for (int i = 0; i < 2; i++) {
        l->x[i] = xmalloc(2 * TL_BUCKETS * sizeof(double));
        l->y[i] = xmalloc(2 * TL_BUCKETS * sizeof(double));
        dec_init(&d[i], t0, t1, TL_BUCKETS, l->x[i], l->y[i]);
    }
    int rc = tline_scan(l, d);
    for (int i = 0; i < 2; i++) {
        dec_flush(&d[i]);
        l->k[i] = d[i].k;
    }
    return rc;
}

/* One line (<= 2 x TL_BUCKETS points) in the band [top, top+h]. */
static void tl_poly(FILE *fp, const struct tline *l, int s, double t0, double t1, double lo,
                    double hi, double top, double h, const char *color)
{
    fprintf(fp, "<polyline class='tl' fill='none' stroke='%s' stroke-width='1' points='", color);
    for (size_t i = 0; i < l->k[s]; i++)
        fprintf(fp, "%s%.1f,%.1f", i ? " " : "", TL_X0 + (l->x[s][i] - t0) / (t1 - t0) * TL_W,
                top + h - (l->y[s][i] - lo) / (hi - lo) * h);
    fputs("'><title>", fp);
    wr_html_esc(fp, l->name);
    fputs("</title></polyline>\n", fp);
}

/* Value range of series s over every file (decimation keeps the extremes). */
static void tl_range(const struct tline *l, size_t nl, int s, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t f = 0; f < nl; f++)
        for (size_t i = 0; i < l[f].k[s]; i++)
            if (isfinite(l[f].y[s][i]))
                *lo = fmin(*lo, l[f].y[s][i]), *hi = fmax(*hi, l[f].y[s][i]);
    if (!(*hi > *lo))
        *lo = isfinite(*lo) ? *lo - 1 : 0, *hi = *lo + 2;
}

static void tl_panel(FILE *fp, const struct tline *l, size_t nl, int s, double t0, double t1,
                     double top, double h)
{
    double lo, hi;
    tl_range(l, nl, s, &lo, &hi);
    fprintf(fp, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' stroke='#999'/>"
                "<text x='%.1f' y='%.1f' text-anchor='end'>%.4g</text>"
                "<text x='%.1f' y='%.1f' text-anchor='end'>%.4g</text>"
                "<text x='12' y='%.1f' transform='rotate(-90 12 %.1f)' text-anchor='middle'>%s</text>\n",
            TL_X0, top, TL_W, h, TL_X0 - 4, top + 10, hi, TL_X0 - 4, top + h, lo, top + h / 2,
            top + h / 2, s == 0 ? "power (W)" : "gfx clock (MHz)");
    for (size_t f = 0; f < nl; f++)
        tl_poly(fp, &l[f], s, t0, t1, lo, hi, top, h, colors[f % NCOLORS]);
}

/* ---- node origins: CLOCK_BOOTTIME counts from each node's boot ---- */

/* The telemetry files' nodes (NULL: one-node run, or unknown). */
struct tl_nodes {
    size_t n;
    char **node;                /* [n] per telemetry file */
};

/* First kernel start (ns) of the GPUs whose trace lies in node's folder
 * (ktrace_<tag>/<node>/); the run's first start for NULL or no match. */
static int64_t node_origin(const struct wr_info *in, const char *node)
{
    const struct rp_power *pw = in->power;
    int64_t k0 = INT64_MAX;
    for (uint32_t g = 0; node && g < pw->ngpus; g++)
        if (rp_path_in_node(in->power_path, rp_gpu_path(pw, &pw->gpu[g]), node))
            k0 = pw->gpu[g].first_start < k0 ? pw->gpu[g].first_start : k0;
    return k0 == INT64_MAX ? pw->first_start : k0;
}

/* Origin of GPU g's intervals: that of the telemetry node its trace is in. */
static int64_t gpu_origin(const struct wr_info *in, const struct tl_nodes *nd, uint32_t g)
{
    const char *file = rp_gpu_path(in->power, &in->power->gpu[g]);
    for (size_t f = 0; f < nd->n; f++)
        if (nd->node[f] && rp_path_in_node(in->power_path, file, nd->node[f]))
            return node_origin(in, nd->node[f]);
    return in->power->first_start;
}

/* Longest kernel window of a GPU from its node's origin, s. */
static double tl_window(const struct wr_info *in, const struct tl_nodes *nd)
{
    const struct rp_power *pw = in->power;
    double w = 0;
    for (uint32_t g = 0; g < pw->ngpus; g++)
        w = fmax(w, (double)(pw->gpu[g].span_last - gpu_origin(in, nd, g)) / 1e9);   /* copies too */
    return pw->ngpus ? w : (double)(pw->last_end - pw->first_start) / 1e9;
}

/* Merged intervals of each GPU as rects (from its node's origin), adjacent
 * ones within half a pixel joined: the kernels (busy_iv) or the copies
 * (copy_iv). */
static void tl_band(FILE *fp, const struct wr_info *in, const struct tl_nodes *nd, double t0,
                    double t1, double top, double h, bool copies)
{
    const struct rp_power *pw = in->power;
    const int64_t *iv = copies ? pw->copy_iv : pw->busy_iv;
    double k = TL_W / (t1 - t0);
    fprintf(fp, "<text x='%.1f' y='%.1f' text-anchor='end'>%s</text>\n", TL_X0 - 4, top + h - 3,
            copies ? "copies" : pw->ncopy_iv ? "kernels" : "busy");
    for (uint32_t g = 0; g < pw->ngpus; g++) {
        const struct rp_gpu_busy *gb = &pw->gpu[g];
        size_t first = copies ? gb->cv_first : gb->iv_first, n = copies ? gb->cv_n : gb->iv_n;
        int64_t k0 = gpu_origin(in, nd, g);
        double s = -1, e = -1;
        for (size_t i = first; i <= first + n; i++) {
            double a = 0, b = 0;
            if (i < first + n) {
                a = TL_X0 + ((double)(iv[2 * i] - k0) / 1e9 - t0) * k;
                b = TL_X0 + ((double)(iv[2 * i + 1] - k0) / 1e9 - t0) * k;
                if (s >= 0 && a >= s && a <= e + 0.5) {
                    e = fmax(e, b);
                    continue;
                }
            }
            if (s >= 0)
                fprintf(fp, "<rect class='%s' x='%.1f' y='%.1f' width='%.2f' height='%.0f' "
                            "fill='%s'/>\n", copies ? "copy" : "busy", s, top, fmax(e - s, 0.5), h,
                        copies ? "#2ca02c" : "#f0a030");
            s = a, e = b;
        }
    }
}

/* The kernel-busy band, and the copy band under it when the run has copies. */
static void tl_busy(FILE *fp, const struct wr_info *in, const struct tl_nodes *nd, double t0,
                    double t1, double top)
{
    if (!in->power->ncopy_iv) {
        tl_band(fp, in, nd, t0, t1, top, 16, false);
        return;
    }
    tl_band(fp, in, nd, t0, t1, top - 13, 12, false);
    tl_band(fp, in, nd, t0, t1, top + 2, 12, true);
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

static int tl_load(const struct wr_info *in, struct tl_nodes *nd, struct tline **out, size_t *nl)
{
    size_t n = 0;
    while (in->telemetry && in->telemetry[n])
        n++;
    n = n > NCOLORS ? NCOLORS : n;
    struct tline *l = xcalloc(n + 1, sizeof(*l));
    nd->n = n;
    nd->node = xcalloc(n + 1, sizeof(*nd->node));
    int rc = 0;
    for (size_t f = 0; f < n && rc == 0; f++) {
        const char *b = strrchr(in->telemetry[f], '/');
        l[f].path = in->telemetry[f];
        l[f].name = xstrdup(b ? b + 1 : in->telemetry[f]);
        nd->node[f] = rp_telem_node(in->telemetry[f]);
        l[f].k0 = node_origin(in, nd->node[f]);
        rc = tline_scan(&l[f], NULL);
    }
    *out = l, *nl = n;
    return rc;
}

/* True when the files' origins differ (a multi-node run): the caption says so. */
static bool tl_per_node(const struct tline *l, size_t n)
{
    for (size_t f = 1; f < n; f++)
        if (l[f].k0 != l[0].k0)
            return true;
    return false;
}

static void tl_free(struct tline *l, size_t n, struct tl_nodes *nd)
{
    for (size_t f = 0; f < nd->n; f++)
        free(nd->node[f]);
    free(nd->node);
    for (size_t f = 0; f < n; f++) {
        free(l[f].name);
        for (int i = 0; i < 2; i++)
            free(l[f].x[i]), free(l[f].y[i]);
    }
    free(l);
}

/* Time range over the files near the kernel window; the others (another
 * node's clock, or empty) are listed as not drawn. */
static void tl_span(FILE *fp, struct tline *l, size_t nl, double span, double *t0, double *t1)
{
    *t0 = 0, *t1 = span;
    for (size_t f = 0; f < nl; f++) {
        if (l[f].rows && l[f].last >= -span && l[f].first <= 2 * span + 1) {
            *t0 = fmin(*t0, l[f].first), *t1 = fmax(*t1, l[f].last);
            continue;
        }
        fputs("<p>not drawn: ", fp);
        wr_html_esc(fp, l[f].name);
        fputs(" (no samples near the kernel window on this clock)</p>\n", fp);
        l[f].rows = 0;
    }
}

int wr_svg_timeline(FILE *fp, const struct wr_info *in)
{
    struct tline *l;
    size_t nl;
    struct tl_nodes nd;
    int rc = tl_load(in, &nd, &l, &nl);
    double t0 = 0, t1 = tl_window(in, &nd);
    fputs("<h2>Power run timeline</h2>\n", fp);
    if (rc == 0)
        tl_span(fp, l, nl, t1, &t0, &t1);
    for (size_t f = 0; rc == 0 && f < nl; f++)
        if (l[f].rows)
            rc = tline_decimate(&l[f], t0, t1);
    if (rc == 0 && nl && t1 > t0) {
        fprintf(fp, "<p>Telemetry of each file (one color per GPU; min/max per pixel column so "
                    "spikes stay visible) and the merged kernel-busy intervals of the power-run "
                    "trace (orange)%s; x: CLOCK_BOOTTIME seconds from the first kernel start%s, "
                    "%.4g to %.4g s.</p>\n<svg class=timeline width='1100' height='420' "
                    "font-size='12'>\n",
                in->power->ncopy_iv ? ", with its memory copies and sets under them (green)" : "",
                tl_per_node(l, nl) ? " of each node (each node's clock counts from its own boot)"
                                   : "", t0, t1);
        tl_panel(fp, l, nl, 0, t0, t1, 10, 170);
        tl_panel(fp, l, nl, 1, t0, t1, 200, 150);
        tl_busy(fp, in, &nd, t0, t1, 365);
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
    tl_free(l, nl, &nd);
    return rc;
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

void wr_svg_vectors(FILE *fp, const char *prof_dir)
{
    char *path = fs_path_join(prof_dir, "sampling_vectors.json");
    json_t *root = fs_exists(path) ? fs_read_json(path, 0, NULL) : NULL;
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
