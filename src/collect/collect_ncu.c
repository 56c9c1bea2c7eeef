/* collect_ncu.c - NVIDIA Nsight Compute as a collector (cross-check, small runs).
 *
 * `benchrun pmc --collector ncu` runs each pass as
 *   ncu --csv --page raw --print-units base --clock-control none
 *       --target-processes all --metrics C1,C2,... --log-file DIR/NAME.ncu.csv APP
 * and the fixup converts ncu's raw CSV (header row, units row, thousands
 * separators, ==PROF== lines: read/ncu_csv.h) into DIR/NAME_counter_collection.csv
 * (collect/ncu_convert.h: launches laid end to end from gpu__time_duration.sum,
 * which every gh100.json hardware pass has). ncu replays every kernel
 * (~110 ms per launch measured on an H200, docs/validation.md): for a few
 * hundred launches at most; the cupti collector is the one for real runs. One log file per
 * pass: with several processes their rows share it (no per-process files).
 * No trace_argv: ncu is not a tracer.
 */
#include "collect/collect.h"
#include "read/ncu_csv.h"
#include "collect/ncu_convert.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *log_path(const struct br_collect_req *req)
{
    char *leaf = xasprintf("%s.ncu.csv", req->name);
    char *p = fs_path_join(req->dir, leaf);
    free(leaf);
    return p;
}

static int ncu_pmc_argv(const struct br_collect_req *req, struct strv *out)
{
    strv_init(out);
    const char *tool = getenv("BENCHRUN_NCU");
    strv_push(out, tool && *tool ? tool : "ncu");
    static const char *const fixed[] = { "--csv", "--page", "raw", "--print-units", "base",
                                         "--clock-control", "none", "--target-processes",
                                         "all" };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
        strv_push(out, fixed[i]);
    struct strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; req->counters && req->counters[i]; i++)
        sb_addf(&sb, "%s%s", i ? "," : "", req->counters[i]);
    strv_push(out, "--metrics");
    strv_push(out, sb.len ? sb.buf : "gpu__time_duration.sum");
    sb_release(&sb);
    strv_push(out, "--log-file");
    char *log = log_path(req);
    strv_push(out, log);
    free(log);
    return 0;
}

/* DIR/NAME.ncu.csv -> DIR/NAME_counter_collection.csv (atomic: .part + rename). */
static int ncu_fixup(const struct br_collect_req *req)
{
    char *log = log_path(req);
    char *leaf = xasprintf("%s_counter_collection.csv", req->name);
    char *final = fs_path_join(req->dir, leaf);
    char *part = xasprintf("%s.part", final);
    struct ncu_table t;
    int rc = ncu_csv_read_file(log, &t);
    if (rc == 0) {
        FILE *fp = fopen(part, "w");
        if (!fp) {
            rc = br_error("cannot create '%s': %s", part, strerror(errno));
        } else {
            long rows = ncu_write_counter_collection(&t, req->counters, log, fp);
            if ((ferror(fp) | fclose(fp)) || rows < 0 || rename(part, final) != 0) {
                remove(part);
                rc = rows < 0 ? -1 : br_error("cannot write '%s'", final);
            }
        }
        ncu_table_release(&t);
    }
    free(log);
    free(leaf);
    free(final);
    free(part);
    return rc;
}

static const char *const ncu_outputs[] = { "_counter_collection.csv", ".ncu.csv", NULL };

const struct br_collector_ops br_collector_ncu = {
    .name = "ncu",
    .vendor = GPU_VENDOR_NVIDIA,
    .tool = "ncu",
    .pmc_argv = ncu_pmc_argv,
    .trace_argv = NULL,
    .fixup = ncu_fixup,
    .outputs = ncu_outputs,
};
