/* vectors.h - telemetry vectors of a power run (docs/design.md §9): the model
 * behind `benchrun vectors PROF_DIR` and sampling_vectors.json.
 *
 * A power run folder (prof-<jobid>/) holds one telemetry CSV per GPU,
 * profiling_result_<tag>_<gpu>.csv (multi-node: <tag>_<node>_<gpu>), and the
 * kernel trace under ktrace_<tag>/ (multi-node: ktrace_<tag>/<node>/).
 * vec_compute() streams every telemetry file once (memory does not grow with
 * the number of samples), keeps the samples inside the kernel window [first
 * kernel start, last kernel end] over all trace files (unless no_trim), bins
 * them per GPU, pools all GPUs and, multi-node, each node's GPUs.
 * CLOCK_BOOTTIME is per node: when the traces lie in node folders, each
 * node's samples are trimmed with the window of that node's traces only.
 * vec_write_json() writes the result atomically.
 *
 * Units: timestamps in ns (CLOCK_BOOTTIME, the domain of both the sampler and
 * the rocprofv3 trace); power in W; x of a power vector is a fraction of the
 * TDP; clock in MHz; temperatures in degC.
 */
#ifndef BR_VECTORS_VECTORS_H
#define BR_VECTORS_VECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/strv.h"
#include "vectors/binning.h"

struct vec_opts {
    const char *prof_dir;      /* power run folder */
    const char *label;         /* display name; NULL: the workload or folder name */
    double tdp_W;              /* > 0 overrides the arch profile's tdp_W */
    const char *arch;          /* arch profile name; NULL: from run.json/metadata */
    bool per_gpu;              /* also one vector per GPU */
    bool no_trim;              /* keep samples outside the kernel window */
    const char *dendrogram_dir;/* minos-analysis dendrogram_plot/ for the inst_power
                                  cross-check (--dendrogram-dir, $DENDROGRAM_DIR); NULL: none */
};

/* Counts of one vector (one GPU or pooled). */
struct vec_hist {
    uint64_t count[32];        /* [nedges - 1] entries */
    uint64_t population;       /* samples with x >= lo (first edge) */
    uint64_t above;            /* of those, x >= last edge (in no entry) */
    uint64_t finite;           /* samples used with a non-NaN value */
};

/* One telemetry file (one GPU). */
struct vec_gpu {
    char *path;                /* as found */
    char *file;                /* base name */
    char *node;                /* multi-node name, else NULL */
    int node_ix;               /* index into vec_result.nodes; -1 without a node */
    int gpu;                   /* GPU index from the metadata or file name */
    char *suffix;              /* "gpu0" or "<node>_gpu0": key suffix */
    json_t *meta;              /* metadata line as an object of strings */
    uint64_t rows, used, before, after;
    int64_t first_ts, last_ts; /* first/last sample (INT64_MIN: none) */
    bool truncated;            /* last line was cut short (dropped) */
    struct vec_hist h[VEC_NSPECS];
    /* gaps between consecutive used samples, kept for the first file only:
     * the seed's achieved interval (median, mean) is that file's in-window one */
    int64_t *wgap;
    size_t nwgap, capwgap;
};

/* Achieved sampling interval over consecutive samples of each file. */
struct vec_interval {
    uint64_t gaps;             /* consecutive pairs counted */
    double median_ms, p99_ms, max_ms, mean_ms;   /* 1 µs resolution (max exact) */
    double requested_ms;       /* from the metadata; NAN unknown */
    char *requested_key;       /* metadata key it came from */
};

/* The kernel window and where it came from. */
struct vec_window {
    bool trimmed;              /* samples were limited to [start, end] */
    int64_t start, end;        /* ns; valid when have_trace */
    bool have_trace;
    uint32_t ntrace_files;
    char **trace_files;        /* relative to prof_dir */
    uint64_t dispatches;
    char *note;                /* why not trimmed, when not */
};

/* One node of a multi-node run: its own kernel window (CLOCK_BOOTTIME is
 * per node) and its GPUs pooled. */
struct vec_node {
    char *name;
    bool have_trace;           /* trace files under a <name>/ folder with dispatches */
    int64_t start, end;        /* ns; its kernel window when have_trace */
    uint32_t ntrace_files;
    uint64_t dispatches;
    uint64_t rows, used, before, after;
    int64_t first_ts, last_ts; /* over its GPUs (INT64_MIN: no sample) */
    struct vec_hist h[VEC_NSPECS];
};

struct vec_result {
    char *prof_dir;            /* absolute */
    char *label;
    char *arch, *arch_source;  /* profile name and how it was found */
    char *gpu_name;            /* marketing name when known */
    double tdp_W;
    char *tdp_source;          /* "--tdp" or the profile path */
    json_t *run_info;          /* run.json, or run_info.txt fields (keys trimmed); NULL none */
    char *run_info_file;
    json_t *run_info_lines;    /* run_info.txt as a list of lines (the seed's run_info); NULL none */
    char *rocm_version;        /* from the run's workload.conf ROCM_PATH (rocm-X.Y.Z); NULL */
    char *meta_line;           /* first telemetry file's metadata line, as written */
    bool seed_telemetry;       /* telemetry in the seed sampler's format (no backend=) */
    double win_median_ms, win_mean_ms;  /* first file's gaps inside the window (the seed's) */
    char *cross_check;         /* the seed's cross_check text */
    json_t *cross_check_detail;/* dendrogram.py's vector and the comparison; NULL none */
    json_t *clock_ref;         /* clock_ref.txt fields; NULL none */
    char *clock_ref_line;      /* its first line, as written (the seed quotes it) */
    json_t *clock_ref_nodes;   /* clock_ref_<node>.txt fields by file (multi-node); NULL none */
    json_t *sampler_reports;   /* sampler_<prefix>.json files by name; NULL none */
    struct vec_window win;
    size_t nnodes;
    struct vec_node *nodes;    /* by name; none on a single-node run */
    bool window_per_node;      /* traces in node folders: one window per node */
    struct vec_interval ival;
    size_t ngpus;
    struct vec_gpu *gpus;      /* sorted by node, then gpu */
    struct vec_hist pooled[VEC_NSPECS];
    double edges[VEC_NSPECS][33];
    size_t nedges[VEC_NSPECS];
    uint64_t rows, used;       /* all files */
    json_t *warnings;          /* array of strings (also printed) */
};

/* Computes everything; 0, or -1 after printing the error (no telemetry
 * files, unreadable or malformed CSV, no sample inside the window, unknown
 * TDP). Warnings (truncated files, alignment doubts) go to br_warn. */
int vec_compute(const struct vec_opts *o, struct vec_result *r);
void vec_result_release(struct vec_result *r);

/* Why vector s of h has no entries (NULL when it is fine): every value NaN
 * (sensor not exposed), or no sample at or above the first edge. Caller frees. */
char *vec_skip_reason(const struct vec_spec *s, const struct vec_hist *h, uint64_t used);

/* Entry i of vector s as written: round(count_i / population, 4). */
double vec_fraction(const struct vec_hist *h, size_t i);

/* The window g's samples are trimmed with (its node's, or the run's); false
 * when g's samples are not trimmed. */
bool vec_gpu_window(const struct vec_result *r, const struct vec_gpu *g, int64_t *start,
                    int64_t *end);

/* Writes sampling_vectors.json (or out) atomically. 0 or -1 (printed). */
/* PROF_DIR/sampling_vectors.json read back for the analysis report: the
 * JSON (caller decrefs), or NULL when there is none. One that is not a JSON
 * object (a cut or corrupt file) is not an error: a warning naming the file
 * and line, pushed to warn and printed, says that its vectors are left out. */
json_t *vec_json_read(const char *prof_dir, struct strv *warn);
int vec_write_json(const struct vec_opts *o, const struct vec_result *r, const char *out);

#endif
