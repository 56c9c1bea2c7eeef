/* wr_json.c - summary.json: pmc_dir, whole_run (every visible metric of the
 * TOTAL row), checks (per pass, kernel time spread, warnings), power_run,
 * clock, then arch (profile, constants and their source), inputs, options and
 * the top kernels. Keys, value types and layout as the seed's (its Python
 * json.dump(indent=2): integers stay integers, floats are repr(); reference:
 * tests/fixtures/seed-reference), benchrun's keys after the seed's in each
 * object. Built with jansson, printed with the vectors' Python-compatible
 * writer (jsonw). NaN and "does not apply" are null. */
#include "write/analysis.h"
#include "write/wr_copies.h"
#include "write/wr_energy.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/textesc.h"
#include "util/xalloc.h"
#include "util/jsonw.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* Text from the inputs: invalid UTF-8 escaped (util/textesc.h), so that a
 * member is never dropped and every JSON reader accepts the file. */
static json_t *jstr(const char *s)
{
    return esc_json_string(s);
}

static json_t *cell(const struct mx_result *res, uint32_t r, int m)
{
    double v = mx_value(res, r, m);
    switch (mx_cell_kind(res, r, m)) {
    case MX_CELL_EMPTY: return json_null();
    case MX_CELL_INT: return json_integer((json_int_t)v);
    default: return jnum(v);
    }
}

/* Every visible metric of row r as an object. */
static json_t *row_object(const struct mx_result *res, uint32_t r)
{
    json_t *o = json_object();
    for (int m = 0; m < res->ap->nmetrics; m++) {
        const struct arch_metric *am = &res->ap->metrics[m];
        if (am->hidden)
            continue;
        json_object_set_new(o, am->name, am->label != AL_NONE ? jstr(mx_label(res, r, m))
                                                               : cell(res, r, m));
    }
    return o;
}

/* One pass: the seed's keys, then benchrun's. */
static json_t *pass_object(const struct mx_result *res, const struct wr_info *in, uint32_t p)
{
    const struct mx_pass *mp = &res->pass[p];
    const struct rp_pass *ps = p < in->run->npasses ? &in->run->passes[p] : NULL;
    bool on = mp->present && ps;
    json_t *missing = json_array();
    for (uint32_t i = 0; i < mp->nmissing; i++)
        json_array_append_new(missing, jstr(mp->missing[i]));
    json_t *o = json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
        "pass", jstr(mp->name), "label", jstr(mp->label),
        "counter_files", (json_int_t)(on ? ps->nsets : 0), "gpus", (json_int_t)(on ? ps->ngpus : 0),
        "launches_with_counters", (json_int_t)(on ? ps->launches_total : 0),
        "launches_in_trace", (json_int_t)(on ? ps->trace_launches : 0),
        "launches_missing_counters", (json_int_t)(on ? ps->uncounted_launches : 0),
        "missing_time_pct", jnum(mp->uncounted_pct),
        "kernel_time_s", jnum(on ? ps->dur_ns_total / 1e9 : NAN),
        "eff_clock_MHz", jnum(mp->eff_clock_MHz), "gui_excess_pct", jnum(mp->gui_excess_pct),
        "lammps_loop_time_s", jnum(mp->perf_s), "counters_missing", missing);
    json_t *more = json_pack("{s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o}",
        "name", jstr(mp->name), "present", mp->present, "instrumented", mp->instrumented,
        "instrumented_slowdown", jnum(mp->instrumented ? mp->slowdown : NAN),
        "time_ms", jnum(mp->present ? mp->time_ms : NAN),
        "comm_kernel_time_ms", jnum(mp->present ? mp->comm_ms : NAN),
        "launches", jnum(mp->present ? mp->launches : NAN),
        "uncounted_time_pct", jnum(mp->uncounted_pct),
        "lost_launches", (json_int_t)mp->lost_launches,
        "truncated_lines", (json_int_t)mp->truncated, "perf", jstr(mp->perf));
    json_object_update(o, more);
    json_decref(more);
    /* the clock the range check judged (metrics/clockcheck.c) */
    json_object_set_new(o, "clock_judged_MHz", jnum(mp->judged_clock_MHz));
    json_object_set_new(o, "clock_judged_on", jstr(mp->judged_on));
    json_object_set_new(o, "clock_judged_kernels", json_integer(mp->judged_kernels));
    return o;
}

/* Kernels missing from some passes (metrics/passcover.c), the 50 largest. */
static json_t *missing_array(const struct mx_result *res, const struct wr_info *in)
{
    json_t *a = json_array();
    int ms = mx_metric_index(res->ap, "time_share_pct");
    for (uint32_t i = 0; i < res->nmissk && i < 50; i++) {
        const struct mx_missk *m = &res->missk[i];
        json_t *passes = json_array();
        for (uint32_t p = 0; p < m->npass; p++)
            json_array_append_new(passes, jstr(in->run->passes[m->pass[p]].name));
        json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o}", "kernel", jstr(res->shortname[m->row]),
            "kernel_full_name", jstr(res->full[m->row]), "missing_from", passes,
            "time_share_pct", jnum(mx_value(res, m->row, ms))));
    }
    return a;
}

static json_t *checks_object(const struct mx_result *res, const struct wr_info *in)
{
    json_t *ps = json_array();
    for (uint32_t p = 0; p < res->npasses; p++)
        json_array_append_new(ps, pass_object(res, in, p));
    json_t *w = json_array();
    for (size_t i = 0; i < res->nwarn; i++)
        json_array_append_new(w, jstr(res->warn[i]));
    json_t *o = json_pack("{s:o, s:o, s:o}", "passes", ps, "kernel_time_spread_pct",
                          jnum(res->time_spread_pct), "warnings", w);
    json_object_set_new(o, "kernels_missing_from_passes", missing_array(res, in));
    json_object_set_new(o, "kernels_missing_from_passes_count", json_integer(res->nmissk));
    return o;
}

/* A percentage rounded to one decimal, as the seed lists GPU busy per GPU. */
static double round1(double v)
{
    return round(v * 10) / 10;
}

void wr_power_spans(const struct rp_power *pw, double *span_s, double *busy_s)
{
    double span = 0, busy = 0;
    for (uint32_t g = 0; g < pw->ngpus; g++) {
        span = fmax(span, (double)(pw->gpu[g].span_last - pw->gpu[g].span_first));
        busy += pw->gpu[g].busy_ns;
    }
    *span_s = pw->ngpus ? span / 1e9 : NAN;
    *busy_s = pw->ngpus ? busy / pw->ngpus / 1e9 : NAN;
}

/* The seed's power_run: span and busy time per GPU (means), GPU busy %. */
static json_t *power_object(const struct wr_info *in)
{
    const struct rp_power *pw = in->power;
    if (!pw)
        return json_null();
    json_t *tf = json_array(), *per = json_array();
    for (uint32_t i = 0; i < pw->nfiles; i++)
        json_array_append_new(tf, jstr(pw->files[i]));
    for (uint32_t g = 0; g < pw->ngpus; g++)
        json_array_append_new(per, jnum(round1(rp_gpu_busy_pct(&pw->gpu[g]))));
    double span, busy;
    wr_power_spans(pw, &span, &busy);
    double window = pw->dispatches ? (double)(pw->last_end - pw->first_start) / 1e9 : NAN;
    json_t *o = json_pack("{s:o, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
        "file", jstr(in->power_path), "trace_files", (json_int_t)pw->nfiles,
        "gpus", (json_int_t)pw->ngpus, "dispatches", (json_int_t)pw->dispatches,
        "span_s", jnum(span), "busy_s", jnum(busy), "sum_kernel_s", jnum(pw->dur_ns_total / 1e9),
        "GPU_busy_pct", jnum(rp_power_busy_pct(pw)), "GPU_busy_pct_per_gpu", per,
        "first_start_ns", pw->dispatches ? json_integer(pw->first_start) : json_null(),
        "trace_file_paths", tf, "window_s", jnum(window));
    /* GPU busy counts copies (rpbusy.c); kernels alone beside it */
    double copy_busy = 0;
    for (uint32_t g = 0; g < pw->ngpus; g++)
        copy_busy += pw->gpu[g].copy_busy_ns;
    json_object_set_new(o, "GPU_busy_pct_kernels", jnum(rp_power_kernel_busy_pct(pw)));
    json_object_set_new(o, "copies", json_integer((json_int_t)pw->copies.n));
    json_object_set_new(o, "copy_busy_s", jnum(pw->ngpus ? copy_busy / pw->ngpus / 1e9 : NAN));
    return o;
}

static json_t *sampled_object(const struct wr_info *in)
{
    if (!in->sampled)
        return json_null();
    json_t *files = json_array();
    for (char *const *t = in->telemetry; t && *t; t++)
        json_array_append_new(files, jstr(*t));
    const struct mx_clock_stats *c = &in->clock;
    return json_pack("{s:o, s:I, s:I, s:I, s:o, s:o, s:o, s:o}", "files", files,
                     "samples_total", (json_int_t)c->samples_total,
                     "samples_kernel_window", (json_int_t)c->samples_window,
                     "samples_kernel_running", (json_int_t)c->samples_running,
                     "clock_MHz", jnum(c->mean), "clock_MHz_median", jnum(c->median),
                     "clock_MHz_p5", jnum(c->p5), "clock_MHz_p95", jnum(c->p95));
}

static json_t *clock_object(const struct mx_result *res, const struct wr_info *in)
{
    return json_pack("{s:s, s:o, s:o}", "source", wr_clock_source(res),
                     "clock_MHz", jnum(res->clock_mhz), "sampled", sampled_object(in));
}

static json_t *arch_object(const struct mx_result *res, const struct wr_info *in)
{
    const struct arch_profile *ap = res->ap;
    json_t *c = json_object();
    for (int i = 0; i < ap->nconsts; i++)
        json_object_set_new(c, ap->consts[i].name, json_pack("{s:o, s:o}", "value",
                            jnum(ap->consts[i].value), "source", jstr(ap->consts[i].source)));
    return json_pack("{s:o, s:o, s:o, s:o}", "arch", jstr(ap->arch), "profile", jstr(ap->path),
                     "chosen_by", jstr(in->arch_source ? in->arch_source : ""), "constants", c);
}

static json_t *inputs_object(const struct wr_info *in)
{
    json_t *passes = json_array(), *tel = json_array();
    for (uint32_t p = 0; p < in->run->npasses; p++) {
        const struct rp_pass *ps = &in->run->passes[p];
        json_t *files = json_array();
        for (uint32_t f = 0; f < ps->nfiles; f++)
            json_array_append_new(files, jstr(ps->files[f]));
        json_t *consts = json_array();   /* constant fields left out of the counters */
        for (uint32_t c = 0; c < ps->nconstants; c++)
            json_array_append_new(consts, jstr(ps->constants[c]));
        json_array_append_new(passes, json_pack("{s:o, s:o, s:I, s:o, s:o}", "name", jstr(ps->name),
            "layout", jstr(ps->layout), "processes", (json_int_t)ps->nsets, "files", files,
            "constant_fields", consts));
    }
    for (char *const *t = in->telemetry; t && *t; t++)
        json_array_append_new(tel, jstr(*t));
    const struct rp_agent *ag = &in->run->agent;
    return json_pack("{s:o, s:o, s:o, s:o}", "counters_file", jstr(in->counters_file),
                     "passes", passes, "agent_info", jstr(ag->present ? ag->file : NULL),
                     "telemetry", tel);
}

static json_t *top_array(const struct mx_result *res)
{
    json_t *a = json_array();
    int ms = mx_metric_index(res->ap, "time_share_pct"), mt = mx_metric_index(res->ap, "top_share_pct");
    for (uint32_t i = 0; i < res->ntop; i++) {
        uint32_t r = res->order[i];
        json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o}", "kernel", jstr(res->shortname[r]),
                              "kernel_full_name", jstr(res->full[r]), "time_share_pct",
                              jnum(mx_value(res, r, ms)), "top_share_pct", jnum(mx_value(res, r, mt))));
    }
    return a;
}

int wr_summary_json(const struct mx_result *res, const struct wr_info *in, const char *path)
{
    json_t *root = json_object();
    json_object_set_new(root, "pmc_dir", jstr(in->pmc_dir));
    json_object_set_new(root, "whole_run", row_object(res, res->nk));
    json_object_set_new(root, "checks", checks_object(res, in));
    json_object_set_new(root, "power_run", power_object(in));
    json_object_set_new(root, "clock", clock_object(res, in));
    json_object_set_new(root, "copies", wr_copies_json(in));
    json_object_set_new(root, "arch", arch_object(res, in));
    json_object_set_new(root, "inputs", inputs_object(in));
    json_object_set_new(root, "options", json_pack("{s:o, s:i, s:o, s:i, s:o}",
        "time_pct", jnum(in->time_pct), "top_n", in->top_n, "latency_pct", jnum(in->latency_pct),
        "top", in->top_rows, "perf_regex", jstr(in->perf_regex)));
    json_object_set_new(root, "time_share_source", json_string(res->share_from_power
                        ? "power-run kernel trace" : "counter passes"));
    json_object_set_new(root, "top_kernels", top_array(res));
    if (in->energy)
        json_object_set_new(root, "energy", wr_energy_json(in->energy));
    struct strbuf sb;
    struct jsonw w;
    sb_init(&sb);
    jw_init(&w, &sb);
    jw_json(&w, root);
    json_decref(root);
    int rc = fs_write_atomic(path, sb.buf, sb.len);
    sb_release(&sb);
    return rc;
}
