/* sampler_report.c - interval statistics, refresh rates, summary and sampler_<prefix>.json.
 *
 * Figures: achieved interval = time between the starts of consecutive loop
 * passes (median, p99 by nearest rank, max gap, mean); source refresh rate =
 * (refreshes - 1) / (last refresh - first refresh) per GPU, in distinct
 * updates per second; sampler CPU time = CLOCK_PROCESS_CPUTIME_ID of the
 * sampler (all its threads; the command's CPU is not included).
 */
#include "sample/sampler_report.h"
#include "util/error.h"
#include "util/textesc.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void br_report_init(struct br_run_times *rt, int64_t interval_ns)
{
    memset(rt, 0, sizeof(*rt));
    rt->interval_ns = interval_ns;
    rt->prev_t0 = -1;
}

void br_report_release(struct br_run_times *rt)
{
    free(rt->gaps);
    rt->gaps = NULL;
}

void br_report_pass(struct br_run_times *rt, int64_t t0, int64_t t1)
{
    if (rt->prev_t0 >= 0) {
        int64_t gap = t0 - rt->prev_t0;
        xgrow((void **)&rt->gaps, &rt->cap, rt->ngaps + 1, sizeof(*rt->gaps));
        rt->gaps[rt->ngaps++] = gap > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)gap;
        if ((double)gap > rt->max_gap_ns)
            rt->max_gap_ns = (double)gap;
    } else {
        rt->first_t0 = t0;
    }
    rt->prev_t0 = rt->last_t0 = t0;
    rt->passes++;
    rt->cost_sum_ns += (double)(t1 - t0);
    if ((double)(t1 - t0) > rt->cost_max_ns)
        rt->cost_max_ns = (double)(t1 - t0);
}

void br_report_count(struct br_gpu_out *g, const struct br_sample *s, bool refreshed)
{
    g->samples++;
    g->last_power_W = s->socket_power_W;
    if (!refreshed)
        return;
    if (g->refreshes++ == 0)
        g->first_refresh_ns = s->t_ns;
    g->last_refresh_ns = s->t_ns;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

double br_quantile_u32(uint32_t *v, size_t n, double p)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof(*v), cmp_u32);
    if (p == 0.5 && n % 2 == 0)
        return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
    size_t rank = (size_t)ceil(p * (double)n);
    return (double)v[rank > 0 ? rank - 1 : 0];
}

static double refresh_hz(const struct br_gpu_out *g)
{
    if (g->refreshes < 2 || g->last_refresh_ns <= g->first_refresh_ns)
        return NAN;
    return (double)(g->refreshes - 1) * 1e9 / (double)(g->last_refresh_ns - g->first_refresh_ns);
}

void br_report_progress(struct br_run_times *rt, const struct br_gpu_out *g, size_t n,
                        bool final)
{
    if (!final && rt->last_t0 - rt->last_progress_ns < 1000000000LL)
        return;
    rt->last_progress_ns = rt->last_t0;
    fprintf(stderr, "\rbenchrun sample: %.0f s, %llu samples",
            (double)(rt->last_t0 - rt->first_t0) * 1e-9, (unsigned long long)rt->passes);
    for (size_t i = 0; i < n && i < 4; i++)
        fprintf(stderr, ", gpu%d %.0f W", g[i].gpu, g[i].last_power_W);
    fprintf(stderr, final ? "\n" : "   ");
}

static void fill_stats(struct br_run_times *rt, struct br_sampler_stats *s)
{
    memset(s, 0, sizeof(*s));
    s->iterations = rt->passes;
    s->missed = rt->missed;
    s->first_ns = rt->first_t0;
    s->last_ns = rt->last_t0;
    s->interval_mean_ns = rt->ngaps ? (double)(rt->last_t0 - rt->first_t0) / rt->ngaps : NAN;
    s->interval_max_ns = rt->ngaps ? rt->max_gap_ns : NAN;
    s->interval_p99_ns = br_quantile_u32(rt->gaps, rt->ngaps, 0.99);
    s->interval_median_ns = br_quantile_u32(rt->gaps, rt->ngaps, 0.5);
    s->cpu_s = rt->cpu_s;
}

/* json_real(NAN) is NULL in jansson: NaN becomes null. */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *gpu_json(const struct br_gpu_out *g)
{
    json_t *o = json_object();
    json_object_set_new(o, "gpu", json_integer(g->gpu));
    json_object_set_new(o, "file", esc_json_string(g->path));
    json_object_set_new(o, "source", esc_json_string(g->info.source ? g->info.source : ""));
    json_object_set_new(o, "pci_bus_id", g->info.pci_bus_id ? esc_json_string(g->info.pci_bus_id)
                                                            : json_null());
    json_object_set_new(o, "samples", json_integer((json_int_t)g->samples));
    json_object_set_new(o, "write_error", g->write_errno ? esc_json_string(strerror(g->write_errno))
                                                          : json_null());
    json_object_set_new(o, "source_refreshes", json_integer((json_int_t)g->refreshes));
    json_object_set_new(o, "source_refresh_hz", jnum(refresh_hz(g)));
    json_object_set_new(o, "read_errors", json_integer((json_int_t)g->read_errors));
    if (g->info.driver_power_path)
        json_object_set_new(o, "driver_power_file", esc_json_string(g->info.driver_power_path));
    return o;
}

/* Samples every GPU's file holds: the loop passes, fewer when a write failed. */
static uint64_t written_per_gpu(const struct br_sampler_config *cfg,
                                const struct br_sampler_stats *s, const struct br_gpu_out *g)
{
    uint64_t n = s->iterations;
    for (size_t i = 0; i < cfg->ngpus; i++)
        if (g[i].write_errno && g[i].samples < n)
            n = g[i].samples;
    return n;
}

static json_t *run_json(const struct br_sampler_config *cfg, const struct br_run_times *rt,
                        const struct br_sampler_stats *s, const struct br_gpu_out *g, int status)
{
    json_t *o = json_object(), *gpus = json_array(), *cmd = json_array();
    json_object_set_new(o, "backend", esc_json_string(cfg->ops->name));
    json_object_set_new(o, "prefix", esc_json_string(cfg->prefix));
    json_object_set_new(o, "node", cfg->node ? esc_json_string(cfg->node) : json_null());
    json_object_set_new(o, "clock", esc_json_string("CLOCK_BOOTTIME"));
    json_object_set_new(o, "interval_requested_ms", json_real((double)cfg->interval_ns * 1e-6));
    json_object_set_new(o, "interval_achieved_median_ms", jnum(s->interval_median_ns * 1e-6));
    json_object_set_new(o, "interval_achieved_p99_ms", jnum(s->interval_p99_ns * 1e-6));
    json_object_set_new(o, "interval_achieved_max_gap_ms", jnum(s->interval_max_ns * 1e-6));
    json_object_set_new(o, "interval_achieved_mean_ms", jnum(s->interval_mean_ns * 1e-6));
    json_object_set_new(o, "deadlines_missed", json_integer((json_int_t)s->missed));
    json_object_set_new(o, "samples", json_integer((json_int_t)written_per_gpu(cfg, s, g)));
    json_object_set_new(o, "first_sample_ns", json_integer(s->first_ns));
    json_object_set_new(o, "last_sample_ns", json_integer(s->last_ns));
    json_object_set_new(o, "duration_s", json_real((double)(s->last_ns - s->first_ns) * 1e-9));
    json_object_set_new(o, "sampler_cpu_s", json_real(s->cpu_s));
    json_object_set_new(o, "pass_cost_mean_us",
                        jnum(rt->passes ? rt->cost_sum_ns / rt->passes * 1e-3 : NAN));
    json_object_set_new(o, "pass_cost_max_us", json_real(rt->cost_max_ns * 1e-3));
    for (size_t i = 0; i < cfg->ngpus; i++)
        json_array_append_new(gpus, gpu_json(&g[i]));
    json_object_set_new(o, "gpus", gpus);
    for (char *const *a = cfg->argv; a && *a; a++)
        json_array_append_new(cmd, esc_json_string(*a));
    json_object_set_new(o, "command", cmd);
    json_object_set_new(o, "exit_status", json_integer(status));
    json_object_set_new(o, "signal_forwarded", rt->forwarded_signal
                            ? json_integer(rt->forwarded_signal) : json_null());
    return o;
}

static void print_summary(const struct br_sampler_config *cfg, const struct br_run_times *rt,
                          const struct br_sampler_stats *s, const struct br_gpu_out *g)
{
    double dur = (double)(s->last_ns - s->first_ns) * 1e-9;
    fprintf(stderr, "benchrun sample: %llu samples per GPU over %.2f s (backend %s, %zu GPU%s)\n",
            (unsigned long long)written_per_gpu(cfg, s, g), dur, cfg->ops->name, cfg->ngpus,
            cfg->ngpus == 1 ? "" : "s");
    fprintf(stderr, "  interval: requested %.3f ms, achieved median %.3f ms, p99 %.3f ms, "
                    "max gap %.3f ms, %llu deadline(s) missed\n",
            (double)cfg->interval_ns * 1e-6, s->interval_median_ns * 1e-6,
            s->interval_p99_ns * 1e-6, s->interval_max_ns * 1e-6,
            (unsigned long long)s->missed);
    for (size_t i = 0; i < cfg->ngpus; i++) {
        fprintf(stderr, "  gpu %d: source refreshed %.1f times/s, %llu read error(s): %s\n",
                g[i].gpu, refresh_hz(&g[i]), (unsigned long long)g[i].read_errors, g[i].path);
        if (g[i].write_errno)
            fprintf(stderr, "  gpu %d: %llu samples written, then: %s\n", g[i].gpu,
                    (unsigned long long)g[i].samples, strerror(g[i].write_errno));
    }
    fprintf(stderr, "  sampler CPU: %.3f s (%.2f%% of one core)\n", s->cpu_s,
            dur > 0 ? 100.0 * s->cpu_s / dur : 0.0);
    if (rt->forwarded_signal)
        fprintf(stderr, "  signal %d forwarded to the command\n", rt->forwarded_signal);
}

int br_report_finish(const struct br_sampler_config *cfg, struct br_run_times *rt,
                     const struct br_gpu_out *g, int status, const char *json_path,
                     struct br_sampler_stats *stats)
{
    struct br_sampler_stats s;
    fill_stats(rt, &s);
    if (stats)
        *stats = s;
    if (cfg->progress)
        br_report_progress(rt, g, cfg->ngpus, true);
    json_t *o = run_json(cfg, rt, &s, g, status);
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(o);
    int rc = -1;
    if (text) {
        size_t len = strlen(text);
        text = xrealloc(text, len + 2);
        strcpy(text + len, "\n");
        rc = fs_write_atomic(json_path, text, len + 1);
    }
    free(text);
    if (!cfg->quiet)
        print_summary(cfg, rt, &s, g);
    return rc;
}
