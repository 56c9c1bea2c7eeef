/* passcover.c - kernels missing from some passes (docs/design.md §8:
 * autotuners such as XLA's, torch.compile's max-autotune and cuDNN's
 * benchmark mode can choose other kernels in every run, so one pass measures
 * kernels another never ran, and their metrics mix runs). Each kernel with
 * counter rows in one pass is looked up in every other pass that has
 * launches; those it is missing from are listed per kernel (mx_result.missk,
 * by descending counter-pass time) and one warning names the largest (at most
 * MAX_NAMED kernels, MAX_PASSES passes each) with their share of the time. */
#include "metrics/mx_int.h"

#include "util/strbuf.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

#define MAX_NAMED 5
#define MAX_PASSES 4

static bool in_pass(const struct rp_pass *ps, uint32_t kid)
{
    return kid < ps->nkernels && ps->launches[kid] > 0;
}

/* Passes of kernel row r's absence, into m (pass indices allocated). */
static void missing_of(const struct mx_ctx *x, uint32_t r, struct mx_missk *m)
{
    const struct rp_run *run = x->run;
    m->row = r;
    m->npass = 0;
    m->pass = xcalloc(run->npasses + 1, sizeof(*m->pass));
    for (uint32_t p = 0; p < run->npasses; p++) {
        const struct rp_pass *ps = &run->passes[p];
        if (ps->present && ps->launches_total && !in_pass(ps, x->res->kid[r]))
            m->pass[m->npass++] = p;
    }
}

static void name_one(struct strbuf *sb, const struct mx_ctx *x, const struct mx_missk *m)
{
    sb_addf(sb, "%s (not in ", x->res->shortname[m->row]);
    for (uint32_t i = 0; i < m->npass && i < MAX_PASSES; i++)
        sb_addf(sb, "%s%s", i ? ", " : "", x->run->passes[m->pass[i]].name);
    if (m->npass > MAX_PASSES)
        sb_addf(sb, " and %u more", m->npass - MAX_PASSES);
    sb_adds(sb, ")");
}

void mx_check_pass_cover(struct mx_ctx *x)
{
    struct mx_result *res = x->res;
    int ms = mx_metric_index(x->ap, "time_share_pct");
    res->missk = xcalloc((size_t)res->nk + 1, sizeof(*res->missk));
    double share = 0;
    for (uint32_t i = 0; i < res->nk; i++) {
        struct mx_missk m;
        missing_of(x, res->by_time[i], &m);
        if (!m.npass) {
            free(m.pass);
            continue;
        }
        double s = mx_value(res, m.row, ms);
        share += isfinite(s) ? s : 0;
        res->missk[res->nmissk++] = m;
    }
    if (!res->nmissk)
        return;
    struct strbuf sb;
    sb_init(&sb);
    for (uint32_t i = 0; i < res->nmissk && i < MAX_NAMED; i++) {
        sb_adds(&sb, i ? ", " : "");
        name_one(&sb, x, &res->missk[i]);
    }
    if (res->nmissk > MAX_NAMED)
        sb_addf(&sb, " and %u more", res->nmissk - MAX_NAMED);
    mx_warn(res, "%u kernel(s) are missing from some passes (%.3g%% of the counter-pass time): %s; "
            "the passes did not run the same kernels (an autotuner choosing anew in each run? "
            "README: Autotuners), so these kernels' metrics lack those passes' counters",
            res->nmissk, share, sb.buf);
    sb_release(&sb);
}
