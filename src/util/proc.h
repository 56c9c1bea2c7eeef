/* proc.h - run a helper command and capture its output (bash for the conf,
 * nvidia-smi, rocminfo). For running the app itself see stage/exec.h
 * (stage_exec: process group, log file, signal forwarding).
 */
#ifndef BR_PROC_H
#define BR_PROC_H

#include <stdbool.h>

#include "util/strbuf.h"

/* Runs argv (execvp; stdin /dev/null) and collects stdout into out and stderr
 * into err (either may be NULL: discarded). *status gets the exit status, or
 * 128+signal. Returns 0 when the command ran, -1 when it could not be started
 * (fork/pipe failure, printed; exec failure gives status 127 silently, so
 * callers can probe for optional tools). */
int proc_capture(const char *const *argv, struct strbuf *out, struct strbuf *err, int *status);

/* proc_capture for commands that may not end by themselves (the conf
 * loader runs the user's bash): the command runs in its own process group,
 * which is SIGKILLed when timeout_s passes, when a stop signal is recorded
 * (util/stopsig.h), or when the command has exited but something it started
 * in the background still holds its output open (a stop signal is seen
 * only with the handler installed: stopsig_install or stopsig_push). What
 * happened is in *how;
 * *status is as for proc_capture (128+9 when killed). */
struct proc_end {
    bool timed_out;         /* ran longer than timeout_s */
    int stop_signal;        /* killed because benchrun received this signal */
    bool left_children;     /* exited, but left processes holding its output */
};
int proc_capture_limited(const char *const *argv, double timeout_s, struct strbuf *out,
                         struct strbuf *err, int *status, struct proc_end *how);

/* True when an executable of this name is found in $PATH (or the path, when
 * it contains a '/'). *where gets the full path when non-NULL (caller frees). */
int proc_which(const char *name, char **where);

#endif
