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

/* Mean over the present passes of a kernel's time and launches (0 where the
 * kernel did not run in a pass). */
static void pass_means(const struct rp_run *run, uint32_t kid, double *t, double *l)
{
    uint32_t n = 0;
    *t = *l = 0;
    for (uint32_t p = 0; p < run->npasses; p++) {
        const struct rp_pass *ps = &run->passes[p];
        if (!ps->present)
            continue;
        n++;
        if (kid < ps->nkernels) {
            *t += ps->dur_ns[kid];
            *l += (double)ps->launches[kid];
        }
    }
    *t = n ? *t / n : NAN;
    *l = n ? *l / n : NAN;
}

static const double *g_share;   /* qsort context: shares by row */
static const double *g_time;

static int cmp_share(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (g_share[x] != g_share[y])
        return g_share[x] > g_share[y] ? -1 : 1;
    if (g_time[x] != g_time[y])
        return g_time[x] > g_time[y] ? -1 : 1;
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
    for (uint32_t k = 0; k < pw->nkernels; k++) {
        if (pw->launches[k] == 0)
            continue;
        bool row = false;
        for (uint32_t r = 0; r < x->res->nk && !row; r++)
            row = x->res->kid[r] == k;
        if (!row) {
            x->res->power_only_kernels++;
            *ns += pw->dur_ns[k];
        }
    }
}

static void set_var(struct mx_ctx *x, uint32_t r, enum arch_var v, double val)
{
    x->var[(size_t)r * AV_COUNT + v] = val;
}

void mx_fill_vars(struct mx_ctx *x)
{
    struct mx_result *res = x->res;
    const struct rp_power *pw = x->power;
    uint32_t nk = res->nk;
    x->var = xcalloc(((size_t)nk + 1) * AV_COUNT, sizeof(double));
    double *t = xcalloc((size_t)nk + 1, sizeof(double)), *l = xcalloc((size_t)nk + 1, sizeof(double));
    double *share = xcalloc((size_t)nk + 1, sizeof(double)), *cum = xcalloc((size_t)nk + 1, sizeof(double));
    double T = 0, L = 0;
    for (uint32_t r = 0; r < nk; r++) {
        pass_means(x->run, res->kid[r], &t[r], &l[r]);
        T += t[r];
        L += l[r];
    }
    double off;
    power_only(x, &off);
    res->share_from_power = pw && pw->dur_ns_total > 0;
    double sum_share = 0, sum_unprof = 0;
    for (uint32_t r = 0; r < nk; r++) {
        double u = power_ns(pw, res->kid[r]);
        share[r] = res->share_from_power ? 100 * (isnan(u) ? 0 : u) / pw->dur_ns_total
                                         : 100 * t[r] / T;
        sum_share += share[r];
        sum_unprof += isnan(u) ? 0 : u;
    }
    pick_top(res, x->opt, share, t, cum);
    double clock = x->opt->clock_src == MX_CLOCK_FALLBACK ? NAN : x->opt->clock_mhz;
    res->clock_src = x->opt->clock_src;
    res->clock_mhz = clock;
    for (uint32_t r = 0; r <= nk; r++) {
        bool tot = r == nk;
        double u = tot ? (pw ? pw->dur_ns_total : NAN) : power_ns(pw, res->kid[r]);
        double us = pw && pw->dur_ns_total > 0 ? 100 * (tot ? sum_unprof : u) / pw->dur_ns_total : NAN;
        set_var(x, r, AV_CLOCK_MHZ, clock);
        set_var(x, r, AV_TIME_NS, tot ? T : t[r]);
        set_var(x, r, AV_LAUNCHES, tot ? L : l[r]);
        set_var(x, r, AV_TIME_SHARE_PCT, tot ? sum_share : share[r]);
        set_var(x, r, AV_UNPROF_TIME_NS, u);
        set_var(x, r, AV_UNPROF_TIME_SHARE_PCT, us);
        set_var(x, r, AV_GPU_BUSY_PCT, tot && pw ? rp_power_busy_pct(pw) : NAN);
        set_var(x, r, AV_TOP_SHARE_PCT,
                tot ? (res->ntop ? cum[res->order[res->ntop - 1]] : NAN) : cum[r]);
        set_var(x, r, AV_IS_TOTAL, tot ? 1 : 0);
    }
    if (res->power_only_kernels)
        mx_warn(res, "%u kernel(s) of the power run (%.3g%% of its kernel time) have no counter "
                "data in any pass", res->power_only_kernels, 100 * off / pw->dur_ns_total);
    free(t);
    free(l);
    free(share);
    free(cum);
}
