/* powersum.h - the seed's power-run summary printed at the end of
 * `benchrun power` and kept in its run.json ("power_summary").
 *
 * From the run folder as read/psumread.h reads it: the samples and mean/max
 * socket power, mean/max gfx clock, max hotspot (and edge/GPU) temperature of the telemetry
 * files profiling_result_<tag>[_<node>]_<gpu>.csv, the kernels traced under
 * ktrace (a folder; missing = none), and the alignment evidence: clock_ref's
 * boottime, the first sample and the first kernel (CLOCK_BOOTTIME ns) and
 * their offsets from it, per node on multi-node runs ("nodes").
 */
#ifndef BR_METRICS_POWERSUM_H
#define BR_METRICS_POWERSUM_H

#include <jansson.h>

#include "model/psum.h"

/* The summary above as a new JSON object (never NULL; absent data is null). */
json_t *mx_power_summary(const struct psum_run *r);

#endif
