/* analyze.h - the analysis of a counter run (`benchrun analyze PMC_DIR`):
 * per-kernel and whole-run metrics (docs/design.md §6-§8) written to
 * PMC_DIR/analysis (or --out-dir) as per_kernel_metrics.csv,
 * top_kernels.csv, summary.json, report.md, report.html, and with a power
 * run the energy per kernel and power_trace.json.
 *
 * The steps, in order: the passes (counters.json, else the pass folders and
 * the profile's counters), the readers (src/read), the arch profile
 * (--arch, agent_info Name, run.json gpu_arch, gfx942) and its agent_info
 * overrides, the power run's trace and telemetry, the sampled clock, the
 * engine (src/metrics), the --perf-regex lines, the energy (src/energy), the
 * writers (src/write); the outputs replace the old set as a whole.
 */
#ifndef BR_ANALYSIS_ANALYZE_H
#define BR_ANALYSIS_ANALYZE_H

#include <jansson.h>

#include "energy/energy.h"
#include "read/prun.h"
#include "model/run.h"
#include "util/strv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The seed's default --perf-regex: LAMMPS' timing line, group 1 in seconds. */
#define AN_DEFAULT_PERF_REGEX "Loop time of ([0-9.eE+-]+)"

struct an_opts {
    const char *pmc_dir, *power, *ktrace, *counters, *arch, *out_dir, *perf_regex;
    char **telemetry;           /* [ntelemetry] --telemetry files (borrowed), NULL-terminated */
    size_t ntelemetry;
    double clock_mhz, time_pct, latency_pct;
    long top, top_n;
    bool progress;              /* progress lines on stderr */
    bool resample;              /* --resample: full passes read through resample_plan */
    struct lp_plan resample_plan;
    struct prun_opts energy;
    struct en_opts fit;
};

/* The defaults: --time-pct 90, --latency-pct 10, --top 20, the seed's
 * --perf-regex, the energy fit's defaults; nothing else set. */
void an_opts_init(struct an_opts *o);

/* What is left to tell once the outputs are written. */
struct an_result {
    uint32_t nkernels, ntop;    /* kernel rows, top kernels */
    struct strv warnings;       /* the data checks' warnings (summary.json checks.warnings) */
    char *out_dir;              /* the output folder */
};

/* Runs the analysis of o->pmc_dir. 0 when the outputs are written (warnings
 * do not fail) and *out is filled; -1 when an input cannot be used or an
 * output cannot be written (printed, naming file and line; the old outputs
 * stay whole). Release *out either way. */
int an_run(const struct an_opts *o, struct an_result *out);
void an_result_release(struct an_result *r);

/* The summary of a power run's folder, as `benchrun power` records and prints
 * it (stage/power.h's summarize): the folder read (read/psumread.h), then
 * summed (metrics/powersum.h). */
json_t *an_power_summary(const char *rundir, const char *workload, const char *ktrace);

#endif
