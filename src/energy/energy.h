/* energy.h - energy per kernel from a power run (`benchrun energy`): what each kernel,
 * copy and idle stretch of a GPU cost in joules, from the telemetry and the
 * kernel trace that share CLOCK_BOOTTIME.
 *
 * Pure computation: plain arrays in, results out; no file I/O (the power run
 * is read into these arrays by src/read/prun.h). Two methods, both always run
 * and each result says which one it comes from:
 *
 * 1. Attribution. The sensor gives a series of segments, each with a known
 *    energy: between two readings of an energy counter (amdgpu
 *    energy_accumulator, NVML total energy: energy_J of the telemetry), else
 *    between two power samples (power × time, a sample being the mean power
 *    since the previous one). Each segment's energy is split over what ran in
 *    it, in two ways:
 *    - by time (energy_time_J): a stretch where n activities run gives each
 *      1/n of its energy, a stretch where nothing runs is idle. Exact when
 *      the sensor's segments are shorter than the activities; when they are
 *      longer the split follows time, not power (a kernel's resolved share
 *      says how much of its time fell in segments it had to itself);
 *    - by time × fitted power (energy_J, once the fit of method 2 is done):
 *      each class gets the segment's energy in proportion to its overlap
 *      time × its fitted power (each concurrent launch its own, as the fit
 *      adds them; idle: the fitted idle power). The segment's sum stays the
 *      sensor's, so the whole run's energy is the counter's; exact in a
 *      segment one class has to itself, and where several share a slow
 *      sensor's segment the fit tells them apart. A class without a usable
 *      fitted power (none, SE over 20 % of it, or not positive: weight_W
 *      NaN) counts at the segment's mean power, and a segment where nothing
 *      has one is split by time. Without a fit energy_J = energy_time_J.
 * 2. Fit. Each sensor window j (counter interval, driver power sample,
 *    power refresh) gives a mean power y_j; the model is
 *        y_j = P_idle f_idle,j + Σ_c P_c f_c,j
 *    with f_c,j the fraction of the window during which activity class c
 *    (a kernel name, a copy class) ran (concurrent launches add) and f_idle,j
 *    the fraction with nothing running: weighted least squares (weights =
 *    window length) gives each class's mean power while it runs and its
 *    standard error from the residual variance and (XᵀWX)⁻¹, inflated for
 *    lag-1 autocorrelation of the residuals. Classes with too little time
 *    share one "other kernels" column; columns whose variance inflation
 *    factor exceeds EN_VIF_MAX (collinear: the data cannot tell them apart)
 *    are merged with their most collinear partner and reported as a group,
 *    never as separate numbers. The sensor's delay (lag) is estimated by
 *    the least residual over a grid unless given.
 *
 * Units: ns, W, J, MHz. NaN = not available.
 */
#ifndef BR_ENERGY_ENERGY_H
#define BR_ENERGY_ENERGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strv.h"

/* Activity kinds and copy classes: the directions of a copy that occupies
 * a GPU (host to device, device to host, within one device, between two
 * devices), and memory sets. */
enum en_kind { EN_KERNEL = 0, EN_COPY = 1 };
enum en_copy { EN_COPY_H2D, EN_COPY_D2H, EN_COPY_D2D, EN_COPY_P2P, EN_COPY_SET, EN_NCOPY };

/* "H2D", "D2H", "D2D", "P2P", "set". */
const char *en_copy_label(enum en_copy c);

/* One kernel launch or copy on one GPU, [start, end). id: kernel id (0 ..
 * nkernels-1) or enum en_copy. */
struct en_act {
    int64_t start_ns, end_ns;
    uint32_t id;
    uint8_t kind;                   /* enum en_kind */
};

/* A series of n values at ascending times. */
struct en_series {
    size_t n;
    const int64_t *t_ns;
    const double *v;
};

/* Sensor windows for the fit: [a, b) with mean power p (W), in time order,
 * not overlapping. */
struct en_windows {
    size_t n;
    const int64_t *a_ns, *b_ns;
    const double *p_W;
};

enum en_src {
    EN_SRC_NONE = 0,
    EN_SRC_COUNTER,                 /* energy counter readings */
    EN_SRC_POWER,                   /* sampled power × time */
    EN_SRC_DRIVER,                  /* the driver's buffered power samples (NVML) */
};
/* "energy counter", "power x time", "driver power samples", "none". */
const char *en_src_name(enum en_src s);

/* One GPU's inputs. Activities sorted by start. */
struct en_gpu {
    const char *name;               /* e.g. the telemetry file name (messages) */
    int64_t win0_ns, win1_ns;       /* accounting window (the node's kernel window) */
    struct en_series energy;        /* cumulative J at reading times; n < 2: no counter */
    struct en_series power;         /* W; value i = mean over [t(i-1), t(i)) */
    struct en_series clock;         /* MHz; value i holds over [t(i-1), t(i)) */
    struct en_series driver;        /* optional: the driver's power samples, as power
                                       (cross-check only) */
    struct en_windows fit;          /* windows for the fit (n = 0: not fitted) */
    enum en_src fit_src;
    const struct en_act *act;
    size_t nact;
};

#define EN_WEIGHT_WINDOWS 5          /* fit windows per unknown for the split by power */
#define EN_VIF_MAX 100.0            /* SE inflated 10x over an orthogonal design */

struct en_opts {
    uint32_t fit_max_cols;          /* classes fitted on their own (default 24) */
    double fit_min_share_pct;       /* ... each with at least this share of the
                                       activity time (default 0.5) */
    double lag_ms;                  /* sensor delay; NaN: estimated */
};
void en_opts_default(struct en_opts *o);

enum en_fit_status {
    EN_FIT_NONE = 0,                /* not fitted (no fit, or no time in the windows) */
    EN_FIT_OK,                      /* own column */
    EN_FIT_UNCERTAIN,               /* own column, but SE > 20 % of the power or power <= 0 */
    EN_FIT_GROUPED,                 /* not identifiable alone: a group's power */
    EN_FIT_OTHER,                   /* in the pooled "other kernels" column */
};
/* "ok", "uncertain", "grouped", "other", "none". */
const char *en_fit_status_name(enum en_fit_status s);

/* Results of one activity class (column c: kernel id c, or nkernels + copy). */
struct en_col {
    double time_ns;                 /* running time in the window (concurrent launches each) */
    double covered_ns;              /* of it, inside a sensor segment */
    double split_ns;                /* covered time with concurrent stretches divided */
    double energy_J;                /* attributed: by time × fitted power (by time without a fit) */
    double energy_time_J;           /* attributed by overlap time alone */
    double weight_W;                /* the fitted power energy_J weighted it by; NaN: its own
                                       power unknown (the segment's mean power, or time) */
    double resolved_ns;             /* time in sensor segments it had to itself, whole */
    double clock_int;               /* ∫ clock dt while running (MHz ns) */
    double clock_ns;                /* time with a clock value */
    uint64_t launches;              /* launches starting in the window */
    double fit_W, fit_se_W;         /* fit (NaN: none): the group's / other's when so */
    enum en_fit_status fit_status;
    int fit_group;                  /* GROUPED: index into en_fit.group */
};

/* Whole-GPU (or pooled) figures. */
struct en_whole {
    enum en_src src;                /* attribution source (pooled: NONE when mixed) */
    bool mixed;                     /* pooled over GPUs of different sources */
    double kernels_J, copies_J, idle_J, total_J;
    double kernels_time_J, copies_time_J, idle_time_J;   /* split by time alone */
    size_t segments_shifted;        /* segments of the split by power (shifted by the delay) */
    size_t segments_weighted;       /* of them, split by time × fitted power */
    double window_ns;               /* Σ window lengths */
    double covered_ns;              /* of it, inside a sensor segment */
    double busy_ns;                 /* union of the activity */
    double idle_ns;                 /* covered time with nothing running */
    double mean_W;                  /* total / covered (pooled: Σ over GPUs) */
    double peak_W;                  /* largest power sample in the window (pooled: max) */
    /* Cross-check over the span from the first to the last counter reading
     * inside the window: the counter's difference against power × time of
     * the sampled power and of the driver samples, and the fit's energy
     * (NaN when not available; pooled: NaN unless every GPU has it). */
    int64_t xs_ns, xe_ns;           /* per GPU */
    double xspan_ns, counter_J, power_J, driver_J, fit_J;
    size_t segments;
    double segment_ms;              /* median segment length */
};

struct en_group {
    uint32_t n;
    uint32_t *cols;                 /* member columns */
    double W, se_W;
};

struct en_fit {
    bool done;
    char *why_not;                  /* when !done */
    enum en_src src;                /* of the windows (pooled: the first GPU's) */
    size_t nwin;                    /* windows used */
    double win_ms;                  /* median window length */
    double lag_ms;
    bool lag_estimated;
    uint32_t ncols;                 /* fitted columns incl. idle, other, groups */
    double idle_W, idle_se_W;       /* NaN when never idle in the windows */
    bool have_other;
    double other_W, other_se_W;
    uint32_t nother;                /* classes pooled in "other" */
    double rms_W, r2, rho1;         /* residual RMS (weighted), R², lag-1 autocorrelation */
    double se_inflation;            /* sqrt((1+rho)/(1-rho)) applied to the SEs (>= 1) */
    double total_J;                 /* Σ fit_W × time + idle_W × idle time (cross-check) */
    uint32_t ngroups;
    struct en_group *group;
};

struct en_result {
    uint32_t nkernels, ncols;       /* ncols = nkernels + EN_NCOPY */
    size_t ngpus;
    struct en_col *col;             /* [ncols] pooled over the GPUs */
    struct en_col *gcol;            /* [ngpus * ncols] per GPU */
    struct en_whole *gpu;           /* [ngpus] */
    struct en_whole all;            /* pooled */
    struct en_fit fit;              /* pooled over the GPUs' windows */
    bool weighted;                  /* energy_J split by fitted power (some class has one) */
    bool few_windows;               /* not: the fit has fewer than EN_WEIGHT_WINDOWS windows
                                       per unknown */
    double idle_weight_W;           /* the idle power of that split; NaN: segment means */
    double attr_lag_ms;             /* the attribution sensor's delay that split used (NaN: none) */
    struct strv warn;               /* warnings, then (on -1) the error */
};

/* Computes both methods for ngpus GPUs and nkernels kernel ids. 0, or -1 on
 * invalid input (message in res->warn.v[0]); res is always releasable. */
int en_compute(const struct en_gpu *gpus, size_t ngpus, uint32_t nkernels,
               const struct en_opts *opt, struct en_result *res);
void en_release(struct en_result *res);

/* Column index of a kernel or a copy class. */
static inline uint32_t en_col_of(const struct en_result *r, uint8_t kind, uint32_t id)
{
    return kind == EN_KERNEL ? id : r->nkernels + id;
}

/* ---- which telemetry file a trace GPU's activity belongs to (en_match.c) ---- */

/* One GPU as the trace names it (a trace file and Agent_Id) and its
 * activity, sorted by start. */
struct en_trace_gpu {
    uint64_t agent;
    const struct en_act *act;
    size_t nact;
};

enum en_match_how {
    EN_MATCH_NONE = 0,              /* no telemetry file on the node */
    EN_MATCH_ONLY,                  /* the node's only telemetry file */
    EN_MATCH_AGENT_ORDER,           /* as many Agent_Ids as files: i-th agent, i-th file */
    EN_MATCH_CORRELATION,           /* by the correlation of busy time and power */
};
/* "none", "only telemetry file of the node", "agent order", "busy/power correlation". */
const char *en_match_name(enum en_match_how h);

/* Matches the trace GPUs of one node to its telemetry files (power series,
 * in GPU index order): tel[i] = the file of trace GPU i (-1 none), r[i] =
 * the correlation over the file's samples between the GPU's busy fraction
 * and the power (NaN unless EN_MATCH_CORRELATION). Files outnumbering
 * Agent_Ids happen when every process sees its one GPU as the same ordinal
 * (per-task binding): then each GPU goes to the file its activity explains
 * best, one file per GPU while files remain. */
enum en_match_how en_match(const struct en_trace_gpu *k, size_t nk, const struct en_series *power,
                           size_t nt, int *tel, double *r);

/* ---- building the inputs (en_windows.c) ---- */

/* Owned arrays behind a struct en_windows / en_series. */
struct en_wbuf {
    size_t n, cap;
    int64_t *a, *b;
    double *p;
};
void en_wbuf_free(struct en_wbuf *w);
static inline struct en_windows en_wbuf_view(const struct en_wbuf *w)
{
    return (struct en_windows){ w->n, w->a, w->b, w->p };
}

/* Counter windows: [t(i-1), t(i)) with ΔE/Δt; a negative step (reset) or a
 * window longer than gap_factor × the median is left out. */
void en_windows_from_counter(const struct en_series *e, double gap_factor, struct en_wbuf *out);
/* Power windows. refresh_ns 0: value i is the mean over [t(i-1), t(i)).
 * refresh_ns > 0 (a sensor slower than its sampler, values held between its
 * readings): each change of value is a new reading, the mean over the
 * refresh period before it, [t - refresh_ns, t); an unchanged reading is
 * invisible and simply gives no window. NaN values and windows longer than
 * gap_factor × the median are left out. */
void en_windows_from_power(const struct en_series *p, int64_t refresh_ns, double gap_factor,
                           struct en_wbuf *out);
/* The sensor's refresh period: the 10th percentile of the intervals between
 * changes of value (ns; 0 with fewer than 3 changes). */
int64_t en_refresh_ns(const struct en_series *p);
/* Median interval between samples (ns; 0 with fewer than 2). */
int64_t en_sample_ns(const struct en_series *p);

/* Median of the window lengths, ms (NaN when none). */
double en_windows_median_ms(const struct en_windows *w);

#endif
