/* exec.c - run a stage's command: own process group, output to a log file,
 * SIGTERM/SIGINT/SIGHUP forwarded to the group (util/stopsig.h), SIGKILL
 * after a grace period, exit status and wall time.
 *
 * Slurm sends SIGTERM to the job step at the time limit (and on scancel),
 * then SIGKILL KillWait seconds later (slurm.conf KillWait, default 30 s), so
 * benchrun has that long to record "time limit" in run_info. An app that
 * outlives the SIGTERM gets SIGKILL from benchrun after BENCHRUN_KILL_WAIT
 * seconds (default 30, as KillWait), so a stage never waits forever.
 *
 * Slurm signals the app's srun step a few ms BEFORE the batch step that runs
 * benchrun (measured with slurm-wlm 22.05, tests/slurm/0050): the app can end
 * before benchrun's own SIGTERM arrives. So a recorded signal stays pending
 * (a later stage_exec starts nothing), and an app that died of SIGTERM
 * inside Slurm waits up to 1 s for benchrun's own signal before the reason
 * is decided.
 */
#include "stage/exec.h"
#include "stage/jobdir.h"
#include "util/error.h"
#include "util/stopsig.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BR_KILL_WAIT_DEFAULT 30.0

static double g_kill_wait = BR_KILL_WAIT_DEFAULT;

int stage_kill_wait_from_env(void)
{
    const char *v = getenv("BENCHRUN_KILL_WAIT");
    g_kill_wait = BR_KILL_WAIT_DEFAULT;
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    double s = strtod(v, &end);
    if (errno || *end || !(s >= 0 && s <= 86400))
        return br_error("BENCHRUN_KILL_WAIT must be the seconds between SIGTERM and SIGKILL "
                        "(0 to 86400), got '%s'", v);
    g_kill_wait = s;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* In the child: own group, log file, stdin, exec (stopsig_fork has reset the
 * signal dispositions). */
static void child(const struct strv *argv, int logfd)
{
    setpgid(0, 0);
    if (logfd >= 0) {
        dup2(logfd, STDOUT_FILENO);
        dup2(logfd, STDERR_FILENO);
        close(logfd);
    }
    if (isatty(STDIN_FILENO)) {     /* a background group must not read the tty */
        int dn = open("/dev/null", O_RDONLY);
        if (dn >= 0) {
            dup2(dn, STDIN_FILENO);
            close(dn);
        }
    }
    execvp(argv->v[0], argv->v);
    fprintf(stderr, "benchrun: cannot run '%s': %s\n", argv->v[0], strerror(errno));
    _exit(127);
}

char *stage_stop_reason(int sig)
{
    if (sig == SIGTERM && stage_in_slurm())
        return xstrdup("time limit");
    return xasprintf("%s received", stopsig_name(sig));
}

/* The app died of SIGTERM (or srun reported 143) inside Slurm before our own
 * signal arrived: give it up to 1 s to arrive (it is ms behind). */
static void await_late_signal(const struct stage_exec_result *r)
{
    if (stopsig_received() || !stage_in_slurm() ||
        !(r->term_signal == SIGTERM || r->exit_code == 128 + SIGTERM))
        return;
    for (int i = 0; i < 100 && !stopsig_received(); i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
}

static void fill_result(struct stage_exec_result *r, int st, double t0)
{
    r->wall_s = now_s() - t0;
    if (WIFEXITED(st)) {
        r->exit_code = WEXITSTATUS(st);
    } else {
        r->term_signal = WTERMSIG(st);
        r->exit_code = 128 + r->term_signal;
    }
    await_late_signal(r);
    r->forwarded_signal = stopsig_received();
    if (r->forwarded_signal) {
        r->reason = stage_stop_reason(r->forwarded_signal);
        if (r->killed_after_s >= 0) {
            char *why = r->reason;
            r->reason = xasprintf("%s; SIGKILL after %g s", why, r->killed_after_s);
            free(why);
        }
    } else if (r->term_signal)
        r->reason = xasprintf("killed by signal %d (%s)", r->term_signal, strsignal(r->term_signal));
}

static void on_chld(int sig)
{
    (void)sig;      /* only ends sigsuspend */
}

/* Until pid exits or a stop signal is recorded: sigsuspend with SIGCHLD and
 * the stop signals blocked in between, so neither can slip past the check.
 * True when pid was reaped. */
static bool wait_exit_or_signal(pid_t pid, int *st)
{
    struct sigaction sa, old_chld;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_chld;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old_chld);
    sigset_t block, orig;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &orig);
    pid_t w;
    while ((w = waitpid(pid, st, WNOHANG)) == 0 && !stopsig_received())
        sigsuspend(&orig);
    sigprocmask(SIG_SETMASK, &orig, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    return w == pid || (w < 0 && errno == ECHILD);
}

/* Waits for pid; once a stop signal has been received, at most the grace
 * period from its arrival, then SIGKILLs the group. */
static void wait_child(pid_t pid, int *st, struct stage_exec_result *r)
{
    if (wait_exit_or_signal(pid, st))
        return;
    double deadline = stopsig_received_at() + g_kill_wait;
    for (;;) {
        pid_t w = waitpid(pid, st, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return;
        if (now_s() >= deadline)
            break;
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);
    r->killed_after_s = g_kill_wait;
    while (waitpid(pid, st, 0) < 0 && errno == EINTR)
        ;
}

/* A stop signal arrived before the command could start: it is not started. */
static int not_started(struct stage_exec_result *r, int sig)
{
    r->started = false;
    r->exit_code = -1;
    r->forwarded_signal = sig;
    char *why = stage_stop_reason(sig);
    r->reason = xasprintf("%s (before the command started)", why);
    free(why);
    return 0;
}

int stage_exec(const struct strv *argv, const char *log_path, struct stage_exec_result *r)
{
    memset(r, 0, sizeof(*r));
    r->killed_after_s = -1;
    stopsig_install();
    if (stopsig_received())
        return not_started(r, stopsig_received());
    int logfd = -1;
    if (log_path) {
        logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (logfd < 0)
            return br_error("cannot open '%s': %s", log_path, strerror(errno));
    }
    fflush(NULL);
    double t0 = now_s();
    pid_t pid = stopsig_fork();
    if (pid == 0)
        child(argv, logfd);
    if (logfd >= 0)
        close(logfd);
    if (pid < 0) {
        int e = errno;
        stopsig_fork_done(0);
        return br_error("cannot start '%s': %s", argv->v[0], strerror(e));
    }
    setpgid(pid, pid);              /* also here: the group exists before any kill */
    stopsig_fork_done(pid);
    r->started = true;
    if (stopsig_received())         /* arrived before the fork: the child has defaults now */
        kill(-pid, stopsig_received());
    int st = 0;
    wait_child(pid, &st, r);
    stopsig_forward_to(0);          /* the handler stays: see the top of the file */
    fill_result(r, st, t0);
    return 0;
}

const char *stage_run_status(const struct stage_exec_result *r)
{
    if (r->forwarded_signal || r->term_signal)
        return "killed";
    return r->exit_code == 0 && !r->reason ? "ok" : "failed";
}

void stage_exec_result_release(struct stage_exec_result *r)
{
    free(r->reason);
    r->reason = NULL;
}
