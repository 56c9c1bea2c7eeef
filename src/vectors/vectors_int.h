/* vectors_int.h - private to src/vectors/: the steps of vec_compute(). */
#ifndef BR_VECTORS_INT_H
#define BR_VECTORS_INT_H

#include "vectors/vectors.h"
#include "util/strv.h"

/* vectors_run.c: telemetry files -> r->gpus (named, sorted, metadata read). */
int vec_find_gpus(struct vec_result *r);
/* run.json or run_info.txt -> r->run_info (absent: NULL, no error). */
void vec_read_run_info(struct vec_result *r);
/* clock_ref.txt -> r->clock_ref (absent: NULL). */
void vec_read_clock_ref(struct vec_result *r);
/* sampler_*.json (the sampler's own summary) -> r->sampler_reports. */
void vec_read_sampler_reports(struct vec_result *r);
/* Arch and TDP (--tdp, else the arch profile's tdp_W). 0 or -1 (printed). */
int vec_find_tdp(const struct vec_opts *o, struct vec_result *r);
/* Kernel window from the run's kernel traces. 0 or -1 (printed). */
int vec_find_window(const struct vec_opts *o, struct vec_result *r);
/* vectors_xcheck.c: --dendrogram-dir / $DENDROGRAM_DIR: dendrogram.py's
 * calculate_power_distribution on the same samples -> r->cross_check. 0 or
 * -1 (printed: no dendrogram.py, or it failed). */
int vec_cross_check(const struct vec_opts *o, struct vec_result *r);
/* vectors_run.c: ROCm version of the run's workload.conf (ROCM_PATH). */
void vec_read_rocm(struct vec_result *r);
/* One "key: value" / "key=value ..." line into o (line is modified). */
void vec_kv_line(json_t *o, char *line, long ln);

/* Prints a warning and keeps it for the JSON description. */
void vec_warn(struct vec_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
