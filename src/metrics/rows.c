/* rows.c - which kernels get a row, their display names, and the engine
 * variables of every row, as the seed defines them: time (mean over the
 * passes present) and its share, launches and their time from one pass (the
 * profile's launch_counter), the row order (counter-pass time), top kernels
 * by the power-run share when given (docs/design.md §6), unprofiled time, GPU
 * busy %, clock. */
#include "metrics/mx_int.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Kernels with launches in some present pass, in name-id order. */
void mx_pick_rows(struct mx_ctx *x)
{
    const struct rp_run *run = x->run;
    struct mx_result *res = x->res;
    uint32_t n = run->names.n;
    res->kid = xcalloc((size_t)n + 1, sizeof(uint32_t));
    for (uint32_t k = 0; k < n; k++) {
        bool any = false;
        for (uint32_t p = 0; p < run->npasses && !any; p++)
            any = run->passes[p].present && k < run->passes[p].nkernels &&
                  run->passes[p].launches[k] > 0;
        if (any)
            res->kid[res->nk++] = k;
    }
    res->full = xcalloc((size_t)res->nk + 1, sizeof(char *));
    res->shortname = xcalloc((size_t)res->nk + 1, sizeof(char *));
    for (uint32_t r = 0; r < res->nk; r++) {
        res->full[r] = run->names.str[res->kid[r]];
        res->shortname[r] = mx_display_name(res->full[r]);
    }
    mx_unique_names(res->shortname, res->nk);
}

/* Mean over the present passes of a kernel's time (the time base: an
 * instrumented pass's slowed kernels do not count). */
static double pass_mean_time(const struct mx_ctx *x, uint32_t kid)
{
    const struct rp_run *run = x->run;
    uint32_t n = 0;
    double t = 0;
    for (uint32_t p = 0; p < run->npasses; p++) {
        const struct rp_pass *ps = &run->passes[p];
        if (!ps->present)
            continue;
        n++;
        if (kid < ps->nkernels)
            t += x->kdur[p][kid];
    }
    return n ? t / n : NAN;
}

/* The pass launches are counted in (the seed: the one holding SQ_WAVE_CYCLES,
 * whose launches are the occupancy pass's): the first present pass with the
 * profile's launch_counter, else the first present pass. */
static uint32_t launch_pass(const struct mx_ctx *x)
{
    const struct rp_run *run = x->run;
    const char *lc = x->ap->launch_counter;
    for (uint32_t p = 0; lc && p < run->npasses; p++)
        for (uint32_t c = 0; run->passes[p].present && c < run->passes[p].ncounters; c++)
            if (!strcmp(run->passes[p].counters[c], lc))
                return p;
    for (uint32_t p = 0; p < run->npasses; p++)
        if (run->passes[p].present)
            return p;
    return UINT32_MAX;
}

static const double *g_share;   /* qsort context: sort keys by row */
static const double *g_time;

/* NaN sorts last (a consistent order for qsort). */
static double key(double v)
{
    return isnan(v) ? -INFINITY : v;
}

static int cmp_share(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double sx = key(g_share[x]), sy = key(g_share[y]), tx = key(g_time[x]), ty = key(g_time[y]);
    if (sx != sy)
        return sx > sy ? -1 : 1;
    if (tx != ty)
        return tx > ty ? -1 : 1;
    return (x > y) - (x < y);
}

static uint32_t *sorted_rows(uint32_t n, const double *first, const double *then)
{
    uint32_t *o = xcalloc((size_t)n + 1, sizeof(uint32_t));
    for (uint32_t r = 0; r < n; r++)
        o[r] = r;
    g_share = first;
    g_time = then;
    qsort(o, n, sizeof(uint32_t), cmp_share);
    return o;
}

/* Rows by counter-pass time (the CSV order), and by top share with the top
 * kernels: --top-n, else the fewest whose shares reach --time-pct. cum[r]
 * receives the cumulative top share down to row r. */
static void pick_top(struct mx_result *res, const struct mx_opts *o, const double *share,
                     const double *t, double *cum)
{
    res->by_time = sorted_rows(res->nk, t, share);
    res->order = sorted_rows(res->nk, share, t);
    double c = 0;
    res->ntop = 0;
    for (uint32_t i = 0; i < res->nk; i++) {
        uint32_t r = res->order[i];
        c += isnan(share[r]) ? 0 : share[r];
        cum[r] = c;
        bool more = o->top_n > 0 ? i < (uint32_t)o->top_n : res->ntop == i &&
                                   (i == 0 || cum[res->order[i - 1]] < o->time_pct - 1e-9);
        if (more)
            res->ntop = i + 1;
    }
}

static double power_ns(const struct rp_power *pw, uint32_t kid)
{
    return pw && kid < pw->nkernels ? pw->dur_ns[kid] : NAN;
}

/* Kernels of the power run with no counter data, and their time. */
static void power_only(struct mx_ctx *x, double *ns)
{
    const struct rp_power *pw = x->power;
    *ns = 0;
    if (!pw)
        return;
    bool *row = xcalloc((size_t)pw->nkernels + 1, sizeof(bool));
    for (uint32_t r = 0; r < x->res->nk; r++)
        if (x->res->kid[r] < pw->nkernels)
            row[x->res->kid[r]] = true;
    for (uint32_t k = 0; k < pw->nkernels; k++)
        if (pw->launches[k] && !row[k]) {
            x->res->power_only_kernels++;
            *ns += pw->dur_ns[k];
        }
    free(row);
}

static void set_var(struct mx_ctx *x, uint32_t r, enum arch_var v, double val)
{
    x->var[(size_t)r * AV_COUNT + v] = val;
}

/* Per-row inputs of the variables: counter-pass time, launch-pass launches
 * and time, top share (power-run share when given, else time share). */
struct rowvals {
    double *t, *l, *lt, *share, *top, *cum;
    bool *istop;
    double T, L, LT;
};

static void row_times(struct mx_ctx *x, struct rowvals *rv)
{
    struct mx_result *res = x->res;
    const struct rp_power *pw = x->power;
    res->share_from_power = pw && pw->dur_ns_total > 0;
    res->launch_pass = launch_pass(x);
    const struct rp_pass *lp = res->launch_pass == UINT32_MAX ? NULL
                             : &x->run->passes[res->launch_pass];
    for (uint32_t r = 0; r < res->nk; r++) {
        uint32_t kid = res->kid[r];
        rv->t[r] = pass_mean_time(x, kid);
        bool in = lp && kid < lp->nkernels;
        rv->l[r] = in ? (double)lp->launches[kid] : lp ? 0 : NAN;
        rv->lt[r] = in ? x->kdur[res->launch_pass][kid] : lp ? 0 : NAN;
        rv->T += rv->t[r];
        rv->L += rv->l[r];
        rv->LT += rv->lt[r];
    }
    for (uint32_t r = 0; r < res->nk; r++) {
        double u = power_ns(pw, res->kid[r]);
        rv->share[r] = 100 * rv->t[r] / rv->T;
        rv->top[r] = res->share_from_power ? 100 * (isnan(u) ? 0 : u) / pw->dur_ns_total
                                           : rv->share[r];
    }
}

static void row_vars(struct mx_ctx *x, const struct rowvals *rv, uint32_t r, double clock)
{
    struct mx_result *res = x->res;
    const struct rp_power *pw = x->power;
    bool tot = r == res->nk, power = pw && pw->dur_ns_total > 0;
    double u = tot ? (pw ? pw->dur_ns_total : NAN) : power_ns(pw, res->kid[r]);
    set_var(x, r, AV_CLOCK_MHZ, clock);
    set_var(x, r, AV_TIME_NS, tot ? rv->T : rv->t[r]);
    set_var(x, r, AV_LAUNCHES, tot ? rv->L : rv->l[r]);
    set_var(x, r, AV_LAUNCH_TIME_NS, tot ? rv->LT : rv->lt[r]);
    set_var(x, r, AV_TIME_SHARE_PCT, tot ? 100 * rv->T / rv->T : rv->share[r]);
    set_var(x, r, AV_UNPROF_TIME_NS, u);
    set_var(x, r, AV_UNPROF_TIME_SHARE_PCT, power ? 100 * u / pw->dur_ns_total : NAN);
    set_var(x, r, AV_GPU_BUSY_PCT, tot && pw ? rp_power_busy_pct(pw) : NAN);
    /* the seed's top_share_pct: the kernel's own share, top kernels only */
    set_var(x, r, AV_TOP_SHARE_PCT, tot ? 100 : rv->istop[r] ? rv->top[r] : NAN);
    set_var(x, r, AV_CUM_SHARE_PCT,
            tot ? (res->ntop ? rv->cum[res->order[res->ntop - 1]] : NAN) : rv->cum[r]);
    set_var(x, r, AV_IS_TOTAL, tot ? 1 : 0);
}

void mx_fill_vars(struct mx_ctx *x)
{
    struct mx_result *res = x->res;
    size_t n = (size_t)res->nk + 1;
    x->var = xcalloc(n * AV_COUNT, sizeof(double));
    struct rowvals rv = { .t = xcalloc(n, sizeof(double)), .l = xcalloc(n, sizeof(double)),
                          .lt = xcalloc(n, sizeof(double)), .share = xcalloc(n, sizeof(double)),
                          .top = xcalloc(n, sizeof(double)), .cum = xcalloc(n, sizeof(double)),
                          .istop = xcalloc(n, sizeof(bool)) };
    row_times(x, &rv);
    pick_top(res, x->opt, rv.top, rv.t, rv.cum);
    for (uint32_t i = 0; i < res->ntop; i++)
        rv.istop[res->order[i]] = true;
    res->clock_src = x->opt->clock_src;
    res->clock_mhz = x->opt->clock_src == MX_CLOCK_FALLBACK ? NAN : x->opt->clock_mhz;
    for (uint32_t r = 0; r <= res->nk; r++)
        row_vars(x, &rv, r, res->clock_mhz);
    double off;
    power_only(x, &off);
    if (res->power_only_kernels)
        mx_warn(res, "%u kernel(s) of the power run (%.3g%% of its kernel time) have no counter "
                "data in any pass", res->power_only_kernels, 100 * off / x->power->dur_ns_total);
    free(rv.t);
    free(rv.l);
    free(rv.lt);
    free(rv.share);
    free(rv.top);
    free(rv.cum);
    free(rv.istop);
}
