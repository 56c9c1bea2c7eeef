/* stopsig.h - the stop signals (SIGTERM, SIGINT, SIGHUP) of a stage:
 * recorded from the moment a stage begins, forwarded to the process group of
 * the child that runs, and never lost across fork.
 *
 * Slurm sends SIGTERM to every step at the time limit (and on scancel), then
 * SIGKILL KillWait seconds later (slurm.conf KillWait, default 30 s), so
 * benchrun must live through the SIGTERM to write its run record. Once
 * installed the handler stays for the life of the process: with no child
 * running it only records the signal (a late SIGTERM must not kill benchrun
 * while it writes run_info), and a recorded signal stops every later step
 * (stage/exec.c starts no new child, util/proc.c stops a running helper).
 *
 * Fork: stopsig_fork() blocks the stop signals across fork(). The child gets
 * the default dispositions back before it unblocks them, so a signal sent to
 * it at any moment kills it or reaches what it execs, never a copy of our
 * handler (else a SIGTERM could be lost in between). The parent unblocks in
 * stopsig_fork_done() once it has recorded the child's process group, so a
 * signal that arrived meanwhile is forwarded to it.
 */
#ifndef BR_STOPSIG_H
#define BR_STOPSIG_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Installs the recording/forwarding handler for SIGTERM, SIGINT and SIGHUP
 * (idempotent). */
void stopsig_install(void);
bool stopsig_installed(void);
/* For the length of one step (a helper that must not be orphaned, like the
 * conf loader) in a process that has not installed the handler: push
 * installs it, pop restores the previous dispositions and, when a stop
 * signal arrived in between, raises it again so the process ends as it would
 * have. With the handler installed for good, both do nothing. */
void stopsig_push(void);
void stopsig_pop(void);

/* The first stop signal received since install, 0 when none. */
int stopsig_received(void);
/* CLOCK_MONOTONIC seconds at which it arrived (NaN when none). */
double stopsig_received_at(void);
/* "SIGTERM", "SIGINT", "SIGHUP", else "signal N" (static). */
const char *stopsig_name(int sig);

/* Signals received from now on are also sent to this process group (0:
 * nobody). */
void stopsig_forward_to(pid_t pgid);

/* fork() with SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGCHLD blocked. Returns
 * as fork(); in the child the dispositions of those signals and of SIGPIPE
 * are the defaults and the caller's mask is back. In the parent (pid > 0 or
 * -1) the signals stay blocked until stopsig_fork_done(). */
pid_t stopsig_fork(void);
/* Parent: forward to child_pgid (0: do not change the target), then unblock. */
void stopsig_fork_done(pid_t child_pgid);

#endif
