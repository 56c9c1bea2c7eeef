/* psumread.h - the power stage's run folder read back for its summary
 * (model/psum.h): the telemetry files TELEM_FILE_PREFIX<tag>_*.csv (not the
 * driver's), clock_ref.txt and every clock_ref_<node>.txt, the kernel trace
 * folder and its node subfolders. Best effort, as a summary printed after
 * the run: a missing or unreadable piece is left out (its error printed),
 * never a failure.
 */
#ifndef BR_READ_PSUMREAD_H
#define BR_READ_PSUMREAD_H

#include "model/psum.h"

/* Reads rundir's files of workload tag and the traces under ktrace (a
 * folder; missing = none) into out. */
void psum_read(struct psum_run *out, const char *rundir, const char *tag, const char *ktrace);

#endif
