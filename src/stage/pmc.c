/* pmc.c - the pmc stage: one full app run per counter pass under the
 * collector (the seed's run_pmc.sbatch; contract in pmc.h). */
#include "stage/pmc.h"

#include "arch/arch.h"
#include "arch/passes.h"
#include "collect/collect.h"
#include "read/sampfile.h"
#include "stage/runinfo.h"
#include "stage/stage.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/stopsig.h"
#include "util/textesc.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pmc_run {
    struct stage st;
    const struct br_collector_ops *col;
    struct arch_passes passes;
    char *tool_version;
    const char *format, *format_why;   /* collector output: "csv" or "rocpd", and why */
    bool sampled;               /* launch sampling (plan), else every launch */
    struct xp_sampling sampling;
    const char *launches_why;   /* what decided */
    json_t *results;            /* run.json "passes" */
    int failed;
    bool stopped;               /* a stop signal arrived: no more passes */
};

/* Architecture for the profile: ARCH, else detected, else (dry run) the
 * vendor's default profile. */
static char *pick_arch(const struct stage *st)
{
    if (st->conf.arch)
        return xstrdup(st->conf.arch);
    if (st->gpus.arch)
        return xstrdup(st->gpus.arch);
    if (st->dry_run) {
        const char *a = arch_default(st->conf.vendor);
        stage_dry_run_note("ARCH not set in the conf and no GPU here: assuming %s", a);
        return xstrdup(a);
    }
    br_error("%s: cannot tell the GPU architecture (no GPU detected): set ARCH in the conf",
             st->conf.path);
    return NULL;
}

static const struct br_collector_ops *pick_collector(const struct stage *st, const char *name)
{
    if (name) {
        const struct br_collector_ops *c = br_collector_find(name);
        if (!c)
            br_error("unknown collector '%s'", name);
        return c;
    }
    enum gpu_vendor v = st->vendor == GPU_VENDOR_NVIDIA ? GPU_VENDOR_NVIDIA : GPU_VENDOR_AMD;
    const struct br_collector_ops *c = br_collector_for_vendor(v);
    if (!c)
        br_error("no counter collector for %s GPUs in this build", gpu_vendor_name(v));
    return c;
}

static void pass_req(const struct pmc_run *r, const struct arch_pass *p, const char *dir,
                     struct br_collect_req *req)
{
    memset(req, 0, sizeof(*req));
    req->dir = dir;
    req->run_dir = r->st.rundir;
    req->name = p->name;
    req->per_process = r->st.conf.ntasks > 1;
    req->per_node = r->st.conf.nnodes > 1;
    req->counters = (const char *const *)p->counters.v;
    req->tool_version = r->tool_version;
    req->format = r->format;
    req->sample = r->sampled ? &r->sampling.plan : NULL;
    req->dry_run = r->st.dry_run;
}

static json_t *pass_record(const struct arch_pass *p, const struct stage_exec_result *x, int nfiles)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", esc_json_string(p->name));
    json_object_set_new(o, "exit_status", x->started ? json_integer(x->exit_code) : json_null());
    json_object_set_new(o, "wall_time_s", json_real(x->wall_s));
    json_object_set_new(o, "counter_files", json_integer(nfiles));
    json_object_set_new(o, "reason", x->reason ? esc_json_string(x->reason) : json_null());
    return o;
}

/* Runs the app once under the collector for pass p (real run). */
static void run_pass(struct pmc_run *r, const struct arch_pass *p, const struct strv *app,
                     const struct br_collect_req *req)
{
    char *log = xasprintf("%s/rocprof.%s.txt", req->dir, p->name);
    struct stage_exec_result x;
    memset(&x, 0, sizeof(x));
    x.exit_code = -1;
    if (stage_exec(app, log, &x) == 0 && r->col->fixup)
        r->col->fixup(req);
    struct strv files;
    strv_init(&files);
    const char *suffix = br_rocprof_counter_suffix(r->format);
    int nfiles = fs_list_suffix(req->dir, suffix, &files);
    strv_release(&files);
    bool ok = x.exit_code == 0 && nfiles > 0;
    printf("pass %s: rc=%d, %.3f s, %d counter file%s%s%s\n", p->name, x.exit_code, x.wall_s,
           nfiles < 0 ? 0 : nfiles, nfiles == 1 ? "" : "s", x.reason ? ", " : "",
           x.reason ? x.reason : "");
    if (x.exit_code == 0 && nfiles <= 0)
        br_warn("pass %s: the app succeeded but no *%s was written in %s", p->name, suffix,
                req->dir);
    r->failed += !ok;
    r->stopped |= x.forwarded_signal != 0;
    json_array_append_new(r->results, pass_record(p, &x, nfiles < 0 ? 0 : nfiles));
    stage_exec_result_release(&x);
    free(log);
}

/* The pass folder with LABEL and launch_sampling.json (which launches the
 * counter rows are: the reader needs it to scale a sample up). */
static int prepare_pass_dir(const struct pmc_run *r, const struct arch_pass *p, const char *dir)
{
    if (fs_mkdir_p(dir) != 0)
        return -1;
    char *label = fs_path_join(dir, "LABEL");
    char *text = xasprintf("%s\n", p->name);
    int rc = fs_write_atomic(label, text, strlen(text));
    free(label);
    free(text);
    char *sf = fs_path_join(dir, SF_FILE);
    text = sf_format(r->sampled ? &r->sampling : NULL, r->col->name);
    if (rc == 0)
        rc = fs_write_atomic(sf, text, strlen(text));
    free(sf);
    free(text);
    return rc;
}

static int do_pass(struct pmc_run *r, const struct arch_pass *p)
{
    char *dir = fs_path_join(r->st.rundir, p->name);
    struct br_collect_req req;
    pass_req(r, p, dir, &req);
    struct strv col, app;
    int rc = r->st.dry_run ? 0 : prepare_pass_dir(r, p, dir);
    if (rc == 0)
        rc = r->col->pmc_argv(&req, &col);
    if (rc == 0 && (rc = stage_app_argv(&r->st, dir, &col, &app)) == 0) {
        if (r->st.dry_run) {
            stage_dry_run_note("pass %s: %zu counters -> %s/", p->name, p->counters.n, dir);
            stage_dry_run_print(&app);
        } else {
            run_pass(r, p, &app, &req);
        }
        strv_release(&app);
    }
    if (rc != 0)
        r->failed++;
    strv_release(&col);
    free(dir);
    return rc;
}

static int write_counters_json(const struct pmc_run *r)
{
    json_t *o = arch_passes_json(&r->passes);
    char *js = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *path = fs_path_join(r->st.rundir, "counters.json");
    char *text = xasprintf("%s\n", js);
    int rc = fs_write_atomic(path, text, strlen(text));
    free(text);
    free(path);
    free(js);
    json_decref(o);
    return rc;
}

static bool set_is_file(const char *set)
{
    return set && arch_set_is_file(set);
}

/* Each pass is a run of the app: one that collects nothing is a mistake. */
static int check_counters(const struct arch_passes *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->v[i].counters.n == 0)
            return br_error("%s: passes[%zu] ('%s'): no counters", p->source, i, p->v[i].name);
    return 0;
}

/* The counter set: --counters, else COUNTERS of the conf, else the seed
 * user's own $PROFILING_DIR/counters.json when there is one (the seed's
 * run_pmc.sbatch reads that file: e.g. OSPREY's with 07_lowp_mfma), else the
 * profile's "default". *owned keeps an allocated path. */
static const char *pick_set(const struct pmc_run *r, const struct stage_pmc_opts *o, char **owned)
{
    *owned = NULL;
    if (o->counters)
        return o->counters;
    if (r->st.conf.counters)
        return r->st.conf.counters;
    char *p = r->st.conf.profiling_dir ? fs_path_join(r->st.conf.profiling_dir, "counters.json")
                                       : NULL;
    if (p && fs_exists(p))
        return *owned = p;
    free(p);
    return NULL;
}

/* Every launch or a sample: --launches, else the conf's LAUNCHES, else the
 * vendor's default (NVIDIA: sampled, the CUPTI passes cost up to 1 ms per
 * profiled launch; AMD: all, the seed's behaviour). */
static int pick_launches(struct pmc_run *r, const struct stage_pmc_opts *o)
{
    const char *want = o->launches ? o->launches : r->st.conf.launches;
    bool nvidia = r->col->vendor == GPU_VENDOR_NVIDIA;
    if (!want || !strcmp(want, "auto")) {
        r->sampled = nvidia && r->col->sample_unit;
        r->launches_why = nvidia ? "default on NVIDIA" : "default on AMD";
    } else {
        r->sampled = strncmp(want, "sampled", 7) == 0;
        r->launches_why = o->launches ? "--launches" : "LAUNCHES in the conf";
    }
    if (!r->sampled)
        return 0;
    lp_plan_default(&r->sampling.plan);
    if (!strncmp(want, "sampled:", 8) && lp_plan_parse(want + 8, &r->sampling.plan) != 0)
        return br_error("%s: '%s': expected sampled:FIRST:EVERY:BLOCKS:SEED (EVERY >= 1), e.g. "
                        "sampled:10:50:20:1", r->launches_why, want);
    if (!r->col->sample_unit)
        return br_error("collector %s cannot sample launches: use --launches all", r->col->name);
    if (!strcmp(r->col->name, "rocprofv3") && br_rocprof_can_sample(r->tool_version) < 0)
        return -1;
    r->sampling.unit = strcmp(r->col->sample_unit, "kernel") ? XP_UNIT_SIGNATURE : XP_UNIT_KERNEL;
    r->sampling.kernel_times = !r->col->launch_event_times;
    return 0;
}

/* Collector and passes: checked before anything is created. */
static int setup(struct pmc_run *r, const struct stage_pmc_opts *o)
{
    char *owned;
    const char *set = pick_set(r, o, &owned);
    char *arch = set_is_file(set) ? NULL : pick_arch(&r->st);
    r->col = pick_collector(&r->st, o->collector);
    if ((!arch && !set_is_file(set)) || !r->col) {
        free(arch);
        free(owned);
        return -1;
    }
    int rc = arch_passes_load(&r->passes, set, arch);
    free(arch);
    free(owned);
    if (rc != 0 || check_counters(&r->passes) != 0)
        return -1;
    r->format = "csv";
    r->format_why = "the collector writes CSV";
    if (strcmp(r->col->name, "rocprofv3") == 0) {
        r->tool_version = br_rocm_version(r->st.conf.rocm_path);
        if (br_rocprof_format(r->st.conf.rocprof_format, r->tool_version, &r->format,
                              &r->format_why) < 0)
            return -1;
    }
    if (pick_launches(r, o) < 0)
        return -1;
    r->results = json_array();
    if (r->st.dry_run) {
        bool rocprof = strcmp(r->col->name, "rocprofv3") == 0;
        stage_dry_run_note("counter set '%s' from %s: %zu passes, collector %s%s%s%s, output %s "
                           "(%s)",
                           r->passes.set, r->passes.source, r->passes.n, r->col->name,
                           rocprof ? " (ROCm " : "",
                           rocprof ? (r->tool_version ? r->tool_version : "6.3+ assumed") : "",
                           rocprof ? ")" : "", r->format, r->format_why);
        char plan[96] = "";
        if (r->sampled)
            lp_plan_format(&r->sampling.plan, plan, sizeof(plan));
        stage_dry_run_note("launches: %s%s%s (%s)", r->sampled ? "sampled" : "all",
                           *plan ? " " : "", plan, r->launches_why);
        return 0;
    }
    printf("pmc: counter set '%s' from %s: %zu passes\n", r->passes.set, r->passes.source,
           r->passes.n);
    fflush(stdout);
    return 0;
}

static int finish(struct pmc_run *r)
{
    json_t *extra = json_object();
    json_object_set_new(extra, "collector", esc_json_string(r->col->name));
    json_object_set_new(extra, "counter_set", esc_json_string(r->passes.set));
    json_object_set_new(extra, "output_format", esc_json_string(r->format));
    json_object_set_new(extra, "output_format_reason", esc_json_string(r->format_why));
    json_object_set_new(extra, "launches", esc_json_string(r->sampled ? "sampled" : "all"));
    json_object_set_new(extra, "launches_reason", esc_json_string(r->launches_why));
    if (r->sampled) {
        char *text = sf_format(&r->sampling, r->col->name);
        json_object_set_new(extra, "launch_sampling", json_loads(text, 0, NULL));
        free(text);
    }
    json_object_set_new(extra, "passes", json_incref(r->results));
    json_object_set_new(extra, "passes_failed", json_integer(r->failed));
    struct stage_exec_result sum = { .started = true, .exit_code = r->failed ? 1 : 0 };
    if (r->stopped) {           /* the killed pass's reason first: "time limit" */
        json_t *last = json_array_get(r->results, json_array_size(r->results) - 1);
        const char *why = json_string_value(json_object_get(last, "reason"));
        sum.reason = xasprintf("%s (stopped before all passes ran)", why ? why : "a signal");
        sum.forwarded_signal = stopsig_received();
    }
    double wall = 0;
    size_t i;
    json_t *p;
    json_array_foreach(r->results, i, p)
        wall += json_real_value(json_object_get(p, "wall_time_s"));
    sum.wall_s = wall;
    int rc = stage_run_info_write(&r->st, NULL, &sum, extra);
    printf("pmc: %s: %zu of %zu passes ok; results in %s\n", r->st.conf.workload,
           json_array_size(r->results) - (size_t)r->failed, r->passes.n, r->st.rundir);
    stage_exec_result_release(&sum);
    json_decref(extra);
    return rc == 0 && r->failed == 0 && !r->stopped ? 0 : -1;
}

int stage_pmc(const struct stage_pmc_opts *o)
{
    struct pmc_run r;
    memset(&r, 0, sizeof(r));
    if (stage_load(&r.st, "pmc", o->conf, o->dry_run) != 0)
        return -1;
    if (o->dry_run)
        stage_dry_run_header(&r.st);
    int rc = setup(&r, o);
    if (rc == 0 && !o->dry_run)
        rc = stage_start(&r.st) == 0 ? write_counters_json(&r) : -1;
    for (size_t i = 0; rc == 0 && i < r.passes.n && !r.stopped; i++)
        do_pass(&r, &r.passes.v[i]);
    if (rc == 0 && o->dry_run)
        rc = r.failed ? -1 : 0;
    else if (rc == 0)
        rc = finish(&r);
    json_decref(r.results);
    arch_passes_release(&r.passes);
    free(r.tool_version);
    stage_release(&r.st);
    return rc;
}
