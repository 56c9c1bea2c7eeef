/* wr_json.c - summary.json (jansson): pmc_dir, whole_run (every visible
 * metric of the TOTAL row), checks (per pass, kernel time spread, warnings),
 * power_run, clock, then arch (profile, constants and their source), inputs,
 * options and the top kernels. NaN is written as null (json_real(NAN) would
 * be NULL). Key names as the seed's (seed-output-formats.md). */
#include "write/analysis.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
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
                                                               : jnum(mx_value(res, r, m)));
    }
    return o;
}

static json_t *checks_object(const struct mx_result *res)
{
    json_t *ps = json_array();
    for (uint32_t p = 0; p < res->npasses; p++) {
        const struct mx_pass *mp = &res->pass[p];
        json_array_append_new(ps, json_pack("{s:s, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o}",
            "name", mp->name, "present", mp->present, "instrumented", mp->instrumented,
            "instrumented_slowdown", jnum(mp->instrumented ? mp->slowdown : NAN),
            "time_ms", jnum(mp->present ? mp->time_ms : NAN),
            "comm_kernel_time_ms", jnum(mp->present ? mp->comm_ms : NAN),
            "launches", jnum(mp->present ? mp->launches : NAN),
            "eff_clock_MHz", jnum(mp->eff_clock_MHz), "uncounted_time_pct", jnum(mp->uncounted_pct),
            "lost_launches", (json_int_t)mp->lost_launches,
            "truncated_lines", (json_int_t)mp->truncated, "perf", jstr(mp->perf)));
    }
    json_t *w = json_array();
    for (size_t i = 0; i < res->nwarn; i++)
        json_array_append_new(w, json_string(res->warn[i]));
    return json_pack("{s:o, s:o, s:o}", "passes", ps, "kernel_time_spread_pct",
                     jnum(res->time_spread_pct), "warnings", w);
}

static json_t *power_object(const struct wr_info *in)
{
    const struct rp_power *pw = in->power;
    if (!pw)
        return json_null();
    json_t *tf = json_array(), *per = json_array();
    for (uint32_t i = 0; i < pw->nfiles; i++)
        json_array_append_new(tf, json_string(pw->files[i]));
    double busy = 0;
    for (uint32_t g = 0; g < pw->ngpus; g++) {
        json_array_append_new(per, jnum(rp_gpu_busy_pct(&pw->gpu[g])));
        busy += pw->gpu[g].busy_ns;
    }
    double span = pw->dispatches ? (double)(pw->last_end - pw->first_start) : NAN;
    return json_pack("{s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
        "file", jstr(in->power_path), "trace_files", tf, "gpus", (json_int_t)pw->ngpus,
        "dispatches", (json_int_t)pw->dispatches, "span_s", jnum(span / 1e9),
        "busy_s", jnum(pw->ngpus ? busy / pw->ngpus / 1e9 : NAN),
        "sum_kernel_s", jnum(pw->dur_ns_total / 1e9), "GPU_busy_pct", jnum(rp_power_busy_pct(pw)),
        "GPU_busy_pct_per_gpu", per,
        "first_start_ns", pw->dispatches ? json_integer(pw->first_start) : json_null());
}

static json_t *clock_object(const struct mx_result *res, const struct wr_info *in)
{
    return json_pack("{s:s, s:o, s:o, s:I}", "source", wr_clock_source(res),
                     "clock_MHz", jnum(res->clock_mhz), "sampled", jnum(in->sampled_mhz),
                     "samples_in_kernels", (json_int_t)in->clock_samples);
}

static json_t *arch_object(const struct mx_result *res, const struct wr_info *in)
{
    const struct arch_profile *ap = res->ap;
    json_t *c = json_object();
    for (int i = 0; i < ap->nconsts; i++)
        json_object_set_new(c, ap->consts[i].name, json_pack("{s:o, s:s}", "value",
                            jnum(ap->consts[i].value), "source", ap->consts[i].source));
    return json_pack("{s:s, s:s, s:s, s:o}", "arch", ap->arch, "profile", ap->path,
                     "chosen_by", in->arch_source ? in->arch_source : "", "constants", c);
}

static json_t *inputs_object(const struct wr_info *in)
{
    json_t *passes = json_array(), *tel = json_array();
    for (uint32_t p = 0; p < in->run->npasses; p++) {
        const struct rp_pass *ps = &in->run->passes[p];
        json_t *files = json_array();
        for (uint32_t f = 0; f < ps->nfiles; f++)
            json_array_append_new(files, json_string(ps->files[f]));
        json_array_append_new(passes, json_pack("{s:s, s:o, s:I, s:o}", "name", ps->name,
            "layout", jstr(ps->layout), "processes", (json_int_t)ps->nsets, "files", files));
    }
    for (char *const *t = in->telemetry; t && *t; t++)
        json_array_append_new(tel, json_string(*t));
    const struct rp_agent *ag = &in->run->agent;
    return json_pack("{s:o, s:o, s:o, s:o}", "counters_file", jstr(in->counters_file),
                     "passes", passes, "agent_info", jstr(ag->present ? ag->file : NULL),
                     "telemetry", tel);
}

static json_t *top_array(const struct mx_result *res)
{
    json_t *a = json_array();
    int ms = mx_metric_index(res->ap, "time_share_pct");
    for (uint32_t i = 0; i < res->ntop; i++) {
        uint32_t r = res->order[i];
        json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "kernel", res->shortname[r],
                              "kernel_full_name", res->full[r], "time_share_pct",
                              jnum(mx_value(res, r, ms))));
    }
    return a;
}

int wr_summary_json(const struct mx_result *res, const struct wr_info *in, const char *path)
{
    json_t *root = json_object();
    json_object_set_new(root, "pmc_dir", json_string(in->pmc_dir));
    json_object_set_new(root, "whole_run", row_object(res, res->nk));
    json_object_set_new(root, "checks", checks_object(res));
    json_object_set_new(root, "power_run", power_object(in));
    json_object_set_new(root, "clock", clock_object(res, in));
    json_object_set_new(root, "arch", arch_object(res, in));
    json_object_set_new(root, "inputs", inputs_object(in));
    json_object_set_new(root, "options", json_pack("{s:o, s:i, s:o, s:i, s:o}",
        "time_pct", jnum(in->time_pct), "top_n", in->top_n, "latency_pct", jnum(in->latency_pct),
        "top", in->top_rows, "perf_regex", jstr(in->perf_regex)));
    json_object_set_new(root, "time_share_source", json_string(res->share_from_power
                        ? "power-run kernel trace" : "counter passes"));
    json_object_set_new(root, "top_kernels", top_array(res));
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    json_decref(root);
    if (!text)
        return br_error("%s: cannot encode JSON", path);
    size_t n = strlen(text);
    text = xrealloc(text, n + 2);
    text[n] = '\n';
    int rc = fs_write_atomic(path, text, n + 1);
    free(text);
    return rc;
}
