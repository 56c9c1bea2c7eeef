/* sampler.h - the deadline sampling loop around a command (benchrun sample).
 *
 * One process samples every listed GPU on absolute deadlines
 * (clock_nanosleep TIMER_ABSTIME on CLOCK_BOOTTIME), starts before the command
 * and stops after it exits, forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT to it, and
 * writes per GPU (in outdir):
 *   profiling_result_<prefix>[_<node>]_<gpu>.csv (telem_file_stem)
 *     line 1: metadata, space-separated key=value pairs (no spaces in values);
 *     line 2: the header of model/telemetry.h, the one schema the readers
 *     read too; then one line per sample, each written with one
 *     write(2) as soon as it is read, so a SIGKILL leaves only whole lines
 *     (nan for an absent reading; timestamps CLOCK_BOOTTIME ns; energy_J
 *     accumulated since the first sample; refreshed 1 when the source's
 *     reading changed since the previous sample; inst_power_W = energy delta /
 *     source time delta between consecutive refreshes, held between them);
 *   clock_ref[_<node>].txt before the command starts (clockref.h);
 *   sampler_<prefix>[_<node>].json at the end (summary).
 */
#ifndef BR_SAMPLER_H
#define BR_SAMPLER_H

#include "model/telemetry.h"
#include "sample/sample.h"

#include <stdbool.h>
#include <stdint.h>

struct br_sampler_config {
    const struct br_sampler_ops *ops;
    const int *gpus;
    size_t ngpus;
    int64_t interval_ns;
    const char *outdir;
    const char *prefix;
    const char *node;          /* NULL: no node in file names */
    char *const *argv;         /* command, NULL-terminated; NULL: sample for duration_ns */
    int64_t duration_ns;       /* only without a command (benchmarks) */
    bool progress;             /* a status line on stderr every second */
    bool quiet;                /* no summary on stderr */
};

/* Figures of one run (also written to the JSON). Times in ns. */
struct br_sampler_stats {
    uint64_t iterations;       /* loop passes = samples per GPU */
    uint64_t missed;           /* deadlines skipped because a pass overran */
    int64_t first_ns, last_ns;
    double interval_median_ns, interval_p99_ns, interval_max_ns, interval_mean_ns;
    double cpu_s;              /* sampler CPU time (user + system, all threads) */
    uint64_t read_errors;
};

/* Runs the command under the sampler. Returns the command's exit status
 * (128 + signal number when it was killed; 127 when it could not be
 * started), or -1 with an error printed when sampling could not start.
 * stats may be NULL. */
int br_sampler_run(const struct br_sampler_config *cfg, struct br_sampler_stats *stats);

/* Formats v with `decimals` digits after the point into out (>= 32 bytes);
 * "nan" for NaN. Returns the length. Exposed for tests. */
int br_fmt_fixed(char *out, double v, int decimals);

#endif
