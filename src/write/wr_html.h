/* wr_html.h - analysis/report.html: one self-contained page (inline CSS and
 * inline SVG, no script, no network) with the whole-run table, the warnings,
 * the top kernels, a roofline plot, the power-run power/clock timeline and
 * the telemetry vectors (a writer of docs/design.md §2).
 *
 * Owns: HTML escaping, the SVG plots (wr_svg.c) and min/max decimation of a
 * sampled line (at most 2 points per pixel bucket, spikes kept).
 */
#ifndef BR_WRITE_WR_HTML_H
#define BR_WRITE_WR_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "write/analysis.h"

/* Writes report.html to path (the power run's vectors when in->vectors is
 * set). 0, or -1 after printing the error. */
int wr_report_html(const struct mx_result *res, const struct wr_info *in, const char *path);

/* The page start shared by benchrun's HTML files: doctype, <head> with the
 * inline CSS and title, <body> and an <h1> of title (escaped). */
void wr_html_begin(FILE *fp, const char *title);

/* s with & < > " ' as entities (NULL writes nothing). */
void wr_html_esc(FILE *fp, const char *s);

/* Min/max decimation: the points (x[i], y[i]) (x ascending, NaN y skipped)
 * are split into nb equal x buckets over [x0, x1]; each bucket keeps its
 * lowest and highest point, in x order. Writes at most 2*nb points to
 * ox/oy (room for 2*nb each) and returns how many. */
size_t wr_decimate(const double *x, const double *y, size_t n, double x0, double x1, size_t nb,
                   double *ox, double *oy);

/* ---- wr_svg.c, wr_timeline.c: the plots (internal to the writer) ---- */
#define WR_NCOLORS 8
/* Colour of the top kernel of rank r (1-based; roofline dots, timeline spans,
 * energy bars): wr_colors[r % WR_NCOLORS]. */
extern const char *const wr_colors[WR_NCOLORS];

/* Pixel columns of the power timeline's lines: the telemetry is decimated to
 * this many as it is read (read/telread.h line_buckets). */
#define WR_TIMELINE_COLUMNS 1000

void wr_svg_roofline(FILE *fp, const struct mx_result *res, const struct wr_info *in);
/* The power-run timeline (wr_timeline.c). 0, or -1 when a telemetry file
 * cannot be read (printed). */
int wr_svg_timeline(FILE *fp, const struct mx_result *res, const struct wr_info *in);
/* Energy per kernel as bars (wr_timeline.c; in->energy set). */
void wr_svg_energy(FILE *fp, const struct mx_result *res, const struct wr_info *in);
/* Bar charts of a sampling_vectors.json (its vectors and description.bins). */
void wr_svg_vectors(FILE *fp, json_t *vectors);
/* One vector as a bar chart in a <figure>: n bars (hover: bin [edges[i],
 * edges[i+1]) when edges is not NULL, else the entry number), y scaled to ymax
 * (<= 0: the vector's own largest value), caption "name (unit)". */
void wr_svg_bars(FILE *fp, const char *name, const char *unit, const double *v, size_t n,
                 const double *edges, double ymax, const char *fill);
/* A number for people: 4 significant digits, "—" when missing. */
const char *wr_html_num(double v, char *buf);

#endif
