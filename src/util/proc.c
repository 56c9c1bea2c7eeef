/* proc.c - run a helper command, capturing stdout and stderr (poll on two
 * pipes, so neither can fill up and block the child). */
#include "util/proc.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_exec(const char *const *argv, int pout[2], int perr[2])
{
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    dup2(pout[1], STDOUT_FILENO);
    dup2(perr[1], STDERR_FILENO);
    close(pout[0]); close(pout[1]);
    close(perr[0]); close(perr[1]);
    signal(SIGPIPE, SIG_DFL);
    execvp(argv[0], (char *const *)argv);
    _exit(127);
}

/* Reads both pipes until both reach end of file. */
static void drain(int fd_out, int fd_err, struct strbuf *out, struct strbuf *err)
{
    struct pollfd p[2] = { { .fd = fd_out, .events = POLLIN }, { .fd = fd_err, .events = POLLIN } };
    struct strbuf *dst[2] = { out, err };
    int open_fds = 2;
    char buf[8192];
    while (open_fds > 0) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(p[i].fd, buf, sizeof(buf));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                open_fds--;
            } else if (dst[i]) {
                sb_add(dst[i], buf, (size_t)n);
            }
        }
    }
}

int proc_capture(const char *const *argv, struct strbuf *out, struct strbuf *err, int *status)
{
    int pout[2], perr[2];
    if (pipe2(pout, O_CLOEXEC) != 0)
        return br_error("cannot create a pipe: %s", strerror(errno));
    if (pipe2(perr, O_CLOEXEC) != 0) {
        close(pout[0]); close(pout[1]);
        return br_error("cannot create a pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pout[0]); close(pout[1]); close(perr[0]); close(perr[1]);
        return br_error("cannot start '%s': %s", argv[0], strerror(e));
    }
    if (pid == 0)
        child_exec(argv, pout, perr);
    close(pout[1]);
    close(perr[1]);
    drain(pout[0], perr[0], out, err);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return 0;
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
