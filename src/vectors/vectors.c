/* vectors.c - binning of a power run's telemetry into vectors (docs/design.md §9).
 *
 * Owns vec_compute(): one streaming pass over each telemetry file (no sample
 * is stored), the kernel-window trim (per node when the run has node trace
 * folders), per-GPU histograms, pooling (all GPUs; each node's), and the
 * achieved-interval statistics (a 1 µs histogram of the gaps between
 * consecutive samples of each file; max and mean exact). Binning arithmetic
 * is in binning.c, the folder discovery in vectors_run.c, the JSON in
 * vectors_json.c.
 *
 * Files are scanned in parallel (one thread per file up to the CPU count):
 * each thread writes only its files' vec_gpu and its own gap histogram,
 * merged afterwards, so the result does not depend on the thread count.
 */
#include "vectors/vectors_int.h"

#include "util/error.h"
#include "util/textesc.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { GAP_BUCKETS = 250000 };     /* 1 µs buckets up to 250 ms; larger gaps in the last */
enum { MAX_THREADS = 16 };

struct gap_hist {
    uint32_t *n;                   /* [GAP_BUCKETS] */
    uint64_t count;
    int64_t max_ns, sum_ns;
};

static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;

void vec_warn(struct vec_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = try_vasprintf(fmt, ap);
    va_end(ap);
    if (!msg)
        return;
    pthread_mutex_lock(&warn_lock);
    br_warn("%s", msg);
    json_array_append_new(r->warnings, esc_json_string(msg));
    pthread_mutex_unlock(&warn_lock);
    free(msg);
}

static void gap_add(struct gap_hist *g, int64_t gap)
{
    int64_t b = gap / 1000;
    g->n[b < GAP_BUCKETS ? b : GAP_BUCKETS - 1]++;
    g->count++;
    g->sum_ns += gap;
    if (gap > g->max_ns)
        g->max_ns = gap;
}

/* Gap (ms, µs resolution) below which a fraction q of the gaps lie. */
static double gap_quantile(const struct gap_hist *g, double q)
{
    uint64_t want = (uint64_t)ceil(q * (double)g->count), seen = 0;
    if (want == 0)
        want = 1;
    for (uint32_t b = 0; b < GAP_BUCKETS; b++) {
        seen += g->n[b];
        if (seen >= want)
            return b / 1000.0;
    }
    return NAN;
}

/* Bins one sample's values into h (all specs). */
static void bin_sample(const struct vec_result *r, struct vec_hist *h, const double *v)
{
    for (int s = 0; s < VEC_NSPECS; s++) {
        const struct vec_spec *sp = &vec_specs[s];
        double val = v[sp->col];
        if (isnan(val))
            continue;
        h[s].finite++;
        double x = sp->by_tdp ? val / r->tdp_W : val;
        long i = vec_bin_index(r->edges[s], r->nedges[s], sp->step, x);
        if (i < 0)
            continue;
        h[s].population++;
        if ((size_t)i == r->nedges[s] - 1)
            h[s].above++;
        else
            h[s].count[i]++;
    }
}

/* The window g's samples are trimmed with: its node's when the run has one
 * window per node (none when that node has no trace), else the run's. */
bool vec_gpu_window(const struct vec_result *r, const struct vec_gpu *g, int64_t *start,
                    int64_t *end)
{
    if (r->window_per_node && g->node_ix >= 0) {
        const struct vec_node *nd = &r->nodes[g->node_ix];
        *start = nd->start, *end = nd->end;
        return r->win.trimmed && nd->have_trace;
    }
    *start = r->win.start, *end = r->win.end;
    return r->win.trimmed;
}

static void wgap_add(struct vec_gpu *g, int64_t gap)
{
    if (g->nwgap == g->capwgap) {
        g->capwgap = g->capwgap ? 2 * g->capwgap : 256;
        g->wgap = xrealloc(g->wgap, g->capwgap * sizeof(*g->wgap));
    }
    g->wgap[g->nwgap++] = gap;
}

/* Streams one telemetry file into g's counts and the gap histogram; the
 * first file also keeps its in-window gaps (wgap). */
static int scan_file(struct vec_result *r, struct vec_gpu *g, struct gap_hist *gaps)
{
    bool keep_gaps = g == &r->gpus[0];
    int64_t prev_used = INT64_MIN;
    struct br_telem *t = br_telem_open(g->path);
    if (!t)
        return -1;
    int64_t ws, we;
    bool trim = vec_gpu_window(r, g, &ws, &we);
    struct br_telem_row row;
    int rc;
    bool back_warned = false;
    while ((rc = br_telem_next(t, &row)) > 0) {
        int64_t ts = row.timestamp_ns;
        if (g->rows++ > 0) {
            if (ts >= g->last_ts)
                gap_add(gaps, ts - g->last_ts);
            else if (!back_warned)
                back_warned = true, vec_warn(r, "%s:%ld: timestamp goes backwards", g->path,
                                             row.line);
        } else {
            g->first_ts = ts;
        }
        g->last_ts = ts;
        if (trim && ts < ws)
            g->before++;
        else if (trim && ts > we)
            g->after++;
        else {
            g->used++, bin_sample(r, g->h, row.v);
            if (keep_gaps && prev_used != INT64_MIN && ts >= prev_used)
                wgap_add(g, ts - prev_used);
            prev_used = ts;
        }
    }
    g->truncated = br_telem_truncated(t);
    if (g->truncated) {
        pthread_mutex_lock(&warn_lock);    /* printed by the reader already */
        json_array_append_new(r->warnings, json_sprintf("%s: last line cut short (killed "
                              "job?): ignored", g->file));
        pthread_mutex_unlock(&warn_lock);
    }
    br_telem_close(t);
    return rc;
}

struct scan_job {
    struct vec_result *r;
    atomic_size_t *next;           /* shared: next file to take */
    struct gap_hist gaps;          /* this thread's */
    int rc;
};

static void *scan_worker(void *arg)
{
    struct scan_job *j = arg;
    size_t i;
    while ((i = atomic_fetch_add(j->next, 1)) < j->r->ngpus)
        if (scan_file(j->r, &j->r->gpus[i], &j->gaps) != 0)
            j->rc = -1;
    return NULL;
}

static void gap_merge(struct gap_hist *into, const struct gap_hist *g)
{
    for (uint32_t b = 0; b < GAP_BUCKETS; b++)
        into->n[b] += g->n[b];
    into->count += g->count;
    into->sum_ns += g->sum_ns;
    if (g->max_ns > into->max_ns)
        into->max_ns = g->max_ns;
}

/* Scans every file: this thread plus up to (CPUs - 1) helpers take files
 * from a shared counter until none is left. */
static int scan_all(struct vec_result *r, struct gap_hist *gaps)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = r->ngpus < (size_t)(ncpu > 1 ? ncpu : 1) ? r->ngpus : (size_t)ncpu;
    nt = nt > MAX_THREADS ? MAX_THREADS : nt < 1 ? 1 : nt;
    atomic_size_t next = 0;
    struct scan_job job[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    size_t started = 1;
    job[0] = (struct scan_job){ .r = r, .next = &next, .gaps = *gaps };
    for (; started < nt; started++) {
        job[started] = (struct scan_job){ .r = r, .next = &next,
                                          .gaps.n = xcalloc(GAP_BUCKETS, sizeof(uint32_t)) };
        if (pthread_create(&tid[started], NULL, scan_worker, &job[started]) != 0) {
            free(job[started].gaps.n);
            break;                         /* fewer helpers; the counter shares the work */
        }
    }
    scan_worker(&job[0]);
    int rc = job[0].rc;
    for (size_t k = 1; k < started; k++) {
        pthread_join(tid[k], NULL);
        gap_merge(&job[0].gaps, &job[k].gaps);
        rc = job[k].rc ? -1 : rc;
        free(job[k].gaps.n);
    }
    *gaps = job[0].gaps;
    return rc;
}

static void hist_add(const struct vec_result *r, struct vec_hist *into,
                     const struct vec_hist *from)
{
    for (int s = 0; s < VEC_NSPECS; s++) {
        for (size_t k = 0; k + 1 < r->nedges[s]; k++)
            into[s].count[k] += from[s].count[k];
        into[s].population += from[s].population;
        into[s].above += from[s].above;
        into[s].finite += from[s].finite;
    }
}

/* Adds g's counts and sample span to its node's. */
static void pool_node(struct vec_result *r, const struct vec_gpu *g)
{
    struct vec_node *nd = &r->nodes[g->node_ix];
    hist_add(r, nd->h, g->h);
    nd->rows += g->rows, nd->used += g->used;
    nd->before += g->before, nd->after += g->after;
    if (!g->rows)
        return;
    if (nd->first_ts == INT64_MIN || g->first_ts < nd->first_ts)
        nd->first_ts = g->first_ts;
    if (nd->last_ts == INT64_MIN || g->last_ts > nd->last_ts)
        nd->last_ts = g->last_ts;
}

static void pool(struct vec_result *r)
{
    for (size_t i = 0; i < r->ngpus; i++) {
        const struct vec_gpu *g = &r->gpus[i];
        r->rows += g->rows;
        r->used += g->used;
        hist_add(r, r->pooled, g->h);
        if (g->node_ix >= 0)
            pool_node(r, g);
    }
}

static void interval_stats(struct vec_result *r, const struct gap_hist *g)
{
    struct vec_interval *iv = &r->ival;
    iv->gaps = g->count;
    iv->median_ms = iv->p99_ms = iv->max_ms = iv->mean_ms = iv->requested_ms = NAN;
    if (g->count) {
        iv->median_ms = gap_quantile(g, 0.5);
        iv->p99_ms = gap_quantile(g, 0.99);
        iv->max_ms = (double)g->max_ns / 1e6;
        iv->mean_ms = (double)g->sum_ns / (double)g->count / 1e6;
    }
    static const struct { const char *key; double to_ms; } keys[] = {
        { "interval_ms", 1 }, { "interval_us", 1e-3 }, { "interval_ns", 1e-6 },
        { "requested_interval_ms", 1 }, { "interval", 1 },
    };
    json_t *meta = r->ngpus ? r->gpus[0].meta : NULL;
    for (size_t k = 0; meta && k < sizeof(keys) / sizeof(keys[0]); k++) {
        const char *v = json_string_value(json_object_get(meta, keys[k].key));
        char *end;
        double d = v ? strtod(v, &end) : NAN;
        if (v && end != v && d > 0) {
            iv->requested_ms = d * keys[k].to_ms;
            iv->requested_key = xstrdup(keys[k].key);
            break;
        }
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The seed's achieved interval: median (numpy's: the mean of the two middle
 * gaps when their count is even) and mean of the first file's gaps between
 * consecutive samples inside the window, exact. */
static void window_interval(struct vec_result *r)
{
    r->win_median_ms = r->win_mean_ms = NAN;
    struct vec_gpu *g = r->ngpus ? &r->gpus[0] : NULL;
    if (!g || !g->nwgap)
        return;
    qsort(g->wgap, g->nwgap, sizeof(*g->wgap), cmp_i64);
    size_t n = g->nwgap;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)g->wgap[i];
    r->win_mean_ms = sum / (double)n / 1e6;
    r->win_median_ms = (n % 2 ? (double)g->wgap[n / 2]
                              : ((double)g->wgap[n / 2 - 1] + (double)g->wgap[n / 2]) / 2) / 1e6;
}

static void init_edges(struct vec_result *r)
{
    for (int s = 0; s < VEC_NSPECS; s++) {
        const struct vec_spec *sp = &vec_specs[s];
        r->nedges[s] = vec_arange(sp->lo, sp->hi, sp->step, r->edges[s], 33);
    }
}

/* Checks that the samples and the kernel window overlap as they should. */
static int check_alignment(const struct vec_opts *o, struct vec_result *r)
{
    const struct vec_window *w = &r->win;
    if (r->rows == 0)
        return br_error("%s: the telemetry files hold no sample", r->prof_dir);
    if (w->trimmed && r->used == 0)
        return br_error("%s: no telemetry sample inside the kernel window [%lld, %lld] ns "
                        "(check the clock alignment, or use --no-trim)", r->prof_dir,
                        (long long)w->start, (long long)w->end);
    for (size_t i = 0; i < r->ngpus; i++) {
        const char *clk = json_string_value(json_object_get(r->gpus[i].meta, "clock"));
        if (clk && strcmp(clk, "CLOCK_BOOTTIME") != 0)
            vec_warn(r, "%s: timestamps on clock=%s, not CLOCK_BOOTTIME like the kernel "
                     "trace: the kernel window may not line up", r->gpus[i].file, clk);
    }
    for (size_t i = 0; w->have_trace && i < r->ngpus; i++) {
        const struct vec_gpu *g = &r->gpus[i];
        int64_t ws, we;
        bool per_node = r->window_per_node && g->node_ix >= 0;
        vec_gpu_window(r, g, &ws, &we);
        if (per_node && !r->nodes[g->node_ix].have_trace)
            continue;
        if (g->rows && (g->first_ts > ws || g->last_ts < we))
            vec_warn(r, "%s: samples [%lld, %lld] ns do not cover the kernel window "
                     "[%lld, %lld] ns%s%s", g->file, (long long)g->first_ts,
                     (long long)g->last_ts, (long long)ws, (long long)we,
                     per_node ? " of node " : "", per_node ? g->node : "");
    }
    (void)o;
    return 0;
}

/* The metadata line of a telemetry file as written (the seed quotes it). */
static char *first_line(const char *path)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = fp ? getline(&line, &cap, fp) : -1;
    if (fp)
        fclose(fp);
    if (n < 0) {
        free(line);
        return NULL;
    }
    line[strcspn(line, "\r\n")] = '\0';
    return line;
}

/* --label, else the workload of run.json/run_info, else the folder name. */
static void set_label(const struct vec_opts *o, struct vec_result *r)
{
    const char *w = r->run_info ? json_string_value(json_object_get(r->run_info, "workload"))
                                : NULL;
    if (o->label)
        r->label = xstrdup(o->label);
    else if (w && *w)
        r->label = xstrdup(w);
    else {
        const char *b = strrchr(r->prof_dir, '/');
        r->label = xstrdup(b ? b + 1 : r->prof_dir);
    }
}

int vec_compute(const struct vec_opts *o, struct vec_result *r)
{
    memset(r, 0, sizeof(*r));
    r->warnings = json_array();
    if (!fs_is_dir(o->prof_dir))
        return br_error("'%s' is not a folder (expected a power run folder prof-<jobid>)",
                        o->prof_dir);
    r->prof_dir = fs_abspath(o->prof_dir);
    init_edges(r);
    vec_read_run_info(r);
    set_label(o, r);
    vec_read_clock_ref(r);
    vec_read_sampler_reports(r);
    if (vec_find_gpus(r) != 0 || vec_find_tdp(o, r) != 0 || vec_find_window(o, r) != 0)
        return -1;
    r->meta_line = first_line(r->gpus[0].path);
    vec_read_rocm(r);
    struct gap_hist gaps = { .n = xcalloc(GAP_BUCKETS, sizeof(uint32_t)) };
    int rc = scan_all(r, &gaps);
    if (rc == 0) {
        pool(r);
        interval_stats(r, &gaps);
        window_interval(r);
        rc = check_alignment(o, r);
    }
    free(gaps.n);
    if (rc == 0)
        rc = vec_cross_check(o, r);
    return rc;
}

char *vec_skip_reason(const struct vec_spec *s, const struct vec_hist *h, uint64_t used)
{
    if (used == 0)
        return xstrdup("no sample in the window");
    if (h->finite == 0)   /* the seed's words */
        return xasprintf("no valid samples in %s (sensor not exposed: all nan)",
                         telem_cols[s->col].name);
    if (h->population == 0)
        return xasprintf("no sample at or above the first edge (x >= %g %s)", s->lo, s->unit);
    return NULL;
}

double vec_fraction(const struct vec_hist *h, size_t i)
{
    if (h->population == 0)
        return NAN;
    return vec_round4((double)h->count[i] / (double)h->population);
}

void vec_result_release(struct vec_result *r)
{
    for (size_t i = 0; i < r->ngpus; i++) {
        struct vec_gpu *g = &r->gpus[i];
        free(g->path), free(g->file), free(g->node), free(g->suffix), free(g->wgap);
        json_decref(g->meta);
    }
    free(r->gpus);
    for (size_t i = 0; i < r->nnodes; i++)
        free(r->nodes[i].name);
    free(r->nodes);
    for (uint32_t i = 0; i < r->win.ntrace_files; i++)
        free(r->win.trace_files[i]);
    free(r->win.trace_files);
    free(r->win.note);
    free(r->ival.requested_key);
    free(r->prof_dir), free(r->label), free(r->arch), free(r->arch_source);
    free(r->gpu_name), free(r->tdp_source), free(r->run_info_file);
    json_decref(r->run_info);
    json_decref(r->run_info_lines);
    json_decref(r->cross_check_detail);
    free(r->rocm_version), free(r->meta_line), free(r->cross_check), free(r->clock_ref_line);
    json_decref(r->clock_ref);
    json_decref(r->clock_ref_nodes);
    json_decref(r->sampler_reports);
    json_decref(r->warnings);
    memset(r, 0, sizeof(*r));
}
