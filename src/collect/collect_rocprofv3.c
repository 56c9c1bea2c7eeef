/* collect_rocprofv3.c - AMD rocprofv3 (ROCm 6.2 - 7.x) as a collector.
 *
 * Facts (docs/design.md §11, from ROCm/rocprofiler-sdk sources):
 *   6.3+: rocprofv3 --pmc C1 C2 ... --kernel-trace --memory-copy-trace
 *         --output-format csv -d DIR -o NAME -- app   (one pass per run; csv
 *         must be asked for on 7.x, whose default format is rocpd)
 *   --memory-copy-trace: in every rocprofv3 (rocprofiler-sdk rocm-6.2.0
 *         source/bin/rocprofv3.py on); hipMemcpy* and their async forms,
 *         written to NAME_memory_copy_trace.csv (or the database's
 *         memory_copies) and read by read/rpcopy.h
 *   6.2:  no --pmc; counters only from an input file (-i input.txt with a
 *         line "pmc: C1 C2 ..."), results under DIR/pmc_1/ (moved up by fixup).
 *   -o placeholders: %pid% (and %rank%, %hostname%) in 7.0; with several
 *   processes every rank needs its own name or they overwrite one file.
 * Output: DIR/NAME_counter_collection.csv, DIR/NAME_kernel_trace.csv,
 *   DIR/NAME_memory_copy_trace.csv (only when the app copied); with
 *   --output-format rocpd (7.0+) one SQLite database DIR/NAME_results.db
 *   (rocprofiler-sdk docs "Using rocpd output format": -d DIR -o NAME gives
 *   DIR/NAME_results.db).
 * The 6.2 paths are written from the documentation only (not run here).
 */
#include "collect/collect.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "major.minor" as a comparable number (7.13 -> 713); -1 when unknown. */
static long release_number(const char *v)
{
    char *end;
    long major = v ? strtol(v, &end, 10) : -1;
    if (!v || end == v || *end != '.')
        return -1;
    long minor = strtol(end + 1, &end, 10);
    return major * 100 + minor;
}

int br_rocprof_format(const char *wanted, const char *tool_version, const char **out,
                      const char **why)
{
    long rel = release_number(tool_version);
    if (wanted && !strcmp(wanted, "csv")) {
        *out = "csv", *why = "ROCPROF_FORMAT=csv";
        return 0;
    }
    if (wanted && !strcmp(wanted, "rocpd")) {
        if (rel >= 0 && rel < 700)
            return br_error("ROCPROF_FORMAT=rocpd: rocprofv3 of ROCm %s has no rocpd output "
                            "(ROCm 7.0+): use csv or auto", tool_version);
        *out = "rocpd", *why = "ROCPROF_FORMAT=rocpd";
        return 0;
    }
    if (rel >= 713) {
        *out = "rocpd", *why = "auto: ROCm 7.13+ deprecates rocprofv3's direct CSV output";
    } else {
        *out = "csv";
        *why = rel < 0 ? "auto: ROCm release unknown, CSV works on every release"
                       : "auto: CSV is current before ROCm 7.13";
    }
    return 0;
}

const char *br_rocprof_counter_suffix(const char *format)
{
    return format && !strcmp(format, "rocpd") ? "_results.db" : "_counter_collection.csv";
}

int br_rocprof_can_sample(const char *tool_version)
{
    long rel = release_number(tool_version);
    if (rel >= 0 && rel < 603)
        return br_error("launch sampling needs rocprofv3's --kernel-iteration-range (ROCm 6.3+); "
                        "this is ROCm %s: use LAUNCHES=all", tool_version);
    return 0;
}

char *br_rocprof_iterations(const struct lp_plan *plan, uint64_t max_rank)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_addc(&sb, '[');
    uint64_t r = 1;
    if (plan->first > 0) {
        sb_addf(&sb, plan->first > 1 ? "1-%llu" : "1", (unsigned long long)plan->first);
        r = plan->first + 1;
    }
    for (r = lp_next(plan, r); r <= max_rank; r = lp_next(plan, r + 1)) {
        sb_addf(&sb, "%s%llu", sb.len > 1 ? "," : "", (unsigned long long)r);
        if (r == UINT64_MAX)
            break;
    }
    sb_addc(&sb, ']');
    return sb_detach(&sb);
}

/* Iterations listed for --kernel-iteration-range: launches of one kernel
 * past this rank get no counters (their strata are estimated from the
 * earlier ones, read/extrapolate.h). */
#define RP_SAMPLE_MAX_RANK 100000000ull

static bool is_62(const struct br_collect_req *req)
{
    return req->tool_version && strncmp(req->tool_version, "6.2", 3) == 0 &&
           (req->tool_version[3] == '\0' || req->tool_version[3] == '.');
}

/* What both modes end with: the kernel and copy traces, the output format
 * and place, then "--" before the application's argv. */
static void trace_and_output_args(const struct br_collect_req *req, struct strv *out)
{
    strv_push(out, "--kernel-trace");
    strv_push(out, "--memory-copy-trace");
    strv_push(out, "--output-format");
    strv_push(out, req->format ? req->format : "csv");
    strv_push(out, "-d");
    strv_push(out, req->dir);
    strv_push(out, "-o");
    if (req->per_process && req->per_node)      /* pids repeat across nodes */
        strv_pushf(out, "%s_" COLLECT_NODE_TOKEN "_%%pid%%", req->name);
    else if (req->per_process)
        strv_pushf(out, "%s_%%pid%%", req->name);
    else
        strv_push(out, req->name);
    strv_push(out, "--");
}

/* 6.2: DIR/input.txt with one "pmc:" line. */
static int write_input_file(const struct br_collect_req *req, char **path)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, "pmc:");
    for (size_t i = 0; req->counters && req->counters[i]; i++)
        sb_addf(&sb, " %s", req->counters[i]);
    sb_addc(&sb, '\n');
    *path = fs_path_join(req->dir, "input.txt");
    int rc = req->dry_run ? 0 : fs_write_atomic(*path, sb.buf, sb.len);
    sb_release(&sb);
    return rc;
}

static int rp_pmc_argv(const struct br_collect_req *req, struct strv *out)
{
    strv_init(out);
    strv_push(out, "rocprofv3");
    if (is_62(req)) {
        char *input;
        if (write_input_file(req, &input) != 0) {
            free(input);
            return -1;
        }
        strv_push(out, "-i");
        strv_push(out, input);
        free(input);
    } else {
        strv_push(out, "--pmc");
        for (size_t i = 0; req->counters && req->counters[i]; i++)
            strv_push(out, req->counters[i]);
    }
    if (req->sample) {   /* per kernel, 1-based dispatch counts (rocprofiler-sdk tool config) */
        char *it = br_rocprof_iterations(req->sample, RP_SAMPLE_MAX_RANK);
        strv_push(out, "--kernel-include-regex");
        strv_push(out, ".*");
        strv_push(out, "--kernel-iteration-range");
        strv_push(out, it);
        free(it);
    }
    trace_and_output_args(req, out);
    return 0;
}

static int rp_trace_argv(const struct br_collect_req *req, struct strv *out)
{
    strv_init(out);
    strv_push(out, "rocprofv3");
    trace_and_output_args(req, out);
    return 0;
}

/* Moves DIR/pmc_<n>/<file> to DIR/<file> (6.2 input-file passes). */
static int move_up(const char *dir, const char *sub)
{
    char *subdir = fs_path_join(dir, sub);
    DIR *d = opendir(subdir);
    int rc = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *from = fs_path_join(subdir, e->d_name), *to = fs_path_join(dir, e->d_name);
        if (rename(from, to) != 0)
            rc = br_error("cannot move '%s' to '%s': %s", from, to, strerror(errno));
        free(from);
        free(to);
    }
    if (d)
        closedir(d);
    free(subdir);
    return rc;
}

static int rp_fixup(const struct br_collect_req *req)
{
    if (!is_62(req))
        return 0;
    DIR *d = opendir(req->dir);
    if (!d)
        return br_error("cannot read '%s': %s", req->dir, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "pmc_", 4) == 0 && move_up(req->dir, e->d_name) != 0)
            rc = -1;
    closedir(d);
    return rc;
}

static const char *const rp_outputs[] = { "_counter_collection.csv", "_kernel_trace.csv",
                                          "_results.db", NULL };

const struct br_collector_ops br_collector_rocprofv3 = {
    .name = "rocprofv3",
    .vendor = GPU_VENDOR_AMD,
    .tool = "rocprofv3",
    .pmc_argv = rp_pmc_argv,
    .trace_argv = rp_trace_argv,
    .fixup = rp_fixup,
    .outputs = rp_outputs,
    .sample_unit = "kernel",
};
