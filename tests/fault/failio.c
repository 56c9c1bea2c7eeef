/* failio.c - LD_PRELOAD fault injection for the fault tests (tests/cli/0330,
 * 0614): writes to files whose path contains $BR_FAULT_PATH fail or stall.
 *
 *   BR_FAULT=enospc   write(2) to such a file fails with ENOSPC (a full disk)
 *                     once $BR_FAULT_AFTER bytes (default 0) were written to it
 *   BR_FAULT=sleep:MS opening such a file first sleeps MS ms (a window in
 *                     which a test can SIGKILL the process mid-output)
 *
 * Only open/open64/openat/openat64 and write are wrapped (benchrun's atomic
 * writer, its stdio streams and the sampler all end in write(2)); other
 * processes that inherit LD_PRELOAD are untouched unless they open a matching
 * path. Test code only: never linked into benchrun. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD 4096

static long long g_written[MAX_FD];   /* bytes written per faulty fd, -1: not faulty */
static int g_init;

static void init(void)
{
    if (g_init)
        return;
    for (int i = 0; i < MAX_FD; i++)
        g_written[i] = -1;
    g_init = 1;
}

static int matches(const char *path)
{
    const char *pat = getenv("BR_FAULT_PATH");
    return path && pat && *pat && strstr(path, pat);
}

static void on_open(const char *path, int fd)
{
    init();
    if (fd < 0 || fd >= MAX_FD)
        return;
    g_written[fd] = -1;
    if (!matches(path))
        return;
    const char *mode = getenv("BR_FAULT");
    if (mode && !strncmp(mode, "sleep:", 6)) {
        long ms = atol(mode + 6);
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
    } else {
        g_written[fd] = 0;
    }
}

#define WRAP_OPEN(name, ...)                                                   \
    int name(__VA_ARGS__, int flags, ...)                                      \
    {                                                                          \
        mode_t mode = 0;                                                       \
        if (flags & (O_CREAT | O_TMPFILE)) {                                   \
            va_list ap;                                                        \
            va_start(ap, flags);                                               \
            mode = va_arg(ap, mode_t);                                         \
            va_end(ap);                                                        \
        }

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef ssize_t (*write_fn)(int, const void *, size_t);

WRAP_OPEN(open, const char *path)
    static open_fn real;
    if (!real)
        real = (open_fn)dlsym(RTLD_NEXT, "open");
    int fd = real(path, flags, mode);
    on_open(path, fd);
    return fd;
}

WRAP_OPEN(open64, const char *path)
    static open_fn real;
    if (!real)
        real = (open_fn)dlsym(RTLD_NEXT, "open64");
    int fd = real(path, flags, mode);
    on_open(path, fd);
    return fd;
}

WRAP_OPEN(openat, int dir, const char *path)
    static openat_fn real;
    if (!real)
        real = (openat_fn)dlsym(RTLD_NEXT, "openat");
    int fd = real(dir, path, flags, mode);
    on_open(path, fd);
    return fd;
}

WRAP_OPEN(openat64, int dir, const char *path)
    static openat_fn real;
    if (!real)
        real = (openat_fn)dlsym(RTLD_NEXT, "openat64");
    int fd = real(dir, path, flags, mode);
    on_open(path, fd);
    return fd;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static write_fn real;
    if (!real)
        real = (write_fn)dlsym(RTLD_NEXT, "write");
    init();
    if (fd >= 0 && fd < MAX_FD && g_written[fd] >= 0) {
        long long after = getenv("BR_FAULT_AFTER") ? atoll(getenv("BR_FAULT_AFTER")) : 0;
        if (g_written[fd] + (long long)n > after) {
            errno = ENOSPC;
            return -1;
        }
        g_written[fd] += (long long)n;
    }
    return real(fd, buf, n);
}
