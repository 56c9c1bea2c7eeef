/* inputs.c - what the analysis finds around a pmc run before it reads it
 * (an_int.h): the passes (counters.json, else the pass folders), the arch
 * profile (--arch, agent_info Name, run.json gpu_arch, gfx942) and its
 * agent_info overrides, the power run's telemetry files. */
#include "analysis/an_int.h"

#include "model/telemetry.h"
#include "read/prun.h"
#include "read/rocprof.h"
#include "read/rpcopy.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- passes: counters.json, else the pass folders ---- */

void an_passes_release(struct an_passes *p)
{
    arch_passes_release(&p->set);
    free(p->names);
}

/* The pass's LABEL file (written by the pmc stage, as the seed's), first line. */
static char *label_file(const char *pmc_dir, const char *pass)
{
    char *path = xasprintf("%s/%s/LABEL", pmc_dir, pass);
    size_t len;
    char *text = fs_exists(path) ? fs_read_file(path, &len) : NULL;
    free(path);
    if (text)
        text[strcspn(text, "\r\n")] = '\0';
    return text;
}

/* The pass folders of the run, when it has no counters file. */
static int passes_from_folders(struct arch_passes *set, const char *pmc_dir)
{
    arch_passes_init(set);
    char **found = rp_find_passes(pmc_dir);
    int rc = found ? 0 : -1;
    for (char **f = found; found && *f && rc == 0; f++) {
        const char *why = arch_pass_name_problem(*f);
        if (why)
            rc = br_error("%s/%s: pass folder name %s", pmc_dir, *f, why);
        else if (set->n >= ARCH_MAX_PASSES)
            rc = br_error("%s: more than %d pass folders", pmc_dir, ARCH_MAX_PASSES);
        else
            arch_passes_add(set, *f);
    }
    str_array_free(found);
    if (rc == 0 && set->n == 0)
        rc = br_error("%s: no pass folder with a *_counter_collection.csv or *" RP_ROCPD_SUFFIX,
                      pmc_dir);
    return rc;
}

int an_passes_load(struct an_passes *p, const struct an_opts *o)
{
    memset(p, 0, sizeof(*p));
    char *def = fs_path_join(o->pmc_dir, "counters.json");
    const char *path = o->counters ? o->counters : fs_exists(def) ? def : NULL;
    int rc = path ? arch_passes_load_file(&p->set, path) : passes_from_folders(&p->set, o->pmc_dir);
    free(def);
    if (rc != 0)
        return -1;
    p->file = path ? p->set.source : NULL;
    p->names = xcalloc(p->set.n + 1, sizeof(*p->names));
    for (size_t i = 0; i < p->set.n; i++) {
        p->names[i] = p->set.v[i].name;
        if (!p->set.v[i].label)
            p->set.v[i].label = label_file(o->pmc_dir, p->set.v[i].name);
    }
    return 0;
}

/* Passes without a counter list (no counters file, or none in it): the
 * profile's. */
void an_passes_from_profile(struct an_passes *p, const struct arch_profile *ap)
{
    for (size_t i = 0; i < p->set.n; i++) {
        const struct arch_pass *def = arch_pass_find(ap, p->set.v[i].name);
        if (!p->set.v[i].counters.n && def)
            strv_copy(&p->set.v[i].counters, &def->counters);
    }
}

/* ---- arch: --arch, agent_info Name, run.json gpu_arch, gfx942 ---- */

static char *arch_from_run_json(const char *pmc_dir)
{
    char *path = fs_path_join(pmc_dir, "run.json");
    char *out = NULL;
    if (fs_exists(path)) {
        json_t *r = fs_read_json(path, 0, NULL);
        const char *a = json_string_value(json_object_get(r, "gpu_arch"));
        if (a && *a)
            out = xstrdup(a);
        json_decref(r);
    }
    free(path);
    return out;
}

/* --arch against the GPU that was profiled: a profile for another GPU gives
 * wrong peaks and limits without any other sign. */
static void warn_arch_mismatch(const struct arch_profile *ap, const struct rp_agent *ag)
{
    const char *ai = rp_agent_get(ag, "Name");
    if (!ai || strncmp(ai, "gfx", 3) != 0)
        return;
    size_t n = strcspn(ai, ":");
    if (strlen(ap->arch) != n || strncmp(ap->arch, ai, n) != 0)
        br_warn("--arch: profile %s (%s) but agent_info Name is %.*s (%s): peaks, limits and "
                "counters are %s's", ap->arch, ap->path, (int)n, ai, ag->file, ap->arch);
}

struct arch_profile *an_arch_load(const struct an_opts *o, const struct rp_run *run,
                                  const struct an_passes *p, char **source)
{
    char *name = NULL;
    const char *ai = rp_agent_get(&run->agent, "Name");
    if (o->arch) {
        name = xstrdup(o->arch);
        *source = xstrdup("--arch");
    } else if (ai && !strncmp(ai, "gfx", 3)) {
        name = xstrndup(ai, strcspn(ai, ":"));
        *source = xasprintf("agent_info Name (%s)", run->agent.file);
    } else if ((name = arch_from_run_json(o->pmc_dir))) {
        *source = xstrdup("run.json gpu_arch");
    } else {
        name = xstrdup(arch_default(GPU_VENDOR_UNKNOWN));
        *source = xstrdup("default (no agent_info Name, no run.json gpu_arch)");
    }
    char *path = arch_profile_path(name, *source);
    free(name);
    struct arch_profile *ap = path ? arch_load(path, p->names, (int)p->set.n) : NULL;
    free(path);
    if (ap && o->arch)
        warn_arch_mismatch(ap, &run->agent);
    return ap;
}

/* Constants from agent_info.csv where present (docs/design.md §14). A value more
 * than 16x above or 64x below the profile's (a CPX partition has 1/8 of the
 * CUs) cannot be this GPU: it is not used, and a warning says so. */
void an_agent_overrides(struct arch_profile *ap, const struct rp_agent *ag, struct strv *warn)
{
    for (int i = 0; ag->present && i < ap->nagent; i++) {
        double v, def = arch_const(ap, ap->agent_consts[i]);
        if (rp_agent_num(ag, ap->agent_cols[i], &v) < 0 || !(v > 0))
            continue;
        if (isfinite(def) && def > 0 && !(v <= 16 * def && v >= def / 64)) {
            strv_pushf(warn, "agent_info %s = %g (%s) is not used: it is far from the "
                       "profile's %g for %s (more than 16x above or 64x below)",
                       ap->agent_cols[i], v, ag->file, def, ap->agent_consts[i]);
            continue;
        }
        char *src = xasprintf("agent_info %s (%s)", ap->agent_cols[i], ag->file);
        arch_set_const(ap, ap->agent_consts[i], v, src);
        free(src);
    }
}

/* ---- the power run's telemetry ---- */

/* True when dir itself holds a telemetry file. */
static bool has_telemetry(const char *dir)
{
    DIR *d = opendir(dir);
    bool any = false;
    for (struct dirent *e; d && !any && (e = readdir(d));)
        any = telem_is_sample_file(e->d_name);
    if (d)
        closedir(d);
    return any;
}

/* The seed's --power-ktrace alone: the telemetry of the power run that holds
 * the trace, i.e. the nearest folder above it (ktrace_<tag>/ or a CSV in it;
 * up to 3 levels for ktrace_<tag>/<node>/) holding profiling_result_*.csv. */
static char *power_dir_of(const char *ktrace)
{
    char *dir = fs_abspath(ktrace);
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            break;
        *slash = '\0';
        if (has_telemetry(dir))
            return dir;
    }
    free(dir);
    return NULL;
}

char **an_telemetry_files(const struct an_opts *o)
{
    if (o->ntelemetry || (!o->power && !o->ktrace)) {
        char **v = xcalloc(o->ntelemetry + 1, sizeof(char *));
        for (size_t i = 0; i < o->ntelemetry; i++)
            v[i] = fs_abspath(o->telemetry[i]);
        return v;
    }
    char *dir = o->power ? fs_abspath(o->power) : power_dir_of(o->ktrace);
    char **v = dir ? prun_find_telemetry(dir) : xcalloc(1, sizeof(char *));
    free(dir);
    return v;
}

bool an_has_trace(const char *dir)
{
    char **f = rp_find_traces(dir), **c = rp_find_copies(dir);
    bool any = f[0] != NULL || c[0] != NULL;
    str_array_free(f);
    str_array_free(c);
    return any;
}
