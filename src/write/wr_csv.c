/* wr_csv.c - per_kernel_metrics.csv (TOTAL, then every kernel by
 * descending counter-pass time; short and full name, then every visible
 * metric in profile order) and top_kernels.csv (the top kernels then TOTAL,
 * the seed's column names), plus the helpers the other writers share (number
 * format, CSV quoting, top-kernel columns). Cells as the seed's Python csv
 * writer prints them: floats as repr() ("100.0", "85.04892066666667"),
 * integers without a point, "nan" for a missing counter or 0/0, and an empty
 * cell where the metric does not apply (mx_cell_kind). */
#include "write/analysis.h"
#include "write/wr_energy.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/jsonw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct wr_topcol wr_topcols[] = {
    { "kernel", NULL, "display name (the seed's short name; unique)", NULL },
    { "time %", "top_share_pct", "share of GPU kernel time (power-run trace when given, else the passes)", "%.1f" },
    { "cum %", "cum_share_pct", "cumulative time share down to this kernel", "%.1f" },
    { "launches", "launches", "launches (the pass that collects SQ_WAVE_CYCLES)", "%.0f" },
    { "CU util %", "CU_busy_pct", "CUs busy: SQ_BUSY_CU_CYCLES / (cycles x N_CU)", "%.1f" },
    { "VALU busy %", "VALUBusy_pct", "vector ALU issuing: SQ_ACTIVE_INST_VALU / (cycles x N_CU)", "%.1f" },
    { "VALU lanes %", "VALUUtilization_pct", "active lanes per VALU instruction / wave size", "%.1f" },
    { "MFMA util %", "MfmaUtil_pct", "matrix cores busy: SQ_VALU_MFMA_BUSY_CYCLES / (cycles x N_SIMD)", "%.1f" },
    { "FP64 TF/s", "TFLOPs_FP64", "FP64 VALU + MFMA TFLOP/s (issued lanes)", "%.3f" },
    { "FP64 useful TF/s", "TFLOPs_FP64_VALU_useful", "FP64 VALU TFLOP/s x lane utilization", "%.3f" },
    { "FP32 TF/s", "TFLOPs_FP32", "FP32 VALU + MFMA TFLOP/s", "%.3f" },
    { "low-prec MFMA TF/s", "TFLOPs_lowp_MFMA", "BF16 + F16 + F8 + I8 MFMA TFLOP/s (pass 07_lowp_mfma)", "%.2f" },
    { "total TF/s", "TFLOPs_all", "all precisions", "%.2f" },
    { "dominant", "dominant_precision", "precision with the largest share of its peak", NULL },
    { "peak TF/s", "peak_TFLOPs_mix", "peak of this kernel's precision mix: TF_all / sum(rate_i / peak_i)", "%.1f" },
    { "compute %", "compute_peak_pct", "sum over precisions of rate_i / peak_i", "%.1f" },
    { "rd TB/s", "read_BW_TBps", "L2 -> memory read bandwidth (upper bound on HBM)", "%.3f" },
    { "wr TB/s", "write_BW_TBps", "L2 -> memory write bandwidth", "%.3f" },
    { "BW util %", "mem_BW_peak_pct", "read + write bandwidth / peak memory bandwidth", "%.1f" },
    { "FLOP/B", "AI_all", "arithmetic intensity: TF_all / memory TB/s", "%.1f" },
    { "ridge FLOP/B", "ridge_mix", "ridge point of the mix: peak TF/s / peak TB/s", "%.0f" },
    { "max TF/s", "attainable_TFLOPs_mix", "roofline ceiling: min(peak TF/s, FLOP/B x peak TB/s)", "%.1f" },
    { "max TB/s", "attainable_BW_TBps", "bandwidth ceiling: min(peak TB/s, peak TF/s / FLOP/B)", "%.2f" },
    { "bound", "bound_mix", "latency (compute % and BW % both below --latency-pct), else compute or memory", NULL },
    { "kernel_full_name", NULL, "full kernel name (the key)", NULL },
};
const size_t wr_ntopcols = sizeof(wr_topcols) / sizeof(wr_topcols[0]);

void wr_csv_field(FILE *fp, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', fp);
        fputc(*p, fp);
    }
    fputc('"', fp);
}

const char *wr_clock_source(const struct mx_result *res)
{
    enum mx_clock_src s = res->clock_src;
    return s == MX_CLOCK_OVERRIDE ? "override (--clock-mhz)"
         : s == MX_CLOCK_SAMPLED ? "sampled gfx clock while kernels ran (power run)"
         : arch_is_nvidia(res->ap) ? "counters (sm__cycles_elapsed fallback)"
         : "counters (GRBM_GUI_ACTIVE fallback)";
}

const char *wr_cell_text(const struct mx_result *res, uint32_t r, int m, char *buf)
{
    double v = mx_value(res, r, m);
    switch (mx_cell_kind(res, r, m)) {
    case MX_CELL_EMPTY: buf[0] = '\0'; break;
    case MX_CELL_INT: snprintf(buf, 32, "%.0f", v); break;
    default: jw_repr_double(buf, 32, v); break;
    }
    return buf;
}

/* One cell of metric m in row r: label text or number. */
static void cell(FILE *fp, const struct mx_result *res, uint32_t r, int m)
{
    char b[32];
    if (res->ap->metrics[m].label != AL_NONE)
        wr_csv_field(fp, mx_label(res, r, m));
    else
        fputs(wr_cell_text(res, r, m, b), fp);
}

static void metric_row(FILE *fp, const struct mx_result *res, const struct wr_energy *e,
                       uint32_t r)
{
    bool tot = r == res->nk;
    wr_csv_field(fp, tot ? "TOTAL" : res->shortname[r]);
    fputc(',', fp);
    wr_csv_field(fp, tot ? "" : res->full[r]);
    for (int m = 0; m < res->ap->nmetrics; m++) {
        if (res->ap->metrics[m].hidden)
            continue;
        fputc(',', fp);
        cell(fp, res, r, m);
    }
    if (e)
        wr_energy_cells(fp, e, tot ? -1 : (long)res->kid[r]);
    fputc('\n', fp);
}

static int finish(struct fs_atomic *a)
{
    return fs_atomic_commit(a);     /* says why a write failed */
}

int wr_per_kernel_csv(const struct mx_result *res, const struct wr_energy *energy,
                      const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    fputs("kernel,kernel_full_name", a.fp);
    for (int m = 0; m < res->ap->nmetrics; m++)
        if (!res->ap->metrics[m].hidden)
            fprintf(a.fp, ",%s", res->ap->metrics[m].name);
    for (size_t i = 0; energy && i < wr_energy_ncols; i++)
        fprintf(a.fp, ",%s", wr_energy_col_name(i));
    fputc('\n', a.fp);
    metric_row(a.fp, res, energy, res->nk);
    for (uint32_t i = 0; i < res->nk; i++)
        metric_row(a.fp, res, energy, res->by_time[i]);
    return finish(&a);
}

static void top_row(FILE *fp, const struct mx_result *res, uint32_t r)
{
    bool tot = r == res->nk;
    for (size_t c = 0; c < wr_ntopcols; c++) {
        if (c)
            fputc(',', fp);
        const struct wr_topcol *tc = &wr_topcols[c];
        if (!tc->metric)
            wr_csv_field(fp, tot ? (c == 0 ? "TOTAL" : "") : c == 0 ? res->shortname[r] : res->full[r]);
        else if (tot && !strcmp(tc->metric, "cum_share_pct"))
            ;   /* the seed leaves TOTAL's cum % empty */
        else {
            int m = mx_metric_index(res->ap, tc->metric);
            if (m >= 0)
                cell(fp, res, r, m);
        }
    }
    fputc('\n', fp);
}

int wr_top_csv(const struct mx_result *res, const char *path)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) < 0)
        return -1;
    for (size_t c = 0; c < wr_ntopcols; c++)
        fprintf(a.fp, "%s%s", c ? "," : "", wr_topcols[c].head);
    fputc('\n', a.fp);
    for (uint32_t i = 0; i < res->ntop; i++)
        top_row(a.fp, res, res->order[i]);
    top_row(a.fp, res, res->nk);
    return finish(&a);
}

int wr_analysis(const struct mx_result *res, const struct wr_info *in)
{
    if (fs_mkdir_p(in->out_dir) < 0)
        return -1;
    static const char *const names[4] = { "per_kernel_metrics.csv", "top_kernels.csv",
                                          "summary.json", "report.md" };
    int rc = 0;
    for (int i = 0; i < 4 && rc == 0; i++) {
        char *p = fs_path_join(in->out_dir, names[i]);
        rc = i == 0 ? wr_per_kernel_csv(res, in->energy, p) : i == 1 ? wr_top_csv(res, p)
           : i == 2 ? wr_summary_json(res, in, p) : wr_report_md(res, in, p);
        free(p);
    }
    if (rc == 0 && wr_any_sampled(in->run)) {
        char *p = fs_path_join(in->out_dir, "launch_sampling.csv");
        rc = wr_sampling_csv(res, in->run, p);
        free(p);
    }
    return rc;
}
