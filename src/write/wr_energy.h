/* wr_energy.h - the energy analysis written out (`benchrun energy`): the per-class
 * table (energy_per_kernel.csv), energy_summary.json and the "Energy"
 * Markdown section of `benchrun energy`, the same numbers as the energy
 * columns, keys and section of `benchrun analyze --power`, and the power
 * run as a Perfetto / chrome://tracing trace (wr_trace.c).
 *
 * Owns: the derived figures of a class (share, power and clock while
 * running, J per launch, resolved share, fitted power and energy, GFLOP/J
 * and bytes/J from the counter run's rates), their column names, the row
 * order (kernels by descending energy) and the method sentences.
 */
#ifndef BR_WRITE_WR_ENERGY_H
#define BR_WRITE_WR_ENERGY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "energy/energy.h"
#include "metrics/metrics.h"
#include "read/prun.h"

struct wr_energy {
    const struct en_result *en;
    const struct prun *pr;
    const char *prof_dir;
    char *prof_dir_owned;           /* freed by wr_energy_release when set */
    char *const *full;              /* [nkernels] full names by kernel id */
    char **shortname;               /* [nkernels] display names (owned) */
    uint32_t *order;                /* kernel ids with time, by descending energy */
    uint32_t norder;
    /* Efficiency columns (analyze with a counter run; NULL otherwise). */
    const struct mx_result *mx;
    int32_t *mx_row;                /* [nkernels] metric row of a kernel id, -1 none */
};

/* The figures of one class (column of en). */
struct wr_ecol {
    double launches, time_ms, energy_J, share_pct, power_W, clock_MHz, J_per_launch;
    double resolved_pct, fit_W, fit_se_W, fit_J;
    char fit[48];                   /* "ok", "group 2", "other", "none" */
    double time_J;                  /* the split by time alone */
    const char *method;             /* how energy_J was split: "fit-weighted", "time" ("" TOTAL) */
};

/* Efficiency: GFLOP/J per precision and in all, memory bytes per J. */
enum { WR_NEFF = 6 };
extern const char *const wr_eff_cols[WR_NEFF];

/* Names, order and the counter-run row map (mx may be NULL). */
void wr_energy_init(struct wr_energy *w, const struct en_result *en, const struct prun *pr,
                    const char *prof_dir, const struct intern *names, const struct mx_result *mx);
void wr_energy_release(struct wr_energy *w);

void wr_energy_col(const struct wr_energy *w, uint32_t col, struct wr_ecol *out);
/* GFLOP/J and B/J of kernel id k (NaN without a counter row). */
void wr_energy_eff(const struct wr_energy *w, uint32_t k, double power_W, double *eff);
/* The whole run as one row (kernels, copies and idle together). */
void wr_energy_total(const struct wr_energy *w, struct wr_ecol *out);

/* The per-kernel column names appended to per_kernel_metrics.csv, in order,
 * and the values of kernel id k (k < 0: the TOTAL row over the kernels). */
const char *wr_energy_col_name(size_t i);
extern const size_t wr_energy_ncols;
/* Those columns defined, for docs/metrics.md (`benchrun doc metrics`). */
struct strbuf;
void wr_energy_doc(struct strbuf *out);
void wr_energy_cells(FILE *fp, const struct wr_energy *w, long k);

/* energy_per_kernel.csv, energy_summary.json, energy.md in out_dir. */
int wr_energy_files(const struct wr_energy *w, const char *out_dir, int top);
json_t *wr_energy_json(const struct wr_energy *w);
/* "## Energy": method, whole run, the top kernels by energy (top rows). */
void wr_energy_md(FILE *fp, const struct wr_energy *w, int top);
/* One sentence on the attribution and one on the fit (static buffers). */
void wr_energy_method(const struct wr_energy *w, char *buf, size_t len);

/* wr_trace.c: the power run as Chrome trace-event JSON (ui.perfetto.dev,
 * chrome://tracing): a process per GPU with kernel and copy slices on lanes
 * that never overlap, counter tracks of power, gfx clock and temperature.
 * 0, or -1 after printing the error. */
int wr_power_trace(const struct wr_energy *w, const char *path);

#endif
