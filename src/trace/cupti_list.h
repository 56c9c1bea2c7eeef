/* cupti_list.h - `benchrun counters list` on NVIDIA: the base metrics the CUPTI
 * profiler host API reports for this node's GPU (through benchrun-cupti-host).
 *
 * The text is `Chip <arch profile name>` then `name<TAB>type` lines, the NVIDIA
 * layout of counters/counterlist.h, so `benchrun counters check` reads it back.
 * Needs no CUDA at build time: the host tool (src/trace/cupti/, built with the
 * toolkit) is found as $BENCHRUN_CUPTI_HOST, else <exe dir>/lib/benchrun/ or
 * <exe dir>/../lib/benchrun/benchrun-cupti-host; the GPU from nvidia-smi's
 * compute capability (9.0 = GH100, H100/H200).
 */
#ifndef BR_CUPTI_LIST_H
#define BR_CUPTI_LIST_H

#include <stdbool.h>

#include "util/strbuf.h"

/* Host tool found and nvidia-smi answers: this node can list. Prints nothing. */
bool cupti_list_available(void);
/* Fills out with the list. 0, or -1 after printing why. */
int cupti_list(struct strbuf *out);
/* CUPTI chip name for a compute capability ("9.0" -> "GH100"); NULL if unknown. */
const char *cupti_chip_for_cc(const char *cc);

#endif
