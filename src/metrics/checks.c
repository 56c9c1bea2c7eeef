/* checks.c - the data checks of docs/design.md §8, each a warning in
 * mx_result.warn (never silently dropped): missing passes, counters with no
 * data, pass clocks outside the plausible range or far from the clock used
 * (clockcheck.c),
 * kernel time without counters and lost launches, truncated files, kernel
 * time spread across passes, kernels over a physical limit (the profile's
 * "checks"), and the GRBM clock fallback. Thresholds are the profile's
 * CHECK_* constants (a check whose constant is absent is skipped). */
#include "metrics/mx_int.h"

#include "read/rpconst.h"
#include "read/extrapolate.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool column_has_data(const struct rp_pass *ps, const char *counter)
{
    for (uint32_t c = 0; c < ps->ncounters; c++) {
        if (strcmp(ps->counters[c], counter))
            continue;
        for (uint32_t k = 0; k < ps->nkernels; k++)
            if (ps->crows[(size_t)k * ps->ncounters + c])
                return true;
        return false;
    }
    return false;
}

static void check_counters(struct mx_ctx *x, const struct arch_pass *defs, int ndefs)
{
    for (int i = 0; i < ndefs && (uint32_t)i < x->run->npasses; i++) {
        const struct rp_pass *ps = &x->run->passes[i];
        struct mx_pass *mp = &x->res->pass[i];
        if (!ps->present) {
            mx_warn(x->res, "pass %s: no counter data (no *_counter_collection.csv under %s): "
                    "the metrics of its counters are empty", defs[i].name, ps->dir ? ps->dir : "");
            continue;
        }
        mp->missing = xcalloc(defs[i].counters.n + 1, sizeof(char *));
        for (size_t c = 0; c < defs[i].counters.n; c++)
            if (!rp_is_constant_field(defs[i].counters.v[c]) &&   /* not a counter (rpconst.h) */
                !column_has_data(ps, defs[i].counters.v[c])) {
                mp->missing[mp->nmissing++] = xstrdup(defs[i].counters.v[c]);
                mx_warn(x->res, "counter %s (pass %s): no data: the metrics using it are empty",
                        defs[i].counters.v[c], defs[i].name);
            }
    }
}

/* The kernels with launches but no counter rows: the three with most, and
 * how many more. */
static char *uncounted_names(const struct mx_ctx *x, const struct rp_pass *ps)
{
    uint32_t top[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX }, all = 0;
    for (uint32_t k = 0; k < ps->nkernels; k++) {
        if (!ps->uncounted[k])
            continue;
        all++;
        for (int i = 0; i < 3; i++)   /* insert k into the sorted top three */
            if (top[i] == UINT32_MAX || ps->uncounted[k] > ps->uncounted[top[i]]) {
                for (int j = 2; j > i; j--)
                    top[j] = top[j - 1];
                top[i] = k;
                break;
            }
    }
    struct strbuf sb;
    sb_init(&sb);
    uint32_t shown = 0;
    for (int i = 0; i < 3 && top[i] != UINT32_MAX; i++, shown++)
        sb_addf(&sb, "%s%.60s (%llu)", i ? ", " : "", x->run->names.str[top[i]],
                (unsigned long long)ps->uncounted[top[i]]);
    if (all > shown)
        sb_addf(&sb, " and %u more", all - shown);
    return sb_detach(&sb);
}

static void check_launches(struct mx_ctx *x, const struct rp_pass *ps, struct mx_pass *mp)
{
    double lim = arch_const(x->ap, "CHECK_UNCOUNTED_PCT");
    mp->uncounted_pct = ps->trace_ns > 0 ? 100 * ps->uncounted_ns / ps->trace_ns : NAN;
    mp->lost_launches = ps->uncounted_launches + ps->untimed_launches;
    mp->truncated = ps->truncated;
    mp->sampled = ps->sampled;
    mp->profiled = (double)ps->profiled_total;
    if (ps->uncounted_launches || (!isnan(lim) && mp->uncounted_pct > lim)) {
        char *names = ps->uncounted ? uncounted_names(x, ps) : xstrdup("");
        /* a sampled pass profiles only some launches of each kernel on
         * purpose: only kernels with none profiled lack counters */
        mx_warn(x->res, "pass %s: %llu of %llu launches in the kernel trace have no counter rows "
                "(%s; %.3g%% of kernel time%s)%s%s", mp->name,
                (unsigned long long)ps->uncounted_launches,
                (unsigned long long)ps->trace_launches,
                ps->sampled ? "kernels none of whose launches was profiled" : "lost launches",
                mp->uncounted_pct,
                !isnan(lim) && mp->uncounted_pct > lim ? ", over the 0.5% limit" : "",
                *names ? ": " : "", names);
        free(names);
    }
    if (ps->untimed_launches)
        mx_warn(x->res, "pass %s: %llu launches have counters but no duration (no kernel-trace "
                "match): their time is missing", mp->name,
                (unsigned long long)ps->untimed_launches);
    if (ps->truncated)
        mx_warn(x->res, "pass %s: %llu truncated last line(s) dropped (killed job?)", mp->name,
                (unsigned long long)ps->truncated);
    if (ps->bad_values)
        mx_warn(x->res, "pass %s: %llu counter value(s) left out (not a count: not finite, "
                "negative or 2^64-1), the first %s", mp->name,
                (unsigned long long)ps->bad_values, ps->bad_value_at);
    if (ps->dup_rows)
        mx_warn(x->res, "pass %s: %llu repeated counter row(s) (the same counter of the same "
                "dispatch again: a duplicated file or dispatch) left out, the first at %s",
                mp->name, (unsigned long long)ps->dup_rows, ps->dup_row_at);
    if (ps->untraced)
        mx_warn(x->res, "pass %s: %llu profiled launches are missing from the kernel trace: "
                "counted as launches of their own", mp->name, (unsigned long long)ps->untraced);
}

/* Two passes of one run profile the same program: passes without a kernel
 * name in common (both with kernels) measured different ones. */
static void check_disjoint(struct mx_ctx *x)
{
    const struct rp_run *run = x->run;
    uint32_t first = UINT32_MAX;
    for (uint32_t p = 0; p < run->npasses; p++) {
        const struct rp_pass *ps = &run->passes[p];
        if (!ps->present || !ps->launches_total)
            continue;
        if (first == UINT32_MAX) {
            first = p;
            continue;
        }
        const struct rp_pass *f = &run->passes[first];
        bool common = false;
        for (uint32_t k = 0; k < ps->nkernels && k < f->nkernels && !common; k++)
            common = ps->launches[k] && f->launches[k];
        if (!common)
            mx_warn(x->res, "passes %s and %s have no kernel in common: they ran different "
                    "programs (or kernel names changed); their metrics cannot be combined",
                    f->name, ps->name);
    }
}

/* A sampled pass: the estimates whose 95 % interval is wider than
 * CHECK_SAMPLING_PCT of the value, for kernels with at least 1 % of the
 * pass's kernel time, in one warning (the widest named). The interval
 * shrinks about as 1/sqrt(profiled launches). */
static void check_sampling(struct mx_ctx *x, const struct rp_pass *ps, struct mx_pass *mp)
{
    double lim = arch_const(x->ap, "CHECK_SAMPLING_PCT");
    mp->widest_pct = NAN;
    if (!ps->sampled)
        return;
    uint32_t wide = 0, unknown = 0, wk = 0, wc = 0;
    double worst = 0;
    for (uint32_t k = 0; k < ps->nkernels; k++) {
        if (!ps->launches[k] || ps->profiled[k] >= ps->launches[k] ||
            ps->dur_ns[k] < 0.01 * ps->dur_ns_total)
            continue;
        for (uint32_t c = 0; c < ps->ncounters; c++) {
            size_t at = (size_t)k * ps->ncounters + c;
            if (!ps->crows[at] || ps->csum[at] == 0)
                continue;
            double pct = 100 * xp_half_width(ps->cvar[at], ps->cdf[at]) / fabs(ps->csum[at]);
            if (isnan(pct)) {
                unknown++;
                continue;
            }
            if (isnan(mp->widest_pct) || pct > mp->widest_pct)
                mp->widest_pct = pct;
            if (isnan(lim) || pct <= lim)
                continue;
            if (pct > worst)
                worst = pct, wk = k, wc = c;
            wide++;
        }
    }
    if (wide) {
        /* The interval shrinks as 1/sqrt(profiled): the factor of profiled
         * launches that would bring the widest within the limit, unless that
         * is more launches than the kernel has (its launches differ in kind,
         * e.g. one GEMM kernel for several shapes: only every launch will do). */
        double more = ceil((worst / lim) * (worst / lim));
        unsigned long long prof = ps->profiled[wk], runs = ps->launches[wk];
        char advice[160];
        if (more * (double)prof >= (double)runs)
            snprintf(advice, sizeof(advice), "no sample of its launches would bring it "
                     "within the limit: profile every launch (LAUNCHES=all)");
        else
            snprintf(advice, sizeof(advice), "about %.0fx as many profiled launches would "
                     "bring it within the limit (LAUNCHES=sampled:FIRST:EVERY:BLOCKS:SEED with a "
                     "smaller EVERY, or LAUNCHES=all)", more);
        mx_warn(x->res, "pass %s: %u sampled estimate(s) have a 95%% interval wider than "
                "+-%.3g%% (widest: %s of %.60s, +-%.3g%% from %llu of %llu launches): the "
                "launches differ too much for the sample; %s",
                mp->name, wide, lim, ps->counters[wc], x->run->names.str[wk], worst, prof, runs,
                advice);
    }
    if (unknown)
        mx_warn(x->res, "pass %s: %u sampled estimate(s) have no interval (a kernel with a "
                "single profiled launch of several)", mp->name, unknown);
}

/* Collective-communication kernels (NCCL; RCCL keeps NCCL's kernel names)
 * spin until every rank arrives: their time is the other ranks' progress,
 * which profiling changes differently in each pass, not this pass's work. */
static bool comm_kernel(const char *name)
{
    return !strncmp(name, "nccl", 4) || !strncmp(name, "rccl", 4);
}

/* Σ kernel time of a pass without the communication kernels, ms. */
static double work_ms(const struct mx_ctx *x, const struct rp_pass *ps, double *comm_ms)
{
    double comm = 0;
    for (uint32_t k = 0; k < ps->nkernels; k++)
        if (comm_kernel(x->run->names.str[k]))
            comm += ps->dur_ns[k];
    *comm_ms = comm / 1e6;
    return (ps->dur_ns_total - comm) / 1e6;
}

static void pass_checks(struct mx_ctx *x, const struct arch_pass *defs, int ndefs)
{
    struct mx_result *res = x->res;
    double tmin = INFINITY, tmax = -INFINITY;
    int n = 0;
    for (uint32_t p = 0; p < res->npasses; p++) {
        const struct rp_pass *ps = &x->run->passes[p];
        struct mx_pass *mp = &res->pass[p];
        mp->name = (int)p < ndefs ? defs[p].name : ps->name;
        mp->label = (int)p < ndefs ? defs[p].label : NULL;
        mp->present = ps->present;
        mp->eff_clock_MHz = mp->uncounted_pct = mp->gui_excess_pct = mp->perf_s = NAN;
        mp->judged_clock_MHz = NAN;
        mp->widest_pct = NAN;
        if (!ps->present)
            continue;
        mp->time_ms = ps->dur_ns_total / 1e6;
        mp->launches = (double)ps->launches_total;
        mp->instrumented = x->instrumented[p];
        mp->slowdown = x->pass_ns[p] > 0 ? ps->dur_ns_total / x->pass_ns[p] : NAN;
        char *col = xasprintf("clock_MHz_%s", ps->name);
        mp->eff_clock_MHz = mx_value(res, res->nk, mx_metric_index(x->ap, col));
        free(col);
        mx_check_pass_clock(x, p, mp);
        check_launches(x, ps, mp);
        check_sampling(x, ps, mp);
        double work = work_ms(x, ps, &mp->comm_ms);
        if (mp->instrumented)   /* slower by design: its time is not the app's */
            continue;
        tmin = fmin(tmin, work);
        tmax = fmax(tmax, work);
        n++;
    }
    /* the seed's spread: (max - min) / min */
    res->time_spread_pct = n > 1 && tmin > 0 ? 100 * (tmax - tmin) / tmin : (n ? 0 : NAN);
    double lim = arch_const(x->ap, "CHECK_TIME_SPREAD_PCT");
    if (!isnan(lim) && res->time_spread_pct > lim)
        mx_warn(res, "total kernel time differs by %.3g%% across passes (over %.3g%%): the passes "
                "did not run the same work", res->time_spread_pct, lim);
}

/* The profile's physical-limit checks, per kernel. */
static void limit_checks(struct mx_ctx *x, double *slot)
{
    const struct arch_profile *ap = x->ap;
    struct mx_result *res = x->res;
    for (uint32_t r = 0; r < res->nk; r++) {
        mx_fill_slots(x, r, slot);
        for (int s = 0; s < ap->nsyms; s++)
            if (ap->syms[s].kind == AS_METRIC)
                slot[s] = mx_value(res, r, ap->syms[s].index);
        for (int c = 0; c < ap->nchecks; c++) {
            double ok = ex_eval(ap->checks[c].ok, slot);
            if (isnan(ok) || ok != 0)
                continue;
            mx_warn(res, "kernel %s: %s (%.4g): over a physical limit, usually a clock mismatch "
                    "between the power run and the PMC runs (throttled workload?)",
                    res->shortname[r], ap->checks[c].name, ex_eval(ap->checks[c].value, slot));
        }
    }
}

void mx_checks(struct mx_ctx *x, const struct arch_pass *defs, int ndefs, double *slot)
{
    x->res->npasses = x->run->npasses;
    x->res->pass = xcalloc((size_t)x->res->npasses + 1, sizeof(*x->res->pass));
    if (x->opt->clock_src == MX_CLOCK_FALLBACK && x->res->nk > 0)  /* no row uses cycles */
        mx_warn(x->res, "clock: no telemetry and no --clock-mhz: cycles use each row's own "
                "%s / time (fallback%s)", arch_cycle_counter(x->ap),
                arch_is_nvidia(x->ap) ? "" : "; counter mode adds ~14k-18k cycles per launch, "
                                             "so cycle-based metrics read low");
    if (!x->run->copies_only)   /* its passes have no kernel to count */
        check_counters(x, defs, ndefs);
    pass_checks(x, defs, ndefs);
    check_disjoint(x);
    mx_check_pass_cover(x);
    limit_checks(x, slot);
}
