/* rangeoffset.c - the offset of a user range's own work (rangeoffset.h). */
#include "trace/rangeoffset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/launchplan.h"

static const char *const prefixes[] = { [RO_EMPTY] = "benchrun-empty:",
                                         [RO_WARMUP] = "benchrun-warmup:" };

void ro_range_name(char *buf, size_t size, enum ro_range kind, unsigned index)
{
    snprintf(buf, size, "%s%u", kind == RO_WARMUP ? prefixes[RO_WARMUP] : prefixes[RO_EMPTY], index);
}

enum ro_range ro_range_kind(const char *name, unsigned *index)
{
    for (enum ro_range k = RO_EMPTY; name && k <= RO_WARMUP; k++) {
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

size_t ro_offset(const double *samples, size_t k, size_t nm, const char *const *counters,
                 double *offset)
{
    size_t given = 0;
    double col[64];
    for (size_t m = 0; m < nm; m++) {
        offset[m] = NAN;
        if (!ro_counter_offset(counters[m]))
            continue;
        size_t n = 0;
        for (size_t i = 0; i < k && n < sizeof(col) / sizeof(*col); i++)
            if (isfinite(samples[i * nm + m]))
                col[n++] = samples[i * nm + m];
        if (n) {
            offset[m] = median(col, n);
            given++;
        }
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
