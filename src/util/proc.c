/* proc.c - run a helper command, capturing stdout and stderr (poll on two
 * pipes, so neither can fill up and block the child); the limited form also
 * bounds its time and cleans up its process group. */
#include "util/proc.h"
#include "util/error.h"
#include "util/stopsig.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void child_exec(const char *const *argv, int pout[2], int perr[2], bool own_group)
{
    if (own_group)
        setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    dup2(pout[1], STDOUT_FILENO);
    dup2(perr[1], STDERR_FILENO);
    close(pout[0]); close(pout[1]);
    close(perr[0]); close(perr[1]);
    execvp(argv[0], (char *const *)argv);
    _exit(127);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct capture {
    struct pollfd p[2];
    struct strbuf *dst[2];
    int open_fds;
};

/* One poll round of at most wait_ms; reads what is there. Returns how many
 * reads it did (data or end of file). */
static int drain_once(struct capture *c, int wait_ms)
{
    char buf[8192];
    int done = 0;
    if (poll(c->p, 2, wait_ms) <= 0)
        return 0;
    for (int i = 0; i < 2; i++) {
        if (c->p[i].fd < 0 || !(c->p[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = read(c->p[i].fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        done++;
        if (n <= 0) {
            close(c->p[i].fd);
            c->p[i].fd = -1;
            c->open_fds--;
        } else if (c->dst[i]) {
            sb_add(c->dst[i], buf, (size_t)n);
        }
    }
    return done;
}

/* Why the group must be killed now, or false to keep reading. */
static bool must_kill(struct capture *c, pid_t pid, double deadline, int *st, bool *reaped,
                      struct proc_end *how)
{
    if ((how->stop_signal = stopsig_received()) != 0)
        return true;
    if (mono_s() >= deadline)
        return how->timed_out = true;
    if (!*reaped && waitpid(pid, st, WNOHANG) == pid)
        *reaped = true;
    if (!*reaped)
        return false;
    while (c->open_fds > 0 && drain_once(c, 0) > 0)
        ;                               /* what it wrote before it exited */
    return how->left_children = c->open_fds > 0;    /* a background job holds the pipes */
}

/* Reads both pipes until both reach end of file. timeout_s <= 0: no limit,
 * and the command's group is left alone (plain proc_capture). */
static void drain(struct capture *c, pid_t pid, double timeout_s, int *st, bool *reaped,
                  struct proc_end *how)
{
    double deadline = mono_s() + timeout_s, killed_at = 0;
    bool killed = false;
    /* limited: also until it exits (it may close its output and go on) */
    while (c->open_fds > 0 || (timeout_s > 0 && !*reaped && !killed)) {
        drain_once(c, timeout_s > 0 ? 50 : -1);
        if (timeout_s > 0 && !killed && must_kill(c, pid, deadline, st, reaped, how)) {
            kill(-pid, SIGKILL);
            killed = true;
            killed_at = mono_s();
        }
        if (killed && mono_s() > killed_at + 2)
            break;      /* a process that left the group (setsid) still holds a pipe */
    }
    for (int i = 0; i < 2; i++)
        if (c->p[i].fd >= 0)
            close(c->p[i].fd);
}

static int capture_run(const char *const *argv, double timeout_s, struct strbuf *out,
                       struct strbuf *err, int *status, struct proc_end *how)
{
    int pout[2], perr[2];
    memset(how, 0, sizeof(*how));
    if (pipe2(pout, O_CLOEXEC) != 0)
        return br_error("cannot create a pipe: %s", strerror(errno));
    if (pipe2(perr, O_CLOEXEC) != 0) {
        close(pout[0]); close(pout[1]);
        return br_error("cannot create a pipe: %s", strerror(errno));
    }
    bool own_group = timeout_s > 0;
    pid_t pid = stopsig_fork();
    if (pid < 0) {
        int e = errno;
        stopsig_fork_done(0);
        close(pout[0]); close(pout[1]); close(perr[0]); close(perr[1]);
        return br_error("cannot start '%s': %s", argv[0], strerror(e));
    }
    if (pid == 0)
        child_exec(argv, pout, perr, own_group);
    if (own_group)
        setpgid(pid, pid);
    stopsig_fork_done(0);
    close(pout[1]);
    close(perr[1]);
    struct capture c = { .p = { { .fd = pout[0], .events = POLLIN }, { .fd = perr[0], .events = POLLIN } },
                         .dst = { out, err }, .open_fds = 2 };
    int st = 0;
    bool reaped = false;
    drain(&c, pid, timeout_s, &st, &reaped, how);
    while (!reaped && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return 0;
}

int proc_capture(const char *const *argv, struct strbuf *out, struct strbuf *err, int *status)
{
    struct proc_end how;
    return capture_run(argv, 0, out, err, status, &how);
}

int proc_capture_limited(const char *const *argv, double timeout_s, struct strbuf *out,
                         struct strbuf *err, int *status, struct proc_end *how)
{
    return capture_run(argv, timeout_s > 0 ? timeout_s : 1e9, out, err, status, how);
}

static int is_exec_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

int proc_which(const char *name, char **where)
{
    if (strchr(name, '/')) {
        if (!is_exec_file(name))
            return 0;
        if (where)
            *where = xstrdup(name);
        return 1;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = xstrdup(path), *save = NULL;
    int found = 0;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *cand = xasprintf("%s/%s", *dir ? dir : ".", name);
        if (is_exec_file(cand)) {
            found = 1;
            if (where)
                *where = cand;
            else
                free(cand);
        } else {
            free(cand);
        }
    }
    free(copy);
    return found;
}
