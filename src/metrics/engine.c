/* engine.c - metric rows per kernel and TOTAL from the aggregated passes and
 * the arch profile's expressions (contract in metrics.h; rules docs/design.md §6,
 * §7 and §14, slot meanings docs/arch-profile.md).
 *
 * A counter slot of a kernel is its rate Σ value / Σ kernel time over the
 * passes that collected it for that kernel (rows seen); TOTAL uses the sums
 * over all kernels within each pass, then the same rate. Passes are never
 * joined by launch.
 */
#include "metrics/metrics.h"

#include "metrics/mx_int.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mx_metric_index(const struct arch_profile *ap, const char *name)
{
    for (int i = 0; i < ap->nmetrics; i++)
        if (!strcmp(ap->metrics[i].name, name))
            return i;
    return -1;
}

double mx_value(const struct mx_result *res, uint32_t r, int m)
{
    return m < 0 ? NAN : res->v[(size_t)r * (size_t)res->ap->nmetrics + (size_t)m];
}

enum mx_cell mx_cell_kind(const struct mx_result *res, uint32_t r, int m)
{
    return m < 0 ? MX_CELL_EMPTY
                 : (enum mx_cell)res->kind[(size_t)r * (size_t)res->ap->nmetrics + (size_t)m];
}

const char *mx_label(const struct mx_result *res, uint32_t r, int m)
{
    return m < 0 ? NULL : res->label[(size_t)r * (size_t)res->ap->nmetrics + (size_t)m];
}

void mx_warn(struct mx_result *res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = xmalloc((size_t)(n < 0 ? 0 : n) + 1);
    msg[0] = '\0';
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    va_end(ap);
    res->warn = xrealloc(res->warn, (res->nwarn + 1) * sizeof(char *));
    res->warn[res->nwarn++] = msg;
}

/* ---- counter references: which (pass, column) pairs feed a symbol ---- */

static int pass_col(const struct rp_pass *p, const char *counter)
{
    for (uint32_t c = 0; c < p->ncounters; c++)
        if (!strcmp(p->counters[c], counter))
            return (int)c;
    return -1;
}

static void bind_counters(struct mx_ctx *x)
{
    const struct arch_profile *ap = x->ap;
    x->refs = xcalloc((size_t)ap->nsyms + 1, sizeof(*x->refs));
    for (int s = 0; s < ap->nsyms; s++) {
        const struct arch_sym *sy = &ap->syms[s];
        if (sy->kind != AS_RATE && sy->kind != AS_SUM && sy->kind != AS_DUR)
            continue;
        struct mx_refs *r = &x->refs[s];
        r->pc = xcalloc(x->run->npasses + 1, sizeof(*r->pc));
        for (uint32_t p = 0; p < x->run->npasses; p++) {
            const struct rp_pass *ps = &x->run->passes[p];
            if (!ps->present || (sy->pass && strcmp(sy->pass, ps->name)))
                continue;
            int c = pass_col(ps, sy->name);
            if (c >= 0)
                r->pc[r->n++] = (struct mx_pc){ p, (uint32_t)c };
        }
    }
}

/* Σ value and Σ time of one kernel (k = UINT32_MAX: all kernels, TOTAL) over
 * the references; false when no pass had rows for it. */
static bool ref_sums(const struct mx_ctx *x, const struct mx_refs *r, uint32_t k, double *sum,
                     double *dur)
{
    bool any = false;
    *sum = *dur = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct rp_pass *ps = &x->run->passes[r->pc[i].p];
        uint32_t c = r->pc[i].c;
        if (k == UINT32_MAX) {
            const struct mx_passtot *t = &x->tot[r->pc[i].p];
            if (t->crows[c]) {
                *sum += t->csum[c];
                *dur += t->cdur[c];
                any = true;
            }
            continue;
        }
        if (k >= ps->nkernels || !ps->crows[(size_t)k * ps->ncounters + c])
            continue;
        *sum += ps->csum[(size_t)k * ps->ncounters + c];
        *dur += x->kdur[r->pc[i].p][k];
        any = true;
    }
    return any;
}

/* Whole-run sums per pass and column over kernels with rows. */
static void pass_totals(struct mx_ctx *x)
{
    x->tot = xcalloc(x->run->npasses + 1, sizeof(*x->tot));
    for (uint32_t p = 0; p < x->run->npasses; p++) {
        const struct rp_pass *ps = &x->run->passes[p];
        struct mx_passtot *t = &x->tot[p];
        t->csum = xcalloc(ps->ncounters + 1, sizeof(double));
        t->cdur = xcalloc(ps->ncounters + 1, sizeof(double));
        t->crows = xcalloc(ps->ncounters + 1, sizeof(uint64_t));
        for (uint32_t k = 0; k < ps->nkernels; k++)
            for (uint32_t c = 0; c < ps->ncounters; c++) {
                size_t i = (size_t)k * ps->ncounters + c;
                if (!ps->crows[i])
                    continue;
                t->csum[c] += ps->csum[i];
                t->cdur[c] += x->kdur[p][k];
                t->crows[c] += ps->crows[i];
            }
    }
}

/* Kernel attribute idx of kernel kid (a: its counter-row attributes, NULL for
 * TOTAL). Registers the counter rows lack (0: CUPTI could not read the
 * launched function's attributes) come from the power run's kernel trace,
 * matched by name (CUPTI activity records carry them); shared memory is the
 * larger of the two (the trace's includes static shared memory). */
static double attr_value(const struct mx_ctx *x, uint32_t kid, const struct rp_kattr *a, int idx)
{
    const struct rp_power *pw = x->power;
    bool traced = a && pw && pw->vgpr && kid < pw->nkernels;
    if (idx == AA_VGPR && traced && (!a->seen || a->vgpr == 0) && pw->vgpr[kid] > 0)
        return pw->vgpr[kid];
    if (!a || !a->seen)
        return NAN;
    switch (idx) {
    case AA_VGPR: return a->vgpr;
    case AA_AGPR: return a->agpr;
    case AA_SGPR: return a->sgpr;
    case AA_LDS: return (double)(traced && pw->lds[kid] > a->lds ? pw->lds[kid] : a->lds);
    case AA_SCRATCH: return (double)a->scratch;
    case AA_WG_SIZE: return (double)a->wg_size;
    case AA_GRID_SIZE: return (double)a->grid_size;
    default: return NAN;
    }
}

/* Fills every slot but the metric ones for row r (kernel index or nk). */
void mx_fill_slots(const struct mx_ctx *x, uint32_t r, double *slot)
{
    const struct arch_profile *ap = x->ap;
    bool total = r == x->res->nk;
    uint32_t kid = total ? UINT32_MAX : x->res->kid[r];
    const struct rp_kattr *a = !total && kid < x->run->nattr ? &x->run->attr[kid] : NULL;
    for (int s = 0; s < ap->nsyms; s++) {
        const struct arch_sym *sy = &ap->syms[s];
        double sum, dur;
        switch (sy->kind) {
        case AS_CONST: slot[s] = ap->consts[sy->index].value; break;
        case AS_VAR: slot[s] = x->var[(size_t)r * AV_COUNT + (size_t)sy->index]; break;
        case AS_ATTR: slot[s] = attr_value(x, kid, a, sy->index); break;
        case AS_METRIC: slot[s] = NAN; break;
        case AS_RATE:
            slot[s] = ref_sums(x, &x->refs[s], kid, &sum, &dur) && dur > 0 ? sum / dur : NAN;
            break;
        case AS_SUM: slot[s] = ref_sums(x, &x->refs[s], kid, &sum, &dur) ? sum : NAN; break;
        case AS_DUR: slot[s] = ref_sums(x, &x->refs[s], kid, &sum, &dur) ? dur : NAN; break;
        }
    }
}

static const char *bound_label(const struct arch_metric *am, const double *slot, double lat)
{
    double c = ex_eval(am->compute_pct, slot), m = ex_eval(am->mem_pct, slot);
    double f = ex_eval(am->flops, slot);
    bool flops = f > 0;   /* NaN or 0: no compute ceiling */
    if (isnan(m))
        return NULL;
    if (!am->no_latency && (!flops || c < lat) && m < lat)
        return "latency";
    return flops && c > m ? "compute" : "memory";
}

static const char *argmax_label(const struct arch_metric *am, const double *slot)
{
    const char *best = NULL;
    double bv = 0;
    for (int i = 0; i < am->nchoices; i++) {
        double v = ex_eval(am->choices[i], slot);
        if (v > bv) {
            bv = v;
            best = am->choice_names[i];
        }
    }
    return best;
}

/* Σ of the kernel values of metric m (NaN when all are NaN). */
static double kernel_sum(const struct mx_result *res, int m)
{
    double s = 0;
    bool any = false;
    for (uint32_t r = 0; r < res->nk; r++) {
        double v = mx_value(res, r, m);
        if (!isnan(v)) {
            s += v;
            any = true;
        }
    }
    return any ? s : NAN;
}

/* Mean of the kernel values of metric m weighted by their launch-pass time
 * (the seed's whole-run max_waves_CU: pass-4-time-weighted limits). */
static double kernel_weighted(const struct mx_ctx *x, int m)
{
    const struct mx_result *res = x->res;
    double s = 0, w = 0;
    for (uint32_t r = 0; r < res->nk; r++) {
        double v = mx_value(res, r, m), t = x->var[(size_t)r * AV_COUNT + AV_LAUNCH_TIME_NS];
        if (!isnan(v) && t > 0) {
            s += v * t;
            w += t;
        }
    }
    return w > 0 ? s / w : NAN;
}

static double metric_value(const struct mx_ctx *x, int m, bool total, const double *slot)
{
    const struct arch_metric *am = &x->ap->metrics[m];
    if (!total)
        return am->total == AT_ONLY ? NAN : ex_eval(am->expr, slot);
    switch (am->total) {
    case AT_SUM: return kernel_sum(x->res, m);
    case AT_WEIGHTED: return kernel_weighted(x, m);
    case AT_NONE: return NAN;
    default: return ex_eval(am->expr, slot);
    }
}

/* How the cell is written (enum mx_cell); *v becomes 0 for AN_ZERO. */
static enum mx_cell cell_kind(const struct arch_metric *am, bool total, double *v)
{
    if ((total && am->total == AT_NONE) || (!total && am->total == AT_ONLY))
        return MX_CELL_EMPTY;   /* does not apply to this row */
    if (isnan(*v)) {
        if (am->nodata == AN_ZERO)
            *v = 0;
        return am->nodata == AN_EMPTY ? MX_CELL_EMPTY : am->nodata == AN_ZERO ? MX_CELL_INT
                                                                             : MX_CELL_NUM;
    }
    return am->integer && !(total && am->total == AT_WEIGHTED) ? MX_CELL_INT : MX_CELL_NUM;
}

/* Evaluates every metric of row r in profile order. */
static void eval_row(struct mx_ctx *x, uint32_t r, double *slot)
{
    const struct arch_profile *ap = x->ap;
    struct mx_result *res = x->res;
    bool total = r == res->nk;
    mx_fill_slots(x, r, slot);
    size_t base = (size_t)r * (size_t)ap->nmetrics;
    for (int m = 0; m < ap->nmetrics; m++) {
        const struct arch_metric *am = &ap->metrics[m];
        double v = NAN;
        if (am->label == AL_BOUND && !(total && am->total == AT_NONE))
            res->label[base + m] = bound_label(am, slot, x->opt->latency_pct);
        else if (am->label == AL_ARGMAX && !(total && am->total == AT_NONE))
            res->label[base + m] = argmax_label(am, slot);
        else if (am->label == AL_NONE)
            v = metric_value(x, m, total, slot);
        if (am->label == AL_NONE)
            res->kind[base + m] = (uint8_t)cell_kind(am, total, &v);
        res->v[base + m] = v;
        if (x->metric_slot[m] >= 0)
            slot[x->metric_slot[m]] = v;
        if (m == x->eff_clock_metric && x->clock_slot >= 0 &&
            x->opt->clock_src == MX_CLOCK_FALLBACK)
            slot[x->clock_slot] = v;
    }
}

static void find_slots(struct mx_ctx *x)
{
    const struct arch_profile *ap = x->ap;
    x->metric_slot = xcalloc((size_t)ap->nmetrics + 1, sizeof(int));
    for (int m = 0; m < ap->nmetrics; m++)
        x->metric_slot[m] = -1;
    x->clock_slot = -1;
    for (int s = 0; s < ap->nsyms; s++) {
        if (ap->syms[s].kind == AS_METRIC)
            x->metric_slot[ap->syms[s].index] = s;
        if (ap->syms[s].kind == AS_VAR && ap->syms[s].index == AV_CLOCK_MHZ)
            x->clock_slot = s;
    }
    /* Fallback clock: the row's own effective clock (docs/design.md §7). */
    x->eff_clock_metric = mx_metric_index(ap, "eff_clock_MHz");
}

static void ctx_release(struct mx_ctx *x)
{
    for (int s = 0; x->refs && s < x->ap->nsyms; s++)
        free(x->refs[s].pc);
    free(x->refs);
    for (uint32_t p = 0; x->tot && p < x->run->npasses; p++) {
        free(x->tot[p].csum);
        free(x->tot[p].cdur);
        free(x->tot[p].crows);
    }
    free(x->tot);
    free(x->metric_slot);
    free(x->var);
    mx_time_base_release(x);
}

int mx_compute(struct mx_result *res, struct arch_profile *ap, const struct rp_run *run,
               const struct rp_power *power, const struct arch_pass *defs, int ndefs,
               const struct mx_opts *opt)
{
    memset(res, 0, sizeof(*res));
    res->ap = ap;
    for (size_t i = 0; i < opt->ninput_warn; i++)
        mx_warn(res, "%s", opt->input_warn[i]);
    struct mx_ctx x = { .ap = ap, .run = run, .power = power, .opt = opt, .res = res };
    mx_time_base(&x);
    mx_pick_rows(&x);
    if (res->nk == 0 && !run->copies_only)  /* copies only: no kernel to have any */
        mx_warn(res, "no kernel has counter data in any pass");
    bind_counters(&x);
    pass_totals(&x);
    find_slots(&x);
    mx_fill_vars(&x);
    size_t cells = ((size_t)res->nk + 1) * (size_t)ap->nmetrics;
    res->v = xcalloc(cells + 1, sizeof(double));
    res->label = xcalloc(cells + 1, sizeof(char *));
    res->kind = xcalloc(cells + 1, sizeof(uint8_t));
    double *slot = xcalloc((size_t)ap->nsyms + 1, sizeof(double));
    for (uint32_t r = 0; r <= res->nk; r++)
        eval_row(&x, r, slot);
    mx_checks(&x, defs, ndefs, slot);
    free(slot);
    ctx_release(&x);
    return 0;
}

void mx_release(struct mx_result *res)
{
    for (uint32_t i = 0; i < res->nk; i++)
        free(res->shortname[i]);
    free(res->shortname);
    free(res->kid);
    free(res->full);
    free(res->v);
    free(res->label);
    free(res->kind);
    free(res->order);
    free(res->by_time);
    for (uint32_t p = 0; p < res->npasses; p++) {
        free(res->pass[p].perf);
        for (uint32_t i = 0; i < res->pass[p].nmissing; i++)
            free(res->pass[p].missing[i]);
        free(res->pass[p].missing);
    }
    free(res->pass);
    for (uint32_t i = 0; i < res->nmissk; i++)
        free(res->missk[i].pass);
    free(res->missk);
    for (size_t i = 0; i < res->nwarn; i++)
        free(res->warn[i]);
    free(res->warn);
    memset(res, 0, sizeof(*res));
}
