/* wr_trace.c - the power run as a Chrome trace-event JSON file (wr_energy.h
 * wr_power_trace), which ui.perfetto.dev and chrome://tracing open.
 *
 * Format facts (Trace Event Format, Google doc 1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU,
 * as Perfetto's JSON importer reads it): an object {"traceEvents": [...]};
 * "ts" and "dur" in microseconds (fractions allowed); "ph":"X" a complete
 * slice on the thread (pid, tid), slices of one thread must nest, so
 * overlapping launches go to separate lanes; "ph":"C" a counter, one track
 * per (pid, name), each args key a series; "ph":"M" metadata: process_name,
 * thread_name, process_sort_index, thread_sort_index with args.name /
 * args.sort_index. Times are small numbers from each node's first kernel
 * start (large absolute values lose sub-microsecond precision in the UI).
 *
 * One process per GPU (telemetry file): lanes "kernels", "kernels 2", ...
 * and "copies", counters "power (W)", "gfx clock (MHz)", "temperature (C)".
 * Bounded size: a counter value is written only when it changes, and a
 * series of more than COUNTER_MAX changes is min/max-decimated to
 * COUNTER_BUCKETS buckets (spikes kept); each GPU keeps at most SLICE_MAX
 * slices: launches of one kernel on one lane closer than q = window /
 * SLICE_MAX are merged into one slice (args.launches counts them), and if
 * that is still too many, slices shorter than q are left out. What was
 * decimated is recorded in otherData.
 */
#include "write/wr_energy.h"

#include "model/series.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/jsonw.h"
#include "util/xalloc.h"
#include "write/wr_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COUNTER_MAX 40000
#define COUNTER_BUCKETS 10000
#define SLICE_MAX 200000
#define LANE_MAX 32

struct tw {
    FILE *fp;
    bool first;
    size_t events, merged, dropped, decimated_series;
    struct strbuf scratch;          /* one string's JSON text, reused */
};

/* A JSON string (util/jsonw.h: as in every JSON file benchrun writes). */
static void jstr(struct tw *t, const char *s)
{
    sb_reset(&t->scratch);
    jw_quote(&t->scratch, s ? s : "");
    fwrite(t->scratch.buf, 1, t->scratch.len, t->fp);
}

static void sep(struct tw *t)
{
    fputs(t->first ? "\n" : ",\n", t->fp);
    t->first = false;
    t->events++;
}

static void meta(struct tw *t, const char *what, int pid, int tid, const char *name, int sort)
{
    sep(t);
    fprintf(t->fp, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", pid,
            tid, what);
    jstr(t, name);
    fputs("}}", t->fp);
    sep(t);
    fprintf(t->fp, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s_sort_index\","
                   "\"args\":{\"sort_index\":%d}}", pid, tid,
            strcmp(what, "process_name") == 0 ? "process" : "thread", sort);
}

static double us(int64_t t, int64_t origin)
{
    return (double)(t - origin) / 1000.0;
}

/* ---- counters ---- */

static void counter(struct tw *t, int pid, const char *name, const char *key, const int64_t *ts,
                    const double *v, size_t n, int64_t origin)
{
    size_t changes = 0;
    for (size_t i = 0; i < n; i++)
        changes += isfinite(v[i]) && (i == 0 || v[i] != v[i - 1]);
    double *x = NULL, *y = NULL;
    size_t m = 0;
    if (changes > COUNTER_MAX && n > 1) {   /* min/max per bucket keeps the spikes */
        x = xmalloc(2 * COUNTER_BUCKETS * sizeof(*x));
        y = xmalloc(2 * COUNTER_BUCKETS * sizeof(*y));
        struct series_dec d;
        series_dec_init(&d, us(ts[0], origin), us(ts[n - 1], origin), COUNTER_BUCKETS, x, y);
        for (size_t i = 0; i < n; i++)
            series_dec_push(&d, us(ts[i], origin), v[i]);
        series_dec_flush(&d);
        m = d.k;
        t->decimated_series++;
    }
    double last = NAN;
    for (size_t i = 0; i < (x ? m : n); i++) {
        double val = x ? y[i] : v[i], when = x ? x[i] : us(ts[i], origin);
        if (!isfinite(val) || (!x && val == last))
            continue;
        last = val;
        sep(t);
        fprintf(t->fp, "{\"ph\":\"C\",\"pid\":%d,\"name\":\"%s\",\"ts\":%.3f,\"args\":{\"%s\":%.6g}}",
                pid, name, when, key, val);
    }
    free(x);
    free(y);
}

/* ---- slices ---- */

struct slice {
    int64_t s, e;
    uint32_t col;
    uint32_t lane;
    uint32_t n;                     /* launches merged */
};

/* Lanes: the first whose last slice ended by this start (kernels and copies
 * apart: copies use lanes from LANE_MAX on). */
static void lanes(struct slice *v, size_t n, uint32_t nk)
{
    int64_t end[2 * LANE_MAX];
    uint32_t used[2] = { 0, 0 };
    for (size_t l = 0; l < 2 * LANE_MAX; l++)
        end[l] = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int kind = v[i].col >= nk;
        int64_t *e = end + kind * LANE_MAX;
        uint32_t l = 0;
        while (l < used[kind] && e[l] > v[i].s)
            l++;
        if (l == used[kind]) {
            if (used[kind] < LANE_MAX)
                used[kind]++;
            else
                l = LANE_MAX - 1;   /* more concurrency than lanes: share the last */
        }
        e[l] = v[i].e > e[l] ? v[i].e : e[l];
        v[i].lane = (uint32_t)kind * LANE_MAX + l;
    }
}

/* Merges same-column slices of a lane closer than q; drops ones shorter
 * than q when still over the budget. Returns the count kept (compacted). */
static size_t bound(struct slice *v, size_t n, int64_t q, struct tw *t)
{
    if (n <= SLICE_MAX)
        return n;
    size_t *last = xmalloc(2 * LANE_MAX * sizeof(*last)), k = 0;
    for (size_t l = 0; l < 2 * LANE_MAX; l++)
        last[l] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t p = last[v[i].lane];
        if (p != SIZE_MAX && v[p].col == v[i].col && v[i].s - v[p].e < q) {
            v[p].e = v[i].e > v[p].e ? v[i].e : v[p].e;
            v[p].n += v[i].n;
            t->merged++;
            continue;
        }
        v[k] = v[i];
        last[v[k].lane] = k;
        k++;
    }
    free(last);
    if (k > SLICE_MAX) {
        size_t m = 0;
        for (size_t i = 0; i < k; i++)
            if (v[i].e - v[i].s >= q)
                v[m++] = v[i];
            else
                t->dropped++;
        k = m;
    }
    return k;
}

static void gpu_slices(struct tw *t, const struct wr_energy *w, const struct prun_gpu *g, int pid,
                       int64_t origin)
{
    const struct en_result *en = w->en;
    struct slice *v = xmalloc((g->nact + 1) * sizeof(*v));
    for (size_t i = 0; i < g->nact; i++)
        v[i] = (struct slice){ g->act[i].start_ns, g->act[i].end_ns,
                               en_col_of(en, g->act[i].kind, g->act[i].id), 0, 1 };
    lanes(v, g->nact, en->nkernels);
    int64_t span = g->win1 > g->win0 ? g->win1 - g->win0 : 1;
    size_t n = bound(v, g->nact, span / SLICE_MAX + 1, t);
    bool have[2 * LANE_MAX] = { false };
    for (size_t i = 0; i < n; i++)
        have[v[i].lane] = true;
    for (uint32_t l = 0; l < 2 * LANE_MAX; l++) {
        if (!have[l])
            continue;
        char name[32];
        bool copy = l >= LANE_MAX;
        uint32_t idx = l % LANE_MAX + 1;
        snprintf(name, sizeof(name), idx == 1 ? "%s" : "%s %u", copy ? "copies" : "kernels", idx);
        meta(t, "thread_name", pid, (int)l + 1, name, (int)l + 1);
    }
    for (size_t i = 0; i < n; i++) {
        sep(t);
        fprintf(t->fp, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"cat\":\"%s\",\"name\":", pid,
                v[i].lane + 1, v[i].col < en->nkernels ? "kernel" : "copy");
        if (v[i].col < en->nkernels) {
            jstr(t, w->shortname[v[i].col]);
        } else {
            char c[32];
            snprintf(c, sizeof(c), "copy %s", en_copy_label((enum en_copy)(v[i].col - en->nkernels)));
            jstr(t, c);
        }
        fprintf(t->fp, ",\"ts\":%.3f,\"dur\":%.3f", us(v[i].s, origin),
                (double)(v[i].e - v[i].s) / 1000.0);
        if (v[i].n > 1)
            fprintf(t->fp, ",\"args\":{\"launches\":%u}", v[i].n);
        fputc('}', t->fp);
    }
    free(v);
}

int wr_power_trace(const struct wr_energy *w, const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    struct tw t = { .fp = a.fp, .first = true };
    sb_init(&t.scratch);
    fputs("{\"traceEvents\":[", a.fp);
    const struct prun *pr = w->pr;
    for (size_t g = 0; g < pr->ngpus; g++) {
        const struct prun_gpu *pg = &pr->gpu[g];
        int pid = (int)g + 1;
        int64_t origin = pg->win1 >= pg->win0 ? pg->win0 : pg->n ? pg->t[0] : 0;
        char name[512];
        snprintf(name, sizeof(name), "GPU %d%s%s (%s)", pg->index, pg->node ? " on " : "",
                 pg->node ? pg->node : "", pg->name);
        meta(&t, "process_name", pid, 0, name, pid);
        gpu_slices(&t, w, pg, pid, origin);
        counter(&t, pid, "power (W)", "W", pg->t, pg->power, pg->n, origin);
        counter(&t, pid, "gfx clock (MHz)", "MHz", pg->t, pg->clock, pg->n, origin);
        counter(&t, pid, "temperature (C)", "C", pg->t, pg->temp, pg->n, origin);
        if (pg->drv.n)
            counter(&t, pid, "driver power samples (W)", "W", pg->drv.t_ns, pg->drv.power_W,
                    pg->drv.n, origin);
    }
    fprintf(a.fp, "\n],\"otherData\":{\"tool\":\"benchrun energy\",\"time\":\"microseconds from "
                  "each node's first kernel start (CLOCK_BOOTTIME)\",\"slices_merged\":%zu,"
                  "\"slices_dropped\":%zu,\"counter_series_decimated\":%zu}}\n",
            t.merged, t.dropped, t.decimated_series);
    sb_release(&t.scratch);
    if (ferror(a.fp)) {
        fs_atomic_abort(&a);
        return br_error("cannot write '%s'", path);
    }
    return fs_atomic_commit(&a);
}
