/* archdoc.h - Markdown reference of an arch profile (docs/metrics.md).
 *
 * Generated from the profile itself, so the documentation cannot drift from
 * the formulas the metric engine evaluates: constants and peaks, counter
 * passes and sets, and for every metric its name, unit, formula (as written
 * in the profile), description, the passes whose counters it needs
 * (transitively, through the metrics it uses) and its other inputs (clock,
 * power run, kernel attributes). `benchrun doc metrics` writes it; the test
 * tests/cli/0820-doc-metrics-current.sh compares it with docs/metrics.md.
 */
#ifndef BR_ARCH_ARCHDOC_H
#define BR_ARCH_ARCHDOC_H

#include "util/strbuf.h"

/* The page header (title, how to regenerate, how to read the tables). */
void archdoc_header(struct strbuf *out);

/* Appends the section of the profile at path; shown is the path printed in
 * the page (e.g. "share/benchrun/arch/gfx942.json", so the output does not
 * depend on where benchrun is installed). 0, or -1 with an error printed. */
int archdoc_profile(const char *path, const char *shown, struct strbuf *out);

#endif
