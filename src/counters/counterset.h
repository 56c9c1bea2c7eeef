/* counterset.h - a counter set (passes of counters) with the limits and metric
 * inputs needed to validate it against a counter list (`benchrun counters check`).
 *
 * Sources: a counters file (arch/passes.h) or a counter set of an arch
 * profile (arch/arch.h); a counters file takes what it lacks (block limits,
 * metric formulas) from the profile of its architecture when there is one.
 * A counters file's metric formulas are free text: every name in them that
 * some pass collects or that starts with a limited block (SQ_..., TCC_...)
 * is taken for a counter. A profile's are its compiled expressions.
 * A counter's block is the text before its first '_' (SQ_WAVES -> SQ,
 * TCC_EA0_RDREQ_sum -> TCC): a `*_sum` counter uses one slot of its block.
 */
#ifndef BR_COUNTERS_COUNTERSET_H
#define BR_COUNTERS_COUNTERSET_H

#include <stddef.h>

#include "arch/passes.h"
#include "counters/counterlist.h"
#include "util/strbuf.h"
#include "util/strv.h"

struct counterset_limit {
    char *block;
    long max;
};

struct counterset {
    char *name;                 /* set name or file path */
    char *arch;                 /* architecture the set is for */
    char *source;               /* file the passes came from */
    struct arch_passes passes;
    size_t nlimits;
    struct counterset_limit *limits;
    struct strv metric_ctr;     /* counters referenced by metric definitions */
    struct strv metric_of;      /* [i] name of one metric using metric_ctr[i] */
    struct strv profile_ctr;    /* every counter in any pass of the profile/file */
};

/* Loads SET: a counters file (arch_set_is_file), else a counter-set name
 * of the arch profile of `arch` (NULL: the file's "arch", else
 * arch_default(GPU_VENDOR_UNKNOWN)).
 * Limits and metrics missing from a counters file come from the profile.
 * 0, or -1 with the error printed (file, JSON path, what is wrong). */
int counterset_load(struct counterset *cs, const char *set, const char *arch);
void counterset_release(struct counterset *cs);

/* Block of a counter name (the prefix before '_'), copied into sb. */
void counterset_block_of(const char *counter, struct strbuf *sb);

/* Checks the set against a counter list. Appends one line per problem to
 * problems and one per note to notes (each line ends with '\n'). Returns the
 * number of problems. */
int counterset_check(const struct counterset *cs, const struct counterlist *cl,
                     struct strbuf *problems, struct strbuf *notes);

#endif
