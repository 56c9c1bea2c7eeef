/* prun.c - a power run read for the energy analysis (contract in prun.h):
 * the telemetry files into arrays, their driver power files, the kernel trace
 * with its launches, the GPU matching per node, and the energy module's
 * inputs. */
#include "read/prun.h"

#include "read/nodepath.h"
#include "read/telemetry.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



/* ---- telemetry ---- */

struct cols {
    size_t n, cap;
    int64_t *t;
    double *sock, *inst, *clock, *temp, *energy;
    int64_t *src;
};

static void cols_push(struct cols *c, int64_t t, double sock, double inst, double clk, double temp,
                      double e, int64_t src)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4096;
        c->t = xrealloc(c->t, c->cap * sizeof(*c->t));
        c->src = xrealloc(c->src, c->cap * sizeof(*c->src));
        double **d[] = { &c->sock, &c->inst, &c->clock, &c->temp, &c->energy };
        for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
            *d[i] = xrealloc(*d[i], c->cap * sizeof(double));
    }
    c->t[c->n] = t, c->sock[c->n] = sock, c->inst[c->n] = inst, c->clock[c->n] = clk;
    c->temp[c->n] = temp, c->energy[c->n] = e, c->src[c->n] = src;
    c->n++;
}

static bool any_finite(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            return true;
    return false;
}

/* GPU index: metadata device (device_id in the seed's files), else the
 * number before ".csv". */
static int gpu_index(const struct br_telem *t, const char *name)
{
    const char *v = br_telem_meta(t, "device");
    if (!v)
        v = br_telem_meta(t, "device_id");
    char *end;
    long x = v ? strtol(v, &end, 10) : -1;
    if (v && end != v && *end == '\0' && x >= 0 && x < 1 << 20)
        return (int)x;
    const char *dot = strrchr(name, '.'), *p = dot;
    while (p && p > name && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return p && p < dot ? atoi(p) : 0;
}

/* Energy readings: each new finite energy_J value at its source time when
 * that is usable (finite, not before the previous reading), else the row's. */
static void readings(struct prun_gpu *g, const struct cols *c)
{
    g->et = xmalloc((c->n + 1) * sizeof(*g->et));
    g->ev = xmalloc((c->n + 1) * sizeof(*g->ev));
    g->ne = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!isfinite(c->energy[i]) || (g->ne && c->energy[i] == g->ev[g->ne - 1]))
            continue;
        int64_t t = c->src[i] > 0 ? c->src[i] : c->t[i];
        if (g->ne && t <= g->et[g->ne - 1])
            t = c->t[i];
        if (g->ne && t <= g->et[g->ne - 1])
            continue;
        g->et[g->ne] = t, g->ev[g->ne++] = c->energy[i];
    }
}

static int read_telemetry(struct prun_gpu *g)
{
    struct br_telem *t = br_telem_open(g->path);
    if (!t)
        return -1;
    g->index = gpu_index(t, g->name);
    int xe = br_telem_want(t, "energy_J"), xs = br_telem_want(t, "source_timestamp_ns");
    struct cols c = { 0 };
    struct br_telem_row row;
    int rc;
    while ((rc = br_telem_next(t, &row)) > 0) {
        double hot = row.v[TELEM_HOTSPOT_TEMP], src = xs >= 0 ? row.extra[xs] : NAN;
        cols_push(&c, row.timestamp_ns, row.v[TELEM_SOCKET_POWER], row.v[TELEM_INST_POWER],
                  row.v[TELEM_GFX_CLOCK], isfinite(hot) ? hot : row.v[TELEM_EDGE_TEMP],
                  xe >= 0 ? row.extra[xe] : NAN,
                  isfinite(src) && src > 0 && src < 9.2e18 ? (int64_t)src : 0);
    }
    g->truncated = br_telem_truncated(t);
    br_telem_close(t);
    bool sock = any_finite(c.sock, c.n), inst = any_finite(c.inst, c.n);
    bool use_inst = xe < 0 ? inst || !sock : !sock && inst;
    g->power_col = use_inst ? "inst_power_W" : "current_socket_power_W";
    g->n = c.n;
    g->t = c.t;
    g->power = use_inst ? c.inst : c.sock;
    free(use_inst ? c.sock : c.inst);
    g->clock = c.clock;
    g->temp = c.temp;
    readings(g, &c);
    free(c.energy);
    free(c.src);
    return rc < 0 ? -1 : 0;
}

/* <stem>_driver_power.csv next to <stem>.csv. */
static int read_driver(struct prun_gpu *g)
{
    size_t n = strlen(g->path);
    char *p = xasprintf("%.*s_driver_power.csv", (int)(n > 4 ? n - 4 : n), g->path);
    if (!fs_exists(p)) {
        free(p);
        return 0;
    }
    g->drv_path = p;
    return br_drvpower_read(p, &g->drv);
}

char **prun_find_telemetry(const char *dir)
{
    char **all = rp_find_files(dir, ".csv");
    size_t n = 0;
    for (char **f = all; *f; f++) {
        if (telem_is_sample_file(*f))
            all[n++] = *f;
        else
            free(*f);
    }
    all[n] = NULL;
    return all;
}

static int cmp_gpu(const void *a, const void *b)
{
    const struct prun_gpu *x = a, *y = b;
    int c = strcmp(x->node ? x->node : "", y->node ? y->node : "");
    return c ? c : x->index - y->index;
}

/* The energy module's class of a copy direction; false for host to host. */
static bool copy_class(enum ct_dir d, enum en_copy *c)
{
    switch (d) {
    case CT_H2D: *c = EN_COPY_H2D; return true;
    case CT_D2H: *c = EN_COPY_D2H; return true;
    case CT_D2D: *c = EN_COPY_D2D; return true;
    case CT_P2P: *c = EN_COPY_P2P; return true;
    case CT_SET: *c = EN_COPY_SET; return true;
    default: return false;
    }
}

/* The trace's copies on the GPUs (keys) rp_power_add_copies charged them to. */
static void read_copies(struct prun *pr)
{
    const struct rp_copies *cp = &pr->pw->copies;
    size_t host = 0;
    for (size_t i = 0; i < cp->n; i++) {
        const struct ct_copy *c = &cp->v[i].c;
        enum en_copy cls;
        int32_t agent[2];
        int n = rp_copy_gpus(c, agent);
        if (!copy_class(c->dir, &cls) || n == 0) {
            host++;
            continue;
        }
        for (int a = 0; a < n; a++) {
            uint32_t k = rp_copy_gpu(pr->pw, &cp->v[i], agent[a]);
            if (k >= pr->nkeys)
                continue;   /* not charged: cannot happen after rp_power_add_copies */
            xgrow((void **)&pr->copy, &pr->copy_cap, pr->ncopies + 1, sizeof(*pr->copy));
            pr->copy[pr->ncopies++] = (struct prun_copy){ k, (int64_t)c->start_ns,
                                                          (int64_t)c->end_ns, (uint8_t)cls };
        }
    }
    if (host)
        strv_pushf(&pr->warn, "%zu host-to-host copies left out (no GPU runs them)", host);
}

int prun_read(struct prun *pr, const char *dir, const char *ktrace, char *const *telemetry,
              struct intern *names, const struct rp_power *loaded)
{
    memset(pr, 0, sizeof(*pr));
    strv_init(&pr->warn);
    pr->pw = &pr->own;
    char **found = telemetry ? NULL : prun_find_telemetry(dir);
    char *const *files = telemetry ? telemetry : found;
    size_t n = 0;
    while (files[n])
        n++;
    pr->gpu = xcalloc(n + 1, sizeof(*pr->gpu));
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct prun_gpu *g = &pr->gpu[pr->ngpus++];
        const char *b = strrchr(files[i], '/');
        g->path = xstrdup(files[i]);
        g->name = xstrdup(b ? b + 1 : files[i]);
        g->node = rp_telem_node(files[i]);
        g->win1 = -1;
        rc = read_telemetry(g);
        if (rc == 0)
            rc = read_driver(g);
    }
    str_array_free(found);
    if (rc == 0 && n == 0)
        rc = br_error("%s: no telemetry file (profiling_result_*.csv)", dir);
    qsort(pr->gpu, pr->ngpus, sizeof(*pr->gpu), cmp_gpu);
    const char *kt = ktrace ? ktrace : dir;
    /* A trace of copies alone (a workload without kernels) is a trace too. */
    char **traces = rc == 0 && !loaded ? rp_find_traces(kt) : NULL;
    char **copies = rc == 0 && !loaded && !traces[0] ? rp_find_copies(kt) : NULL;
    if (rc == 0 && loaded) {
        pr->have_trace = true;
        pr->pw = loaded;
    } else if (rc == 0 && (traces[0] || (copies && copies[0]) || ktrace)) {
        pr->have_trace = true;
        rc = rp_power_load_launches(&pr->own, names, kt);
    } else if (rc == 0) {
        strv_pushf(&pr->warn, "%s: no *kernel_trace.csv, *memory_copy_trace.csv or *"
                   RP_ROCPD_SUFFIX ": all energy is idle, no kernel attribution", kt);
    }
    str_array_free(traces);
    str_array_free(copies);
    const struct rp_power *pw = pr->pw;
    pr->key = xcalloc(pw->ngpus + 1, sizeof(*pr->key));
    for (uint32_t k = 0; k < pw->ngpus; k++)
        pr->key[pr->nkeys++] = (struct prun_key){ rp_gpu_path(pw, &pw->gpu[k]), pw->gpu[k].agent,
                                                  -1, EN_MATCH_NONE, NAN };
    if (rc == 0)
        read_copies(pr);
    return rc;
}

/* ---- matching ---- */

/* Activity of every key, sorted by start. */
struct key_act {
    struct en_act *a;
    size_t n, cap;
};

static void ka_push(struct key_act *k, struct en_act a)
{
    xgrow((void **)&k->a, &k->cap, k->n + 1, sizeof(*k->a));
    k->a[k->n++] = a;
}

static int cmp_act(const void *a, const void *b)
{
    const struct en_act *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

static struct key_act *key_activity(const struct prun *pr)
{
    struct key_act *ka = xcalloc(pr->nkeys + 1, sizeof(*ka));
    for (size_t i = 0; i < pr->pw->nlaunch; i++) {
        const struct rp_launch *l = &pr->pw->launch[i];
        ka_push(&ka[l->gpu], (struct en_act){ l->start_ns, l->end_ns, l->kernel, EN_KERNEL });
    }
    for (size_t i = 0; i < pr->ncopies; i++) {
        const struct prun_copy *c = &pr->copy[i];
        ka_push(&ka[c->key], (struct en_act){ c->start_ns, c->end_ns, c->cls, EN_COPY });
    }
    for (size_t k = 0; k < pr->nkeys; k++)
        if (ka[k].n)
            qsort(ka[k].a, ka[k].n, sizeof(*ka[k].a), cmp_act);
    return ka;
}

/* The node group of every key (index of the first GPU of its node), -1 when
 * its trace lies in no telemetry node's folder. Without node folders at all,
 * every key is in the one group (first GPU 0). */
static bool key_groups(const struct prun *pr, const char *root, int *grp)
{
    bool by_node = false;
    for (size_t k = 0; k < pr->nkeys; k++) {
        grp[k] = -1;
        for (size_t g = 0; g < pr->ngpus && grp[k] < 0; g++)
            if (pr->gpu[g].node &&
                rp_path_in_node(root, pr->key[k].path, pr->gpu[g].node))
                grp[k] = (int)g, by_node = true;
    }
    if (!by_node)
        for (size_t k = 0; k < pr->nkeys; k++)
            grp[k] = 0;
    return by_node;
}

/* First GPU of g's node group (all of them when keys are not by node). */
static size_t group_of(const struct prun *pr, size_t g, bool by_node)
{
    if (!by_node)
        return 0;
    size_t f = g;
    while (f > 0 && pr->gpu[f - 1].node && pr->gpu[g].node &&
           strcmp(pr->gpu[f - 1].node, pr->gpu[g].node) == 0)
        f--;
    return f;
}

static void match_group(struct prun *pr, size_t g0, size_t ng, const int *grp, struct key_act *ka)
{
    size_t nk = 0;
    size_t *kidx = xmalloc((pr->nkeys + 1) * sizeof(*kidx));
    for (size_t k = 0; k < pr->nkeys; k++)
        if (grp[k] == (int)g0)
            kidx[nk++] = k;
    struct en_trace_gpu *tk = xcalloc(nk + 1, sizeof(*tk));
    struct en_series *ps = xcalloc(ng + 1, sizeof(*ps));
    for (size_t i = 0; i < nk; i++)
        tk[i] = (struct en_trace_gpu){ pr->key[kidx[i]].agent, ka[kidx[i]].a, ka[kidx[i]].n };
    for (size_t j = 0; j < ng; j++)
        ps[j] = (struct en_series){ pr->gpu[g0 + j].n, pr->gpu[g0 + j].t, pr->gpu[g0 + j].power };
    int *tel = xmalloc((nk + 1) * sizeof(*tel));
    double *r = xmalloc((nk + 1) * sizeof(*r));
    enum en_match_how how = en_match(tk, nk, ps, ng, tel, r);
    int64_t w0 = INT64_MAX, w1 = INT64_MIN;
    for (size_t i = 0; i < nk; i++) {
        struct prun_key *key = &pr->key[kidx[i]];
        key->tel = tel[i] >= 0 ? (int)g0 + tel[i] : -1;
        key->how = how, key->r = r[i];
        for (size_t a = 0; a < ka[kidx[i]].n; a++) {
            w0 = ka[kidx[i]].a[a].start_ns < w0 ? ka[kidx[i]].a[a].start_ns : w0;
            w1 = ka[kidx[i]].a[a].end_ns > w1 ? ka[kidx[i]].a[a].end_ns : w1;
        }
    }
    for (size_t j = 0; j < ng; j++)
        pr->gpu[g0 + j].win0 = w0, pr->gpu[g0 + j].win1 = w1;
    if (how == EN_MATCH_CORRELATION)
        strv_pushf(&pr->warn, "%s%s: the Agent_Ids of the trace do not tell its %zu GPU(s) "
                   "apart on %zu telemetry files: matched by busy/power correlation",
                   pr->gpu[g0].node ? "node " : "", pr->gpu[g0].node ? pr->gpu[g0].node : "the run",
                   nk, ng);
    free(kidx);
    free(tk);
    free(ps);
    free(tel);
    free(r);
}

/* Each GPU's activity: the keys matched to it, merged and sorted. */
static void gpu_activity(struct prun *pr, struct key_act *ka)
{
    for (size_t k = 0; k < pr->nkeys; k++) {
        int t = pr->key[k].tel;
        if (t < 0) {
            if (ka[k].n)
                strv_pushf(&pr->warn, "%s (agent %llu): no telemetry file of its node: its %zu "
                           "launch(es) get no energy", pr->key[k].path,
                           (unsigned long long)pr->key[k].agent, ka[k].n);
            continue;
        }
        struct prun_gpu *g = &pr->gpu[t];
        if (!ka[k].n)
            continue;
        g->act = xrealloc(g->act, (g->nact + ka[k].n + 1) * sizeof(*g->act));
        memcpy(g->act + g->nact, ka[k].a, ka[k].n * sizeof(*g->act));
        g->nact += ka[k].n;
    }
    for (size_t g = 0; g < pr->ngpus; g++)
        if (pr->gpu[g].nact)
            qsort(pr->gpu[g].act, pr->gpu[g].nact, sizeof(*pr->gpu[g].act), cmp_act);
}

/* ---- fit windows ---- */

static void windows_of(const struct prun_gpu *g, enum en_src s, struct en_wbuf *w)
{
    memset(w, 0, sizeof(*w));
    if (s == EN_SRC_COUNTER) {
        struct en_series e = { g->ne, g->et, g->ev };
        en_windows_from_counter(&e, 5, w);
    } else if (s == EN_SRC_DRIVER) {
        double *v = xmalloc((g->drv.n + 1) * sizeof(*v));
        for (size_t i = 0; i < g->drv.n; i++)
            v[i] = g->drv.gap_before[i] ? NAN : g->drv.power_W[i];
        struct en_series p = { g->drv.n, g->drv.t_ns, v };
        en_windows_from_power(&p, 0, 5, w);
        free(v);
    } else if (s == EN_SRC_POWER) {
        /* A sensor refreshing slower than it is sampled holds its values. */
        struct en_series p = { g->n, g->t, g->power };
        int64_t r = en_refresh_ns(&p), dt = en_sample_ns(&p);
        en_windows_from_power(&p, r > dt + dt / 2 ? r : 0, 5, w);
    }
}

static size_t inside(const struct en_wbuf *w, int64_t w0, int64_t w1)
{
    size_t n = 0;
    for (size_t i = 0; i < w->n; i++)
        n += w->a[i] >= w0 && w->b[i] <= w1;
    return n;
}

/* The source asked for, else the one with the most windows in the kernel
 * windows (ties: counter, driver, power); each source's windows are built
 * once, the best so far kept in fitw. */
static void fit_windows(struct prun *pr, const struct prun_opts *o)
{
    static const enum en_src order[] = { EN_SRC_COUNTER, EN_SRC_DRIVER, EN_SRC_POWER };
    if (o->no_fit)
        return;
    if (o->fit_from != EN_SRC_NONE) {
        for (size_t g = 0; g < pr->ngpus; g++) {
            windows_of(&pr->gpu[g], o->fit_from, &pr->gpu[g].fitw);
            pr->gpu[g].fit_src = o->fit_from;
        }
        return;
    }
    struct en_wbuf *w = xcalloc(pr->ngpus + 1, sizeof(*w));
    size_t best = 0;
    for (size_t s = 0; s < sizeof(order) / sizeof(order[0]); s++) {
        size_t n = 0;
        for (size_t g = 0; g < pr->ngpus; g++) {
            windows_of(&pr->gpu[g], order[s], &w[g]);
            n += inside(&w[g], pr->gpu[g].win0, pr->gpu[g].win1);
        }
        bool better = n > best;
        best = better ? n : best;
        for (size_t g = 0; g < pr->ngpus; g++) {
            struct en_wbuf *drop = better ? &pr->gpu[g].fitw : &w[g];
            en_wbuf_free(drop);
            if (better)
                pr->gpu[g].fitw = w[g], pr->gpu[g].fit_src = order[s];
            memset(&w[g], 0, sizeof(w[g]));
        }
    }
    free(w);
}

void prun_finish(struct prun *pr, const char *dir, const struct prun_opts *o)
{
    struct key_act *ka = key_activity(pr);
    int *grp = xmalloc((pr->nkeys + 1) * sizeof(*grp));
    bool by_node = key_groups(pr, dir, grp);
    for (size_t g = 0; g < pr->ngpus;) {
        size_t g0 = group_of(pr, g, by_node), ng = 1;
        if (!by_node)
            ng = pr->ngpus;
        else
            while (g0 + ng < pr->ngpus && pr->gpu[g0 + ng].node && pr->gpu[g0].node &&
                   strcmp(pr->gpu[g0 + ng].node, pr->gpu[g0].node) == 0)
                ng++;
        match_group(pr, g0, ng, grp, ka);
        if (pr->gpu[g0].win1 < pr->gpu[g0].win0 && pr->have_trace)
            strv_pushf(&pr->warn, "%s%s: no kernel in the trace: its energy is not accounted",
                       pr->gpu[g0].node ? "node " : "", pr->gpu[g0].node ? pr->gpu[g0].node : "the run");
        g = g0 + ng;
    }
    for (size_t g = 0; !pr->have_trace && g < pr->ngpus; g++)
        if (pr->gpu[g].n) {         /* no trace: the whole sampled span is idle */
            pr->gpu[g].win0 = pr->gpu[g].t[0];
            pr->gpu[g].win1 = pr->gpu[g].t[pr->gpu[g].n - 1];
        }
    gpu_activity(pr, ka);
    fit_windows(pr, o);
    for (size_t k = 0; k < pr->nkeys; k++)
        free(ka[k].a);
    free(ka);
    free(grp);
}

int prun_load(struct prun *pr, const char *dir, const char *ktrace, char *const *telemetry,
              struct intern *names, const struct prun_opts *o)
{
    if (prun_read(pr, dir, ktrace, telemetry, names, NULL) != 0)
        return -1;
    prun_finish(pr, dir, o);
    return 0;
}

void prun_en_inputs(const struct prun *pr, const struct prun_opts *o, struct en_gpu *out)
{
    for (size_t i = 0; i < pr->ngpus; i++) {
        const struct prun_gpu *g = &pr->gpu[i];
        bool counter = o->energy_from != EN_SRC_POWER && g->ne >= 2;
        bool win = g->win1 >= g->win0;
        out[i] = (struct en_gpu){
            .name = g->name, .win0_ns = win ? g->win0 : 0, .win1_ns = win ? g->win1 : 0,
            .energy = { counter ? g->ne : 0, g->et, g->ev },
            .power = { g->n, g->t, g->power }, .clock = { g->n, g->t, g->clock },
            .driver = { g->drv.n, g->drv.t_ns, g->drv.power_W },
            .fit = en_wbuf_view(&g->fitw), .fit_src = g->fit_src,
            .act = win ? g->act : NULL, .nact = win ? g->nact : 0,
        };
    }
}

void prun_release(struct prun *pr)
{
    for (size_t i = 0; i < pr->ngpus; i++) {
        struct prun_gpu *g = &pr->gpu[i];
        free(g->path), free(g->name), free(g->node), free(g->drv_path);
        free(g->t), free(g->power), free(g->clock), free(g->temp);
        free(g->et), free(g->ev), free(g->act);
        br_drvpower_free(&g->drv);
        en_wbuf_free(&g->fitw);
    }
    free(pr->gpu);
    free(pr->key);
    free(pr->copy);
    if (pr->warn.v)
        strv_release(&pr->warn);
    rp_power_release(&pr->own);
    memset(pr, 0, sizeof(*pr));
}

int prun_energy(const struct prun *pr, const struct prun_opts *o, const struct en_opts *eo,
                struct en_result *res)
{
    struct en_gpu *in = xcalloc(pr->ngpus + 1, sizeof(*in));
    prun_en_inputs(pr, o, in);
    int rc = en_compute(in, pr->ngpus, pr->pw->nkernels > 0 ? pr->pw->nkernels : 0, eo, res);
    if (rc != 0)
        br_error("energy: %s", res->warn.n ? res->warn.v[0] : "invalid input");
    free(in);
    return rc;
}

int prun_parse_energy_from(const char *s, struct prun_opts *o)
{
    if (!strcmp(s, "auto"))
        o->energy_from = EN_SRC_NONE;
    else if (!strcmp(s, "counter"))
        o->energy_from = EN_SRC_COUNTER;
    else if (!strcmp(s, "power"))
        o->energy_from = EN_SRC_POWER;
    else
        return -1;
    return 0;
}

int prun_parse_fit_from(const char *s, struct prun_opts *o)
{
    o->no_fit = false;
    if (!strcmp(s, "auto"))
        o->fit_from = EN_SRC_NONE;
    else if (!strcmp(s, "counter"))
        o->fit_from = EN_SRC_COUNTER;
    else if (!strcmp(s, "driver"))
        o->fit_from = EN_SRC_DRIVER;
    else if (!strcmp(s, "power"))
        o->fit_from = EN_SRC_POWER;
    else if (!strcmp(s, "none"))
        o->no_fit = true;
    else
        return -1;
    return 0;
}

int prun_parse_lag(const char *s, double *lag_ms)
{
    if (!strcmp(s, "auto")) {
        *lag_ms = NAN;
        return 0;
    }
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(fabs(v) <= 10000))
        return -1;
    *lag_ms = v;
    return 0;
}
