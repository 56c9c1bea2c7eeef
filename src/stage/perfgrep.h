/* perfgrep.h - the app's own performance lines: PERF_GREP over its output.
 *
 * Memory stays bounded whatever the app printed: the first
 * STAGE_PERF_MAX_LINES matching lines are kept, each cut to
 * STAGE_PERF_MAX_LINE bytes (a longer line is matched on those bytes).
 */
#ifndef BR_STAGE_PERFGREP_H
#define BR_STAGE_PERFGREP_H

#include <stddef.h>

#include "util/strv.h"

#define STAGE_PERF_MAX_LINES 100
#define STAGE_PERF_MAX_LINE 4096

/* Lines of the file at path matching pattern (grep -E semantics through
 * POSIX regcomp REG_EXTENDED), appended to out. *matched gets the number of
 * matching lines, *cut the number of kept lines that were cut (both may be
 * NULL). 0, or -1 on a bad pattern or unreadable file (printed). */
int stage_perf_grep(const char *pattern, const char *path, struct strv *out, size_t *matched,
                    size_t *cut);

#endif
