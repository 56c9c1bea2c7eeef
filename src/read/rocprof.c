/* rocprof.c - pmc-run reader: file sets of each pass folder aggregated per
 * kernel name while reading (contract and sources in rocprof.h).
 *
 * Owns: file discovery, per-file-set aggregation (one worker thread per file
 * set, each with its own name tables), the merge into the run model (main
 * thread, file-set order, so results and messages do not depend on thread
 * timing), agent_info. Workers never print: they keep their first error and
 * their warnings as text, printed by the main thread in order.
 */
#include "read/rocprof.h"

#include "read/csv.h"
#include "read/launchunits.h"
#include "read/rocpd.h"
#include "read/rpagg.h"
#include "read/rpconst.h"
#include "read/rplayout.h"
#include "read/sampfile.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define RP_MAX_DEPTH 4


static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends to *v (count *n) every file under dir whose name ends with suf. */
static void walk(const char *dir, const char *suf, int depth, char ***v, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = fs_path_join(dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (depth < RP_MAX_DEPTH && strcmp(e->d_name, "analysis") != 0)
                walk(p, suf, depth + 1, v, n, cap);
        } else if (fs_ends_with(e->d_name, suf)) {
            xgrow((void **)v, cap, *n + 2, sizeof(**v));
            (*v)[(*n)++] = p;
            (*v)[*n] = NULL;
            continue;
        }
        free(p);
    }
    closedir(d);
}

char **rp_find_files(const char *path, const char *suffix)
{
    char **v = xcalloc(1, sizeof(*v));
    size_t n = 0, cap = 1;
    if (!fs_is_dir(path)) {
        v = xrealloc(v, 2 * sizeof(*v));
        v[0] = xstrdup(path);
        v[1] = NULL;
        return v;
    }
    walk(path, suffix, 0, &v, &n, &cap);
    qsort(v, n, sizeof(*v), cmp_str);
    return v;
}

char **rp_find_traces(const char *path)
{
    char **csv = rp_find_files(path, "kernel_trace.csv");
    if (!fs_is_dir(path))
        return csv;
    char **db = rp_find_files(path, RP_ROCPD_SUFFIX);
    size_t n = 0, cap = 1;
    char **v = xcalloc(1, sizeof(*v));
    for (char **f = csv; *f; f++) {
        xgrow((void **)&v, &cap, n + 2, sizeof(*v));
        v[n++] = xstrdup(*f);
    }
    for (char **f = db; *f; f++) {
        char *twin = xasprintf("%.*s_kernel_trace.csv", (int)(strlen(*f) - strlen(RP_ROCPD_SUFFIX)), *f);
        if (!fs_exists(twin)) {
            xgrow((void **)&v, &cap, n + 2, sizeof(*v));
            v[n++] = xstrdup(*f);
        }
        free(twin);
    }
    v[n] = NULL;
    qsort(v, n, sizeof(*v), cmp_str);
    str_array_free(csv);
    str_array_free(db);
    return v;
}

char **rp_find_passes(const char *pmc_dir)
{
    DIR *d = opendir(pmc_dir);
    if (!d) {
        br_error("cannot open folder '%s'", pmc_dir);
        return NULL;
    }
    char **v = xcalloc(1, sizeof(*v));
    size_t n = 0, cap = 1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "analysis") == 0)
            continue;
        char *p = fs_path_join(pmc_dir, e->d_name);
        char **files = fs_is_dir(p) ? rp_find_files(p, "counter_collection.csv") : NULL;
        if (files && !files[0]) {
            str_array_free(files);
            files = rp_find_files(p, RP_ROCPD_SUFFIX);
        }
        if (files && files[0]) {
            xgrow((void **)&v, &cap, n + 2, sizeof(*v));
            v[n++] = xstrdup(e->d_name);
            v[n] = NULL;
        }
        str_array_free(files);
        free(p);
    }
    closedir(d);
    qsort(v, n, sizeof(*v), cmp_str);
    return v;
}

/* ---- file sets ----------------------------------------------------------- */

struct fileset {
    char *prefix;
    char *cc, *kt, *ai;      /* counter_collection, kernel_trace, agent_info paths */
    char *units;             /* launch_units.csv (read/launchunits.h), NULL: none */
    char *db;                /* PREFIX_results.db (rocpd), read when there is no cc */
    const struct xp_sampling *sampling;   /* the pass's, NULL: every launch profiled */
    struct rp_agg agg;
    int rc;
};

/* A process's database stands for its CSV files only when it wrote none
 * (both formats asked for: the CSV is read, never both). */
static bool use_db(const struct fileset *s)
{
    return s->db && !s->cc;
}

/* The file the set's counters come from. */
static const char *counter_file(const struct fileset *s)
{
    return use_db(s) ? s->db : s->cc;
}

/* The set of prefix; a new one unless only_existing (then NULL). */
static struct fileset *set_for(struct fileset **sets, size_t *n, size_t *cap, const char *prefix,
                               bool only_existing)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*sets)[i].prefix, prefix) == 0)
            return &(*sets)[i];
    if (only_existing)
        return NULL;
    xgrow((void **)sets, cap, *n + 1, sizeof(**sets));
    struct fileset *s = &(*sets)[(*n)++];
    memset(s, 0, sizeof(*s));
    s->prefix = xstrdup(prefix);
    return s;
}

static void add_kind(struct fileset **sets, size_t *n, size_t *cap, const char *dir,
                     const char *suffix, int which)
{
    char **files = rp_find_files(dir, suffix);
    for (char **f = files; *f; f++) {
        char *prefix = xstrndup(*f, strlen(*f) - strlen(suffix));
        /* a units file belongs to the counter and trace files of its process */
        struct fileset *s = set_for(sets, n, cap, prefix, which == 4);
        free(prefix);
        if (!s)
            continue;
        char **slot = which == 0 ? &s->cc : which == 1 ? &s->kt : which == 2 ? &s->ai
                    : which == 3 ? &s->db : &s->units;
        free(*slot);
        *slot = xstrdup(*f);
    }
    str_array_free(files);
}

static int cmp_set(const void *a, const void *b)
{
    return strcmp(((const struct fileset *)a)->prefix, ((const struct fileset *)b)->prefix);
}

/* ---- threads --------------------------------------------------------------- */

struct job {
    struct fileset *sets;
    size_t nsets;
    atomic_size_t next;
};

static void *worker(void *arg)
{
    struct job *j = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->nsets)
            return NULL;
        struct fileset *s = &j->sets[i];
        if (use_db(s))
            s->rc = rp_agg_read_db(&s->agg, s->db, s->sampling);
        else
            s->rc = rp_agg_read_set(&s->agg, s->cc, s->kt, s->units, s->sampling);
    }
}

static int nthreads_for(int want, size_t jobs)
{
    long n = want > 0 ? want : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if ((size_t)n > jobs)
        n = (long)jobs;
    return (int)n;
}

static void run_jobs(struct fileset *sets, size_t nsets, int nthreads)
{
    struct job j = { .sets = sets, .nsets = nsets };
    atomic_init(&j.next, 0);
    int nt = nthreads_for(nthreads, nsets);
    if (nt <= 1) {
        worker(&j);
        return;
    }
    pthread_t *tid = xcalloc((size_t)nt, sizeof(*tid));
    int started = 0;
    for (; started < nt - 1; started++)
        if (pthread_create(&tid[started], NULL, worker, &j) != 0)
            break;
    worker(&j);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
}

/* ---- merge ------------------------------------------------------------------- */

static void attr_merge(struct rp_kattr *d, const struct rp_kattr *s)
{
    if (!s->seen)
        return;
#define MAXF(f) if (s->f > d->f) d->f = s->f
    MAXF(vgpr); MAXF(agpr); MAXF(sgpr); MAXF(lds); MAXF(scratch);
    MAXF(wg_size); MAXF(grid_size);
#undef MAXF
    if (!d->wg_x && s->wg_x) {
        d->wg_x = s->wg_x;
        d->wg_y = s->wg_y;
        d->wg_z = s->wg_z;
    }
    d->has_agpr |= s->has_agpr;
    d->seen = true;
}

static void run_grow(struct rp_run *run)
{
    if (run->nattr >= run->names.n)
        return;
    run->attr = xrealloc(run->attr, run->names.n * sizeof(*run->attr));
    memset(run->attr + run->nattr, 0, (run->names.n - run->nattr) * sizeof(*run->attr));
    run->nattr = run->names.n;
}

/* Grows the pass arrays to n kernel rows (zeroed). */
static void pass_rows(struct rp_pass *p, uint32_t n)
{
    if (n <= p->nkernels)
        return;
    size_t nc = p->ncounters, old = p->nkernels;
    p->launches = xrealloc(p->launches, n * sizeof(*p->launches));
    p->profiled = xrealloc(p->profiled, n * sizeof(*p->profiled));
    p->uncounted = xrealloc(p->uncounted, n * sizeof(*p->uncounted));
    p->dur_ns = xrealloc(p->dur_ns, n * sizeof(*p->dur_ns));
    p->csum = xrealloc(p->csum, (n * nc + 1) * sizeof(*p->csum));
    p->cvar = xrealloc(p->cvar, (n * nc + 1) * sizeof(*p->cvar));
    p->cdf = xrealloc(p->cdf, (n * nc + 1) * sizeof(*p->cdf));
    p->crows = xrealloc(p->crows, (n * nc + 1) * sizeof(*p->crows));
    memset(p->launches + old, 0, (n - old) * sizeof(*p->launches));
    memset(p->profiled + old, 0, (n - old) * sizeof(*p->profiled));
    memset(p->uncounted + old, 0, (n - old) * sizeof(*p->uncounted));
    memset(p->dur_ns + old, 0, (n - old) * sizeof(*p->dur_ns));
    memset(p->csum + old * nc, 0, (n - old) * nc * sizeof(*p->csum));
    memset(p->cvar + old * nc, 0, (n - old) * nc * sizeof(*p->cvar));
    memset(p->cdf + old * nc, 0, (n - old) * nc * sizeof(*p->cdf));
    memset(p->crows + old * nc, 0, (n - old) * nc * sizeof(*p->crows));
    p->nkernels = n;
}

static void merge_set(struct rp_run *run, struct rp_pass *p, const struct intern *pc,
                      const struct rp_agg *a)
{
    uint32_t *cmap = xcalloc(a->cn.n + 1, sizeof(*cmap));
    for (uint32_t c = 0; c < a->cn.n; c++)
        cmap[c] = intern_find(pc, a->cn.str[c], a->cn.len[c]);
    for (uint32_t k = 0; k < a->kn.n; k++) {
        uint32_t g = intern_add(&run->names, a->kn.str[k], a->kn.len[k]);
        run_grow(run);
        attr_merge(&run->attr[g], &a->attr[k]);
        pass_rows(p, g + 1);
        p->launches[g] += a->launches[k];
        p->profiled[g] += a->profiled ? a->profiled[k] : a->launches[k];
        p->uncounted[g] += a->uncounted[k];
        p->dur_ns[g] += a->dur[k];
        for (uint32_t c = 0; c < a->cn.n; c++) {
            size_t d = (size_t)g * p->ncounters + cmap[c], s = (size_t)k * a->ccap + c;
            p->csum[d] += a->csum[s];
            p->crows[d] += a->crows[s];
            if (a->cvar) {   /* processes are independent samples: variances add */
                p->cvar[d] += a->cvar[s];
                p->cdf[d] += a->cdf[s];
            }
        }
    }
    p->untraced += a->untraced;
    free(cmap);
    p->trace_launches += a->trace_launches;
    p->uncounted_launches += a->uncounted_launches;
    p->trace_ns += a->trace_ns;
    p->uncounted_ns += a->uncounted_ns;
    p->untimed_launches += a->untimed_launches;
    p->truncated += a->truncated;
    p->ngpus += a->nagent;
    p->bad_values += a->bad_values;
    p->dup_rows += a->dup_rows;
    if (!p->bad_value_at && a->bad_value_at)
        p->bad_value_at = xstrdup(a->bad_value_at);
    if (!p->dup_row_at && a->dup_row_at)
        p->dup_row_at = xstrdup(a->dup_row_at);
}

static void add_file(struct rp_pass *p, const char *f)
{
    if (!f)
        return;
    p->files = xrealloc(p->files, (p->nfiles + 2) * sizeof(*p->files));
    p->files[p->nfiles++] = xstrdup(f);
    p->files[p->nfiles] = NULL;
}

/* Counter names of the pass, in first-seen order over its file sets. */
static void pass_counters(struct rp_pass *p, struct intern *pc, struct fileset *sets, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (uint32_t c = 0; c < sets[i].agg.cn.n; c++)
            intern_add(pc, sets[i].agg.cn.str[c], sets[i].agg.cn.len[c]);
    p->ncounters = pc->n;
    p->counters = xcalloc(pc->n + 1, sizeof(*p->counters));
    for (uint32_t c = 0; c < pc->n; c++)
        p->counters[c] = xstrdup(pc->str[c]);
}

static int agent_load(struct rp_agent *ag, const char *path);

/* The database's first GPU agent (rocpd_info_agent), as agent_info's. */
static int db_agent_load(struct rp_agent *ag, const char *path)
{
    struct rocpd_db *db;
    char *err;
    int rc = rocpd_open(&db, path, &err);
    if (rc == 0) {
        rc = rocpd_agent(db, ag, &err);
        rocpd_close(db);
    }
    if (rc < 0) {
        br_error("%s", err);
        free(err);
    }
    return rc;
}

/* Header-only counter files are processes without kernels (rpagg.c); a pass
 * where every counter file is one has no data at all: p->empty_at names its
 * first file (load_passes decides whether that is an error). */
static void pass_rows_check(struct rp_pass *p, const struct fileset *sets, size_t n)
{
    const char *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!counter_file(&sets[i]) || sets[i].rc < 0)
            continue;
        if (!sets[i].agg.cc_empty)
            return;
        first = first ? first : counter_file(&sets[i]);
    }
    if (first)
        p->empty_at = xstrdup(first);
}

static int empty_pass_error(const struct rp_pass *p)
{
    const char *f = p->empty_at;
    bool db = strstr(f, RP_ROCPD_SUFFIX) != NULL;
    return br_error_at(f, db ? 0 : 1, 0, "%s (in every counter file of pass %s)",
                       db ? "no counter rows" : "header only, no data rows", p->name);
}

/* Whether a pass folder of the run holds a copy or set (the passes' own
 * memory copy traces, read/rpcopy.h). -1 after printing a read error. */
static int passes_have_copies(const struct rp_run *run)
{
    for (uint32_t i = 0; i < run->npasses; i++) {
        const char *dir = run->passes[i].dir;
        if (!dir || !fs_is_dir(dir))
            continue;
        struct rp_copies cp;
        memset(&cp, 0, sizeof(cp));
        int rc = rp_copies_load(&cp, dir);
        size_t n = cp.n;
        rp_copies_release(&cp);
        if (rc < 0)
            return -1;
        if (n)
            return 1;
    }
    return 0;
}

/* Passes without a counter row: errors, except in a run whose GPU work is
 * copies only (no pass has a kernel, and the passes traced copies): that
 * run is read, with run->copies_only set, and its passes have no kernel. */
static int check_empty_passes(struct rp_run *run)
{
    bool any_rows = false, any_empty = false;
    for (uint32_t i = 0; i < run->npasses; i++) {
        any_empty |= run->passes[i].empty_at != NULL;
        any_rows |= run->passes[i].present && !run->passes[i].empty_at;
    }
    if (!any_empty)
        return 0;
    int copies = any_rows ? 0 : passes_have_copies(run);
    if (copies < 0)
        return -1;
    if (copies) {
        run->copies_only = true;
        return 0;
    }
    for (uint32_t i = 0; i < run->npasses; i++)
        if (run->passes[i].empty_at)
            empty_pass_error(&run->passes[i]);
    return -1;
}

/* One warning per pass and missing attribute column (not one per process):
 * the first counter file lacking it and how many others do. */
static void warn_missing_columns(const struct fileset *sets, size_t n)
{
    for (int c = 0; c < RC_NCOL; c++) {
        const char *first = NULL;
        size_t others = 0;
        for (size_t i = 0; i < n; i++) {
            if (sets[i].rc < 0 || !(sets[i].agg.cc_missing & (1ull << c)))
                continue;
            others += first != NULL;
            first = first ? first : sets[i].cc;
        }
        if (!first)
            continue;
        char *also = others ? xasprintf(" (nor %zu other counter file%s of this pass)", others,
                                        others == 1 ? "" : "s")
                            : xstrdup("");
        br_warn("%s:1: no column %s%s (names are matched ignoring case): the kernels' occupancy "
                "limit (max_waves_CU, Occupancy_of_max_pct) cannot use it",
                first, rp_col_names[c], also);
        free(also);
    }
}

static int finish_pass(struct rp_run *run, struct rp_pass *p, struct fileset *sets, size_t n)
{
    int rc = 0;
    pass_rows_check(p, sets, n);
    struct intern pc;
    intern_init(&pc);
    pass_counters(p, &pc, sets, n);
    for (size_t i = 0; i < n; i++) {
        struct fileset *s = &sets[i];
        rp_agg_flush_messages(&s->agg);
        if (s->rc < 0) {
            rc = -1;
            continue;
        }
        add_file(p, use_db(s) ? s->db : s->cc);
        add_file(p, use_db(s) ? NULL : s->kt);
        if (counter_file(s)) {
            p->present = true;
            p->nsets++;
            if (!p->layout)
                p->layout = xasprintf("counter_collection %s%s%s", s->agg.cc_layout,
                                      s->agg.kt_layout ? ", kernel_trace " : "",
                                      s->agg.kt_layout ? s->agg.kt_layout : "");
        }
        merge_set(run, p, &pc, &s->agg);
        if (!run->agent.present && (use_db(s) ? db_agent_load(&run->agent, s->db)
                                              : s->ai ? agent_load(&run->agent, s->ai) : 0) < 0)
            rc = -1;
    }
    intern_release(&pc);
    warn_missing_columns(sets, n);
    return rc;
}

/* A pass with every launch profiled, read as if the plan's launches alone
 * had been: sampled as `benchrun pmc --launches sampled` would have, per
 * signature with the CUPTI library (its companion *_cupti.json is there,
 * launch durations from events), per kernel with rocprofv3. */
static void resample_pass(struct rp_pass *p, const struct lp_plan *plan)
{
    char **cupti = rp_find_files(p->dir, "_cupti.json");
    bool by_signature = cupti[0] != NULL;
    str_array_free(cupti);
    p->sampled = true;
    p->sampling = (struct xp_sampling){ .plan = *plan,
                                        .unit = by_signature ? XP_UNIT_SIGNATURE : XP_UNIT_KERNEL,
                                        .kernel_times = !by_signature,
                                        .resample = true };
}

/* File sets of one pass folder, sorted by prefix; *rc -1 when its
 * launch_sampling.json is unreadable (printed). */
static struct fileset *find_sets(struct rp_pass *p, const char *pmc_dir, const struct lp_plan *resample,
                                 size_t *n, int *rc)
{
    p->dir = fs_path_join(pmc_dir, p->name);
    *n = 0;
    if (!fs_is_dir(p->dir))
        return NULL;
    if (sf_load(p->dir, &p->sampled, &p->sampling) != 0) {
        *rc = -1;
        return NULL;
    }
    if (resample && !p->sampled)
        resample_pass(p, resample);
    struct fileset *sets = NULL;
    size_t cap = 0;
    add_kind(&sets, n, &cap, p->dir, "counter_collection.csv", 0);
    add_kind(&sets, n, &cap, p->dir, "kernel_trace.csv", 1);
    add_kind(&sets, n, &cap, p->dir, "agent_info.csv", 2);
    add_kind(&sets, n, &cap, p->dir, RP_ROCPD_SUFFIX, 3);
    add_kind(&sets, n, &cap, p->dir, LU_SUFFIX, 4);
    if (*n)
        qsort(sets, *n, sizeof(*sets), cmp_set);
    for (size_t i = 0; i < *n; i++)
        sets[i].sampling = p->sampled ? &p->sampling : NULL;
    return sets;
}

static void free_sets(struct fileset *sets, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rp_agg_release(&sets[i].agg);
        free(sets[i].prefix);
        free(sets[i].cc);
        free(sets[i].kt);
        free(sets[i].ai);
        free(sets[i].db);
        free(sets[i].units);
    }
    free(sets);
}

/* Reads every file set of every pass on one pool of threads (largest work
 * first is not needed: sets of one run are of similar size), then merges
 * pass by pass in order. */
static int load_passes(struct rp_run *run, const char *pmc_dir, const struct lp_plan *resample,
                       int nthreads)
{
    size_t *cnt = xcalloc(run->npasses + 1, sizeof(*cnt)), total = 0;
    struct fileset **per = xcalloc(run->npasses + 1, sizeof(*per));
    int rc = 0;
    for (uint32_t i = 0; i < run->npasses; i++) {
        per[i] = find_sets(&run->passes[i], pmc_dir, resample, &cnt[i], &rc);
        total += cnt[i];
    }
    struct fileset *all = xcalloc(total + 1, sizeof(*all));
    size_t at = 0;
    for (uint32_t i = 0; i < run->npasses; i++) {
        if (cnt[i])
            memcpy(all + at, per[i], cnt[i] * sizeof(*all));
        free(per[i]);
        at += cnt[i];
    }
    run_jobs(all, total, nthreads);
    at = 0;
    for (uint32_t i = 0; i < run->npasses; i++) {
        if (finish_pass(run, &run->passes[i], all + at, cnt[i]) < 0)
            rc = -1;
        at += cnt[i];
    }
    if (check_empty_passes(run) < 0)
        rc = -1;
    free_sets(all, total);
    free(per);
    free(cnt);
    return rc;
}

static void pass_totals(struct rp_pass *p)
{
    p->launches_total = 0;
    p->profiled_total = 0;
    p->dur_ns_total = 0;
    for (uint32_t k = 0; k < p->nkernels; k++) {
        p->launches_total += p->launches[k];
        p->profiled_total += p->profiled[k];
        p->dur_ns_total += p->dur_ns[k];
    }
}

int rp_run_load(struct rp_run *run, const char *pmc_dir, const char *const *pass_names,
                size_t npasses, int nthreads)
{
    return rp_run_load_resampled(run, pmc_dir, pass_names, npasses, nthreads, NULL);
}

int rp_run_load_resampled(struct rp_run *run, const char *pmc_dir, const char *const *pass_names,
                          size_t npasses, int nthreads, const struct lp_plan *resample)
{
    memset(run, 0, sizeof(*run));
    intern_init(&run->names);
    run->npasses = (uint32_t)npasses;
    run->passes = xcalloc(npasses + 1, sizeof(*run->passes));
    for (size_t i = 0; i < npasses; i++)
        run->passes[i].name = xstrdup(pass_names[i]);
    int rc = load_passes(run, pmc_dir, resample, nthreads);
    for (size_t i = 0; i < npasses; i++) {
        rp_pass_drop_constants(&run->passes[i]);
        pass_rows(&run->passes[i], run->names.n);
        pass_totals(&run->passes[i]);
    }
    run_grow(run);
    return rc;
}

/* ---- agent_info ---------------------------------------------------------------- */

static int agent_row(struct rp_agent *ag, const struct rp_header *h, const char *line, size_t len)
{
    struct csv_span *f = xcalloc((size_t)h->ncols, sizeof(*f));
    int n = csv_split(line, len, f, h->ncols);
    int gpu = n == h->ncols && h->idx[RC_AGENT_TYPE] >= 0 &&
              csv_eq(&f[h->idx[RC_AGENT_TYPE]], "GPU");
    if (gpu) {
        ag->present = true;
        ag->ncols = (uint32_t)n;
        ag->keys = xcalloc((size_t)n + 1, sizeof(char *));
        ag->vals = xcalloc((size_t)n + 1, sizeof(char *));
        for (int i = 0; i < n; i++) {
            ag->keys[i] = xstrdup(h->names[i]);
            ag->vals[i] = xstrndup(f[i].p, f[i].n);
        }
    }
    free(f);
    return gpu;
}

/* agent_info from an open source (a file, or memory for rp_check_mem); the
 * first GPU row is kept. *rows gets the data rows read (may be NULL). */
static int agent_read(struct rp_agent *ag, struct csv_src *s, const char *path, uint64_t *rows);

static int agent_load(struct rp_agent *ag, const char *path)
{
    struct csv_src *s = csv_open(path);
    if (!s)
        return -1;
    return agent_read(ag, s, path, NULL);
}

static int agent_read(struct rp_agent *ag, struct csv_src *s, const char *path, uint64_t *rows)
{
    const char *line;
    size_t len;
    int rc = csv_next_line(s, &line, &len);
    if (rc <= 0) {
        csv_close(s);
        return rc < 0 ? -1 : br_error_at(path, 0, 0, "empty file (no header)");
    }
    struct rp_header h;
    char *err;
    if (rp_header_parse(&h, line, len, &err) < 0 || h.kind != RP_KIND_AGENT_INFO) {
        br_error_at(path, 1, 0, "%s", err ? err : "not an agent_info header");
        free(err);
        rp_header_release(&h);
        csv_close(s);
        return -1;
    }
    uint64_t n = 0;
    while ((rc = csv_next_line(s, &line, &len)) > 0) {
        n++;
        if (agent_row(ag, &h, line, len))
            break;
    }
    if (rows)
        *rows = n;
    if (ag->present)
        ag->file = xstrdup(path);
    rp_header_release(&h);
    csv_close(s);
    return rc < 0 ? -1 : 0;
}

const char *rp_agent_get(const struct rp_agent *a, const char *col)
{
    for (uint32_t i = 0; a->present && i < a->ncols; i++)
        if (strcasecmp(a->keys[i], col) == 0)
            return a->vals[i];
    return NULL;
}

int rp_agent_num(const struct rp_agent *a, const char *col, double *out)
{
    const char *v = rp_agent_get(a, col);
    if (!v)
        return -1;
    struct csv_span s = { v, (uint32_t)strlen(v), false };
    return csv_double(&s, out);
}

/* ---- single files ---------------------------------------------------------------- */

int rp_check_mem(const char *name, const void *data, size_t len, struct rp_file_info *info)
{
    struct rp_agg a;
    enum rp_kind kind;
    int rc = rp_agg_read_mem(&a, name, data, len, &kind);
    rp_agg_flush_messages(&a);
    if (rc == 0 && (a.cc_empty || a.kt_empty))   /* one file is the whole run here */
        rc = br_error_at(name, 1, 0, "header only, no data rows");
    struct rp_agent ag = { 0 };
    uint64_t agent_rows = 0;
    if (rc == 0 && kind == RP_KIND_AGENT_INFO)     /* its rows too (fuzz_agent_info) */
        rc = agent_read(&ag, csv_open_mem(name, data, len), name, &agent_rows);
    if (info) {
        memset(info, 0, sizeof(*info));
        info->kind = kind;
        info->layout = a.cc_layout ? a.cc_layout : a.kt_layout ? a.kt_layout : "";
        info->rows = a.rows;
        info->dispatches = kind == RP_KIND_TRACE ? a.trace_launches : a.dispatches;
        info->truncated = a.truncated;
        info->kernels = a.kn.n;
        info->counters = a.cn.n;
        if (kind == RP_KIND_AGENT_INFO)
            info->rows = agent_rows;
    }
    rp_agg_release(&a);
    rp_agent_release(&ag);
    return rc;
}
