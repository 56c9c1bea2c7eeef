/* proc.h - run a helper command and capture its output (bash for the conf,
 * nvidia-smi, rocminfo). For running the app itself see stage.h
 * (br_stage_exec: process group, log file, signal forwarding).
 */
#ifndef BR_PROC_H
#define BR_PROC_H

#include "util/strbuf.h"

/* Runs argv (execvp; stdin /dev/null) and collects stdout into out and stderr
 * into err (either may be NULL: discarded). *status gets the exit status, or
 * 128+signal. Returns 0 when the command ran, -1 when it could not be started
 * (fork/pipe failure, printed; exec failure gives status 127 silently, so
 * callers can probe for optional tools). */
int proc_capture(const char *const *argv, struct strbuf *out, struct strbuf *err, int *status);

/* True when an executable of this name is found in $PATH (or the path, when
 * it contains a '/'). *where gets the full path when non-NULL (caller frees). */
int proc_which(const char *name, char **where);

#endif
