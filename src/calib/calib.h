/* calib.h - known-answer calibration: kernel parameters, expected values,
 * checks of an analysis against them, and the measured-vs-expected table.
 *
 * The kernels live in share/benchrun/calibrate/calib.cu; this module computes
 * what they must produce from the same parameters (br_calib_params -> the
 * program's key=value arguments), never from a run. `benchrun calibrate`
 * (src/cli/cmd_calibrate.c) builds and runs them through the real stages; the
 * functions here only read files, so CI tests them without a GPU.
 *
 * Tolerances: FLOPs ±0.1 %, DRAM bytes ±2 %, lanes active ±1 point,
 * achieved occupancy within the kernel's register limit, bound labels equal,
 * long-kernel power rise within one telemetry period of its start.
 */
#ifndef BR_CALIB_H
#define BR_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu/gpu.h"
#include "util/strv.h"

/* The program's parameters (calib.cu `struct params`, same names). */
struct br_calib_params {
    long n;             /* stream arrays: doubles per array */
    long stream_reps;   /* launches of calib_copy and of calib_triad */
    long fma_blocks, fma_threads, fma_iters, fma_reps;
    long gemm_n, gemm_reps;   /* cuBLAS M = N = K, launches of each GEMM */
    long long_ms, idle_ms;    /* long kernel duration, idle GPU before and after */
    long flush_mib;           /* L2 flush buffer */
    long mma_blocks, mma_iters, mma_reps;   /* tensor-path kernels (CUDA): 128-thread blocks,
                                               loop iterations, launches of each */
    long power_phases;        /* repetitions of the power phase sequence (energy check) */
    int warp;                 /* lanes per warp/wavefront: 32 NVIDIA, 64 AMD */
    bool issued_flops;        /* AMD: VALU FLOP counters count every lane issued */
    bool f16_per_inst;        /* NVIDIA: FP16 FLOPs counted 2 per HFMA2 instruction (of 4) */
    bool tensor_paths;        /* NVIDIA: the mma.sync/wgmma kernels run and are checked */
};

/* Defaults for "nvidia" or "amd" (sizes fit any 40+ GB GPU; a few s of run). */
void br_calib_params_default(struct br_calib_params *p, enum gpu_vendor vendor);
/* Appends the program's arguments ("n=134217728", ...) to out. */
void br_calib_params_argv(const struct br_calib_params *p, struct strv *out);

enum br_calib_how {
    BR_CALIB_REL,     /* |m - v| <= tol * |v| */
    BR_CALIB_ABS,     /* |m - v| <= tol */
    BR_CALIB_RANGE,   /* lo <= m <= hi */
    BR_CALIB_LABEL,   /* string equal to label */
};

/* Which row of per_kernel_metrics.csv a check reads. */
enum br_calib_row {
    BR_CALIB_ROW_KERNEL,   /* kernel (or kernel_full_name) == kernel */
    BR_CALIB_ROW_TOTAL,    /* the TOTAL row */
    BR_CALIB_ROW_MAX_OF,   /* the non-TOTAL row with the largest value of max_col */
};

/* One expected value. Strings are static (owned by the table code). */
struct br_calib_expect {
    const char *check;          /* "FP64 FMA loop: FLOPs" */
    enum br_calib_row row;
    const char *kernel;         /* ROW_KERNEL: kernel name */
    const char *max_col;        /* ROW_MAX_OF: column to maximize */
    const char *const *cols;    /* candidate columns, NULL-terminated; first present is used */
    enum br_calib_how how;
    double value, tol;          /* REL/ABS */
    double lo, hi;              /* RANGE */
    const char *label;          /* LABEL */
    const char *why;            /* where the expected value comes from */
    bool optional;              /* a missing column is SKIP rather than MISS */
};

/* The expected values of the analysis checks for p. Returns the count; *out
 * is allocated (free with free()). */
size_t br_calib_expect_table(const struct br_calib_params *p, struct br_calib_expect **out);

enum br_calib_status { BR_CALIB_PASS, BR_CALIB_MISS, BR_CALIB_SKIP };

struct br_calib_result {
    char *check;                /* copied */
    char *expected;             /* "8.85837e+09 ±0.1%", "compute", "<= 25 %" */
    char *measured;             /* "8.85837e+09 (+0.00%)", "memory", "n/a" */
    char *source;               /* "calib_fma_f64 FP64_VALU_FLOP" or the file used */
    enum br_calib_status status;
    char *note;                 /* why a SKIP/MISS, or NULL */
};

struct br_calib_results {
    size_t n, cap;
    struct br_calib_result *v;
};

void br_calib_results_release(struct br_calib_results *r);
/* Adds a result (all strings copied; note may be NULL). */
void br_calib_result_add(struct br_calib_results *r, const char *check, const char *expected,
                         const char *measured, const char *source,
                         enum br_calib_status status, const char *note);

/* Checks an analysis' per_kernel_metrics.csv against the table. 0, or -1
 * when the file cannot be read or has no header/kernel column (printed). */
int br_calib_check_analysis(const char *per_kernel_csv, const struct br_calib_expect *e,
                            size_t n, struct br_calib_results *res);
/* Same over a memory buffer (not copied); name is used in messages. */
int br_calib_check_analysis_mem(const char *name, const void *data, size_t len,
                                const struct br_calib_expect *e, size_t n,
                                struct br_calib_results *res);

/* Value of the first present column of cols in kernel's row of a
 * per_kernel_metrics.csv: 0, or -1 (no file, row, column or number). */
int br_calib_analysis_value(const char *per_kernel_csv, const char *kernel,
                            const char *const *cols, double *out);

/* Time-base checks: for the FP64 and FP32 FMA loops, the analysis' TFLOP/s
 * against its FLOPs / the kernel's time in the power run's trace (±5 %; the
 * counter runs' kernel time against the unprofiled one). Results appended. */
void br_calib_check_rates(const char *per_kernel_csv, const char *prof_dir,
                          struct br_calib_results *res);

/* ---- power run: long kernel duration and power-rise alignment ---------- */

/* Detected power step around a kernel that starts at kstart and ends at kend
 * (ns, one clock): baseline = median over [kstart - pre, kstart), plateau =
 * median over the kernel's second half, rise = first sample at or after
 * kstart - pre whose value reaches baseline + (plateau - baseline) / 2. */
struct br_calib_rise {
    double baseline_W, plateau_W;
    int64_t rise_ns;            /* timestamp of the rise sample; -1 none */
    double delta_ms;            /* rise - kstart, ms (NaN when none) */
    double low_delta_ms;        /* first sample of the last value below half
                                   before the rise - kstart, ms (its refresh) */
    double period_ms;           /* the source's refresh period (median gap
                                   between value changes), ms; NaN if unknown */
    size_t samples;             /* samples in [kstart - pre, kend) */
};

/* Pure function over a time series (t ascending, ns; w in W, NaN skipped).
 * Returns 0, or -1 when there are too few samples before or inside the kernel
 * (out->rise_ns = -1). */
int br_calib_power_rise(const int64_t *t, const double *w, size_t n, int64_t kstart,
                        int64_t kend, int64_t pre_ns, struct br_calib_rise *out);
/* Median gap between consecutive samples whose values differ (ms); NaN when
 * fewer than 3 changes. With every_sample, the median gap between samples. */
double br_calib_refresh_ms(const int64_t *t, const double *w, size_t n, bool every_sample);

/* Checks the power run folder: the long kernel (kernel name long_kernel) in
 * the kernel trace(s) under prof_dir lasts long_ms (0..+1 %), and the power
 * crosses half-way from baseline to plateau within one sample period of its
 * start (the crossing lies between the last low and the first high sample: the
 * first high one at most a period before the start, the last low one at most a
 * period after it) in the sampler's telemetry CSV and, when
 * present, the driver's power samples (NVML). Results appended. 0, or -1 on an
 * unreadable folder (printed). */
int br_calib_check_power(const char *prof_dir, const char *long_kernel, long long_ms,
                         struct br_calib_results *res);
/* The readers behind it, over memory (fuzzing, tests): the first launch of
 * kernel in a kernel_trace.csv (1 found, 0 not, -1 malformed header), and the
 * (timestamp_ns, power_W) rows of a driver power CSV (count, -1 on error).
 * *t and *w are allocated; free them. */
int br_calib_trace_find_mem(const char *name, const void *data, size_t len, const char *kernel,
                            int64_t *start, int64_t *end);
/* Σ duration (ns) and launches of kernel in the kernel_trace.csv files under
 * prof_dir. 0 (launches may be 0), -1 on a malformed trace (printed). */
int br_calib_trace_time(const char *prof_dir, const char *kernel, double *ns, long *launches);
long br_calib_driver_power_mem(const char *name, const void *data, size_t len, int64_t **t,
                               double **w);

/* ---- power phases: energy per kernel (calib_energy.c) ---------------------- */

/* Kernels of calib.cu's power phase sequence and their labels. */
#define BR_CALIB_NPHASE 3
extern const char *const br_calib_phase_kernels[BR_CALIB_NPHASE];

/* The energy analysis of the power run (src/energy, as `benchrun energy`
 * runs it) against the phases measured directly: for each phase kernel, its
 * mean power while running measured in its launches of >= 190 ms, from 100 ms
 * after the start to the end (the NVML driver's power samples when present,
 * else the energy counter's readings, else the sampled power), and
 *   - the fitted power (least squares) within 5 % of it,
 *   - the attributed energy within 5 % of it x the kernel's running time,
 * and the fit's whole-run energy within 1 % of the energy counter's
 * difference over the same span. No phase kernel in the trace: one SKIP row.
 * 0, or -1 when the power run cannot be read (printed). */
int br_calib_check_energy(const char *prof_dir, struct br_calib_results *res);

/* ---- the run (calib_run.c) -------------------------------------------------- */

struct br_calib_run {
    enum gpu_vendor vendor;     /* NVIDIA or AMD */
    const char *outdir;         /* absolute; created */
    const char *compiler;       /* nvcc/hipcc path; NULL: searched */
    const char *gpu_arch;       /* "sm_90", "gfx942"; NULL: detected, else sm_90/gfx942 */
    const char *counters;       /* pmc --counters SET; NULL: the stage's default */
    struct br_calib_params params;
    bool progress;              /* a line per step on stderr */
    /* filled by the steps */
    char *exe, *conf, *pmc_dir, *prof_dir;
};

/* Compiles share/benchrun/calibrate/calib.cu into OUTDIR/bin/calib (nvcc for
 * NVIDIA with -arch, hipcc for AMD), log in OUTDIR/logs/build.log. 0/-1. */
int br_calib_build(struct br_calib_run *r);
/* Writes OUTDIR/calibrate.conf (a seed workload.conf running the program
 * with the parameters, results under OUTDIR/results). 0/-1. */
int br_calib_write_conf(struct br_calib_run *r);
/* Runs `<this benchrun> plain|pmc|power CONF` and `analyze PMC --power PROF`,
 * each logged to OUTDIR/logs/<stage>.log; one result row per stage (exit 0
 * expected). Fills pmc_dir/prof_dir. 0 when every stage ran (whatever its
 * status), -1 when one could not be started. */
int br_calib_stages(struct br_calib_run *r, struct br_calib_results *res);
void br_calib_run_release(struct br_calib_run *r);

/* ---- output ------------------------------------------------------------- */

/* The table: check | expected | measured | status (| note). Returns misses. */
size_t br_calib_print(FILE *fp, const struct br_calib_results *r);
/* Same as Markdown (for calibration.md and the README). */
void br_calib_print_md(FILE *fp, const struct br_calib_results *r);
size_t br_calib_misses(const struct br_calib_results *r);

#endif
