/* runinfo.h - the run record of a stage: run_info.txt ("key: value" lines,
 * for people) and run.json (the same facts, for programs), written together.
 *
 * Status "starting" once the folder exists, "running" while the app runs,
 * then "ok", "failed" (non-zero exit, failing setup) or "killed" (a stop
 * signal, with "signal"; or the app died of a signal). The stage's exit
 * status is 0 exactly when the final status is "ok".
 */
#ifndef BR_STAGE_RUNINFO_H
#define BR_STAGE_RUNINFO_H

#include <jansson.h>

#include "stage/exec.h"
#include "util/strv.h"

struct stage;

/* Writes RUNDIR/run_info.txt and RUNDIR/run.json with: stage, workload,
 * description, conf, host, date, GPU arch, vendor, layout, GPUs seen, run
 * dir, job id, command (quoted), and status: "running" when r is NULL, else
 * stage_run_status(r) with exit status (null when not started), wall time,
 * reason and signal. extra (may be NULL; borrowed) holds stage-specific keys
 * merged into run.json and printed as "key: value" for scalars. Values are
 * escaped so that each stays on its line (control characters as \n, \t,
 * \xNN) and is UTF-8 (other bytes as \xNN, as in run.json). Both files are
 * written to temporary names first and then renamed one after the other, so
 * they never disagree after a signal. 0 or -1 (printed). */
int stage_run_info_write(const struct stage *st, const struct strv *command,
                         const struct stage_exec_result *r, json_t *extra);
/* The first record, status "starting", written as soon as the folder exists. */
int stage_run_info_starting(const struct stage *st);

#endif
