/* wr_energy.c - the energy analysis written out (contract in wr_energy.h):
 * energy_per_kernel.csv, energy_summary.json and energy.md of
 * `benchrun energy`, and the pieces `analyze --power` adds to its outputs.
 * Numbers as the other writers print them: wr_num (Python repr() of the
 * float, NaN an empty cell / JSON null). */
#include "write/wr_energy.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/textesc.h"
#include "util/xalloc.h"
#include "util/jsonw.h"
#include "write/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const wr_eff_cols[WR_NEFF] = {
    "GFLOP_per_J_FP64", "GFLOP_per_J_FP32", "GFLOP_per_J_FP16", "GFLOP_per_J_lowp",
    "GFLOP_per_J_all", "mem_bytes_per_J",
};
/* The counter run's rate behind each (TFLOP/s, TB/s). */
static const char *const eff_metric[WR_NEFF] = {
    "TFLOPs_FP64", "TFLOPs_FP32", "TFLOPs_FP16_VALU", "TFLOPs_lowp_MFMA", "TFLOPs_all",
    "mem_BW_TBps",
};

/* The energy columns: name, unit, definition (docs/metrics.md, wr_energy_doc). */
static const struct { const char *name, *unit, *def; } ecols[] = {
    { "energy_J", "J", "attributed energy: each sensor segment's energy (the energy counter's "
      "difference between two readings, else power x time: a power sample x the time since the "
      "previous one) split over what ran in it in proportion to overlap time x the class's "
      "fitted power (power_fit_W; idle: the fitted idle power; each concurrent launch its own), "
      "so a segment's sum stays the sensor's; a class without a usable fitted power (none, SE "
      "over 20 % of it, or not positive) counts at the segment's mean power, a segment where no "
      "class has one and a run without a fit are split by overlap time (energy_time_J); summed "
      "over launches and GPUs; energy_method says which. TOTAL: the kernels' sum" },
    { "energy_share_pct", "%", "energy_J / the whole run's energy (kernels + copies + idle in the "
      "kernel window) x 100" },
    { "power_running_W", "W", "energy_J / the kernel's running time inside sensor segments" },
    { "clock_running_MHz", "MHz", "time-weighted mean gfx clock while it runs (a sample's clock "
      "holds since the previous sample)" },
    { "energy_per_launch_J", "J", "energy_J / launches in the power run" },
    { "energy_resolved_pct", "%", "share of its running time in sensor segments where it was the "
      "only class running for the whole segment; where low, the attributed split follows time, "
      "not power: use the fit" },
    { "power_fit_W", "W", "least-squares mean power while it runs: window power = P_idle x idle "
      "fraction + sum of P_k x busy fraction of k, weighted by window length, over the sensor's "
      "windows (energy counter intervals, NVML driver power samples or power refreshes: the most "
      "numerous), the sensor's lag fitted; a group's or the other kernels' power when so" },
    { "power_fit_se_W", "W", "its standard error: sqrt(sigma^2 (X'WX)^-1) from the weighted "
      "residual variance, x sqrt((1 + rho) / (1 - rho)) for a lag-1 residual autocorrelation "
      "rho > 0" },
    { "energy_fit_J", "J", "power_fit_W x running time" },
    { "power_fit", "", "ok (its own column), uncertain (SE > 20 % of the power, or power <= 0), "
      "group N (its busy fraction is collinear with others', VIF > 100: only the group's power is "
      "identifiable), other (under 0.5 % of the activity time or beyond the 24 largest: pooled), "
      "none (no fit)" },
    { "GFLOP_per_J_FP64", "GFLOP/J", "TFLOPs_FP64 x 1000 / power_running_W (counter run's rate; "
      "analyze only)" },
    { "GFLOP_per_J_FP32", "GFLOP/J", "TFLOPs_FP32 x 1000 / power_running_W" },
    { "GFLOP_per_J_FP16", "GFLOP/J", "TFLOPs_FP16_VALU x 1000 / power_running_W" },
    { "GFLOP_per_J_lowp", "GFLOP/J", "TFLOPs_lowp_MFMA x 1000 / power_running_W" },
    { "GFLOP_per_J_all", "GFLOP/J", "TFLOPs_all x 1000 / power_running_W" },
    { "mem_bytes_per_J", "B/J", "mem_BW_TBps x 1e12 / power_running_W" },
    { "energy_time_J", "J", "the same segments split by overlap time alone: a stretch where n "
      "launches run gives each 1/n of its energy (exact where the class had the segments to "
      "itself, energy_resolved_pct; where a slow sensor's segments span several classes it "
      "gives each their mean power, moving energy from high- to low-power classes)" },
    { "energy_method", "", "how energy_J was split: fit-weighted (by overlap time x its fitted "
      "power) or time (its own power not known: at the segments' mean power, or by time where "
      "no class of a segment was fitted, or no fit)" },
};
#define NECOLS (sizeof(ecols) / sizeof(ecols[0]))

const char *wr_energy_col_name(size_t i)
{
    return i < NECOLS ? ecols[i].name : "";
}

const size_t wr_energy_ncols = NECOLS;

void wr_energy_doc(struct strbuf *out)
{
    sb_adds(out, "## Energy (power run; every profile)\n\n"
        "`benchrun energy PROF_DIR` and `benchrun analyze ... --power PROF_DIR` (columns after "
        "all the others in per_kernel_metrics.csv, `energy` in summary.json, report.md's Energy "
        "section) compute these from the power run's telemetry and kernel trace, which share "
        "CLOCK_BOOTTIME; they are not profile expressions. Per GPU, then pooled over the GPUs "
        "(sums). The whole run is the kernel window [first start, last end] of each node. Two "
        "methods, each number says which: the attribution (`energy_J` and what is derived from "
        "it) and the fit (`power_fit_*`, `energy_fit_J`). Known answers: tests/cli/0670 "
        "(tests/tools/gen_power.c).\n\n| column | unit | definition |\n|---|---|---|\n");
    for (size_t i = 0; i < NECOLS; i++)
        sb_addf(out, "| `%s` | %s | %s |\n", ecols[i].name, *ecols[i].unit ? ecols[i].unit : "–",
                ecols[i].def);
    sb_adds(out, "\nWhole run (`energy.whole_run`): `energy_J` = `kernels_J` + `copies_J` + "
        "`idle_J` over the kernel window, `mean_power_W` = energy / time covered by the sensor "
        "(summed over GPUs), `peak_power_W` the largest power sample in the window, "
        "`cross_check`: over the span between the first and last energy counter readings in the "
        "window, the counter's difference against power x time of the sampled power and of the "
        "driver samples, and the fit's energy.\n");
}

/* A CSV number as the other CSVs write theirs: Python repr() of the float,
 * empty when there is none. */
static const char *wr_num(double v, char *buf)
{
    if (!isfinite(v))
        buf[0] = '\0';
    else
        jw_repr_double(buf, 32, v);
    return buf;
}

/* ---- figures ---- */

static double ratio(double a, double b)
{
    return b > 0 && isfinite(a) ? a / b : NAN;
}

void wr_energy_col(const struct wr_energy *w, uint32_t c, struct wr_ecol *o)
{
    const struct en_result *en = w->en;
    const struct en_col *x = &en->col[c];
    o->launches = (double)x->launches;
    o->time_ms = x->time_ns / 1e6;
    o->energy_J = x->energy_J;
    o->share_pct = 100 * ratio(x->energy_J, en->all.total_J);
    o->power_W = ratio(x->energy_J, x->covered_ns * 1e-9);
    o->clock_MHz = ratio(x->clock_int, x->clock_ns);
    o->J_per_launch = ratio(x->energy_J, (double)x->launches);
    o->resolved_pct = 100 * ratio(x->resolved_ns, x->covered_ns);
    o->fit_W = x->fit_status == EN_FIT_NONE ? NAN : x->fit_W;
    o->fit_se_W = x->fit_status == EN_FIT_NONE ? NAN : x->fit_se_W;
    o->fit_J = o->fit_W * x->time_ns * 1e-9;
    o->time_J = x->energy_time_J;
    o->method = isfinite(x->weight_W) ? "fit-weighted" : "time";
    if (x->fit_status == EN_FIT_GROUPED)
        snprintf(o->fit, sizeof(o->fit), "group %d", x->fit_group + 1);
    else
        snprintf(o->fit, sizeof(o->fit), "%s", en_fit_status_name(x->fit_status));
}

void wr_energy_total(const struct wr_energy *w, struct wr_ecol *o)
{
    const struct en_whole *a = &w->en->all;
    uint64_t launches = 0;
    for (uint32_t c = 0; c < w->en->ncols; c++)
        launches += w->en->col[c].launches;
    memset(o, 0, sizeof(*o));
    o->launches = (double)launches;
    o->time_ms = a->window_ns / 1e6;
    o->energy_J = a->total_J;
    o->share_pct = a->total_J > 0 ? 100 : NAN;
    o->power_W = a->mean_W;
    o->clock_MHz = NAN;
    o->J_per_launch = ratio(a->total_J, (double)launches);
    o->resolved_pct = o->fit_se_W = o->fit_W = NAN;
    o->fit_J = w->en->fit.done ? w->en->fit.total_J : NAN;
    snprintf(o->fit, sizeof(o->fit), "%s", w->en->fit.done ? "ok" : "none");
    o->time_J = a->kernels_time_J + a->copies_time_J + a->idle_time_J;
    o->method = "";
}

/* The idle "class": covered time with nothing running. */
static void idle_col(const struct wr_energy *w, struct wr_ecol *o)
{
    const struct en_whole *a = &w->en->all;
    const struct en_fit *f = &w->en->fit;
    memset(o, 0, sizeof(*o));
    o->launches = o->clock_MHz = o->J_per_launch = o->resolved_pct = NAN;
    o->time_ms = a->idle_ns / 1e6;
    o->energy_J = a->idle_J;
    o->share_pct = 100 * ratio(a->idle_J, a->total_J);
    o->power_W = ratio(a->idle_J, a->idle_ns * 1e-9);
    o->fit_W = f->done ? f->idle_W : NAN;
    o->fit_se_W = f->done ? f->idle_se_W : NAN;
    o->fit_J = o->fit_W * a->idle_ns * 1e-9;
    snprintf(o->fit, sizeof(o->fit), "%s", isfinite(o->fit_W) ? "ok" : "none");
    o->time_J = a->idle_time_J;
    o->method = isfinite(w->en->idle_weight_W) ? "fit-weighted" : "time";
}

/* The efficiency of counter-run row r (mx->nk: TOTAL; < 0: none) at power_W. */
static void eff_of_row(const struct wr_energy *w, long r, double power_W, double *eff)
{
    for (int i = 0; i < WR_NEFF; i++) {
        int m = r >= 0 ? mx_metric_index(w->mx->ap, eff_metric[i]) : -1;
        double v = m >= 0 ? mx_value(w->mx, (uint32_t)r, m) : NAN;
        /* TFLOP/s x 1e3 / W = GFLOP/J; TB/s x 1e12 / W = B/J. */
        eff[i] = ratio(v * (i == WR_NEFF - 1 ? 1e12 : 1e3), power_W);
    }
}

void wr_energy_eff(const struct wr_energy *w, uint32_t k, double power_W, double *eff)
{
    eff_of_row(w, w->mx && w->mx_row ? w->mx_row[k] : -1, power_W, eff);
}

/* ---- setup ---- */

static const struct en_result *sort_en;
static int cmp_energy(const void *a, const void *b)
{
    const struct en_col *x = &sort_en->col[*(const uint32_t *)a], *y = &sort_en->col[*(const uint32_t *)b];
    if (x->energy_J != y->energy_J)
        return x->energy_J > y->energy_J ? -1 : 1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

void wr_energy_init(struct wr_energy *w, const struct en_result *en, const struct prun *pr,
                    const char *prof_dir, const struct intern *names, const struct mx_result *mx)
{
    memset(w, 0, sizeof(*w));
    w->en = en, w->pr = pr, w->prof_dir = prof_dir, w->mx = mx;
    uint32_t nk = en->nkernels;
    w->full = names->str;
    w->shortname = xcalloc(nk + 1, sizeof(*w->shortname));
    w->mx_row = xmalloc((nk + 1) * sizeof(*w->mx_row));
    for (uint32_t k = 0; k < nk; k++)
        w->mx_row[k] = -1;
    for (uint32_t r = 0; mx && r < mx->nk; r++)
        if (mx->kid[r] < nk)
            w->mx_row[mx->kid[r]] = (int32_t)r;
    for (uint32_t k = 0; k < nk; k++)
        w->shortname[k] = w->mx_row[k] >= 0 ? xstrdup(mx->shortname[w->mx_row[k]])
                                            : mx_display_name(names->str[k]);
    if (!mx)
        mx_unique_names(w->shortname, nk);
    w->order = xmalloc((nk + 1) * sizeof(*w->order));
    for (uint32_t k = 0; k < nk; k++)
        if (en->col[k].time_ns > 0)
            w->order[w->norder++] = k;
    sort_en = en;
    qsort(w->order, w->norder, sizeof(*w->order), cmp_energy);
}

void wr_energy_release(struct wr_energy *w)
{
    for (uint32_t k = 0; w->shortname && k < w->en->nkernels; k++)
        free(w->shortname[k]);
    free(w->shortname);
    free(w->order);
    free(w->mx_row);
    free(w->prof_dir_owned);
    memset(w, 0, sizeof(*w));
}

/* ---- CSV ---- */

static void ecol_cells(FILE *fp, const struct wr_ecol *e, const double *eff)
{
    char b[32];
    const double v[] = { e->energy_J, e->share_pct, e->power_W, e->clock_MHz, e->J_per_launch,
                         e->resolved_pct, e->fit_W, e->fit_se_W, e->fit_J };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        fprintf(fp, ",%s", wr_num(v[i], b));
    fputc(',', fp);
    wr_csv_field(fp, e->fit);
    for (int i = 0; i < WR_NEFF; i++)
        fprintf(fp, ",%s", wr_num(eff ? eff[i] : NAN, b));
    fprintf(fp, ",%s,", wr_num(e->time_J, b));
    wr_csv_field(fp, e->method ? e->method : "");
}

void wr_energy_cells(FILE *fp, const struct wr_energy *w, long k)
{
    struct wr_ecol e;
    double eff[WR_NEFF];
    if (k >= 0) {
        wr_energy_col(w, (uint32_t)k, &e);
        wr_energy_eff(w, (uint32_t)k, e.power_W, eff);
        ecol_cells(fp, &e, eff);
        return;
    }
    /* TOTAL over the kernels: their energy, time and launches. */
    const struct en_result *en = w->en;
    double cov = 0, n = 0, ci = 0, cn = 0;
    for (uint32_t c = 0; c < en->nkernels; c++) {
        cov += en->col[c].covered_ns, n += (double)en->col[c].launches;
        ci += en->col[c].clock_int, cn += en->col[c].clock_ns;
    }
    memset(&e, 0, sizeof(e));
    e.energy_J = en->all.kernels_J;
    e.time_J = en->all.kernels_time_J;
    e.method = "";
    e.share_pct = 100 * ratio(en->all.kernels_J, en->all.total_J);
    e.power_W = ratio(en->all.kernels_J, cov * 1e-9);
    e.clock_MHz = ratio(ci, cn);
    e.J_per_launch = ratio(en->all.kernels_J, n);
    e.resolved_pct = e.fit_W = e.fit_se_W = e.fit_J = NAN;
    snprintf(e.fit, sizeof(e.fit), "%s", "");
    /* the TOTAL row's rates over the kernels' power */
    eff_of_row(w, w->mx ? (long)w->mx->nk : -1, e.power_W, eff);
    ecol_cells(fp, &e, eff);
}

static void csv_row(FILE *fp, const char *name, const char *full, const struct wr_ecol *e,
                    const double *eff)
{
    char b[32];
    wr_csv_field(fp, name);
    fputc(',', fp);
    wr_csv_field(fp, full);
    if (isfinite(e->launches))
        fprintf(fp, ",%.0f", e->launches);
    else
        fputc(',', fp);
    fprintf(fp, ",%s", wr_num(e->time_ms, b));
    ecol_cells(fp, e, eff);
    fputc('\n', fp);
}

/* Every row of the table in order: the kernels by energy, the copy classes
 * that ran, idle, the whole run. fn gets the row's names, figures and (for
 * kernels) efficiency. */
enum row_kind { ROW_KERNEL, ROW_COPY, ROW_IDLE, ROW_TOTAL };
typedef void (*row_fn)(void *ctx, enum row_kind kind, const char *name, const char *full,
                       const struct wr_ecol *e, const double *eff);

static void each_row(const struct wr_energy *w, row_fn fn, void *ctx)
{
    struct wr_ecol e;
    double eff[WR_NEFF];
    for (uint32_t i = 0; i < w->norder; i++) {
        uint32_t k = w->order[i];
        wr_energy_col(w, k, &e);
        wr_energy_eff(w, k, e.power_W, eff);
        fn(ctx, ROW_KERNEL, w->shortname[k], w->full[k], &e, eff);
    }
    for (uint32_t c = 0; c < EN_NCOPY; c++) {
        uint32_t col = en_col_of(w->en, EN_COPY, c);
        if (w->en->col[col].time_ns <= 0)
            continue;
        char name[32];
        snprintf(name, sizeof(name), "copy %s", en_copy_label((enum en_copy)c));
        wr_energy_col(w, col, &e);
        fn(ctx, ROW_COPY, name, name, &e, NULL);
    }
    idle_col(w, &e);
    fn(ctx, ROW_IDLE, "idle", "idle", &e, NULL);
    wr_energy_total(w, &e);
    fn(ctx, ROW_TOTAL, "TOTAL", "TOTAL", &e, NULL);
}

static void csv_each(void *ctx, enum row_kind kind, const char *name, const char *full,
                     const struct wr_ecol *e, const double *eff)
{
    (void)kind;
    csv_row(ctx, name, full, e, eff);
}

static int write_csv(const struct wr_energy *w, const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    fputs("kernel,kernel_full_name,launches,time_ms", a.fp);
    for (size_t i = 0; i < wr_energy_ncols; i++)
        fprintf(a.fp, ",%s", wr_energy_col_name(i));
    fputc('\n', a.fp);
    each_row(w, csv_each, a.fp);
    if (ferror(a.fp)) {
        fs_atomic_abort(&a);
        return br_error("cannot write '%s'", path);
    }
    return fs_atomic_commit(&a);
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *ecol_json(const char *name, const char *full, const struct wr_ecol *e,
                         const double *eff)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
        "kernel", esc_json_string(name), "kernel_full_name", esc_json_string(full),
        "launches", jnum(e->launches),
        "time_ms", jnum(e->time_ms), "energy_J", jnum(e->energy_J),
        "energy_share_pct", jnum(e->share_pct), "power_running_W", jnum(e->power_W),
        "clock_running_MHz", jnum(e->clock_MHz), "energy_per_launch_J", jnum(e->J_per_launch),
        "energy_resolved_pct", jnum(e->resolved_pct), "power_fit_W", jnum(e->fit_W),
        "power_fit_se_W", jnum(e->fit_se_W), "energy_fit_J", jnum(e->fit_J), "power_fit", e->fit);
    for (int i = 0; eff && i < WR_NEFF; i++)
        json_object_set_new(o, wr_eff_cols[i], jnum(eff[i]));
    json_object_set_new(o, "energy_time_J", jnum(e->time_J));
    json_object_set_new(o, "energy_method", json_string(e->method ? e->method : ""));
    return o;
}

static const char *member_name(const struct wr_energy *w, uint32_t m, char *buf)
{
    if (m == UINT32_MAX)
        return "idle";
    if (m == UINT32_MAX - 1)
        return "other kernels";
    if (m < w->en->nkernels)
        return w->shortname[m];
    snprintf(buf, 32, "copy %s", en_copy_label((enum en_copy)(m - w->en->nkernels)));
    return buf;
}

static json_t *fit_json(const struct wr_energy *w)
{
    const struct en_fit *f = &w->en->fit;
    json_t *groups = json_array();
    char b[32];
    for (uint32_t g = 0; g < f->ngroups; g++) {
        json_t *m = json_array();
        for (uint32_t i = 0; i < f->group[g].n; i++)
            json_array_append_new(m, esc_json_string(member_name(w, f->group[g].cols[i], b)));
        json_array_append_new(groups, json_pack("{s:i, s:o, s:o, s:o}", "group", (int)g + 1,
                              "members", m, "power_W", jnum(f->group[g].W),
                              "power_se_W", jnum(f->group[g].se_W)));
    }
    return json_pack("{s:b, s:o, s:s, s:I, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:I, s:o, s:o, "
                     "s:o, s:o, s:o, s:f, s:I, s:o}",
        "done", f->done, "why_not", f->done ? json_null() : json_string(f->why_not ? f->why_not : ""),
        "source", en_src_name(f->src), "windows", (json_int_t)f->nwin, "window_ms", jnum(f->win_ms),
        "lag_ms", jnum(f->done ? f->lag_ms : NAN), "lag_estimated", f->lag_estimated,
        "idle_W", jnum(f->idle_W), "idle_se_W", jnum(f->idle_se_W),
        "other_W", jnum(f->have_other ? f->other_W : NAN),
        "other_se_W", jnum(f->have_other ? f->other_se_W : NAN),
        "other_classes", (json_int_t)f->nother, "rms_W", jnum(f->rms_W), "r2", jnum(f->r2),
        "rho1", jnum(f->rho1), "se_inflation", jnum(f->se_inflation), "total_J", jnum(f->total_J),
        "vif_max", EN_VIF_MAX, "columns", (json_int_t)f->ncols, "groups", groups);
}

static json_t *whole_json(const struct en_whole *a)
{
    double c = a->counter_J;
    json_t *o = json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o}",
        "energy_source", en_src_name(a->src), "sources_mixed", a->mixed,
        "energy_J", jnum(a->total_J), "kernels_J", jnum(a->kernels_J), "copies_J", jnum(a->copies_J),
        "idle_J", jnum(a->idle_J), "window_s", jnum(a->window_ns * 1e-9),
        "covered_pct", jnum(100 * ratio(a->covered_ns, a->window_ns)),
        "busy_pct", jnum(100 * ratio(a->busy_ns, a->window_ns)),
        "mean_power_W", jnum(a->mean_W), "peak_power_W", jnum(a->peak_W),
        "cross_check", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
            "span_s", jnum(a->xspan_ns * 1e-9), "counter_J", jnum(c),
            "power_x_time_J", jnum(a->power_J), "power_vs_counter_pct", jnum(100 * (a->power_J - c) / c),
            "driver_J", jnum(a->driver_J), "driver_vs_counter_pct", jnum(100 * (a->driver_J - c) / c),
            "fit_J", jnum(a->fit_J), "fit_vs_counter_pct", jnum(100 * (a->fit_J - c) / c),
            "note", "from the first to the last energy counter reading inside the window"),
        "segment_ms", jnum(a->segment_ms), "segments", (json_int_t)a->segments,
        "note", json_string("window: the node's kernel window [first start, last end]"));
    json_object_set_new(o, "segments_shifted", json_integer((json_int_t)a->segments_shifted));
    json_object_set_new(o, "segments_fit_weighted", json_integer((json_int_t)a->segments_weighted));
    json_object_set_new(o, "time_split", json_pack("{s:o, s:o, s:o, s:s}",
        "kernels_J", jnum(a->kernels_time_J), "copies_J", jnum(a->copies_time_J),
        "idle_J", jnum(a->idle_time_J),
        "note", "every segment split by overlap time alone (energy_time_J)"));
    return o;
}

static json_t *gpus_json(const struct wr_energy *w)
{
    json_t *a = json_array();
    const struct prun *pr = w->pr;
    for (size_t g = 0; pr && g < pr->ngpus; g++) {
        const struct prun_gpu *pg = &pr->gpu[g];
        json_t *keys = json_array();
        for (size_t k = 0; k < pr->nkeys; k++)
            if (pr->key[k].tel == (int)g)
                json_array_append_new(keys, json_pack("{s:o, s:I, s:s, s:o}", "trace_file",
                    esc_json_string(pr->key[k].path), "agent",
                    (json_int_t)pr->key[k].agent,
                    "matched_by", en_match_name(pr->key[k].how), "correlation", jnum(pr->key[k].r)));
        json_t *o = whole_json(&w->en->gpu[g]);
        json_object_set_new(o, "file", esc_json_string(pg->name));
        json_object_set_new(o, "node", esc_json_string(pg->node));
        json_object_set_new(o, "gpu", json_integer(pg->index));
        json_object_set_new(o, "power_column", json_string(pg->power_col));
        json_object_set_new(o, "driver_power_file", esc_json_string(pg->drv_path));
        json_object_set_new(o, "window_start_ns", pg->win1 >= pg->win0 ? json_integer(pg->win0) : json_null());
        json_object_set_new(o, "window_end_ns", pg->win1 >= pg->win0 ? json_integer(pg->win1) : json_null());
        json_object_set_new(o, "trace_gpus", keys);
        json_array_append_new(a, o);
    }
    return a;
}

struct json_rows {
    json_t *kernels, *copies, *idle;
    bool eff;
};

static void json_each(void *ctx, enum row_kind kind, const char *name, const char *full,
                      const struct wr_ecol *e, const double *eff)
{
    struct json_rows *j = ctx;
    if (kind == ROW_KERNEL)
        json_array_append_new(j->kernels, ecol_json(name, full, e, j->eff ? eff : NULL));
    else if (kind == ROW_COPY)
        json_array_append_new(j->copies, ecol_json(name, full, e, NULL));
    else if (kind == ROW_IDLE)
        j->idle = ecol_json(name, full, e, NULL);
}

json_t *wr_energy_json(const struct wr_energy *w)
{
    struct json_rows j = { json_array(), json_array(), NULL, w->mx != NULL };
    json_t *warn = json_array();
    each_row(w, json_each, &j);
    for (size_t i = 0; i < w->en->warn.n; i++)
        json_array_append_new(warn, esc_json_string(w->en->warn.v[i]));
    for (size_t i = 0; w->pr && i < w->pr->warn.n; i++)
        json_array_append_new(warn, esc_json_string(w->pr->warn.v[i]));
    char method[768];
    wr_energy_method(w, method, sizeof(method));
    const struct en_result *en = w->en;
    json_t *split = json_pack("{s:s, s:o, s:o, s:s}",
        "energy_J", en->weighted ? "fit-weighted" : "time",
        "lag_ms", jnum(en->attr_lag_ms), "idle_weight_W", jnum(en->idle_weight_W),
        "note", "energy_J: each segment's energy split by overlap time x the class's fitted power "
                "(segments shifted by the attribution sensor's delay, estimated against the "
                "fitted powers), where a class has none at the segment's mean power, a segment "
                "with no fitted class by overlap time; energy_time_J: every segment by overlap "
                "time, as recorded");
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
        "prof_dir", esc_json_string(w->prof_dir), "method", esc_json_string(method),
        "attribution", split,
        "whole_run", whole_json(&en->all), "gpus", gpus_json(w), "fit", fit_json(w),
        "kernels", j.kernels, "copies", j.copies, "idle", j.idle, "warnings", warn);
}

/* ---- Markdown ---- */

static const char *num(double v, char *b)
{
    if (!isfinite(v))
        return strcpy(b, "");
    if (fabs(v) >= 1e6)
        snprintf(b, 32, "%.3g", v);
    else
        snprintf(b, 32, fabs(v) >= 100 || v == floor(v) ? "%.0f" : "%.3g", v);
    return b;
}


void wr_energy_method(const struct wr_energy *w, char *buf, size_t len)
{
    const struct en_whole *a = &w->en->all;
    const struct en_fit *f = &w->en->fit;
    char fit[256];
    if (f->done)
        snprintf(fit, sizeof(fit), "fit: least squares over %zu %s windows (median %.3g ms), "
                 "sensor lag %.3g ms (%s)", f->nwin, en_src_name(f->src), f->win_ms, f->lag_ms,
                 f->lag_estimated ? "estimated" : "given");
    else
        snprintf(fit, sizeof(fit), "fit: not done (%s)", f->why_not ? f->why_not : "no windows");
    char split[224];
    if (w->en->weighted)
        snprintf(split, sizeof(split), "split over what ran by overlap time x fitted power, "
                 "shifted by the sensor's delay of %.3g ms (estimated; of the %zu shifted "
                 "segments in the window %zu by power, the rest by overlap time)",
                 w->en->attr_lag_ms, a->segments_shifted, a->segments_weighted);
    else if (w->en->few_windows)
        snprintf(split, sizeof(split), "split over what ran by overlap time (the fit's %zu "
                 "windows are too few to weigh by: %d per fitted power needed)", w->en->fit.nwin,
                 EN_WEIGHT_WINDOWS);
    else
        snprintf(split, sizeof(split), "split over what ran by overlap time (no fitted power "
                 "to weigh by)");
    snprintf(buf, len, "attribution: %s, %zu segments of median %.3g ms %s; %s",
             a->mixed ? "mixed sources (see gpus)" : en_src_name(a->src), a->segments,
             a->segment_ms, split, fit);
}

void wr_energy_md(FILE *fp, const struct wr_energy *w, int top)
{
    const struct en_result *en = w->en;
    const struct en_whole *a = &en->all;
    const struct en_fit *f = &en->fit;
    char b[12][32], method[768];
    wr_energy_method(w, method, sizeof(method));
    fprintf(fp, "## Energy\n\nPower run: %zu GPU(s); %s.\n\n", en->ngpus, method);
    fprintf(fp, "Whole run (kernel window %s s, %s %% covered by the sensor): %s J = kernels %s J "
                "+ copies %s J + idle %s J; mean %s W, peak %s W.",
            num(a->window_ns * 1e-9 / (en->ngpus ? (double)en->ngpus : 1), b[0]),
            num(100 * ratio(a->covered_ns, a->window_ns), b[1]), num(a->total_J, b[2]),
            num(a->kernels_J, b[3]), num(a->copies_J, b[4]), num(a->idle_J, b[5]),
            num(a->mean_W, b[6]), num(a->peak_W, b[7]));
    if (en->weighted)
        fprintf(fp, " Split by time alone: kernels %s J + copies %s J + idle %s J.",
                num(a->kernels_time_J, b[0]), num(a->copies_time_J, b[1]),
                num(a->idle_time_J, b[2]));
    if (isfinite(a->counter_J)) {
        double c = a->counter_J;
        fprintf(fp, " Between the first and last counter readings (%s s) the counter gives %s J; "
                    "power x time %s J (%+.2f %%)", num(a->xspan_ns * 1e-9 / (double)en->ngpus, b[0]),
                num(c, b[1]), num(a->power_J, b[2]), 100 * (a->power_J - c) / c);
        if (isfinite(a->driver_J))
            fprintf(fp, ", driver samples %s J (%+.2f %%)", num(a->driver_J, b[3]),
                    100 * (a->driver_J - c) / c);
        if (isfinite(a->fit_J))
            fprintf(fp, ", fit %s J (%+.2f %%)", num(a->fit_J, b[4]), 100 * (a->fit_J - c) / c);
        fputc('.', fp);
    }
    if (f->done)
        fprintf(fp, " Fit: idle %s ± %s W, R² %.4f; fitted whole run %s J.", num(f->idle_W, b[0]),
                num(f->idle_se_W, b[1]), f->r2, num(f->total_J, b[2]));
    fputs("\n\n", fp);
    bool eff = w->mx != NULL;
    fprintf(fp, "| kernel | energy J | split | time-split J | share %% | W running | fit W | ± SE | "
                "fit | MHz | J/launch | launches | resolved %% |%s\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|%s\n",
            eff ? " GFLOP/J | B/J |" : "", eff ? "---|---|" : "");
    uint32_t rows = w->norder < (uint32_t)top ? w->norder : (uint32_t)top;
    struct wr_ecol e;
    double ef[WR_NEFF];
    for (uint32_t i = 0; i < rows; i++) {
        uint32_t k = w->order[i];
        wr_energy_col(w, k, &e);
        wr_energy_eff(w, k, e.power_W, ef);
        fputs("| ", fp);
        wr_md_text(fp, w->shortname[k]);
        fprintf(fp, " | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
                num(e.energy_J, b[0]), e.method, num(e.time_J, b[11]), num(e.share_pct, b[1]), num(e.power_W, b[2]), num(e.fit_W, b[3]),
                num(e.fit_se_W, b[4]), e.fit, num(e.clock_MHz, b[5]), num(e.J_per_launch, b[6]),
                num(e.launches, b[7]), num(e.resolved_pct, b[8]));
        if (eff)
            fprintf(fp, " %s | %s |", num(ef[4], b[9]), num(ef[5], b[10]));
        fputc('\n', fp);
    }
    for (uint32_t c = 0; c < EN_NCOPY; c++) {
        uint32_t col = en_col_of(en, EN_COPY, c);
        if (en->col[col].time_ns <= 0)
            continue;
        wr_energy_col(w, col, &e);
        fprintf(fp, "| copy %s | %s | %s | %s | %s | %s | %s | %s | %s |  |  | %s |  |%s\n",
                en_copy_label((enum en_copy)c), num(e.energy_J, b[0]), e.method,
                num(e.time_J, b[6]), num(e.share_pct, b[1]),
                num(e.power_W, b[2]), num(e.fit_W, b[3]), num(e.fit_se_W, b[4]), e.fit,
                num(e.launches, b[5]), eff ? "  |  |" : "");
    }
    idle_col(w, &e);
    fprintf(fp, "| idle | %s | %s | %s | %s | %s | %s | %s | %s |  |  |  |  |%s\n",
            num(e.energy_J, b[0]), e.method, num(e.time_J, b[6]), num(e.share_pct, b[1]), num(e.power_W, b[2]), num(e.fit_W, b[3]),
            num(e.fit_se_W, b[4]), e.fit, eff ? "  |  |" : "");
    if (w->norder > rows)
        fprintf(fp, "\n%u more kernel(s) in the CSV.\n", w->norder - rows);
    for (uint32_t g = 0; g < f->ngroups; g++) {
        fprintf(fp, "%sGroup %u (not identifiable one by one: they run in fixed proportion in "
                    "every window): ", g ? "" : "\n", g + 1);
        for (uint32_t i = 0; i < f->group[g].n; i++) {
            fputs(i ? ", " : "", fp);
            wr_md_text(fp, member_name(w, f->group[g].cols[i], b[0]));
        }
        fprintf(fp, " together %s ± %s W.\n", num(f->group[g].W, b[1]), num(f->group[g].se_W, b[2]));
    }
    fputs("\nColumns: **energy J** attributed: each sensor segment's energy split over what ran "
          "in it, **split** says how: `fit-weighted` in proportion to overlap time × the fitted "
          "power (the segment's sum stays the sensor's), `time` by overlap time alone (its own "
          "power not known); **time-split J** every segment split by overlap time alone "
          "(concurrent launches share it equally: where a slow sensor's segment spans several "
          "kernels it gives each their mean power); **share %** of the whole "
          "run's energy; **W running** = energy / time running; **fit W ± SE** the least-squares "
          "mean power while running (`ok`: its own column; `group N`: only the group's power is "
          "identifiable; `other`: pooled with the kernels of less than 0.5 % of the time); **MHz** "
          "the mean gfx clock while running; **resolved %** the share of its time in sensor "
          "segments it had to itself: where it is low, the time split is off and the fit-weighted "
          "energy rests on the fitted powers", fp);
    fputs(eff ? "; **GFLOP/J** = TFLOPs_all × 1000 / W running, **B/J** = mem_BW_TBps × 1e12 / W "
                "running (rates from the counter run).\n\n" : ".\n\n", fp);
}

static int write_md(const struct wr_energy *w, const char *path, int top)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    fprintf(a.fp, "# benchrun energy\n\n- power run: `%s`\n\n", w->prof_dir ? w->prof_dir : "");
    wr_energy_md(a.fp, w, top);
    fputs("## Warnings\n\n", a.fp);
    size_t n = w->en->warn.n + (w->pr ? w->pr->warn.n : 0);
    if (!n)
        fputs("none\n", a.fp);
    for (size_t i = 0; i < w->en->warn.n; i++)
        fprintf(a.fp, "- %s\n", w->en->warn.v[i]);
    for (size_t i = 0; w->pr && i < w->pr->warn.n; i++)
        fprintf(a.fp, "- %s\n", w->pr->warn.v[i]);
    if (ferror(a.fp)) {
        fs_atomic_abort(&a);
        return br_error("cannot write '%s'", path);
    }
    return fs_atomic_commit(&a);
}

int wr_energy_files(const struct wr_energy *w, const char *out_dir, int top)
{
    if (fs_mkdir_p(out_dir) < 0)
        return -1;
    char *csv = fs_path_join(out_dir, "energy_per_kernel.csv");
    char *js = fs_path_join(out_dir, "energy_summary.json");
    char *md = fs_path_join(out_dir, "energy.md");
    int rc = write_csv(w, csv);
    if (rc == 0) {
        json_t *root = wr_energy_json(w);
        char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        json_decref(root);
        if (!text) {
            rc = br_error("%s: cannot encode JSON", js);
        } else {
            size_t n = strlen(text);
            text = xrealloc(text, n + 2);
            text[n] = '\n';
            rc = fs_write_atomic(js, text, n + 1);
            free(text);
        }
    }
    if (rc == 0)
        rc = write_md(w, md, top);
    free(csv);
    free(js);
    free(md);
    return rc;
}
