/* en_fit.c - the fit (energy.h method 2): each activity class's mean power
 * while it runs, by weighted least squares over sensor windows.
 *
 * Model: y_j = Σ_k β_k x_jk, columns k = idle, the classes fitted on their
 * own, one "other kernels" column for the rest; x_jk = the time column k ran
 * in window j / the window's length (concurrent launches add; idle = time
 * with nothing running), weights w_j = window length (s). The normal
 * equations G β = h (G = Σ w x xᵀ, h = Σ w x y) are all a lag needs: the
 * residual sum of squares at the solution is yy - hᵀβ, so the lag search
 * sweeps the activity once per candidate and never stores X.
 *
 * Identifiability: with D = diag(G)^-1/2 and C = D G D (uncentred, the model
 * has no intercept), VIF_k = (C⁻¹)_kk. While the largest VIF exceeds
 * EN_VIF_MAX, that column is merged (columns added: x' = x_k + x_l) with the
 * column of largest |partial correlation| -(C⁻¹)_kl / sqrt((C⁻¹)_kk (C⁻¹)_ll);
 * C⁻¹ comes from the eigen decomposition with eigenvalues floored at 1e-14 of
 * the largest, so an exactly singular design gives huge VIFs rather than a
 * failure. No ridge term: merging keeps every reported number unbiased for
 * what it names (a group's mean power), where a ridge would shrink them all.
 *
 * Standard errors: σ² = Σ w r² / (n - p), Cov = σ² G⁻¹ (G of the final
 * columns), times (1 + ρ) / (1 - ρ) for a positive lag-1 autocorrelation ρ
 * of the weighted residuals of consecutive windows (the AR(1) variance
 * factor; ρ capped at 0.95), since sensor smoothing correlates neighbours.
 *
 * Lag: the sensor's window for reading j is [a_j - L, b_j - L). L is given,
 * or chosen on the grid k × s, k = -10 .. 20 (s = median window / 10, at
 * least 0.1 ms), then refined at s / 10 around the best, by the least
 * residual; ties go to the smallest |L|.
 */
#include "energy/en_int.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MEMBER_IDLE UINT32_MAX
#define MEMBER_OTHER (UINT32_MAX - 1)

/* A GPU's windows inside its accounting window. */
struct gwin {
    size_t n;
    int64_t *a, *b;
    double *p;
};

/* One fitted column: its members (class columns, or MEMBER_*). */
struct fcol {
    uint32_t n, cap;
    uint32_t *m;
};

struct fit {
    uint32_t p;                     /* fitted columns */
    struct fcol *fc;
    int32_t *map;                   /* [ncols] class -> fitted column, -1 none */
    int32_t map_other;              /* fitted column of "other", -1 none */
    int32_t map_idle;
    double *G, *h;
    double yy, sw, swy;
    size_t n;
};

static void fcol_add(struct fcol *f, uint32_t m)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 4;
        f->m = xrealloc(f->m, f->cap * sizeof(*f->m));
    }
    f->m[f->n++] = m;
}

/* ---- the columns ---- */

struct rank {
    uint32_t col;
    double t;
};

static int cmp_rank(const void *a, const void *b)
{
    const struct rank *x = a, *y = b;
    if (x->t != y->t)
        return x->t > y->t ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

/* idle first, then the classes by descending time, then "other"; at most
 * one own column per 5 windows, so that every fitted power rests on data. */
static void plan_columns(const struct en_result *res, const struct en_opts *o, size_t nwin,
                         struct fit *f)
{
    size_t cap = nwin / 5 > 3 ? nwin / 5 - 2 : 1;
    uint32_t max_own = o->fit_max_cols < cap ? o->fit_max_cols : (uint32_t)cap;
    uint32_t nc = res->ncols, nr = 0;
    struct rank *r = xmalloc((nc + 1) * sizeof(*r));
    double total = 0;
    for (uint32_t c = 0; c < nc; c++)
        if (res->col[c].time_ns > 0) {
            r[nr++] = (struct rank){ c, res->col[c].time_ns };
            total += res->col[c].time_ns;
        }
    qsort(r, nr, sizeof(*r), cmp_rank);
    f->map = xmalloc((nc + 1) * sizeof(*f->map));
    for (uint32_t c = 0; c < nc; c++)
        f->map[c] = -1;
    f->fc = xcalloc(nr + 3, sizeof(*f->fc));
    f->p = 1;
    f->map_idle = 0;
    fcol_add(&f->fc[0], MEMBER_IDLE);
    f->map_other = -1;
    for (uint32_t i = 0; i < nr; i++) {
        bool own = i < max_own && 100 * r[i].t >= o->fit_min_share_pct * total;
        if (own) {
            f->map[r[i].col] = (int32_t)f->p;
            fcol_add(&f->fc[f->p++], r[i].col);
            continue;
        }
        if (f->map_other < 0) {
            f->map_other = (int32_t)f->p;
            fcol_add(&f->fc[f->p++], MEMBER_OTHER);
        }
        f->map[r[i].col] = f->map_other;
    }
    free(r);
}

/* ---- accumulating the normal equations ---- */

struct acc_ctx {
    struct fit *f;
    const struct gwin *gw;
    double *row;                    /* [p] time per fitted column in the window (ns) */
    uint32_t *nz;                   /* columns touched */
    uint32_t nnz;
    /* residual pass */
    const double *beta;
    double rss, lag_num, lag_den, prev_r;
    int64_t prev_b;
    bool have_prev;
};

static void touch(struct acc_ctx *c, uint32_t k, double dt)
{
    if (c->row[k] == 0)
        c->nz[c->nnz++] = k;
    c->row[k] += dt;
}

static void acc_piece(void *vctx, size_t seg, int64_t u, int64_t v, const struct en_active *a)
{
    struct acc_ctx *c = vctx;
    double dt = (double)(v - u);
    if (a->n == 0) {
        if (c->f->map_idle >= 0)
            touch(c, (uint32_t)c->f->map_idle, dt);
        return;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        int32_t k = c->f->map[a->col[i]];
        if (k >= 0)
            touch(c, (uint32_t)k, dt * a->cnt[a->col[i]]);
    }
}

static void acc_done(void *vctx, size_t seg)
{
    struct acc_ctx *c = vctx;
    struct fit *f = c->f;
    double len = (double)(c->gw->b[seg] - c->gw->a[seg]), w = len * 1e-9, y = c->gw->p[seg];
    for (uint32_t i = 0; i < c->nnz; i++)
        c->row[c->nz[i]] /= len;
    if (c->beta) {                  /* residual pass */
        double fit = 0;
        for (uint32_t i = 0; i < c->nnz; i++)
            fit += c->beta[c->nz[i]] * c->row[c->nz[i]];
        double r = (y - fit) * sqrt(w);
        c->rss += r * r;
        if (c->have_prev && c->prev_b == c->gw->a[seg]) {
            c->lag_num += r * c->prev_r;
            c->lag_den += r * r;
        }
        c->prev_r = r, c->prev_b = c->gw->b[seg], c->have_prev = true;
    } else {
        for (uint32_t i = 0; i < c->nnz; i++) {
            uint32_t k = c->nz[i];
            f->h[k] += w * c->row[k] * y;
            for (uint32_t j = 0; j < c->nnz; j++)
                f->G[k * f->p + c->nz[j]] += w * c->row[k] * c->row[c->nz[j]];
        }
        f->yy += w * y * y;
        f->sw += w;
        f->swy += w * y;
        f->n++;
    }
    for (uint32_t i = 0; i < c->nnz; i++)
        c->row[c->nz[i]] = 0;
    c->nnz = 0;
}

/* One pass over every GPU's windows at lag L: the normal equations, or with
 * beta the residuals into *ctx_out. */
static void pass(struct fit *f, const struct gwin *gw, const struct en_events *ev, size_t ngpus,
                 uint32_t ncols, int64_t lag, const double *beta, struct acc_ctx *out)
{
    if (!beta) {
        memset(f->G, 0, (size_t)f->p * f->p * sizeof(*f->G));
        memset(f->h, 0, f->p * sizeof(*f->h));
        f->yy = f->sw = f->swy = 0;
        f->n = 0;
    }
    struct acc_ctx c = { .f = f, .row = xcalloc(f->p + 1, sizeof(double)),
                         .nz = xmalloc((f->p + 1) * sizeof(uint32_t)), .beta = beta };
    for (size_t g = 0; g < ngpus; g++) {
        c.gw = &gw[g];
        c.have_prev = false;
        struct en_sweep_cb cb = { acc_piece, acc_done, &c };
        en_sweep(&ev[g], ncols, gw[g].a, gw[g].b, gw[g].n, lag, &cb);
    }
    free(c.row);
    free(c.nz);
    if (out)
        *out = c;
}

/* ---- solving ---- */

/* Pseudo-inverse of the symmetric p x p matrix G through its eigen
 * decomposition, eigenvalues below floor_rel × the largest treated as
 * floor_rel × the largest (floor) or as zero (!floor). */
static void sym_pinv(const double *G, uint32_t p, double floor_rel, bool floor, double *out)
{
    double *a = xmalloc((size_t)p * p * sizeof(*a) + 1), *v = xmalloc((size_t)p * p * sizeof(*v) + 1),
           *w = xmalloc((p + 1) * sizeof(*w));
    memcpy(a, G, (size_t)p * p * sizeof(*a));
    en_sym_eigen(a, p, w, v);
    double wmax = 0;
    for (uint32_t i = 0; i < p; i++)
        wmax = fmax(wmax, w[i]);
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = 0; j < p; j++) {
            double s = 0;
            for (uint32_t k = 0; k < p; k++) {
                double lam = w[k];
                if (!(lam > floor_rel * wmax)) {
                    if (!floor)
                        continue;
                    lam = floor_rel * wmax;
                }
                s += v[i * p + k] * v[j * p + k] / lam;
            }
            out[i * p + j] = s;
        }
    free(a);
    free(v);
    free(w);
}

/* Residual sum of squares at the least-squares solution (pseudo-inverse). */
static double rss_at(const struct fit *f)
{
    uint32_t p = f->p;
    double *pi = xmalloc((size_t)p * p * sizeof(*pi) + 1), q = 0;
    sym_pinv(f->G, p, 1e-12, false, pi);
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = 0; j < p; j++)
            q += f->h[i] * pi[i * p + j] * f->h[j];
    free(pi);
    return f->yy - q;
}

static int64_t choose_lag(struct fit *f, const struct gwin *gw, const struct en_events *ev,
                          size_t ngpus, uint32_t ncols, double win_ms)
{
    double step = fmax(win_ms / 10, 0.1) * 1e6;
    int64_t best = 0;
    double best_rss = INFINITY;
    for (int round = 0; round < 2; round++) {
        int64_t center = best;
        int klo = round == 0 ? -10 : -10, khi = round == 0 ? 20 : 10;
        double s = round == 0 ? step : step / 10;
        for (int k = klo; k <= khi; k++) {
            int64_t lag = center + (int64_t)llround(k * s);
            if (round == 1 && k == 0)
                continue;
            pass(f, gw, ev, ngpus, ncols, lag, NULL, NULL);
            double r = rss_at(f);
            double tol = 1e-12 * fmax(f->yy, 1e-300);
            if (r < best_rss - tol || (fabs(r - best_rss) <= tol && llabs(lag) < llabs(best)))
                best_rss = r, best = lag;
        }
    }
    return best;
}

/* Removes fitted column k (its diagonal is zero: never in the windows). */
static void drop_col(struct fit *f, uint32_t k)
{
    uint32_t p = f->p;
    for (uint32_t i = 0, ii = 0; i < p; i++) {
        if (i == k)
            continue;
        for (uint32_t j = 0, jj = 0; j < p; j++) {
            if (j == k)
                continue;
            f->G[ii * (p - 1) + jj++] = f->G[i * p + j];
        }
        f->h[ii++] = f->h[i];
    }
    free(f->fc[k].m);
    memmove(&f->fc[k], &f->fc[k + 1], (p - 1 - k) * sizeof(*f->fc));
    f->p = p - 1;
}

/* Adds column k into column l, then drops k. */
static void merge_cols(struct fit *f, uint32_t k, uint32_t l)
{
    uint32_t p = f->p;
    for (uint32_t j = 0; j < p; j++)
        f->G[l * p + j] += f->G[k * p + j];
    for (uint32_t i = 0; i < p; i++)
        f->G[i * p + l] += f->G[i * p + k];
    f->h[l] += f->h[k];
    for (uint32_t i = 0; i < f->fc[k].n; i++)
        fcol_add(&f->fc[l], f->fc[k].m[i]);
    f->fc[k].n = 0;
    drop_col(f, k);
}

/* Merges until every VIF is at most EN_VIF_MAX. */
static void make_identifiable(struct fit *f)
{
    for (uint32_t k = 0; k < f->p;)
        if (!(f->G[k * f->p + k] > 0))
            drop_col(f, k);
        else
            k++;
    while (f->p > 1) {
        uint32_t p = f->p;
        double *C = xmalloc((size_t)p * p * sizeof(*C)), *Ci = xmalloc((size_t)p * p * sizeof(*Ci));
        for (uint32_t i = 0; i < p; i++)
            for (uint32_t j = 0; j < p; j++)
                C[i * p + j] = f->G[i * p + j] / sqrt(f->G[i * p + i] * f->G[j * p + j]);
        sym_pinv(C, p, 1e-14, true, Ci);
        uint32_t worst = 0;
        for (uint32_t i = 1; i < p; i++)
            if (Ci[i * p + i] > Ci[worst * p + worst])
                worst = i;
        double vif = Ci[worst * p + worst];
        uint32_t partner = worst == 0 ? 1 : 0;
        double best = -1;
        for (uint32_t j = 0; j < p; j++) {
            if (j == worst)
                continue;
            double pc = fabs(Ci[worst * p + j]) / sqrt(Ci[worst * p + worst] * Ci[j * p + j]);
            if (pc > best)
                best = pc, partner = j;
        }
        free(C);
        free(Ci);
        if (!(vif > EN_VIF_MAX))
            break;
        merge_cols(f, worst, partner);
    }
}

/* ---- results ---- */

/* The class -> final column map from the member lists; classes pooled in
 * "other" follow its column. */
static void remap(struct fit *f, uint32_t ncols, const int32_t *in_other)
{
    f->map_idle = f->map_other = -1;
    for (uint32_t c = 0; c < ncols; c++)
        f->map[c] = -1;
    for (uint32_t k = 0; k < f->p; k++)
        for (uint32_t i = 0; i < f->fc[k].n; i++) {
            uint32_t m = f->fc[k].m[i];
            if (m == MEMBER_IDLE)
                f->map_idle = (int32_t)k;
            else if (m == MEMBER_OTHER)
                f->map_other = (int32_t)k;
            else
                f->map[m] = (int32_t)k;
        }
    for (uint32_t c = 0; c < ncols; c++)
        if (in_other[c])
            f->map[c] = f->map_other;
}

static void fill_results(const struct fit *f, const double *beta, const double *se,
                         struct en_result *res, const int32_t *in_other)
{
    struct en_fit *o = &res->fit;
    o->idle_W = o->idle_se_W = o->other_W = o->other_se_W = NAN;
    o->group = xcalloc(f->p + 1, sizeof(*o->group));
    int32_t *gidx = xmalloc((f->p + 1) * sizeof(*gidx));
    for (uint32_t k = 0; k < f->p; k++) {
        gidx[k] = -1;
        if (f->fc[k].n > 1) {
            struct en_group *g = &o->group[o->ngroups];
            g->cols = xmalloc((f->fc[k].n + 1) * sizeof(*g->cols));
            for (uint32_t i = 0; i < f->fc[k].n; i++)
                g->cols[g->n++] = f->fc[k].m[i];
            g->W = beta[k], g->se_W = se[k];
            gidx[k] = (int32_t)o->ngroups++;
        } else if (f->fc[k].m[0] == MEMBER_IDLE) {
            o->idle_W = beta[k], o->idle_se_W = se[k];
        } else if (f->fc[k].m[0] == MEMBER_OTHER) {
            o->other_W = beta[k], o->other_se_W = se[k];
        }
    }
    o->have_other = f->map_other >= 0;
    for (uint32_t c = 0; c < res->ncols; c++) {
        struct en_col *x = &res->col[c];
        int32_t k = f->map[c];
        x->fit_W = x->fit_se_W = NAN;
        x->fit_status = EN_FIT_NONE;
        x->fit_group = -1;
        if (k < 0 || x->time_ns <= 0)
            continue;
        x->fit_W = beta[k], x->fit_se_W = se[k];
        if (gidx[k] >= 0) {
            x->fit_status = EN_FIT_GROUPED;
            x->fit_group = gidx[k];
        } else if (in_other[c]) {
            x->fit_status = EN_FIT_OTHER;
        } else {
            bool poor = !(x->fit_W > 0) || !(se[k] <= 0.2 * fabs(x->fit_W));
            x->fit_status = poor ? EN_FIT_UNCERTAIN : EN_FIT_OK;
        }
        o->nother += in_other[c] != 0;
    }
    free(gidx);
}

static void copy_to_gpus(struct en_result *res)
{
    for (size_t g = 0; g < res->ngpus; g++)
        for (uint32_t c = 0; c < res->ncols; c++) {
            struct en_col *x = &res->gcol[g * res->ncols + c];
            x->fit_W = res->col[c].fit_W, x->fit_se_W = res->col[c].fit_se_W;
            x->fit_status = x->time_ns > 0 ? res->col[c].fit_status : EN_FIT_NONE;
            x->fit_group = res->col[c].fit_group;
        }
}

/* Σ W × time over the classes and idle: the fit's whole-run energy (NaN
 * when a class or idle time has no fitted power). */
static double fit_total(const struct fit *f, const double *beta, const struct en_result *res)
{
    double e = 0, idle_ns = 0;
    for (size_t g = 0; g < res->ngpus; g++)
        idle_ns += res->gpu[g].window_ns - res->gpu[g].busy_ns;
    for (uint32_t c = 0; c < res->ncols; c++) {
        if (res->col[c].time_ns <= 0)
            continue;
        if (f->map[c] < 0)
            return NAN;
        e += beta[f->map[c]] * res->col[c].time_ns * 1e-9;
    }
    if (idle_ns > 0) {
        if (f->map_idle < 0)
            return NAN;
        e += beta[f->map_idle] * idle_ns * 1e-9;
    }
    return e;
}

/* Time per fitted column over one segment (the cross-check span). */
struct span_ctx {
    const struct fit *f;
    double *t;                      /* [p] */
    bool unmapped;
};

static void span_piece(void *vctx, size_t seg, int64_t u, int64_t v, const struct en_active *a)
{
    struct span_ctx *c = vctx;
    double dt = (double)(v - u);
    if (a->n == 0) {
        if (c->f->map_idle < 0)
            c->unmapped = true;
        else
            c->t[c->f->map_idle] += dt;
        return;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        int32_t k = c->f->map[a->col[i]];
        if (k < 0)
            c->unmapped = true;
        else
            c->t[k] += dt * a->cnt[a->col[i]];
    }
}

/* Each GPU's fitted energy over its cross-check span. */
static void fit_spans(const struct fit *f, const double *beta, const struct en_events *ev,
                      struct en_result *res)
{
    for (size_t g = 0; g < res->ngpus; g++) {
        struct en_whole *w = &res->gpu[g];
        if (!(w->xspan_ns > 0))
            continue;
        struct span_ctx c = { f, xcalloc(f->p + 1, sizeof(double)), false };
        struct en_sweep_cb cb = { span_piece, NULL, &c };
        en_sweep(&ev[g], res->ncols, &w->xs_ns, &w->xe_ns, 1, 0, &cb);
        double e = 0;
        for (uint32_t k = 0; k < f->p; k++)
            e += beta[k] * c.t[k] * 1e-9;
        w->fit_J = c.unmapped ? NAN : e;
        free(c.t);
    }
}

static void fit_free(struct fit *f)
{
    for (uint32_t k = 0; k < f->p; k++)
        free(f->fc[k].m);
    free(f->fc);
    free(f->map);
    free(f->G);
    free(f->h);
}

static void not_done(struct en_result *res, const char *why)
{
    res->fit.done = false;
    free(res->fit.why_not);
    res->fit.why_not = xstrdup(why);
}

/* Windows of each GPU inside its accounting window. */
static size_t select_windows(const struct en_gpu *gpus, size_t ngpus, struct gwin *gw,
                             double *med_ms)
{
    size_t total = 0;
    double *len = NULL;
    for (size_t g = 0; g < ngpus; g++) {
        const struct en_windows *w = &gpus[g].fit;
        gw[g].a = xmalloc((w->n + 1) * sizeof(int64_t));
        gw[g].b = xmalloc((w->n + 1) * sizeof(int64_t));
        gw[g].p = xmalloc((w->n + 1) * sizeof(double));
        len = xrealloc(len, (total + w->n + 1) * sizeof(*len));
        for (size_t i = 0; i < w->n; i++) {
            if (w->a_ns[i] < gpus[g].win0_ns || w->b_ns[i] > gpus[g].win1_ns ||
                w->b_ns[i] <= w->a_ns[i] || !isfinite(w->p_W[i]))
                continue;
            if (gw[g].n && w->a_ns[i] < gw[g].b[gw[g].n - 1])
                continue;           /* overlapping: not a window sequence */
            gw[g].a[gw[g].n] = w->a_ns[i], gw[g].b[gw[g].n] = w->b_ns[i];
            gw[g].p[gw[g].n++] = w->p_W[i];
            len[total++] = (double)(w->b_ns[i] - w->a_ns[i]) / 1e6;
        }
    }
    *med_ms = en_median(len, total);
    free(len);
    return total;
}

void en_fit_run(const struct en_gpu *gpus, const struct en_events *ev, size_t ngpus,
                const struct en_opts *opt, struct en_result *res)
{
    struct en_fit *o = &res->fit;
    struct gwin *gw = xcalloc(ngpus + 1, sizeof(*gw));
    o->src = ngpus ? gpus[0].fit_src : EN_SRC_NONE;
    o->nwin = select_windows(gpus, ngpus, gw, &o->win_ms);
    struct fit f = { 0 };
    plan_columns(res, opt, o->nwin, &f);
    int32_t *in_other = xcalloc(res->ncols + 1, sizeof(*in_other));
    for (uint32_t c = 0; c < res->ncols; c++)
        in_other[c] = f.map_other >= 0 && f.map[c] == f.map_other;
    f.G = xcalloc((size_t)f.p * f.p + 1, sizeof(double));
    f.h = xcalloc(f.p + 1, sizeof(double));
    if (o->nwin == 0) {
        not_done(res, "no sensor windows inside the kernel window");
        goto out;
    }
    o->lag_estimated = isnan(opt->lag_ms);
    int64_t lag = o->lag_estimated ? choose_lag(&f, gw, ev, ngpus, res->ncols, o->win_ms)
                                   : (int64_t)llround(opt->lag_ms * 1e6);
    o->lag_ms = (double)lag / 1e6;
    pass(&f, gw, ev, ngpus, res->ncols, lag, NULL, NULL);
    make_identifiable(&f);
    if (f.n <= (size_t)f.p + 1) {
        not_done(res, "too few sensor windows for the classes to fit");
        goto out;
    }
    uint32_t p = f.p;
    double *inv = xmalloc((size_t)p * p * sizeof(*inv) + 1), *beta = xcalloc(p + 1, sizeof(*beta)),
           *se = xcalloc(p + 1, sizeof(*se));
    memcpy(inv, f.G, (size_t)p * p * sizeof(*inv));
    if (en_spd_inverse(inv, p) != 0) {
        not_done(res, "the design is singular after merging collinear classes");
        free(inv), free(beta), free(se);
        goto out;
    }
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = 0; j < p; j++)
            beta[i] += inv[i * p + j] * f.h[j];
    remap(&f, res->ncols, in_other);
    struct acc_ctx rc;
    pass(&f, gw, ev, ngpus, res->ncols, lag, beta, &rc);
    double rho = rc.lag_den > 0 && rc.rss > 0 ? rc.lag_num / rc.rss : 0;
    rho = rho > 0.95 ? 0.95 : rho;
    o->rho1 = rho;
    o->se_inflation = rho > 0 ? sqrt((1 + rho) / (1 - rho)) : 1;
    double sigma2 = rc.rss / (double)(f.n - p);
    for (uint32_t k = 0; k < p; k++)
        se[k] = sqrt(fmax(sigma2 * inv[k * p + k], 0)) * o->se_inflation;
    double ybar = f.swy / f.sw, sst = f.yy - f.sw * ybar * ybar;
    o->rms_W = sqrt(rc.rss / f.sw);
    o->r2 = sst > 0 ? 1 - rc.rss / sst : NAN;
    o->ncols = p;
    o->nwin = f.n;
    fill_results(&f, beta, se, res, in_other);
    copy_to_gpus(res);
    o->total_J = fit_total(&f, beta, res);
    fit_spans(&f, beta, ev, res);
    o->done = true;
    free(inv), free(beta), free(se);
out:
    for (size_t g = 0; g < ngpus; g++)
        free(gw[g].a), free(gw[g].b), free(gw[g].p);
    free(gw);
    free(in_other);
    fit_free(&f);
}
