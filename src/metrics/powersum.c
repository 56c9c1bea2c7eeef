/* powersum.c - the seed's power-run summary, read back from the run folder
 * (powersum.h): samples and mean/max socket power, mean/max gfx clock, max
 * hotspot temperature (telemetry files profiling_result_<tag>[_<node>]_<gpu>.csv,
 * read with read/telemetry.h), kernels traced (ktrace_<tag>/, read with
 * read/rocprof.h), and the alignment evidence: clock_ref.txt's boottime, the
 * first sample and the first kernel start (all CLOCK_BOOTTIME ns, so first
 * sample/kernel minus clock_ref should both be small and positive).
 * CLOCK_BOOTTIME is per node: multi-node runs (clock_ref_<node>.txt) get this
 * evidence per node ("nodes"), each node's first sample and first kernel
 * (ktrace_<tag>/<node>/) against its own clock_ref. */
#include "metrics/powersum.h"
#include "model/intern.h"
#include "read/rocprof.h"
#include "read/telemetry.h"
#include "util/error.h"
#include "util/textesc.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct telem_acc {
    long samples, files;
    double power_sum, power_max, clock_sum, clock_max, hot_max, edge_max;
    long power_n, clock_n;
    int64_t first_ns;
};

static void acc_row(struct telem_acc *a, const struct br_telem_row *row)
{
    double p = row->v[TELEM_SOCKET_POWER], c = row->v[TELEM_GFX_CLOCK];
    double h = row->v[TELEM_HOTSPOT_TEMP], t = row->v[TELEM_EDGE_TEMP];
    a->samples++;
    if (a->first_ns < 0 || row->timestamp_ns < a->first_ns)
        a->first_ns = row->timestamp_ns;
    if (!isnan(p)) {
        a->power_sum += p;
        a->power_n++;
        a->power_max = isnan(a->power_max) || p > a->power_max ? p : a->power_max;
    }
    if (!isnan(c)) {
        a->clock_sum += c;
        a->clock_n++;
        a->clock_max = isnan(a->clock_max) || c > a->clock_max ? c : a->clock_max;
    }
    if (!isnan(h))
        a->hot_max = isnan(a->hot_max) || h > a->hot_max ? h : a->hot_max;
    if (!isnan(t))
        a->edge_max = isnan(a->edge_max) || t > a->edge_max ? t : a->edge_max;
}

static void read_telemetry(const char *path, struct telem_acc *a)
{
    struct br_telem *t = br_telem_open(path);
    if (!t)
        return;
    struct br_telem_row row;
    while (br_telem_next(t, &row) > 0)
        acc_row(a, &row);
    br_telem_close(t);
    a->files++;
}

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static int64_t clock_ref_boottime(const char *rundir, const char *file)
{
    char *p = fs_path_join(rundir, file);
    char *text = fs_exists(p) ? fs_read_file(p, NULL) : NULL;
    free(p);
    const char *k = text ? strstr(text, "boottime_ns=") : NULL;
    int64_t v = k ? strtoll(k + 12, NULL, 10) : -1;
    free(text);
    return v;
}

static void telemetry_json(const char *rundir, const char *tag, json_t *o, int64_t *first)
{
    struct telem_acc a = { .power_max = NAN, .clock_max = NAN, .hot_max = NAN, .edge_max = NAN,
                           .first_ns = -1 };
    struct strv files;
    strv_init(&files);
    fs_list_suffix(rundir, ".csv", &files);
    char *pre = xasprintf("%s/" TELEM_FILE_PREFIX "%s_", rundir, tag);
    for (size_t i = 0; i < files.n; i++)
        if (strncmp(files.v[i], pre, strlen(pre)) == 0 && telem_is_sample_file(files.v[i]))
            read_telemetry(files.v[i], &a);
    free(pre);
    strv_release(&files);
    json_object_set_new(o, "telemetry_files", json_integer(a.files));
    json_object_set_new(o, "samples", json_integer(a.samples));
    json_object_set_new(o, "socket_power_W_mean", num_or_null(a.power_n ? a.power_sum / (double)a.power_n : NAN));
    json_object_set_new(o, "socket_power_W_max", num_or_null(a.power_max));
    json_object_set_new(o, "gfx_clock_MHz_mean", num_or_null(a.clock_n ? a.clock_sum / (double)a.clock_n : NAN));
    json_object_set_new(o, "gfx_clock_MHz_max", num_or_null(a.clock_max));
    json_object_set_new(o, "hotspot_temp_C_max", num_or_null(a.hot_max));
    json_object_set_new(o, "edge_temp_C_max", num_or_null(a.edge_max));   /* NVIDIA: GPU temp */
    *first = a.first_ns;
}

/* "<digits>.csv": the GPU part of a node's telemetry file name. */
static bool gpu_csv(const char *s)
{
    size_t d = strspn(s, "0123456789");
    return d > 0 && strcmp(s + d, ".csv") == 0;
}

/* First sample (ns) of a node's files profiling_result_<tag>_<node>_<gpu>.csv. */
static int64_t node_first_sample(const char *rundir, const char *tag, const char *node)
{
    struct telem_acc a = { .power_max = NAN, .clock_max = NAN, .hot_max = NAN, .edge_max = NAN,
                           .first_ns = -1 };
    struct strv files;
    strv_init(&files);
    fs_list_suffix(rundir, ".csv", &files);
    char *pre = xasprintf("%s/" TELEM_FILE_PREFIX "%s_%s_", rundir, tag, node);
    for (size_t i = 0; i < files.n; i++)
        if (strncmp(files.v[i], pre, strlen(pre)) == 0 && gpu_csv(files.v[i] + strlen(pre)))
            read_telemetry(files.v[i], &a);
    free(pre);
    strv_release(&files);
    return a.first_ns;
}

/* Offsets of the first sample and first kernel from clock_ref (s) into o. */
static void offsets_json(json_t *o, int64_t ref, int64_t first_sample, int64_t first_kernel)
{
    json_object_set_new(o, "clock_ref_boottime_ns", ref >= 0 ? json_integer(ref) : json_null());
    json_object_set_new(o, "first_sample_ns", first_sample >= 0 ? json_integer(first_sample) : json_null());
    json_object_set_new(o, "first_kernel_ns", first_kernel >= 0 ? json_integer(first_kernel) : json_null());
    json_object_set_new(o, "first_sample_after_ref_s", ref >= 0 && first_sample >= 0 ?
                        json_real((double)(first_sample - ref) * 1e-9) : json_null());
    json_object_set_new(o, "first_kernel_after_ref_s", ref >= 0 && first_kernel >= 0 ?
                        json_real((double)(first_kernel - ref) * 1e-9) : json_null());
}

static void kernels_json(const char *ktrace, json_t *o, int64_t *first);

/* Multi-node runs (clock_ref_<node>.txt per node, CLOCK_BOOTTIME per node):
 * the alignment evidence of each node against its own clock_ref, its own
 * telemetry files and its own traces (ktrace_<tag>/<node>/). NULL when the
 * run has no clock_ref_<node>.txt. */
static json_t *nodes_json(const char *rundir, const char *tag, const char *ktrace)
{
    struct strv refs;
    strv_init(&refs);
    fs_list_suffix(rundir, ".txt", &refs);
    json_t *arr = NULL;
    char *pre = xasprintf("%s/clock_ref_", rundir);
    for (size_t i = 0; i < refs.n; i++) {
        if (strncmp(refs.v[i], pre, strlen(pre)) != 0 || strchr(refs.v[i] + strlen(pre), '/'))
            continue;
        char *node = xstrdup(refs.v[i] + strlen(pre));
        node[strlen(node) - 4] = '\0';                  /* ".txt" */
        char *file = xasprintf("clock_ref_%s.txt", node), *kt = fs_path_join(ktrace, node);
        json_t *n = json_object(), *k = json_object();
        int64_t first_kernel;
        kernels_json(kt, k, &first_kernel);
        json_object_set_new(n, "node", esc_json_string(node));
        json_object_set(n, "kernels_traced", json_object_get(k, "kernels_traced"));
        offsets_json(n, clock_ref_boottime(rundir, file), node_first_sample(rundir, tag, node),
                     first_kernel);
        if (!arr)
            arr = json_array();
        json_array_append_new(arr, n);
        json_decref(k);
        free(node), free(file), free(kt);
    }
    free(pre);
    strv_release(&refs);
    return arr;
}

static void kernels_json(const char *ktrace, json_t *o, int64_t *first)
{
    *first = -1;
    struct rp_power pw;
    struct intern names;
    memset(&pw, 0, sizeof(pw));
    intern_init(&names);
    if (fs_is_dir(ktrace) && rp_power_load(&pw, &names, ktrace) == 0) {
        json_object_set_new(o, "kernels_traced", json_integer((json_int_t)pw.dispatches));
        json_object_set_new(o, "trace_files", json_integer(pw.nfiles));
        if (pw.dispatches)
            *first = pw.first_start;
        rp_power_release(&pw);
    } else {
        json_object_set_new(o, "kernels_traced", json_integer(0));
        json_object_set_new(o, "trace_files", json_integer(0));
    }
    intern_release(&names);
}

json_t *mx_power_summary(const char *rundir, const char *tag, const char *ktrace)
{
    json_t *o = json_object();
    int64_t first_sample, first_kernel, ref = clock_ref_boottime(rundir, "clock_ref.txt");
    telemetry_json(rundir, tag, o, &first_sample);
    kernels_json(ktrace, o, &first_kernel);
    offsets_json(o, ref, first_sample, first_kernel);
    json_t *nodes = nodes_json(rundir, tag, ktrace);
    if (nodes)
        json_object_set_new(o, "nodes", nodes);
    return o;
}
