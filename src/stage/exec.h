/* exec.h - running one command of a stage: its own process group, output to
 * a log, stop signals forwarded, SIGKILL after a grace period.
 *
 * Signals (util/stopsig.h): from stage_load on, SIGTERM/SIGINT/SIGHUP sent
 * to benchrun are recorded and forwarded to the process group of the command
 * that runs (the child is a group leader); no later step starts after one,
 * and every end is recorded: "time limit" for SIGTERM inside a Slurm job
 * (Slurm sends SIGTERM at the time limit, and on scancel), else
 * "SIGTERM received"...; SIGKILL follows after BENCHRUN_KILL_WAIT s.
 */
#ifndef BR_STAGE_EXEC_H
#define BR_STAGE_EXEC_H

#include <stdbool.h>

#include "util/strv.h"

struct stage_exec_result {
    bool started;           /* the command was started */
    int exit_code;          /* exit status, or 128+signal when killed; -1 not started */
    int term_signal;        /* signal that killed the child, 0 if none */
    int forwarded_signal;   /* stop signal benchrun received, 0 if none */
    double killed_after_s;  /* SIGKILL sent this long after it; -1: none sent */
    double wall_s;          /* CLOCK_MONOTONIC seconds from fork to reap */
    char *reason;           /* NULL, or why it ended early ("time limit", ...) */
};

/* Runs argv (execvp) in its own process group, stdout+stderr appended to
 * log_path (NULL: inherited), stdin from /dev/null when it is a terminal.
 * Forwards SIGTERM/SIGINT/SIGHUP to the group while waiting, and SIGKILLs
 * the group BENCHRUN_KILL_WAIT s after one arrived if it is still running.
 * A stop signal received earlier starts nothing (r->started false, reason
 * set). Returns 0 when the command ran or was not started for that reason
 * (see r), -1 when it could not be started (printed). Release r with
 * stage_exec_result_release. */
int stage_exec(const struct strv *argv, const char *log_path, struct stage_exec_result *r);
void stage_exec_result_release(struct stage_exec_result *r);
/* Reads BENCHRUN_KILL_WAIT (seconds from SIGTERM to SIGKILL, default 30);
 * 0, or -1 on a malformed value (printed). */
int stage_kill_wait_from_env(void);
/* "ok", "failed" or "killed": the final status of a run record. */
const char *stage_run_status(const struct stage_exec_result *r);
/* "time limit" (SIGTERM inside Slurm) or "<SIGNAME> received". Caller frees. */
char *stage_stop_reason(int sig);

#endif
