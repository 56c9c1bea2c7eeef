/* rows.c - which kernels get a row, their display names, and the engine
 * variables of every row: time and launches (means over the passes present),
 * time shares (power-run trace when given, else the passes), top kernels
 * (METRICS.md §7), unprofiled time, GPU busy %, clock. */
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
 * instrumented pass's slowed kernels do not count) and launches (0 where the
 * kernel did not run in a pass). */
static void pass_means(const struct mx_ctx *x, uint32_t kid, double *t, double *l)
{
    const struct rp_run *run = x->run;
    uint32_t n = 0;
    *t = *l = 0;
    for (uint32_t p = 0; p < run->npasses; p++) {
        const struct rp_pass *ps = &run->passes[p];
        if (!ps->present)
            continue;
        n++;
        if (kid < ps->nkernels) {
            *t += x->kdur[p][kid];
            *l += (double)ps->launches[kid];
        }
    }
    *t = n ? *t / n : NAN;
    *l = n ? *l / n : NAN;
}

static const double *g_share;   /* qsort context: shares by row */
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

/* Sorts rows by share and picks the top kernels: --top-n, else the fewest
 * whose shares reach --time-pct. cum[r] receives the cumulative share. */
static void pick_top(struct mx_result *res, const struct mx_opts *o, const double *share,
                     const double *t, double *cum)
{
    res->order = xcalloc((size_t)res->nk + 1, sizeof(uint32_t));
    for (uint32_t r = 0; r < res->nk; r++)
        res->order[r] = r;
    g_share = share;
    g_time = t;
    qsort(res->order, res->nk, sizeof(uint32_t), cmp_share);
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

/* Per-row inputs of the variables: time, launches, time share. */
struct rowvals {
    double *t, *l, *share, *cum;
    double T, L, sum_share, sum_unprof;
};

static void row_times(struct mx_ctx *x, struct rowvals *rv)
{
    struct mx_result *res = x->res;
    const struct rp_power *pw = x->power;
    res->share_from_power = pw && pw->dur_ns_total > 0;
    for (uint32_t r = 0; r < res->nk; r++) {
        pass_means(x, res->kid[r], &rv->t[r], &rv->l[r]);
        rv->T += rv->t[r];
        rv->L += rv->l[r];
    }
    for (uint32_t r = 0; r < res->nk; r++) {
        double u = power_ns(pw, res->kid[r]);
        u = isnan(u) ? 0 : u;
        rv->share[r] = res->share_from_power ? 100 * u / pw->dur_ns_total : 100 * rv->t[r] / rv->T;
        rv->sum_share += rv->share[r];
        rv->sum_unprof += u;
    }
}

static void row_vars(struct mx_ctx *x, const struct rowvals *rv, uint32_t r, double clock)
{
    struct mx_result *res = x->res;
    const struct rp_power *pw = x->power;
    bool tot = r == res->nk;
    double u = tot ? (pw ? pw->dur_ns_total : NAN) : power_ns(pw, res->kid[r]);
    double us = pw && pw->dur_ns_total > 0 ? 100 * (tot ? rv->sum_unprof : u) / pw->dur_ns_total : NAN;
    set_var(x, r, AV_CLOCK_MHZ, clock);
    set_var(x, r, AV_TIME_NS, tot ? rv->T : rv->t[r]);
    set_var(x, r, AV_LAUNCHES, tot ? rv->L : rv->l[r]);
    set_var(x, r, AV_TIME_SHARE_PCT, tot ? rv->sum_share : rv->share[r]);
    set_var(x, r, AV_UNPROF_TIME_NS, u);
    set_var(x, r, AV_UNPROF_TIME_SHARE_PCT, us);
    set_var(x, r, AV_GPU_BUSY_PCT, tot && pw ? rp_power_busy_pct(pw) : NAN);
    set_var(x, r, AV_TOP_SHARE_PCT,
            tot ? (res->ntop ? rv->cum[res->order[res->ntop - 1]] : NAN) : rv->cum[r]);
    set_var(x, r, AV_IS_TOTAL, tot ? 1 : 0);
}

void mx_fill_vars(struct mx_ctx *x)
{
    struct mx_result *res = x->res;
    size_t n = (size_t)res->nk + 1;
    x->var = xcalloc(n * AV_COUNT, sizeof(double));
    struct rowvals rv = { .t = xcalloc(n, sizeof(double)), .l = xcalloc(n, sizeof(double)),
                          .share = xcalloc(n, sizeof(double)), .cum = xcalloc(n, sizeof(double)) };
    row_times(x, &rv);
    pick_top(res, x->opt, rv.share, rv.t, rv.cum);
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
    free(rv.share);
    free(rv.cum);
}
