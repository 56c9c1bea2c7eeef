/* powersum.c - the seed's power-run summary from what the run folder holds
 * (model/psum.h, read by read/psumread.h; contract in powersum.h): samples
 * and mean/max socket power, mean/max gfx clock, max hotspot temperature,
 * kernels traced, and the alignment evidence: clock_ref.txt's boottime, the
 * first sample and the first kernel start (all CLOCK_BOOTTIME ns, so first
 * sample/kernel minus clock_ref should both be small and positive).
 * CLOCK_BOOTTIME is per node: multi-node runs (clock_ref_<node>.txt) get
 * this evidence per node ("nodes"), each node's first sample and first
 * kernel (ktrace_<tag>/<node>/) against its own clock_ref. */
#include "metrics/powersum.h"

#include "util/textesc.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static double mean(const struct telem_stat *s)
{
    return s->n ? s->sum / (double)s->n : NAN;
}

/* The statistics of every file pooled (a max over files). */
static void pool(const struct telem_stat *s, struct telem_stat *all)
{
    if (!s->n)
        return;
    all->max = all->n == 0 || s->max > all->max ? s->max : all->max;
    all->n += s->n;
    all->sum += s->sum;
}

static void telemetry_json(const struct telem_run *tel, json_t *o, int64_t *first)
{
    struct telem_stat pw = { 0, 0, NAN }, ck = pw, hot = pw, edge = pw;
    uint64_t samples = 0;
    *first = -1;
    for (size_t i = 0; i < tel->n; i++) {
        const struct telem_file *f = &tel->f[i];
        samples += f->rows;
        if (f->rows && (*first < 0 || f->first_ns < *first))
            *first = f->first_ns;
        pool(&f->socket_power, &pw);
        pool(&f->gfx_clock, &ck);
        pool(&f->hotspot_temp, &hot);
        pool(&f->edge_temp, &edge);
    }
    json_object_set_new(o, "telemetry_files", json_integer((json_int_t)tel->n));
    json_object_set_new(o, "samples", json_integer((json_int_t)samples));
    json_object_set_new(o, "socket_power_W_mean", num_or_null(mean(&pw)));
    json_object_set_new(o, "socket_power_W_max", num_or_null(pw.max));
    json_object_set_new(o, "gfx_clock_MHz_mean", num_or_null(mean(&ck)));
    json_object_set_new(o, "gfx_clock_MHz_max", num_or_null(ck.max));
    json_object_set_new(o, "hotspot_temp_C_max", num_or_null(hot.max));
    json_object_set_new(o, "edge_temp_C_max", num_or_null(edge.max));   /* NVIDIA: GPU temp */
}

/* "<digits>.csv": the GPU part of a node's telemetry file name. */
static bool gpu_csv(const char *s)
{
    size_t d = strspn(s, "0123456789");
    return d > 0 && strcmp(s + d, ".csv") == 0;
}

/* First sample (ns) of a node's files profiling_result_<tag>_<node>_<gpu>.csv. */
static int64_t node_first_sample(const struct psum_run *r, const char *node)
{
    char *pre = xasprintf(TELEM_FILE_PREFIX "%s_%s_", r->tag, node);
    int64_t first = -1;
    for (size_t i = 0; i < r->tel.n; i++) {
        const struct telem_file *f = &r->tel.f[i];
        if (strncmp(f->name, pre, strlen(pre)) == 0 && gpu_csv(f->name + strlen(pre)) &&
            f->rows && (first < 0 || f->first_ns < first))
            first = f->first_ns;
    }
    free(pre);
    return first;
}

/* Offsets of the first sample and first kernel from clock_ref (s) into o. */
static void offsets_json(json_t *o, int64_t ref, int64_t first_sample, int64_t first_kernel)
{
    json_object_set_new(o, "clock_ref_boottime_ns", ref >= 0 ? json_integer(ref) : json_null());
    json_object_set_new(o, "first_sample_ns",
                        first_sample >= 0 ? json_integer(first_sample) : json_null());
    json_object_set_new(o, "first_kernel_ns",
                        first_kernel >= 0 ? json_integer(first_kernel) : json_null());
    json_object_set_new(o, "first_sample_after_ref_s", ref >= 0 && first_sample >= 0 ?
                        json_real((double)(first_sample - ref) * 1e-9) : json_null());
    json_object_set_new(o, "first_kernel_after_ref_s", ref >= 0 && first_kernel >= 0 ?
                        json_real((double)(first_kernel - ref) * 1e-9) : json_null());
}

/* Multi-node runs: the alignment evidence of each node against its own
 * clock_ref, its own telemetry files and its own traces. NULL when the run
 * has no clock_ref_<node>.txt. */
static json_t *nodes_json(const struct psum_run *r)
{
    json_t *arr = r->nnodes ? json_array() : NULL;
    for (size_t i = 0; i < r->nnodes; i++) {
        const struct psum_node *nd = &r->nodes[i];
        json_t *n = json_object();
        json_object_set_new(n, "node", esc_json_string(nd->node));
        json_object_set_new(n, "kernels_traced", json_integer((json_int_t)nd->trace.kernels));
        offsets_json(n, nd->clock_ref_ns, node_first_sample(r, nd->node), nd->trace.first_ns);
        json_array_append_new(arr, n);
    }
    return arr;
}

json_t *mx_power_summary(const struct psum_run *r)
{
    json_t *o = json_object();
    int64_t first_sample;
    telemetry_json(&r->tel, o, &first_sample);
    json_object_set_new(o, "kernels_traced", json_integer((json_int_t)r->trace.kernels));
    json_object_set_new(o, "trace_files", json_integer(r->trace.files));
    offsets_json(o, r->clock_ref_ns, first_sample, r->trace.first_ns);
    json_t *nodes = nodes_json(r);
    if (nodes)
        json_object_set_new(o, "nodes", nodes);
    return o;
}
