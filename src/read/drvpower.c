/* drvpower.c - reader of NVML's buffered power sample files (drvpower.h).
 * The calibration's power-rise check and the energy analysis both read them. */
#include "read/drvpower.h"

#include "model/telemetry.h"
#include "read/csv.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { MAXF = 32 };

static void add(struct br_drvpower *d, int64_t t, double w, bool gap)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 1024;
        d->t_ns = xrealloc(d->t_ns, d->cap * sizeof(*d->t_ns));
        d->power_W = xrealloc(d->power_W, d->cap * sizeof(*d->power_W));
        d->gap_before = xrealloc(d->gap_before, d->cap * sizeof(*d->gap_before));
    }
    d->t_ns[d->n] = t, d->power_W[d->n] = w, d->gap_before[d->n] = gap;
    d->n++;
}

/* Lines before the header (the metadata line) are skipped; src is closed. */
static int read_src(struct csv_src *src, struct br_drvpower *d)
{
    memset(d, 0, sizeof(*d));
    if (!src)
        return -1;
    const char *path = csv_name(src), *line;
    size_t len;
    int ct = -1, cw = -1, cg = -1, got, rc = 0;
    struct csv_span f[MAXF];
    while (rc == 0 && (got = csv_next_line(src, &line, &len)) > 0) {
        if (len == 0)
            continue;
        int nf = csv_split(line, len, f, MAXF);
        if (ct < 0 || cw < 0) {
            for (int i = 0; i < nf && i < MAXF; i++) {
                if (csv_eq(&f[i], "timestamp_ns")) ct = i;
                if (csv_eq(&f[i], "power_W")) cw = i;
                if (csv_eq(&f[i], "gap_before")) cg = i;
            }
            if ((ct >= 0) != (cw >= 0))
                rc = br_error_at(path, csv_line_no(src), 0,
                                 "expected a header with timestamp_ns and power_W");
            continue;
        }
        uint64_t t, g = 0;
        double w;
        if (nf <= ct || nf <= cw || csv_u64(&f[ct], &t) != 0 || csv_double(&f[cw], &w) != 0 ||
            t > INT64_MAX || (cg >= 0 && nf > cg && csv_u64(&f[cg], &g) != 0)) {
            if (csv_last_unterminated(src))
                br_warn("%s:%ld: last line has no end (cut short): ignored", path, csv_line_no(src));
            else
                rc = br_error_at(path, csv_line_no(src), 0, "expected timestamp_ns and power_W numbers");
            continue;
        }
        add(d, (int64_t)t, w, g != 0);
    }
    if (got < 0)
        rc = -1;
    if (rc == 0 && (ct < 0 || cw < 0))
        rc = br_error("%s: no timestamp_ns,power_W header", path);
    csv_close(src);
    return rc;
}

int br_drvpower_read(const char *path, struct br_drvpower *out)
{
    return read_src(csv_open(path), out);
}

int br_drvpower_read_mem(const char *name, const void *data, size_t len, struct br_drvpower *out)
{
    return read_src(csv_open_mem(name, data, len), out);
}

void br_drvpower_free(struct br_drvpower *d)
{
    free(d->t_ns);
    free(d->power_W);
    free(d->gap_before);
    memset(d, 0, sizeof(*d));
}

bool br_drvpower_is_file(const char *name)
{
    size_t n = strlen(name), k = strlen(TELEM_DRIVER_SUFFIX);
    return n > k && strcmp(name + n - k, TELEM_DRIVER_SUFFIX) == 0;
}
