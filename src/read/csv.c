/* csv.c - block line reader, structural field splitter and exact number
 * parsing for rocprofv3 CSV (contract in csv.h).
 *
 * Owns one read buffer per source (4 MiB to start, doubled only for a line
 * longer than the buffer, up to CSV_MAX_LINE: a longer line is an error). Numbers: a mantissa of at most 19 digits times an
 * exact power of ten is one correctly rounded IEEE operation when the
 * mantissa is below 2^53 and the power at most 10^22 (Clinger's fast path);
 * anything else goes through strtod.
 */
#include "read/csv.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define CSV_BLOCK (4u << 20)
#define CSV_MAX_LINE (64u << 20)   /* longest line read: kernel names are KiB, not MiB */

struct csv_src {
    char *name;
    int fd;              /* -1 for memory sources */
    const char *buf;     /* data: own block or the caller's memory */
    char *own;           /* owned block (NULL for memory sources) */
    size_t cap, pos, end;
    bool eof, unterminated;
    long line;
    uint64_t consumed;
};

struct csv_src *csv_open(const char *path)
{
    char *why;
    struct csv_src *s = csv_open_quiet(path, &why);
    if (!s) {
        br_error("cannot open '%s': %s", path, why);
        free(why);
    }
    return s;
}

struct csv_src *csv_open_quiet(const char *path, char **why)
{
    int fd = fs_open_read(path, why);
    if (fd < 0)
        return NULL;
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    struct csv_src *s = xcalloc(1, sizeof(*s));
    s->name = xstrdup(path);
    s->fd = fd;
    s->cap = CSV_BLOCK;
    s->own = xmalloc(s->cap);
    s->buf = s->own;
    return s;
}

struct csv_src *csv_open_mem(const char *name, const void *data, size_t len)
{
    struct csv_src *s = xcalloc(1, sizeof(*s));
    s->name = xstrdup(name);
    s->fd = -1;
    s->buf = data ? data : "";
    s->end = len;
    s->eof = true;
    return s;
}

void csv_close(struct csv_src *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    free(s->own);
    free(s->name);
    free(s);
}

/* Moves the unconsumed tail to the front (growing the block when the tail
 * fills it) and reads more. -1 on a read error. */
static int refill(struct csv_src *s)
{
    size_t tail = s->end - s->pos;
    if (tail == s->cap) {
        if (s->cap >= CSV_MAX_LINE)     /* bounded memory whatever the file holds */
            return br_error("%s:%ld: a line longer than %u MiB: not one of benchrun's inputs?",
                            s->name, s->line + 1, CSV_MAX_LINE >> 20);
        s->cap *= 2;
        s->own = xrealloc(s->own, s->cap);
    }
    memmove(s->own, s->own + s->pos, tail);
    s->pos = 0;
    s->end = tail;
    s->buf = s->own;
    ssize_t n;
    do
        n = read(s->fd, s->own + s->end, s->cap - s->end);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return br_error("cannot read '%s': %s", s->name, strerror(errno));
    if (n == 0)
        s->eof = true;
    s->end += (size_t)n;
    return 0;
}

static void take(struct csv_src *s, size_t stop, size_t next, const char **line, size_t *len)
{
    const char *l = s->buf + s->pos;
    size_t n = stop - s->pos;
    if (n > 0 && l[n - 1] == '\r')
        n--;
    *line = l;
    *len = n;
    s->consumed += next - s->pos;
    s->pos = next;
    s->line++;
}

int csv_next_line(struct csv_src *s, const char **line, size_t *len)
{
    size_t scanned = s->pos;
    for (;;) {
        const char *nl = memchr(s->buf + scanned, '\n', s->end - scanned);
        if (nl) {
            size_t at = (size_t)(nl - s->buf);
            s->unterminated = false;
            take(s, at, at + 1, line, len);
            return 1;
        }
        if (s->eof) {
            if (s->pos == s->end)
                return 0;
            s->unterminated = true;
            take(s, s->end, s->end, line, len);
            return 1;
        }
        size_t done = s->end - s->pos;
        if (refill(s) < 0)
            return -1;
        scanned = s->pos + done;
    }
}

long csv_line_no(const struct csv_src *s) { return s->line; }
bool csv_last_unterminated(const struct csv_src *s) { return s->unterminated; }
const char *csv_name(const struct csv_src *s) { return s->name; }
uint64_t csv_bytes(const struct csv_src *s) { return s->consumed; }

/* ---- splitting ---------------------------------------------------------- */

static bool can_start_field(const char *p, size_t rem)
{
    if (rem == 0)
        return true;
    char c = p[0];
    return c == '"' || c == ',' || (c >= '0' && c <= '9') || c == '-' || c == '+' ||
           c == '.' || c == 'n' || c == 'N' || c == 'i' || c == 'I';
}

static void set_span(struct csv_span *o, const char *p, size_t n, bool quoted)
{
    o->p = p;
    o->n = (uint32_t)n;
    o->quoted = quoted;
}

/* The bytes of w equal to the byte c, as 0x80 in those bytes: in x = w ^
 * c..c a byte is zero exactly where w held c, and ~(((x & 0x7F..) + 0x7F..)
 * | x | 0x7F..) has the top bit set in exactly those bytes (the exact form of
 * the "has zero byte" test, S. E. Anderson, Bit Twiddling Hacks). */
static inline uint64_t bytes_equal(uint64_t w, uint64_t c)
{
    const uint64_t ones7 = 0x7F7F7F7F7F7F7F7FULL;
    uint64_t x = w ^ c;
    return ~(((x & ones7) + ones7) | x | ones7);
}

/* Number of ',' in [s, e), 8 bytes at a time (a multiply by 0x0101.. sums
 * the 0/1 bytes into the top byte: at most 8, no carry); -1 when a '"' is
 * there too (the fields must then be walked). */
static long count_commas_unquoted(const char *s, const char *e)
{
    const uint64_t commas = 0x2C2C2C2C2C2C2C2CULL, quotes = 0x2222222222222222ULL;
    long n = 0;
    for (; e - s >= 8; s += 8) {
        uint64_t w;
        memcpy(&w, s, sizeof(w));
        if (bytes_equal(w, quotes))
            return -1;
        n += (long)(((bytes_equal(w, commas) >> 7) * 0x0101010101010101ULL) >> 56);
    }
    for (; s < e; s++) {
        if (*s == '"')
            return -1;
        n += *s == ',';
    }
    return n;
}

long csv_count_fields(const char *s, size_t len)
{
    long commas = count_commas_unquoted(s, s + len);
    return commas < 0 ? -1 : commas + 1;
}

int csv_split(const char *line, size_t len, struct csv_span *out, int max)
{
    size_t i = 0;
    int n = 0;
    for (;;) {
        long rest = n >= max ? count_commas_unquoted(line + i, line + len) : -1;
        if (rest >= 0)                  /* only counting left, and no quotes */
            return n + 1 + (int)rest;
        struct csv_span f;
        size_t next;
        bool last;
        if (i < len && line[i] == '"') {
            size_t j = i + 1;
            for (;;) {
                const char *q = memchr(line + j, '"', len - j);
                if (!q)
                    return -1;
                size_t k = (size_t)(q - line);
                if (k + 1 == len) {
                    last = true;
                    next = len;
                    break;
                }
                if (line[k + 1] == ',' && can_start_field(line + k + 2, len - k - 2)) {
                    last = false;
                    next = k + 2;
                    break;
                }
                j = k + 1;
            }
            set_span(&f, line + i + 1, next - i - (last ? 2 : 3), true);
        } else {
            size_t stop = i;    /* unquoted fields are short (numbers): a plain loop */
            while (stop < len && line[stop] != ',')
                stop++;
            last = stop == len;
            next = stop + 1;
            set_span(&f, line + i, stop - i, false);
        }
        if (n < max)
            out[n] = f;
        n++;
        if (last)
            return n;
        i = next;
    }
}

/* Field starting at *i, left of the free column: ends at the first ',' (for
 * a quoted field, the first '",'). Advances *i past the comma. */
static int split_left(const char *line, size_t len, size_t *i, struct csv_span *o)
{
    size_t s = *i;
    if (s < len && line[s] == '"') {
        size_t j = s + 1;
        for (;;) {
            const char *q = memchr(line + j, '"', len - j);
            if (!q || (size_t)(q - line) + 1 >= len)
                return -1;
            size_t k = (size_t)(q - line);
            if (line[k + 1] == ',') {
                set_span(o, line + s + 1, k - s - 1, true);
                *i = k + 2;
                return 0;
            }
            j = k + 1;
        }
    }
    const char *c = memchr(line + s, ',', len - s);
    if (!c)
        return -1;
    set_span(o, line + s, (size_t)(c - line) - s, false);
    *i = (size_t)(c - line) + 1;
    return 0;
}

/* Field ending at *e (exclusive), right of the free column, not starting
 * before lo: begins after the last ',' (quoted: the last ',"'). Sets *e to
 * the position of that comma. */
static int split_right(const char *line, size_t lo, size_t *e, struct csv_span *o)
{
    size_t end = *e;
    if (end > lo && line[end - 1] == '"') {
        size_t j = end - 1;
        while (j > lo) {
            const char *q = memrchr(line + lo, '"', j - lo);
            if (!q)
                return -1;
            size_t k = (size_t)(q - line);
            if (k > lo && line[k - 1] == ',') {
                set_span(o, line + k + 1, end - k - 2, true);
                *e = k - 1;
                return 0;
            }
            j = k;
        }
        return -1;
    }
    if (end <= lo)
        return -1;
    const char *c = memrchr(line + lo, ',', end - lo);
    if (!c)
        return -1;
    size_t k = (size_t)(c - line);
    set_span(o, line + k + 1, end - k - 1, false);
    *e = k;
    return 0;
}

int csv_split_freetext(const char *line, size_t len, int ncols, int free_col, struct csv_span *out)
{
    size_t i = 0, e = len;
    for (int c = 0; c < free_col; c++)
        if (split_left(line, len, &i, &out[c]) < 0)
            return -1;
    for (int c = ncols - 1; c > free_col; c--)
        if (split_right(line, i, &e, &out[c]) < 0)
            return -1;
    if (e < i + 2 || line[i] != '"' || line[e - 1] != '"')
        return -1;
    set_span(&out[free_col], line + i + 1, e - i - 2, true);
    return ncols;
}

/* ---- numbers --------------------------------------------------------------- */

const char *csv_scan_u64(const char *p, const char *end, uint64_t *out)
{
    const char *s = p, *safe = end - p > 19 ? p + 19 : end;  /* 19 digits cannot overflow */
    uint64_t v = 0;
    for (; s < safe && (unsigned)(*s - '0') <= 9; s++)
        v = v * 10 + (unsigned)(*s - '0');
    if (s == safe)
        for (; s < end && (unsigned)(*s - '0') <= 9; s++) {
            unsigned d = (unsigned)(*s - '0');
            if (v > (UINT64_MAX - d) / 10)
                return NULL;
            v = v * 10 + d;
        }
    if (s == p || s - p > 20)
        return NULL;
    *out = v;
    return s;
}

int csv_u64(const struct csv_span *f, uint64_t *out)
{
    uint64_t v;
    const char *end = f->p + f->n, *stop = csv_scan_u64(f->p, end, &v);
    if (!stop || stop != end)
        return -1;
    *out = v;
    return 0;
}

static const double pow10_tab[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* strtod on a copy of [p, end), which holds a number of the grammar. */
static const char *slow_double(const char *p, const char *end, double *out)
{
    size_t n = (size_t)(end - p);
    char small[64];
    char *tmp = n < sizeof(small) ? small : xmalloc(n + 1);
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *stop;
    double v = strtod(tmp, &stop);
    bool ok = stop == tmp + n && n > 0;
    if (tmp != small)
        free(tmp);
    if (!ok)
        return NULL;
    *out = v;
    return end;
}

/* The lower-case letters w[0..n) at p in any case (c | 0x20 folds only the
 * upper-case letter onto its lower-case one). */
static bool word_at(const char *p, const char *end, const char *w, size_t n)
{
    if ((size_t)(end - p) < n)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != w[i])
            return false;
    return true;
}

/* nan, infinity, inf in any case at p (after the sign), as strtod gives
 * them; NULL for anything else. */
static const char *special(const char *p, const char *end, bool neg, double *out)
{
    if (word_at(p, end, "nan", 3)) {
        *out = copysign(NAN, neg ? -1.0 : 1.0);
        return p + 3;
    }
    size_t n = word_at(p, end, "infinity", 8) ? 8 : word_at(p, end, "inf", 3) ? 3 : 0;
    if (!n)
        return NULL;
    *out = neg ? -INFINITY : INFINITY;
    return p + n;
}

const char *csv_scan_double(const char *p, const char *end, double *out)
{
    const char *start = p;
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    uint64_t m = 0;             /* every digit: at most 19 cannot overflow */
    const char *digits = p;
    for (; p < end && (unsigned)(*p - '0') <= 9; p++)
        m = m * 10 + (unsigned)(*p - '0');
    size_t nint = (size_t)(p - digits), nfrac = 0;
    if (p < end && *p == '.') {
        const char *frac = ++p;
        for (; p < end && (unsigned)(*p - '0') <= 9; p++)
            m = m * 10 + (unsigned)(*p - '0');
        nfrac = (size_t)(p - frac);
    }
    if (nint + nfrac == 0)
        return p == digits ? special(digits, end, neg, out) : NULL;   /* not "." */
    long dexp = -(long)nfrac;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool eneg = false;
        if (p < end && (*p == '-' || *p == '+'))
            eneg = *p++ == '-';
        if (p == end || (unsigned)(*p - '0') > 9)
            return NULL;
        long e = 0;
        for (; p < end && (unsigned)(*p - '0') <= 9; p++)
            if (e < 100000)
                e = e * 10 + (*p - '0');
        dexp += eneg ? -e : e;
    }
    if (nint + nfrac > 19 || m >= (1ull << 53) || dexp > 22 || dexp < -22)
        return slow_double(start, p, out);
    double v = (double)m;
    v = dexp >= 0 ? v * pow10_tab[dexp] : v / pow10_tab[-dexp];
    *out = neg ? -v : v;
    return p;
}

int csv_double(const struct csv_span *f, double *out)
{
    double v;
    const char *end = f->p + f->n, *stop = csv_scan_double(f->p, end, &v);
    if (!stop || stop != end)
        return -1;
    *out = v;
    return 0;
}

int csv_agent_id(const struct csv_span *f, uint64_t *out)
{
    if (!f->quoted)
        return csv_u64(f, out);
    uint32_t i = 0;
    while (i < f->n && (unsigned)(f->p[i] - '0') > 9)
        i++;
    uint32_t j = i;
    while (j < f->n && (unsigned)(f->p[j] - '0') <= 9)
        j++;
    if (i == j)
        return -1;
    for (uint32_t k = j; k < f->n; k++)
        if ((unsigned)(f->p[k] - '0') <= 9)
            return -1;
    struct csv_span d = { f->p + i, j - i, false };
    return csv_u64(&d, out);
}

bool csv_eq(const struct csv_span *f, const char *s)
{
    size_t n = strlen(s);
    return n == f->n && memcmp(f->p, s, n) == 0;
}

bool csv_ieq(const struct csv_span *f, const char *s)
{
    size_t n = strlen(s);
    return n == f->n && strncasecmp(f->p, s, n) == 0;
}
