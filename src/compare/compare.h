/* compare.h - comparing workloads by their telemetry vectors (the Minos
 * method) and two analyses against each other: the model behind
 * `benchrun compare`.
 *
 * The method is minos-analysis' dendrogram.py: one binned distribution per
 * workload (inst_power by default, docs/design.md §9), pairwise distances as
 * scipy.spatial.distance.pdist(X, 'cosine'), hierarchical clustering as
 * scipy.cluster.hierarchy.linkage(y, method='ward') on that condensed
 * matrix, and a dendrogram coloured at 0.7 x the largest merge height
 * (scipy's default color_threshold). Every step repeats scipy's own
 * arithmetic and tie-breaking (scipy 1.10, scipy/cluster/_hierarchy.pyx and
 * scipy/spatial/src/distance_impl.h), so the merge order and heights equal
 * scipy's; tests/cli/compare_ref.py checks it against scipy itself.
 *
 * Linkage matrix Z (scipy's semantics): n - 1 rows, row i merges clusters
 * Z[i][0] < Z[i][1] at height Z[i][2] into cluster n + i of Z[i][3]
 * observations; ids < n are the inputs (in input order).
 */
#ifndef BR_COMPARE_COMPARE_H
#define BR_COMPARE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/strv.h"

/* ---- workloads and where their vectors came from -------------------------- */

struct cmp_workload {
    char *label;
    char *path;          /* the input as given (a file, a folder) */
    char *origin;        /* how the vector was obtained, for people */
    double *v;           /* the vector of the compared kind */
    char *analysis;      /* --analysis folder, or NULL */
    json_t *whole_run;   /* its summary.json whole_run (+ GPU_busy_pct), or NULL */
};

struct cmp_set {
    char *kind;          /* vector kind, e.g. "inst_power" */
    double tdp_W;        /* > 0: TDP for vectors computed from a power run */
    const char *arch;    /* arch profile for them (NULL: from the run) */
    size_t dim;          /* entries per vector (0 until the first workload) */
    double *edges;       /* dim + 1 bin edges when the inputs give them, else NULL */
    char *unit;          /* bin unit when given, else NULL */
    size_t n;
    struct cmp_workload *w;
};

void cmp_set_init(struct cmp_set *s, const char *kind);
void cmp_set_release(struct cmp_set *s);

/* Parses a JSON text holding vectors: a sampling_vectors.json (an object
 * with a "description" object: one workload, labelled description.label),
 * or an app_vectors.json in the Minos layout ({label: [values], ...}: one
 * workload per member). Only the arrays of numbers under kind are taken;
 * other members are ignored, whatever they hold. Workloads are appended to s
 * with their labels (label_override replaces the label of a one-workload
 * file; NULL keeps it). name names the source in messages. 0, or -1 after
 * printing the error (not JSON, no such vector (the kinds present are
 * listed), a value that is not a finite number, another length than the
 * workloads before). */
int cmp_parse_vectors(const char *text, size_t len, const char *name, const char *label_override,
                      struct cmp_set *s);

/* One command-line input: "[LABEL=]PATH", PATH a power run folder (its
 * sampling_vectors.json is read; without one the vectors are computed as
 * `benchrun vectors PATH [--tdp s->tdp_W] [--arch s->arch]` would, in memory,
 * and origin says so) or a vectors
 * JSON file (see cmp_parse_vectors). The LABEL= form applies when the whole
 * argument is not an existing path. 0, or -1 (printed). */
int cmp_add_input(struct cmp_set *s, const char *arg);

/* --analysis LABEL=DIR: attaches a pmc analysis folder (DIR, or DIR/analysis)
 * to the workload labelled LABEL; its summary.json whole_run is shown beside
 * the clustering. 0, or -1 (printed). */
int cmp_attach_analysis(struct cmp_set *s, const char *arg);

/* Index of the workload whose label is key, or else whose path is key (as
 * given, else the same absolute path); -1. */
long cmp_find(const struct cmp_set *s, const char *key);

/* Labels must be unique (app_vectors.json is keyed by label). 0 or -1. */
int cmp_check_labels(const struct cmp_set *s);

/* The workloads of `benchrun compare`: each of inputs (cmp_add_input), then
 * nearest when it names none of them (one more input; NULL: none), labels
 * checked, at least two, then the --analysis folders attached. *query: the
 * index of nearest, else -1. 0, or -1 (printed). */
int cmp_set_load(struct cmp_set *s, const struct strv *inputs, const char *nearest,
                 const struct strv *analyses, long *query);

/* ---- distances ------------------------------------------------------------ */

enum cmp_metric { CMP_COSINE, CMP_CORRELATION, CMP_EUCLIDEAN, CMP_CITYBLOCK };

/* Name <-> metric ("cosine", ...); -1 for an unknown name. */
int cmp_metric_parse(const char *name);
const char *cmp_metric_name(enum cmp_metric m);

/* The condensed distance matrix of s (scipy's pdist order: (0,1), (0,2) ...
 * (0,n-1), (1,2) ...): n (n - 1) / 2 values, caller frees. NULL after
 * printing the error when a distance is undefined: under cosine a vector of
 * zeros, under correlation a constant vector (scipy gives nan there and its
 * linkage refuses non-finite distances). */
double *cmp_pdist(const struct cmp_set *s, enum cmp_metric m);

/* Position of (i, j), i != j, in a condensed matrix of n observations. */
size_t cmp_condensed_index(size_t n, size_t i, size_t j);

/* ---- linkage ---------------------------------------------------------------- */

enum cmp_method { CMP_SINGLE, CMP_COMPLETE, CMP_AVERAGE, CMP_WEIGHTED, CMP_WARD };

int cmp_method_parse(const char *name);
const char *cmp_method_name(enum cmp_method m);

/* scipy.cluster.hierarchy.linkage(y, method) of a condensed matrix y of n >= 2
 * observations: the minimum-spanning-tree algorithm for single, the
 * nearest-neighbour chain for the others, Z sorted by height (stable) and
 * relabelled. Z has (n - 1) rows of 4. 0, or -1 after printing the error
 * (a merge height that is not finite: Ward's update of distances that are
 * far from Euclidean can take the square root of a negative number). */
int cmp_linkage(const double *y, size_t n, enum cmp_method m, double (*Z)[4]);

/* ---- dendrogram ------------------------------------------------------------ */

/* scipy.cluster.hierarchy.dendrogram(Z) without truncation or sorting:
 * leaves left to right (Z[i][0] drawn left of Z[i][1]) and link colours at
 * color_threshold t (scipy's rule: a link at height >= t, or every link when
 * t <= 0, is above the threshold: colour 0 (matplotlib "C0"); the others get
 * 1..9 ("C1".."C9"), a new colour for each group of links below t, cycling). */
struct cmp_dendro {
    double threshold;
    size_t *leaves;      /* n: input indices, left to right */
    int *link_color;     /* n - 1: colour of Z row i */
    int *leaf_color;     /* n: colour of the link above input i */
    size_t *pos;         /* n: position of input i among the leaves */
    size_t nclusters;    /* flat clusters at the threshold: the largest subtrees */
    size_t *cluster;     /* n: cluster of input i, 1.. numbered left to right */
    int *cluster_color;  /* nclusters + 1: colour of cluster c (0: a lone leaf) */
};

/* Flat clusters: the subtrees whose top link lies below the threshold (each
 * has one colour), and the leaves hanging from links at or above it, alone.
 * threshold < 0: the default 0.7 x max height. 0 or -1 (printed). */
int cmp_dendrogram(double (*Z)[4], size_t n, double threshold, struct cmp_dendro *d);
void cmp_dendro_release(struct cmp_dendro *d);

/* Colour index -> matplotlib's default colour cycle ("C0" .. "C9") and its
 * hex value (tab10). */
const char *cmp_color_name(int c);
const char *cmp_color_hex(int c);

/* ---- nearest ---------------------------------------------------------------- */

/* The k nearest workloads of workload q by the condensed distances y
 * (nearest first; equal distances in input order): writes at most k indices
 * to idx and returns how many (n - 1 at most). */
size_t cmp_nearest(const double *y, size_t n, size_t q, size_t k, size_t *idx);

#endif
