/* an_int.h - what the files of the analysis share (private to src/analysis):
 * the inputs found around the pmc run (inputs.c) and the --perf-regex lines
 * (perf.c), for analyze.c's steps. */
#ifndef BR_ANALYSIS_AN_INT_H
#define BR_ANALYSIS_AN_INT_H

#include "analysis/analyze.h"
#include "arch/arch.h"
#include "arch/passes.h"
#include "metrics/metrics.h"
#include "model/run.h"

/* ---- inputs.c ---- */

struct an_passes {
    struct arch_passes set;
    const char **names;      /* NULL-terminated view of the pass names */
    const char *file;        /* counters file read, or NULL */
};

/* The passes: --counters, else PMC_DIR/counters.json, else the pass folders;
 * each pass's label from its LABEL file when the counters file has none. */
int an_passes_load(struct an_passes *p, const struct an_opts *o);
void an_passes_release(struct an_passes *p);
/* Passes without a counter list (no counters file, or none in it): the
 * profile's. */
void an_passes_from_profile(struct an_passes *p, const struct arch_profile *ap);

/* The arch profile: --arch, agent_info Name, run.json gpu_arch, else the
 * default; *source says which (owned by the caller). NULL on an error. */
struct arch_profile *an_arch_load(const struct an_opts *o, const struct rp_run *run,
                                  const struct an_passes *p, char **source);
/* Constants from agent_info.csv where present; a value that cannot be this
 * GPU's is a warning in *warn instead. */
void an_agent_overrides(struct arch_profile *ap, const struct rp_agent *ag, struct strv *warn);

/* The telemetry files: --telemetry, else the power run's (--power, or the
 * run that holds --power-ktrace). NULL-terminated, absolute; free with
 * str_array_free. */
char **an_telemetry_files(const struct an_opts *o);
/* True when dir holds a kernel or memory copy trace. */
bool an_has_trace(const char *dir);

/* ---- perf.c ---- */

/* Each pass's last line matching o->perf_regex (mx_pass perf, perf_s). */
int an_perf_lines(const struct an_opts *o, struct mx_result *res);

#endif
