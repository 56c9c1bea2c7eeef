/* rpbusy.c - interval unions, and the power run's copies charged to GPU busy
 * time (contract in rocprof.h; which GPUs a copy occupies: rp_copy_gpus).
 *
 * A GPU is one process's file set and one agent, as for kernels: a copy in
 * PREFIX_memory_copy_trace.csv (or a database's memory_copies) belongs to the
 * GPU of PREFIX_kernel_trace.csv (the same database) with the copy's agent.
 * Its busy time is |kernels ∪ copies|, its span from the first kernel or
 * copy to the last; kernel_busy_ns keeps the kernels alone.
 */
#include "read/rocprof.h"

#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static int cmp_start(const void *a, const void *b)
{
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

size_t rp_iv_union(int64_t *se, size_t n, double *len)
{
    *len = 0;
    if (n == 0)
        return 0;
    qsort(se, n, 2 * sizeof(int64_t), cmp_start);
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        if (se[2 * i] > se[2 * m + 1]) {   /* a gap: start the next merged interval */
            *len += (double)(se[2 * m + 1] - se[2 * m]);
            m++;
            se[2 * m] = se[2 * i];
            se[2 * m + 1] = se[2 * i + 1];
        } else if (se[2 * i + 1] > se[2 * m + 1]) {
            se[2 * m + 1] = se[2 * i + 1];
        }
    }
    *len += (double)(se[2 * m + 1] - se[2 * m]);
    return m + 1;
}

struct civ {                 /* copy intervals of one GPU */
    int64_t *se;
    size_t n, cap;
};

/* The GPU of (trace file tf, copy file cf, agent), or UINT32_MAX. */
static uint32_t find_gpu(const struct rp_power *pw, uint32_t tf, uint32_t cf, int32_t agent)
{
    for (uint32_t g = 0; g < pw->ngpus; g++) {
        const struct rp_gpu_busy *b = &pw->gpu[g];
        if (b->agent == (uint64_t)agent &&
            (tf != UINT32_MAX ? b->file == tf : b->file == UINT32_MAX && b->copy_file == cf))
            return g;
    }
    return UINT32_MAX;
}

/* The same, added when missing. */
static uint32_t gpu_of(struct rp_power *pw, uint32_t tf, uint32_t cf, int32_t agent)
{
    uint32_t g = find_gpu(pw, tf, cf, agent);
    if (g != UINT32_MAX)
        return g;
    pw->gpu = xrealloc(pw->gpu, (pw->ngpus + 1) * sizeof(*pw->gpu));
    struct rp_gpu_busy *b = &pw->gpu[pw->ngpus];
    memset(b, 0, sizeof(*b));
    b->file = tf;
    b->copy_file = cf;
    b->agent = (uint64_t)agent;
    b->iv_first = pw->nbusy_iv;
    return pw->ngpus++;
}

/* The kernel trace of the same file set as copy file cf, or UINT32_MAX. */
static uint32_t trace_of(const struct rp_power *pw, uint32_t cf)
{
    for (uint32_t f = 0; f < pw->nfiles; f++)
        if (rp_same_file_set(pw->files[f], pw->copies.files[cf]))
            return f;
    return UINT32_MAX;
}

uint32_t rp_copy_gpu(const struct rp_power *pw, const struct rp_copy *c, int32_t agent)
{
    return find_gpu(pw, trace_of(pw, c->file), c->file, agent);
}

void rp_iv_push(int64_t **v, size_t *cap, size_t *n, int64_t s, int64_t e)
{
    xgrow((void **)v, cap, 2 * *n + 2, sizeof(int64_t));
    (*v)[2 * *n] = s;
    (*v)[2 * *n + 1] = e;
    (*n)++;
}

/* GPU b's copy union, then kernels ∪ copies and the spans. */
static void merge_gpu(struct rp_power *pw, struct rp_gpu_busy *b, struct civ *c)
{
    size_t n = rp_iv_union(c->se, c->n, &b->copy_busy_ns);
    b->cv_first = pw->ncopy_iv;
    b->cv_n = n;
    for (size_t i = 0; i < n; i++)
        rp_iv_push(&pw->copy_iv, &pw->copy_cap, &pw->ncopy_iv, c->se[2 * i], c->se[2 * i + 1]);
    size_t nk = b->iv_n;
    int64_t *all = xmalloc((nk + n + 1) * 2 * sizeof(int64_t));
    if (nk)   /* a GPU with copies only has no kernel interval (busy_iv may be NULL) */
        memcpy(all, pw->busy_iv + 2 * b->iv_first, nk * 2 * sizeof(int64_t));
    memcpy(all + 2 * nk, c->se, n * 2 * sizeof(int64_t));
    size_t m = rp_iv_union(all, nk + n, &b->busy_ns);
    b->span_first = all[0];
    b->span_last = all[2 * m - 1];
    if (b->dispatches == 0)
        b->first_start = b->span_first, b->last_end = b->span_last;
    free(all);
}

void rp_power_add_copies(struct rp_power *pw)
{
    const struct rp_copies *cp = &pw->copies;
    if (cp->n == 0)
        return;
    uint32_t *tf = xcalloc(cp->nfiles + 1, sizeof(*tf));
    for (uint32_t f = 0; f < cp->nfiles; f++)
        tf[f] = trace_of(pw, f);
    struct civ *iv = NULL;
    size_t niv = 0;
    for (size_t i = 0; i < cp->n; i++) {
        int32_t gpus[2];
        int ng = rp_copy_gpus(&cp->v[i].c, gpus);
        for (int k = 0; k < ng; k++) {
            uint32_t g = gpu_of(pw, tf[cp->v[i].file], cp->v[i].file, gpus[k]);
            if (g >= niv) {
                iv = xrealloc(iv, (g + 1) * sizeof(*iv));
                memset(iv + niv, 0, (g + 1 - niv) * sizeof(*iv));
                niv = g + 1;
            }
            struct civ *c = &iv[g];
            xgrow((void **)&c->se, &c->cap, 2 * c->n + 2, sizeof(int64_t));
            c->se[2 * c->n] = (int64_t)cp->v[i].c.start_ns;
            c->se[2 * c->n + 1] = (int64_t)cp->v[i].c.end_ns;
            c->n++;
            pw->gpu[g].copies++;
            if (pw->gpu[g].copy_file == UINT32_MAX)
                pw->gpu[g].copy_file = cp->v[i].file;
        }
    }
    for (size_t g = 0; g < niv; g++) {
        if (iv[g].n)
            merge_gpu(pw, &pw->gpu[g], &iv[g]);
        free(iv[g].se);
    }
    free(iv);
    free(tf);
}
