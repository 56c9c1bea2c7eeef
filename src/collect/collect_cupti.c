/* collect_cupti.c - NVIDIA: libbenchrun-cupti.so (CUPTI, in process) as a collector.
 *
 * The library (src/trace/cupti/, built with the CUDA toolkit) is injected into
 * the unmodified application with CUDA_INJECTION64_PATH; this row only builds
 * the `env CUDA_INJECTION64_PATH=... BENCHRUN_CUPTI_*=...` prefix
 * (trace/cupti_env.h). Counter pass: one range per launch, no replay; the
 * pass's counters must fit one hardware pass (gh100.json passes do; CTest
 * cupti/gh100-passes-single). Trace: CUPTI activity records only.
 * Output: DIR/NAME_<pid>_counter_collection.csv (pass) or
 * DIR/NAME_<pid>_kernel_trace.csv (trace), plus DIR/NAME_<pid>_cupti.json;
 * always per process (pid in the name), so NTASKS > 1 needs nothing more.
 * Multi-node (req->per_node, NNODES > 1): NAME_<node>_<pid>_… (the name ends
 * in "_@NODE@", replaced per task by launch.sh), as rocprofv3's files; the
 * power stage's trace already goes to ktrace_<tag>/<node>/ (its -d / OUT).
 */
#include "collect/collect.h"
#include "trace/cupti_env.h"
#include "util/xalloc.h"

#include <stdlib.h>

/* The library path; in a dry run a missing library is named, not fatal. */
static char *lib_path(const struct br_collect_req *req)
{
    char *lib = cupti_lib_path();
    if (!lib && req->dry_run)
        return NULL;
    return lib;
}

static int cupti_argv(const struct br_collect_req *req, const char *const *metrics,
                      const struct lp_plan *sample, struct strv *out)
{
    strv_init(out);
    char *lib = lib_path(req);
    if (!lib && !req->dry_run)
        return -1;
    /* multi-node: pids repeat across nodes, so the node goes in the name as
     * in rocprofv3's <pass>_<node>_<pid>; launch.sh replaces @NODE@ per task */
    char *name = req->per_node ? xasprintf("%s_" COLLECT_NODE_TOKEN, req->name)
                               : xstrdup(req->name);
    cupti_env_argv(out, lib ? lib : "<libbenchrun-cupti.so not built>", req->dir,
                   metrics ? req->run_dir : NULL, name, metrics, sample);
    free(name);
    free(lib);
    return 0;
}

static int cupti_pmc_argv(const struct br_collect_req *req, struct strv *out)
{
    return cupti_argv(req, req->counters, req->sample, out);
}

static int cupti_trace_argv(const struct br_collect_req *req, struct strv *out)
{
    return cupti_argv(req, NULL, NULL, out);
}

static const char *const cupti_outputs[] = { "_counter_collection.csv", "_kernel_trace.csv",
                                             "_launch_units.csv",
                                             "_cupti.json", NULL };

const struct br_collector_ops br_collector_cupti = {
    .name = "cupti",
    .vendor = GPU_VENDOR_NVIDIA,
    .tool = NULL,
    .pmc_argv = cupti_pmc_argv,
    .trace_argv = cupti_trace_argv,
    .fixup = NULL,
    .outputs = cupti_outputs,
    .sample_unit = "signature",
    .launch_event_times = true,
};
