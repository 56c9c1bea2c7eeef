/* pmc.h - the pmc stage: one full app run per counter pass, each under the
 * collector (rocprofv3 --pmc ... on AMD, the CUPTI library on NVIDIA).
 *
 * Folder RESULTS_DIR/pmc-<jobid>/: workload.conf, counters.json (the passes
 * used), run_info.txt, run.json (one entry per pass), and per pass
 * <pass>/ with the collector's <pass>[_<pid>]_counter_collection.csv and
 * _kernel_trace.csv (or, ROCPROF_FORMAT rocpd, <pass>[_<pid>]_results.db;
 * run.json output_format says which), LABEL (the pass name) and rocprof.<pass>.txt (the app's
 * output under the collector). OUT_DIR is the pass folder while app_cmd runs;
 * the working folder is the run folder (inputs staged once). A failing pass
 * is reported and the remaining passes still run; a stop signal (time limit)
 * ends the stage. Exit 1 if any pass failed.
 * Launch sampling (--launches / LAUNCHES; trace/launchplan.h): sampled passes
 * profile a bounded number of launches per kernel and trace every launch;
 * each pass folder's launch_sampling.json says which (read/sampfile.h), and
 * the reader scales the profiled launches up (read/extrapolate.h).
 */
#ifndef BR_STAGE_PMC_H
#define BR_STAGE_PMC_H

#include <stdbool.h>

struct stage_pmc_opts {
    const char *conf;
    const char *counters;       /* --counters SET (NULL: COUNTERS, the seed's counters.json,
                                   else "default") */
    const char *collector;      /* --collector NAME (NULL: the GPU vendor's first) */
    const char *launches;       /* --launches all|sampled[:...] (NULL: LAUNCHES, else auto) */
    bool dry_run;               /* print every command, create nothing */
};

/* Runs the stage (a dry run prints it). 0 when every pass succeeded; -1
 * when one failed, a stop signal ended the stage, or the conf or counter
 * set is invalid (printed). */
int stage_pmc(const struct stage_pmc_opts *o);

#endif
