/* stopsig.c - record-and-forward handler for the stop signals, and a fork
 * that cannot lose them (contract and reasons in stopsig.h). The handler
 * uses only async-signal-safe calls (kill, clock_gettime: POSIX.1-2017
 * 2.4.3). */
#include "util/stopsig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const int k_stop[] = { SIGTERM, SIGINT, SIGHUP };
#define N_STOP (sizeof(k_stop) / sizeof(k_stop[0]))
/* Blocked across fork: the stop signals, SIGQUIT (the sampler forwards it
 * too) and SIGCHLD (its handler must not run in the child either). */
static const int k_fork[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD };
#define N_FORK (sizeof(k_fork) / sizeof(k_fork[0]))

static volatile sig_atomic_t g_signal;
static volatile sig_atomic_t g_target;
static volatile sig_atomic_t g_installed;
static struct timespec g_at;
static sigset_t g_saved_mask;

static void on_stop(int sig)
{
    if (!g_signal) {
        clock_gettime(CLOCK_MONOTONIC, &g_at);
        g_signal = sig;
    }
    if (g_target > 0)
        kill(-(pid_t)g_target, sig);
}

void stopsig_install(void)
{
    if (g_installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;    /* no SA_RESTART: waitpid and poll must wake */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_STOP; i++)
        sigaction(k_stop[i], &sa, NULL);
    g_installed = 1;
}

bool stopsig_installed(void)
{
    return g_installed != 0;
}

static struct sigaction g_pushed[N_STOP];
static bool g_is_pushed;

void stopsig_push(void)
{
    if (g_installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_STOP; i++)
        sigaction(k_stop[i], &sa, &g_pushed[i]);
    g_is_pushed = true;
    g_signal = 0;
}

void stopsig_pop(void)
{
    if (!g_is_pushed)
        return;
    g_is_pushed = false;
    for (size_t i = 0; i < N_STOP; i++)
        sigaction(k_stop[i], &g_pushed[i], NULL);
    int sig = g_signal;
    g_signal = 0;
    if (sig)
        raise(sig);         /* the previous disposition decides, as without us */
}

int stopsig_received(void)
{
    return g_signal;
}

double stopsig_received_at(void)
{
    if (!g_signal)
        return NAN;
    return (double)g_at.tv_sec + (double)g_at.tv_nsec * 1e-9;
}

const char *stopsig_name(int sig)
{
    static char buf[32];
    switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGKILL: return "SIGKILL";
    case SIGQUIT: return "SIGQUIT";
    default:
        snprintf(buf, sizeof(buf), "signal %d", sig);
        return buf;
    }
}

void stopsig_forward_to(pid_t pgid)
{
    g_target = pgid;
}

static void fork_set(sigset_t *s)
{
    sigemptyset(s);
    for (size_t i = 0; i < N_FORK; i++)
        sigaddset(s, k_fork[i]);
}

pid_t stopsig_fork(void)
{
    sigset_t block;
    fork_set(&block);
    sigprocmask(SIG_BLOCK, &block, &g_saved_mask);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* Child: nothing of the parent's handling may survive here. */
    g_target = 0;
    for (size_t i = 0; i < N_FORK; i++)
        signal(k_fork[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &g_saved_mask, NULL);
    return 0;
}

void stopsig_fork_done(pid_t child_pgid)
{
    if (child_pgid > 0)
        g_target = child_pgid;
    sigprocmask(SIG_SETMASK, &g_saved_mask, NULL);
}
