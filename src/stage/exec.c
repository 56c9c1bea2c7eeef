/* exec.c - run a stage's command: own process group, output to a log file,
 * SIGTERM/SIGINT/SIGHUP forwarded to the group, exit status and wall time.
 *
 * Slurm sends SIGTERM to the job step at the time limit (and on scancel),
 * then SIGKILL KillWait seconds later (slurm.conf KillWait, default 30 s), so
 * benchrun has that long to record "time limit" in run_info.
 *
 * Slurm signals the app's srun step a few ms BEFORE the batch step that runs
 * benchrun (measured with slurm-wlm 22.05, tests/slurm/0050): the app can end
 * before benchrun's own SIGTERM arrives. So once installed, the handlers stay
 * for the life of the process (with no app running they only record the
 * signal: a late SIGTERM must not kill benchrun while it writes run_info), a
 * recorded signal stays pending (a later br_stage_exec stops its app at once),
 * and an app that died of SIGTERM inside Slurm waits up to 1 s for benchrun's
 * own signal before the reason is decided (h7, issue 4).
 */
#include "stage/stage.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t g_child_pgid;
static volatile sig_atomic_t g_got_signal;

static void forward(int sig)
{
    if (!g_got_signal)
        g_got_signal = sig;
    if (g_child_pgid > 0)
        kill(-(pid_t)g_child_pgid, sig);
}

static const int k_forwarded[] = { SIGTERM, SIGINT, SIGHUP };
#define N_FORWARDED (sizeof(k_forwarded) / sizeof(k_forwarded[0]))

static void install(struct sigaction old[N_FORWARDED])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_FORWARDED; i++)
        sigaction(k_forwarded[i], &sa, &old[i]);
}


static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* In the child: own group, log file, stdin, default signals, exec. */
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
    for (size_t i = 0; i < N_FORWARDED; i++)
        signal(k_forwarded[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    execvp(argv->v[0], argv->v);
    fprintf(stderr, "benchrun: cannot run '%s': %s\n", argv->v[0], strerror(errno));
    _exit(127);
}

static char *reason_for(int sig)
{
    if (sig == SIGTERM && br_in_slurm())
        return xstrdup("time limit");
    return xasprintf("%s received", sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGHUP");
}

/* The app died of SIGTERM (or srun reported 143) inside Slurm before our own
 * signal arrived: give it up to 1 s to arrive (it is ms behind). */
static void await_late_signal(const struct br_exec_result *r)
{
    if (g_got_signal || !br_in_slurm() ||
        !(r->term_signal == SIGTERM || r->exit_code == 128 + SIGTERM))
        return;
    for (int i = 0; i < 100 && !g_got_signal; i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
}

static void fill_result(struct br_exec_result *r, int st, double t0)
{
    r->wall_s = now_s() - t0;
    if (WIFEXITED(st)) {
        r->exit_code = WEXITSTATUS(st);
    } else {
        r->term_signal = WTERMSIG(st);
        r->exit_code = 128 + r->term_signal;
    }
    await_late_signal(r);
    r->forwarded_signal = g_got_signal;
    if (g_got_signal)
        r->reason = reason_for(g_got_signal);
    else if (r->term_signal)
        r->reason = xasprintf("killed by signal %d (%s)", r->term_signal, strsignal(r->term_signal));
}

int br_stage_exec(const struct strv *argv, const char *log_path, struct br_exec_result *r)
{
    memset(r, 0, sizeof(*r));
    int logfd = -1;
    if (log_path) {
        logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (logfd < 0)
            return br_error("cannot open '%s': %s", log_path, strerror(errno));
    }
    fflush(NULL);
    static bool installed;
    static struct sigaction old[N_FORWARDED];
    g_child_pgid = 0;
    if (!installed)
        install(old);
    installed = true;
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0)
        child(argv, logfd);
    if (logfd >= 0)
        close(logfd);
    if (pid < 0) {
        int e = errno;
        return br_error("cannot start '%s': %s", argv->v[0], strerror(e));
    }
    setpgid(pid, pid);              /* also here: no race with an early signal */
    g_child_pgid = pid;
    if (g_got_signal)               /* arrived between install and now */
        kill(-pid, g_got_signal);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    g_child_pgid = 0;               /* handlers stay: see the top of the file */
    fill_result(r, st, t0);
    return 0;
}

void br_exec_result_release(struct br_exec_result *r)
{
    free(r->reason);
    r->reason = NULL;
}
