/* calib_rate.c - time-base checks of `benchrun calibrate`: TFLOP/s of the FMA
 * loops in the analysis against FLOPs / kernel time in the power run's trace.
 *
 * Owns: the rate-check table and its results. The analysis divides FLOPs by
 * the kernel time of the counter runs (the pass's own; NVIDIA's SASS pass runs
 * patched code and is timed from the other passes, src/metrics/timebase.c); the power run's trace times the same
 * launches unprofiled. A compute-bound FMA loop runs the same speed in both,
 * so a wrong time base (units, a pass's time, a clock domain) shows up as a
 * ratio far from 1. Tolerance ±5 % (profiling overhead per launch is small
 * next to these kernels: ~ms each). Units: TFLOP/s = FLOP / ns / 1000.
 * SPDX-License-Identifier: MIT
 */
#include "calib/calib.h"

#include <math.h>
#include <stdlib.h>

#include "util/xalloc.h"

#define RATE_TOL 0.05

struct rate_check {
    const char *check, *kernel;
    const char *const *flop_cols, *const *rate_cols;
};

static const char *const f64[] = { "FP64_VALU_FLOP", "FP64_FLOP", NULL };
static const char *const r64[] = { "TFLOPs_FP64_VALU", "TFLOPs_FP64", NULL };
static const char *const f32[] = { "FP32_VALU_FLOP", "FP32_FLOP", NULL };
static const char *const r32[] = { "TFLOPs_FP32_VALU", "TFLOPs_FP32", NULL };

static const struct rate_check checks[] = {
    { "FP64 FMA loop: TFLOP/s vs FLOPs / trace time", "calib_fma_f64", f64, r64 },
    { "FP32 FMA loop: TFLOP/s vs FLOPs / trace time", "calib_fma_f32", f32, r32 },
};

static void rate_one(const struct rate_check *c, const char *csv, const char *prof,
                     struct br_calib_results *res)
{
    double flop, tf, ns;
    long launches;
    char *src = xasprintf("%s %s, %s/*kernel_trace.csv", c->kernel, c->rate_cols[0], prof);
    if (br_calib_analysis_value(csv, c->kernel, c->flop_cols, &flop) != 0 ||
        br_calib_analysis_value(csv, c->kernel, c->rate_cols, &tf) != 0) {
        br_calib_result_add(res, c->check, "±5 %", NULL, src, BR_CALIB_SKIP,
                            "FLOPs or TFLOP/s not in this analysis");
    } else if (br_calib_trace_time(prof, c->kernel, &ns, &launches) != 0 || launches == 0 ||
               !(ns > 0)) {
        br_calib_result_add(res, c->check, "±5 %", NULL, src, BR_CALIB_MISS,
                            "kernel not in the power run's trace");
    } else {
        double want = flop / ns / 1000.0, d = (tf - want) / want;
        char *exp = xasprintf("%.4g TFLOP/s ±%g%% (%ld launches, %.4g ms)", want,
                              100 * RATE_TOL, launches, ns / 1e6);
        char *meas = xasprintf("%.4g (%+.2f%%)", tf, 100 * d);
        br_calib_result_add(res, c->check, exp, meas, src,
                            fabs(d) <= RATE_TOL ? BR_CALIB_PASS : BR_CALIB_MISS,
                            fabs(d) <= RATE_TOL ? NULL : "time base differs from the trace");
        free(exp);
        free(meas);
    }
    free(src);
}

void br_calib_check_rates(const char *per_kernel_csv, const char *prof_dir,
                          struct br_calib_results *res)
{
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
        rate_one(&checks[i], per_kernel_csv, prof_dir, res);
}
