/* baseline.h - two pmc analyses side by side (`benchrun compare --baseline A
 * B`), and the analysis folders `benchrun compare --analysis` attaches to
 * workloads.
 *
 * An analysis folder is what `benchrun analyze` writes (PMC_DIR/analysis/;
 * PMC_DIR is accepted too): per_kernel_metrics.csv (columns kernel,
 * kernel_full_name, then one per metric; a TOTAL row) and summary.json
 * (whole_run: the TOTAL row's values by name). Kernels are matched by
 * kernel_full_name (the kernel column when it is empty); metrics by column
 * name. The change of a metric is (B - A) / |A| x 100 %.
 */
#ifndef BR_COMPARE_BASELINE_H
#define BR_COMPARE_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "read/csvtab.h"

struct cmp_analysis {
    char *dir;           /* the analysis folder */
    char *csv;           /* its per_kernel_metrics.csv (NULL: not read) */
    struct csvtab t;
    long kcol, fcol;     /* kernel, kernel_full_name (-1: absent) */
    long total;          /* TOTAL row, -1 none */
    json_t *summary;     /* summary.json, NULL when absent */
};

/* Opens the analysis folder arg (or arg/analysis). need_csv: read
 * per_kernel_metrics.csv (an error when absent); summary.json is read when
 * present (without it and without the CSV: an error). 0, or -1 (printed). */
int cmp_analysis_open(const char *arg, bool need_csv, struct cmp_analysis *a);
void cmp_analysis_release(struct cmp_analysis *a);

/* Parses per_kernel_metrics.csv text into a (name for messages): the kernel
 * column must exist; each kernel key must appear once. 0, or -1 (printed). */
int cmp_analysis_load_csv(struct cmp_analysis *a, const char *text, size_t len,
                          const char *name);

/* Key of row r: kernel_full_name, or kernel when that is empty. */
const char *cmp_analysis_key(const struct cmp_analysis *a, size_t r);

/* The whole-run values as an object (new reference): summary.json's
 * whole_run, with power_run.GPU_busy_pct added when whole_run lacks it;
 * without summary.json the TOTAL row (numbers where the cell is one). */
json_t *cmp_analysis_whole(const struct cmp_analysis *a);

/* A cell as a number: the whole text is a finite decimal number. */
bool cmp_parse_num(const char *s, double *v);

/* (b - a) / |a| x 100; 0 when both are 0; NaN when a is 0 (b is not) or
 * either is NaN. */
double cmp_change_pct(double a, double b);

struct cmp_baseline {
    struct cmp_analysis a, b;
    size_t nmetrics;
    char **metric;            /* columns of both files (A's order), kernel columns excluded */
    long *ca, *cb;            /* their column in A and in B */
    json_t *cols_only_a, *cols_only_b;   /* arrays of column names */
    size_t nboth;
    size_t (*both)[2];        /* rows in A and B of the kernels of both (A's order) */
    size_t nonly_a, nonly_b;
    size_t *only_a, *only_b;  /* rows of the kernels of one file (that file's order) */
    json_t *whole_a, *whole_b;
    size_t nwhole;
    char **whole_key;         /* whole-run keys of both (A's order) */
};

/* Reads A and B and matches them. metrics: comma-separated names to keep
 * (NULL: all); a name in neither file is an error. 0, or -1 (printed). */
int cmp_baseline_build(const char *a, const char *b, const char *metrics,
                       struct cmp_baseline *bl);
void cmp_baseline_release(struct cmp_baseline *bl);

#endif
