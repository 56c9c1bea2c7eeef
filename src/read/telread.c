/* telread.c - telemetry files read once into the model (telread.h). */
#include "read/telread.h"

#include "read/nodepath.h"
#include "read/rocprof.h"
#include "read/telemetry.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* t inside some [start, end] of the merged, sorted intervals. */
static bool inside(const int64_t *iv, size_t m, int64_t t)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t < iv[2 * mid])
            hi = mid;
        else if (t > iv[2 * mid + 1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* The merged intervals of the trace files under a folder named node. */
static size_t node_intervals(const struct rp_power *pw, const char *root, const char *node,
                             int64_t *out)
{
    size_t m = 0;
    for (uint32_t k = 0; k < pw->ngpus; k++) {
        const struct rp_gpu_busy *g = &pw->gpu[k];
        if (g->file >= pw->nfiles || !rp_path_in_node(root, pw->files[g->file], node))
            continue;
        memcpy(out + 2 * m, pw->busy_iv + 2 * g->iv_first, 2 * g->iv_n * sizeof(int64_t));
        m += g->iv_n;
    }
    return m;
}

/* True when some telemetry file's node owns a trace folder. */
static bool traces_by_node(const struct rp_power *pw, const char *root, char **nodes, size_t n)
{
    for (size_t i = 0; pw && i < n; i++)
        for (uint32_t k = 0; nodes[i] && k < pw->ngpus; k++)
            if (rp_path_in_node(root, rp_gpu_path(pw, &pw->gpu[k]), nodes[i]))
                return true;
    return false;
}

int64_t telem_node_origin(const struct rp_power *pw, const char *root, const char *node)
{
    int64_t k0 = INT64_MAX;
    for (uint32_t g = 0; node && g < pw->ngpus; g++)
        if (rp_path_in_node(root, rp_gpu_path(pw, &pw->gpu[g]), node))
            k0 = pw->gpu[g].first_start < k0 ? pw->gpu[g].first_start : k0;
    return k0 == INT64_MAX ? pw->first_start : k0;
}

/* The node of the telemetry file whose node folder holds GPU g's trace. */
static int64_t gpu_origin(const struct rp_power *pw, const char *root, char **nodes, size_t n,
                          uint32_t g)
{
    const char *file = rp_gpu_path(pw, &pw->gpu[g]);
    for (size_t f = 0; f < n; f++)
        if (nodes[f] && rp_path_in_node(root, file, nodes[f]))
            return telem_node_origin(pw, root, nodes[f]);
    return pw->first_start;
}

/* The longest kernel (and copy) window of a GPU from its node's origin, s. */
static double kernel_window_s(const struct rp_power *pw, const char *root, char **nodes,
                              size_t n)
{
    double w = 0;
    for (uint32_t g = 0; g < pw->ngpus; g++)
        w = fmax(w, (double)(pw->gpu[g].span_last - gpu_origin(pw, root, nodes, n, g)) / 1e9);
    w = pw->ngpus ? w : (double)(pw->last_end - pw->first_start) / 1e9;
    return w > 0 ? w : 1e-6;
}

static void stat_add(struct telem_stat *s, double v)
{
    if (isnan(v))
        return;
    s->sum += v;
    s->max = s->n++ == 0 || v > s->max ? v : s->max;
}

static void clock_add(struct telem_file *f, double c)
{
    if (f->nkernel_clock == f->kernel_clock_cap) {
        f->kernel_clock_cap = f->kernel_clock_cap ? 2 * f->kernel_clock_cap : 256;
        f->kernel_clock = xrealloc(f->kernel_clock, f->kernel_clock_cap * sizeof(double));
    }
    f->kernel_clock[f->nkernel_clock++] = c;
}

/* What one file's rows are matched against and decimated into. */
struct pass {
    const int64_t *iv;
    size_t m;
    size_t nb;                   /* line columns, 0: no lines */
    struct series_dec power, clock;
};

static void row(struct telem_file *f, struct pass *p, const struct br_telem_row *r)
{
    int64_t t = r->timestamp_ns;
    double c = r->v[TELEM_GFX_CLOCK], w = r->v[TELEM_SOCKET_POWER];
    if (f->rows++ == 0)
        f->first_ns = f->last_ns = t;
    f->first_ns = t < f->first_ns ? t : f->first_ns;
    f->last_ns = t > f->last_ns ? t : f->last_ns;
    stat_add(&f->socket_power, w);
    stat_add(&f->gfx_clock, c);
    stat_add(&f->hotspot_temp, r->v[TELEM_HOTSPOT_TEMP]);
    stat_add(&f->edge_temp, r->v[TELEM_EDGE_TEMP]);
    if (p->m && t >= p->iv[0] && t <= p->iv[2 * p->m - 1])
        f->in_window++;
    if (isfinite(c) && inside(p->iv, p->m, t)) {
        if (c > 0)
            clock_add(f, c);
        else                /* no reading (some drivers write 0): never averaged in */
            f->no_clock++;
    }
    if (!p->nb)
        return;
    double ts = (double)(t - f->origin_ns) / 1e9;
    w = isfinite(w) ? w : r->v[TELEM_INST_POWER];
    series_grow_push(&f->strip, ts, w);
    if (ts < 0 || ts > f->window_s)
        return;
    series_dec_push(&p->power, ts, w);
    series_dec_push(&p->clock, ts, c);
}

/* 0, or -1 (printed) with *opened false when the file could not be opened. */
static int read_file(struct telem_file *f, struct pass *p, bool *opened)
{
    struct br_telem *t = br_telem_open(f->path);
    *opened = t != NULL;
    if (!t)
        return -1;
    if (p->nb) {
        series_grow_init(&f->strip, 2 * p->nb);
        f->power_x = xmalloc(2 * p->nb * sizeof(double));
        f->power_y = xmalloc(2 * p->nb * sizeof(double));
        f->clock_x = xmalloc(2 * p->nb * sizeof(double));
        f->clock_y = xmalloc(2 * p->nb * sizeof(double));
        series_dec_init(&p->power, 0, f->window_s, p->nb, f->power_x, f->power_y);
        series_dec_init(&p->clock, 0, f->window_s, p->nb, f->clock_x, f->clock_y);
    }
    struct br_telem_row r;
    int rc;
    while ((rc = br_telem_next(t, &r)) > 0)
        row(f, p, &r);
    f->truncated = br_telem_truncated(t);
    br_telem_close(t);
    if (p->nb) {
        series_dec_flush(&p->power);
        series_dec_flush(&p->clock);
        f->nzoom = p->power.k;
        f->nclock = p->clock.k;
    }
    return rc < 0 ? -1 : 0;
}

/* The intervals of file i: the given ones, its node's, or all of pw's. */
static size_t file_intervals(const struct telem_read_opts *o, const char *path, const char *node,
                             int64_t *w)
{
    size_t m = 0;
    if (o->iv) {
        m = o->niv;
        if (m)              /* memcpy from NULL is undefined even for 0 bytes */
            memcpy(w, o->iv, 2 * m * sizeof(int64_t));
    } else if (o->pw && node) {
        m = node_intervals(o->pw, o->root, node, w);
        if (m == 0)
            br_warn("%s: no kernel trace under a '%s/' folder: none of its samples is used for "
                    "the sampled clock (CLOCK_BOOTTIME is per node)", path, node);
    } else if (o->pw) {
        m = o->pw->nbusy_iv;
        if (m)              /* a power run of copies only has no busy interval array */
            memcpy(w, o->pw->busy_iv, 2 * m * sizeof(int64_t));
    }
    double len;
    return rp_iv_union(w, m, &len);
}

int telem_read_run(struct telem_run *out, char *const *files, size_t nfiles,
                   const struct telem_read_opts *o)
{
    memset(out, 0, sizeof(*out));
    out->f = xcalloc(nfiles + 1, sizeof(*out->f));
    char **nodes = xcalloc(nfiles + 1, sizeof(*nodes));
    for (size_t i = 0; i < nfiles; i++)
        nodes[i] = rp_telem_node(files[i]);
    bool by_node = !o->iv && traces_by_node(o->pw, o->root, nodes, nfiles);
    double window = o->pw ? kernel_window_s(o->pw, o->root, nodes, nfiles) : 1e-6;
    size_t cap = o->iv ? o->niv : o->pw ? o->pw->nbusy_iv : 0;
    int64_t *w = xmalloc(2 * cap * sizeof(int64_t) + 1);
    int rc = 0;
    for (size_t i = 0; i < nfiles && rc == 0; i++) {
        struct telem_file *f = &out->f[out->n];
        const char *b = strrchr(files[i], '/');
        f->path = xstrdup(files[i]);
        f->name = xstrdup(b ? b + 1 : files[i]);
        f->node = nodes[i] ? xstrdup(nodes[i]) : NULL;
        f->first_ns = f->last_ns = -1;
        f->socket_power.max = f->gfx_clock.max = f->hotspot_temp.max = f->edge_temp.max = NAN;
        f->origin_ns = o->pw ? telem_node_origin(o->pw, o->root, nodes[i]) : 0;
        f->window_s = window;
        struct pass p = { .iv = w, .nb = o->line_buckets };
        p.m = file_intervals(o, files[i], by_node ? nodes[i] : NULL, w);
        bool opened;
        rc = read_file(f, &p, &opened);
        if (!opened && o->skip_bad)
            telem_file_release(f);      /* left out */
        else
            out->n++;
        if (o->skip_bad)
            rc = 0;
    }
    free(w);
    for (size_t i = 0; i < nfiles; i++)
        free(nodes[i]);
    free(nodes);
    return rc;
}
