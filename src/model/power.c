/* power.c - a power run's model (power.h): releasing it, GPU busy %, copy sums. */
#include "model/power.h"

#include "util/strv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rp_power_release(struct rp_power *pw)
{
    free(pw->launch);
    str_array_free(pw->files);
    free(pw->launches);
    free(pw->dur_ns);
    free(pw->vgpr);
    free(pw->lds);
    free(pw->gpu);
    free(pw->busy_iv);
    free(pw->copy_iv);
    rp_copies_release(&pw->copies);
    memset(pw, 0, sizeof(*pw));
}

static double busy_pct(const struct rp_gpu_busy *g, double busy)
{
    double span = (double)(g->span_last - g->span_first);
    return span > 0 ? 100.0 * busy / span : NAN;
}

double rp_gpu_busy_pct(const struct rp_gpu_busy *g)
{
    return busy_pct(g, g->busy_ns);
}

double rp_gpu_kernel_busy_pct(const struct rp_gpu_busy *g)
{
    return busy_pct(g, g->kernel_busy_ns);
}

static double mean_pct(const struct rp_power *pw, double (*pct)(const struct rp_gpu_busy *))
{
    double s = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < pw->ngpus; i++) {
        double v = pct(&pw->gpu[i]);
        if (!isnan(v)) {
            s += v;
            n++;
        }
    }
    return n ? s / n : NAN;
}

double rp_power_busy_pct(const struct rp_power *pw)
{
    return mean_pct(pw, rp_gpu_busy_pct);
}

double rp_power_kernel_busy_pct(const struct rp_power *pw)
{
    return mean_pct(pw, rp_gpu_kernel_busy_pct);
}

const char *rp_gpu_path(const struct rp_power *pw, const struct rp_gpu_busy *g)
{
    if (g->file < pw->nfiles)
        return pw->files[g->file];
    return g->copy_file < pw->copies.nfiles ? pw->copies.files[g->copy_file] : "";
}

void rp_copies_release(struct rp_copies *cp)
{
    str_array_free(cp->files);
    free(cp->layouts);
    free(cp->v);
    free(cp->unknown_at);
    memset(cp, 0, sizeof(*cp));
}

void rp_copies_sum(const struct rp_copies *cp, struct rp_copy_sum *by_dir, struct rp_copy_sum *all)
{
    memset(by_dir, 0, CT_NDIR * sizeof(*by_dir));
    if (all)
        memset(all, 0, sizeof(*all));
    for (size_t i = 0; i < cp->n; i++) {
        const struct ct_copy *c = &cp->v[i].c;
        for (struct rp_copy_sum *s = &by_dir[c->dir]; s; s = s == all ? NULL : all) {
            s->copies++;
            s->time_ns += (double)(c->end_ns - c->start_ns);
            if (c->bytes == CT_BYTES_UNKNOWN)
                s->unknown_bytes++;
            else
                s->bytes += c->bytes;
        }
    }
}
