/* wr_sampling.c - what a launch-sampled pmc run profiled, and how sure its
 * totals are: launch_sampling.csv and the "Launch sampling" part of
 * report.md (both only when some pass was sampled, so full-collection runs
 * keep their outputs unchanged).
 *
 * launch_sampling.csv, one row per (pass, kernel, counter): launches (every
 * traced launch), profiled (launches with counter rows), value (the
 * estimated total over every launch; the plain sum in a pass that profiled
 * every launch), ci95_half and ci95_pct (the 95 % interval's half width,
 * absolute and in % of the value; 0 when every launch of the kernel was
 * profiled, empty when unknown), estimator: "all" (every launch profiled),
 * "launches" (stratified mean per launch) or "time" (ratio to the traced
 * time: elapsed-cycle and duration counters), read/extrapolate.h;
 * offset_bound: launches × the range offset the collector took out of each
 * profiled launch (NVIDIA user ranges, rp_pass.coffset), 0 elsewhere. A
 * user range holds a launch's own traffic outside its kernel, which the
 * offset cannot see and auto ranges (full collection) do not count: on the
 * H200 0.26-0.65 × the offset per launch (docs/validation.md §17). So the
 * full-collection total lies within value ± (ci95_half + offset_bound). */
#include "write/analysis.h"

#include "read/extrapolate.h"
#include "read/rocprof.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A number as the analysis CSVs write one: an integer, Python's repr() of
 * the float, or "" for NaN/inf; buf of 32 bytes. */
static const char *num(double v, char *buf)
{
    if (!isfinite(v))
        buf[0] = '\0';
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, 32, "%.0f", v);
    else
        jw_repr_double(buf, 32, v);
    return buf;
}

bool wr_any_sampled(const struct rp_run *run)
{
    for (uint32_t p = 0; run && p < run->npasses; p++)
        if (run->passes[p].present && run->passes[p].sampled)
            return true;
    return false;
}

static uint64_t profiled(const struct rp_pass *ps, uint32_t k)
{
    return ps->profiled ? ps->profiled[k] : ps->launches[k];
}

static const char *estimator(const struct rp_pass *ps, uint32_t k, const char *counter)
{
    if (profiled(ps, k) >= ps->launches[k])
        return "all";
    /* by time only where the trace times the kernels (extrapolate.h) */
    return ps->sampling.kernel_times && lp_elapsed_counter(counter) ? "time" : "launches";
}

static void sample_row(FILE *fp, const struct mx_result *res, uint32_t r, const struct rp_pass *ps,
                       uint32_t c)
{
    uint32_t k = res->kid[r];
    size_t at = (size_t)k * ps->ncounters + c;
    char b[4][32];
    double half = ps->cvar ? xp_half_width(ps->cvar[at], ps->cdf[at]) : 0;
    double bound = ps->coffset ? (double)ps->launches[k] * ps->coffset[c] : 0;
    double v = ps->csum[at];
    wr_csv_field(fp, ps->name);
    fputc(',', fp);
    wr_csv_field(fp, ps->sampled ? "sampled" : "all");
    fputc(',', fp);
    wr_csv_field(fp, res->shortname[r]);
    fputc(',', fp);
    wr_csv_field(fp, res->full[r]);
    fprintf(fp, ",%llu,%llu,", (unsigned long long)ps->launches[k],
            (unsigned long long)profiled(ps, k));
    wr_csv_field(fp, ps->counters[c]);
    fprintf(fp, ",%s,%s,%s,%s,%s\n", num(v, b[0]), num(half, b[1]),
            num(v != 0 ? 100 * half / fabs(v) : NAN, b[2]),
            estimator(ps, k, ps->counters[c]), num(bound, b[3]));
}

int wr_sampling_csv(const struct mx_result *res, const struct rp_run *run, const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    fputs("pass,launches_mode,kernel,kernel_full_name,launches,profiled,counter,value,ci95_half,"
          "ci95_pct,estimator,offset_bound\n", a.fp);
    for (uint32_t p = 0; p < run->npasses; p++) {
        const struct rp_pass *ps = &run->passes[p];
        for (uint32_t i = 0; ps->present && i < res->nk; i++) {
            uint32_t r = res->order[i], k = res->kid[r];
            if (k >= ps->nkernels || !ps->launches[k])
                continue;
            for (uint32_t c = 0; c < ps->ncounters; c++)
                if (ps->crows[(size_t)k * ps->ncounters + c])
                    sample_row(a.fp, res, r, ps, c);
        }
    }
    if (ferror(a.fp)) {
        fs_atomic_abort(&a);
        return br_error("cannot write '%s'", path);
    }
    return fs_atomic_commit(&a);
}

void wr_sampling_head(FILE *fp, const struct rp_run *run)
{
    uint32_t n = 0, sampled = 0, resampled = 0;
    for (uint32_t p = 0; run && p < run->npasses; p++) {
        n += run->passes[p].present;
        sampled += run->passes[p].present && run->passes[p].sampled;
        resampled += run->passes[p].present && run->passes[p].sampled &&
                     run->passes[p].sampling.resample;
    }
    if (resampled)
        fprintf(fp, "- launches: every launch profiled, read in %u of %u passes as if only the "
                    "launches of a sampled pass had been (analyze --resample): the estimates "
                    "against this run's own census in \"Launch sampling\" below\n",
                resampled, n);
    else if (sampled)
        fprintf(fp, "- launches: sampled in %u of %u passes (counters on a sample of each "
                    "kernel's launches, scaled to every launch: \"Launch sampling\" below)\n",
                sampled, n);
    else
        fputs("- launches: all (counters on every launch)\n", fp);
}

void wr_sampling_md(FILE *fp, const struct mx_result *res, const struct rp_run *run)
{
    if (!wr_any_sampled(run))
        return;
    char b[4][32];
    fputs("## Launch sampling\n\nCounters on a sample of each kernel's launches, every launch "
          "traced; totals are the sample scaled to every launch (launch_sampling.csv: every "
          "estimate with its 95 % interval).\n\n"
          "| pass | launches | launches profiled | profiled % | widest 95 % interval % |\n"
          "|---|---|---|---|---|\n", fp);
    for (uint32_t p = 0; p < res->npasses; p++) {
        const struct mx_pass *mp = &res->pass[p];
        if (!mp->present)
            continue;
        double pct = mp->launches > 0 ? 100 * mp->profiled / mp->launches : NAN;
        fprintf(fp, "| %s | %s | %s | %s | %s |\n", mp->name, num(mp->launches, b[0]),
                num(mp->profiled, b[1]), num(round(pct * 100) / 100, b[2]),
                !mp->sampled ? "all launches" : isnan(mp->widest_pct) ? "0"
                : num(round(mp->widest_pct * 1000) / 1000, b[3]));
    }
    fputc('\n', fp);
}
