/* vectors_run.c - what `benchrun vectors` learns about a power run folder
 * before binning: telemetry files and their GPU/node names, run.json or
 * run_info.txt, clock_ref.txt, the GPU architecture and its TDP, and the
 * kernel window from the trace (through src/read/rocprof.h).
 *
 * Names: `benchrun sample` writes profiling_result_<prefix>_<gpu>.csv, or
 * profiling_result_<prefix>_<node>_<gpu>.csv with --node; the
 * NVIDIA driver's own samples go to ..._<gpu>_driver_power.csv, which is not
 * a telemetry CSV of docs/design.md §10 and is skipped. The GPU index is the last
 * "_<digits>" of the name; a node name comes from the metadata key "node"
 * (the sampler writes node=none on one node), else from what remains after
 * the common prefix (the tag) of all files.
 *
 * Multi-node runs: r->nodes lists the nodes; when trace files lie in node
 * folders (ktrace_<tag>/<node>/), each node gets its own kernel window from
 * its own traces (CLOCK_BOOTTIME is per node: one window over all nodes would
 * mix clocks that may be days apart).
 */
#include "vectors/vectors_int.h"

#include "arch/arch.h"
#include "read/nodepath.h"
#include "read/rocprof.h"
#include "read/telemetry.h"
#include "util/error.h"
#include "util/textesc.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the telemetry CSVs in dir. */
static int list_telemetry(const char *dir, struct strv *names)
{
    DIR *d = opendir(dir);
    if (!d)
        return br_error("cannot open power run folder '%s': %s", dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)))
        if (telem_is_sample_file(e->d_name))
            strv_push(names, e->d_name);
    closedir(d);
    if (names->n == 0)
        return br_error("no telemetry file (" TELEM_FILE_PREFIX "<tag>_<gpu>.csv) in '%s'", dir);
    qsort(names->v, names->n, sizeof(*names->v), cmp_str);
    return 0;
}

/* "profiling_result_<rest>_<gpu>.csv": *gpu and a copy of rest. */
static int split_name(const char *file, int *gpu, char **rest)
{
    const char *s = file + strlen(TELEM_FILE_PREFIX);
    size_t n = strlen(s) - strlen(".csv");
    size_t i = n;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i == n || n - i > 6)
        return br_error("%s: cannot tell the GPU index: expected "
                        TELEM_FILE_PREFIX "<tag>_<gpu>.csv", file);
    *gpu = atoi(s + i);
    *rest = xstrndup(s, i > 0 && s[i - 1] == '_' ? i - 1 : i);
    return 0;
}

/* Metadata line of a telemetry file as a JSON object of strings. */
static json_t *read_meta(const char *path)
{
    struct br_telem *t = br_telem_open(path);
    if (!t)
        return NULL;
    json_t *m = json_object();
    for (size_t i = 0; i < br_telem_meta_count(t); i++)
        esc_json_set(m, br_telem_meta_key(t, i), esc_json_string(br_telem_meta_value(t, i)));
    br_telem_close(t);
    return m;
}

/* Length of the common prefix of all rests that ends at a '_' boundary. */
static size_t common_tag_len(char **rests, size_t n)
{
    size_t len = strlen(rests[0]);
    for (size_t i = 1; i < n; i++) {
        size_t k = 0;
        while (k < len && rests[i][k] == rests[0][k])
            k++;
        len = k;
    }
    bool all_same = true;
    for (size_t i = 0; i < n; i++)
        all_same = all_same && strlen(rests[i]) == len;
    if (all_same)
        return len;
    while (len > 0 && rests[0][len - 1] != '_')
        len--;
    return len > 0 ? len - 1 : 0;
}

static const char *meta_str(json_t *meta, const char *key)
{
    const char *v = json_string_value(json_object_get(meta, key));
    return v && *v ? v : NULL;
}

/* The sampler writes node=none on a single-node run. */
static const char *meta_node(json_t *meta)
{
    const char *v = meta_str(meta, "node");
    return v && strcmp(v, "none") != 0 ? v : NULL;
}

/* Node name of every file: metadata "node", else what follows the tag. */
static void name_nodes(struct vec_result *r, char **rests)
{
    size_t tl = common_tag_len(rests, r->ngpus);
    for (size_t i = 0; i < r->ngpus; i++) {
        struct vec_gpu *g = &r->gpus[i];
        const char *m = meta_node(g->meta);
        const char *rest = rests[i] + tl;
        if (*rest == '_')
            rest++;
        if (m)
            g->node = xstrdup(m);
        else if (*rest && !json_object_get(g->meta, "node"))
            g->node = xstrdup(rest);
        g->suffix = g->node ? xasprintf("%s_gpu%d", g->node, g->gpu) : xasprintf("gpu%d", g->gpu);
    }
}

static int cmp_gpu(const void *a, const void *b)
{
    const struct vec_gpu *x = a, *y = b;
    int c = strcmp(x->node ? x->node : "", y->node ? y->node : "");
    return c ? c : (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/* r->nodes from the sorted GPUs (consecutive per node); g->node_ix. */
static void build_nodes(struct vec_result *r)
{
    r->nodes = xcalloc(r->ngpus + 1, sizeof(*r->nodes));
    for (size_t i = 0; i < r->ngpus; i++) {
        struct vec_gpu *g = &r->gpus[i];
        g->node_ix = -1;
        if (!g->node)
            continue;
        if (!r->nnodes || strcmp(r->nodes[r->nnodes - 1].name, g->node) != 0) {
            struct vec_node *nd = &r->nodes[r->nnodes++];
            nd->name = xstrdup(g->node);
            nd->first_ts = nd->last_ts = INT64_MIN;
        }
        g->node_ix = (int)r->nnodes - 1;
    }
}

int vec_find_gpus(struct vec_result *r)
{
    struct strv names;
    strv_init(&names);
    int rc = list_telemetry(r->prof_dir, &names);
    char **rests = xcalloc(names.n + 1, sizeof(*rests));
    r->gpus = xcalloc(names.n + 1, sizeof(*r->gpus));
    for (size_t i = 0; rc == 0 && i < names.n; i++, r->ngpus++) {
        struct vec_gpu *g = &r->gpus[i];
        g->file = xstrdup(names.v[i]);
        g->path = fs_path_join(r->prof_dir, names.v[i]);
        g->first_ts = g->last_ts = INT64_MIN;
        if (split_name(g->file, &g->gpu, &rests[i]) != 0 || !(g->meta = read_meta(g->path)))
            rc = -1;
    }
    if (rc == 0) {
        name_nodes(r, rests);
        qsort(r->gpus, r->ngpus, sizeof(*r->gpus), cmp_gpu);
        for (size_t i = 1; i < r->ngpus; i++)
            if (cmp_gpu(&r->gpus[i - 1], &r->gpus[i]) == 0)
                rc = br_error("'%s' and '%s' are both GPU %s", r->gpus[i - 1].file,
                              r->gpus[i].file, r->gpus[i].suffix);
    }
    if (rc == 0)
        build_nodes(r);
    for (size_t i = 0; i < names.n; i++)
        free(rests[i]);
    free(rests);
    strv_release(&names);
    return rc;
}

/* ---- run_info, clock_ref ------------------------------------------------- */

/* "key: value" or "key=value" lines (several key=value per line allowed)
 * into an object of strings; other lines are kept under "line<N>". */
static json_t *parse_kv_text(const char *text)
{
    json_t *o = json_object();
    long ln = 0;
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char *line = xstrndup(s, n);
        ln++;
        vec_kv_line(o, line, ln);
        free(line);
        s += n + (e ? 1 : 0);
    }
    return o;
}

void vec_kv_line(json_t *o, char *line, long ln)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
        line[--n] = '\0';
    if (!n || line[0] == '#')
        return;
    char *colon = strstr(line, ": ");
    char *eq = strchr(line, '=');
    if (colon && (!eq || colon < eq)) {
        /* the seed's run_info.txt pads its keys ("gpu arch    : gfx942") */
        char *k = line, *ke = colon;
        while (*k == ' ')
            k++;
        while (ke > k && ke[-1] == ' ')
            ke--;
        *ke = '\0';
        esc_json_set(o, k, esc_json_string(colon + 2));
        return;
    }
    if (!eq) {
        char key[32];
        snprintf(key, sizeof(key), "line%ld", ln);
        json_object_set_new(o, key, esc_json_string(line));
        return;
    }
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *q = strchr(tok, '=');
        if (q && q > tok) {
            *q = '\0';
            esc_json_set(o, tok, esc_json_string(q + 1));
        }
    }
}

/* run.json when present (benchrun's stages write it), else run_info.txt. */
void vec_read_run_info(struct vec_result *r)
{
    char *p = fs_path_join(r->prof_dir, "run.json");
    if (fs_exists(p)) {
        json_error_t err;
        r->run_info = fs_read_json(p, 0, &err);
        if (r->run_info)
            r->run_info_file = xstrdup("run.json");
        else
            vec_warn(r, "%s:%d: not valid JSON (%s): ignored", p, err.line, err.text);
    }
    free(p);
    if (r->run_info)
        return;
    p = fs_path_join(r->prof_dir, "run_info.txt");
    char *text = fs_exists(p) ? fs_read_file(p, NULL) : NULL;
    if (text && !r->run_info) {
        r->run_info = parse_kv_text(text);
        r->run_info_file = xstrdup("run_info.txt");
    }
    if (text) {   /* the seed's description.run_info: the file's lines */
        r->run_info_lines = json_array();
        for (char *s = text, *e; *s; s = e ? e + 1 : s + strlen(s)) {
            e = strchr(s, '\n');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            while (n && s[n - 1] == '\r')
                n--;
            char *line = xstrndup(s, n);
            json_array_append_new(r->run_info_lines, esc_json_string(line));
            free(line);
            if (!e)
                break;
        }
    }
    free(text);
    free(p);
}

/* ROCM_PATH of the run's workload.conf (copied there by the stage, as the
 * seed's): read by sourcing it with bash, never by parsing it; the version
 * is what follows "rocm-" in the folder name (/opt/rocm-7.2.0). */
void vec_read_rocm(struct vec_result *r)
{
    char *conf = fs_path_join(r->prof_dir, "workload.conf");
    if (!fs_exists(conf)) {
        free(conf);
        return;
    }
    const char *argv[] = { "bash", "--norc", "--noprofile", "-c",
                           "source \"$1\" >/dev/null 2>&1 </dev/null; printf %s \"${ROCM_PATH:-}\"",
                           "_", conf, NULL };
    struct strbuf out;
    sb_init(&out);
    int status;
    if (proc_capture(argv, &out, NULL, &status) == 0 && status == 0) {
        const char *v = strstr(out.buf, "rocm-");
        if (v && v[5] >= '0' && v[5] <= '9')
            r->rocm_version = xstrndup(v + 5, strcspn(v + 5, "/"));
    }
    sb_release(&out);
    free(conf);
}

/* clock_ref.txt, and clock_ref_<node>.txt of multi-node runs (sampler --node). */
void vec_read_clock_ref(struct vec_result *r)
{
    DIR *d = opendir(r->prof_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "clock_ref", 9) != 0 || !fs_ends_with(e->d_name, ".txt"))
            continue;
        char *p = fs_path_join(r->prof_dir, e->d_name);
        char *text = fs_read_file(p, NULL);
        if (text && strcmp(e->d_name, "clock_ref.txt") == 0) {
            r->clock_ref = parse_kv_text(text);
            r->clock_ref_line = xstrndup(text, strcspn(text, "\r\n"));
        } else if (text && e->d_name[9] == '_') {
            if (!r->clock_ref_nodes)
                r->clock_ref_nodes = json_object();
            esc_json_set(r->clock_ref_nodes, e->d_name, parse_kv_text(text));
        }
        free(text);
        free(p);
    }
    if (d)
        closedir(d);
}

void vec_read_sampler_reports(struct vec_result *r)
{
    DIR *d = opendir(r->prof_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "sampler_", 8) != 0 || !fs_ends_with(e->d_name, ".json"))
            continue;
        char *p = fs_path_join(r->prof_dir, e->d_name);
        json_error_t err;
        json_t *j = fs_read_json(p, 0, &err);
        if (!j)
            vec_warn(r, "%s:%d: not valid JSON (%s): ignored", p, err.line, err.text);
        else {
            if (!r->sampler_reports)
                r->sampler_reports = json_object();
            esc_json_set(r->sampler_reports, e->d_name, j);
        }
        free(p);
    }
    if (d)
        closedir(d);
}

/* ---- architecture and TDP ---------------------------------------------------- */

static const char *run_info_str(const struct vec_result *r, const char *key)
{
    return r->run_info ? meta_str(r->run_info, key) : NULL;
}

/* The seed's sampler (rocprofwrap_lt amd-smi-query) writes a metadata line
 * like "device_id=0 interval_ms=1 counter_resolution_uJ=15.259", without
 * benchrun's backend= key: AMD telemetry of the seed flow, which ran only on
 * MI300X. */
static bool seed_format(const struct vec_result *r)
{
    json_t *m = r->ngpus ? r->gpus[0].meta : NULL;
    return m && !json_object_get(m, "backend") &&
           (json_object_get(m, "counter_resolution_uJ") || json_object_get(m, "device_id"));
}

/* Arch name: --arch, run.json gpu_arch, run_info.txt "gpu arch", telemetry
 * metadata "arch", else MI300X for the seed's telemetry format (warned). */
static void find_arch(const struct vec_opts *o, struct vec_result *r)
{
    const char *a = NULL, *src = NULL;
    r->seed_telemetry = seed_format(r);
    if (o->arch)
        a = o->arch, src = "--arch";
    else if ((a = run_info_str(r, "gpu_arch")) || (a = run_info_str(r, "gpu arch")))
        src = r->run_info_file;
    else if (r->ngpus && (a = meta_str(r->gpus[0].meta, "arch")))
        src = "telemetry metadata";
    else if (r->seed_telemetry && o->tdp_W <= 0) {
        a = arch_default(GPU_VENDOR_AMD);
        src = "assumed: telemetry in the seed sampler's format (no run.json, no arch named), "
              "which the seed flow wrote on MI300X only";
        vec_warn(r, "%s: no run.json and no GPU architecture named: the telemetry is in the "
                 "seed sampler's format, taken as AMD Instinct MI300X (gfx942, TDP 750 W); pass "
                 "--arch or --tdp if it is not", r->prof_dir);
    }
    if (a) {
        r->arch = xstrdup(a);
        r->arch_source = xstrdup(src);
    }
    const char *name = run_info_str(r, "gpu_name");
    if (!name && r->ngpus)
        name = meta_str(r->gpus[0].meta, "name");
    if (name)
        r->gpu_name = xstrdup(name);
}

/* TDP (and product name) from the arch profile (arch_tdp_w). */
static int profile_tdp(struct vec_result *r)
{
    struct arch_profile *ap = arch_open(r->arch, r->arch_source);
    if (!ap)
        return -1;
    double tdp = arch_tdp_w(ap);
    int rc = 0;
    if (!(tdp > 0))
        rc = br_error("%s: no positive \"tdp_W\" or constants.TDP_W (the power reference "
                      "of the vectors): pass --tdp W", ap->path);
    else
        r->tdp_W = tdp, r->tdp_source = xstrdup(ap->path);
    if (rc == 0 && !r->gpu_name)
        r->gpu_name = xstrdup(ap->product);
    arch_free(ap);
    return rc;
}

int vec_find_tdp(const struct vec_opts *o, struct vec_result *r)
{
    find_arch(o, r);
    if (o->tdp_W > 0) {
        r->tdp_W = o->tdp_W;
        r->tdp_source = xstrdup("--tdp");
        return 0;
    }
    if (!r->arch)
        return br_error("cannot tell the GPU architecture of '%s' (no gpu_arch in run.json, "
                        "no arch in the telemetry metadata): pass --arch NAME or --tdp W",
                        r->prof_dir);
    return profile_tdp(r);
}

/* ---- kernel window ------------------------------------------------------------ */

/* True when some *kernel_trace.csv or rocpd *_results.db lies under dir
 * (depth <= 5). */
static bool has_trace(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = fs_path_join(dir, e->d_name);
        if (fs_ends_with(e->d_name, "kernel_trace.csv") || fs_ends_with(e->d_name, RP_ROCPD_SUFFIX))
            found = true;
        else if (depth < 5 && fs_is_dir(p))
            found = has_trace(p, depth + 1);
        free(p);
    }
    closedir(d);
    return found;
}

static const char *relative(const char *base, const char *p)
{
    size_t n = strlen(base);
    return strncmp(p, base, n) == 0 && p[n] == '/' ? p + n + 1 : p;
}

/* Node of trace file f: the node whose name is a folder of its path below
 * the run folder; -1 when none. */
static int trace_node(const struct vec_result *r, const char *path)
{
    for (size_t n = 0; n < r->nnodes; n++)
        if (rp_path_in_node(r->prof_dir, path, r->nodes[n].name))
            return (int)n;
    return -1;
}

/* Per-node windows from the (file, agent) spans of pw; sets
 * r->window_per_node when some trace lies in a node's folder. */
static void node_windows(struct vec_result *r, const struct rp_power *pw)
{
    int *of = xcalloc(pw->nfiles + 1, sizeof(*of));
    for (uint32_t f = 0; f < pw->nfiles; f++) {
        of[f] = trace_node(r, pw->files[f]);
        if (of[f] >= 0)
            r->nodes[of[f]].ntrace_files++, r->window_per_node = true;
    }
    for (uint32_t k = 0; k < pw->ngpus; k++) {
        const struct rp_gpu_busy *g = &pw->gpu[k];
        if (g->dispatches == 0 || g->file >= pw->nfiles || of[g->file] < 0)
            continue;   /* a GPU with copies only has no kernel window */
        struct vec_node *nd = &r->nodes[of[g->file]];
        if (!nd->have_trace || g->first_start < nd->start)
            nd->start = g->first_start;
        if (!nd->have_trace || g->last_end > nd->end)
            nd->end = g->last_end;
        nd->have_trace = true;
        nd->dispatches += g->dispatches;
    }
    free(of);
}

/* Warnings of a per-node window: traces of no node, nodes without traces. */
static void warn_node_windows(const struct vec_opts *o, struct vec_result *r)
{
    for (uint32_t i = 0; i < r->win.ntrace_files; i++)
        if (trace_node(r, r->win.trace_files[i]) < 0)
            vec_warn(r, "%s: not under a node folder (<node>/) of this multi-node run: not "
                     "used for any node's kernel window", r->win.trace_files[i]);
    for (size_t n = 0; n < r->nnodes && !o->no_trim; n++)
        if (!r->nodes[n].have_trace)
            vec_warn(r, "node %s: no kernel trace with dispatches under a '%s/' folder: its "
                     "samples are not trimmed (CLOCK_BOOTTIME is per node)",
                     r->nodes[n].name, r->nodes[n].name);
}

int vec_find_window(const struct vec_opts *o, struct vec_result *r)
{
    struct vec_window *w = &r->win;
    if (!has_trace(r->prof_dir, 0)) {
        w->note = xstrdup("no kernel trace (*kernel_trace.csv, *" RP_ROCPD_SUFFIX ") in the run "
                          "folder: all samples used");
        if (!o->no_trim)
            vec_warn(r, "%s: no kernel trace found: samples are not trimmed to the kernel window",
                     r->prof_dir);
        return 0;
    }
    struct intern names;
    struct rp_power pw;
    memset(&pw, 0, sizeof(pw));
    intern_init(&names);
    int rc = rp_power_load(&pw, &names, r->prof_dir);
    if (rc == 0) {
        w->ntrace_files = pw.nfiles;
        w->trace_files = xcalloc(pw.nfiles + 1, sizeof(*w->trace_files));
        for (uint32_t i = 0; i < pw.nfiles; i++)
            w->trace_files[i] = xstrdup(relative(r->prof_dir, pw.files[i]));
        w->dispatches = pw.dispatches;
        w->have_trace = pw.dispatches > 0;
        w->start = pw.first_start;
        w->end = pw.last_end;
    }
    if (rc == 0 && r->nnodes)
        node_windows(r, &pw);
    rp_power_release(&pw);
    intern_release(&names);
    if (rc != 0)
        return -1;
    if (!w->have_trace)
        w->note = xstrdup("the kernel trace holds no dispatch: all samples used");
    else if (o->no_trim)
        w->note = xstrdup("--no-trim: samples outside the kernel window kept");
    w->trimmed = w->have_trace && !o->no_trim;
    if (r->window_per_node)
        warn_node_windows(o, r);
    if (!w->have_trace && !o->no_trim)
        vec_warn(r, "%s: the kernel trace holds no dispatch: samples are not trimmed",
                 r->prof_dir);
    return 0;
}
