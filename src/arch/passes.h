/* passes.h - a counter set: the passes one pmc run makes, from a profile's
 * "counter_sets" or from a counters file.
 *
 * A counters file is the seed's counters.json shape, and what a pmc run
 * writes as counters.json (arch_passes_json):
 *   {"passes": [{"name": "01_fp64_flops", "counters": ["SQ_WAVES", ...],
 *                "label": "what it measures"}, ...],
 *    "arch": "gfx942", "block_limits": {"SQ": 8}, "metrics": ...}
 * Only "passes" is required; "counters" may be left out (the pass's
 * counters are then the profile's), "label" too. "block_limits" (the seed's
 * "pass_limits" or "limits") and "metrics" (any JSON: every string in it is
 * a formula that may name counters) are kept for `benchrun counters check`.
 * Every pass name passes arch_pass_name_problem, appears once, and a set has
 * at most ARCH_MAX_PASSES passes. Errors name the file and the JSON path.
 */
#ifndef BR_ARCH_PASSES_H
#define BR_ARCH_PASSES_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "arch/arch.h"
#include "util/strv.h"

struct arch_passes {
    char *set;                  /* set name, or the file given */
    char *arch;                 /* the profile's name; NULL for a counters file */
    char *source;               /* file the passes came from */
    size_t n;
    struct arch_pass *v;
    /* a counters file's other keys (NULL / 0 for a profile's set) */
    char *file_arch;            /* "arch" */
    int nblocks; char **blocks; int *block_limit;
    struct strv metric_names;   /* [i]: the metric the formula text [i] belongs to */
    struct strv metric_texts;
};

/* True when a --counters/COUNTERS value names a counters file: it has a '/',
 * ends in .json, or is an existing file; else it is a set name. */
bool arch_set_is_file(const char *set);

/* SET (NULL or "": "default"): a counters file, else a counter set of the
 * profile of arch (NULL: arch_default(GPU_VENDOR_UNKNOWN)). A profile
 * without "counter_sets" has one set, "default": every pass. 0, or -1 with
 * the error printed (out released). */
int arch_passes_load(struct arch_passes *out, const char *set, const char *arch);
/* The counters file at path, whatever its name. 0 or -1 (printed). */
int arch_passes_load_file(struct arch_passes *out, const char *path);
/* A counters file's text (name: for messages). 0 or -1 (printed). */
int arch_passes_parse(struct arch_passes *out, const char *text, size_t len, const char *name);
/* Set SET of an opened profile. 0 or -1 (printed). */
int arch_passes_from_profile(struct arch_passes *out, const struct arch_profile *ap,
                             const char *set);
/* An empty set (releasable), and a pass appended to it (no counters). */
void arch_passes_init(struct arch_passes *p);
struct arch_pass *arch_passes_add(struct arch_passes *p, const char *name);
void arch_passes_release(struct arch_passes *p);
/* {"set", "arch", "source", "passes": [{"name", "counters"[, "label"]}]}:
 * the counters.json of a pmc run folder (a counters file again). */
json_t *arch_passes_json(const struct arch_passes *p);

#endif
