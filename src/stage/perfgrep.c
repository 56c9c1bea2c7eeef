/* perfgrep.c - PERF_GREP over the app's output, bounded (perfgrep.h). */
#include "stage/perfgrep.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stage_perf_grep(const char *pattern, const char *path, struct strv *out, size_t *matched,
                    size_t *cut)
{
    regex_t re;
    int e = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (e != 0) {
        char msg[256];
        regerror(e, &re, msg, sizeof(msg));
        return br_error("PERF_GREP '%s' is not a valid extended regular expression: %s", pattern, msg);
    }
    FILE *fp = fopen(path, "r");
    if (!fp) {
        regfree(&re);
        return br_error("cannot open '%s': %s", path, strerror(errno));
    }
    char *line = xmalloc(STAGE_PERF_MAX_LINE + 1);
    size_t hits = 0, cuts = 0;
    bool longer;
    while (fs_read_line_bounded(fp, line, STAGE_PERF_MAX_LINE + 1, &longer) >= 0) {
        if (regexec(&re, line, 0, NULL, 0) != 0)
            continue;
        if (hits++ < STAGE_PERF_MAX_LINES) {
            strv_push(out, line);
            cuts += longer;
        }
    }
    int rc = ferror(fp) ? br_error("cannot read '%s': %s", path, strerror(errno)) : 0;
    free(line);
    fclose(fp);
    regfree(&re);
    if (matched)
        *matched = hits;
    if (cut)
        *cut = cuts;
    return rc;
}
