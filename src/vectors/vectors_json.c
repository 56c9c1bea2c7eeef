/* vectors_json.c - sampling_vectors.json: a "description" header, then one key
 * per vector (pooled, then with --per-gpu <name>_gpu<N> after it, or on a
 * multi-node run <name>_<node> (the node's GPUs pooled) and
 * <name>_<node>_gpu<N>), in the seed's order.
 *
 * The description first holds the seed's keys with the seed's value types
 * (build_sampling_json.py; tests/fixtures/seed-reference): label, gpu,
 * gpus_sampled, run, run_info (strings and lists of strings), telemetry_files,
 * sampling, window, clock_alignment, vector_creation, cross_check (sentences),
 * samples {total_in_files, used}, bins {<key>: column, bin_edges, unit,
 * samples_in_population, samples_above_last_edge, then benchrun's edges and
 * counts}, skipped {<vector>: reason}. benchrun's objects follow under
 * <key>_detail (gpu, gpus_sampled, run, sampling, window, clock_alignment,
 * vector_creation, cross_check), run_info_fields, skipped_vectors,
 * samples_total, samples_used and warnings (README.md shows an example).
 * Numbers are printed like Python's json (repr), see jsonw.h.
 */
#include "vectors/vectors_int.h"

#include "util/jsonw.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "version.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METHOD_TEXT                                                                       \
    "raw samples, no smoothing (minos-analysis dendrogram.py "                            \
    "calculate_power_distribution): x = value / reference; samples with x >= lo (the "    \
    "first edge) form the population; edges = numpy.arange(lo, hi, step) computed as "   \
    "numpy does (edge_i = lo + i * ((lo + step) - lo)); entry i = fraction of the "       \
    "population with edge_i <= x < edge_(i+1), rounded to 4 decimals (Python round); "  \
    "samples at or above the last edge stay in the population but fall in no entry, so " \
    "a vector may sum to less than 1"

static double ns_to_ms(int64_t d) { return (double)d / 1e6; }

/* Python's round(x, 6) (the seed's bin_edges): correctly rounded decimal,
 * then the nearest double, as vec_round4. */
static double round6(double x)
{
    char buf[400];
    snprintf(buf, sizeof(buf), "%.6f", x);
    return strtod(buf, NULL);
}

static void kstrf(struct jsonw *w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void kstrf(struct jsonw *w, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = try_vasprintf(fmt, ap);
    va_end(ap);
    jw_kstr(w, key, s ? s : "");
    free(s);
}

static const char *ms_text(double v, char *b)
{
    if (isnan(v))
        return strcpy(b, "unknown");
    snprintf(b, 32, "%.3f", v);
    return b;
}

/* The seed's sampling sentence; for benchrun's own sampler the same facts. */
static void seed_sampling(struct jsonw *w, const struct vec_result *r)
{
    char rq[32], md[32], mn[32];
    if (isnan(r->ival.requested_ms))
        strcpy(rq, "unknown");
    else
        snprintf(rq, sizeof(rq), "%g", r->ival.requested_ms);
    ms_text(r->win_median_ms, md);
    ms_text(r->win_mean_ms, mn);
    const char *backend = json_string_value(json_object_get(r->ngpus ? r->gpus[0].meta : NULL,
                                                            "backend"));
    if (r->seed_telemetry)
        kstrf(w, "sampling", "rocprofwrap_lt wrapper.py + amd-smi-query sampled each listed GPU "
              "while the application (see run_info) ran under rocprofv3 --kernel-trace (no "
              "counters). Vectors pool the samples of all sampled GPUs. Requested interval %s "
              "ms; achieved median %s ms (mean %s ms), limited by amd-smi query time. inst_power "
              "= energy-counter delta / time delta between samples; socket_power = amd-smi "
              "current_socket_power; gfx_frequency = current gfx clock; hotspot_temp = junction "
              "temperature. Sampler preamble: %s", rq, md, mn, r->meta_line ? r->meta_line : "");
    else
        kstrf(w, "sampling", "benchrun sample (backend %s) sampled each listed GPU while the "
              "application (see run_info) ran under the kernel tracer (no counters). Vectors "
              "pool the samples of all sampled GPUs. Requested interval %s ms; achieved median "
              "%s ms (mean %s ms) over the first file's samples in the window. inst_power = "
              "energy delta / time delta of the energy source; socket_power = current socket "
              "power; gfx_frequency = gfx clock; hotspot_temp = junction temperature. Sampler "
              "metadata: %s", backend ? backend : "unknown", rq, md, mn,
              r->meta_line ? r->meta_line : "");
}

static void seed_window(struct jsonw *w, const struct vec_result *r)
{
    const struct vec_window *win = &r->win;
    uint64_t before = 0, after = 0;
    for (size_t i = 0; i < r->ngpus; i++)
        before += r->gpus[i].before, after += r->gpus[i].after;
    if (!win->trimmed)
        kstrf(w, "window", "all samples kept: %s", win->note ? win->note : "not trimmed");
    else
        kstrf(w, "window", "kernel window only: first kernel start %lld ns to last kernel end "
              "%lld ns (%.3f s) over %u kernel-trace file(s); %llu GPU-samples before "
              "(app/rocprofv3 startup) and %llu after (rocprofv3 output writing) dropped%s",
              (long long)win->start, (long long)win->end,
              (double)(win->end - win->start) / 1e9, win->ntrace_files,
              (unsigned long long)before, (unsigned long long)after,
              r->window_per_node ? "; each node trimmed with its own window (CLOCK_BOOTTIME is "
                                   "per node)" : "");
}

/* The seed's keys and value types, in its order (bins and skipped follow). */
static void write_seed_keys(struct jsonw *w, const struct vec_result *r)
{
    jw_kstr(w, "label", r->label);
    if (r->rocm_version)
        kstrf(w, "gpu", "%s (%s), ROCm %s", r->gpu_name ? r->gpu_name : "?", r->arch ? r->arch : "?",
              r->rocm_version);
    else
        kstrf(w, "gpu", "%s (%s)", r->gpu_name ? r->gpu_name : "?", r->arch ? r->arch : "?");
    jw_key(w, "gpus_sampled");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->ngpus; i++) {
        char *id = r->gpus[i].node ? xasprintf("%s_%d", r->gpus[i].node, r->gpus[i].gpu)
                                   : xasprintf("%d", r->gpus[i].gpu);
        jw_str(w, id);
        free(id);
    }
    jw_arr_end(w);
    jw_kstr(w, "run", r->prof_dir);
    jw_key(w, "run_info");
    r->run_info_lines ? jw_json(w, r->run_info_lines) : jw_null(w);
    jw_key(w, "telemetry_files");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->ngpus; i++)
        jw_str(w, r->gpus[i].file);
    jw_arr_end(w);
    seed_sampling(w, r);
    seed_window(w, r);
    const char *ref = r->clock_ref_line ? r->clock_ref_line : "none (no clock_ref.txt)";
    if (r->seed_telemetry)
        kstrf(w, "clock_alignment", "sampler timestamps (amd-smi energy timestamp) and rocprofv3 "
              "kernel timestamps share the same time base (CLOCK_BOOTTIME/MONOTONIC); "
              "reference: %s", ref);
    else
        kstrf(w, "clock_alignment", "sampler timestamps and kernel-trace timestamps are both "
              "CLOCK_BOOTTIME ns, so no offset is applied; reference: %s", ref);
    kstrf(w, "vector_creation", "Same algorithm as calculate_power_distribution() in "
          "minos-analysis/dendrogram_plot/dendrogram.py: raw samples, no smoothing; value = sample "
          "/ reference; keep samples >= the first bin edge; histogram over np.arange(lo, hi, step) "
          "(hi exclusive); each entry = fraction of kept samples in [edge_i, edge_i+1), rounded to "
          "4 decimals. Samples at or above the last edge are kept but fall in no bin, so a vector "
          "can sum to < 1. inst_power and socket_power use dendrogram.py's range and bin_size "
          "(0.1, TDP = %g W), so inst_power is directly comparable with app_vectors.json. "
          "gfx_frequency and hotspot_temp use the ranges from build_workload_vectors.py.",
          r->tdp_W);
    jw_kstr(w, "cross_check", r->cross_check);
    jw_key(w, "samples");
    jw_obj_begin(w);
    jw_kint(w, "total_in_files", (int64_t)r->rows);
    jw_kint(w, "used", (int64_t)r->used);
    jw_obj_end(w);
}

static const char *job_id(const struct vec_result *r, char **owned)
{
    const char *j = r->run_info ? json_string_value(json_object_get(r->run_info, "job_id"))
                                : NULL;
    const char *b = strrchr(r->prof_dir, '/');
    b = b ? b + 1 : r->prof_dir;
    if (!j && strncmp(b, "prof-", 5) == 0)
        j = *owned = xstrdup(b + 5);
    return j;
}

static void write_gpu_entry(struct jsonw *w, const struct vec_gpu *g)
{
    jw_obj_begin(w);
    jw_kstr(w, "key_suffix", g->suffix);
    jw_kstr(w, "node", g->node);
    jw_kint(w, "gpu", g->gpu);
    jw_kstr(w, "file", g->file);
    jw_kint(w, "samples", (int64_t)g->rows);
    jw_kint(w, "samples_used", (int64_t)g->used);
    jw_kint(w, "dropped_before", (int64_t)g->before);
    jw_kint(w, "dropped_after", (int64_t)g->after);
    jw_key(w, "first_sample_ns");
    g->rows ? jw_int(w, g->first_ts) : jw_null(w);
    jw_key(w, "last_sample_ns");
    g->rows ? jw_int(w, g->last_ts) : jw_null(w);
    jw_knum(w, "mean_interval_ms", g->rows > 1 ? ns_to_ms(g->last_ts - g->first_ts) /
                                                     (double)(g->rows - 1) : NAN);
    jw_kbool(w, "last_line_truncated", g->truncated);
    jw_key(w, "metadata");
    jw_json(w, g->meta);
    jw_obj_end(w);
}

static void write_header(struct jsonw *w, const struct vec_result *r)
{
    jw_key(w, "gpu_detail");
    jw_obj_begin(w);
    jw_kstr(w, "arch", r->arch);
    jw_kstr(w, "name", r->gpu_name);
    jw_kstr(w, "arch_source", r->arch_source);
    jw_obj_end(w);
    jw_key(w, "gpus_sampled_detail");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->ngpus; i++)
        write_gpu_entry(w, &r->gpus[i]);
    jw_arr_end(w);
    char *owned = NULL;
    jw_key(w, "run_detail");
    jw_obj_begin(w);
    jw_kstr(w, "dir", r->prof_dir);
    jw_kstr(w, "job_id", job_id(r, &owned));
    jw_kstr(w, "run_info_file", r->run_info_file);
    jw_obj_end(w);
    free(owned);
    jw_key(w, "run_info_fields");
    r->run_info ? jw_json(w, r->run_info) : jw_null(w);
}

static void write_sampling(struct jsonw *w, const struct vec_result *r)
{
    const struct vec_interval *iv = &r->ival;
    json_t *m = r->ngpus ? r->gpus[0].meta : NULL;
    const char *backend = json_string_value(json_object_get(m, "backend"));
    jw_key(w, "sampling_detail");
    jw_obj_begin(w);
    jw_kstr(w, "description", "one telemetry CSV per GPU written by the sampler "
                              "(docs/design.md §10); timestamps CLOCK_BOOTTIME ns; "
                              "inst_power = energy delta / time delta");
    jw_kstr(w, "backend", backend);
    jw_knum(w, "requested_interval_ms", iv->requested_ms);
    jw_kstr(w, "requested_interval_from", iv->requested_key ? "telemetry metadata" : NULL);
    jw_key(w, "achieved_interval_ms");
    jw_obj_begin(w);
    jw_kstr(w, "over", "gaps between consecutive samples of each file, all GPUs");
    jw_kint(w, "gaps", (int64_t)iv->gaps);
    jw_knum(w, "median", iv->median_ms);
    jw_knum(w, "p99", iv->p99_ms);
    jw_knum(w, "max", iv->max_ms);
    jw_knum(w, "mean", iv->mean_ms);
    jw_knum(w, "resolution", 0.001);
    jw_obj_end(w);
    jw_key(w, "sampler_reports");
    r->sampler_reports ? jw_json(w, r->sampler_reports) : jw_null(w);
    jw_obj_end(w);
}

static void jw_kint_or_null(struct jsonw *w, const char *key, bool ok, int64_t v)
{
    jw_key(w, key);
    ok ? jw_int(w, v) : jw_null(w);
}

/* One node's window and the alignment of its samples to it (its own clock). */
static void write_node_window(struct jsonw *w, const struct vec_result *r,
                              const struct vec_node *nd)
{
    bool tr = r->window_per_node && nd->have_trace, s = nd->rows > 0;
    jw_obj_begin(w);
    jw_kstr(w, "node", nd->name);
    jw_kbool(w, "trimmed", tr && r->win.trimmed);
    jw_kint(w, "trace_files", nd->ntrace_files);
    jw_kint(w, "dispatches", (int64_t)nd->dispatches);
    jw_kint_or_null(w, "start_ns", tr, nd->start);
    jw_kint_or_null(w, "end_ns", tr, nd->end);
    jw_kint_or_null(w, "first_sample_ns", s, nd->first_ts);
    jw_kint_or_null(w, "last_sample_ns", s, nd->last_ts);
    jw_knum(w, "first_kernel_after_first_sample_ms",
            tr && s ? ns_to_ms(nd->start - nd->first_ts) : NAN);
    jw_knum(w, "last_sample_after_last_kernel_ms",
            tr && s ? ns_to_ms(nd->last_ts - nd->end) : NAN);
    jw_key(w, "samples_cover_window");
    tr && s ? jw_bool(w, nd->first_ts <= nd->start && nd->last_ts >= nd->end) : jw_null(w);
    jw_kint(w, "samples", (int64_t)nd->rows);
    jw_kint(w, "samples_used", (int64_t)nd->used);
    jw_kint(w, "samples_dropped_before", (int64_t)nd->before);
    jw_kint(w, "samples_dropped_after", (int64_t)nd->after);
    jw_obj_end(w);
}

static void write_window(struct jsonw *w, const struct vec_result *r)
{
    const struct vec_window *win = &r->win;
    uint64_t before = 0, after = 0;
    for (size_t i = 0; i < r->ngpus; i++)
        before += r->gpus[i].before, after += r->gpus[i].after;
    jw_key(w, "window_detail");
    jw_obj_begin(w);
    jw_kbool(w, "trimmed", win->trimmed);
    jw_kstr(w, "rule", r->window_per_node
            ? "per node (CLOCK_BOOTTIME is per node): samples of node N with first kernel "
              "start <= timestamp_ns <= last kernel end over the kernel trace files under "
              "N/ (ktrace_<tag>/N/); start_ns/end_ns below span all nodes and are not a "
              "common time"
            : "samples with first kernel start <= timestamp_ns <= last kernel end, "
              "over all kernel trace files of the run");
    jw_key(w, "start_ns");
    win->have_trace ? jw_int(w, win->start) : jw_null(w);
    jw_key(w, "end_ns");
    win->have_trace ? jw_int(w, win->end) : jw_null(w);
    jw_knum(w, "duration_s", win->have_trace ? (double)(win->end - win->start) / 1e9 : NAN);
    jw_kint(w, "dispatches", (int64_t)win->dispatches);
    jw_key(w, "trace_files");
    jw_arr_begin(w);
    for (uint32_t i = 0; i < win->ntrace_files; i++)
        jw_str(w, win->trace_files[i]);
    jw_arr_end(w);
    jw_kint(w, "samples_dropped_before", (int64_t)before);
    jw_kint(w, "samples_dropped_after", (int64_t)after);
    jw_kstr(w, "note", win->note);
    jw_kbool(w, "per_node", r->window_per_node);
    jw_key(w, "nodes");
    jw_arr_begin(w);
    for (size_t n = 0; n < r->nnodes; n++)
        write_node_window(w, r, &r->nodes[n]);
    jw_arr_end(w);
    jw_obj_end(w);
}

static void write_alignment(struct jsonw *w, const struct vec_result *r)
{
    const struct vec_window *win = &r->win;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < r->ngpus; i++)
        if (r->gpus[i].rows) {
            first = r->gpus[i].first_ts < first ? r->gpus[i].first_ts : first;
            last = r->gpus[i].last_ts > last ? r->gpus[i].last_ts : last;
        }
    json_t *m = r->ngpus ? r->gpus[0].meta : NULL;
    jw_key(w, "clock_alignment_detail");
    jw_obj_begin(w);
    jw_kstr(w, "clock", "CLOCK_BOOTTIME ns: the sampler's timestamps and rocprofv3 kernel "
                        "timestamps (HSA system clock) share it, so no offset is applied");
    jw_kstr(w, "telemetry_clock", json_string_value(json_object_get(m, "clock")));
    jw_key(w, "clock_ref");
    r->clock_ref ? jw_json(w, r->clock_ref) : jw_null(w);
    jw_key(w, "clock_ref_nodes");
    r->clock_ref_nodes ? jw_json(w, r->clock_ref_nodes) : jw_null(w);
    jw_kint(w, "first_sample_ns", first);
    jw_kint(w, "last_sample_ns", last);
    jw_key(w, "first_kernel_start_ns");
    win->have_trace ? jw_int(w, win->start) : jw_null(w);
    jw_key(w, "last_kernel_end_ns");
    win->have_trace ? jw_int(w, win->end) : jw_null(w);
    jw_knum(w, "first_kernel_after_first_sample_ms",
            win->have_trace ? ns_to_ms(win->start - first) : NAN);
    jw_knum(w, "last_sample_after_last_kernel_ms",
            win->have_trace ? ns_to_ms(last - win->end) : NAN);
    jw_key(w, "samples_cover_window");
    win->have_trace ? jw_bool(w, first <= win->start && last >= win->end) : jw_null(w);
    jw_obj_end(w);
}

static void write_creation(struct jsonw *w, const struct vec_opts *o, const struct vec_result *r)
{
    jw_key(w, "vector_creation_detail");
    jw_obj_begin(w);
    jw_kstr(w, "method", METHOD_TEXT);
    jw_knum(w, "tdp_W", r->tdp_W);
    jw_kstr(w, "tdp_source", r->tdp_source);
    jw_kstr(w, "pooling", r->ngpus > 1 ? "samples of all GPUs pooled into one population"
                                       : "one GPU");
    jw_kstr(w, "per_node_pooling", r->nnodes ? "with per_gpu: <vector>_<node> pools the "
                                               "samples of that node's GPUs" : NULL);
    jw_kbool(w, "per_gpu", o->per_gpu);
    jw_kstr(w, "tool", "benchrun " BR_VERSION_STRING);
    jw_obj_end(w);
}

/* The bins entry of one written key. */
static void write_bin(struct jsonw *w, const char *key, int s, const struct vec_result *r,
                      const struct vec_hist *h, bool pooled)
{
    const struct vec_spec *sp = &vec_specs[s];
    jw_key(w, key);
    jw_obj_begin(w);
    jw_kstr(w, "column", telem_cols[sp->col].name);
    jw_key(w, "bin_edges");   /* the seed's: the edges rounded (numpy's 0.7999999999999999 -> 0.8) */
    jw_arr_begin(w);
    for (size_t i = 0; i < r->nedges[s]; i++)
        jw_num(w, round6(r->edges[s][i]));
    jw_arr_end(w);
    char *unit = sp->by_tdp ? xasprintf("%s (%g W)", sp->unit, r->tdp_W) : xstrdup(sp->unit);
    jw_kstr(w, "unit", unit);
    free(unit);
    jw_kint(w, "samples_in_population", (int64_t)h->population);
    jw_kint(w, "samples_above_last_edge", (int64_t)h->above);
    jw_knum(w, "reference", sp->by_tdp ? r->tdp_W : 1.0);
    jw_kstr(w, "reference_is", sp->by_tdp ? "TDP (W)" : "1");
    if (pooled) {
        jw_knum(w, "lo", sp->lo);
        jw_knum(w, "hi", sp->hi);
        jw_knum(w, "step", sp->step);
        jw_key(w, "edges");
        jw_arr_begin_inline(w);
        for (size_t i = 0; i < r->nedges[s]; i++)
            jw_num(w, r->edges[s][i]);
        jw_arr_end(w);
    } else {
        jw_kstr(w, "edges_as", sp->name);
    }
    jw_kint(w, "entries", (int64_t)r->nedges[s] - 1);
    jw_obj_end(w);
}

/* Calls fn for every key to write: pooled vectors, then per GPU. */
typedef void (*key_fn)(struct jsonw *w, const char *key, int s, const struct vec_result *r,
                       const struct vec_hist *h, uint64_t used, bool pooled);

static void for_each_key(struct jsonw *w, const struct vec_opts *o, const struct vec_result *r,
                         key_fn fn)
{
    for (int s = 0; s < VEC_NSPECS; s++) {   /* the seed's order: each vector, then per GPU */
        fn(w, vec_specs[s].name, s, r, &r->pooled[s], r->used, true);
        for (size_t n = 0; o->per_gpu && n < r->nnodes; n++) {
            char *key = xasprintf("%s_%s", vec_specs[s].name, r->nodes[n].name);
            fn(w, key, s, r, &r->nodes[n].h[s], r->nodes[n].used, false);
            free(key);
        }
        for (size_t g = 0; o->per_gpu && g < r->ngpus; g++) {
            char *key = xasprintf("%s_%s", vec_specs[s].name, r->gpus[g].suffix);
            fn(w, key, s, r, &r->gpus[g].h[s], r->gpus[g].used, false);
            free(key);
        }
    }
}

static void key_bins(struct jsonw *w, const char *key, int s, const struct vec_result *r,
                     const struct vec_hist *h, uint64_t used, bool pooled)
{
    char *why = vec_skip_reason(&vec_specs[s], h, used);
    if (!why)
        write_bin(w, key, s, r, h, pooled);
    free(why);
}

static void key_skipped(struct jsonw *w, const char *key, int s, const struct vec_result *r,
                        const struct vec_hist *h, uint64_t used, bool pooled)
{
    char *why = vec_skip_reason(&vec_specs[s], h, used);
    if (why) {
        jw_obj_begin(w);
        jw_kstr(w, "name", key);
        jw_kstr(w, "reason", why);
        jw_obj_end(w);
    }
    free(why);
}

static void key_vector(struct jsonw *w, const char *key, int s, const struct vec_result *r,
                       const struct vec_hist *h, uint64_t used, bool pooled)
{
    char *why = vec_skip_reason(&vec_specs[s], h, used);
    if (!why) {
        jw_key(w, key);
        jw_arr_begin_inline(w);
        for (size_t i = 0; i + 1 < r->nedges[s]; i++)
            jw_num(w, vec_fraction(h, i));
        jw_arr_end(w);
    }
    free(why);
}

static void write_description(struct jsonw *w, const struct vec_opts *o,
                              const struct vec_result *r)
{
    jw_key(w, "description");
    jw_obj_begin(w);
    write_seed_keys(w, r);
    jw_key(w, "bins");
    jw_obj_begin(w);
    for_each_key(w, o, r, key_bins);
    jw_obj_end(w);
    jw_key(w, "skipped");
    jw_obj_begin(w);
    for (int s = 0; s < VEC_NSPECS; s++) {
        char *why = vec_skip_reason(&vec_specs[s], &r->pooled[s], r->used);
        if (why)
            jw_kstr(w, vec_specs[s].name, why);
        free(why);
    }
    jw_obj_end(w);
    write_header(w, r);
    write_sampling(w, r);
    write_window(w, r);
    write_alignment(w, r);
    write_creation(w, o, r);
    jw_key(w, "cross_check_detail");
    r->cross_check_detail ? jw_json(w, r->cross_check_detail) : jw_null(w);
    jw_key(w, "skipped_vectors");
    jw_arr_begin(w);
    for_each_key(w, o, r, key_skipped);
    jw_arr_end(w);
    jw_kint(w, "samples_total", (int64_t)r->rows);
    jw_kint(w, "samples_used", (int64_t)r->used);
    jw_key(w, "warnings");
    jw_json(w, r->warnings);
    jw_obj_end(w);
}

int vec_write_json(const struct vec_opts *o, const struct vec_result *r, const char *out)
{
    struct strbuf sb;
    sb_init(&sb);
    struct jsonw w;
    jw_init(&w, &sb);
    jw_obj_begin(&w);
    write_description(&w, o, r);
    for_each_key(&w, o, r, key_vector);
    jw_obj_end(&w);
    int rc = fs_write_atomic(out, sb.buf, sb.len);
    sb_release(&sb);
    return rc;
}

json_t *vec_json_read(const char *prof_dir, struct strv *warn)
{
    char *path = fs_path_join(prof_dir, "sampling_vectors.json");
    json_t *root = NULL;
    if (fs_exists(path)) {
        json_error_t je;
        root = fs_read_json(path, 0, &je);
        char *why = !root ? xasprintf("%s:%d: invalid JSON (%s)", path, je.line, je.text)
                  : !json_is_object(root) ? xasprintf("%s: not a JSON object", path) : NULL;
        if (why) {
            strv_pushf(warn, "%s: its telemetry vectors are left out of report.html", why);
            br_warn("%s: its telemetry vectors are left out of report.html", why);
            free(why);
            json_decref(root);
            root = NULL;
        }
    }
    free(path);
    return root;
}
