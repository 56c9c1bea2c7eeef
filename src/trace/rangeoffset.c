/* rangeoffset.c - the offset of a user range's own work (rangeoffset.h). */
#include "trace/rangeoffset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/launchplan.h"

static const char *const prefixes[] = { [RO_EMPTY] = "benchrun-empty:",
                                         [RO_WARMUP] = "benchrun-warmup:",
                                         [RO_ONE] = "benchrun-null1:",
                                         [RO_TWO] = "benchrun-null2:" };

void ro_range_name(char *buf, size_t size, enum ro_range kind, unsigned index)
{
    snprintf(buf, size, "%s%u", prefixes[kind == RO_LAUNCH ? RO_EMPTY : kind], index);
}

enum ro_range ro_range_kind(const char *name, unsigned *index)
{
    for (enum ro_range k = RO_EMPTY; name && k <= RO_TWO; k++) {
        size_t n = strlen(prefixes[k]);
        if (strncmp(name, prefixes[k], n) != 0 || name[n] < '0' || name[n] > '9')
            continue;
        char *end;
        unsigned long v = strtoul(name + n, &end, 10);
        if (*end || v > 0xffffffffUL)
            return RO_LAUNCH;
        *index = (unsigned)v;
        return k;
    }
    return RO_LAUNCH;
}

bool ro_counter_offset(const char *counter)
{
    size_t n = counter ? strlen(counter) : 0;
    return n > 4 && !strcmp(counter + n - 4, ".sum") && !lp_elapsed_counter(counter);
}

/* The median of v[0..n) (n >= 1), sorted in place by insertion: n is a few. */
static double median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The median of counter m's finite values in k rows of nm (NaN: none). */
static double column_median(const double *rows, size_t k, size_t nm, size_t m)
{
    double col[64];
    size_t n = 0;
    for (size_t i = 0; i < k && n < sizeof(col) / sizeof(*col); i++)
        if (isfinite(rows[i * nm + m]))
            col[n++] = rows[i * nm + m];
    return n ? median(col, n) : NAN;
}

size_t ro_offset(const double *samples, size_t k, size_t nm, const char *const *counters,
                 double *offset)
{
    size_t given = 0;
    for (size_t m = 0; m < nm; m++) {
        offset[m] = ro_counter_offset(counters[m]) ? column_median(samples, k, nm, m) : NAN;
        given += !isnan(offset[m]);
    }
    return given;
}

size_t ro_offset_paired(const double *one, size_t k1, const double *two, size_t k2, size_t nm,
                        const char *const *counters, double *offset)
{
    size_t given = 0;
    for (size_t m = 0; m < nm; m++) {
        offset[m] = NAN;
        if (!ro_counter_offset(counters[m]))
            continue;
        double d = 2 * column_median(one, k1, nm, m) - column_median(two, k2, nm, m);
        if (isnan(d))
            continue;
        offset[m] = d > 0 ? d : 0;
        given++;
    }
    return given;
}

size_t ro_subtract(double *vals, const double *offset, size_t nm)
{
    size_t floored = 0;
    for (size_t m = 0; m < nm; m++) {
        if (isnan(offset[m]) || !isfinite(vals[m]))
            continue;
        vals[m] -= offset[m];
        if (vals[m] < 0) {
            vals[m] = 0;
            floored++;
        }
    }
    return floored;
}
