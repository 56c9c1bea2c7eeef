/* rangeoffset.c - the offset of a user range's own work (rangeoffset.h). */
#include "trace/rangeoffset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/launchplan.h"

static const char prefix[] = "benchrun-empty:";

void ro_empty_name(char *buf, size_t size, unsigned index)
{
    snprintf(buf, size, "%s%u", prefix, index);
}

bool ro_empty_index(const char *name, unsigned *index)
{
    size_t n = sizeof(prefix) - 1;
    if (!name || strncmp(name, prefix, n) != 0 || name[n] < '0' || name[n] > '9')
        return false;
    char *end;
    unsigned long v = strtoul(name + n, &end, 10);
    if (*end || v > 0xffffffffUL)
        return false;
    *index = (unsigned)v;
    return true;
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
