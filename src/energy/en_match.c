/* en_match.c - trace GPUs to telemetry files (energy.h en_match).
 *
 * The sampler numbers GPUs as the application sees them (HIP/CUDA order), and
 * the trace names a GPU by its Agent_Id: rocprofv3's agent node id, or the
 * CUDA ordinal for benchrun's CUPTI tracer, both increasing in that same
 * order. So when a node's traces name as many agents as it has telemetry
 * files, the i-th smallest agent is the i-th file. When they do not (every
 * rank bound to one GPU calls it ordinal 0), the activity itself tells:
 * a GPU's power follows its own kernels, so each trace GPU is given the file
 * whose power correlates best with its busy fraction per sample.
 */
#include "energy/en_int.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *en_match_name(enum en_match_how h)
{
    switch (h) {
    case EN_MATCH_ONLY: return "only telemetry file of the node";
    case EN_MATCH_AGENT_ORDER: return "agent order";
    case EN_MATCH_CORRELATION: return "busy/power correlation";
    default: return "none";
    }
}

struct busy_ctx {
    double *busy;                   /* [segment] ns with something running */
};

static void busy_piece(void *vctx, size_t seg, int64_t u, int64_t v, const struct en_active *a)
{
    struct busy_ctx *c = vctx;
    if (a->n)
        c->busy[seg] += (double)(v - u);
}

/* Pearson correlation between the busy fraction and the power over the
 * samples [t(i-1), t(i)) of p. */
static double busy_power_corr(const struct en_trace_gpu *k, const struct en_series *p)
{
    if (p->n < 3)
        return NAN;
    struct en_events ev;
    en_events_build(&ev, k->act, k->nact, 0);
    /* Every activity becomes column id (kernel) or id (copy, nkernels 0):
     * the count of columns does not matter, only whether any runs. */
    uint32_t ncols = 1;
    for (size_t i = 0; i < ev.n; i++)
        ncols = ev.col[i] + 1 > ncols ? ev.col[i] + 1 : ncols;
    size_t n = p->n - 1;
    double *busy = xcalloc(n + 1, sizeof(*busy));
    struct busy_ctx c = { busy };
    struct en_sweep_cb cb = { busy_piece, NULL, &c };
    en_sweep(&ev, ncols, p->t_ns, p->t_ns + 1, n, 0, &cb);
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double len = (double)(p->t_ns[i + 1] - p->t_ns[i]), y = p->v[i + 1];
        if (!(len > 0) || !isfinite(y))
            continue;
        double x = busy[i] / len;
        sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y, m++;
    }
    free(busy);
    en_events_free(&ev);
    double vx = sxx - sx * sx / m, vy = syy - sy * sy / m;
    return m > 2 && vx > 0 && vy > 0 ? (sxy - sx * sy / m) / sqrt(vx * vy) : NAN;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct agents, sorted; their count. */
static size_t distinct_agents(const struct en_trace_gpu *k, size_t nk, uint64_t *out)
{
    for (size_t i = 0; i < nk; i++)
        out[i] = k[i].agent;
    qsort(out, nk, sizeof(*out), cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < nk; i++)
        if (m == 0 || out[m - 1] != out[i])
            out[m++] = out[i];
    return m;
}

static void by_correlation(const struct en_trace_gpu *k, size_t nk, const struct en_series *power,
                           size_t nt, int *tel, double *r)
{
    double *c = xmalloc((nk * nt + 1) * sizeof(*c));
    for (size_t i = 0; i < nk; i++)
        for (size_t j = 0; j < nt; j++)
            c[i * nt + j] = busy_power_corr(&k[i], &power[j]);
    bool *used = xcalloc(nt + 1, sizeof(*used));
    /* Greedy, best pair first, one file per GPU while files remain. */
    for (size_t round = 0; round < nk && round < nt; round++) {
        size_t bi = SIZE_MAX, bj = 0;
        double best = -INFINITY;
        for (size_t i = 0; i < nk; i++)
            for (size_t j = 0; j < nt && tel[i] < 0; j++) {
                double v = isnan(c[i * nt + j]) ? -2 : c[i * nt + j];
                if (!used[j] && v > best)
                    best = v, bi = i, bj = j;
            }
        if (bi == SIZE_MAX)
            break;
        tel[bi] = (int)bj, r[bi] = c[bi * nt + bj], used[bj] = true;
    }
    for (size_t i = 0; i < nk; i++) {       /* more GPUs than files: best file */
        if (tel[i] >= 0)
            continue;
        size_t bj = 0;
        for (size_t j = 1; j < nt; j++)
            if (!(c[i * nt + j] <= c[i * nt + bj]))
                bj = j;
        tel[i] = (int)bj, r[i] = c[i * nt + bj];
    }
    free(used);
    free(c);
}

enum en_match_how en_match(const struct en_trace_gpu *k, size_t nk, const struct en_series *power,
                           size_t nt, int *tel, double *r)
{
    for (size_t i = 0; i < nk; i++)
        tel[i] = -1, r[i] = NAN;
    if (nt == 0)
        return EN_MATCH_NONE;
    if (nt == 1) {
        for (size_t i = 0; i < nk; i++)
            tel[i] = 0;
        return EN_MATCH_ONLY;
    }
    uint64_t *ag = xmalloc((nk + 1) * sizeof(*ag));
    size_t na = distinct_agents(k, nk, ag);
    enum en_match_how how = EN_MATCH_AGENT_ORDER;
    if (na == nt) {
        for (size_t i = 0; i < nk; i++) {
            uint64_t *hit = bsearch(&k[i].agent, ag, na, sizeof(*ag), cmp_u64);
            tel[i] = (int)(hit - ag);
        }
    } else {
        by_correlation(k, nk, power, nt, tel, r);
        how = EN_MATCH_CORRELATION;
    }
    free(ag);
    return how;
}
