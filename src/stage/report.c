/* report.c - the end of a stage: PERF_GREP lines, final run_info, summary.
 * Shared by plain, pmc and power so their last lines look the same. */
#include "stage/perfgrep.h"
#include "stage/stage.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/textesc.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stage_perf_lines(const struct stage *st, const char *log_path, json_t *extra)
{
    if (!st->conf.perf_grep)
        return 0;
    struct strv lines;
    strv_init(&lines);
    size_t matched = 0, cut = 0;
    int rc = stage_perf_grep(st->conf.perf_grep, log_path, &lines, &matched, &cut);
    json_t *arr = json_array();
    for (size_t i = 0; i < lines.n; i++) {
        json_array_append_new(arr, esc_json_string(lines.v[i]));
        printf("%s\n", lines.v[i]);
    }
    if (rc == 0 && lines.n == 0)
        br_warn("PERF_GREP '%s' matched no line of %s", st->conf.perf_grep, log_path);
    if (matched > lines.n)
        br_warn("PERF_GREP matched %zu lines of %s; the first %zu are kept", matched, log_path,
                lines.n);
    if (cut)
        br_warn("%zu PERF_GREP line(s) longer than %d bytes were cut to that length", cut,
                STAGE_PERF_MAX_LINE);
    json_object_set_new(extra, "perf_lines", arr);
    json_object_set_new(extra, "perf_lines_matched", json_integer((json_int_t)matched));
    strv_release(&lines);
    return rc;
}

const char *stage_name(const struct stage *st)
{
    return strcmp(st->kind, "prof") == 0 ? "power" : st->kind;
}

void stage_summary(const struct stage *st, const struct stage_exec_result *r)
{
    if (r->reason)
        printf("%s: %s: stopped (%s) after %.3f s, exit status %d; results in %s\n",
               stage_name(st), st->conf.workload, r->reason, r->wall_s, r->exit_code, st->rundir);
    else
        printf("%s: %s: exit status %d, wall time %.3f s; results in %s\n", stage_name(st),
               st->conf.workload, r->exit_code, r->wall_s, st->rundir);
}
