/* sampler_report.h - statistics, progress line, summary and JSON of a sampler run.
 *
 * Internal to src/sample (used by sampler.c): the per-GPU output state and the
 * run timing it accumulates, and what is printed / written at the end.
 */
#ifndef BR_SAMPLER_REPORT_H
#define BR_SAMPLER_REPORT_H

#include "sample/sample.h"
#include "sample/sampler.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

/* One GPU's output file and running state (sampler.c fills it). */
struct br_gpu_out {
    int gpu;
    int fd;
    char *path;
    struct br_sampler_dev *dev;
    struct br_dev_info info;
    struct strbuf line;
    double e0, prev_e, last_inst;  /* energy origin, last distinct reading, inst power */
    int64_t prev_et;
    struct br_sample prev;
    bool have_prev, dead;
    uint64_t read_errors;
    int write_errno;               /* why writing its file stopped (ENOSPC), 0 if it did not */
    /* statistics: samples counts the rows written to the file */
    uint64_t samples, refreshes;
    int64_t first_refresh_ns, last_refresh_ns;
    double last_power_W;
};

/* Timing of the loop passes. */
struct br_run_times {
    int64_t start_ns, interval_ns;
    uint32_t *gaps;            /* ns between pass starts, clamped to 4.29 s */
    size_t ngaps, cap;
    int64_t prev_t0, first_t0, last_t0;
    double max_gap_ns;
    uint64_t passes, missed;
    double cost_sum_ns, cost_max_ns;
    double cpu_s;
    int forwarded_signal;
    int64_t last_progress_ns;
};

void br_report_init(struct br_run_times *rt, int64_t interval_ns);
void br_report_release(struct br_run_times *rt);
/* One loop pass that started at t0 and ended at t1. */
void br_report_pass(struct br_run_times *rt, int64_t t0, int64_t t1);
/* One sample of a GPU was written. */
void br_report_count(struct br_gpu_out *g, const struct br_sample *s, bool refreshed);
/* Status line on stderr at most once a second (final: ends the line). */
void br_report_progress(struct br_run_times *rt, const struct br_gpu_out *g, size_t n,
                        bool final);
/* Fills stats, writes the JSON (atomically) and prints the summary. */
int br_report_finish(const struct br_sampler_config *cfg, struct br_run_times *rt,
                     const struct br_gpu_out *g, int status, const char *json_path,
                     struct br_sampler_stats *stats);

/* Median / p-quantile (0..1, nearest rank) of n values; sorts v. NAN if n == 0. */
double br_quantile_u32(uint32_t *v, size_t n, double p);

#endif
