/* wr_compare.h - the outputs of `benchrun compare`, written atomically into
 * one folder:
 *
 *   app_vectors.json  {label: [values]} of the compared kind, input order
 *                     (the input of minos-analysis' dendrogram.py)
 *   distances.csv     the square distance matrix, labels as header and first column
 *   linkage.csv       scipy's Z: cluster_a,cluster_b,height,size, then the
 *                     new cluster id (n + row), its dendrogram colour and the
 *                     labels of merged inputs
 *   dendrogram.svg    the dendrogram (standalone SVG)
 *   compare.html      self-contained page: dendrogram, distance heat map, the
 *                     vectors as bars, nearest neighbours (no script, no network)
 *   compare.md        short summary: clusters, nearest neighbours, inputs
 *   compare.json      the same facts for programs
 *
 * and of `benchrun compare --baseline A B`: baseline.md, baseline.html and
 * baseline.csv (one row per kernel and metric).
 *
 * Numbers in the CSV files read back as the same double (so scipy's values
 * can be compared exactly): the shortest such text, except in distances.csv
 * (n^2 values: "%.17g", one conversion each); Markdown and HTML show 4
 * significant digits.
 */
#ifndef BR_WRITE_WR_COMPARE_H
#define BR_WRITE_WR_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "compare/baseline.h"
#include "compare/compare.h"

/* Everything a compare run produced. */
struct wr_compare {
    const struct cmp_set *s;
    enum cmp_metric metric;
    enum cmp_method method;
    const double *y;                 /* condensed distances */
    double (*Z)[4];                  /* linkage, n - 1 rows */
    const struct cmp_dendro *d;
    long query;                      /* --nearest workload, -1 none */
    const size_t *near;              /* its nearest, nnear of them */
    size_t nnear;
    const char *out_dir;
};

/* Distance of workloads i and j (0 on the diagonal). */
double wr_cmp_dist(const struct wr_compare *c, size_t i, size_t j);

/* Neighbours listed per workload in the tables. */
enum { WR_CMP_NEIGHBOURS = 3 };

/* Writes the seven files. 0, or -1 after printing the error. */
int wr_compare(const struct wr_compare *c);

/* The pieces (wr_compare_html.c). */
int wr_compare_svg(const struct wr_compare *c, const char *path);
int wr_compare_html(const struct wr_compare *c, const char *path);
void wr_compare_dendrogram(FILE *fp, const struct wr_compare *c, int standalone);

/* Text in a Markdown table cell: '|' escaped, line ends as blanks. */
void wr_md_cell(FILE *fp, const char *s);

/* Shortest decimal text that reads back as v ("" for NaN): buf >= 32 bytes. */
const char *wr_exact_num(double v, char *buf);

/* Whole-run values shown beside an attached analysis (names of
 * summary.json's whole_run), NULL-terminated. */
extern const char *const wr_cmp_whole_keys[];

/* baseline.md, baseline.html, baseline.csv into out_dir. 0 or -1 (printed). */
int wr_baseline(const struct cmp_baseline *bl, const char *out_dir);

#endif
