/* timebase.c - the kernel time each pass's rates divide by.
 *
 * Normally a pass's own kernel durations. A pass holding a counter that is
 * collected by patching the kernel's code (the profile's
 * instrumented_counters; CUPTI's sm__sass_* metrics) runs every kernel
 * slower: 14.7x on a PyTorch transformer step on an H200 (docs/validation.md).
 * Its counts are right but its time is not the application's, so its kernels
 * are timed from the uninstrumented passes instead: their mean time per launch
 * of the same kernel x this pass's launches. Per kernel, never joined by
 * launch (docs/design.md §6). A kernel seen only in instrumented passes keeps its
 * slowed time, with a warning.
 */
#include "metrics/mx_int.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

static bool pass_instrumented(const struct arch_profile *ap, const struct rp_pass *ps)
{
    for (uint32_t c = 0; c < ps->ncounters; c++)
        if (arch_counter_instrumented(ap, ps->counters[c]))
            return true;
    return false;
}

/* Mean time per launch of kernel k over the present uninstrumented passes;
 * NaN where none ran it. */
static double ref_time_per_launch(const struct mx_ctx *x, uint32_t k)
{
    double t = 0, l = 0;
    for (uint32_t q = 0; q < x->run->npasses; q++) {
        const struct rp_pass *ps = &x->run->passes[q];
        if (!ps->present || x->instrumented[q] || k >= ps->nkernels || !ps->launches[k])
            continue;
        t += ps->dur_ns[k];
        l += (double)ps->launches[k];
    }
    return l > 0 ? t / l : NAN;
}

static void retime_pass(struct mx_ctx *x, uint32_t p)
{
    const struct rp_pass *ps = &x->run->passes[p];
    double *d = x->kdur_owned[p] = xcalloc((size_t)ps->nkernels + 1, sizeof(double));
    uint32_t kept = 0;
    for (uint32_t k = 0; k < ps->nkernels; k++) {
        double per = ps->launches[k] ? ref_time_per_launch(x, k) : NAN;
        if (isnan(per)) {
            d[k] = ps->dur_ns[k];
            kept += ps->launches[k] != 0;
        } else {
            d[k] = per * (double)ps->launches[k];
        }
    }
    if (kept)
        mx_warn(x->res, "pass %s is instrumented (its counters patch the kernel code) and %u "
                "kernel(s) ran in no other pass: their rates use the slowed kernel time",
                ps->name, kept);
    x->kdur[p] = d;
}

void mx_time_base(struct mx_ctx *x)
{
    uint32_t np = x->run->npasses;
    x->instrumented = xcalloc((size_t)np + 1, sizeof(bool));
    x->kdur = xcalloc((size_t)np + 1, sizeof(*x->kdur));
    x->kdur_owned = xcalloc((size_t)np + 1, sizeof(*x->kdur_owned));
    x->pass_ns = xcalloc((size_t)np + 1, sizeof(double));
    uint32_t plain = 0;
    for (uint32_t p = 0; p < np; p++) {
        const struct rp_pass *ps = &x->run->passes[p];
        x->instrumented[p] = ps->present && pass_instrumented(x->ap, ps);
        plain += ps->present && !x->instrumented[p];
        x->kdur[p] = ps->dur_ns;
    }
    for (uint32_t p = 0; p < np; p++) {
        const struct rp_pass *ps = &x->run->passes[p];
        if (x->instrumented[p] && plain)
            retime_pass(x, p);
        else if (x->instrumented[p])
            mx_warn(x->res, "pass %s is instrumented (its counters patch the kernel code) and no "
                    "other pass timed its kernels: its rates use the slowed kernel time", ps->name);
        for (uint32_t k = 0; k < ps->nkernels; k++)
            x->pass_ns[p] += x->kdur[p][k];
    }
}

void mx_time_base_release(struct mx_ctx *x)
{
    for (uint32_t p = 0; x->kdur_owned && p < x->run->npasses; p++)
        free(x->kdur_owned[p]);
    free(x->kdur_owned);
    free(x->kdur);
    free(x->pass_ns);
    free(x->instrumented);
}
