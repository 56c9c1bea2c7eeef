/* rpagg.c - per-file-set aggregation of rocprofv3 counter and kernel-trace
 * rows (contract in rpagg.h; aggregation rule from docs/design.md §6).
 *
 * Hot path: one csv_split_freetext per row (the kernel name is never scanned:
 * fields left of it are split left to right, fields right of it right to
 * left), the launch key compared with the previous row's (rows of one
 * dispatch are consecutive), counter and kernel names interned only when they
 * change, numbers parsed in place.
 */
#include "read/rpagg.h"

#include "read/csv.h"
#include "read/extrapolate.h"
#include "read/launchunits.h"
#include "read/rocpd.h"
#include "read/rplayout.h"
#include "util/error.h"
#include "util/textesc.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIMED 0x80000000u

/* ---- launch map ------------------------------------------------------------ */

static uint32_t map_slot(const struct rp_u64map *m, uint64_t key)
{
    uint64_t h = (key + 1) * 0x9e3779b97f4a7c15ull;
    uint32_t mask = m->nslot - 1;
    uint32_t i = (uint32_t)(h >> 40) & mask;
    while (m->key[i] && m->key[i] != key + 1)
        i = (i + 1) & mask;
    return i;
}

static void map_grow(struct rp_u64map *m)
{
    struct rp_u64map o = *m;
    m->nslot = o.nslot ? o.nslot * 2 : 1024;
    m->key = xcalloc(m->nslot, sizeof(*m->key));
    m->val = xcalloc(m->nslot, sizeof(*m->val));
    m->seen = xcalloc(m->nslot, sizeof(*m->seen));
    for (uint32_t i = 0; i < o.nslot; i++)
        if (o.key[i]) {
            uint32_t j = map_slot(m, o.key[i] - 1);
            m->key[j] = o.key[i];
            m->val[j] = o.val[i];
            m->seen[j] = o.seen[i];
        }
    free(o.key);
    free(o.val);
    free(o.seen);
}

/* Value slot of key, or NULL when absent (insert: add it with value v). */
static uint32_t *map_get(struct rp_u64map *m, uint64_t key, bool insert, uint32_t v, bool *added)
{
    *added = false;
    if (!m->nslot) {
        if (!insert)
            return NULL;
        map_grow(m);
    }
    uint32_t i = map_slot(m, key);
    if (m->key[i])
        return &m->val[i];
    if (!insert)
        return NULL;
    if ((m->n + 1) * 2 > m->nslot) {
        map_grow(m);
        i = map_slot(m, key);
    }
    m->key[i] = key + 1;
    m->val[i] = v;
    m->n++;
    *added = true;
    return &m->val[i];
}

static void map_release(struct rp_u64map *m)
{
    free(m->key);
    free(m->val);
    free(m->seen);
}

/* The launch_units.csv unit of a launch key, 0 (its signature's own) without one. */
static uint32_t unit_of_launch(struct rp_agg *a, uint64_t key)
{
    bool added;
    uint32_t *u = a->units.n ? map_get(&a->units, key, false, 0, &added) : NULL;
    return u ? *u : 0;
}

/* ---- arrays ------------------------------------------------------------------ */

static void grow_k(struct rp_agg *a, uint32_t need)
{
    if (need <= a->kcap)
        return;
    uint32_t n = a->kcap ? a->kcap : 16;
    while (n < need)
        n *= 2;
    a->launches = xrealloc(a->launches, n * sizeof(*a->launches));
    a->uncounted = xrealloc(a->uncounted, n * sizeof(*a->uncounted));
    a->dur = xrealloc(a->dur, n * sizeof(*a->dur));
    a->attr = xrealloc(a->attr, n * sizeof(*a->attr));
    a->csum = xrealloc(a->csum, (size_t)n * a->ccap * sizeof(*a->csum));
    a->crows = xrealloc(a->crows, (size_t)n * a->ccap * sizeof(*a->crows));
    size_t o = a->kcap;
    memset(a->launches + o, 0, (n - o) * sizeof(*a->launches));
    memset(a->uncounted + o, 0, (n - o) * sizeof(*a->uncounted));
    memset(a->dur + o, 0, (n - o) * sizeof(*a->dur));
    memset(a->attr + o, 0, (n - o) * sizeof(*a->attr));
    memset(a->csum + o * a->ccap, 0, (n - o) * a->ccap * sizeof(*a->csum));
    memset(a->crows + o * a->ccap, 0, (n - o) * a->ccap * sizeof(*a->crows));
    a->kcap = n;
}

/* Re-lays the kernel x counter matrices for more counter columns. */
static void grow_c(struct rp_agg *a, uint32_t need)
{
    if (need <= a->ccap)
        return;
    uint32_t n = a->ccap ? a->ccap * 2 : 16;
    while (n < need)
        n *= 2;
    double *cs = xcalloc((size_t)a->kcap * n + 1, sizeof(*cs));
    uint64_t *cr = xcalloc((size_t)a->kcap * n + 1, sizeof(*cr));
    for (size_t k = 0; k < a->kcap; k++)
        for (size_t c = 0; c < a->ccap; c++) {
            cs[k * n + c] = a->csum[k * a->ccap + c];
            cr[k * n + c] = a->crows[k * a->ccap + c];
        }
    free(a->csum);
    free(a->crows);
    a->csum = cs;
    a->crows = cr;
    a->ccap = n;
}

/* ---- messages --------------------------------------------------------------- */

static int fail(struct rp_agg *a, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct rp_agg *a, const char *file, long line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!a->err)
        a->err = line > 0 ? xasprintf("%s:%ld: %s", file, line, msg) : xasprintf("%s: %s", file, msg);
    return -1;
}

void rp_agg_flush_messages(struct rp_agg *a)
{
    const char *p = a->warn.buf;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        br_warn("%.*s", n, p);
        p += n + (nl ? 1 : 0);
    }
    sb_reset(&a->warn);
    if (a->err)
        br_error("%s", a->err);
}

void rp_agg_release(struct rp_agg *a)
{
    intern_release(&a->kn);
    intern_release(&a->cn);
    free(a->launches);
    free(a->uncounted);
    free(a->dur);
    free(a->attr);
    free(a->csum);
    free(a->crows);
    map_release(&a->map);
    free(a->agent);
    map_release(&a->units);
    free(a->bad_value_at);
    free(a->dup_row_at);
    xp_set_free(a->ex);
    free(a->cvar);
    free(a->cdf);
    free(a->profiled);
    free(a->err);
    sb_release(&a->warn);
    memset(a, 0, sizeof(*a));
}

static void agg_init(struct rp_agg *a, const struct xp_sampling *sampling)
{
    memset(a, 0, sizeof(*a));
    intern_init(&a->kn);
    intern_init(&a->cn);
    sb_init(&a->warn);
    if (sampling)
        a->ex = xp_set_new(sampling);
}

/* ---- rows --------------------------------------------------------------------- */

struct rdr {
    struct rp_agg *a;
    struct csv_src *src;
    struct rp_header h;
    struct csv_span *f;
    bool by_corr;            /* launch key is Correlation_Id */
};

/* "file:line: column C: expected WHAT, got '<text>'" with the text escaped
 * (a NUL or a control character shows as \xNN) and cut to 60 bytes. */
static int bad_field(struct rdr *r, const char *col, const char *what, const struct csv_span *f)
{
    struct strbuf sb;
    sb_init(&sb);
    esc_line_n(&sb, f->p, f->n > 60 ? 60 : f->n);
    fail(r->a, csv_name(r->src), csv_line_no(r->src), "column %s: expected %s, got '%s'", col,
         what, sb.buf);
    sb_release(&sb);
    return -1;
}

/* Field of column c as an unsigned integer; absent column gives 0. */
static int num(struct rdr *r, enum rp_col c, uint64_t *v)
{
    int i = r->h.idx[c];
    if (i < 0) {
        *v = 0;
        return 0;
    }
    int bad = c == RC_AGENT ? csv_agent_id(&r->f[i], v) : csv_u64(&r->f[i], v);
    if (bad == 0 && *v != UINT64_MAX)
        return 0;
    if (bad == 0)
        return fail(r->a, csv_name(r->src), csv_line_no(r->src), "column %s: %llu is 2^64-1, "
                    "an all-ones 'no value' marker, not a value", rp_col_names[c],
                    (unsigned long long)*v);
    return bad_field(r, rp_col_names[c], "a non-negative integer", &r->f[i]);
}

/* A row that cannot be used: fatal, unless it is an unterminated last line
 * (a killed job), which is dropped with a warning. Returns 1 when dropped. */
static int bad_row(struct rdr *r)
{
    if (!csv_last_unterminated(r->src))
        return -1;
    free(r->a->err);
    r->a->err = NULL;
    r->a->truncated++;
    sb_addf(&r->a->warn, "%s:%ld: truncated last line ignored (no newline; killed job?)\n",
            csv_name(r->src), csv_line_no(r->src));
    return 1;
}

static int split_row(struct rdr *r, const char *line, size_t len)
{
    int name = r->h.idx[RC_NAME];
    if (csv_split_freetext(line, len, r->h.ncols, name, r->f) == r->h.ncols)
        return 0;
    int got = csv_split(line, len, NULL, 0);
    if (got < 0)
        return fail(r->a, csv_name(r->src), csv_line_no(r->src), "a quoted field is not closed "
                    "on its line (a line break inside a kernel name?)");
    return fail(r->a, csv_name(r->src), csv_line_no(r->src),
                "expected %d columns (%s layout), found %d%s", r->h.ncols, r->h.layout, got,
                got == r->h.ncols ? " (Kernel_Name not quoted?)" : "");
}

static int row_attr(struct rdr *r, struct rp_kattr *k)
{
    uint64_t v[12];
    static const enum rp_col cols[12] = { RC_VGPR, RC_AGPR, RC_SGPR, RC_LDS, RC_SCRATCH, RC_WG,
                                          RC_GRID, RC_WGX, RC_WGY, RC_WGZ, RC_GROUP_SEG,
                                          RC_PRIV_SEG };
    for (int i = 0; i < 12; i++)
        if (num(r, cols[i], &v[i]) < 0)
            return -1;
    struct rp_kattr n = { .vgpr = (uint32_t)v[0], .agpr = (uint32_t)v[1], .sgpr = (uint32_t)v[2],
                          .lds = v[3] ? v[3] : v[10], .scratch = v[4] ? v[4] : v[11],
                          .wg_size = v[5], .grid_size = v[6], .wg_x = (uint32_t)v[7],
                          .wg_y = (uint32_t)v[8], .wg_z = (uint32_t)v[9], .seen = true,
                          .has_agpr = r->h.idx[RC_AGPR] >= 0 };
    if (!n.wg_size && n.wg_x)
        n.wg_size = (uint64_t)n.wg_x * (n.wg_y ? n.wg_y : 1) * (n.wg_z ? n.wg_z : 1);
    *k = n;
    return 0;
}

/* Keeps the largest resource use seen (safe for limits derived from it). */
static void attr_max(struct rp_kattr *k, const struct rp_kattr *n)
{
#define MAXF(f) if (n->f > k->f) k->f = n->f
    MAXF(vgpr); MAXF(agpr); MAXF(sgpr); MAXF(lds); MAXF(scratch); MAXF(wg_size); MAXF(grid_size);
#undef MAXF
    if (!k->wg_x && n->wg_x) {
        k->wg_x = n->wg_x;
        k->wg_y = n->wg_y;
        k->wg_z = n->wg_z;
    }
    k->has_agpr |= n->has_agpr;
    k->seen = true;
}

static int times(struct rdr *r, double *dur)
{
    uint64_t s, e;
    if (num(r, RC_START, &s) < 0 || num(r, RC_END, &e) < 0)
        return -1;
    if (e < s)
        return fail(r->a, csv_name(r->src), csv_line_no(r->src),
                    "End_Timestamp %llu is before Start_Timestamp %llu",
                    (unsigned long long)e, (unsigned long long)s);
    *dur = (double)(e - s);
    return 0;
}

struct cc_state {
    uint64_t prev_key;
    uint32_t prev_k, prev_c;
    uint32_t prev_slot;      /* map slot of the launch (stable until the next insert) */
    uint32_t prev_sample;    /* sampled pass: the launch's sample (extrapolate.h) */
    bool have_prev;
};

static uint32_t kernel_id(struct rp_agg *a, const struct csv_span *name)
{
    uint32_t k = intern_add(&a->kn, name->p, name->n);
    grow_k(a, k + 1);
    return k;
}

static uint32_t counter_id(struct rp_agg *a, struct cc_state *st, const struct csv_span *cn)
{
    uint32_t g = st->prev_c + 1;
    if (g < a->cn.n && a->cn.len[g] == cn->n && memcmp(a->cn.str[g], cn->p, cn->n) == 0)
        return st->prev_c = g;
    uint32_t c = intern_add(&a->cn, cn->p, cn->n);
    grow_c(a, c + 1);
    return st->prev_c = c;
}

/* A new launch key within the counter file: kernel, duration, attributes. */
/* GPUs of the file set: the distinct agents its counter launches ran on
 * (a process sees few: a linear search is enough). */
static void add_agent(struct rp_agg *a, uint64_t agent)
{
    for (uint32_t i = 0; i < a->nagent; i++)
        if (a->agent[i] == agent)
            return;
    a->agent = xrealloc(a->agent, (a->nagent + 1) * sizeof(*a->agent));
    a->agent[a->nagent++] = agent;
}

/* A new launch key within the counter file: kernel, duration, attributes;
 * in a sampled pass also its sample. */
static int cc_launch(struct rdr *r, uint64_t key, uint32_t *kid, uint32_t *slot,
                     uint32_t *sample)
{
    struct rp_agg *a = r->a;
    double dur = 0;
    bool ts = r->h.idx[RC_START] >= 0;
    struct rp_kattr t;
    if ((ts && times(r, &dur) < 0) || row_attr(r, &t) < 0)
        return -1;
    bool added;
    uint32_t *v = map_get(&a->map, key, true, 0, &added);
    *slot = (uint32_t)(v - a->map.val);
    if (!added) {
        *kid = *v & ~TIMED;
        *sample = a->ex ? xp_find_sample(a->ex, key) : 0;
        return 0;
    }
    uint64_t agent;
    if (num(r, RC_AGENT, &agent) < 0)
        return -1;
    add_agent(a, agent);
    uint32_t k = kernel_id(a, &r->f[r->h.idx[RC_NAME]]);
    attr_max(&a->attr[k], &t);
    *v = k | (ts ? TIMED : 0);
    a->launches[k]++;
    a->dur[k] += dur;
    a->dispatches++;
    *kid = k;
    if (a->ex)
        *sample = xp_add_sample(a->ex, k, t.grid_size, t.wg_size, unit_of_launch(a, key), key,
                                ts ? dur : NAN);
    return 0;
}

/* True once counter c of the launch in map slot `slot` has been summed:
 * this row repeats it (a duplicated dispatch or file) and is left out. The
 * caller names the first one (dup_row_at). */
static bool repeated(struct rp_agg *a, uint32_t slot, uint32_t c)
{
    if (c >= 64)
        return false;
    uint64_t *seen = &a->map.seen[slot], bit = 1ull << c;
    if (!(*seen & bit)) {
        *seen |= bit;
        return false;
    }
    a->dup_rows++;
    return true;
}

/* Why no hardware counter can hold v (NULL: it can). */
static const char *not_a_count(double v)
{
    return !isfinite(v) ? "not finite" : v < 0 ? "negative"
         : v >= 18446744073709551615.0 ? "2^64-1 or more (an all-ones 'no value' marker?)" : NULL;
}

/* Sums value into (kernel k, counter c) of the launch in `slot`, unless it
 * repeats a row or is no count: then it is left out and counted, the first
 * named by where() ("file:line") and the value's text (text NULL: the value
 * printed, formatted only then, not on every row). True when summed. */
static bool add_value(struct rp_agg *a, uint32_t slot, uint32_t k, uint32_t c, double value,
                      const char *text, size_t tn, char *(*where)(const void *), const void *ctx)
{
    a->rows++;
    const char *why = NULL;
    if (repeated(a, slot, c)) {
        if (a->dup_rows == 1)
            a->dup_row_at = where(ctx);
        return false;
    }
    if ((why = not_a_count(value)) != NULL) {
        if (!a->bad_values++) {
            char shown[40];
            if (!text) {
                snprintf(shown, sizeof(shown), "%.17g", value);
                text = shown, tn = strlen(shown);
            }
            struct strbuf sb;
            sb_init(&sb);
            esc_line_n(&sb, text, tn > 60 ? 60 : tn);
            char *at = where(ctx);
            a->bad_value_at = xasprintf("%s: '%s' is %s", at, sb.buf, why);
            free(at);
            sb_release(&sb);
        }
        return false;
    }
    size_t at = (size_t)k * a->ccap + c;
    a->csum[at] += value;
    a->crows[at]++;
    return true;
}

/* "file:line" of the current CSV row, allocated. */
static char *csv_here(const void *ctx)
{
    const struct rdr *r = ctx;
    return xasprintf("%s:%ld", csv_name(r->src), csv_line_no(r->src));
}

static int cc_row(struct rdr *r, struct cc_state *st, const char *line, size_t len)
{
    if (split_row(r, line, len) < 0)
        return -1;
    uint64_t key;
    double val;
    if (num(r, r->by_corr ? RC_CORR : RC_DISPATCH, &key) < 0)
        return -1;
    const struct csv_span *vf = &r->f[r->h.idx[RC_CVALUE]];
    if (csv_double(vf, &val) < 0)
        return bad_field(r, "Counter_Value", "a number", vf);
    uint32_t k = st->prev_k;
    if (!st->have_prev || key != st->prev_key) {
        if (cc_launch(r, key, &k, &st->prev_slot, &st->prev_sample) < 0)
            return -1;
        st->prev_key = key;
        st->prev_k = k;
        st->have_prev = true;
    }
    uint32_t c = counter_id(r->a, st, &r->f[r->h.idx[RC_CNAME]]);
    if (add_value(r->a, st->prev_slot, k, c, val, vf->p, vf->n, csv_here, r) && r->a->ex)
        xp_add_value(r->a->ex, st->prev_sample, c, val);
    return 0;
}

/* A trace row of a sampled pass: every launch counts towards its unit. The
 * unit's grid size is the counter file's Grid_Size: the product of the
 * trace's Grid_Size_X/Y/Z (7.x) where it has no Grid_Size. */
static int kt_sampled(struct rdr *r, uint64_t key, double dur)
{
    struct rp_kattr t = { 0 };
    if (row_attr(r, &t) < 0)
        return -1;
    if (!t.grid_size && r->h.idx[RC_GRIDX] >= 0) {
        uint64_t g[3];
        if (num(r, RC_GRIDX, &g[0]) < 0 || num(r, RC_GRIDY, &g[1]) < 0 || num(r, RC_GRIDZ, &g[2]) < 0)
            return -1;
        t.grid_size = g[0] * (g[1] ? g[1] : 1) * (g[2] ? g[2] : 1);
    }
    uint32_t k = kernel_id(r->a, &r->f[r->h.idx[RC_NAME]]);
    xp_add_trace(r->a->ex, k, t.grid_size, t.wg_size, unit_of_launch(r->a, key), key, dur);
    return 0;
}

/* A trace row of the file set: joins to the counter launches. */
static int kt_row(struct rdr *r, const char *line, size_t len, bool need_dur)
{
    if (split_row(r, line, len) < 0)
        return -1;
    uint64_t key;
    double dur;
    if (num(r, r->by_corr ? RC_CORR : RC_DISPATCH, &key) < 0 || times(r, &dur) < 0)
        return -1;
    struct rp_agg *a = r->a;
    if (a->ex && kt_sampled(r, key, dur) < 0)
        return -1;
    bool added;
    uint32_t *v = map_get(&a->map, key, false, 0, &added);
    a->trace_launches++;
    a->trace_ns += dur;
    a->rows++;
    if (!v) {
        if (!a->ex) {   /* sampled: launches without counters come from the units */
            a->uncounted_launches++;
            a->uncounted_ns += dur;
            if (a->cc_layout) {   /* named per kernel when the set has counters */
                uint32_t k = kernel_id(a, &r->f[r->h.idx[RC_NAME]]);
                a->uncounted[k]++;
            }
        }
        return 0;
    }
    uint32_t k = *v & ~TIMED;
    if (need_dur && !(*v & TIMED)) {
        a->dur[k] += dur;
        *v |= TIMED;
    }
    struct rp_kattr t = { 0 };
    if (row_attr(r, &t) < 0)
        return -1;
    if (!a->attr[k].wg_x && t.wg_x) {
        a->attr[k].wg_x = t.wg_x;
        a->attr[k].wg_y = t.wg_y;
        a->attr[k].wg_z = t.wg_z;
    }
    if (!a->attr[k].has_agpr && t.has_agpr) {
        a->attr[k].agpr = t.agpr;
        a->attr[k].has_agpr = true;
    }
    return 0;
}

/* ---- files --------------------------------------------------------------------- */

static int open_rdr(struct rdr *r, struct rp_agg *a, struct csv_src *src)
{
    memset(r, 0, sizeof(*r));
    r->a = a;
    r->src = src;
    if (!src)
        return fail(a, "?", 0, "cannot open file");
    const char *line;
    size_t len;
    int rc = csv_next_line(src, &line, &len);
    if (rc < 0)
        return fail(a, csv_name(src), 0, "read error");
    if (rc == 0 || (len == 0 && csv_last_unterminated(src)))
        return fail(a, csv_name(src), 0, "empty file (no header)");
    if (memchr(line, '\r', len))
        return fail(a, csv_name(src), 1, "lines end in CR only (classic Mac OS line ends?); "
                    "rocprofv3 writes LF: convert the file with tr '\\r' '\\n'");
    char *err;
    if (rp_header_parse(&r->h, line, len, &err) < 0) {
        fail(a, csv_name(src), 1, "%s", err);
        free(err);
        return -1;
    }
    r->f = xcalloc((size_t)r->h.ncols, sizeof(*r->f));
    return 0;
}

static void close_rdr(struct rdr *r)
{
    rp_header_release(&r->h);
    free(r->f);
    csv_close(r->src);
    r->src = NULL;
}

/* Calls row() on each data line; handles truncation and header-only files. */
static int each_row(struct rdr *r, struct cc_state *st, bool need_dur)
{
    const char *line;
    size_t len;
    long nrows = 0;
    int rc;
    while ((rc = csv_next_line(r->src, &line, &len)) > 0) {
        if (len == 0)
            continue;
        int e = r->h.kind == RP_KIND_COUNTER ? cc_row(r, st, line, len)
              : r->h.kind == RP_KIND_TRACE ? kt_row(r, line, len, need_dur) : 0;
        if (e < 0) {
            if (bad_row(r) < 0)
                return -1;
            continue;
        }
        nrows++;
    }
    if (rc < 0)
        return fail(r->a, csv_name(r->src), 0, "read error");
    /* A process that launched no kernel (torchrun's parent, a data-loader
     * worker) writes only the header: legal, counted; finish_pass() fails
     * the pass only when none of its files has a row. */
    if (nrows == 0 && r->a->truncated == 0)
        *(r->h.kind == RP_KIND_COUNTER ? &r->a->cc_empty : &r->a->kt_empty) = true;
    return 0;
}

/* A sampled pass: the profiled launches' sums become estimates over every
 * traced launch (read/extrapolate.h); launches and durations are the
 * trace's. Without a trace there is nothing to scale to: the sums stay those
 * of the profiled launches, with a warning. */
static void finish_sampled(struct rp_agg *a, const char *file, bool traced)
{
    if (!a->ex)
        return;
    a->profiled = xcalloc((size_t)a->kcap + 1, sizeof(*a->profiled));
    a->cvar = xcalloc((size_t)a->kcap * a->ccap + 1, sizeof(*a->cvar));
    a->cdf = xcalloc((size_t)a->kcap * a->ccap + 1, sizeof(*a->cdf));
    if (!traced) {
        if (a->kn.n == 0)   /* a process without kernels has nothing to scale */
            return;
        memcpy(a->profiled, a->launches, a->kn.n * sizeof(*a->profiled));
        sb_addf(&a->warn, "%s: a sampled pass without its kernel trace: the counter sums are "
                "those of the profiled launches only, not of every launch\n", file);
        return;
    }
    struct xp_out o;
    xp_finish(a->ex, a->kn.n, a->cn.n, a->ccap, (const char *const *)a->cn.str, &o);
    /* launch events time the launch, not the kernel: the kernel time is
     * gpu__time_duration.sum's estimate where the pass has it */
    uint32_t gt = xp_kernel_times(a->ex) ? UINT32_MAX
                : intern_find(&a->cn, "gpu__time_duration.sum", strlen("gpu__time_duration.sum"));
    for (uint32_t k = 0; k < a->kn.n; k++) {
        a->profiled[k] = o.profiled[k];
        a->uncounted[k] = o.uncounted_k[k];
        if (!o.profiled[k])
            continue;
        a->launches[k] = o.launches[k];
        a->dur[k] = o.trace_ns[k];
        if (gt != UINT32_MAX && a->crows[(size_t)k * a->ccap + gt])
            a->dur[k] = o.total[(size_t)k * a->ccap + gt];
        for (uint32_t c = 0; c < a->cn.n; c++) {
            size_t at = (size_t)k * a->ccap + c;
            if (!a->crows[at])
                continue;
            a->csum[at] = o.total[at];
            a->cvar[at] = o.var[at];
            a->cdf[at] = o.df[at];
        }
    }
    a->uncounted_launches = o.uncounted;
    a->uncounted_ns = o.uncounted_ns;
    a->untraced = o.untraced;
    xp_out_release(&o);
}

static int read_pair(struct rp_agg *a, struct csv_src *cc, struct csv_src *kt)
{
    struct rdr rc_ = { 0 }, rk = { 0 };
    int rc = 0;
    if (cc && open_rdr(&rc_, a, cc) < 0)
        rc = -1;
    if (kt && open_rdr(&rk, a, kt) < 0)
        rc = -1;
    if (rc == 0 && cc && rc_.h.kind != RP_KIND_COUNTER)
        rc = fail(a, csv_name(cc), 1, "not a counter_collection header");
    if (rc == 0 && kt && rk.h.kind != RP_KIND_TRACE)
        rc = fail(a, csv_name(kt), 1, "not a kernel_trace header");
    bool need_dur = cc && rc_.h.idx[RC_START] < 0;
    bool by_corr = need_dur || (kt && rk.h.idx[RC_DISPATCH] < 0);
    if (rc == 0 && by_corr && cc && rc_.h.idx[RC_CORR] < 0)
        rc = fail(a, csv_name(cc), 1, "counter_collection header has no column Correlation_Id");
    rc_.by_corr = rk.by_corr = by_corr;
    struct cc_state st = { .prev_c = UINT32_MAX - 1 };
    if (rc == 0 && cc) {
        a->cc_layout = rc_.h.layout;
        for (int i = 0; i < rc_.h.nmissing; i++)
            a->cc_missing |= 1ull << rc_.h.missing[i];
        rc = each_row(&rc_, &st, false);
    }
    if (rc == 0 && kt) {
        a->kt_layout = rk.h.layout;
        rc = each_row(&rk, &st, need_dur);
    }
    if (rc == 0 && need_dur)
        for (uint32_t i = 0; i < a->map.nslot; i++)
            if (a->map.key[i] && !(a->map.val[i] & TIMED))
                a->untimed_launches++;
    if (rc == 0 && cc)
        finish_sampled(a, csv_name(cc), kt != NULL);
    if (cc)
        close_rdr(&rc_);
    if (kt)
        close_rdr(&rk);
    return rc;
}

static void add_unit(void *ud, uint64_t dispatch, uint32_t unit)
{
    bool added;
    *map_get(ud, dispatch, true, unit, &added) = unit;
}

/* The launch units of a sampled set, before its counter and trace rows. */
static int read_units(struct rp_agg *a, const char *path)
{
    char *why = NULL;
    struct csv_src *s = csv_open_quiet(path, &why);
    if (!s) {
        fail(a, path, 0, "%s", why);
        free(why);
        return -1;
    }
    long line;
    const char *what;
    int rc = lu_read(s, add_unit, &a->units, &line, &what);
    csv_close(s);
    return rc < 0 ? fail(a, path, line, "%s", what) : 0;
}

int rp_agg_read_set(struct rp_agg *a, const char *cc_path, const char *kt_path,
                    const char *units_path, const struct xp_sampling *sampling)
{
    agg_init(a, sampling);
    if (units_path && a->ex && read_units(a, units_path) < 0)
        return -1;
    char *why = NULL;
    struct csv_src *cc = cc_path ? csv_open_quiet(cc_path, &why) : NULL;
    struct csv_src *kt = kt_path && !why ? csv_open_quiet(kt_path, &why) : NULL;
    if (why) {
        csv_close(cc);
        csv_close(kt);
        fail(a, cc_path && !cc ? cc_path : kt_path, 0, "%s", why);
        free(why);
        return -1;
    }
    return read_pair(a, cc, kt);
}

int rp_agg_read_mem(struct rp_agg *a, const char *name, const void *data, size_t len,
                    enum rp_kind *kind)
{
    agg_init(a, NULL);
    *kind = RP_KIND_UNKNOWN;
    struct rdr r;
    if (open_rdr(&r, a, csv_open_mem(name, data, len)) < 0) {
        close_rdr(&r);
        return -1;
    }
    *kind = r.h.kind;
    close_rdr(&r);
    if (*kind == RP_KIND_AGENT_INFO)
        return 0;
    struct csv_src *s = csv_open_mem(name, data, len);
    return *kind == RP_KIND_COUNTER ? read_pair(a, s, NULL) : read_pair(a, NULL, s);
}

/* ---- rocpd databases ------------------------------------------------------------ */

/* The same aggregation from the database's views: counters_collection rows
 * are counter_collection.csv rows, kernels rows the kernel trace's. */
struct dbrd {
    struct rp_agg *a;
    struct rocpd_db *db;
    struct cc_state st;
    uint64_t counter_rows, kernel_rows;
    const struct rocpd_dispatch *cur;    /* for messages */
};

/* "<database>: dispatch N" of the current counter row, allocated. */
static char *db_here(const void *ctx)
{
    const struct dbrd *r = ctx;
    return xasprintf("%s: dispatch %llu", rocpd_name(r->db), (unsigned long long)r->cur->dispatch_id);
}

static int db_counter(void *ctx, const struct rocpd_dispatch *d, const char *cn, size_t cl,
                      double value)
{
    struct dbrd *r = ctx;
    struct rp_agg *a = r->a;
    struct cc_state *st = &r->st;
    uint32_t k = st->prev_k;
    if (!st->have_prev || d->dispatch_id != st->prev_key) {
        bool added;
        uint32_t *v = map_get(&a->map, d->dispatch_id, true, 0, &added);
        st->prev_slot = (uint32_t)(v - a->map.val);
        if (added) {
            struct csv_span name = { d->name, (uint32_t)d->name_len, true };
            k = kernel_id(a, &name);
            attr_max(&a->attr[k], &d->attr);
            *v = k | TIMED;
            a->launches[k]++;
            a->dur[k] += (double)(d->end - d->start);
            a->dispatches++;
            add_agent(a, d->agent);
            if (a->ex)
                st->prev_sample = xp_add_sample(a->ex, k, d->attr.grid_size, d->attr.wg_size, 0,
                                                d->dispatch_id, (double)(d->end - d->start));
        } else {
            k = *v & ~TIMED;
            if (a->ex)
                st->prev_sample = xp_find_sample(a->ex, d->dispatch_id);
        }
        st->prev_key = d->dispatch_id;
        st->prev_k = k;
        st->have_prev = true;
    }
    struct csv_span c = { cn, (uint32_t)cl, true };
    uint32_t ci = counter_id(a, st, &c);
    r->cur = d;
    if (add_value(a, st->prev_slot, k, ci, value, NULL, 0, db_here, r) && a->ex)
        xp_add_value(a->ex, st->prev_sample, ci, value);
    r->counter_rows++;
    return 0;
}

static int db_kernel(void *ctx, const struct rocpd_dispatch *d)
{
    struct dbrd *r = ctx;
    struct rp_agg *a = r->a;
    double dur = (double)(d->end - d->start);
    bool added;
    uint32_t *v = map_get(&a->map, d->dispatch_id, false, 0, &added);
    a->trace_launches++;
    a->trace_ns += dur;
    a->rows++;
    r->kernel_rows++;
    if (a->ex) {
        struct csv_span name = { d->name, (uint32_t)d->name_len, true };
        xp_add_trace(a->ex, kernel_id(a, &name), d->attr.grid_size, d->attr.wg_size, 0,
                     d->dispatch_id, dur);
    }
    if (!v) {
        if (!a->ex) {
            struct csv_span name = { d->name, (uint32_t)d->name_len, true };
            a->uncounted_launches++;
            a->uncounted_ns += dur;
            uint32_t k = kernel_id(a, &name);
            a->uncounted[k]++;
        }
        return 0;
    }
    struct rp_kattr *k = &a->attr[*v & ~TIMED];
    if (!k->wg_x && d->attr.wg_x) {
        k->wg_x = d->attr.wg_x;
        k->wg_y = d->attr.wg_y;
        k->wg_z = d->attr.wg_z;
    }
    if (!k->has_agpr && d->attr.has_agpr) {
        k->agpr = d->attr.agpr;
        k->has_agpr = true;
    }
    return 0;
}

static int read_rocpd(struct rp_agg *a, struct rocpd_db *db, const struct xp_sampling *sampling)
{
    agg_init(a, sampling);
    struct dbrd r = { .a = a, .db = db, .st = { .prev_c = UINT32_MAX - 1 } };
    char *err = NULL;
    int rc = rocpd_each_counter(db, db_counter, &r, &err);
    if (rc == 0)
        rc = rocpd_each_dispatch(db, db_kernel, &r, &err);
    if (rc != 0) {
        a->err = err ? err : xasprintf("%s: cannot read the database", rocpd_name(db));
        return -1;
    }
    a->cc_layout = "rocpd (counters_collection view)";
    a->kt_layout = "rocpd (kernels view)";
    a->cc_empty = r.counter_rows == 0;   /* a process that launched no kernel */
    a->kt_empty = r.kernel_rows == 0;
    finish_sampled(a, rocpd_name(db), r.kernel_rows > 0);
    return 0;
}

int rp_agg_read_rocpd(struct rp_agg *a, struct rocpd_db *db)
{
    return read_rocpd(a, db, NULL);
}

int rp_agg_read_db(struct rp_agg *a, const char *path, const struct xp_sampling *sampling)
{
    struct rocpd_db *db;
    char *err;
    if (rocpd_open(&db, path, &err) < 0) {
        agg_init(a, NULL);
        a->err = err;
        return -1;
    }
    int rc = read_rocpd(a, db, sampling);
    rocpd_close(db);
    return rc;
}
