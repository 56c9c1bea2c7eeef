/* cupti_env.h - how benchrun starts an application under libbenchrun-cupti.so.
 *
 * The CUPTI library (src/trace/cupti/, built only with CUDA) is configured by
 * environment variables; this module (no CUDA needed) finds the library and
 * builds the `env NAME=VALUE…` argv prefix that the trace command, the pmc
 * `cupti` collector and the power stage put in front of the application.
 * Variables: CUDA_INJECTION64_PATH, BENCHRUN_CUPTI_OUT, BENCHRUN_CUPTI_NAME
 * (with %pid%: one file set per process), BENCHRUN_CUPTI_METRICS (comma-
 * separated; absent for a trace). See src/trace/cupti/inject.c for the rest.
 */
#ifndef BR_CUPTI_ENV_H
#define BR_CUPTI_ENV_H

#include "trace/launchplan.h"
#include "util/strv.h"

/* Path of libbenchrun-cupti.so: $BENCHRUN_CUPTI_LIB, else <exe dir>/lib/benchrun/
 * (build tree), else <exe dir>/../lib/benchrun/ (install). NULL with an error
 * naming the places tried. Caller frees. */
char *cupti_lib_path(void);

/* Appends `env CUDA_INJECTION64_PATH=LIB BENCHRUN_CUPTI_OUT=DIR
 * BENCHRUN_CUPTI_NAME=NAME_%pid% [BENCHRUN_CUPTI_METRICS=a,b,…
 * [BENCHRUN_CUPTI_SAMPLE=FIRST:EVERY:BLOCKS:SEED] [BENCHRUN_CUPTI_CACHE=CACHE]]`
 * to out. cache: a folder the counter passes of one run share, NULL: none;
 * metrics is NULL-terminated or NULL (trace only); sample NULL: every launch
 * profiled. */
void cupti_env_argv(struct strv *out, const char *lib, const char *dir, const char *cache,
                    const char *name, const char *const *metrics, const struct lp_plan *sample);

#endif
