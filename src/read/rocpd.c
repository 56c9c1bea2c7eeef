/* rocpd.c - rocpd (SQLite) databases read through their own views (contract
 * and schema facts in rocpd.h). One connection per database, used by one
 * thread; every statement is SELECT * FROM <view> with the columns found by
 * name, so a schema that adds or reorders columns reads the same. */
#include "read/rocpd.h"

#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct rocpd_db {
    sqlite3 *db;
    char *name;
    uint64_t steps;          /* virtual-machine steps so far (step limit) */
};

static uint64_t g_step_limit;

void rocpd_set_step_limit(uint64_t n)
{
    g_step_limit = n;
}

#define STEP_CHUNK 1000

static int progress(void *arg)
{
    struct rocpd_db *d = arg;
    d->steps += STEP_CHUNK;
    return g_step_limit && d->steps > g_step_limit;
}

/* The formatted text (allocated). */
static char *vtext(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *vtext(const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    size_t size = (size_t)(n > 0 ? n : 0) + 1;
    char *text = xcalloc(size, 1);
    vsnprintf(text, size, fmt, ap);
    return text;
}

/* "name: <formatted>" (allocated). */
static char *msg(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *msg(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vtext(fmt, ap);
    va_end(ap);
    char *out = xasprintf("%s: %s", name, text);
    free(text);
    return out;
}

bool rocpd_is_sqlite(const void *head, size_t len)
{
    static const char magic[16] = "SQLite format 3";   /* with its NUL: 16 bytes */
    return len >= sizeof(magic) && memcmp(head, magic, sizeof(magic)) == 0;
}

/* file: URI of path (RFC 3986 percent-encoding of all but unreserved and /). */
static char *uri_for(const char *path, bool immutable)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/._~-", *p))
            sb_addc(&sb, (char)*p);
        else
            sb_addf(&sb, "%%%02X", *p);
    }
    sb_adds(&sb, immutable ? "?mode=ro&immutable=1" : "?mode=ro");
    return sb_detach(&sb);
}

/* Settings for a database whose SQL (its views) comes from the file. */
static void harden(struct rocpd_db *d)
{
    sqlite3_db_config(d->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_db_config(d->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_progress_handler(d->db, STEP_CHUNK, progress, d);
}

static int open_fail(struct rocpd_db *d, char **err, char *why)
{
    *err = why;
    rocpd_close(d);
    return -1;
}

int rocpd_open(struct rocpd_db **out, const char *path, char **err)
{
    *out = NULL;
    *err = NULL;
    struct rocpd_db *d = xcalloc(1, sizeof(*d));
    d->name = xstrdup(path);
    struct stat st;
    if (stat(path, &st) != 0)
        return open_fail(d, err, msg(path, "cannot open file"));
    if (st.st_size == 0)
        return open_fail(d, err, msg(path, "empty file (not a rocpd database)"));
    FILE *f = fopen(path, "rb");
    char head[16];
    size_t n = f ? fread(head, 1, sizeof(head), f) : 0;
    if (f)
        fclose(f);
    if (!f)
        return open_fail(d, err, msg(path, "cannot open file"));
    if (!rocpd_is_sqlite(head, n))
        return open_fail(d, err, msg(path, "not an SQLite database (a rocpd file starts with "
                                           "\"SQLite format 3\")"));
    /* immutable: no lock, no -shm; only when no -wal holds unfinished pages */
    char *wal = xasprintf("%s-wal", path);
    bool immutable = !fs_exists(wal);
    free(wal);
    char *uri = uri_for(path, immutable);
    int rc = sqlite3_open_v2(uri, &d->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
                             SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (rc != SQLITE_OK)
        return open_fail(d, err, msg(path, "cannot open the database: %s",
                                     d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc)));
    harden(d);
    *out = d;
    return 0;
}

int rocpd_open_mem(struct rocpd_db **out, const char *name, const void *data, size_t len,
                   char **err)
{
    *out = NULL;
    *err = NULL;
    struct rocpd_db *d = xcalloc(1, sizeof(*d));
    d->name = xstrdup(name);
    if (len == 0)
        return open_fail(d, err, msg(name, "empty file (not a rocpd database)"));
    if (!rocpd_is_sqlite(data, len))
        return open_fail(d, err, msg(name, "not an SQLite database (a rocpd file starts with "
                                           "\"SQLite format 3\")"));
    if (sqlite3_open_v2(":memory:", &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        return open_fail(d, err, msg(name, "cannot open an in-memory database"));
    unsigned char *copy = sqlite3_malloc64(len);
    if (!copy)
        return open_fail(d, err, msg(name, "out of memory"));
    memcpy(copy, data, len);
    if (sqlite3_deserialize(d->db, "main", copy, (sqlite3_int64)len, (sqlite3_int64)len,
                            SQLITE_DESERIALIZE_READONLY | SQLITE_DESERIALIZE_FREEONCLOSE) !=
        SQLITE_OK)
        return open_fail(d, err, msg(name, "cannot read the database: %s", sqlite3_errmsg(d->db)));
    harden(d);
    *out = d;
    return 0;
}

void rocpd_close(struct rocpd_db *d)
{
    if (!d)
        return;
    sqlite3_close(d->db);
    free(d->name);
    free(d);
}

const char *rocpd_name(const struct rocpd_db *d)
{
    return d->name;
}

/* ---- walking a view -------------------------------------------------------------- */

/* Columns read, each by one of up to three names (NULL-padded). */
enum col {
    C_NAME, C_DISPATCH, C_START, C_END, C_AGENT, C_CORR, C_LDS, C_SCRATCH, C_VGPR, C_AGPR,
    C_SGPR, C_WGX, C_WGY, C_WGZ, C_GRIDX, C_GRIDY, C_GRIDZ, C_WG, C_GRID, C_CNAME, C_VALUE,
    C_SIZE, C_SRC, C_DST, C_NCOL
};

struct colspec {
    const char *names[3];
    bool required;
};

struct view {
    const char *name;
    struct colspec col[C_NCOL];
};

static const struct view V_KERNELS = { "kernels", {
    [C_NAME] = { { "name" }, true }, [C_DISPATCH] = { { "dispatch_id" }, true },
    [C_START] = { { "start" }, true }, [C_END] = { { "end" }, true },
    [C_AGENT] = { { "agent_abs_index", "agent_absolute_index" }, false },
    [C_CORR] = { { "corr_id", "correlation_id" }, false },
    [C_LDS] = { { "lds_size" }, false }, [C_SCRATCH] = { { "scratch_size" }, false },
    [C_VGPR] = { { "vgpr_count", "arch_vgpr_count" }, false },
    [C_AGPR] = { { "accum_vgpr_count" }, false }, [C_SGPR] = { { "sgpr_count" }, false },
    /* grid_x is in work-items; some schemas also have grid_size_x = workgroups */
    [C_WGX] = { { "workgroup_x" }, false }, [C_WGY] = { { "workgroup_y" }, false },
    [C_WGZ] = { { "workgroup_z" }, false }, [C_GRIDX] = { { "grid_x" }, false },
    [C_GRIDY] = { { "grid_y" }, false }, [C_GRIDZ] = { { "grid_z" }, false },
} };

static const struct view V_COUNTERS = { "counters_collection", {
    [C_NAME] = { { "kernel_name" }, true }, [C_DISPATCH] = { { "dispatch_id" }, true },
    [C_START] = { { "start" }, true }, [C_END] = { { "end" }, true },
    [C_CNAME] = { { "counter_name" }, true }, [C_VALUE] = { { "value" }, true },
    [C_AGENT] = { { "agent_abs_index", "agent_absolute_index" }, false },
    [C_CORR] = { { "correlation_id", "corr_id" }, false },
    [C_LDS] = { { "lds_block_size" }, false }, [C_SCRATCH] = { { "scratch_size" }, false },
    [C_VGPR] = { { "vgpr_count", "arch_vgpr_count" }, false },
    [C_AGPR] = { { "accum_vgpr_count" }, false }, [C_SGPR] = { { "sgpr_count" }, false },
    [C_WGX] = { { "workgroup_size_x" }, false }, [C_WGY] = { { "workgroup_size_y" }, false },
    [C_WGZ] = { { "workgroup_size_z" }, false }, [C_GRIDX] = { { "grid_size_x" }, false },
    [C_GRIDY] = { { "grid_size_y" }, false }, [C_GRIDZ] = { { "grid_size_z" }, false },
    [C_WG] = { { "workgroup_size" }, false }, [C_GRID] = { { "grid_size" }, false },
} };

static const struct view V_MEMCOPIES = { "memory_copies", {
    [C_NAME] = { { "name" }, true }, [C_START] = { { "start" }, true },
    [C_END] = { { "end" }, true }, [C_SIZE] = { { "size" }, true },
    [C_SRC] = { { "src_agent_abs_index", "src_agent_absolute_index" }, false },
    [C_DST] = { { "dst_agent_abs_index", "dst_agent_absolute_index" }, false },
} };

struct walk {
    struct rocpd_db *d;
    const struct view *v;
    sqlite3_stmt *st;
    int idx[C_NCOL];         /* result column of each, -1 when absent */
    long row;                /* 1-based row being read */
    char *err;
};

/* The walk's first error: "file: view V[, row N: column C]: what"; col is a
 * result column, or -1 for the view as a whole. */
static int werr(struct walk *w, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int werr(struct walk *w, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vtext(fmt, ap);
    va_end(ap);
    if (!w->err)
        w->err = col < 0 ? msg(w->d->name, "view %s: %s", w->v->name, text)
                         : msg(w->d->name, "view %s, row %ld: column %s: %s", w->v->name, w->row,
                               sqlite3_column_name(w->st, col), text);
    free(text);
    return -1;
}

static int walk_open(struct walk *w, struct rocpd_db *d, const struct view *v)
{
    memset(w, 0, sizeof(*w));
    w->d = d;
    w->v = v;
    char *sql = xasprintf("SELECT * FROM \"%s\"", v->name);
    int rc = sqlite3_prepare_v2(d->db, sql, -1, &w->st, NULL);
    free(sql);
    if (rc != SQLITE_OK) {
        const char *why = sqlite3_errmsg(d->db);
        w->err = strstr(why, "no such table")
                     ? msg(d->name, "not a rocpd database: no view '%s' (rocprofv3 7.0+ "
                                    "databases have kernels, counters_collection, "
                                    "rocpd_info_agent)", v->name)
                     : msg(d->name, "view %s: %s", v->name, why);
        return -1;
    }
    int n = sqlite3_column_count(w->st);
    for (int c = 0; c < C_NCOL; c++) {
        w->idx[c] = -1;
        for (int a = 0; a < 3 && v->col[c].names[a] && w->idx[c] < 0; a++)
            for (int i = 0; i < n; i++)
                if (!strcasecmp(sqlite3_column_name(w->st, i), v->col[c].names[a])) {
                    w->idx[c] = i;
                    break;
                }
        if (w->idx[c] < 0 && v->col[c].required)
            return werr(w, -1, "no column %s", v->col[c].names[0]);
    }
    return 0;
}

static void walk_close(struct walk *w, char **err)
{
    sqlite3_finalize(w->st);
    if (err)
        *err = w->err;
    else
        free(w->err);
}

/* Next row: 1, 0 at the end, -1 on an error (corrupt file, step limit). */
static int walk_step(struct walk *w)
{
    int rc = sqlite3_step(w->st);
    if (rc == SQLITE_ROW) {
        w->row++;
        return 1;
    }
    if (rc == SQLITE_DONE)
        return 0;
    return werr(w, -1, "row %ld: %s", w->row + 1,
                rc == SQLITE_INTERRUPT ? "stopped (step limit)" : sqlite3_errmsg(w->d->db));
}

static const char *type_name(int t)
{
    return t == SQLITE_INTEGER ? "INTEGER" : t == SQLITE_FLOAT ? "REAL" : t == SQLITE_TEXT ? "TEXT"
         : t == SQLITE_BLOB ? "BLOB" : "NULL";
}

/* What a bad value looked like: type and (for text) the first characters. */
static int bad_value(struct walk *w, enum col c, const char *want)
{
    int t = sqlite3_column_type(w->st, w->idx[c]);
    if (t == SQLITE_TEXT)
        return werr(w, w->idx[c], "expected %s, got TEXT '%.60s'", want,
                    (const char *)sqlite3_column_text(w->st, w->idx[c]));
    return werr(w, w->idx[c], "expected %s, got %s", want, type_name(t));
}

/* Non-negative integer column (absent or NULL optional column: 0). */
static int col_u64(struct walk *w, enum col c, uint64_t max, uint64_t *out)
{
    *out = 0;
    int i = w->idx[c];
    if (i < 0)
        return 0;
    int t = sqlite3_column_type(w->st, i);
    if (t == SQLITE_NULL && !w->v->col[c].required)
        return 0;
    if (t == SQLITE_INTEGER) {
        sqlite3_int64 v = sqlite3_column_int64(w->st, i);
        if (v < 0 || (uint64_t)v > max)
            return werr(w, i, "%lld is out of range", (long long)v);
        *out = (uint64_t)v;
        return 0;
    }
    if (t == SQLITE_FLOAT) {          /* an integral REAL (some writers) */
        double v = sqlite3_column_double(w->st, i);
        if (v >= 0 && v <= 9.007199254740992e15 && v == floor(v) && (uint64_t)v <= max) {
            *out = (uint64_t)v;
            return 0;
        }
    }
    return bad_value(w, c, "a non-negative integer");
}

static int col_text(struct walk *w, enum col c, const char **s, size_t *len)
{
    int i = w->idx[c];
    if (sqlite3_column_type(w->st, i) != SQLITE_TEXT)
        return bad_value(w, c, "text");
    *s = (const char *)sqlite3_column_text(w->st, i);
    *len = (size_t)sqlite3_column_bytes(w->st, i);
    return *s ? 0 : werr(w, i, "out of memory");
}

static int col_double(struct walk *w, enum col c, double *out)
{
    int t = sqlite3_column_type(w->st, w->idx[c]);
    if (t != SQLITE_INTEGER && t != SQLITE_FLOAT)
        return bad_value(w, c, "a number");
    *out = sqlite3_column_double(w->st, w->idx[c]);
    return 0;
}

/* a x b x c, or the product column when the view has one. */
static int product(struct walk *w, enum col total, const uint64_t *xyz, uint64_t *out)
{
    if (w->idx[total] >= 0)
        return col_u64(w, total, UINT64_MAX - 1, out);
    uint64_t p = 1;
    bool any = false;
    for (int i = 0; i < 3; i++) {
        if (!xyz[i])
            continue;
        any = true;
        if (__builtin_mul_overflow(p, xyz[i], &p))
            return werr(w, w->idx[total == C_WG ? C_WGX : C_GRIDX], "the size product overflows");
    }
    *out = any ? p : 0;
    return 0;
}

static int read_dispatch(struct walk *w, struct rocpd_dispatch *d)
{
    memset(d, 0, sizeof(*d));
    uint64_t v[11];
    static const enum col ints[11] = { C_VGPR, C_AGPR, C_SGPR, C_LDS, C_SCRATCH, C_WGX, C_WGY,
                                       C_WGZ, C_GRIDX, C_GRIDY, C_GRIDZ };
    if (col_text(w, C_NAME, &d->name, &d->name_len) < 0 ||
        col_u64(w, C_DISPATCH, UINT64_MAX - 1, &d->dispatch_id) < 0 ||
        col_u64(w, C_START, INT64_MAX, &d->start) < 0 || col_u64(w, C_END, INT64_MAX, &d->end) < 0 ||
        col_u64(w, C_AGENT, UINT64_MAX - 1, &d->agent) < 0 ||
        col_u64(w, C_CORR, UINT64_MAX - 1, &d->corr_id) < 0)
        return -1;
    if (d->end < d->start)
        return werr(w, w->idx[C_END], "end %llu is before start %llu", (unsigned long long)d->end,
                    (unsigned long long)d->start);
    for (int i = 0; i < 11; i++)
        if (col_u64(w, ints[i], i < 3 || (i >= 5 && i < 8) ? UINT32_MAX : UINT64_MAX - 1, &v[i]) < 0)
            return -1;
    struct rp_kattr *a = &d->attr;
    *a = (struct rp_kattr){ .vgpr = (uint32_t)v[0], .agpr = (uint32_t)v[1], .sgpr = (uint32_t)v[2],
                            .lds = v[3], .scratch = v[4], .wg_x = (uint32_t)v[5],
                            .wg_y = (uint32_t)v[6], .wg_z = (uint32_t)v[7], .seen = true,
                            .has_agpr = w->idx[C_AGPR] >= 0 };
    return product(w, C_WG, &v[5], &a->wg_size) < 0 || product(w, C_GRID, &v[8], &a->grid_size) < 0
               ? -1 : 0;
}

int rocpd_each_dispatch(struct rocpd_db *db, rocpd_dispatch_fn fn, void *ctx, char **err)
{
    struct walk w;
    int rc = walk_open(&w, db, &V_KERNELS);
    while (rc == 0 && (rc = walk_step(&w)) == 1) {
        struct rocpd_dispatch d;
        rc = read_dispatch(&w, &d);
        if (rc == 0)
            rc = fn(ctx, &d);
    }
    walk_close(&w, err);
    return rc;
}

int rocpd_each_counter(struct rocpd_db *db, rocpd_counter_fn fn, void *ctx, char **err)
{
    struct walk w;
    int rc = walk_open(&w, db, &V_COUNTERS);
    while (rc == 0 && (rc = walk_step(&w)) == 1) {
        struct rocpd_dispatch d;
        const char *cn = NULL;
        size_t cl = 0;
        double v = 0;
        rc = read_dispatch(&w, &d) < 0 || col_text(&w, C_CNAME, &cn, &cl) < 0 ||
             col_double(&w, C_VALUE, &v) < 0 ? -1 : 0;
        if (rc == 0)
            rc = fn(ctx, &d, cn, cl, v);
    }
    walk_close(&w, err);
    return rc;
}

int rocpd_each_memcopy(struct rocpd_db *db, rocpd_memcopy_fn fn, void *ctx, char **err)
{
    struct walk w;
    int rc = walk_open(&w, db, &V_MEMCOPIES);
    while (rc == 0 && (rc = walk_step(&w)) == 1) {
        struct rocpd_memcopy m;
        memset(&m, 0, sizeof(m));
        rc = col_text(&w, C_NAME, &m.name, &m.name_len) < 0 ||
             col_u64(&w, C_START, INT64_MAX, &m.start) < 0 ||
             col_u64(&w, C_END, INT64_MAX, &m.end) < 0 ||
             col_u64(&w, C_SIZE, UINT64_MAX - 1, &m.size) < 0 ||
             col_u64(&w, C_SRC, UINT64_MAX - 1, &m.src_agent) < 0 ||
             col_u64(&w, C_DST, UINT64_MAX - 1, &m.dst_agent) < 0 ? -1 : 0;
        if (rc == 0 && m.end < m.start)
            rc = werr(&w, w.idx[C_END], "end %llu is before start %llu", (unsigned long long)m.end,
                      (unsigned long long)m.start);
        if (rc == 0)
            rc = fn(ctx, &m);
    }
    walk_close(&w, err);
    return rc;
}

/* ---- agents ------------------------------------------------------------------------ */

struct kv {
    char **keys, **vals;
    uint32_t n, cap;
};

static void kv_add(struct kv *kv, const char *k, const char *v)
{
    if (kv->n + 2 > kv->cap) {
        kv->cap = kv->cap ? kv->cap * 2 : 64;
        kv->keys = xrealloc(kv->keys, kv->cap * sizeof(char *));
        kv->vals = xrealloc(kv->vals, kv->cap * sizeof(char *));
    }
    kv->keys[kv->n] = xstrdup(k);
    kv->vals[kv->n++] = xstrdup(v);
    kv->keys[kv->n] = kv->vals[kv->n] = NULL;
}

static void kv_free(struct kv *kv)
{
    str_array_free(kv->keys);
    str_array_free(kv->vals);
    memset(kv, 0, sizeof(*kv));
}

/* The agent record's scalar fields (numbers, strings, booleans). */
static int extdata_fields(struct walk *w, int col, struct kv *kv)
{
    const char *text = (const char *)sqlite3_column_text(w->st, col);
    if (!text || !*text)
        return 0;
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return werr(w, col, "expected a JSON object (%s)", o ? "not an object" : je.text);
    }
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        char buf[64];
        if (json_is_integer(v))
            snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
        else if (json_is_boolean(v))
            snprintf(buf, sizeof(buf), "%d", json_is_true(v));
        if (json_is_string(v))
            kv_add(kv, k, json_string_value(v));
        else if (json_is_number(v) || json_is_boolean(v))
            kv_add(kv, k, buf);
    }
    json_decref(o);
    return 0;
}

static int agent_row(struct walk *w, struct kv *kv)
{
    int n = sqlite3_column_count(w->st), ext = -1;
    for (int i = 0; i < n; i++) {
        const char *name = sqlite3_column_name(w->st, i);
        if (!strcasecmp(name, "extdata")) {
            ext = i;
            continue;
        }
        const char *v = (const char *)sqlite3_column_text(w->st, i);
        kv_add(kv, name, v ? v : "");
    }
    return ext >= 0 ? extdata_fields(w, ext, kv) : 0;
}

int rocpd_agent(struct rocpd_db *db, struct rp_agent *ag, char **err)
{
    static const struct view V_AGENTS = { "rocpd_info_agent", {
        [C_NAME] = { { "type" }, true }, [C_AGENT] = { { "absolute_index" }, false },
    } };
    memset(ag, 0, sizeof(*ag));
    struct walk w;
    struct kv best = { 0 };
    uint64_t best_index = UINT64_MAX;
    int rc = walk_open(&w, db, &V_AGENTS);
    while (rc == 0 && (rc = walk_step(&w)) == 1) {
        rc = 0;
        uint64_t index;
        int t = sqlite3_column_type(w.st, w.idx[C_NAME]);
        const char *type = t == SQLITE_TEXT ? (const char *)sqlite3_column_text(w.st, w.idx[C_NAME]) : "";
        if (!type || strcmp(type, "GPU") != 0)
            continue;
        if ((rc = col_u64(&w, C_AGENT, UINT64_MAX - 1, &index)) < 0)
            break;
        if (best.n && index >= best_index)
            continue;
        struct kv row = { 0 };
        if ((rc = agent_row(&w, &row)) < 0) {
            kv_free(&row);
            break;
        }
        kv_free(&best);
        best = row;
        best_index = index;
    }
    walk_close(&w, err);
    if (rc == 0 && best.n) {
        *ag = (struct rp_agent){ .present = true, .file = xstrdup(db->name), .ncols = best.n,
                                 .keys = best.keys, .vals = best.vals };
        return 0;
    }
    kv_free(&best);
    return rc;
}
