/* wr_md.c - report.md: what was analyzed, the clock and its source, the
 * whole-run table (every visible metric with unit and definition), the top
 * kernels (--top rows) with each column defined, per-pass checks, constants
 * that came from agent_info, and the warnings ("none" when none). Paths are
 * printed as given so a test can normalize them. */
#include "write/analysis.h"

#include "util/error.h"
#include "util/fsutil.h"

#include <math.h>
#include <string.h>

/* Markdown table cell: '|' escaped, newlines as spaces. */
static void md(FILE *fp, const char *s)
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

static void mcell(FILE *fp, const struct mx_result *res, uint32_t r, const char *metric)
{
    char b[32];
    int m = mx_metric_index(res->ap, metric);
    if (m >= 0 && res->ap->metrics[m].label != AL_NONE)
        md(fp, mx_label(res, r, m));
    else
        fputs(num(mx_value(res, r, m), b), fp);
}

static void head(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    char b[32];
    fprintf(fp, "# benchrun analyze\n\n");
    fprintf(fp, "- pmc run: `%s`\n", in->pmc_dir);
    fprintf(fp, "- arch: %s (%s), profile `%s`, chosen by %s\n", res->ap->arch, res->ap->product,
            res->ap->path, in->arch_source ? in->arch_source : "default");
    fprintf(fp, "- counters file: %s\n", in->counters_file ? in->counters_file : "(none: pass folders and the profile)");
    fprintf(fp, "- power run: %s\n", in->power_path ? in->power_path : "(none)");
    fprintf(fp, "- clock: %s MHz, %s", res->clock_src == MX_CLOCK_FALLBACK ? "per row" :
            num(res->clock_mhz, b), wr_clock_source(res));
    if (res->clock_src == MX_CLOCK_SAMPLED)
        fprintf(fp, ", %llu samples inside kernels", (unsigned long long)in->clock.samples_running);
    fprintf(fp, "\n- kernels: %u; time shares from the %s\n\n", res->nk,
            res->share_from_power ? "power-run kernel trace" : "counter passes");
}

static void whole(FILE *fp, const struct mx_result *res)
{
    fprintf(fp, "## Whole run\n\n| metric | value | unit | definition |\n|---|---|---|---|\n");
    for (int m = 0; m < res->ap->nmetrics; m++) {
        const struct arch_metric *am = &res->ap->metrics[m];
        if (am->hidden)
            continue;
        fprintf(fp, "| %s | ", am->name);
        mcell(fp, res, res->nk, am->name);
        fprintf(fp, " | %s | ", am->unit);
        md(fp, am->desc);
        fputs(" |\n", fp);
    }
    fputc('\n', fp);
}

static void top_row(FILE *fp, const struct mx_result *res, uint32_t r)
{
    bool tot = r == res->nk;
    fputc('|', fp);
    for (size_t c = 0; c + 1 < wr_ntopcols; c++) {
        fputc(' ', fp);
        if (!wr_topcols[c].metric)
            md(fp, tot ? "TOTAL" : res->shortname[r]);
        else
            mcell(fp, res, r, wr_topcols[c].metric);
        fputs(" |", fp);
    }
    fputc('\n', fp);
}

static void top(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    uint32_t rows = res->ntop < (uint32_t)in->top_rows ? res->ntop : (uint32_t)in->top_rows;
    fprintf(fp, "## Top kernels\n\n%u kernel(s) cover ", res->ntop);
    if (in->top_n > 0)
        fprintf(fp, "the --top-n %d", in->top_n);
    else
        fprintf(fp, "--time-pct %g%%", in->time_pct);
    fprintf(fp, " of GPU time; %u shown (--top %d). Full list: per_kernel_metrics.csv.\n\n|",
            rows, in->top_rows);
    for (size_t c = 0; c + 1 < wr_ntopcols; c++)
        fprintf(fp, " %s |", wr_topcols[c].head);
    fputs("\n|", fp);
    for (size_t c = 0; c + 1 < wr_ntopcols; c++)
        fputs("---|", fp);
    fputc('\n', fp);
    for (uint32_t i = 0; i < rows; i++)
        top_row(fp, res, res->order[i]);
    top_row(fp, res, res->nk);
    fputs("\nColumns:\n\n", fp);
    for (size_t c = 0; c < wr_ntopcols; c++)
        fprintf(fp, "- **%s**: %s\n", wr_topcols[c].head, wr_topcols[c].def);
    fputc('\n', fp);
}

static void passes(FILE *fp, const struct mx_result *res, const struct wr_info *in)
{
    char b[5][32], present[64];
    fprintf(fp, "## Per-pass checks\n\nKernel time spread across passes: %s%%\n\n",
            num(res->time_spread_pct, b[0]));
    fprintf(fp, "| pass | present | kernel time ms | launches | eff clock MHz | time without counters %% "
                "| lost launches | truncated lines |%s\n|---|---|---|---|---|---|---|---|%s\n",
            in->perf_regex ? " perf |" : "", in->perf_regex ? "---|" : "");
    for (uint32_t p = 0; p < res->npasses; p++) {
        const struct mx_pass *mp = &res->pass[p];
        snprintf(present, sizeof(present), "%s", mp->present ? "yes" : "no");
        if (mp->present && mp->instrumented)   /* its rates use the other passes' time */
            snprintf(present, sizeof(present), "yes (instrumented: kernels %.3gx slower)",
                     mp->slowdown);
        fprintf(fp, "| %s | %s | %s | %s | %s | %s | %llu | %llu |", mp->name,
                present, num(mp->present ? mp->time_ms : NAN, b[0]),
                num(mp->present ? mp->launches : NAN, b[1]), num(mp->eff_clock_MHz, b[2]),
                num(mp->uncounted_pct, b[3]), (unsigned long long)mp->lost_launches,
                (unsigned long long)mp->truncated);
        if (in->perf_regex) {
            fputc(' ', fp);
            md(fp, mp->perf ? mp->perf : "(no match)");
            fputs(" |", fp);
        }
        fputc('\n', fp);
    }
    fputc('\n', fp);
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
    fputs(n ? "\nAll other constants come from the arch profile.\n\n"
            : "none: every constant comes from the arch profile\n\n", fp);
}

int wr_report_md(const struct mx_result *res, const struct wr_info *in, const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    head(a.fp, res, in);
    whole(a.fp, res);
    top(a.fp, res, in);
    passes(a.fp, res, in);
    consts(a.fp, res);
    fputs("## Warnings\n\n", a.fp);
    if (!res->nwarn)
        fputs("none\n", a.fp);
    for (size_t i = 0; i < res->nwarn; i++)
        fprintf(a.fp, "- %s\n", res->warn[i]);
    if (ferror(a.fp)) {
        fs_atomic_abort(&a);
        return br_error("cannot write '%s'", path);
    }
    return fs_atomic_commit(&a);
}
