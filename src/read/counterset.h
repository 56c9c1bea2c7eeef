/* counterset.h - a counter set (passes of counters) with the limits and metric
 * inputs needed to validate it against a counter list (`benchrun counters check`).
 *
 * Sources, read with jansson only (independent of the metric engine):
 *  - the arch profile share/benchrun/arch/<arch>.json (schema: docs/arch-profile.md):
 *    "passes": [{"name", "counters": [...]}], "counter_sets": {name: [pass names]},
 *    per-block pass limits (object of block -> max counters, under
 *    "pass_limits", "block_limits" or "limits"), metric definitions under
 *    "metrics" (every string inside is scanned for counter names);
 *  - or a counters JSON file with "passes" (and optionally "counter_sets",
 *    "metrics", "arch"): the seed's counters.json shape.
 * A counter's block is the text before its first '_' (SQ_WAVES -> SQ,
 * TCC_EA0_RDREQ_sum -> TCC): a `*_sum` counter uses one slot of its block
 * (METRICS.md §1).
 */
#ifndef BR_READ_COUNTERSET_H
#define BR_READ_COUNTERSET_H

#include <stddef.h>

#include "read/counterlist.h"
#include "util/strbuf.h"

struct cs_pass {
    char *name;
    size_t n;
    char **counters;
};

struct cs_limit {
    char *block;
    long max;
};

struct counterset {
    char *name;              /* set name or file path */
    char *arch;              /* architecture the set is for */
    char *source;            /* file the passes came from */
    size_t npasses;
    struct cs_pass *passes;
    size_t nlimits;
    struct cs_limit *limits;
    size_t nmetric_ctr;      /* counters referenced by metric definitions */
    char **metric_ctr;
    char **metric_of;        /* [i] name of one metric using metric_ctr[i] */
    size_t nprofile_ctr;     /* every counter in any pass of the profile/file */
    char **profile_ctr;
};

/* Loads SET: an existing file path (counters JSON), else a counter-set name
 * of the arch profile of `arch` (NULL: the file's "arch", else "gfx942").
 * Limits and metrics missing from a counters file come from the profile.
 * 0, or -1 with the error printed (file, JSON path, what is wrong). */
int cs_load(struct counterset *cs, const char *set, const char *arch);
void cs_release(struct counterset *cs);

/* Block of a counter name (the prefix before '_'), copied into sb. */
void cs_block_of(const char *counter, struct strbuf *sb);

/* Checks the set against a counter list. Appends one line per problem to
 * problems and one per note to notes (each line ends with '\n'). Returns the
 * number of problems. */
int cs_check(const struct counterset *cs, const struct counterlist *cl, struct strbuf *problems,
             struct strbuf *notes);

#endif
