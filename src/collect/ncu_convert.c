/* ncu_convert.c - Nsight Compute raw CSV → rocprofv3 7.x counter_collection.csv (see .h). */
#include "collect/ncu_convert.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/ktrace_write.h"
#include "util/error.h"
#include "util/xalloc.h"

/* Column index of name, or -1. */
static long col(const struct ncu_table *t, const char *name)
{
    return ncu_table_col(t, name);
}

static double num_at(const struct ncu_table *t, size_t row, long c, double def)
{
    double v;
    if (c < 0 || ncu_parse_number(ncu_table_cell(t, row, (size_t)c), &v) != 0 || isnan(v))
        return def;
    return v;
}

/* An id, count or size column as an integer in [0, max]; a cell outside that
 * range (ID 1e125, a negative size) gives def: converting it would be
 * undefined behaviour (C11 6.3.1.4), found by fuzz_ncu_csv. */
static uint64_t int_at(const struct ncu_table *t, size_t row, long c, uint64_t def, double max)
{
    double v = num_at(t, row, c, NAN);
    if (!(v >= 0 && v <= max))
        return def;
    return (uint64_t)v;
}

/* Kernel attributes of one row. */
static int row_kernel(const struct ncu_table *t, size_t r, const char *file, uint64_t *clock,
                      struct ktw_kernel *k)
{
    unsigned long blk[3] = { 1, 1, 1 }, grd[3] = { 1, 1, 1 };
    long cb = col(t, "Block Size"), cg = col(t, "Grid Size");
    if ((cb >= 0 && ncu_parse_dim3(ncu_table_cell(t, r, (size_t)cb), blk) != 0) ||
        (cg >= 0 && ncu_parse_dim3(ncu_table_cell(t, r, (size_t)cg), grd) != 0))
        return br_error("%s: launch %zu: Block Size / Grid Size is not \"(x, y, z)\"", file, r);
    memset(k, 0, sizeof(*k));
    long cn = col(t, "Kernel Name");
    k->name = cn >= 0 ? ncu_table_cell(t, r, (size_t)cn) : "";
    k->dispatch_id = int_at(t, r, col(t, "ID"), r, 9007199254740992.0 /* 2^53 */) + 1;
    k->correlation_id = k->dispatch_id;
    k->agent = (uint32_t)int_at(t, r, col(t, "Device"), 0, UINT32_MAX);
    k->stream_id = (uint32_t)int_at(t, r, col(t, "Stream"), 0, UINT32_MAX);
    k->vgpr = (uint32_t)int_at(t, r, col(t, "launch__registers_per_thread"), 0, UINT32_MAX);
    uint64_t lds = int_at(t, r, col(t, "launch__shared_mem_per_block_static"), 0, UINT32_MAX) +
                   int_at(t, r, col(t, "launch__shared_mem_per_block_dynamic"), 0, UINT32_MAX);
    k->lds_bytes = lds > UINT32_MAX ? UINT32_MAX : (uint32_t)lds;
    for (int i = 0; i < 3; i++) {
        k->block[i] = (uint32_t)blk[i];
        k->grid[i] = (uint32_t)grd[i];
    }
    double dur = num_at(t, r, col(t, "gpu__time_duration.sum"), 0);
    if (!(dur >= 0 && dur < 1e18))      /* no duration rather than an undefined one */
        dur = 0;
    k->start_ns = *clock;
    k->end_ns = *clock + (uint64_t)llround(dur);
    *clock = k->end_ns;
    return 0;
}

static bool is_metric(const char *name)
{
    return strstr(name, "__") && strchr(name, '.') && strncmp(name, "device__attribute", 17) != 0;
}

/* Resolves the metric columns; -1 with an error for a missing one. */
static long *metric_cols(const struct ncu_table *t, const char *const *metrics, size_t *n,
                         const char *file)
{
    size_t want = 0;
    while (metrics && metrics[want])
        want++;
    long *cols = xcalloc(t->ncols + want + 1, sizeof(*cols));
    *n = 0;
    if (!metrics) {
        for (size_t i = 0; i < t->ncols; i++)
            if (is_metric(t->names[i]))
                cols[(*n)++] = (long)i;
        return cols;
    }
    for (size_t m = 0; metrics[m]; m++) {
        long c = col(t, metrics[m]);
        if (c < 0) {
            br_error("%s: metric '%s' is not in the ncu output", file, metrics[m]);
            free(cols);
            return NULL;
        }
        cols[(*n)++] = c;
    }
    return cols;
}

long ncu_write_counter_collection(const struct ncu_table *t, const char *const *metrics,
                                  const char *file, FILE *out)
{
    size_t n = 0;
    long *cols = metric_cols(t, metrics, &n, file);
    if (!cols)
        return -1;
    long pidc = col(t, "Process ID"), rows = 0;
    uint64_t clock = 0;
    fputs(ktw_counter_header, out);
    for (size_t r = 0; r < t->nrows; r++) {
        struct ktw_kernel k;
        if (row_kernel(t, r, file, &clock, &k) != 0) {
            free(cols);
            return -1;
        }
        long pid = (long)int_at(t, r, pidc, 0, 4194304.0 /* Linux's PID_MAX_LIMIT, 2^22 */);
        for (size_t m = 0; m < n; m++) {
            double v;
            if (ncu_parse_number(ncu_table_cell(t, r, (size_t)cols[m]), &v) < 0)
                v = NAN;   /* text in a metric column: written as nan */
            ktw_write_counter_row(out, &k, pid, t->names[cols[m]], v);
            rows++;
        }
    }
    free(cols);
    return ferror(out) ? -1 : rows;
}
