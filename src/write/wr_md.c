/* wr_md.c - report.md. First the seed's report, section by section and with
 * its labels, units, columns and number formats (tests/fixtures/
 * seed-reference: seed-output/analysis/report.md): the title and Source line,
 * "Whole run" (the clock used, then the profile's report_whole_run rows),
 * "Power run kernel trace", "Top N kernels by GPU time" (--top rows by
 * counter-pass time), "Kernels covering P% of GPU time" (top_kernels.csv),
 * "Data checks" and **Warnings:**. Then benchrun's own sections: the inputs,
 * every metric with its definition, per-pass details and the constants taken
 * from agent_info. Paths are printed as given so a test can normalize them. */
#include "write/analysis.h"
#include "write/wr_copies.h"
#include "write/wr_energy.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Text of the arch profile (ours) in a table cell: '|' escaped, newlines as
 * spaces. */
static void md_cell(FILE *fp, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '|')
            fputs("\\|", fp);
        else if (*p == '\n' || *p == '\r')
            fputc(' ', fp);
        else
            fputc(*p, fp);
    }
}

/* True when s[i] could start or end Markdown markup in a table cell or a
 * list item (CommonMark 0.31, GFM tables and strikethrough), so it needs a
 * backslash. Only there: ordinary names stay byte for byte as the seed
 * prints them (Tag<1,1>, Matvec2_Half). */
static bool md_special(const char *s, size_t i)
{
    char c = s[i], next = s[i + 1], prev = i ? s[i - 1] : ' ';
    switch (c) {
    case '*': case '`': case '|': case '~':
        return true;                                    /* emphasis, code, cell, strike */
    case '_':                                           /* intraword '_' is never emphasis */
        return !(isalnum((unsigned char)prev) && isalnum((unsigned char)next));
    case ']':                                           /* a link or image: ](...) [..] ]: */
        return next == '(' || next == '[' || next == ':';
    case '\\':                                          /* a backslash escape */
        return ispunct((unsigned char)next);
    case '#': case '>':                                 /* heading, block quote */
        return i == 0;
    default:
        return false;
    }
}

/* Text from the inputs (kernel names, perf lines, warnings) in Markdown,
 * escaped as report.html escapes HTML: '<' that could start a
 * tag, comment or autolink and '&' that could start an entity are written as
 * entities (no raw HTML), markup characters (md_special) get a backslash
 * (CommonMark §2.4), line ends become spaces (one table cell, one list item). */
static void md(FILE *fp, const char *s)
{
    s = s ? s : "";
    for (size_t i = 0; s[i]; i++) {
        char c = s[i], next = s[i + 1];
        if (c == '<' && (isalpha((unsigned char)next) || (next && strchr("/!?", next))))
            fputs("&lt;", fp);
        else if (c == '&' && (isalpha((unsigned char)next) || next == '#'))
            fputs("&amp;", fp);
        else if (md_special(s, i))
            fprintf(fp, "\\%c", c);
        else if (c == '\n' || c == '\r')
            fputc(' ', fp);
        else
            fputc(c, fp);
    }
}

void wr_md_text(FILE *fp, const char *s)
{
    md(fp, s);
}

/* A number for people: 4 significant digits, "" when missing. */
static const char *num(double v, char *b)
{
    if (!isfinite(v))
        return strcpy(b, "");
    if (v == floor(v) && fabs(v) < 1e9)
        snprintf(b, 32, "%.0f", v);
    else
        snprintf(b, 32, "%.4g", v);
    return b;
}

/* A number in the seed's format ("%.1f", "%.3e": one double), "-" when
 * missing, in b. */
static const char *fnum(double v, const char *fmt, char b[static 64])
{
    if (!isfinite(v))
        return strcpy(b, "-");
    if (!arch_double_format(fmt))
        fmt = "%g";
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(b, 64, fmt, v);   /* checked above: one conversion of a double */
#pragma GCC diagnostic pop
    return b;
}

static double total(const struct mx_result *res, const char *metric)
{
    return mx_value(res, res->nk, mx_metric_index(res->ap, metric));
}

/* Metric m of row r in format fmt; label metrics as text ("-" when none). */
static void fcell(FILE *fp, const struct mx_result *res, uint32_t r, int m, const char *fmt)
{
    char b[64];
    if (m >= 0 && res->ap->metrics[m].label != AL_NONE) {
        const char *l = mx_label(res, r, m);
        md_cell(fp, l ? l : "");
        return;
    }
    fputs(fnum(mx_value(res, r, m), fmt ? fmt : "%g", b), fp);
}

static void mcell(FILE *fp, const struct mx_result *res, uint32_t r, const char *metric)
{
    char b[32];
    int m = mx_metric_index(res->ap, metric);
    if (m >= 0 && res->ap->metrics[m].label != AL_NONE)
        md_cell(fp, mx_label(res, r, m));
    else
        fputs(num(mx_value(res, r, m), b), fp);
}

/* Expands {NAME} / {NAME:%.1f} in a label: a constant, a metric's TOTAL
 * value, launch_pass (1-based) or latency_pct. */
char *wr_report_label(const char *t, const struct mx_result *res, const struct wr_info *in)
{
    struct strbuf sb;
    sb_init(&sb);
    for (const char *p = t; *p;) {
        const char *e = *p == '{' ? strchr(p, '}') : NULL;
        if (!e) {
            sb_addc(&sb, *p++);
            continue;
        }
        char name[64], fmt[16] = "%g";
        size_t n = (size_t)(e - p - 1);
        snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), p + 1);
        char *colon = strchr(name, ':');
        if (colon) {
            snprintf(fmt, sizeof(fmt), "%s", colon + 1);
            *colon = '\0';
        }
        double v = !strcmp(name, "launch_pass") ? (double)res->launch_pass + 1
                 : !strcmp(name, "latency_pct") ? in->latency_pct
                 : arch_const_index(res->ap, name) >= 0 ? arch_const(res->ap, name)
                 : total(res, name);
        char b[64];
        sb_adds(&sb, fnum(res->launch_pass == UINT32_MAX && !strcmp(name, "launch_pass") ? NAN : v,
                          arch_double_format(fmt) ? fmt : "%g", b));
        p = e + 1;
    }
    return sb_detach(&sb);
}

/* ---- the seed's sections ---------------------------------------------------- */

static void title(FILE *fp, const struct wr_info *in)
{
    const char *base = strrchr(in->pmc_dir, '/') ? strrchr(in->pmc_dir, '/') + 1 : in->pmc_dir;
    fprintf(fp, "# PMC Analysis: %s\n\n", base);
    fprintf(fp, "Source: `%s`. Formulas: `docs/metrics.md` (`benchrun doc metrics`). Full per-kernel "
                "table: `per_kernel_metrics.csv`.\n\n", in->pmc_dir);
}

static void clock_line(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    char b[3][64];
    fputs("Utilisation denominators (CU, VALU, SALU, MFMA busy, occupancy) use ", fp);
    if (res->clock_src == MX_CLOCK_FALLBACK) {
        fprintf(fp, "each kernel's own clock (%s).\n\n", wr_clock_source(res));
        return;
    }
    fprintf(fp, "kernel time x %.0f MHz (%s)", res->clock_mhz, wr_clock_source(res));
    const struct mx_clock_stats *c = &in->clock;
    if (in->sampled && c->samples_running)
        fprintf(fp, "; %llu of %llu samples, median %s, p5-p95 %s-%s MHz",
                (unsigned long long)c->samples_running, (unsigned long long)c->samples_total,
                fnum(c->median, "%.0f", b[0]), fnum(c->p5, "%.0f", b[1]), fnum(c->p95, "%.0f", b[2]));
    fputs(".\n\n", fp);
}

/* The profile's report rows; without them every visible metric by name. */
static void whole(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    const struct arch_profile *ap = res->ap;
    fputs("## Whole run\n\n", fp);
    clock_line(fp, res, in);
    fputs("| Metric | Value | Unit |\n|---|---|---|\n", fp);
    for (int i = 0; i < ap->nreport; i++) {
        const struct arch_report_row *rr = &ap->report[i];
        char *label = wr_report_label(rr->label, res, in), *unit = wr_report_label(rr->unit, res, in);
        fputs("| ", fp);
        md_cell(fp, label);
        fputs(" | ", fp);
        fcell(fp, res, res->nk, rr->metric, rr->fmt);
        fputs(" | ", fp);
        md_cell(fp, unit);
        fputs(" |\n", fp);
        free(label);
        free(unit);
    }
    for (int m = 0; !ap->nreport && m < ap->nmetrics; m++) {
        if (ap->metrics[m].hidden)
            continue;
        fprintf(fp, "| %s | ", ap->metrics[m].name);
        mcell(fp, res, res->nk, ap->metrics[m].name);
        fprintf(fp, " | %s |\n", ap->metrics[m].unit);
    }
    fputc('\n', fp);
}

static void power(FILE *fp, const struct wr_info *in)
{
    const struct rp_power *pw = in->power;
    if (!pw)
        return;
    double span, busy;
    wr_power_spans(pw, &span, &busy);
    fprintf(fp, "## Power run kernel trace\n\n- File: `%s`\n", in->power_path);
    fprintf(fp, "- Trace files: %u, GPUs: %u, kernel launches: %llu\n", pw->nfiles, pw->ngpus,
            (unsigned long long)pw->dispatches);
    fprintf(fp, "- First kernel start to last kernel end: %.3f s%s\n", span,
            pw->copies.n ? " (copies included)" : "");
    fprintf(fp, "- GPU running at least one %s: %.3f s per GPU (%.1f%% mean; per GPU [",
            pw->copies.n ? "kernel or copy" : "kernel", busy, rp_power_busy_pct(pw));
    for (uint32_t g = 0; g < pw->ngpus; g++)
        fprintf(fp, "%s%.1f", g ? ", " : "", rp_gpu_busy_pct(&pw->gpu[g]));
    fprintf(fp, "])\n- Sum of kernel times (overlaps counted twice): %.3f s\n",
            pw->dur_ns_total / 1e9);
    if (pw->copies.n)   /* GPU busy above counts them (rpbusy.c) */
        fprintf(fp, "- Memory copies and sets: %zu, counted in GPU busy (kernels alone: %.1f%% "
                    "mean); see \"benchrun: memory copies and sets\"\n", pw->copies.n,
                rp_power_kernel_busy_pct(pw));
    fputc('\n', fp);
}

/* The seed's "Top N kernels by GPU time": counter-pass order. */
static const struct {
    const char *head, *metric, *fmt;
} topn_cols[] = {
    { "time %", "time_share_pct", "%.1f" }, { "launches", "launches", "%.0f" },
    { "us/launch", "mean_launch_us", "%.1f" }, { "CU busy", "CU_busy_frac", "%.2f" },
    { "VALU busy %", "VALUBusy_pct", "%.1f" }, { "thr/{WAVE}", "VALU_threads", "%.1f" },
    { "waves/CU", "waves_per_CU", "%.1f" }, { "max", "max_waves_CU", "%.0f" },
    { "% of max", "Occupancy_of_max_pct", "%.0f" }, { "issue %", "Wave_issue_pct", "%.1f" },
    { "FP64 TF/s", "TFLOPs_FP64_VALU", "%.2f" }, { "useful TF/s", "TFLOPs_FP64_VALU_useful", "%.2f" },
    { "% peak", "FP64_VALU_peak_pct", "%.1f" }, { "rd TB/s", "read_BW_TBps", "%.2f" },
    { "wr TB/s", "write_BW_TBps", "%.2f" }, { "atomic %", "atomic_req_pct", "%.0f" },
    { "FLOP/B", "AI_FP64", "%.2f" }, { "% roofline", "roofline_pct", "%.0f" },
};
enum { NTOPN = sizeof(topn_cols) / sizeof(topn_cols[0]) };

static void top_n(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    uint32_t rows = res->nk < (uint32_t)in->top_rows ? res->nk : (uint32_t)in->top_rows;
    fprintf(fp, "## Top %d kernels by GPU time\n\n| Kernel |", in->top_rows);
    for (int c = 0; c < NTOPN; c++) {
        char *h = wr_report_label(topn_cols[c].head, res, in);
        fprintf(fp, " %s |", h);
        free(h);
    }
    fputs("\n|---|", fp);
    for (int c = 0; c < NTOPN; c++)
        fputs("---|", fp);
    fputc('\n', fp);
    for (uint32_t i = 0; i < rows; i++) {
        uint32_t r = res->by_time[i];
        fputs("| ", fp);
        md(fp, res->shortname[r]);
        for (int c = 0; c < NTOPN; c++) {
            fputs(" | ", fp);
            fcell(fp, res, r, mx_metric_index(res->ap, topn_cols[c].metric), topn_cols[c].fmt);
        }
        fputs(" |\n", fp);
    }
    if (rows < res->nk) {
        double rest = 0;
        int ms = mx_metric_index(res->ap, "time_share_pct");
        for (uint32_t i = rows; i < res->nk; i++)
            rest += mx_value(res, res->by_time[i], ms);
        fprintf(fp, "\n%u more kernels: %.1f%% of GPU time.\n", res->nk - rows, rest);
    }
    char *legend = wr_report_label(
        "\nColumns: `thr/{WAVE}` threads active per vector instruction; `max` the kernel's own "
        "waves/CU limit from registers and LDS; `issue %` share of a wave's resident time spent "
        "issuing; `FP64 TF/s` issued (all {WAVE} lanes); `useful TF/s` issued x thread utilisation; "
        "`% peak` FP64 issued FLOP/s as % of {PEAK_FP64_VALU} TFLOP/s; `rd/wr TB/s` L2 -> memory "
        "traffic (upper bound on HBM); `atomic %` share of write requests.\n\n", res, in);
    fputs(legend, fp);
    free(legend);
}

/* The seed's "Kernels covering P% of GPU time": top_kernels.csv's rows. */
static void covering(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    if (in->top_n > 0)
        fprintf(fp, "## The %d largest kernels by GPU time\n\n", in->top_n);
    else
        fprintf(fp, "## Kernels covering %g%% of GPU time\n\n", in->time_pct);
    fprintf(fp, "%u of %u kernels cover %.1f%% of GPU time (time share from the %s). Also in "
            "`top_kernels.csv`.\n\n|", res->ntop, res->nk, total(res, "cum_share_pct"),
            res->share_from_power ? "unprofiled power run" : "counter passes");
    for (size_t c = 0; c + 1 < wr_ntopcols; c++)
        fprintf(fp, " %s |", c ? wr_topcols[c].head : "Kernel");
    fputs("\n|", fp);
    for (size_t c = 0; c + 1 < wr_ntopcols; c++)
        fputs("---|", fp);
    fputc('\n', fp);
    for (uint32_t i = 0; i <= res->ntop; i++) {
        uint32_t r = i < res->ntop ? res->order[i] : res->nk;
        fputs("| ", fp);
        md(fp, r == res->nk ? "TOTAL" : res->shortname[r]);
        for (size_t c = 1; c + 1 < wr_ntopcols; c++) {
            fputs(" | ", fp);
            if (r == res->nk && !strcmp(wr_topcols[c].metric, "cum_share_pct"))
                fputc('-', fp);
            else
                fcell(fp, res, r, mx_metric_index(res->ap, wr_topcols[c].metric), wr_topcols[c].fmt);
        }
        fputs(" |\n", fp);
    }
    char *legend = wr_report_label(
        "\nColumns: `CU util` SQ_BUSY_CU_CYCLES share; `VALU busy` share of CU cycles issuing "
        "vector instructions; `VALU lanes` share of the {WAVE} lanes active per vector instruction; "
        "`MFMA util` matrix-core busy share; FLOP rates are achieved TFLOP/s (INT8 as TOP/s) over "
        "the kernel's own time; `FP64 useful` = issued x lanes active; `low-prec MFMA` = "
        "BF16+FP16+FP8+INT8 matrix; `dominant` = precision using the largest share of its peak; "
        "`peak TF/s` = peak for this kernel's precision mix (total FLOP/s / sum of achieved/peak "
        "per precision); `compute %` = sum of achieved/peak per precision; `BW util` = (read+write) "
        "/ {PEAK_MEM_BW} TB/s (L2 -> memory traffic, an upper bound on HBM); `FLOP/B` = all FLOPs "
        "per byte; `ridge` = `peak TF/s` / {PEAK_MEM_BW}; `max TF/s` = roofline ceiling at this "
        "intensity, min(peak, FLOP/B x {PEAK_MEM_BW}); `max TB/s` = min({PEAK_MEM_BW}, peak / "
        "FLOP/B); `bound` = latency if both `compute %` and `BW util` are below {latency_pct}% "
        "(near neither ceiling: too little parallel work, or waves waiting on dependent memory "
        "accesses), otherwise compute if FLOP/B >= ridge (equivalently `compute %` > `BW util`), "
        "else memory. Kernels with no FLOPs have no ceiling (`-`).\n\n", res, in);
    fputs(legend, fp);
    free(legend);
}

static void data_checks(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    char b[5][64];
    bool nv = arch_is_nvidia(res->ap);   /* name NVIDIA's own clock counter */
    fprintf(fp, "## Data checks\n\n| Pass | Files / GPUs | Launches | Missing counters (launches, "
            "%% time) | Kernel time (s) | %s clock (MHz) | %s cycles outside kernel time | App time "
            "(s) |\n|---|---|---|---|---|---|---|---|\n", nv ? "sm__cycles_elapsed" : "GRBM_GUI_ACTIVE",
            nv ? "Elapsed" : "GUI");
    for (uint32_t p = 0; p < res->npasses; p++) {
        const struct mx_pass *mp = &res->pass[p];
        const struct rp_pass *ps = p < in->run->npasses ? &in->run->passes[p] : NULL;
        fprintf(fp, "| %s | ", mp->name);
        if (!mp->present || !ps) {
            fputs("0 / 0 | 0 | - | - | - | - | - |\n", fp);
            continue;
        }
        char gui[72];
        snprintf(gui, sizeof(gui), "%s%s", fnum(mp->gui_excess_pct, "%.1f", b[3]),
                 isfinite(mp->gui_excess_pct) ? "%" : "");
        fprintf(fp, "%u / %u | %llu | %llu, %s%% | %s | %s | %s | %s |\n", ps->nsets, ps->ngpus,
                (unsigned long long)ps->launches_total, (unsigned long long)ps->uncounted_launches,
                fnum(mp->uncounted_pct, "%.3f", b[0]), fnum(ps->dur_ns_total / 1e9, "%.3f", b[1]),
                fnum(mp->eff_clock_MHz, "%.0f", b[2]), gui, fnum(mp->perf_s, "%.2f", b[4]));
    }
    fprintf(fp, "\nKernel time spread across passes: %s%%.\n\n",
            fnum(res->time_spread_pct, "%.2f", b[0]));
}

static void warnings(FILE *fp, const struct mx_result *res)
{
    fputs("**Warnings:**\n\n", fp);
    if (!res->nwarn)
        fputs("- none\n", fp);
    for (size_t i = 0; i < res->nwarn; i++) {
        fputs("- ", fp);
        md(fp, res->warn[i]);
        fputc('\n', fp);
    }
    fputc('\n', fp);
}

/* ---- benchrun's sections ---------------------------------------------------- */

static void inputs(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    char b[32];
    fputs("## benchrun: inputs\n\n", fp);
    fprintf(fp, "- pmc run: `%s`\n", in->pmc_dir);
    fprintf(fp, "- arch: %s (%s), profile `%s`, chosen by %s\n", res->ap->arch, res->ap->product,
            res->ap->path, in->arch_source ? in->arch_source : "default");
    fprintf(fp, "- counters file: %s\n", in->counters_file ? in->counters_file : "(none: pass folders and the profile)");
    fprintf(fp, "- power run: %s\n", in->power_path ? in->power_path : "(none)");
    fprintf(fp, "- clock: %s MHz, %s", res->clock_src == MX_CLOCK_FALLBACK ? "per row" :
            num(res->clock_mhz, b), wr_clock_source(res));
    if (res->clock_src == MX_CLOCK_SAMPLED)
        fprintf(fp, ", %llu samples inside kernels", (unsigned long long)in->clock.samples_running);
    fprintf(fp, "\n- kernels: %u; top kernels by the %s time share\n", res->nk,
            res->share_from_power ? "power-run kernel trace" : "counter passes");
    for (uint32_t p = 0; p < in->run->npasses; p++) {
        const struct rp_pass *ps = &in->run->passes[p];
        if (!ps->nconstants)
            continue;
        fputs("- pass ", fp);
        md(fp, ps->name);
        fputs(": ", fp);
        for (uint32_t c = 0; c < ps->nconstants; c++) {   /* read/rpconst.h */
            fputs(c ? ", " : "", fp);
            md(fp, ps->constants[c]);
        }
        fputs(": constant fields of the GPU, not counters; left out of the counters\n", fp);
    }
    wr_sampling_head(fp, in->run);
    fputc('\n', fp);
}

static void all_metrics(FILE *fp, const struct mx_result *res)
{
    fprintf(fp, "## benchrun: every metric (whole run)\n\n| metric | value | unit | definition |\n|---|---|---|---|\n");
    for (int m = 0; m < res->ap->nmetrics; m++) {
        const struct arch_metric *am = &res->ap->metrics[m];
        if (am->hidden)
            continue;
        fprintf(fp, "| %s | ", am->name);
        mcell(fp, res, res->nk, am->name);
        fprintf(fp, " | %s | ", am->unit);
        md_cell(fp, am->desc);
        fputs(" |\n", fp);
    }
    fputs("\nTop-kernel columns (top_kernels.csv):\n\n", fp);
    for (size_t c = 0; c < wr_ntopcols; c++)
        fprintf(fp, "- **%s**: %s\n", wr_topcols[c].head, wr_topcols[c].def);
    fputc('\n', fp);
}

static void passes(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    char b[5][32], present[64];
    fprintf(fp, "## benchrun: per-pass details\n\n");
    fprintf(fp, "| pass | present | kernel time ms | launches | eff clock MHz | judged clock MHz | "
                "time without counters %% | lost launches | truncated lines | perf |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n");
    for (uint32_t p = 0; p < res->npasses; p++) {
        const struct mx_pass *mp = &res->pass[p];
        snprintf(present, sizeof(present), "%s", mp->present ? "yes" : "no");
        if (mp->present && mp->instrumented)   /* its rates use the other passes' time */
            snprintf(present, sizeof(present), "yes (instrumented: kernels %.3gx slower)",
                     mp->slowdown);
        fprintf(fp, "| %s | %s | %s | %s | %s | %s", mp->name, present,
                num(mp->present ? mp->time_ms : NAN, b[0]),
                num(mp->present ? mp->launches : NAN, b[1]), num(mp->eff_clock_MHz, b[2]),
                num(mp->judged_clock_MHz, b[4]));
        if (mp->judged_on && isfinite(mp->judged_clock_MHz))
            fprintf(fp, " (%s: %u)", mp->judged_on, mp->judged_kernels);
        fprintf(fp, " | %s | %llu | %llu | ", num(mp->uncounted_pct, b[3]),
                (unsigned long long)mp->lost_launches, (unsigned long long)mp->truncated);
        md(fp, mp->perf ? mp->perf : "(no match)");
        fputs(" |\n", fp);
    }
    fprintf(fp, "\nperf: the last line matching `%s` in the pass folder's log.*, *.txt, *.log. "
                "judged clock: what the clock check compares with its limits, over the kernels whose "
                "launches are long enough for counter mode's per-launch cycles not to matter (long "
                "kernels), else every kernel with those cycles bounded (README, Warnings).\n\n",
            in->perf_regex);
}

static void consts(FILE *fp, const struct mx_result *res)
{
    const struct arch_profile *ap = res->ap;
    char b[32];
    fputs("## Constants from agent_info\n\n", fp);
    int n = 0;
    for (int i = 0; i < ap->nconsts; i++)
        if (strcmp(ap->consts[i].source, "profile")) {
            fprintf(fp, "- %s = %s (%s)\n", ap->consts[i].name, num(ap->consts[i].value, b),
                    ap->consts[i].source);
            n++;
        }
    fputs(n ? "\nAll other constants come from the arch profile.\n" 
            : "none: every constant comes from the arch profile\n", fp);
}

int wr_report_md(const struct mx_result *res, const struct wr_info *in, const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    title(a.fp, in);
    whole(a.fp, res, in);
    power(a.fp, in);
    top_n(a.fp, res, in);
    covering(a.fp, res, in);
    data_checks(a.fp, res, in);
    warnings(a.fp, res);
    wr_copies_md(a.fp, in);
    if (in->energy)
        wr_energy_md(a.fp, in->energy, in->top_rows);
    inputs(a.fp, res, in);
    all_metrics(a.fp, res);
    passes(a.fp, res, in);
    wr_sampling_md(a.fp, res, in->run);
    consts(a.fp, res);
    return fs_atomic_commit(&a);    /* says why a write failed */
}
