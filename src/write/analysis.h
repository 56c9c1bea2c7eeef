/* analysis.h - the outputs of `benchrun analyze` (seed-compatible names,
 * docs/design.md §11): per_kernel_metrics.csv,
 * top_kernels.csv, summary.json and report.md, each written atomically
 * (fs_atomic_*) into the output folder.
 *
 * Owns: the column/key names and order (the profile's visible metrics, in
 * profile order, after `kernel,kernel_full_name`), number formatting (NaN →
 * empty CSV cell / JSON null; 12 significant digits in the CSV and JSON), the
 * top-kernel column set and its definitions, and the report layout.
 */
#ifndef BR_WRITE_ANALYSIS_H
#define BR_WRITE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "metrics/metrics.h"

struct wr_energy;                   /* write/wr_energy.h */

/* Everything the writers show besides the metric rows. */
struct wr_info {
    const char *pmc_dir;            /* as given (absolute preferred) */
    const char *out_dir;
    const char *arch_source;        /* how the profile was chosen */
    const char *counters_file;      /* passes file read, or NULL */
    const struct rp_run *run;
    const struct rp_power *power;   /* NULL without a power run */
    const char *power_path;         /* kernel trace file or folder */
    char *const *telemetry;         /* telemetry files read (NULL-terminated or NULL) */
    const struct telem_run *telem;  /* those files in the model (NULL: not read) */
    json_t *vectors;                /* the power run's sampling_vectors.json, or NULL */
    bool sampled;                   /* the telemetry was read for the clock */
    struct mx_clock_stats clock;    /* its samples (mean NaN when none in a kernel) */
    int top_rows;                   /* --top: rows of report.md */
    double time_pct, latency_pct;
    int top_n;
    const char *perf_regex;         /* --perf-regex (or the seed's LAMMPS default) */
    /* Memory copy traces of each pass folder ([npass_copies], run->passes
     * order; nfiles 0: none), reported when the power run has none. */
    const struct rp_copies *pass_copies;
    uint32_t npass_copies;
    const struct wr_energy *energy; /* the power run's energy analysis, or NULL */
};

/* Writes the four files. 0, or -1 after printing the error. */
int wr_analysis(const struct mx_result *res, const struct wr_info *in);

/* energy: its columns after all the others (NULL: none). */
int wr_per_kernel_csv(const struct mx_result *res, const struct wr_energy *energy,
                      const char *path);
int wr_top_csv(const struct mx_result *res, const char *path);
int wr_summary_json(const struct mx_result *res, const struct wr_info *in, const char *path);
int wr_report_md(const struct mx_result *res, const struct wr_info *in, const char *path);
/* Launch sampling (wr_sampling.c): whether any pass was sampled; its CSV
 * (launch_sampling.csv) and its report.md section (nothing when none was). */
bool wr_any_sampled(const struct rp_run *run);
int wr_sampling_csv(const struct mx_result *res, const struct rp_run *run, const char *path);
void wr_sampling_md(FILE *fp, const struct mx_result *res, const struct rp_run *run);
void wr_sampling_head(FILE *fp, const struct rp_run *run);   /* report.md's header line */

/* Shared by the writers (wr_csv.c). */
/* Numeric cell of metric m in row r as the CSVs write it: Python repr() of
 * the float, an integer, "nan", or "" (mx_cell_kind); buf of 32 bytes. */
const char *wr_cell_text(const struct mx_result *res, uint32_t r, int m, char *buf);
/* Text from the inputs (names, paths) in report.md, escaped (wr_md.c). */
void wr_md_text(FILE *fp, const char *s);
/* CSV field, quoted when it holds ',', '"', CR or LF ('"' doubled). */
void wr_csv_field(FILE *fp, const char *s);
/* Top-kernel columns: header, metric name (NULL: special), definition, and
 * the seed's number format in report.md (NULL: text). */
struct wr_topcol {
    const char *head, *metric, *def, *fmt;
};
extern const struct wr_topcol wr_topcols[];
extern const size_t wr_ntopcols;
/* The seed's power-run spans over the GPUs (trace file, agent): the longest
 * last end - first start, and the mean busy time, in s (NaN without GPUs). */
void wr_power_spans(const struct rp_power *pw, double *span_s, double *busy_s);
/* A report_whole_run label or unit of the profile with {NAME} and
 * {NAME:%.1f} expanded: a constant, a metric's TOTAL value, launch_pass
 * (1-based) or latency_pct (wr_md.c). Allocated. */
char *wr_report_label(const char *tmpl, const struct mx_result *res, const struct wr_info *in);
/* Clock source as text ("sampled", "override", "counters (GRBM fallback)"). */
const char *wr_clock_source(const struct mx_result *res);

#endif
