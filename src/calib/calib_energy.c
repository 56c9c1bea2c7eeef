/* calib_energy.c - the calibration's energy check (calib.h
 * br_calib_check_energy): calib.cu's power phases (an FP64 FMA loop, a DRAM
 * copy and a sleep loop, 20-500 ms each, in a known order) through the
 * energy analysis, against their powers measured directly in the long
 * phases.
 *
 * Direct measurement: a launch of >= 190 ms, from 100 ms after its start
 * (the clock and the sensor have settled; NVML's values lag by up to a
 * refresh) to its end; the driver's power samples whose windows [t - period,
 * t) lie inside, else the energy counter's readings inside (ΔE / Δt), else
 * the sampled power's values inside. Samples of all long launches of a
 * kernel are pooled.
 */
#include "calib/calib.h"

#include "energy/energy.h"
#include "read/prun.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const br_calib_phase_kernels[BR_CALIB_NPHASE] = {
    "calib_phase_fma", "calib_phase_copy", "calib_phase_sleep",
};
static const char *const phase_label[BR_CALIB_NPHASE] = { "FMA loop", "DRAM copy", "sleep loop" };

#define LONG_NS 190000000LL
#define SETTLE_NS 100000000LL

struct direct {
    double sum, n;                  /* Σ values (or J) and count (or s) */
    const char *from;
};

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int64_t median_step(const int64_t *t, size_t n)
{
    int64_t *d = xmalloc((n + 1) * sizeof(*d));
    size_t k = 0;
    for (size_t i = 1; i < n; i++)
        d[k++] = t[i] - t[i - 1];
    qsort(d, k, sizeof(*d), cmp_i64);
    int64_t m = k ? d[k / 2] : 0;
    free(d);
    return m;
}

/* One launch's settled span [a, b) into d from the GPU's best sensor. */
static void measure(const struct prun_gpu *g, int64_t a, int64_t b, struct direct *d)
{
    if (g->drv.n > 1) {
        int64_t per = median_step(g->drv.t_ns, g->drv.n);
        for (size_t i = 0; i < g->drv.n; i++)
            if (g->drv.t_ns[i] - per >= a && g->drv.t_ns[i] <= b && isfinite(g->drv.power_W[i]))
                d->sum += g->drv.power_W[i], d->n += 1;
        d->from = "driver power samples";
        return;
    }
    if (g->ne > 1) {
        size_t i0 = SIZE_MAX, i1 = 0;
        for (size_t i = 0; i < g->ne; i++)
            if (g->et[i] >= a && g->et[i] <= b)
                i0 = i0 == SIZE_MAX ? i : i0, i1 = i;
        if (i0 != SIZE_MAX && i1 > i0)
            d->sum += g->ev[i1] - g->ev[i0], d->n += (double)(g->et[i1] - g->et[i0]) * 1e-9;
        d->from = "energy counter";
        return;
    }
    for (size_t i = 0; i < g->n; i++)
        if (g->t[i] >= a && g->t[i] <= b && isfinite(g->power[i]))
            d->sum += g->power[i], d->n += 1;
    d->from = "sampled power";
}

static void add_rel(struct br_calib_results *res, const char *check, double want, double got,
                    double tol, const char *what, const char *src, const char *note)
{
    char *exp = xasprintf("%.4g %s ±%.0f%%", want, what, tol * 100);
    char *meas = xasprintf("%.4g (%+.2f%%)", got, 100 * (got - want) / want);
    bool ok = isfinite(got) && isfinite(want) && want != 0 && fabs(got - want) <= tol * fabs(want);
    br_calib_result_add(res, check, exp, meas, src, ok ? BR_CALIB_PASS : BR_CALIB_MISS,
                        ok ? NULL : note);
    free(exp);
    free(meas);
}

static void phase(const struct prun *pr, const struct en_result *en, uint32_t k, int ph,
                  struct br_calib_results *res)
{
    struct direct d = { 0, 0, NULL };
    for (size_t g = 0; g < pr->ngpus; g++)
        for (size_t i = 0; i < pr->gpu[g].nact; i++) {
            const struct en_act *a = &pr->gpu[g].act[i];
            if (a->kind == EN_KERNEL && a->id == k && a->end_ns - a->start_ns >= LONG_NS)
                measure(&pr->gpu[g], a->start_ns + SETTLE_NS, a->end_ns, &d);
        }
    char *check = xasprintf("energy phases: %s power (fit) vs direct", phase_label[ph]);
    if (!(d.n > 0)) {
        br_calib_result_add(res, check, "a phase of >= 190 ms", "none", br_calib_phase_kernels[ph],
                            BR_CALIB_MISS, "no long phase with sensor readings");
        free(check);
        return;
    }
    double direct = d.sum / d.n;
    const struct en_col *c = &en->col[k];
    char *src = xasprintf("%s, direct from %s", br_calib_phase_kernels[ph], d.from);
    double fit = c->fit_status == EN_FIT_OK ? c->fit_W : NAN;
    add_rel(res, check, direct, fit, 0.05, "W", src,
            c->fit_status == EN_FIT_OK ? "fitted power off" : "not fitted on its own column");
    free(check);
    check = xasprintf("energy phases: %s energy (attributed) vs direct x time", phase_label[ph]);
    add_rel(res, check, direct * c->time_ns * 1e-9, c->energy_J, 0.05, "J", src,
            "attributed energy off");
    free(check);
    free(src);
}

int br_calib_check_energy(const char *prof_dir, struct br_calib_results *res)
{
    struct intern names;
    intern_init(&names);
    struct prun pr;
    struct prun_opts po = { 0 };
    struct en_opts eo;
    en_opts_default(&eo);
    struct en_result en = { 0 };
    int rc = prun_load(&pr, prof_dir, NULL, NULL, &names, &po);
    if (rc == 0)
        rc = prun_energy(&pr, &po, &eo, &en);
    uint32_t ids[BR_CALIB_NPHASE];
    int found = 0;
    for (int i = 0; rc == 0 && i < BR_CALIB_NPHASE; i++) {
        ids[i] = intern_find(&names, br_calib_phase_kernels[i], strlen(br_calib_phase_kernels[i]));
        found += ids[i] != UINT32_MAX;
    }
    if (rc == 0 && found == 0)
        br_calib_result_add(res, "energy phases", "calib_phase_* kernels", "none in the trace",
                            prof_dir, BR_CALIB_SKIP, "a calib run without power_phases=");
    for (int i = 0; rc == 0 && found && i < BR_CALIB_NPHASE; i++) {
        if (ids[i] == UINT32_MAX)
            br_calib_result_add(res, "energy phases: kernel", br_calib_phase_kernels[i], "missing",
                                prof_dir, BR_CALIB_MISS, "not in the trace");
        else
            phase(&pr, &en, ids[i], i, res);
    }
    if (rc == 0 && found) {
        const struct en_whole *a = &en.all;
        char *src = xasprintf("%.3g s between counter readings; driver samples %+.2f%%, "
                              "power x time %+.2f%%", a->xspan_ns * 1e-9,
                              100 * (a->driver_J - a->counter_J) / a->counter_J,
                              100 * (a->power_J - a->counter_J) / a->counter_J);
        add_rel(res, "energy phases: total (fit) vs energy counter", a->counter_J, a->fit_J, 0.01,
                "J", src, isfinite(a->counter_J) ? "fitted total off" : "no energy counter");
        free(src);
    }
    en_release(&en);
    prun_release(&pr);
    intern_release(&names);
    return rc;
}
