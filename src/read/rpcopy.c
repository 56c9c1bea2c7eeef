/* rpcopy.c - memory copy traces (CSV layouts and rocpd) into copy intervals
 * (contract and layout sources in rpcopy.h). */
#include "read/rpcopy.h"

#include "read/csv.h"
#include "read/rocpd.h"
#include "read/rocprof.h"
#include "read/rplayout.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define COPY_SUFFIX "memory_copy_trace.csv"
#define TRACE_SUFFIX "kernel_trace.csv"

/* ---- directions ---------------------------------------------------------- */

int rp_copy_dir_parse(const char *s, size_t n, enum ct_dir *d)
{
    static const struct {
        const char *name;
        enum ct_dir dir;
    } names[] = {
        { "HOST_TO_DEVICE", CT_H2D }, { "DEVICE_TO_HOST", CT_D2H },
        { "DEVICE_TO_DEVICE", CT_D2D }, { "HOST_TO_HOST", CT_H2H },
    };
    if (n == strlen("MEMORY_SET_DEVICE") && !strncasecmp(s, "MEMORY_SET_DEVICE", n)) {
        *d = CT_SET;
        return 0;
    }
    size_t pre = strlen("MEMORY_COPY_");   /* the 6.2 docs wrote the bare direction */
    if (n > pre && !strncasecmp(s, "MEMORY_COPY_", pre))
        s += pre, n -= pre;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (n == strlen(names[i].name) && !strncasecmp(s, names[i].name, n)) {
            *d = names[i].dir;
            return 0;
        }
    return -1;
}

/* Host sides become CT_HOST; a device-to-device copy between two GPUs is
 * peer-to-peer. NULL, or what is wrong. */
static const char *normalize(struct ct_copy *c)
{
    switch (c->dir) {
    case CT_H2D: c->src_agent = CT_HOST; break;
    case CT_D2H: c->dst_agent = CT_HOST; break;
    case CT_H2H: c->src_agent = c->dst_agent = CT_HOST; return NULL;
    case CT_SET: c->src_agent = c->dst_agent; break;
    default: break;
    }
    if ((c->dir != CT_H2D && c->src_agent == CT_HOST) || (c->dir != CT_D2H && c->dst_agent == CT_HOST))
        return "a device side of the copy is the host";
    if (c->dir == CT_D2D && c->src_agent != c->dst_agent)
        c->dir = CT_P2P;
    return NULL;
}

int rp_copy_gpus(const struct ct_copy *c, int32_t gpu[2])
{
    switch (c->dir) {
    case CT_H2D: gpu[0] = c->dst_agent; return 1;
    case CT_D2H: case CT_D2D: case CT_SET: gpu[0] = c->src_agent; return 1;
    case CT_P2P: gpu[0] = c->src_agent, gpu[1] = c->dst_agent; return 2;
    default: return 0;
    }
}

/* ---- the list -------------------------------------------------------------- */

static uint32_t add_file(struct rp_copies *cp, const char *path, const char *layout)
{
    cp->files = xrealloc(cp->files, (cp->nfiles + 2) * sizeof(*cp->files));
    cp->layouts = xrealloc(cp->layouts, (cp->nfiles + 1) * sizeof(*cp->layouts));
    cp->files[cp->nfiles] = xstrdup(path);
    cp->files[cp->nfiles + 1] = NULL;
    cp->layouts[cp->nfiles] = layout;
    return cp->nfiles++;
}

static void add_copy(struct rp_copies *cp, const struct ct_copy *c, uint32_t file)
{
    xgrow((void **)&cp->v, &cp->cap, cp->n + 1, sizeof(*cp->v));
    cp->v[cp->n].c = *c;
    cp->v[cp->n++].file = file;
}

/* A row with a direction not known here; where: "file:line" (taken). */
static void note_unknown(struct rp_copies *cp, char *where, const char *s, size_t n)
{
    if (!cp->unknown++)
        cp->unknown_at = xasprintf("%s: '%.*s'", where, (int)(n > 80 ? 80 : n), s);
    free(where);
}


/* ---- CSV ---------------------------------------------------------------------- */

struct crdr {
    struct csv_src *src;
    struct rp_header h;
    struct csv_span *f;
    const char *file;
};

/* Agent cell: "Host" (NVIDIA), else a node id in any of rocprofv3's forms
 * (4, "Agent 4", "GPU 3"). */
static int agent_cell(const struct csv_span *f, int32_t *a)
{
    uint64_t v;
    if (csv_ieq(f, "Host")) {
        *a = CT_HOST;
        return 0;
    }
    if (csv_agent_id(f, &v) < 0 || v > INT32_MAX)
        return -1;
    *a = (int32_t)v;
    return 0;
}

static int opt_u64(const struct crdr *r, enum rp_col col, uint64_t dflt, uint64_t *v)
{
    *v = dflt;
    int i = r->h.idx[col];
    if (i < 0 || r->f[i].n == 0)
        return 0;
    return csv_u64(&r->f[i], v) < 0 || *v == UINT64_MAX ? -1 : 0;
}

/* One row into c. 0; 1 for an unknown direction; -1 with *why set. */
static int parse_row(struct crdr *r, const char *line, size_t len, struct ct_copy *c,
                     const char **why)
{
    const struct rp_header *h = &r->h;
    int n = csv_split(line, len, r->f, h->ncols);
    if (n != h->ncols) {
        *why = n < 0 ? "a quoted field is not closed" : "wrong number of fields";
        return -1;
    }
    memset(c, 0, sizeof(*c));
    const struct csv_span *d = &r->f[h->idx[RC_DIRECTION]];
    if (rp_copy_dir_parse(d->p, d->n, &c->dir) < 0)
        return 1;
    if (agent_cell(&r->f[h->idx[RC_SRC_AGENT]], &c->src_agent) < 0 ||
        agent_cell(&r->f[h->idx[RC_DST_AGENT]], &c->dst_agent) < 0) {
        *why = "Source_Agent_Id, Destination_Agent_Id: expected \"Host\" or an agent number";
        return -1;
    }
    if (csv_u64(&r->f[h->idx[RC_START]], &c->start_ns) < 0 ||
        csv_u64(&r->f[h->idx[RC_END]], &c->end_ns) < 0 || c->start_ns > INT64_MAX ||
        c->end_ns > INT64_MAX) {
        *why = "Start_Timestamp, End_Timestamp: expected integers (ns)";
        return -1;
    }
    if (c->end_ns < c->start_ns) {
        *why = "End_Timestamp is before Start_Timestamp";
        return -1;
    }
    if (opt_u64(r, RC_BYTES, CT_BYTES_UNKNOWN, &c->bytes) < 0) {
        *why = "Bytes: expected an integer or an empty cell";
        return -1;
    }
    if (opt_u64(r, RC_STREAM, 0, &c->stream) < 0 || opt_u64(r, RC_CORR, 0, &c->correlation) < 0) {
        *why = "Stream_Id, Correlation_Id: expected integers";
        return -1;
    }
    if ((*why = normalize(c)))
        return -1;
    return 0;
}

static int read_csv(struct rp_copies *cp, struct csv_src *src, const char *file)
{
    if (!src)
        return -1;
    struct crdr r = { .src = src, .file = file };
    const char *line;
    size_t len;
    int rc = csv_next_line(src, &line, &len);
    if (rc <= 0) {
        csv_close(src);
        return rc < 0 ? -1 : br_error_at(file, 0, 0, "empty file (no header)");
    }
    char *err = NULL;
    if (rp_header_parse(&r.h, line, len, &err) < 0 || r.h.kind != RP_KIND_COPY) {
        br_error_at(file, 1, 0, "%s", err ? err : "not a memory_copy_trace header (no Direction column)");
        free(err);
        rp_header_release(&r.h);
        csv_close(src);
        return -1;
    }
    uint32_t fi = add_file(cp, file, r.h.layout);
    r.f = xcalloc((size_t)r.h.ncols, sizeof(*r.f));
    rc = 0;
    int got = 0;
    while (rc == 0 && (got = csv_next_line(src, &line, &len)) > 0) {
        if (len == 0)
            continue;
        struct ct_copy c;
        const char *why = NULL;
        int e = parse_row(&r, line, len, &c, &why);
        if (e < 0 && csv_last_unterminated(src)) {
            br_warn("%s:%ld: truncated last line ignored (no newline; killed job?)", file,
                    csv_line_no(src));
            cp->truncated++;
        } else if (e < 0) {
            rc = br_error_at(file, csv_line_no(src), 0, "%s (%s layout)", why, r.h.layout);
        } else if (e > 0) {
            const struct csv_span *d = &r.f[r.h.idx[RC_DIRECTION]];
            note_unknown(cp, xasprintf("%s:%ld", file, csv_line_no(src)), d->p, d->n);
        } else {
            add_copy(cp, &c, fi);
        }
    }
    if (rc == 0 && got < 0)
        rc = -1;
    free(r.f);
    rp_header_release(&r.h);
    csv_close(src);
    return rc;
}

int rp_copies_read_mem(struct rp_copies *cp, const char *name, const void *data, size_t len)
{
    return read_csv(cp, csv_open_mem(name, data, len), name);
}

/* ---- rocpd ------------------------------------------------------------------------ */

struct dbctx {
    struct rp_copies *cp;
    uint32_t file;
    long row;
    char *err;
};

static int db_copy(void *ctx, const struct rocpd_memcopy *m)
{
    struct dbctx *x = ctx;
    struct ct_copy c = { .start_ns = m->start, .end_ns = m->end, .bytes = m->size };
    x->row++;
    if (m->src_agent > INT32_MAX || m->dst_agent > INT32_MAX) {
        x->err = xasprintf("view memory_copies, row %ld: agent index out of range", x->row);
        return -1;
    }
    c.src_agent = (int32_t)m->src_agent, c.dst_agent = (int32_t)m->dst_agent;
    if (rp_copy_dir_parse(m->name, m->name_len, &c.dir) < 0) {
        note_unknown(x->cp, xasprintf("%s: view memory_copies, row %ld", x->cp->files[x->file],
                                      x->row), m->name, m->name_len);
        return 0;
    }
    const char *why = normalize(&c);
    if (why) {
        x->err = xasprintf("view memory_copies, row %ld: %s", x->row, why);
        return -1;
    }
    add_copy(x->cp, &c, x->file);
    return 0;
}

static int read_db(struct rp_copies *cp, const char *path)
{
    struct rocpd_db *db;
    char *err = NULL;
    if (rocpd_open(&db, path, &err) < 0) {
        br_error("%s", err);
        free(err);
        return -1;
    }
    struct dbctx x = { .cp = cp, .file = add_file(cp, path, "rocpd memory_copies") };
    int rc = rocpd_each_memcopy(db, db_copy, &x, &err);
    rocpd_close(db);
    if (rc != 0) {
        if (x.err)
            br_error("%s: %s", path, x.err);
        else
            br_error("%s", err ? err : path);
    }
    free(x.err);
    free(err);
    return rc ? -1 : 0;
}

/* ---- files ------------------------------------------------------------------------- */

int rp_copies_load_files(struct rp_copies *cp, char *const *files)
{
    int rc = 0;
    for (char *const *f = files; f && *f && rc == 0; f++)
        rc = fs_ends_with(*f, ".csv") ? read_csv(cp, csv_open(*f), *f) : read_db(cp, *f);
    return rc;
}

int rp_copies_load(struct rp_copies *cp, const char *path)
{
    char **files = rp_find_copies(path);
    int rc = rp_copies_load_files(cp, files);
    str_array_free(files);
    return rc;
}

/* Length of path without its domain ending (the file set's prefix). */
static size_t set_prefix(const char *p)
{
    size_t n = strlen(p);
    if (fs_ends_with(p, COPY_SUFFIX))
        return n - strlen(COPY_SUFFIX);
    if (fs_ends_with(p, TRACE_SUFFIX))
        return n - strlen(TRACE_SUFFIX);
    if (fs_ends_with(p, RP_ROCPD_SUFFIX))
        return n - strlen(RP_ROCPD_SUFFIX) + 1;   /* keep the '_' of <prefix>_results.db */
    return n;
}

int rp_same_file_set(const char *a, const char *b)
{
    size_t na = set_prefix(a), nb = set_prefix(b);
    return na == nb && !strncmp(a, b, na);
}

static void push(char ***v, size_t *n, size_t *cap, const char *s)
{
    xgrow((void **)v, cap, *n + 2, sizeof(**v));
    (*v)[(*n)++] = xstrdup(s);
    (*v)[*n] = NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **rp_find_copies(const char *path)
{
    size_t n = 0, cap = 1;
    char **v = xcalloc(1, sizeof(*v));
    if (!fs_is_dir(path)) {   /* a copy trace, a database, or a kernel trace's twin */
        char *twin = fs_ends_with(path, TRACE_SUFFIX)
                         ? xasprintf("%.*s%s", (int)set_prefix(path), path, COPY_SUFFIX) : NULL;
        if (twin && fs_exists(twin))
            push(&v, &n, &cap, twin);
        else if (!twin && (fs_ends_with(path, COPY_SUFFIX) || rp_is_rocpd_path(path)))
            push(&v, &n, &cap, path);
        free(twin);
        return v;
    }
    char **csv = rp_find_files(path, COPY_SUFFIX), **db = rp_find_files(path, RP_ROCPD_SUFFIX);
    for (char **f = csv; *f; f++)
        push(&v, &n, &cap, *f);
    for (char **f = db; *f; f++) {
        char *twin = xasprintf("%.*s_%s", (int)(strlen(*f) - strlen(RP_ROCPD_SUFFIX)), *f, COPY_SUFFIX);
        if (!fs_exists(twin))
            push(&v, &n, &cap, *f);
        free(twin);
    }
    qsort(v, n, sizeof(*v), cmp_str);
    str_array_free(csv);
    str_array_free(db);
    return v;
}
