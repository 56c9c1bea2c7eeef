/* rppower.c - the power run's kernel trace: per-kernel unprofiled time and
 * launches, GPU busy % from interval unions per (file, agent), the kernel
 * window (contract in rocprof.h; GPU busy definition: docs/design.md §7; the
 * copies' share of it: rpbusy.c).
 *
 * Kernels overlap normally in an unprofiled run, so busy time is the length
 * of the union of [start, end) intervals of one GPU (file, agent), found by
 * sorting the intervals by start. Memory: 16 bytes per dispatch.
 */
#include "read/rocprof.h"

#include "read/csv.h"
#include "read/rocpd.h"
#include "read/rplayout.h"
#include "util/strv.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ivals {               /* intervals of one (file, agent) */
    uint64_t agent;
    int64_t *se;             /* start, end pairs */
    size_t n, cap;
};

static void union_busy(struct ivals *iv, struct rp_gpu_busy *g, struct rp_power *pw)
{
    size_t n = iv->n;
    memset(g, 0, sizeof(*g));
    g->dispatches = n;
    n = rp_iv_union(iv->se, n, &g->busy_ns);
    g->iv_first = pw->nbusy_iv;
    for (size_t i = 0; i < n; i++)
        rp_iv_push(&pw->busy_iv, &pw->busy_cap, &pw->nbusy_iv, iv->se[2 * i], iv->se[2 * i + 1]);
    g->iv_n = n;
    g->agent = iv->agent;
    g->copy_file = UINT32_MAX;
    g->first_start = g->span_first = iv->se[0];
    g->last_end = g->span_last = iv->se[2 * n - 1];   /* merged: the last ends last */
    g->kernel_busy_ns = g->busy_ns;
}

static void kgrow(struct rp_power *pw, uint32_t n)
{
    if (n <= pw->nkernels)
        return;
    pw->launches = xrealloc(pw->launches, n * sizeof(*pw->launches));
    pw->dur_ns = xrealloc(pw->dur_ns, n * sizeof(*pw->dur_ns));
    pw->vgpr = xrealloc(pw->vgpr, n * sizeof(*pw->vgpr));
    pw->lds = xrealloc(pw->lds, n * sizeof(*pw->lds));
    memset(pw->launches + pw->nkernels, 0, (n - pw->nkernels) * sizeof(*pw->launches));
    memset(pw->dur_ns + pw->nkernels, 0, (n - pw->nkernels) * sizeof(*pw->dur_ns));
    memset(pw->vgpr + pw->nkernels, 0, (n - pw->nkernels) * sizeof(*pw->vgpr));
    memset(pw->lds + pw->nkernels, 0, (n - pw->nkernels) * sizeof(*pw->lds));
    pw->nkernels = n;
}

static struct ivals *agent_iv(struct ivals **v, size_t *n, uint64_t agent)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].agent == agent)
            return &(*v)[i];
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    struct ivals *iv = &(*v)[(*n)++];
    memset(iv, 0, sizeof(*iv));
    iv->agent = agent;
    return iv;
}

struct prow {
    uint64_t agent, s, e;
    uint64_t vgpr, lds;      /* 0 when the column is absent or not a number */
};

/* An optional numeric column: 0 when absent or not a plain number (the
 * attributes only fill gaps; they never fail the file). */
static uint64_t opt_u64(const struct rp_header *h, const struct csv_span *f, enum rp_col c)
{
    uint64_t v = 0;
    if (h->idx[c] < 0 || csv_u64(&f[h->idx[c]], &v) < 0)
        return 0;
    return v;
}

/* Parses one data row; -1 on a malformed row (message printed unless the
 * caller treats it as a truncated last line). */
static int parse_row(struct csv_src *src, const struct rp_header *h, struct csv_span *f,
                     const char *line, size_t len, struct prow *r, char **why)
{
    if (csv_split_freetext(line, len, h->ncols, h->idx[RC_NAME], f) != h->ncols) {
        *why = xasprintf("expected %d columns (%s layout), found %d", h->ncols, h->layout,
                         csv_split(line, len, NULL, 0));
        return -1;
    }
    r->agent = 0;
    if ((h->idx[RC_AGENT] >= 0 && csv_agent_id(&f[h->idx[RC_AGENT]], &r->agent) < 0) ||
        csv_u64(&f[h->idx[RC_START]], &r->s) < 0 || csv_u64(&f[h->idx[RC_END]], &r->e) < 0 ||
        r->s > INT64_MAX || r->e > INT64_MAX) {
        *why = xasprintf("Agent_Id, Start_Timestamp, End_Timestamp: expected integers");
        return -1;
    }
    if (r->e < r->s) {
        *why = xasprintf("End_Timestamp is before Start_Timestamp");
        return -1;
    }
    r->vgpr = opt_u64(h, f, RC_VGPR);
    r->lds = opt_u64(h, f, RC_LDS);
    (void)src;
    return 0;
}

struct pfile {
    struct csv_src *src;
    struct rp_header h;
    struct csv_span *f;
};

static int open_trace(struct pfile *pf, const char *path)
{
    memset(pf, 0, sizeof(*pf));
    pf->src = csv_open(path);
    if (!pf->src)
        return -1;
    const char *line;
    size_t len;
    int rc = csv_next_line(pf->src, &line, &len);
    if (rc <= 0)
        return rc < 0 ? -1 : br_error_at(path, 0, 0, "empty file (no header)");
    char *err;
    if (rp_header_parse(&pf->h, line, len, &err) < 0) {
        br_error_at(path, 1, 0, "%s", err);
        free(err);
        return -1;
    }
    if (pf->h.kind != RP_KIND_TRACE)
        return br_error_at(path, 1, 0, "not a kernel_trace header");
    pf->f = xcalloc((size_t)pf->h.ncols, sizeof(*pf->f));
    return 0;
}

static void close_trace(struct pfile *pf)
{
    rp_header_release(&pf->h);
    free(pf->f);
    csv_close(pf->src);
}

/* Dispatches of one trace file, gathered per agent before the unions. */
struct pacc {
    struct rp_power *pw;
    struct intern *names;
    struct ivals *iv;
    size_t niv;
    uint32_t prev_k;
    bool keep;                  /* keep every launch (rp_power_load_launches) */
    size_t first_launch;        /* the file's first kept launch */
    uint32_t first_gpu;         /* pw->ngpus when the file started */
};

/* Keeps one launch; gpu holds the agent's slot in the file until finish_file. */
static void keep_launch(struct rp_power *pw, const struct prow *r, uint32_t k, size_t slot)
{
    xgrow((void **)&pw->launch, &pw->launch_cap, pw->nlaunch + 1, sizeof(*pw->launch));
    pw->launch[pw->nlaunch++] = (struct rp_launch){ (int64_t)r->s, (int64_t)r->e, k, (uint32_t)slot };
}

static struct pacc pacc_start(struct rp_power *pw, struct intern *names, bool keep)
{
    return (struct pacc){ .pw = pw, .names = names, .prev_k = UINT32_MAX, .keep = keep,
                          .first_launch = pw->nlaunch, .first_gpu = pw->ngpus };
}

static void add_dispatch(struct pacc *c, const char *name, size_t len, const struct prow *r)
{
    struct rp_power *pw = c->pw;
    struct intern *names = c->names;
    if (c->prev_k == UINT32_MAX || names->len[c->prev_k] != len ||
        memcmp(names->str[c->prev_k], name, len) != 0)
        c->prev_k = intern_add(names, name, len);
    uint32_t k = c->prev_k;
    kgrow(pw, names->n);
    pw->launches[k]++;
    pw->dur_ns[k] += (double)(r->e - r->s);
    if (r->vgpr > pw->vgpr[k])
        pw->vgpr[k] = r->vgpr > UINT32_MAX ? UINT32_MAX : (uint32_t)r->vgpr;
    if (r->lds > pw->lds[k])
        pw->lds[k] = r->lds;
    pw->dur_ns_total += (double)(r->e - r->s);
    struct ivals *a = agent_iv(&c->iv, &c->niv, r->agent);
    if (c->keep)
        keep_launch(pw, r, k, (size_t)(a - c->iv));
    xgrow((void **)&a->se, &a->cap, 2 * a->n + 2, sizeof(int64_t));
    a->se[2 * a->n] = (int64_t)r->s;
    a->se[2 * a->n + 1] = (int64_t)r->e;
    a->n++;
}

/* Busy unions of the file's agents (when it was read without error). */
static void finish_file(struct pacc *c, uint32_t fi, int rc)
{
    struct rp_power *pw = c->pw;
    for (size_t i = 0; i < c->niv; i++) {
        if (rc == 0 && c->iv[i].n) {
            pw->gpu = xrealloc(pw->gpu, (pw->ngpus + 1) * sizeof(*pw->gpu));
            struct rp_gpu_busy *g = &pw->gpu[pw->ngpus++];
            union_busy(&c->iv[i], g, pw);
            g->file = fi;
            if (pw->dispatches == 0 || g->first_start < pw->first_start)
                pw->first_start = g->first_start;
            if (pw->dispatches == 0 || g->last_end > pw->last_end)
                pw->last_end = g->last_end;
            pw->dispatches += g->dispatches;
        }
        free(c->iv[i].se);
    }
    /* Every agent slot had a row, so slot i became GPU first_gpu + i. */
    for (size_t i = c->first_launch; i < pw->nlaunch; i++)
        pw->launch[i].gpu += c->first_gpu;
    free(c->iv);
}

static int power_file(struct rp_power *pw, struct intern *names, const char *path, uint32_t fi,
                      bool keep)
{
    struct pfile pf;
    int rc = open_trace(&pf, path);
    struct pacc c = pacc_start(pw, names, keep);
    const char *line;
    size_t len;
    while (rc == 0 && (rc = csv_next_line(pf.src, &line, &len)) > 0) {
        rc = 0;
        if (len == 0)
            continue;
        struct prow r;
        char *why = NULL;
        if (parse_row(pf.src, &pf.h, pf.f, line, len, &r, &why) < 0) {
            if (csv_last_unterminated(pf.src)) {
                br_warn("%s:%ld: truncated last line ignored (no newline; killed job?)", path,
                        csv_line_no(pf.src));
                pw->truncated++;
            } else {
                rc = br_error_at(path, csv_line_no(pf.src), 0, "%s", why);
            }
            free(why);
            continue;
        }
        const struct csv_span *nm = &pf.f[pf.h.idx[RC_NAME]];
        add_dispatch(&c, nm->p, nm->n, &r);
    }
    finish_file(&c, fi, rc);
    close_trace(&pf);
    return rc;
}

/* A rocpd database: its kernels view is the kernel trace. */
static int db_dispatch(void *ctx, const struct rocpd_dispatch *d)
{
    struct prow r = { .agent = d->agent, .s = d->start, .e = d->end, .vgpr = d->attr.vgpr,
                      .lds = d->attr.lds };
    add_dispatch(ctx, d->name, d->name_len, &r);
    return 0;
}

static int power_db(struct rp_power *pw, struct intern *names, const char *path, uint32_t fi,
                    bool keep)
{
    struct rocpd_db *db;
    char *err = NULL;
    struct pacc c = pacc_start(pw, names, keep);
    int rc = rocpd_open(&db, path, &err);
    if (rc == 0) {
        rc = rocpd_each_dispatch(db, db_dispatch, &c, &err);
        rocpd_close(db);
    }
    finish_file(&c, fi, rc);
    if (rc != 0) {
        br_error("%s", err ? err : path);
        free(err);
        return -1;
    }
    return 0;
}

bool rp_is_rocpd_path(const char *path)
{
    size_t n = strlen(path), m = strlen(RP_ROCPD_SUFFIX);
    if (n >= m && strcmp(path + n - m, RP_ROCPD_SUFFIX) == 0)
        return true;
    char head[16];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof(head), f) : 0;
    if (f)
        fclose(f);
    return rocpd_is_sqlite(head, got);
}

static int power_load(struct rp_power *pw, struct intern *names, const char *path, bool keep)
{
    memset(pw, 0, sizeof(*pw));
    char **files = rp_find_traces(path), **copies = rp_find_copies(path);
    if (!files[0] && !copies[0]) {
        str_array_free(files);
        str_array_free(copies);
        return br_error("no *kernel_trace.csv, *memory_copy_trace.csv or *%s under '%s'",
                        RP_ROCPD_SUFFIX, path);
    }
    int rc = rp_copies_load_files(&pw->copies, copies);
    str_array_free(copies);
    for (char **f = files; *f && rc == 0; f++) {
        pw->files = xrealloc(pw->files, (pw->nfiles + 2) * sizeof(*pw->files));
        pw->files[pw->nfiles] = xstrdup(*f);
        pw->files[pw->nfiles + 1] = NULL;
        rc = rp_is_rocpd_path(*f) ? power_db(pw, names, *f, pw->nfiles++, keep)
                                  : power_file(pw, names, *f, pw->nfiles++, keep);
    }
    /* A header-only trace is a process without kernels (torchrun's parent);
     * only a run where no file has a row is an error. */
    if (rc == 0 && files[0] && pw->dispatches == 0 && pw->truncated == 0 && pw->copies.n == 0)
        rc = rp_is_rocpd_path(files[0]) ? br_error_at(files[0], 0, 0, "no dispatches: the kernels view is "
                                                           "empty (in every kernel trace)")
                             : br_error_at(files[0], 1, 0, "header only, no data rows (in every "
                                                           "kernel_trace file)");
    str_array_free(files);
    kgrow(pw, names->n);
    if (rc == 0)
        rp_power_add_copies(pw);
    return rc;
}

int rp_power_load(struct rp_power *pw, struct intern *names, const char *path)
{
    return power_load(pw, names, path, false);
}

int rp_power_load_launches(struct rp_power *pw, struct intern *names, const char *path)
{
    return power_load(pw, names, path, true);
}

int rp_kernel_window(const char *path, int64_t *first_start, int64_t *last_end)
{
    struct intern names;
    intern_init(&names);
    struct rp_power pw;
    int rc = rp_power_load(&pw, &names, path);
    if (rc == 0 && pw.dispatches == 0)
        rc = 1;
    if (rc == 0) {
        *first_start = pw.first_start;
        *last_end = pw.last_end;
    }
    rp_power_release(&pw);
    intern_release(&names);
    return rc;
}
