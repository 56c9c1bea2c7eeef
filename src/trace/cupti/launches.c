/* launches.c - counter mode: every launch, which ones are profiled, and their rows.
 *
 * Every kernel launch the launch callbacks see (inject.c) becomes a record
 * here, in launch order, numbered per process (the Dispatch_Id of both
 * files). Per sampling unit the k-th launch is profiled when the plan says
 * so (trace/launchplan.h: BENCHRUN_CUPTI_SAMPLE), or always without a plan.
 * A unit is a signature (kernel, grid, block) or, for driver launches of a
 * sampled pass, a signature and parameter key (params.c, trace/paramkey.h):
 * up to MAX_VARIANTS keys per signature, later keys share the signature's
 * own unit. <prefix>_launch_units.csv names the unit of each launch of a
 * keyed unit (Dispatch_Id,Launch_Unit): the reader ranks launches in their
 * units as the plan did (read/extrapolate.h). The range profiler is armed
 * for profiled launches and disarmed before the others (rangeprof.c). Device time: the launch's
 * gpu__time_duration.sum when profiled in a pass that has it, else two CUDA
 * events recorded in its stream around it (stream commands, not kernel code:
 * the counters do not see them). Ranges come back in launch order with the
 * kernel's name; they are joined to the profiled records in order, the names
 * checked, a mismatch resynchronized within a few launches (the join had only
 * positions before, and a kernel no callback announced shifted every later
 * row). A record is written once its device time and (profiled) its values
 * are known: one kernel_trace.csv row for every launch, counter_collection.csv
 * rows for the profiled ones, so memory stays bounded on long runs. Graph
 * launches run an unknown number of kernels: with a plan they are never
 * profiled (their kernels are named in the companion JSON as lacking
 * counters); without one they are profiled as before (one record for the
 * graph, whatever its ranges).
 */
#include "trace/cupti/brcupti.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"

/* Records held before a non-blocking harvest of finished events is tried,
 * and before a blocking one. */
#define HARVEST_SOFT 4096
#define HARVEST_HARD 16384
/* Profiled records searched ahead when a range's name does not match. */
#define JOIN_LOOKAHEAD 8
/* Parameter keys per signature that get a unit of their own (each costs a
 * census of the plan's `first` launches): a kernel whose parameters change
 * at every launch (a seed, a step counter) stops splitting here. */
#define MAX_VARIANTS 16
/* Unmatched ranges named in the companion JSON. */
#define UNMATCHED_EXAMPLES 4

struct rec {
    uint64_t dispatch;
    uint32_t name, sig;
    uint32_t grid[3], block[3], shmem, regs, local;
    uint64_t t0, t1, tid;
    int32_t ev;                /* event pair index, -1: none */
    bool ev_end;               /* the end event was recorded */
    bool open;                 /* between the launch API's entry and exit */
    bool skip;                 /* the launch failed: it ran nothing */
    bool profiled;             /* a range is expected */
    bool joined;               /* its range came (vals) or never will */
    bool tainted;              /* user range: a module was loaded while it was open */
    double dev_ns;             /* NaN until known */
    double *vals;              /* brc_cfg.nmetrics values */
};

struct lctx {
    CUcontext ctx;             /* NULL once finished */
    uint32_t device;
    struct brc_rp_ctx *rp;     /* NULL: no range profiler (not yet, or failed) */
    bool rp_failed;
    struct rec *r;             /* records [head, n) not yet written */
    size_t head, n, cap;
    size_t join;               /* first record that may still wait for a range */
    CUevent *ev;               /* pairs 2i, 2i+1 */
    size_t nev, capev;
    int32_t *free_ev;
    size_t nfree, capfree;
};

struct sig {
    uint32_t name, grid[3], block[3];
    uint64_t pkey;             /* parameter key, 0: the signature's own unit */
    uint32_t variants;         /* (pkey 0) keyed units made of this signature */
    uint64_t launches, next;   /* launches seen, next profiled rank */
};

/* Per kernel name, for the companion JSON. */
struct kstat {
    uint64_t launches, profiled, no_profiler, graph, captured, no_range, range_open;
};

static struct {
    struct lctx **ctxs;
    size_t nctx, capctx;
    struct sig *sigs;
    size_t nsig, capsig;
    uint32_t *slot;            /* signature hash: index + 1 */
    size_t nslot;
    struct kstat *ks;
    size_t nks, capks;
    uint64_t dispatched;
    FILE *cc_fp, *units_fp;
    uint64_t keyed_units, variant_overflow;
    int names_usable;          /* range names: 0 unknown, 1 match kernel names, -1 do not */
    char *name_example;        /* the first range's name and its launch's kernel (JSON) */
    int events_wanted;         /* -1 not decided */
    int dur_idx;               /* gpu__time_duration.sum in the metrics, -1 none */
    uint64_t launches, profiled, counter_rows, trace_rows;
    uint64_t unmatched, no_range, resynced, dropped, captured, graph_unprofiled, failed;
    uint64_t range_open;       /* to be profiled, but another thread's user range was open */
    /* Diagnostics of ranges that came back wrong (JSON; docs/validation.md
     * §13-14): ranges no launch takes, and NaN values. */
    char *unmatched_ex[UNMATCHED_EXAMPLES];
    size_t nunmatched_ex;
    uint64_t nonfinite;        /* counter values NaN or infinite (the launch's values dropped) */
    char *nonfinite_ex;
    uint64_t nonfinite_dropped, tainted_dropped;   /* launches whose values were dropped */
    uint64_t preloaded;        /* module loads brought before a user range (preload) */
    int8_t *written;           /* [metric] 1: its rows are written, 0: not (user-range elapsed) */
    uint64_t events_ns, harvest_ns;   /* time in cuEventRecord and in harvest() (JSON) */
} ll = { .events_wanted = -1, .dur_idx = -1 };

/* The launch this thread has open (between its launch API's entry and exit):
 * launches from several threads (PyTorch's autograd engine launches the
 * backward pass from its own thread) must not update each other's records. */
static __thread struct {
    struct lctx *c;
    uint64_t dispatch;
    CUstream stream;
    bool events;
    bool profiled;             /* its range is open (user ranges) or counted */
    bool pending;              /* to be profiled: its user range is pushed with its function */
    uint64_t loads;            /* brc_modules_loaded() when its range was pushed */
    CUfunction last_f;         /* cuFuncGetAttribute cache of this thread */
    CUcontext last_ctx;
    int regs, smem, local;
} open_;

static uint64_t boot_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct kstat *kstat(uint32_t name)
{
    if (name >= ll.nks) {   /* xgrow does not clear what it adds */
        xgrow((void **)&ll.ks, &ll.capks, (size_t)name + 1, sizeof(*ll.ks));
        memset(ll.ks + ll.nks, 0, ((size_t)name + 1 - ll.nks) * sizeof(*ll.ks));
        ll.nks = (size_t)name + 1;
    }
    return &ll.ks[name];
}

/* ---- contexts and signatures -------------------------------------------------- */

static struct lctx *lctx_get(CUcontext ctx)
{
    for (size_t i = 0; i < ll.nctx; i++)
        if (ll.ctxs[i]->ctx == ctx)
            return ll.ctxs[i];
    struct lctx *c = xcalloc(1, sizeof(*c));
    c->ctx = ctx;
    cuptiGetDeviceId(ctx, &c->device);
    xgrow((void **)&ll.ctxs, &ll.capctx, ll.nctx + 1, sizeof(*ll.ctxs));
    ll.ctxs[ll.nctx++] = c;
    return c;
}

static uint64_t sig_hash(uint32_t name, const uint32_t g[3], const uint32_t b[3], uint64_t pkey)
{
    uint64_t h = (name ^ pkey) * 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 3; i++)
        h = (h ^ g[i] ^ ((uint64_t)b[i] << 32)) * 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

static void sig_rehash(void)
{
    free(ll.slot);
    ll.nslot = ll.nslot ? ll.nslot * 2 : 256;
    ll.slot = xcalloc(ll.nslot, sizeof(*ll.slot));
    for (size_t i = 0; i < ll.nsig; i++) {
        size_t j = sig_hash(ll.sigs[i].name, ll.sigs[i].grid, ll.sigs[i].block, ll.sigs[i].pkey) &
                   (ll.nslot - 1);
        while (ll.slot[j])
            j = (j + 1) & (ll.nslot - 1);
        ll.slot[j] = (uint32_t)i + 1;
    }
}

/* The unit (name, g, b, pkey); NULL when it does not exist and !create. */
static struct sig *sig_lookup(uint32_t name, const uint32_t g[3], const uint32_t b[3], uint64_t pkey,
                              bool create)
{
    if ((ll.nsig + 1) * 2 > ll.nslot)
        sig_rehash();
    size_t j = sig_hash(name, g, b, pkey) & (ll.nslot - 1);
    for (; ll.slot[j]; j = (j + 1) & (ll.nslot - 1)) {
        struct sig *s = &ll.sigs[ll.slot[j] - 1];
        if (s->name == name && s->pkey == pkey && !memcmp(s->grid, g, sizeof(s->grid)) &&
            !memcmp(s->block, b, sizeof(s->block)))
            return s;
    }
    if (!create)
        return NULL;
    xgrow((void **)&ll.sigs, &ll.capsig, ll.nsig + 1, sizeof(*ll.sigs));
    struct sig *s = &ll.sigs[ll.nsig];
    memset(s, 0, sizeof(*s));
    s->name = name;
    s->pkey = pkey;
    memcpy(s->grid, g, sizeof(s->grid));
    memcpy(s->block, b, sizeof(s->block));
    s->next = 1;
    ll.slot[j] = (uint32_t)++ll.nsig;
    return s;
}

/* The sampling unit of a launch: its signature's, or with a parameter key
 * its own while the signature has fewer than MAX_VARIANTS of them. */
static struct sig *sig_get(uint32_t name, const uint32_t g[3], const uint32_t b[3], uint64_t pkey)
{
    struct sig *s = pkey ? sig_lookup(name, g, b, pkey, false) : NULL;
    if (s)
        return s;
    struct sig *coarse = sig_lookup(name, g, b, 0, true);
    if (!pkey)
        return coarse;
    if (coarse->variants >= MAX_VARIANTS) {
        ll.variant_overflow++;
        return coarse;
    }
    coarse->variants++;   /* before the lookup below moves the array */
    ll.keyed_units++;
    return sig_lookup(name, g, b, pkey, true);
}

/* Whether this launch of s is profiled (counts it). */
static bool sig_take(struct sig *s)
{
    uint64_t r = ++s->launches;
    if (!brc_cfg.sampled)
        return true;
    if (r != s->next)
        return false;
    s->next = r == UINT64_MAX ? UINT64_MAX : lp_next(&brc_cfg.plan, r + 1);
    return true;
}

/* ---- events -------------------------------------------------------------------- */

/* gpu__time_duration.sum gives a profiled launch's device time; events are
 * recorded where nothing else gives it: unprofiled launches of a sampled
 * pass, every launch of a pass without that metric (the SASS pass), every
 * launch with user ranges (a range's time spans the push to the pop, not the
 * kernel: NVIDIA developer forum, "Inflated Time Metrics For User Range
 * Mode", CUDA 13.0). */
static bool wants_events(bool profiled)
{
    if (ll.events_wanted < 0) {
        if (!rpt_user_ranges(brc_cfg.toggle))
            for (size_t m = 0; m < brc_cfg.nmetrics; m++)
                if (strcmp(brc_cfg.metrics[m], "gpu__time_duration.sum") == 0)
                    ll.dur_idx = (int)m;
        ll.events_wanted = ll.dur_idx < 0;
    }
    return ll.events_wanted || !profiled;
}

static int32_t event_pair(struct lctx *c)
{
    if (c->nfree)
        return c->free_ev[--c->nfree];
    xgrow((void **)&c->ev, &c->capev, c->nev + 2, sizeof(*c->ev));
    if (cuEventCreate(&c->ev[c->nev], CU_EVENT_DEFAULT) != CUDA_SUCCESS)
        return -1;
    if (cuEventCreate(&c->ev[c->nev + 1], CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
        cuEventDestroy(c->ev[c->nev]);
        return -1;
    }
    c->nev += 2;
    return (int32_t)(c->nev / 2 - 1);
}

static void event_release(struct lctx *c, struct rec *r)
{
    if (r->ev < 0)
        return;
    xgrow((void **)&c->free_ev, &c->capfree, c->nfree + 1, sizeof(*c->free_ev));
    c->free_ev[c->nfree++] = r->ev;
    r->ev = -1;
}

/* Device time from the record's events; false when they are not done yet
 * (block: waits for them). */
static bool event_time(struct lctx *c, struct rec *r, bool block)
{
    if (r->ev < 0 || !isnan(r->dev_ns))
        return true;
    if (!r->ev_end)
        return !r->open || block;   /* an open launch: its end event is still to come */
    CUevent b = c->ev[2 * r->ev], e = c->ev[2 * r->ev + 1];
    if (!block && cuEventQuery(e) == CUDA_ERROR_NOT_READY)
        return false;
    if (block)
        cuEventSynchronize(e);
    float ms = 0;
    if (cuEventElapsedTime(&ms, b, e) == CUDA_SUCCESS)
        r->dev_ns = 1e6 * (double)ms;
    return true;
}

/* ---- rows ------------------------------------------------------------------------ */

static FILE *counter_file(void)
{
    return brc_part_file(&ll.cc_fp, "counter_collection.csv.part", ktw_counter_header);
}

/* Launches of keyed units: the reader ranks them in their own unit. */
static const char units_header[] = "Dispatch_Id,Launch_Unit\n";

static void write_unit_row(const struct rec *r)
{
    if (!ll.sigs[r->sig].pkey)
        return;
    FILE *fp = brc_part_file(&ll.units_fp, "launch_units.csv.part", units_header);
    if (fp)
        fprintf(fp, "%llu,%u\n", (unsigned long long)r->dispatch, r->sig + 1);
}

/* A user range's elapsed counters are not written (rptoggle.h): the
 * launch's device time comes from its events. */
static bool metric_written(size_t m)
{
    if (!ll.written) {
        ll.written = xmalloc(brc_cfg.nmetrics + 1);
        for (size_t i = 0; i < brc_cfg.nmetrics; i++)
            ll.written[i] = !rpt_counter_spans_range(brc_cfg.toggle, brc_cfg.metrics[i]);
    }
    return ll.written[m];
}

static void write_rows(const struct lctx *c, const struct rec *r)
{
    struct ktw_kernel row;
    memset(&row, 0, sizeof(row));
    row.name = brc_kstore_name(r->name);
    row.kernel_id = (uint64_t)r->name + 1;
    row.dispatch_id = r->dispatch;
    row.agent = c->device;
    row.thread_id = r->tid;
    row.start_ns = r->t0;
    row.end_ns = r->t1;
    double dur = r->vals && ll.dur_idx >= 0 ? r->vals[ll.dur_idx] : r->dev_ns;
    if (!isnan(dur) && dur >= 0)
        row.end_ns = r->t0 + (uint64_t)(dur + 0.5);
    row.lds_bytes = r->shmem;
    row.vgpr = r->regs;
    row.scratch_bytes = r->local;
    memcpy(row.grid, r->grid, sizeof(row.grid));
    memcpy(row.block, r->block, sizeof(row.block));
    FILE *tf = brc_cfg.trace && !brc_cfg.activity ? brc_kstore_trace_file() : NULL;
    if (tf) {
        ktw_write_trace_row(tf, &row);
        ll.trace_rows++;
        brc_kstore_count_rows(1);
    }
    write_unit_row(r);
    if (!r->vals)
        return;
    kstat(r->name)->profiled++;
    ll.profiled++;
    FILE *cf = counter_file();
    for (size_t m = 0; cf && m < brc_cfg.nmetrics; m++)
        if (metric_written(m)) {
            ktw_write_counter_row(cf, &row, brc_pid(), brc_cfg.metrics[m], r->vals[m]);
            ll.counter_rows++;
        }
}

/* Writes the records whose rows are complete, in order (block: all of them,
 * waiting for their events; records still without a range give up on it). */
static void harvest(struct lctx *c, bool block)
{
    while (c->head < c->n) {
        struct rec *r = &c->r[c->head];
        if (!r->skip) {
            if ((r->open && !block) || !event_time(c, r, block))
                break;
            if (r->profiled && !r->joined) {
                if (!block)
                    break;
                r->joined = true;   /* no range came for it */
                kstat(r->name)->no_range++;
                ll.no_range++;
            }
            write_rows(c, r);
        }
        event_release(c, r);
        free(r->vals);
        c->head++;
    }
    if (c->join < c->head)
        c->join = c->head;
    if (c->head > 1024 && c->head * 2 > c->n) {   /* drop the written records */
        memmove(c->r, c->r + c->head, (c->n - c->head) * sizeof(*c->r));
        c->n -= c->head;
        c->join -= c->head;
        c->head = 0;
    }
    if (ll.cc_fp)
        fflush(ll.cc_fp);
    if (ll.units_fp)
        fflush(ll.units_fp);
}

/* ---- joining ranges to profiled records ----------------------------------------- */

static bool name_matches(const char *range, const struct rec *r)
{
    const char *m = brc_kstore_mangled(r->name), *d = brc_kstore_name(r->name);
    if (!strcmp(range, m) || !strcmp(range, d))
        return true;
    size_t n = strlen(range);   /* a truncated or parameter-less form */
    return n >= 8 && (!strncmp(d, range, n) || !strncmp(range, d, strlen(d)));
}

/* The next profiled record waiting for a range, from index *at; NULL at the end. */
static struct rec *next_waiting(struct lctx *c, size_t *at)
{
    for (; *at < c->n; (*at)++) {
        struct rec *r = &c->r[*at];
        if (r->profiled && !r->joined && !r->skip)
            return r;
    }
    return NULL;
}

static struct rec *match_ahead(struct lctx *c, size_t from, const char *name, size_t *found)
{
    size_t at = from;
    for (int k = 0; k < JOIN_LOOKAHEAD; k++, at++) {
        struct rec *r = next_waiting(c, &at);
        if (!r)
            return NULL;
        if (name_matches(name, r)) {
            *found = at;
            return r;
        }
    }
    return NULL;
}

static struct rec *rec_find(struct lctx *c, uint64_t dispatch);

/* A decoded range no record takes: counted, the first few named with why. */
static void unmatched(const char *name, const char *why)
{
    ll.unmatched++;
    if (ll.nunmatched_ex < UNMATCHED_EXAMPLES)
        ll.unmatched_ex[ll.nunmatched_ex++] = xasprintf("%.100s (%s)", name ? name : "(no name)", why);
}

/* The range's values become the record's, unless they cannot be the
 * kernel's: then the launch has no values (counted as without a range).
 * That is a user range with a module load in it (the upload went through
 * L2 and DRAM), or one with a written value NaN or infinite (user ranges on
 * the PyTorch steps, H200: every value of some ranges, docs/validation.md
 * §14): a NaN would make every estimate of its kernel NaN. */
static void set_values(struct rec *r, const double *vals)
{
    size_t nm = brc_cfg.nmetrics, bad = 0;
    r->joined = true;
    for (size_t m = 0; m < nm && !r->tainted; m++) {
        if (!metric_written(m) || isfinite(vals[m]))
            continue;
        bad++;
        if (!ll.nonfinite_ex)
            ll.nonfinite_ex = xasprintf("dispatch %llu, %.80s: %s", (unsigned long long)r->dispatch,
                                        brc_kstore_name(r->name), brc_cfg.metrics[m]);
    }
    ll.nonfinite += bad;
    if (r->tainted)
        ll.tainted_dropped++;
    else if (bad)
        ll.nonfinite_dropped++;
    if (r->tainted || bad) {
        kstat(r->name)->no_range++;
        return;
    }
    r->vals = xmalloc((nm ? nm : 1) * sizeof(double));
    memcpy(r->vals, vals, nm * sizeof(double));
}

/* User ranges are named "<dispatch>:<kernel>" (rangeprof.c): joined by the
 * number, whatever their order. A failed launch's range is dropped. */
static void join_by_dispatch(struct lctx *c, size_t n, const double *vals,
                             const char *const *names)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t d;
        bool numbered = rpt_range_dispatch(names[i], &d);
        struct rec *r = numbered ? rec_find(c, d) : NULL;
        if (r && r->skip)
            continue;
        if (!r || !r->profiled || r->joined) {
            unmatched(names[i], !numbered ? "not a dispatch-numbered name"
                                : !r ? "no held launch of that dispatch"
                                : !r->profiled ? "its launch was not profiled" : "its launch has a range");
            continue;
        }
        if (!ll.name_example)
            ll.name_example = xasprintf("%.80s / %.80s", names[i], brc_kstore_mangled(r->name));
        ll.names_usable = 1;
        set_values(r, vals + i * brc_cfg.nmetrics);
    }
}

static void join_values(struct lctx *c)
{
    if (!c->rp)
        return;
    const double *vals;
    const char *const *names;
    size_t n = brc_rp_take(c->rp, &vals, &names), nm = brc_cfg.nmetrics;
    if (rpt_user_ranges(brc_cfg.toggle)) {
        join_by_dispatch(c, n, vals, names);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t at = c->join;
        struct rec *r = next_waiting(c, &at);
        if (!r) {
            unmatched(names[i], "no launch waits for a range");   /* a kernel no callback announced */
            continue;
        }
        const char *name = names[i];
        if (name && !ll.name_example)
            ll.name_example = xasprintf("%.80s / %.80s", name, brc_kstore_mangled(r->name));
        if (name && ll.names_usable >= 0 && !name_matches(name, r)) {
            size_t found;
            struct rec *m = match_ahead(c, at, name, &found);
            if (m) {   /* the records before it got no range */
                for (size_t j = at; j < found; j++)
                    if (c->r[j].profiled && !c->r[j].joined) {
                        c->r[j].joined = true;
                        kstat(c->r[j].name)->no_range++;
                        ll.no_range++;
                    }
                ll.resynced++;
                ll.names_usable = 1;
                r = m;
                at = found;
            } else if (ll.names_usable == 0) {
                ll.names_usable = -1;   /* not the kernel's name: positions only */
            } else {
                unmatched(name, "its name matches no waiting launch");   /* a kernel not announced */
                continue;
            }
        } else if (name && ll.names_usable == 0) {
            ll.names_usable = 1;
        }
        set_values(r, vals + i * nm);
        c->join = at + 1;
    }
}

/* ---- launch callbacks ------------------------------------------------------------ */

/* A launch into a stream that is being captured is recorded into a graph and
 * runs nothing now: no range, and no event may be recorded into that stream
 * (it would become a node of the application's graph). */
static bool stream_capturing(const struct brc_launch *l)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!l->has_stream)
        return false;
    if (cuStreamIsCapturing(l->stream, &st) != CUDA_SUCCESS)
        return true;   /* e.g. the legacy stream during a global capture: the launch fails */
    return st != CU_STREAM_CAPTURE_STATUS_NONE;
}

static void profiler_failed(struct lctx *c)
{
    c->rp = NULL;
    c->rp_failed = true;
}

/* Arms or disarms the context's profiler for this launch (dispatch: its id,
 * name: its kernel); whether it is profiled in the end (*range_open: it was
 * to be, but another thread's user range was open). */
static bool steer_profiler(struct lctx *c, CUcontext ctx, bool late, bool graph, bool want,
                           uint64_t dispatch, uint32_t name, bool *range_open)
{
    *range_open = false;
    if (late)   /* already submitted: it became a range if auto ranges were being taken */
        return brc_rp_count_late(c->rp);
    if (want && !c->rp && !c->rp_failed) {
        c->rp = brc_rp_get(ctx);
        c->rp_failed = !c->rp;
    }
    if (!c->rp)
        return false;
    int rc = want ? brc_rp_arm(c->rp, graph, dispatch, brc_kstore_mangled(name))
                  : brc_rp_disarm(c->rp);
    join_values(c);   /* a disarm, or the decode of a full image, gave values */
    if (rc < 0) {
        profiler_failed(c);
        return false;
    }
    *range_open = rc > 0;
    return want && rc == 0;
}

/* Counts a launch that was to be profiled and is not. */
static void count_unprofiled(uint32_t name, bool want, bool profiled, bool range_open, bool late)
{
    if (range_open) {
        ll.range_open++;
        kstat(name)->range_open++;
    } else if (want && !profiled && !late) {
        ll.dropped++;
        kstat(name)->no_profiler++;
    }
}

/* Lazy loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2)
 * loads a function at its first launch, inside the launch call: inside its
 * user range, whose L2 and DRAM counters then count the upload (on the H200
 * the first launch of a PyTorch kernel showed 245x its L2 bytes). So the
 * function is loaded before the push (cuFuncLoad, CUDA 12.4+, does nothing
 * to a loaded one). A CUkernel passed as a CUfunction (cuBLAS 13) is loaded
 * through its function in the current context. */
static void preload(CUfunction f)
{
    uint64_t loads = brc_modules_loaded();
    CUfunctionLoadingState st;
    CUfunction kf = NULL;
    if (cuFuncIsLoaded(&st, f) != CUDA_SUCCESS) {   /* cuKernelGetFunction may load it already */
        if (cuKernelGetFunction(&kf, (CUkernel)f) != CUDA_SUCCESS || cuFuncIsLoaded(&st, kf) != CUDA_SUCCESS)
            kf = NULL, st = CU_FUNCTION_LOADING_STATE_LOADED;
        f = kf;
    }
    if (f && st == CU_FUNCTION_LOADING_STATE_UNLOADED)
        cuFuncLoad(f);
    ll.preloaded += brc_modules_loaded() != loads;   /* a module load we brought forward */
}

void brc_launches_enter(CUcontext ctx, const struct brc_launch *l)
{
    open_.c = NULL;
    if (brc_finished() || !ctx)
        return;
    uint32_t name = brc_kstore_intern(l->symbol);
    if (stream_capturing(l)) {
        ll.captured++;
        kstat(name)->captured++;
        return;
    }
    struct lctx *c = lctx_get(ctx);
    struct sig *s = sig_get(name, l->grid, l->block, l->param_key);
    bool want = sig_take(s);
    if (want && l->graph && brc_cfg.sampled) {
        want = false;   /* its kernels would be ranges no record stands for */
        ll.graph_unprofiled++;
        kstat(name)->graph++;
    }
    /* A user range is pushed once the launch's function is known and loaded
     * (brc_launches_function: the driver call, inside a runtime launch). */
    bool defer = want && rpt_user_ranges(brc_cfg.toggle) && !l->late && !l->graph;
    bool range_open = false;
    bool profiled = !defer && steer_profiler(c, ctx, l->late, l->graph, want, ll.dispatched + 1, name,
                                             &range_open);
    if (!defer)
        count_unprofiled(name, want, profiled, range_open, l->late);
    ll.launches++;
    kstat(name)->launches++;
    xgrow((void **)&c->r, &c->cap, c->n + 1, sizeof(*c->r));
    struct rec *r = &c->r[c->n++];
    memset(r, 0, sizeof(*r));
    r->dispatch = ++ll.dispatched;
    r->name = name;
    r->sig = (uint32_t)(s - ll.sigs);
    memcpy(r->grid, l->grid, sizeof(r->grid));
    memcpy(r->block, l->block, sizeof(r->block));
    r->shmem = l->shmem;
    r->tid = (uint64_t)brc_gettid();
    r->dev_ns = NAN;
    r->profiled = profiled;
    r->ev = -1;
    r->open = !l->late;
    open_.c = c;
    open_.dispatch = r->dispatch;
    open_.stream = l->stream;
    open_.profiled = profiled;
    open_.pending = defer;
    open_.events = l->has_stream && !l->late && wants_events(profiled);
    uint64_t now = boot_ns();
    if (open_.events) {
        BRC_PHASE("recording the launch's begin event (cuEventRecord)");
        r->ev = event_pair(c);
        if (r->ev >= 0 && cuEventRecord(c->ev[2 * r->ev], l->stream) != CUDA_SUCCESS)
            event_release(c, r);
        uint64_t t = boot_ns();   /* the launch's host start, after its begin event */
        ll.events_ns += t - now;
        now = t;
    }
    r->t0 = r->t1 = now;
    BRC_DEBUG("launch d=%llu profiled=%d want=%d open=%d late=%d graph=%d tid=%llu stream=%p key=%llx %s",
              (unsigned long long)r->dispatch, profiled, want, range_open, l->late, l->graph,
              (unsigned long long)r->tid, (void *)l->stream, (unsigned long long)l->param_key,
              brc_kstore_name(name));
}

/* The held record of a dispatch (records are in dispatch order); NULL: none. */
static struct rec *rec_find(struct lctx *c, uint64_t dispatch)
{
    size_t lo = c->head, hi = c->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->r[mid].dispatch < dispatch)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n && c->r[lo].dispatch == dispatch ? &c->r[lo] : NULL;
}

/* The open launch's record. */
static struct rec *open_rec(struct lctx *c)
{
    return rec_find(c, open_.dispatch);
}

/* The open launch's call returned: its user range closed, or its auto range
 * uncounted if it failed. */
static void launch_done(struct lctx *c, bool launch_failed)
{
    if (open_.profiled && c->rp && brc_rp_launch_done(c->rp, launch_failed) != 0)
        profiler_failed(c);
    open_.profiled = false;
}

void brc_launches_exit(CUcontext ctx, bool launch_failed)
{
    struct lctx *c = open_.c;
    open_.c = NULL;
    if (brc_finished() || !ctx || !c || !c->ctx)
        return;   /* !c->ctx: its context was destroyed and written meanwhile */
    struct rec *r = open_rec(c);
    if (!r) {   /* written meanwhile by another thread's blocking harvest */
        launch_done(c, launch_failed);
        return;
    }
    r->open = false;
    if (open_.pending) {   /* no driver call named its function: not profiled */
        open_.pending = false;
        count_unprofiled(r->name, true, false, false, false);
    }
    BRC_DEBUG("launch_exit d=%llu failed=%d", (unsigned long long)r->dispatch, launch_failed);
    if (launch_failed) {   /* nothing ran: forget the launch (an auto range made no range) */
        r->skip = true;
        launch_done(c, true);
        ll.failed++;
        return;
    }
    r->t1 = boot_ns();
    /* a lazily loaded module (the first launch of its kernels) is loaded
     * inside the launch call, after the push */
    if (open_.profiled && rpt_user_ranges(brc_cfg.toggle) && brc_modules_loaded() != open_.loads)
        r->tainted = true;
    if (open_.events && r->ev >= 0) {
        r->ev_end = cuEventRecord(c->ev[2 * r->ev + 1], open_.stream) == CUDA_SUCCESS;
        ll.events_ns += boot_ns() - r->t1;
    }
    launch_done(c, false);   /* after the end event: a sync before a pop must not delay it */
    if (c->n - c->head >= HARVEST_SOFT) {
        bool block = c->n - c->head >= HARVEST_HARD;
        if (block && c->rp) {   /* a deferred decode first: the records wait for its ranges */
            if (brc_rp_flush(c->rp) != 0)
                profiler_failed(c);
            join_values(c);
        }
        BRC_PHASE("writing finished launches (cuEventQuery/ElapsedTime)");
        uint64_t t0 = boot_ns();
        harvest(c, block);
        ll.harvest_ns += boot_ns() - t0;
        BRC_PHASE(NULL);
    }
}

/* One integer attribute of a launched function, 0 when unknown. f may be a
 * CUkernel cast to CUfunction (cuda.h, cuLaunchKernel: "context-less kernel
 * CUkernel ... by casting to CUfunction"), as the CUDA 12+ runtime's library
 * loading and cuBLAS 13 (nvjet kernels) may pass; cuFuncGetAttribute fails on
 * one. Counter rows of the H200 runs had 0 registers for every runtime launch
 * (at::native kernels, calib_reglimit: its register limit read 64 warps
 * instead of 16) and every nvjet kernel; cuDNN's driver launches had theirs.
 * cuKernelGetAttribute answers for a CUkernel on a device whether or not it
 * is loaded in the context yet (cuda.h, CUDA 12.0+). */
static int func_attr(CUfunction f, CUfunction_attribute a, bool have_dev, CUdevice dev)
{
    int v = 0;
    if (cuFuncGetAttribute(&v, a, f) == CUDA_SUCCESS)
        return v;
    v = 0;
    if (have_dev && cuKernelGetAttribute(&v, a, (CUkernel)f, dev) == CUDA_SUCCESS)
        return v;
    return 0;
}

/* Registers, static shared and local memory of the launch's function: the
 * activity records are off in counter mode, so they come from the driver
 * (the launch's context is current in its launch callback). */
void brc_launches_function(CUcontext ctx, CUfunction f)
{
    struct lctx *c = open_.c;
    if (brc_finished() || !ctx || !f || !c || c->ctx != ctx)
        return;
    struct rec *r = open_rec(c);
    if (!r)
        return;
    BRC_DEBUG("function d=%llu f=%p", (unsigned long long)r->dispatch, (void *)f);
    if (open_.pending) {   /* the user range, pushed now */
        open_.pending = false;
        BRC_PHASE("loading the launched function before its user range (cuFuncLoad)");
        preload(f);
        bool range_open;
        bool profiled = steer_profiler(c, ctx, false, false, true, r->dispatch, r->name, &range_open);
        count_unprofiled(r->name, true, profiled, range_open, false);
        r->profiled = open_.profiled = profiled;
        open_.loads = brc_modules_loaded();
    }
    if (f != open_.last_f || ctx != open_.last_ctx) {   /* per thread: its last function */
        CUdevice dev = 0;
        bool have_dev = cuCtxGetDevice(&dev) == CUDA_SUCCESS;
        open_.regs = func_attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS, have_dev, dev);
        open_.smem = func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, have_dev, dev);
        open_.local = func_attr(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, have_dev, dev);
        open_.last_f = f;
        open_.last_ctx = ctx;
    }
    r->regs = (uint32_t)open_.regs;
    r->shmem += (uint32_t)open_.smem;
    r->local = (uint32_t)open_.local;
}

/* ---- the end ------------------------------------------------------------------------- */

/* Everything of one context: its last ranges, its records, its events. */
static void finish_ctx(struct lctx *c)
{
    if (!c->ctx)
        return;
    if (c->rp) {
        brc_rp_finish_ctx(c->rp);   /* decodes what was taken */
        join_values(c);
    }
    harvest(c, true);
    for (size_t i = 0; i < c->nev; i++)
        cuEventDestroy(c->ev[i]);
    c->nev = c->nfree = 0;
    c->rp = NULL;
    c->ctx = NULL;   /* the handle may be reused by a new context */
}

void brc_launches_on_ctx_destroy(CUcontext ctx)
{
    for (size_t i = 0; i < ll.nctx; i++)
        if (ll.ctxs[i]->ctx == ctx)
            finish_ctx(ll.ctxs[i]);
    if (open_.c && !open_.c->ctx)
        open_.c = NULL;
}

void brc_launches_finish(void)
{
    for (size_t i = 0; i < ll.nctx; i++)
        finish_ctx(ll.ctxs[i]);
    brc_rp_finish();
    brc_part_close(&ll.units_fp, "launch_units.csv");   /* only when a unit was keyed */
    if (counter_file())   /* written even without rows: the pass ran */
        brc_part_close(&ll.cc_fp, "counter_collection.csv");
}

static void json_plan(FILE *fp)
{
    char plan[96];
    if (brc_cfg.sampled) {
        lp_plan_format(&brc_cfg.plan, plan, sizeof(plan));
        fprintf(fp, "  \"launch_sampling\": {\"launches\": \"sampled\", \"plan\": \"%s\", \"first\": %llu, "
                    "\"every\": %llu, \"blocks_per_phase\": %llu, \"seed\": %llu, ",
                plan, (unsigned long long)brc_cfg.plan.first, (unsigned long long)brc_cfg.plan.every,
                (unsigned long long)brc_cfg.plan.blocks_per_phase,
                (unsigned long long)brc_cfg.plan.seed);
    } else {   /* the units too: analyze --resample reads the run in them */
        fputs("  \"launch_sampling\": {\"launches\": \"all\", ", fp);
    }
    fprintf(fp, "\"unit\": \"%s\", \"units\": %zu, \"parameter_units\": %llu, "
                "\"parameter_keys_past_limit\": %llu},\n",
            brc_cfg.param_units ? "signature+parameters" : "signature", ll.nsig,
            (unsigned long long)ll.keyed_units, (unsigned long long)ll.variant_overflow);
    if (brc_cfg.param_units)
        brc_params_json(fp);
}

/* Kernels some of whose launches have no counter rows, and why (not the
 * launches a sampled pass chose not to profile). */
static void json_missing(FILE *fp)
{
    fputs("  \"kernels_without_counters\": [", fp);
    int n = 0;
    for (size_t i = 0; i < ll.nks; i++) {
        const struct kstat *k = &ll.ks[i];
        uint64_t missing = k->no_profiler + k->graph + k->captured + k->no_range + k->range_open;
        if (!missing)
            continue;
        fputs(n++ ? ",\n    {\"kernel\": " : "\n    {\"kernel\": ", fp);
        brc_json_str(fp, brc_kstore_name((uint32_t)i));
        fprintf(fp, ", \"launches\": %llu, \"profiled\": %llu, \"profiler_failed\": %llu, "
                    "\"graph_launches\": %llu, \"captured\": %llu, \"no_range\": %llu, "
                    "\"user_range_open\": %llu}",
                (unsigned long long)k->launches, (unsigned long long)k->profiled,
                (unsigned long long)k->no_profiler, (unsigned long long)k->graph,
                (unsigned long long)k->captured, (unsigned long long)k->no_range,
                (unsigned long long)k->range_open);
    }
    fputs(n ? "\n  ],\n" : "],\n", fp);
}

void brc_launches_json(FILE *fp)
{
    json_plan(fp);
    fputs("  \"range_name_example\": ", fp);
    if (ll.name_example)
        brc_json_str(fp, ll.name_example);
    else
        fputs("null", fp);
    fputs(",\n", fp);
    fprintf(fp, "  \"launches\": %llu,\n  \"launches_profiled\": %llu,\n"
                "  \"counter_rows\": %llu,\n  \"trace_rows\": %llu,\n"
                "  \"ranges_unmatched\": %llu,\n  \"launches_without_range\": %llu,\n"
                "  \"join_resynchronized\": %llu,\n  \"range_names\": \"%s\",\n"
                "  \"launches_dropped\": %llu,\n  \"launches_captured\": %llu,\n"
                "  \"launches_failed\": %llu,\n  \"graph_launches_unprofiled\": %llu,\n"
                "  \"launches_user_range_open\": %llu,\n",
            (unsigned long long)ll.launches, (unsigned long long)ll.profiled,
            (unsigned long long)ll.counter_rows, (unsigned long long)ll.trace_rows,
            (unsigned long long)ll.unmatched, (unsigned long long)ll.no_range,
            (unsigned long long)ll.resynced,
            ll.names_usable <= 0 ? (ll.names_usable < 0 ? "not kernel names" : "none")
            : rpt_user_ranges(brc_cfg.toggle) ? "dispatch ids" : "kernel names",
            (unsigned long long)ll.dropped, (unsigned long long)ll.captured,
            (unsigned long long)ll.failed, (unsigned long long)ll.graph_unprofiled,
            (unsigned long long)ll.range_open);
    fprintf(fp, "  \"launch_cost_ms\": {\"events\": %.1f, \"harvest\": %.1f},\n",
            1e-6 * (double)ll.events_ns, 1e-6 * (double)ll.harvest_ns);
    fputs("  \"ranges_unmatched_examples\": [", fp);
    for (size_t i = 0; i < ll.nunmatched_ex; i++) {
        fputs(i ? ", " : "", fp);
        brc_json_str(fp, ll.unmatched_ex[i]);
    }
    fprintf(fp, "],\n  \"launches_nonfinite_dropped\": %llu,\n"
                "  \"launches_module_load_in_range\": %llu,\n  \"functions_preloaded\": %llu,\n",
            (unsigned long long)ll.nonfinite_dropped, (unsigned long long)ll.tainted_dropped,
            (unsigned long long)ll.preloaded);
    fprintf(fp, "  \"values_nonfinite\": %llu,\n  \"values_nonfinite_example\": ",
            (unsigned long long)ll.nonfinite);
    if (ll.nonfinite_ex)
        brc_json_str(fp, ll.nonfinite_ex);
    else
        fputs("null", fp);
    fputs(",\n", fp);
    json_missing(fp);
}
