/* sampfile.h - <pass>/launch_sampling.json: how a counter pass chose its launches.
 *
 * benchrun pmc writes it into every pass folder; the pmc reader
 * (read/rocprof.c) reads it to know whether the pass's counter rows are every
 * launch or a sample to scale up (read/extrapolate.h). Schema:
 *   {"launches": "all"}  or
 *   {"launches": "sampled", "first": K, "every": N, "blocks_per_phase": C,
 *    "seed": S, "unit": "signature" | "kernel", "collector": "cupti" | ...,
 *    "trace_durations": "kernel" | "launch events"}  (absent: "kernel")
 * (trace/launchplan.h explains K, N, C and S). A missing file means "all"
 * (runs made before sampling existed).
 */
#ifndef BR_READ_SAMPFILE_H
#define BR_READ_SAMPFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "read/extrapolate.h"

#define SF_FILE "launch_sampling.json"

/* Parses the file's text (name for messages). *sampled tells which mode;
 * s is filled when sampled. 0, or -1 after printing "name: what". */
int sf_parse(const char *name, const char *text, size_t len, bool *sampled,
             struct xp_sampling *s);
/* Reads dir/launch_sampling.json; absent: *sampled = false, 0. */
int sf_load(const char *dir, bool *sampled, struct xp_sampling *s);
/* The file's text (caller frees); s NULL: {"launches": "all"}. */
char *sf_format(const struct xp_sampling *s, const char *collector);

#endif
