/* archeval.h - unit-test helper: one metric of an arch profile for one
 * kernel, straight from the expressions (no engine): kernel attributes,
 * counter rates per ns (others NaN) and the clock. Header-only: each test
 * program includes it once. */
#ifndef BR_TEST_ARCHEVAL_H
#define BR_TEST_ARCHEVAL_H

#include "arch/arch.h"
#include "arch/expr.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A counter's rate per ns (NULL counter: end of a list). */
struct rate { const char *counter; double per_ns; };

static double metric_eval(const struct arch_profile *ap, const char *name, const double *attr,
                          const struct rate *rates, double clock_mhz)
{
    double *slot = xcalloc((size_t)ap->nsyms + 1, sizeof(*slot));
    double *mv = xcalloc((size_t)ap->nmetrics + 1, sizeof(*mv));
    double r = NAN;
    for (int m = 0; m < ap->nmetrics; m++) {
        for (int i = 0; i < ap->nsyms; i++) {
            const struct arch_sym *s = &ap->syms[i];
            slot[i] = s->kind == AS_CONST ? ap->consts[s->index].value
                    : s->kind == AS_ATTR ? attr[s->index]
                    : s->kind == AS_METRIC ? mv[s->index]
                    : s->kind == AS_VAR && s->index == AV_CLOCK_MHZ ? clock_mhz : NAN;
            for (const struct rate *c = rates; s->kind == AS_RATE && c && c->counter; c++)
                if (!strcmp(c->counter, s->name))
                    slot[i] = c->per_ns;
        }
        mv[m] = ap->metrics[m].expr ? ex_eval(ap->metrics[m].expr, slot) : NAN;
        if (!strcmp(ap->metrics[m].name, name)) {
            r = mv[m];
            break;
        }
    }
    free(slot);
    free(mv);
    return r;
}

#endif
