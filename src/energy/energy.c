/* energy.c - en_compute (energy.h): input checks, each GPU's attribution,
 * the pooling over GPUs (sums; the seed pools telemetry vectors the same
 * way), then the fit over every GPU's windows. */
#include "energy/en_int.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *en_copy_label(enum en_copy c)
{
    static const char *const l[EN_NCOPY] = { "H2D", "D2H", "D2D", "P2P", "set" };
    return (unsigned)c < EN_NCOPY ? l[c] : "?";
}

const char *en_src_name(enum en_src s)
{
    switch (s) {
    case EN_SRC_COUNTER: return "energy counter";
    case EN_SRC_POWER: return "power x time";
    case EN_SRC_DRIVER: return "driver power samples";
    default: return "none";
    }
}

const char *en_fit_status_name(enum en_fit_status s)
{
    switch (s) {
    case EN_FIT_OK: return "ok";
    case EN_FIT_UNCERTAIN: return "uncertain";
    case EN_FIT_GROUPED: return "grouped";
    case EN_FIT_OTHER: return "other";
    default: return "none";
    }
}

void en_opts_default(struct en_opts *o)
{
    *o = (struct en_opts){ .fit_max_cols = 24, .fit_min_share_pct = 0.5, .lag_ms = NAN };
}

void en_warn(struct en_result *res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strv_pushva(&res->warn, fmt, ap);
    va_end(ap);
}

static int check_gpu(const struct en_gpu *g, size_t gi, uint32_t nk, struct en_result *res)
{
    const char *name = g->name ? g->name : "GPU";
    if (g->win1_ns < g->win0_ns) {
        en_warn(res, "%s: the window ends before it starts", name);
        return -1;
    }
    for (size_t i = 0; i < g->nact; i++) {
        const struct en_act *a = &g->act[i];
        bool bad_id = a->kind == EN_KERNEL ? a->id >= nk : a->kind != EN_COPY || a->id >= EN_NCOPY;
        if (bad_id || a->end_ns < a->start_ns || (i && a->start_ns < g->act[i - 1].start_ns)) {
            en_warn(res, "%s (GPU %zu): activity %zu: %s", name, gi, i,
                    bad_id ? "unknown kernel id or copy class" : a->end_ns < a->start_ns
                    ? "ends before it starts" : "not sorted by start");
            return -1;
        }
    }
    const struct en_series *s[3] = { &g->energy, &g->power, &g->clock };
    for (int k = 0; k < 3; k++)
        for (size_t i = 1; i < s[k]->n; i++)
            if (s[k]->t_ns[i] < s[k]->t_ns[i - 1]) {
                en_warn(res, "%s: sample %zu: time goes backwards", name, i);
                return -1;
            }
    return 0;
}

static void pool_col(struct en_col *to, const struct en_col *x)
{
    to->time_ns += x->time_ns;
    to->covered_ns += x->covered_ns;
    to->split_ns += x->split_ns;
    to->energy_time_J += x->energy_time_J;
    to->resolved_ns += x->resolved_ns;
    to->clock_int += x->clock_int;
    to->clock_ns += x->clock_ns;
    to->launches += x->launches;
}

static double nanmax(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : fmax(a, b);
}

static double nansum(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a + b;
}

/* Every GPU's value or NaN. */
static double allsum(double a, double b, bool first)
{
    return first ? b : a + b;
}

static void pool_whole(struct en_whole *to, const struct en_whole *w, bool first)
{
    if (first)
        to->src = w->src, to->peak_W = to->mean_W = NAN;
    else if (to->src != w->src)
        to->mixed = true, to->src = EN_SRC_NONE;
    to->kernels_time_J += w->kernels_time_J;
    to->copies_time_J += w->copies_time_J;
    to->idle_time_J += w->idle_time_J;
    to->total_J += w->total_J;
    to->window_ns += w->window_ns;
    to->covered_ns += w->covered_ns;
    to->busy_ns += w->busy_ns;
    to->idle_ns += w->idle_ns;
    to->segments += w->segments;
    to->mean_W = nansum(to->mean_W, w->mean_W);
    to->peak_W = nanmax(to->peak_W, w->peak_W);
    to->xspan_ns += w->xspan_ns;
    to->counter_J = allsum(to->counter_J, w->counter_J, first);
    to->power_J = allsum(to->power_J, w->power_J, first);
    to->driver_J = allsum(to->driver_J, w->driver_J, first);
    to->segment_ms = first ? w->segment_ms : to->segment_ms;
}

/* A fitted power the split by power can rest on: positive, its SE at most
 * 20 % of it (what the fit calls ok); NaN otherwise. */
static double usable_W(double W, double se_W)
{
    return W > 0 && isfinite(W) && se_W <= 0.2 * W ? W : NAN;
}

/* Whether the fit has the windows to weigh by: EN_WEIGHT_WINDOWS per fitted
 * power and per the delay (a fit of barely as many windows as unknowns
 * matches any data, and its powers and delay then move energy at random). */
static bool fit_weighs(const struct en_fit *f)
{
    return f->done && f->nwin >= EN_WEIGHT_WINDOWS * ((size_t)f->ncols + 1);
}

/* energy_J: each GPU's segments split by time × fitted power when some
 * class has a usable fitted power, else the time split; then pooled. */
static void split_energy(const struct en_gpu *gpus, const struct en_events *ev,
                         struct en_result *res)
{
    uint32_t nc = res->ncols;
    double *W = xmalloc((nc + 1) * sizeof(*W));
    bool fit = fit_weighs(&res->fit);
    res->few_windows = res->fit.done && !fit;
    res->idle_weight_W = fit ? usable_W(res->fit.idle_W, res->fit.idle_se_W) : NAN;
    res->weighted = isfinite(res->idle_weight_W);
    for (uint32_t c = 0; c < nc; c++) {
        const struct en_col *x = &res->col[c];
        W[c] = fit && x->fit_status != EN_FIT_NONE ? usable_W(x->fit_W, x->fit_se_W) : NAN;
        res->weighted |= isfinite(W[c]);
    }
    int64_t lag = 0;
    if (res->weighted) {            /* the attribution sensor's own delay, fitted powers fixed */
        double *P = xmalloc((nc + 1) * sizeof(*P));
        for (uint32_t c = 0; c < nc; c++)
            P[c] = res->col[c].fit_status != EN_FIT_NONE ? res->col[c].fit_W : NAN;
        lag = en_attribution_lag(gpus, ev, res->ngpus, nc, P, res->fit.idle_W);
        free(P);
    }
    res->attr_lag_ms = res->weighted ? (double)lag / 1e6 : NAN;
    res->all.total_J = 0;
    for (size_t g = 0; g < res->ngpus; g++) {
        struct en_col *gc = &res->gcol[g * nc];
        struct en_whole *w = &res->gpu[g];
        for (uint32_t c = 0; c < nc; c++)
            gc[c].weight_W = res->weighted ? W[c] : NAN;
        if (res->weighted) {
            en_attribute_weighted(&gpus[g], &ev[g], res, W, res->idle_weight_W, lag, gc, w);
            w->total_J = w->kernels_J + w->copies_J + w->idle_J;
            w->mean_W = w->covered_ns > 0 ? w->total_J / (w->covered_ns * 1e-9) : NAN;
        } else {
            for (uint32_t c = 0; c < nc; c++)
                gc[c].energy_J = gc[c].energy_time_J;
            w->kernels_J = w->kernels_time_J, w->copies_J = w->copies_time_J;
            w->idle_J = w->idle_time_J;
        }
        for (uint32_t c = 0; c < nc; c++)
            res->col[c].energy_J += gc[c].energy_J;
        res->all.kernels_J += w->kernels_J;
        res->all.copies_J += w->copies_J;
        res->all.idle_J += w->idle_J;
        res->all.total_J += w->total_J;
        res->all.segments_shifted += w->segments_shifted;
        res->all.segments_weighted += w->segments_weighted;
    }
    res->all.mean_W = NAN;
    for (size_t g = 0; g < res->ngpus; g++)
        res->all.mean_W = nansum(res->all.mean_W, res->gpu[g].mean_W);
    for (uint32_t c = 0; c < nc; c++)
        res->col[c].weight_W = res->weighted ? W[c] : NAN;
    if (!res->weighted)
        res->idle_weight_W = NAN;
    free(W);
}

int en_compute(const struct en_gpu *gpus, size_t ngpus, uint32_t nkernels,
               const struct en_opts *opt, struct en_result *res)
{
    memset(res, 0, sizeof(*res));
    strv_init(&res->warn);
    res->nkernels = nkernels;
    res->ncols = nkernels + EN_NCOPY;
    res->ngpus = ngpus;
    res->col = xcalloc(res->ncols, sizeof(*res->col));
    res->gcol = xcalloc(ngpus * res->ncols + 1, sizeof(*res->gcol));
    res->gpu = xcalloc(ngpus + 1, sizeof(*res->gpu));
    for (size_t g = 0; g < ngpus; g++)
        if (check_gpu(&gpus[g], g, nkernels, res) != 0)
            return -1;
    struct en_opts dflt;
    en_opts_default(&dflt);
    if (!opt)
        opt = &dflt;
    struct en_events *ev = xcalloc(ngpus + 1, sizeof(*ev));
    for (size_t g = 0; g < ngpus; g++) {
        en_events_build(&ev[g], gpus[g].act, gpus[g].nact, nkernels);
        en_attribute(&gpus[g], &ev[g], res, &res->gcol[g * res->ncols], &res->gpu[g]);
        for (uint32_t c = 0; c < res->ncols; c++)
            pool_col(&res->col[c], &res->gcol[g * res->ncols + c]);
        pool_whole(&res->all, &res->gpu[g], g == 0);
    }
    en_fit_run(gpus, ev, ngpus, opt, res);
    split_energy(gpus, ev, res);
    for (size_t g = 0; g < ngpus; g++)
        res->all.fit_J = allsum(res->all.fit_J, res->gpu[g].fit_J, g == 0);
    for (size_t g = 0; g < ngpus; g++)
        en_events_free(&ev[g]);
    free(ev);
    return 0;
}

void en_release(struct en_result *res)
{
    for (uint32_t i = 0; i < res->fit.ngroups; i++)
        free(res->fit.group[i].cols);
    free(res->fit.group);
    free(res->fit.why_not);
    if (res->warn.v)
        strv_release(&res->warn);
    free(res->col);
    free(res->gcol);
    free(res->gpu);
    memset(res, 0, sizeof(*res));
}
