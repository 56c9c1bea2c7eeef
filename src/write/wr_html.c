/* wr_html.c - report.html (see wr_html.h): the page, its inline CSS, the
 * header facts, the whole-run table and the warnings (same content as
 * report.md), the top-kernels table with each column defined; the plots come
 * from wr_svg.c. Every string from the input is escaped; NaN prints "—". */
#include "write/wr_html.h"

#include "write/wr_energy.h"

#include "util/error.h"
#include "util/fsutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char css[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}"
    "table{border-collapse:collapse;font-size:12px;margin:.5em 0}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "td.l,th.l{text-align:left}th{background:#eee;position:sticky;top:0}"
    "tr.tot{font-weight:bold;background:#f4f4f4}.scroll{overflow-x:auto}"
    "dl{font-size:12px}dt{font-weight:bold;float:left;clear:left;width:11em}"
    "dd{margin-left:12em}svg{background:#fff;border:1px solid #ddd;margin:.3em}"
    ".warn li{color:#8a4b00}figure{display:inline-block;margin:0 1em 0 0}"
    "table.summary{font-size:14px}table.summary th{background:#eef3f8;position:static;width:9em}"
    ".nav{font-size:13px}";

void wr_html_esc(FILE *fp, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default: fputc(*p, fp);
        }
    }
}

const char *wr_html_num(double v, char *b)
{
    if (!isfinite(v))
        return strcpy(b, "\xe2\x80\x94");   /* U+2014 em dash */
    if (v == floor(v) && fabs(v) < 1e9)
        snprintf(b, 32, "%.0f", v);
    else
        snprintf(b, 32, "%.4g", v);
    return b;
}

static void cell(FILE *fp, const struct mx_result *res, uint32_t r, const char *metric)
{
    char b[32];
    int m = mx_metric_index(res->ap, metric);
    if (m >= 0 && res->ap->metrics[m].label != AL_NONE) {
        const char *l = mx_label(res, r, m);
        fputs("<td class=l>", fp);
        wr_html_esc(fp, l && *l ? l : "\xe2\x80\x94");
    } else {
        fprintf(fp, "<td>%s", wr_html_num(mx_value(res, r, m), b));
    }
    fputs("</td>", fp);
}

static void li_kv(FILE *fp, const char *k, const char *v)
{
    fprintf(fp, "<li>%s: <code>", k);
    wr_html_esc(fp, v);
    fputs("</code></li>\n", fp);
}

void wr_html_begin(FILE *fp, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n<title>", fp);
    wr_html_esc(fp, title);
    fprintf(fp, "</title>\n<style>%s</style></head><body>\n<h1>", css);
    wr_html_esc(fp, title);
    fputs("</h1>\n", fp);
}

/* What the run was: inputs, profile, clock (at the end of the page). */
static void inputs(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    char b[32];
    fputs("<h2 id=inputs>Inputs</h2>\n<ul>\n", fp);
    li_kv(fp, "pmc run", in->pmc_dir);
    fputs("<li>arch: ", fp);
    wr_html_esc(fp, res->ap->arch);
    fputs(" (", fp);
    wr_html_esc(fp, res->ap->product);
    fputs("), profile <code>", fp);
    wr_html_esc(fp, res->ap->path);
    fputs("</code>, chosen by ", fp);
    wr_html_esc(fp, in->arch_source ? in->arch_source : "default");
    fputs("</li>\n", fp);
    li_kv(fp, "counters file", in->counters_file ? in->counters_file : "(none: pass folders and the profile)");
    li_kv(fp, "power run", in->power_path ? in->power_path : "(none)");
    fprintf(fp, "<li>clock: %s MHz, %s", res->clock_src == MX_CLOCK_FALLBACK ? "per row"
            : wr_html_num(res->clock_mhz, b), wr_clock_source(res));
    if (res->clock_src == MX_CLOCK_SAMPLED)
        fprintf(fp, ", %llu samples inside kernels", (unsigned long long)in->clock.samples_running);
    fprintf(fp, "</li>\n<li>kernels: %u; time shares from the %s</li>\n</ul>\n", res->nk,
            res->share_from_power ? "power-run kernel trace" : "counter passes");
}

static double total_of(const struct mx_result *res, const char *metric)
{
    int m = mx_metric_index(res->ap, metric);
    return m >= 0 ? mx_value(res, res->nk, m) : NAN;
}

static void sum_row(FILE *fp, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sum_row(FILE *fp, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(fp, "<tr><th class=l>%s</th><td class=l>", what);
    vfprintf(fp, fmt, ap);
    fputs("</td></tr>\n", fp);
    va_end(ap);
}

/* The summary a reader wants first: GPU, clock, GPU busy, throughput and its
 * share of peak, energy, the bound of the top kernels. Strings of the
 * profile are its own (not input data), numbers are formatted here. */
static void summary(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    char b[6][32];
    wr_html_begin(fp, "benchrun analyze");
    fputs("<table class=summary>\n<tr><th class=l>GPU</th><td class=l>", fp);
    wr_html_esc(fp, res->ap->product);
    fputs(" (", fp);
    wr_html_esc(fp, res->ap->arch);
    if (in->power)
        fprintf(fp, "), %u GPU(s) in the power run</td></tr>\n", in->power->ngpus);
    else
        fputs(")</td></tr>\n", fp);
    sum_row(fp, "clock", "%s MHz (%s)", res->clock_src == MX_CLOCK_FALLBACK ? "per kernel"
            : wr_html_num(res->clock_mhz, b[0]), wr_clock_source(res));
    if (in->power)
        sum_row(fp, "GPU busy", "%s %% of the kernel window (power run)",
                wr_html_num(rp_power_busy_pct(in->power), b[0]));
    sum_row(fp, "throughput", "%s TFLOP/s in all precisions, %s %% of the peak of its mix; "
            "memory %s TB/s, %s %% of peak", wr_html_num(total_of(res, "TFLOPs_all"), b[0]),
            wr_html_num(total_of(res, "compute_peak_pct"), b[1]),
            wr_html_num(total_of(res, "mem_BW_TBps"), b[2]),
            wr_html_num(total_of(res, "mem_BW_peak_pct"), b[3]));
    if (in->energy) {
        const struct en_whole *a = &in->energy->en->all;
        sum_row(fp, "energy", "%s J in the kernel window (%s), %s %% in kernels; mean %s W, "
                "peak %s W", wr_html_num(a->total_J, b[0]),
                a->mixed ? "mixed sources" : en_src_name(a->src),
                wr_html_num(a->total_J > 0 ? 100 * a->kernels_J / a->total_J : NAN, b[1]),
                wr_html_num(a->mean_W, b[2]), wr_html_num(a->peak_W, b[3]));
    }
    fputs("<tr><th class=l>top kernels</th><td class=l>", fp);
    int bm = mx_metric_index(res->ap, "bound_mix"), ts = mx_metric_index(res->ap, "time_share_pct");
    for (uint32_t i = 0; i < res->ntop && i < 5; i++) {
        uint32_t r = res->order[i];
        const char *bound = bm >= 0 ? mx_label(res, r, bm) : NULL;
        fprintf(fp, "%s<span style='color:%s'>&#9679;</span> ", i ? "<br>" : "",
                wr_colors[(i + 1) % WR_NCOLORS]);
        wr_html_esc(fp, res->shortname[r]);
        fprintf(fp, ": %s %% of the time, <b>", wr_html_num(ts >= 0 ? mx_value(res, r, ts) : NAN, b[0]));
        wr_html_esc(fp, bound && *bound ? bound : "\xe2\x80\x94");
        fputs("</b>", fp);
    }
    if (res->ntop > 5)
        fprintf(fp, "<br>and %u more (below)", res->ntop - 5);
    fputs("</td></tr>\n</table>\n<p class=nav><a href='#roofline'>roofline</a> &middot; "
          "<a href='#timeline'>power timeline</a> &middot; <a href='#energy'>energy</a> &middot; "
          "<a href='#top'>top kernels</a> &middot; <a href='#whole'>all metrics</a> &middot; "
          "<a href='#inputs'>inputs</a></p>\n", fp);
}

/* The seed's labels of metric m (report_whole_run rows), "; " between. */
static void labels_of(FILE *fp, const struct mx_result *res, const struct wr_info *in, int m)
{
    int n = 0;
    for (int i = 0; i < res->ap->nreport; i++) {
        if (res->ap->report[i].metric != m)
            continue;
        char *l = wr_report_label(res->ap->report[i].label, res, in);
        fputs(n++ ? "; " : "", fp);
        wr_html_esc(fp, l);
        free(l);
    }
}

static void whole(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    fputs("<h2 id=whole>All metrics, whole run</h2>\n<table><tr><th class=l>metric</th>"
          "<th class=l>report label</th><th>value</th><th class=l>unit</th>"
          "<th class=l>definition</th></tr>\n", fp);
    for (int m = 0; m < res->ap->nmetrics; m++) {
        const struct arch_metric *am = &res->ap->metrics[m];
        if (am->hidden)
            continue;
        fputs("<tr><td class=l>", fp);
        wr_html_esc(fp, am->name);
        fputs("</td><td class=l>", fp);
        labels_of(fp, res, in, m);
        fputs("</td>", fp);
        cell(fp, res, res->nk, am->name);
        fputs("<td class=l>", fp);
        wr_html_esc(fp, am->unit);
        fputs("</td><td class=l>", fp);
        wr_html_esc(fp, am->desc);
        fputs("</td></tr>\n", fp);
    }
    fputs("</table>\n", fp);
}

static void top_row(FILE *fp, const struct mx_result *res, uint32_t r)
{
    bool tot = r == res->nk;
    fputs(tot ? "<tr class=tot>" : "<tr>", fp);
    for (size_t c = 0; c + 1 < wr_ntopcols; c++) {
        if (wr_topcols[c].metric) {
            cell(fp, res, r, wr_topcols[c].metric);
            continue;
        }
        fputs("<td class=l title=\"", fp);
        wr_html_esc(fp, tot ? "all kernels" : res->full[r]);
        fputs("\">", fp);
        wr_html_esc(fp, tot ? "TOTAL" : res->shortname[r]);
        fputs("</td>", fp);
    }
    fputs("</tr>\n", fp);
}

static void top(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    uint32_t rows = res->ntop < (uint32_t)in->top_rows ? res->ntop : (uint32_t)in->top_rows;
    fprintf(fp, "<h2 id=top>Top kernels</h2>\n<p>%u kernel(s) cover ", res->ntop);
    if (in->top_n > 0)
        fprintf(fp, "the --top-n %d", in->top_n);
    else
        fprintf(fp, "--time-pct %g%%", in->time_pct);
    fprintf(fp, " of GPU time; %u shown (--top %d). Full list: per_kernel_metrics.csv; "
                "hover a name for the full kernel name.</p>\n<div class=scroll><table><tr>",
            rows, in->top_rows);
    for (size_t c = 0; c + 1 < wr_ntopcols; c++) {
        fprintf(fp, "<th%s title=\"", c == 0 ? " class=l" : "");
        wr_html_esc(fp, wr_topcols[c].def);
        fputs("\">", fp);
        wr_html_esc(fp, wr_topcols[c].head);
        fputs("</th>", fp);
    }
    fputs("</tr>\n", fp);
    for (uint32_t i = 0; i < rows; i++)
        top_row(fp, res, res->order[i]);
    top_row(fp, res, res->nk);
    fputs("</table></div>\n<h3>Columns</h3>\n<dl>\n", fp);
    for (size_t c = 0; c < wr_ntopcols; c++) {
        fputs("<dt>", fp);
        wr_html_esc(fp, wr_topcols[c].head);
        fputs("</dt><dd>", fp);
        wr_html_esc(fp, wr_topcols[c].def);
        fputs("</dd>\n", fp);
    }
    fputs("</dl>\n", fp);
}

static void warnings(FILE *fp, const struct mx_result *res)
{
    fputs("<h2>Warnings</h2>\n", fp);
    if (!res->nwarn) {
        fputs("<p>none</p>\n", fp);
        return;
    }
    fputs("<ul class=warn>\n", fp);
    for (size_t i = 0; i < res->nwarn; i++) {
        fputs("<li>", fp);
        wr_html_esc(fp, res->warn[i]);
        fputs("</li>\n", fp);
    }
    fputs("</ul>\n", fp);
}

int wr_report_html(const struct mx_result *res, const struct wr_info *in, const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    summary(a.fp, res, in);
    wr_svg_roofline(a.fp, res, in);
    int rc = in->power ? wr_svg_timeline(a.fp, res, in) : 0;
    if (in->energy)
        wr_svg_energy(a.fp, res, in);
    top(a.fp, res, in);
    warnings(a.fp, res);
    whole(a.fp, res, in);
    if (in->vectors)
        wr_svg_vectors(a.fp, in->vectors);
    inputs(a.fp, res, in);
    fputs("</body></html>\n", a.fp);
    if (rc < 0) {
        fs_atomic_abort(&a);
        return -1;
    }
    return fs_atomic_commit(&a);    /* says why a write failed */
}
