/* clockcheck.c - the pass clock check of docs/design.md §8, judged where the
 * per-launch overhead of the clock counter does not matter.
 *
 * Why: in counter mode GRBM_GUI_ACTIVE counts a fixed ~14k-18k cycles per
 * launch (per die) besides the kernel's own; a 6 us kernel at 2100 MHz then
 * reads 4.8 GHz, a 40 us one 2.5 GHz. A pass of short kernels reads far above
 * any real clock although nothing is wrong (a real MI300X GEMM run with 301
 * dispatches warned in every pass). The pass's own clock (Σ cycles /
 * Σ time, the seed's eff_clock_MHz and gui_excess_pct) stays as it is; only
 * the judgement changes:
 *  - kernels whose launches have at least CHECK_CLOCK_LAUNCH_CYCLES x 100 /
 *    CHECK_CLOCK_OVERHEAD_PCT cycles each (the overhead is then at most that
 *    share of their cycles) are judged, by their own Σ cycles / Σ time;
 *  - when no kernel is that long, the pass is judged on every kernel with the
 *    overhead bounded: the clock lies between (Σ cycles - launches x
 *    CHECK_CLOCK_LAUNCH_CYCLES) / Σ time and Σ cycles / Σ time, and only a
 *    range wholly outside the limits warns;
 *  - a profile without those constants (NVIDIA: sm__cycles_elapsed has no
 *    such overhead) judges every kernel, as the seed does.
 * The warning names the kernels furthest out, their clocks and launch times,
 * and how many shorter ones were left out and why. */
#include "metrics/mx_int.h"

#include "util/strbuf.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kclock {             /* one kernel of the pass */
    uint32_t row;
    double mhz, ns, launches;
};

struct judged {
    struct kclock *k;       /* the kernels judged */
    uint32_t n, nshort;     /* judged; left out as too short */
    double cycles, ns, launches;      /* Σ over the judged kernels */
    double all_ns;          /* Σ time of every kernel with a clock */
    double min_cycles;      /* per launch to be judged (0: every kernel) */
    bool bounded;           /* no kernel that long: all judged, overhead bounded */
    double overhead;        /* cycles per launch (NaN: none in the profile) */
};

static int by_mhz_desc(const void *a, const void *b)
{
    double x = ((const struct kclock *)a)->mhz, y = ((const struct kclock *)b)->mhz;
    return (x < y) - (x > y);
}

/* The kernels of pass p with a clock, split by their cycles per launch. */
static void gather(const struct mx_ctx *x, uint32_t p, int metric, struct judged *j)
{
    const struct rp_pass *ps = &x->run->passes[p];
    const struct mx_result *res = x->res;
    double o = arch_const(x->ap, "CHECK_CLOCK_LAUNCH_CYCLES");
    double pct = arch_const(x->ap, "CHECK_CLOCK_OVERHEAD_PCT");
    memset(j, 0, sizeof(*j));
    j->overhead = o;
    j->min_cycles = o > 0 && pct > 0 ? o * 100 / pct : 0;
    j->k = xcalloc((size_t)res->nk + 1, sizeof(*j->k));
    struct kclock *all = xcalloc((size_t)res->nk + 1, sizeof(*all));
    uint32_t nall = 0;
    for (uint32_t r = 0; r < res->nk; r++) {
        uint32_t kid = res->kid[r];
        if (kid >= ps->nkernels || !ps->launches[kid])
            continue;
        struct kclock k = { r, mx_value(res, r, metric), x->kdur[p][kid], (double)ps->launches[kid] };
        if (!isfinite(k.mhz) || !(k.ns > 0))
            continue;
        all[nall++] = k;
        j->all_ns += k.ns;
        if (k.mhz * k.ns / 1000 / k.launches >= j->min_cycles)
            j->k[j->n++] = k;
    }
    if (j->n == 0) {   /* none long enough: every kernel, overhead bounded */
        memcpy(j->k, all, nall * sizeof(*all));
        j->n = nall;
        j->bounded = j->min_cycles > 0;
    } else {
        j->nshort = nall - j->n;
    }
    for (uint32_t i = 0; i < j->n; i++) {
        j->cycles += j->k[i].mhz * j->k[i].ns / 1000;
        j->ns += j->k[i].ns;
        j->launches += j->k[i].launches;
    }
    qsort(j->k, j->n, sizeof(*j->k), by_mhz_desc);
    free(all);
}

/* "NAME 2650 MHz (12.3 us per launch), ..." for up to 3 kernels from the
 * high (or low) end, "and N more". */
static void name_kernels(struct strbuf *sb, const struct mx_ctx *x, const struct judged *j, bool high)
{
    uint32_t n = j->n < 3 ? j->n : 3;
    for (uint32_t i = 0; i < n; i++) {
        const struct kclock *k = &j->k[high ? i : j->n - 1 - i];
        sb_addf(sb, "%s%s %.0f MHz (%.1f us per launch)", i ? ", " : "",
                x->res->shortname[k->row], k->mhz, k->ns / k->launches / 1000);
    }
    if (j->n > n)
        sb_addf(sb, " and %u more", j->n - n);
}

/* What was judged, for the messages and the report. */
static void describe(struct strbuf *sb, const struct judged *j, bool bounded)
{
    if (bounded)
        sb_addf(sb, "no kernel has launches of %.0fk cycles or more, so all %u are judged, with up "
                "to %.0fk cycles per launch (counter mode's overhead) taken off",
                j->min_cycles / 1000, j->n, j->overhead / 1000);
    else if (j->min_cycles > 0)
        sb_addf(sb, "judged on its %u kernel(s) with launches of at least %.0fk cycles (%.3g%% of "
                "its kernel time)%s", j->n, j->min_cycles / 1000,
                j->all_ns > 0 ? 100 * j->ns / j->all_ns : 0,
                j->nshort ? "; shorter ones left out: counter mode adds up to" : "");
    if (!bounded && j->min_cycles > 0 && j->nshort)
        sb_addf(sb, " %.0fk cycles to each launch (%u kernel(s))", j->overhead / 1000, j->nshort);
}

/* One limit check [lo, hi]: 1 high, -1 low, 0 in range (or no data). */
static int outside(const struct judged *j, bool bounded, double lo, double hi, double *shown)
{
    if (j->ns <= 0 || isnan(lo) || isnan(hi))
        return 0;
    double c = 1000 * j->cycles / j->ns;
    double floor = bounded ? 1000 * (j->cycles - j->launches * j->overhead) / j->ns : c;
    *shown = c;
    if (floor > hi) {
        *shown = floor;
        return 1;
    }
    return c < lo ? -1 : 0;
}

static void warn_out(struct mx_ctx *x, const struct mx_pass *mp, const struct judged *j,
                     bool bounded, int side, double shown, const char *limits, const char *why)
{
    struct strbuf sb;
    sb_init(&sb);
    name_kernels(&sb, x, j, side > 0);
    struct strbuf d;
    sb_init(&d);
    describe(&d, j, bounded);
    mx_warn(x->res, "pass %s: effective clock %.0f MHz (%s%s) is outside %s%s: %s%s%s", mp->name,
            shown, arch_cycle_counter(x->ap), bounded && side > 0 ? ", at least" : "", limits, why,
            sb.buf ? sb.buf : "", d.len ? "; " : "", d.buf ? d.buf : "");
    sb_release(&d);
    sb_release(&sb);
}

void mx_check_pass_clock(struct mx_ctx *x, uint32_t p, struct mx_pass *mp)
{
    const struct arch_profile *ap = x->ap;
    double lo = arch_const(ap, "CHECK_CLOCK_MIN_MHZ"), hi = arch_const(ap, "CHECK_CLOCK_MAX_MHZ");
    double rlo = arch_const(ap, "CHECK_CLOCK_RATIO_MIN"), rhi = arch_const(ap, "CHECK_CLOCK_RATIO_MAX");
    double c = mp->eff_clock_MHz, used = x->res->clock_mhz;
    mp->judged_clock_MHz = NAN;
    mp->gui_excess_pct = used > 0 && c > 0 ? 100 * (1 - used / c) : NAN;   /* the seed's */
    if (isnan(c))
        return;
    char *col = xasprintf("clock_MHz_%s", mp->name);
    struct judged j;
    gather(x, p, mx_metric_index(ap, col), &j);
    free(col);
    bool bounded = j.bounded;
    mp->judged_clock_MHz = j.ns > 0 ? 1000 * j.cycles / j.ns : NAN;
    mp->judged_kernels = j.n;
    mp->judged_on = j.min_cycles <= 0 ? "every kernel" : bounded ? "every kernel, overhead bounded"
                                                                  : "long kernels";
    double shown;
    char lim[96];
    int side = outside(&j, bounded, lo, hi, &shown);
    snprintf(lim, sizeof(lim), "%.0f-%.0f MHz", lo, hi);
    if (side)
        warn_out(x, mp, &j, bounded, side, shown, lim, "");
    if (!isnan(used) && used > 0 && !isnan(rlo) && !isnan(rhi) &&
        (side = outside(&j, bounded, rlo * used, rhi * used, &shown))) {
        snprintf(lim, sizeof(lim), "%.1f-%.1fx the clock used (%.0f MHz)", rlo, rhi, used);
        warn_out(x, mp, &j, bounded, side, shown, lim,
                 " (clock mismatch between the power run and the PMC runs?)");
    }
    free(j.k);
}
