/* wr_copies.c - analyze's memory copy report: summary.json "copies" and
 * report.md's "benchrun: memory copies and sets" section. Copy time and
 * bytes per direction from the power run's copy traces when there are any
 * (unprofiled), else from the first counter pass that has them; the copies
 * of every pass are listed too (they should agree: the same program). */
#include "write/wr_copies.h"

#include "util/textesc.h"
#include "util/xalloc.h"

#include <math.h>
#include <string.h>

/* Something to report: copies, or rows left out. */
static bool has_copies(const struct rp_copies *cp)
{
    return cp->n || cp->unknown || cp->truncated;
}

/* The copies reported and where they come from (static text or a pass
 * name); NULL when no input has a copy (no trace, or empty ones: a rocpd
 * database always has the view, so CSV and rocpd runs agree). */
static const struct rp_copies *chosen(const struct wr_info *in, const char **source, bool *power)
{
    *power = false;
    if (in->power && has_copies(&in->power->copies)) {
        *power = true;
        *source = "power run";
        return &in->power->copies;
    }
    for (uint32_t p = 0; p < in->npass_copies; p++)
        if (has_copies(&in->pass_copies[p])) {
            *source = in->run->passes[p].name;
            return &in->pass_copies[p];
        }
    return NULL;
}

/* Pass p's copies summed into all; false when it has none. */
static bool pass_sum(const struct wr_info *in, uint32_t p, struct rp_copy_sum *all)
{
    struct rp_copy_sum by[CT_NDIR];
    if (!has_copies(&in->pass_copies[p]))
        return false;
    rp_copies_sum(&in->pass_copies[p], by, all);
    return true;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* GB/s (1e9 B/s) over the copies' own time; NaN when some bytes are unknown. */
static double rate_gbs(const struct rp_copy_sum *s)
{
    return s->unknown_bytes || s->time_ns <= 0 ? NAN : (double)s->bytes / s->time_ns;
}

static json_t *sum_object(const struct rp_copy_sum *s)
{
    return json_pack("{s:I, s:I, s:I, s:o, s:o}", "copies", (json_int_t)s->copies,
                     "bytes", (json_int_t)s->bytes, "copies_without_bytes",
                     (json_int_t)s->unknown_bytes, "time_s", json_real(s->time_ns / 1e9),
                     "GB_per_s", num_or_null(rate_gbs(s)));
}

json_t *wr_copies_json(const struct wr_info *in)
{
    const char *source = NULL;
    bool power;
    const struct rp_copies *cp = chosen(in, &source, &power);
    if (!cp)
        return json_null();
    struct rp_copy_sum by[CT_NDIR], all;
    rp_copies_sum(cp, by, &all);
    json_t *dirs = json_object(), *files = json_array(), *passes = json_array();
    for (int d = 0; d < CT_NDIR; d++)
        json_object_set_new(dirs, ct_dir_label((enum ct_dir)d), sum_object(&by[d]));
    for (uint32_t f = 0; f < cp->nfiles; f++)
        json_array_append_new(files, json_pack("{s:o, s:s}", "file", esc_json_string(cp->files[f]),
                                               "layout", cp->layouts[f]));
    for (uint32_t p = 0; p < in->npass_copies; p++) {
        struct rp_copy_sum pall;
        if (!pass_sum(in, p, &pall))
            continue;
        json_t *o = sum_object(&pall);
        json_object_set_new(o, "pass", esc_json_string(in->run->passes[p].name));
        json_array_append_new(passes, o);
    }
    json_t *o = json_pack("{s:o, s:o}", "source", esc_json_string(source), "files", files);
    json_t *tot = sum_object(&all);
    json_object_update(o, tot);
    json_decref(tot);
    json_object_set_new(o, "by_direction", dirs);
    json_object_set_new(o, "per_pass", passes);
    json_object_set_new(o, "unknown_directions", json_integer((json_int_t)cp->unknown));
    json_object_set_new(o, "truncated_lines", json_integer((json_int_t)cp->truncated));
    return o;
}

static void md_row(FILE *fp, const char *label, const struct rp_copy_sum *s)
{
    fprintf(fp, "| %s | %llu | %llu", label, (unsigned long long)s->copies,
            (unsigned long long)s->bytes);
    if (s->unknown_bytes)
        fprintf(fp, " (+%llu copies without a size)", (unsigned long long)s->unknown_bytes);
    double r = rate_gbs(s);
    fprintf(fp, " | %.3f | %.6f | ", (double)s->bytes / (1024.0 * 1024 * 1024), s->time_ns / 1e6);
    if (isfinite(r))
        fprintf(fp, "%.1f |\n", r);
    else
        fputs("- |\n", fp);
}

void wr_copies_md(FILE *fp, const struct wr_info *in)
{
    const char *source = NULL;
    bool power;
    const struct rp_copies *cp = chosen(in, &source, &power);
    fputs("## benchrun: memory copies and sets\n\n", fp);
    if (!cp) {
        fputs("No memory copy or set in the power run or the passes (no `*memory_copy_trace.csv` "
              "or rocpd memory_copies rows).\n\n", fp);
        return;
    }
    struct rp_copy_sum by[CT_NDIR], all;
    rp_copies_sum(cp, by, &all);
    fprintf(fp, "From the %s", power ? "" : "counter pass ");
    wr_md_text(fp, source);
    fprintf(fp, " (%u file(s)). Copies and sets are not kernels: no counter pass measures them; "
                "they count in GPU busy %%.\n\n", cp->nfiles);
    fputs("| direction | copies | bytes | GiB | time (ms) | GB/s |\n|---|---|---|---|---|---|\n", fp);
    for (int d = 0; d < CT_NDIR; d++)
        if (by[d].copies)
            md_row(fp, ct_dir_label((enum ct_dir)d), &by[d]);
    md_row(fp, "all", &all);
    fputs("\nH2D host to device, D2H device to host, D2D within one GPU, P2P between GPUs, set "
          "a memory set; time is the sum of the copies' own durations; GB/s = bytes / that time "
          "(`-` when a copy has no size: rocprofv3's CSV has none, its rocpd database and "
          "benchrun's NVIDIA trace do).\n", fp);
    if (cp->unknown) {
        fprintf(fp, "\n%llu copies of a direction benchrun does not know were left out (the first: ",
                (unsigned long long)cp->unknown);
        wr_md_text(fp, cp->unknown_at);
        fputs(").\n", fp);
    }
    bool any = false;
    for (uint32_t p = 0; p < in->npass_copies; p++) {
        struct rp_copy_sum pall;
        if (!pass_sum(in, p, &pall))
            continue;
        fputs(any ? ", " : "\nPer counter pass: ", fp);
        wr_md_text(fp, in->run->passes[p].name);
        fprintf(fp, " %llu (%llu B, %.3f ms)", (unsigned long long)pall.copies,
                (unsigned long long)pall.bytes, pall.time_ns / 1e6);
        any = true;
    }
    fputs(any ? ".\n\n" : "\n", fp);
}
