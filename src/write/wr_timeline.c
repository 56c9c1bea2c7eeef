/* wr_timeline.c - report.html's power-run plots (wr_html.h): the timeline
 * and the energy bars.
 *
 * Timeline: a strip with the socket power of the whole sampled run (the
 * kernel window shaded), then power (W) and gfx clock (MHz) of each
 * telemetry file zoomed to the kernel window, min/max-decimated to <= 2
 * points per pixel column so one-sample spikes stay, then one row of spans
 * per GPU: each launch coloured by its top kernel's rank (the roofline's
 * colours; other kernels grey, copies dark) when the energy analysis has the
 * launches, else the merged kernel-busy intervals. x = CLOCK_BOOTTIME seconds
 * from the first kernel start, of each node on a multi-node run (CLOCK_BOOTTIME
 * is per node, read/nodepath.h). The lines come decimated from the model
 * (read/telread.h reads each file once); the whole-run strip is decimated
 * again here to its pixel columns. No file is opened here.
 */
#include "write/wr_html.h"

#include "model/series.h"
#include "read/nodepath.h"
#include "read/telread.h"
#include "util/xalloc.h"
#include "write/wr_energy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TL_X0 70.0
#define TL_W 1000.0
#define TL_BUCKETS WR_TIMELINE_COLUMNS
#define TL_ROWS 8                   /* GPUs drawn */

enum { S_POWER, S_CLOCK, S_STRIP, NSERIES };

/* One telemetry file of the model: its span and its lines. */
struct tline {
    const struct telem_file *f;
    const char *name;
    int64_t k0;                 /* its node's first kernel start, ns */
    double first, last;         /* s from k0 */
    uint64_t rows;
    size_t k[NSERIES];          /* points: power, clock (zoomed), power (whole run) */
    double *x[NSERIES], *y[NSERIES];
};

/* The zoomed lines as read; the strip decimated to its columns over [s0, s1]. */
static void tline_decimate(struct tline *l, double s0, double s1)
{
    const struct telem_file *f = l->f;
    l->x[S_POWER] = f->power_x, l->y[S_POWER] = f->power_y, l->k[S_POWER] = f->nzoom;
    l->x[S_CLOCK] = f->clock_x, l->y[S_CLOCK] = f->clock_y, l->k[S_CLOCK] = f->nclock;
    double *x, *y;
    size_t n = series_grow_points(&f->strip, &x, &y);
    l->x[S_STRIP] = xmalloc(2 * TL_BUCKETS * sizeof(double));
    l->y[S_STRIP] = xmalloc(2 * TL_BUCKETS * sizeof(double));
    struct series_dec d;
    series_dec_init(&d, s0, s1, TL_BUCKETS, l->x[S_STRIP], l->y[S_STRIP]);
    for (size_t i = 0; i < n; i++)
        series_dec_push(&d, x[i], y[i]);
    series_dec_flush(&d);
    l->k[S_STRIP] = d.k;
    free(x);
    free(y);
}

/* One line in the band [top, top+h] over [t0, t1]. */
static void tl_poly(FILE *fp, const struct tline *l, int s, double t0, double t1, double lo,
                    double hi, double top, double h, const char *color)
{
    fprintf(fp, "<polyline class='%s' fill='none' stroke='%s' stroke-width='1' points='",
            s == S_STRIP ? "strip" : "tl", color);
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
                     double top, double h, const char *what)
{
    double lo, hi;
    tl_range(l, nl, s, &lo, &hi);
    fprintf(fp, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' stroke='#999'/>"
                "<text x='%.1f' y='%.1f' text-anchor='end'>%.4g</text>"
                "<text x='%.1f' y='%.1f' text-anchor='end'>%.4g</text>"
                "<text x='12' y='%.1f' transform='rotate(-90 12 %.1f)' text-anchor='middle'>%s</text>\n",
            TL_X0, top, TL_W, h, TL_X0 - 4, top + 10, hi, TL_X0 - 4, top + h, lo, top + h / 2,
            top + h / 2, what);
    for (size_t f = 0; f < nl; f++)
        if (l[f].rows)
            tl_poly(fp, &l[f], s, t0, t1, lo, hi, top, h, wr_colors[f % WR_NCOLORS]);
}

/* ---- node origins: CLOCK_BOOTTIME counts from each node's boot ---- */

/* First kernel start (ns) of the node whose trace folder holds GPU g's
 * trace (the telemetry files' nodes), else the run's first start. */
static int64_t gpu_origin(const struct wr_info *in, uint32_t g)
{
    const char *file = rp_gpu_path(in->power, &in->power->gpu[g]);
    for (size_t f = 0; in->telem && f < in->telem->n; f++) {
        const char *node = in->telem->f[f].node;
        if (node && rp_path_in_node(in->power_path, file, node))
            return telem_node_origin(in->power, in->power_path, node);
    }
    return in->power->first_start;
}

/* ---- spans ---- */

/* Adjacent rects of one colour within half a pixel are joined. A row is
 * 12 px: kernels fill it, copies its lower 5 px (drawn after, so a copy
 * beside a kernel stays visible). */
struct span_run {
    FILE *fp;
    double s, e, top;
    const char *color;
    bool copies;
};

#define COPY_COLOR "#555"

static void span_flush(struct span_run *r)
{
    if (r->s >= 0)
        fprintf(r->fp, "<rect class='%s' x='%.1f' y='%.1f' width='%.2f' height='%d' fill='%s'/>\n",
                r->copies ? "copy" : "busy", r->s, r->top + (r->copies ? 7 : 0),
                fmax(r->e - r->s, 0.5), r->copies ? 5 : 12, r->color);
    r->s = -1;
}

static void span_add(struct span_run *r, double a, double b, const char *color)
{
    if (r->s >= 0 && color == r->color && a >= r->s && a <= r->e + 0.5) {
        r->e = fmax(r->e, b);
        return;
    }
    span_flush(r);
    r->s = a, r->e = b, r->color = color;
}

/* The merged kernel-busy intervals (busy_iv) and copy intervals (copy_iv)
 * of each trace GPU (no launches at hand). */
static void tl_busy(FILE *fp, const struct wr_info *in, double t0, double t1, double top)
{
    const struct rp_power *pw = in->power;
    double k = TL_W / (t1 - t0);
    for (uint32_t g = 0; g < pw->ngpus && g < TL_ROWS; g++) {
        const struct rp_gpu_busy *gb = &pw->gpu[g];
        int64_t k0 = gpu_origin(in, g);
        for (int c = 0; c < 2; c++) {
            const int64_t *iv = c ? pw->copy_iv : pw->busy_iv;
            size_t first = c ? gb->cv_first : gb->iv_first, n = c ? gb->cv_n : gb->iv_n;
            struct span_run r = { fp, -1, -1, top + 14 * g, NULL, c == 1 };
            for (size_t i = first; i < first + n; i++)
                span_add(&r, TL_X0 + ((double)(iv[2 * i] - k0) / 1e9 - t0) * k,
                         TL_X0 + ((double)(iv[2 * i + 1] - k0) / 1e9 - t0) * k,
                         c ? COPY_COLOR : "#f0a030");
            span_flush(&r);
        }
    }
}

/* Top-kernel rank (1-based) of each kernel id, 0 for the others. */
static uint32_t *top_rank(const struct mx_result *res, uint32_t nk)
{
    uint32_t *rank = xcalloc(nk + 1, sizeof(*rank));
    for (uint32_t i = 0; i < res->ntop; i++)
        if (res->kid[res->order[i]] < nk)
            rank[res->kid[res->order[i]]] = i + 1;
    return rank;
}

static const char *span_color(const struct en_act *a, const uint32_t *rank)
{
    if (a->kind == EN_COPY)
        return COPY_COLOR;
    return rank[a->id] ? wr_colors[rank[a->id] % WR_NCOLORS] : "#bbb";
}

/* Each GPU's launches, coloured by top kernel, then its copies. */
static void tl_launches(FILE *fp, const struct mx_result *res, const struct wr_energy *e,
                        double t0, double t1, double top)
{
    const struct prun *pr = e->pr;
    uint32_t *rank = top_rank(res, e->en->nkernels);
    double k = TL_W / (t1 - t0);
    for (size_t g = 0; g < pr->ngpus && g < TL_ROWS; g++) {
        const struct prun_gpu *pg = &pr->gpu[g];
        for (int c = 0; c < 2; c++) {
            struct span_run r = { fp, -1, -1, top + 14 * (double)g, NULL, c == 1 };
            for (size_t i = 0; i < pg->nact; i++) {
                const struct en_act *a = &pg->act[i];
                if ((a->kind == EN_COPY) != (c == 1))
                    continue;
                span_add(&r, TL_X0 + ((double)(a->start_ns - pg->win0) / 1e9 - t0) * k,
                         TL_X0 + ((double)(a->end_ns - pg->win0) / 1e9 - t0) * k,
                         span_color(a, rank));
            }
            span_flush(&r);
        }
        fprintf(fp, "<text x='%.1f' y='%.1f' text-anchor='end' font-size='10'>GPU %d</text>\n",
                TL_X0 - 4, top + 14 * (double)g + 10, pg->index);
    }
    free(rank);
}

static void tl_legend(FILE *fp, const struct mx_result *res, bool launches)
{
    fputs("<p>", fp);
    for (uint32_t i = 0; launches && i < res->ntop && i < 12; i++) {
        fprintf(fp, "<span style='color:%s'>&#9632;</span> #%u ", wr_colors[(i + 1) % WR_NCOLORS],
                i + 1);
        wr_html_esc(fp, res->shortname[res->order[i]]);
        fputs(" &nbsp; ", fp);
    }
    fputs(launches ? "<span style='color:#bbb'>&#9632;</span> other kernels &nbsp; "
                   :
                     "<span style='color:#f0a030'>&#9632;</span> kernel-busy intervals &nbsp; ", fp);
    fputs("<span style='color:" COPY_COLOR "'>&#9632;</span> memory copies and sets (lower "
          "band)</p>\n", fp);
}

/* Time ticks at multiples of a 1/2/5 x 10^k step giving 4-10 ticks. */
static void tl_ticks(FILE *fp, double t0, double t1, double y0, double y1)
{
    double step = pow(10, floor(log10((t1 - t0) / 5)));
    step *= (t1 - t0) / step > 20 ? 5 : (t1 - t0) / step > 10 ? 2 : 1;
    for (double t = ceil(t0 / step) * step; t <= t1 + 1e-12; t += step) {
        double px = TL_X0 + (t - t0) / (t1 - t0) * TL_W, v = fabs(t) < step * 1e-6 ? 0 : t;
        fprintf(fp, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/><text x='%.1f' "
                    "y='%.1f' text-anchor='middle'>%.4g s</text>\n", px, y0, px, y1, px, y1 + 14, v);
    }
}

static void tl_load(const struct wr_info *in, struct tline **out, size_t *nl)
{
    size_t n = in->telem ? in->telem->n : 0;
    n = n > WR_NCOLORS ? WR_NCOLORS : n;
    struct tline *l = xcalloc(n + 1, sizeof(*l));
    for (size_t f = 0; f < n; f++) {
        const struct telem_file *tf = &in->telem->f[f];
        l[f].f = tf;
        l[f].name = tf->name;
        l[f].k0 = tf->origin_ns;
        l[f].rows = tf->rows;
        l[f].first = tf->rows ? (double)(tf->first_ns - tf->origin_ns) / 1e9 : 0;
        l[f].last = tf->rows ? (double)(tf->last_ns - tf->origin_ns) / 1e9 : 0;
    }
    *out = l, *nl = n;
}

static bool tl_per_node(const struct tline *l, size_t n)
{
    for (size_t f = 1; f < n; f++)
        if (l[f].k0 != l[0].k0)
            return true;
    return false;
}

static void tl_free(struct tline *l, size_t n)
{
    for (size_t f = 0; f < n; f++)
        free(l[f].x[S_STRIP]), free(l[f].y[S_STRIP]);
    free(l);
}

/* The whole sampled span of the files near the kernel window; the others
 * (another node's clock, or empty) are listed as not drawn. */
static void tl_span(FILE *fp, struct tline *l, size_t nl, double span, double *s0, double *s1)
{
    *s0 = 0, *s1 = span;
    for (size_t f = 0; f < nl; f++) {
        if (l[f].rows && l[f].last >= -span && l[f].first <= 2 * span + 1) {
            *s0 = fmin(*s0, l[f].first), *s1 = fmax(*s1, l[f].last);
            continue;
        }
        fputs("<p>not drawn: ", fp);
        wr_html_esc(fp, l[f].name);
        fputs(" (no samples near the kernel window on this clock)</p>\n", fp);
        l[f].rows = 0;
    }
}

static void tl_strip(FILE *fp, const struct tline *l, size_t nl, double s0, double s1, double t0,
                     double t1)
{
    double lo, hi;
    tl_range(l, nl, S_STRIP, &lo, &hi);
    double k = TL_W / (s1 - s0);
    fprintf(fp, "<rect class='window' x='%.1f' y='10' width='%.1f' height='44' fill='#f0a030' "
                "fill-opacity='.15'><title>kernel window (zoomed below)</title></rect>\n"
                "<rect x='%.1f' y='10' width='%.1f' height='44' fill='none' stroke='#999'/>"
                "<text x='%.1f' y='36' text-anchor='end'>whole run</text>"
                "<text x='%.1f' y='66' text-anchor='start'>%.4g s</text>"
                "<text x='%.1f' y='66' text-anchor='end'>%.4g s</text>\n",
            TL_X0 + (t0 - s0) * k, fmax((t1 - t0) * k, 1), TL_X0, TL_W, TL_X0 - 4, TL_X0, s0,
            TL_X0 + TL_W, s1);
    for (size_t f = 0; f < nl; f++)
        if (l[f].rows)
            tl_poly(fp, &l[f], S_STRIP, s0, s1, lo, hi, 10, 44, wr_colors[f % WR_NCOLORS]);
}

int wr_svg_timeline(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    struct tline *l;
    size_t nl;
    tl_load(in, &l, &nl);
    double t0 = 0, t1 = nl ? l[0].f->window_s : 1e-6, s0 = 0, s1 = t1;
    fputs("<h2 id=timeline>Power run timeline</h2>\n", fp);
    tl_span(fp, l, nl, t1, &s0, &s1);
    for (size_t f = 0; f < nl; f++)
        if (l[f].rows)
            tline_decimate(&l[f], s0, s1);
    bool any = false;
    for (size_t f = 0; f < nl; f++)
        any |= l[f].rows > 0;
    bool launches = in->energy != NULL;
    size_t rows = launches ? in->energy->pr->ngpus : in->power->ngpus;
    rows = rows > TL_ROWS ? TL_ROWS : rows ? rows : 1;
    double spans = 420, height = spans + 14 * (double)rows + 30;
    if (any) {
        fprintf(fp, "<p>Top: socket power of the whole sampled run, the kernel window shaded. "
                    "Below, zoomed to the kernel window: power and gfx clock of each telemetry "
                    "file (one colour per GPU; min/max per pixel column so spikes stay) and each "
                    "GPU's %s; x: CLOCK_BOOTTIME seconds from the first kernel start%s, %.4g to "
                    "%.4g s; the whole run %.4g to %.4g s.</p>\n<svg class=timeline width='1100' "
                    "height='%.0f' font-size='12'>\n",
                launches ? "launches coloured by top kernel (as in the roofline), copies under them"
                         : "merged kernel-busy intervals, copies under them",
                tl_per_node(l, nl) ? " of each node (each node's clock counts from its own boot)"
                                   : "", t0, t1, s0, s1, height);
        tl_strip(fp, l, nl, s0, s1, t0, t1);
        tl_panel(fp, l, nl, S_POWER, t0, t1, 80, 170, "power (W)");
        tl_panel(fp, l, nl, S_CLOCK, t0, t1, 265, 130, "gfx clock (MHz)");
        tl_ticks(fp, t0, t1, 80, spans + 14 * (double)rows);
        if (launches)
            tl_launches(fp, res, in->energy, t0, t1, spans);
        else
            tl_busy(fp, in, t0, t1, spans);
        fputs("</svg>\n<p>", fp);
        for (size_t f = 0; f < nl; f++) {
            fprintf(fp, "%s<span style='color:%s'>&#9632;</span> ", f ? ", " : "",
                    wr_colors[f % WR_NCOLORS]);
            wr_html_esc(fp, l[f].name);
        }
        fputs("</p>\n", fp);
        tl_legend(fp, res, launches);
    } else {
        fputs("<p>no telemetry samples</p>\n", fp);
    }
    tl_free(l, nl);
    return 0;
}

/* ---- energy bars ---- */

#define EB_ROWS 12

void wr_svg_energy(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    const struct wr_energy *w = in->energy;
    const struct en_result *en = w->en;
    uint32_t *rank = top_rank(res, en->nkernels);
    uint32_t n = w->norder < EB_ROWS ? w->norder : EB_ROWS;
    double mx = en->all.idle_J;
    for (uint32_t i = 0; i < n; i++)
        mx = fmax(mx, en->col[w->order[i]].energy_J);
    char method[768], b[3][32];
    wr_energy_method(w, method, sizeof(method));
    fputs("<h2 id=energy>Energy per kernel</h2>\n<p>", fp);
    wr_html_esc(fp, method);
    fprintf(fp, ". Whole run %s J (kernels %s J, idle %s J); the bars: the %u kernels of most "
                "energy and idle time, colour as in the roofline; hover for the power.</p>\n"
                "<svg class=energy width='1100' height='%u' font-size='11'>\n",
            wr_html_num(en->all.total_J, b[0]), wr_html_num(en->all.kernels_J, b[1]),
            wr_html_num(en->all.idle_J, b[2]), n, 20 * (n + 1) + 10);
    for (uint32_t i = 0; i <= n; i++) {
        struct wr_ecol e;
        const char *name = i < n ? w->shortname[w->order[i]] : "idle", *color = "#999";
        if (i < n) {
            wr_energy_col(w, w->order[i], &e);
            color = rank[w->order[i]] ? wr_colors[rank[w->order[i]] % WR_NCOLORS] : "#bbb";
        } else {
            memset(&e, 0, sizeof(e));
            e.energy_J = en->all.idle_J;
            e.share_pct = en->all.total_J > 0 ? 100 * en->all.idle_J / en->all.total_J : NAN;
            e.power_W = en->all.idle_ns > 0 ? en->all.idle_J / (en->all.idle_ns * 1e-9) : NAN;
            e.fit_W = en->fit.done ? en->fit.idle_W : NAN;
        }
        double y = 8 + 20 * (double)i, len = mx > 0 ? e.energy_J / mx * 640 : 0;
        fprintf(fp, "<text x='318' y='%.1f' text-anchor='end'>", y + 12);
        char cut[64];
        snprintf(cut, sizeof(cut), "%.45s%s", name, strlen(name) > 45 ? "\xe2\x80\xa6" : "");
        wr_html_esc(fp, cut);
        fprintf(fp, "</text><rect class='ebar' x='325' y='%.1f' width='%.1f' height='15' fill='%s'>"
                    "<title>", y, fmax(len, 0.5), color);
        wr_html_esc(fp, name);
        fprintf(fp, ": %s J, %s W while running", wr_html_num(e.energy_J, b[0]),
                wr_html_num(e.power_W, b[1]));
        if (isfinite(e.fit_W))
            fprintf(fp, ", fitted %s W", wr_html_num(e.fit_W, b[2]));
        fprintf(fp, "</title></rect><text x='%.1f' y='%.1f'>%s J (%s %%)</text>\n", 330 + len,
                y + 12, wr_html_num(e.energy_J, b[0]), wr_html_num(e.share_pct, b[1]));
    }
    fputs("</svg>\n", fp);
    free(rank);
}
