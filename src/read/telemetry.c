/* telemetry.c - streaming reader of the sampler's telemetry CSV (docs/design.md §10).
 *
 * Owns: line framing over a file descriptor or a memory buffer (large block
 * reads, one buffer that grows only for an over-long line), the metadata line,
 * the header/column plan, and exact number conversion. Contract in telemetry.h.
 *
 * Number conversion: a decimal with at most 19 significant digits whose value
 * m fits in 2^53 and whose power of ten |e| <= 22 is computed as m * 10^e or
 * m / 10^-e: both operands are exact doubles, so the one IEEE operation gives
 * the correctly rounded result (Clinger's fast path; W. D. Clinger, "How to
 * read floating point numbers accurately", PLDI 1990). Anything else goes to
 * strtod, which glibc rounds correctly. Either way the result equals strtod's.
 */
#include "read/telemetry.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const br_telem_value_names[BR_TV_COUNT] = {
    [BR_TV_SOCKET_POWER] = "current_socket_power_W",
    [BR_TV_INST_POWER] = "inst_power_W",
    [BR_TV_GFX_CLOCK] = "gfx_clock_MHz",
    [BR_TV_EDGE_TEMP] = "edge_temp_C",
    [BR_TV_HOTSPOT_TEMP] = "hotspot_temp_C",
};

enum { BLOCK = 1 << 20 };          /* bytes per read(2) */
enum { TELEM_MAX_LINE = 16 << 20 }; /* a sample line is ~100 bytes */
enum { PLAN_SKIP = -1, PLAN_TIME = -2 };

struct br_telem {
    char *name;
    int fd;                        /* -1 when reading from memory */
    char *buf;                     /* fd mode: owned buffer */
    const char *data;              /* current window: data[beg..end) */
    size_t cap, beg, end;
    bool eof;                      /* no more bytes beyond data[end] */
    long line;                     /* number of the last line handed out */
    long rows;
    bool truncated, done;
    char **mkeys, **mvals;
    size_t nmeta;
    char **cols;
    size_t ncols;
    int *plan;                     /* per column: PLAN_*, or a value index */
    int *plan_extra;               /* per column: extra slot or -1 */
    size_t last_parsed;            /* highest column index that is parsed */
    double *extra;
    size_t nextra;
};

/* ---- line framing ------------------------------------------------------ */

/* Reads more bytes after compacting the window; grows the buffer when one
 * line fills it. Returns bytes read, 0 at end of file, -1 on error. */
static ssize_t fill(struct br_telem *t)
{
    if (t->beg > 0) {
        memmove(t->buf, t->buf + t->beg, t->end - t->beg);
        t->end -= t->beg;
        t->beg = 0;
    }
    if (t->cap - t->end < BLOCK / 2) {
        if (t->end >= TELEM_MAX_LINE)   /* one line fills it: bounded memory */
            return br_error("%s:%ld: a line longer than %d MiB: not a telemetry file?", t->name,
                            t->line + 1, TELEM_MAX_LINE >> 20);
        t->cap *= 2;
        t->buf = xrealloc(t->buf, t->cap);
    }
    t->data = t->buf;
    for (;;) {
        ssize_t n = read(t->fd, t->buf + t->end, t->cap - t->end);
        if (n >= 0) {
            t->end += (size_t)n;
            return n;
        }
        if (errno != EINTR)
            return br_error("cannot read '%s': %s", t->name, strerror(errno));
    }
}

/* Next line without its end (\n or \r\n). Returns 1 with [*ls, *le) and
 * *has_nl, 0 at end of input, -1 on a read error. */
static int next_line(struct br_telem *t, const char **ls, const char **le, bool *has_nl)
{
    for (;;) {
        const char *p = t->data + t->beg;
        size_t avail = t->end - t->beg;
        const char *nl = memchr(p, '\n', avail);
        if (nl || (t->eof && avail > 0)) {
            const char *e = nl ? nl : p + avail;
            t->beg = (size_t)(e - t->data) + (nl ? 1 : 0);
            if (e > p && e[-1] == '\r')
                e--;
            *ls = p;
            *le = e;
            *has_nl = nl != NULL;
            t->line++;
            return 1;
        }
        if (t->eof)
            return 0;
        ssize_t n = fill(t);
        if (n < 0)
            return -1;
        if (n == 0)
            t->eof = true;
    }
}

/* ---- numbers ----------------------------------------------------------- */

static const double pow10_exact[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static inline void trim(const char **s, const char **e)
{
    while (*s < *e && is_blank(**s))
        (*s)++;
    while (*e > *s && is_blank((*e)[-1]))
        (*e)--;
}

static bool word_eq(const char *s, const char *e, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(e - s) == n && strncasecmp(s, w, n) == 0;
}

/* Slow path: strtod on a NUL-terminated copy. */
static int parse_slow(const char *s, const char *e, double *out)
{
    char small[64];
    size_t n = (size_t)(e - s);
    char *copy = n < sizeof(small) ? small : xmalloc(n + 1);
    memcpy(copy, s, n);
    copy[n] = '\0';
    char *end;
    *out = strtod(copy, &end);
    int rc = end == copy + n ? 0 : -1;
    if (copy != small)
        free(copy);
    return rc;
}

/* End of the field that starts at s: the next ',' or e. */
static inline const char *field_end(const char *s, const char *e)
{
    while (s < e && *s != ',')
        s++;
    return s;
}

/* After a value: blanks, then the field must end. The stop pointer, or NULL
 * when something else follows. */
static inline const char *after_value(const char *s, const char *e)
{
    while (s < e && is_blank(*s))
        s++;
    return s == e || *s == ',' ? s : NULL;
}

/* nan, inf, infinity (any case) at s. */
static const char *scan_word(const char *s, const char *e, bool neg, double *out)
{
    const char *w = s;
    while (w < e && ((*w | 0x20) >= 'a' && (*w | 0x20) <= 'z'))
        w++;
    if (word_eq(s, w, "nan"))
        *out = NAN;
    else if (word_eq(s, w, "inf") || word_eq(s, w, "infinity"))
        *out = neg ? -INFINITY : INFINITY;
    else
        return NULL;
    return after_value(w, e);
}

/* Decimal digits of a number, as m * 10^dexp with m the first 19
 * significant digits; *many when more were seen. */
struct decimal {
    uint64_t m;
    int sig, dexp, ndig;
    bool many;
};

/* Mantissa "digits[.digits]" at s; returns the first char after it. Works
 * on locals (kept in registers) and stores them once. */
static inline const char *scan_mantissa(const char *s, const char *e, struct decimal *d)
{
    uint64_t m = 0;
    int sig = 0, dexp = 0, ndig = 0;
    bool many = false;
    for (; s < e && *s >= '0' && *s <= '9'; s++, ndig++) {
        if (m == 0 && *s == '0')
            continue;
        if (sig < 19)
            m = m * 10 + (uint64_t)(*s - '0'), sig++;
        else
            many = true, dexp++;
    }
    if (s < e && *s == '.') {
        for (s++; s < e && *s >= '0' && *s <= '9'; s++, ndig++) {
            if (m == 0 && *s == '0') {
                dexp--;
                continue;
            }
            if (sig < 19)
                m = m * 10 + (uint64_t)(*s - '0'), sig++, dexp--;
            else
                many = true;
        }
    }
    *d = (struct decimal){ .m = m, .sig = sig, .dexp = dexp, .ndig = ndig, .many = many };
    return s;
}

/* Optional exponent "(e|E)[+-]digits" at s, added to d->dexp; NULL when
 * malformed. */
static inline const char *scan_exponent(const char *s, const char *e, struct decimal *d)
{
    if (s == e || (*s != 'e' && *s != 'E'))
        return s;
    s++;
    bool eneg = s < e && *s == '-';
    if (s < e && (*s == '-' || *s == '+'))
        s++;
    if (s == e || *s < '0' || *s > '9')
        return NULL;
    long x = 0;
    for (; s < e && *s >= '0' && *s <= '9'; s++)
        x = x < 100000 ? x * 10 + (*s - '0') : x;
    d->dexp += (int)(eneg ? -x : x);
    return s;
}

/* Parses the number of the field starting at s (the line ends at e).
 * Decimal grammar: [+-] digits [. digits] [(e|E) [+-] digits], at least one
 * mantissa digit; also nan/inf/infinity (any case) and an empty field (NaN);
 * blanks around it are allowed. Returns the field's end (',' or e) with *out
 * set, or NULL when the field is not a number. */
static const char *scan_number(const char *s, const char *e, double *out)
{
    while (s < e && is_blank(*s))
        s++;
    const char *start = s;
    bool neg = s < e && *s == '-';
    if (s < e && (*s == '-' || *s == '+'))
        s++;
    if (s == e || *s == ',' || is_blank(*s)) {
        *out = NAN;
        return s == start ? after_value(s, e) : NULL;
    }
    if (*s == 'n' || *s == 'N' || *s == 'i' || *s == 'I')
        return scan_word(s, e, neg, out);
    struct decimal d = { 0 };
    s = scan_mantissa(s, e, &d);
    if (d.ndig == 0 || !(s = scan_exponent(s, e, &d)))
        return NULL;
    const char *stop = after_value(s, e);
    if (!stop)
        return NULL;
    if (d.m == 0) {
        *out = neg ? -0.0 : 0.0;
    } else if (d.many || d.m > (1ULL << 53) || d.dexp < -22 || d.dexp > 22) {
        if (parse_slow(start, s, out) != 0)
            return NULL;
    } else {
        double v = (double)d.m;
        v = d.dexp < 0 ? v / pow10_exact[-d.dexp] : v * pow10_exact[d.dexp];
        *out = neg ? -v : v;
    }
    return stop;
}

/* Non-negative decimal integer that fits int64, as scan_number. Up to 18
 * digits cannot overflow (10^18 < 2^63), so only longer ones are checked. */
static const char *scan_int64(const char *s, const char *e, int64_t *out)
{
    while (s < e && is_blank(*s))
        s++;
    const char *start = s, *safe = e - s > 18 ? s + 18 : e;
    uint64_t v = 0;
    for (; s < safe && *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (uint64_t)(*s - '0');
    for (; s < e && *s >= '0' && *s <= '9'; s++) {
        if (v > (uint64_t)INT64_MAX / 10 || v * 10 + (uint64_t)(*s - '0') > (uint64_t)INT64_MAX)
            return NULL;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (s == start)
        return NULL;
    *out = (int64_t)v;
    return after_value(s, e);
}

/* ---- metadata and header ----------------------------------------------- */

static void meta_add(struct br_telem *t, const char *k, size_t kn, const char *v, size_t vn)
{
    t->mkeys = xrealloc(t->mkeys, (t->nmeta + 1) * sizeof(*t->mkeys));
    t->mvals = xrealloc(t->mvals, (t->nmeta + 1) * sizeof(*t->mvals));
    t->mkeys[t->nmeta] = xstrndup(k, kn);
    t->mvals[t->nmeta] = xstrndup(v, vn);
    t->nmeta++;
}

static bool is_meta_sep(char c) { return is_blank(c) || c == ',' || c == ';'; }

/* True when the word at s (up to a separator) is a key=value pair. */
static bool next_is_pair(const char *s, const char *e)
{
    for (; s < e && !is_meta_sep(*s); s++)
        if (*s == '=')
            return true;
    return false;
}

/* key=value pairs separated by blanks, ';' or ','; a ',' followed by a word
 * without '=' continues the value (a list, as the sampler's caps=a,b,c). A
 * value may be double-quoted to hold separators. Words without '=' (e.g. a
 * tool name) are ignored. */
static void parse_meta(struct br_telem *t, const char *s, const char *e)
{
    while (s < e && (*s == '#' || is_blank(*s)))
        s++;
    while (s < e) {
        while (s < e && is_meta_sep(*s))
            s++;
        const char *k = s;
        while (s < e && !is_meta_sep(*s) && *s != '=')
            s++;
        if (s == e || *s != '=' || s == k) {
            while (s < e && !is_meta_sep(*s))
                s++;
            continue;
        }
        const char *ke = s++;
        const char *v = s, *ve;
        if (s < e && *s == '"') {
            v = ++s;
            while (s < e && *s != '"')
                s++;
            ve = s;
            if (s < e)
                s++;
        } else {
            while (s < e && !is_meta_sep(*s))
                s++;
            while (s < e && *s == ',' && !next_is_pair(s + 1, e))
                for (s++; s < e && !is_meta_sep(*s); s++)
                    ;                      /* a list value: caps=a,b,c */
            ve = s;
        }
        meta_add(t, k, (size_t)(ke - k), v, (size_t)(ve - v));
    }
}

static int find_col(const struct br_telem *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i], name) == 0)
            return (int)i;
    return -1;
}

/* Splits the header into names (blanks and double quotes around a name are
 * dropped) and checks for duplicates. */
static int split_header(struct br_telem *t, const char *s, const char *e)
{
    for (;;) {
        const char *f = s;
        while (s < e && *s != ',')
            s++;
        const char *fe = s;
        trim(&f, &fe);
        if (fe - f >= 2 && *f == '"' && fe[-1] == '"')
            f++, fe--;
        char *name = xstrndup(f, (size_t)(fe - f));
        if (*name && find_col(t, name) >= 0) {
            br_error_at(t->name, t->line, 0, "duplicate column '%s' in the header", name);
            free(name);
            return -1;
        }
        t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof(*t->cols));
        t->cols[t->ncols++] = name;
        if (s == e)
            return 0;
        s++;
    }
}

/* Builds the per-column plan: timestamp, a required value, or skip. */
static int plan_columns(struct br_telem *t)
{
    t->plan = xmalloc(t->ncols * sizeof(*t->plan));
    t->plan_extra = xmalloc(t->ncols * sizeof(*t->plan_extra));
    for (size_t i = 0; i < t->ncols; i++)
        t->plan[i] = PLAN_SKIP, t->plan_extra[i] = -1;
    int ts = find_col(t, BR_TELEM_TIMESTAMP_COL);
    if (ts < 0)
        return br_error_at(t->name, t->line, 0, "missing column '%s' in the header",
                           BR_TELEM_TIMESTAMP_COL);
    t->plan[ts] = PLAN_TIME;
    for (int v = 0; v < BR_TV_COUNT; v++) {
        int c = find_col(t, br_telem_value_names[v]);
        if (c < 0)
            return br_error_at(t->name, t->line, 0, "missing column '%s' in the header",
                               br_telem_value_names[v]);
        t->plan[c] = v;
        if ((size_t)c > t->last_parsed)
            t->last_parsed = (size_t)c;
    }
    if ((size_t)ts > t->last_parsed)
        t->last_parsed = (size_t)ts;
    return 0;
}

/* True when one comma-separated field of the line is "timestamp_ns": the
 * line is a header (a file with no metadata line). */
static bool has_timestamp_field(const char *s, const char *e)
{
    while (s <= e) {
        const char *c = memchr(s, ',', (size_t)(e - s));
        const char *f = s, *fe = c ? c : e;
        trim(&f, &fe);
        if (fe - f >= 2 && *f == '"' && fe[-1] == '"')
            f++, fe--;
        size_t n = strlen(BR_TELEM_TIMESTAMP_COL);
        if ((size_t)(fe - f) == n && memcmp(f, BR_TELEM_TIMESTAMP_COL, n) == 0)
            return true;
        if (!c)
            break;
        s = c + 1;
    }
    return false;
}

/* Lines 1-2: metadata (optional) and header. */
static int read_head(struct br_telem *t)
{
    const char *s, *e;
    bool nl;
    int rc = next_line(t, &s, &e, &nl);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return br_error_at(t->name, 0, 0, "empty file: expected a metadata line and a "
                                          "header (timestamp_ns,...)");
    if (!has_timestamp_field(s, e)) {
        parse_meta(t, s, e);
        rc = next_line(t, &s, &e, &nl);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return br_error_at(t->name, t->line + 1, 0,
                               "expected the header line (timestamp_ns,...), found end of file");
    }
    if (split_header(t, s, e) != 0)
        return -1;
    return plan_columns(t);
}

/* ---- public API -------------------------------------------------------- */

static struct br_telem *telem_new(const char *name)
{
    struct br_telem *t = xcalloc(1, sizeof(*t));
    t->name = xstrdup(name);
    t->fd = -1;
    return t;
}

static struct br_telem *finish_open(struct br_telem *t)
{
    if (read_head(t) != 0) {
        br_telem_close(t);
        return NULL;
    }
    return t;
}

struct br_telem *br_telem_open(const char *path)
{
    char *why;
    int fd = fs_open_read(path, &why);
    if (fd < 0) {
        br_error("cannot open '%s': %s", path, why);
        free(why);
        return NULL;
    }
    struct br_telem *t = telem_new(path);
    t->fd = fd;
    t->cap = 2 * BLOCK;
    t->buf = xmalloc(t->cap);
    t->data = t->buf;
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return finish_open(t);
}

struct br_telem *br_telem_open_mem(const char *name, const void *data, size_t len)
{
    struct br_telem *t = telem_new(name);
    t->data = len ? data : "";
    t->end = len;
    t->eof = true;
    return finish_open(t);
}

void br_telem_close(struct br_telem *t)
{
    if (!t)
        return;
    if (t->fd >= 0)
        close(t->fd);
    for (size_t i = 0; i < t->nmeta; i++)
        free(t->mkeys[i]), free(t->mvals[i]);
    for (size_t i = 0; i < t->ncols; i++)
        free(t->cols[i]);
    free(t->mkeys);
    free(t->mvals);
    free(t->cols);
    free(t->plan);
    free(t->plan_extra);
    free(t->extra);
    free(t->buf);
    free(t->name);
    free(t);
}

int br_telem_want(struct br_telem *t, const char *name)
{
    int c = find_col(t, name);
    if (c < 0)
        return -1;
    if (t->plan_extra[c] >= 0)
        return t->plan_extra[c];
    t->plan_extra[c] = (int)t->nextra;
    if ((size_t)c > t->last_parsed)
        t->last_parsed = (size_t)c;
    t->extra = xrealloc(t->extra, (t->nextra + 1) * sizeof(*t->extra));
    t->extra[t->nextra] = NAN;
    return (int)t->nextra++;
}

/* One parsed field of a row into *row according to the column plan;
 * *s moves from the field start to its end (',' or e). */
static int store_field(struct br_telem *t, size_t col, const char **s, const char *e,
                       struct br_telem_row *row)
{
    const char *f = *s, *stop;
    int p = t->plan[col], x = t->plan_extra[col];
    if (p == PLAN_TIME) {
        stop = scan_int64(f, e, &row->timestamp_ns);
        if (stop) {
            *s = stop;
            return 0;
        }
        const char *fe = field_end(f, e);
        return br_error_at(t->name, t->line, 0, "column '%s': expected a non-negative "
                           "integer (ns), found '%.*s'", t->cols[col], (int)(fe - f), f);
    }
    double v;
    stop = scan_number(f, e, &v);
    if (!stop) {
        const char *fe = field_end(f, e);
        return br_error_at(t->name, t->line, 0, "column '%s': expected a number or nan, "
                           "found '%.*s'", t->cols[col], (int)(fe - f), f);
    }
    if (p >= 0)
        row->v[p] = v;
    if (x >= 0)
        t->extra[x] = v;
    *s = stop;
    return 0;
}

/* Number of ',' in [s, e), 8 bytes at a time: in x = word ^ ",,,,,,,,", a
 * byte is zero exactly where the word held ','; ~(((x & 0x7F..) + 0x7F..) |
 * x | 0x7F..) has the top bit set in exactly those bytes (the exact form of
 * the "has zero byte" test, S. E. Anderson, Bit Twiddling Hacks); a multiply
 * by 0x0101.. sums the 0/1 bytes into the top byte (at most 8: no carry). */
static size_t count_commas(const char *s, const char *e)
{
    const uint64_t ones7 = 0x7F7F7F7F7F7F7F7FULL, commas = 0x2C2C2C2C2C2C2C2CULL;
    size_t n = 0;
    for (; e - s >= 8; s += 8) {
        uint64_t w;
        memcpy(&w, s, sizeof(w));
        uint64_t x = w ^ commas;
        uint64_t hit = ~(((x & ones7) + ones7) | x | ones7) >> 7;   /* 0x01 per ',' */
        n += (size_t)((hit * 0x0101010101010101ULL) >> 56);       /* sum of the bytes */
    }
    for (; s < e; s++)
        n += *s == ',';
    return n;
}

/* Splits one data line over the plan (parsing stops after the last column
 * asked for; the rest is only counted); checks the field count. */
static int parse_row(struct br_telem *t, const char *s, const char *e, struct br_telem_row *row)
{
    size_t col = 0;
    size_t nfields;
    for (;; col++) {
        if (col == t->last_parsed) {       /* nothing more to parse: count the rest */
            if (store_field(t, col, &s, e, row) != 0)
                return -1;
            nfields = col + 1 + count_commas(s, e);
            break;
        }
        if (t->plan[col] == PLAN_SKIP && t->plan_extra[col] < 0)
            s = field_end(s, e);
        else if (store_field(t, col, &s, e, row) != 0)
            return -1;
        if (s == e) {
            nfields = col + 1;
            break;
        }
        s++;
    }
    if (nfields != t->ncols)
        return br_error_at(t->name, t->line, 0, "expected %zu fields as in the header, "
                           "found %zu", t->ncols, nfields);
    return 0;
}

int br_telem_next(struct br_telem *t, struct br_telem_row *row)
{
    while (!t->done) {
        const char *s, *e;
        bool nl;
        int rc = next_line(t, &s, &e, &nl);
        if (rc <= 0) {
            t->done = true;
            return rc;
        }
        if (!nl) {
            t->truncated = true;
            t->done = true;
            br_warn("%s:%ld: last line has no end (cut short, e.g. a killed job): ignored",
                    t->name, t->line);
            return 0;
        }
        if (s == e)
            continue;                      /* blank line */
        row->line = t->line;
        row->extra = t->extra;
        if (parse_row(t, s, e, row) != 0) {
            t->done = true;
            return -1;
        }
        t->rows++;
        return 1;
    }
    return 0;
}

size_t br_telem_meta_count(const struct br_telem *t) { return t->nmeta; }
const char *br_telem_meta_key(const struct br_telem *t, size_t i) { return t->mkeys[i]; }
const char *br_telem_meta_value(const struct br_telem *t, size_t i) { return t->mvals[i]; }

const char *br_telem_meta(const struct br_telem *t, const char *key)
{
    for (size_t i = 0; i < t->nmeta; i++)
        if (strcmp(t->mkeys[i], key) == 0)
            return t->mvals[i];
    return NULL;
}

size_t br_telem_ncols(const struct br_telem *t) { return t->ncols; }
const char *br_telem_colname(const struct br_telem *t, size_t i) { return t->cols[i]; }
int br_telem_col(const struct br_telem *t, const char *name) { return find_col(t, name); }
const char *br_telem_name(const struct br_telem *t) { return t->name; }
long br_telem_rows(const struct br_telem *t) { return t->rows; }
bool br_telem_truncated(const struct br_telem *t) { return t->truncated; }

bool br_telem_is_sample_file(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    static const char prefix[] = "profiling_result_", suffix[] = ".csv",
                      driver[] = "_driver_power.csv";
    size_t n = strlen(base);
    if (strncmp(base, prefix, sizeof(prefix) - 1) != 0 || n < sizeof(suffix) - 1 ||
        strcmp(base + n - (sizeof(suffix) - 1), suffix) != 0)
        return false;
    return !(n >= sizeof(driver) - 1 && strcmp(base + n - (sizeof(driver) - 1), driver) == 0);
}
