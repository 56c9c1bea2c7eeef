/* cuptijson.h - what libbenchrun-cupti.so's companion files
 * (<name>_<pid>_cupti.json, one per process) say about launches that got no
 * counter rows, summed over a pass folder's processes, so analyze can say
 * which kernels lack counters and why.
 *
 * Read (each optional; a file without them, an older library's, reads as
 * zeros): launches_dropped (a profiler call failed), launches_captured
 * (launched into a capturing stream: did not run), launches_reentrant
 * (launched from inside the library's own callback), launches_failed,
 * graph_launches_unprofiled, ranges_unmatched, ranges_dropped, error (the
 * first one), and kernels_without_counters: [{kernel, launches, profiled,
 * <reason>: count, ...}] (every other numeric key is a reason: profiler_failed,
 * graph_launches, captured, no_range, ...), and range_offset.contexts[].offset
 * ({counter: value}: what a user range counted of its own, taken out of each
 * launch's values; the largest over contexts and files is kept). A file that
 * is not JSON or not an object is reported and skipped (never fatal: the
 * counters are elsewhere).
 */
#ifndef BR_READ_CUPTIJSON_H
#define BR_READ_CUPTIJSON_H

#include <stddef.h>
#include <stdint.h>

#include "model/intern.h"

struct cj_reason {
    char *key;              /* e.g. "profiler_failed" */
    uint64_t n;
};

struct cj_kernel {
    char *name;
    uint64_t launches, profiled;
    size_t nreasons;
    struct cj_reason *reasons;
};

struct cj_pass {
    uint32_t files;         /* companion files read */
    uint64_t dropped, captured, reentrant, failed, graph_unprofiled, ranges_unmatched,
        ranges_dropped;
    char *error;            /* the first file's first error, or NULL */
    size_t nkernels;
    struct cj_kernel *kernels;   /* merged by name, in first-seen order */
    struct intern offset_counters;   /* counters with a range offset (zeroed: none) */
    double *offset;              /* [id] per launch, finite and >= 0 */
};

/* Reads every *_cupti.json under dir (4 levels). Returns the number of files
 * read; bad files are warned about (br_warn) and skipped. */
int cj_read_pass(struct cj_pass *cp, const char *dir);
/* One file's text (tests, fuzz targets): 0, or -1 when it is not a JSON
 * object (nothing added). */
int cj_add_text(struct cj_pass *cp, const char *name, const char *text, size_t len);
void cj_release(struct cj_pass *cp);
/* The range offset per launch of a counter (0: none). */
double cj_offset(const struct cj_pass *cp, const char *counter);
/* Launches without counters in all (the top-level counts). */
uint64_t cj_lost(const struct cj_pass *cp);
/* "pass P: the collector could not profile N launch(es): ...; kernels
 * without counters: K (n of m launches: reason n), ... and M more; first
 * error: ..." (at most 4 kernels named), allocated; NULL when the files
 * report nothing missing. */
char *cj_describe(const struct cj_pass *cp, const char *pass);

#endif
