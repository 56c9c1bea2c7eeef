/* fsutil.c - paths, whole-file reads and atomic (temp + rename) writes. */
#include "util/fsutil.h"
#include "util/error.h"
#include "util/strv.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why path (which mkdir found existing) is not a folder we can use. */
static int not_a_dir(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
        int e = errno;
        char target[4096];
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        if (e == ELOOP)
            return br_error("cannot create directory '%s': it is a symbolic link that loops "
                            "(-> '%s')", path, target);
        return br_error("cannot create directory '%s': it is a symbolic link to '%s', which "
                        "%s", path, target, e == ENOENT ? "does not exist" : strerror(e));
    }
    return br_error("cannot create directory '%s': a file of that name exists", path);
}

int fs_mkdir_p(const char *path)
{
    char *p = xstrdup(path);
    int rc = 0;
    for (char *s = p + 1; *s && rc == 0; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            rc = br_error("cannot create directory '%s': %s", p, strerror(errno));
        else if (!fs_is_dir(p))
            rc = not_a_dir(p);
        *s = '/';
    }
    if (rc == 0 && mkdir(p, 0755) != 0 && errno != EEXIST)
        rc = br_error("cannot create directory '%s': %s", p, strerror(errno));
    else if (rc == 0 && !fs_is_dir(p))
        rc = not_a_dir(p);
    free(p);
    return rc;
}

bool fs_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *file_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : "not a plain file";
}

int fs_open_read(const char *path, char **why)
{
    *why = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);   /* a FIFO must not block here */
    if (fd < 0) {
        *why = xstrdup(strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *why = xasprintf("not a regular file (%s)", fstat(fd, &st) == 0 ? file_kind(st.st_mode)
                                                                       : strerror(errno));
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

json_t *fs_read_json(const char *path, size_t flags, json_error_t *je)
{
    json_error_t local;
    if (!je)
        je = &local;
    char *why;
    int fd = fs_open_read(path, &why);
    if (fd < 0) {
        memset(je, 0, sizeof(*je));
        snprintf(je->text, sizeof(je->text), "%s", why);
        snprintf(je->source, sizeof(je->source), "%s", path);
        free(why);
        return NULL;
    }
    json_t *j = json_loadfd(fd, flags, je);
    close(fd);
    return j;
}

char *fs_read_file(const char *path, size_t *len)
{
    char *why;
    int fd = fs_open_read(path, &why);
    FILE *fp = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!fp) {
        br_error("cannot open '%s': %s", path, why ? why : strerror(errno));
        free(why);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0)
            break;
    }
    int err = ferror(fp);
    fclose(fp);
    if (err) {
        br_error("cannot read '%s': %s", path, strerror(EIO));
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

struct fs_wstate {
    int fd;
    int err;        /* first write errno, 0 if none */
};

/* The stream's write function: records the first errno for the message. */
static ssize_t atomic_write(void *cookie, const char *buf, size_t size)
{
    struct fs_wstate *a = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(a->fd, buf + done, size - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!a->err)
                a->err = w < 0 ? errno : EIO;
            break;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;   /* short: stdio sets the error indicator */
}

static int atomic_close(void *cookie)
{
    struct fs_wstate *a = cookie;
    int rc = close(a->fd);
    if (rc != 0 && !a->err)
        a->err = errno;
    a->fd = -1;
    return rc;
}

long fs_read_line_bounded(FILE *fp, char *buf, size_t cap, bool *cut)
{
    size_t n = 0;
    bool longer = false, any = false;
    int c;
    while ((c = getc_unlocked(fp)) != EOF) {
        any = true;
        if (c == '\n')
            break;
        if (n + 1 < cap)
            buf[n++] = (char)c;
        else
            longer = true;
    }
    if (!any)
        return -1;
    if (n > 0 && buf[n - 1] == '\r' && !longer)
        n--;
    buf[n] = '\0';
    if (cut)
        *cut = longer;
    return (long)n;
}

int fs_atomic_open(struct fs_atomic *a, const char *path)
{
    memset(a, 0, sizeof(*a));
    a->path = xstrdup(path);
    a->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    a->ws = xcalloc(1, sizeof(*a->ws));
    a->ws->fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    cookie_io_functions_t io = { .write = atomic_write, .close = atomic_close };
    a->fp = a->ws->fd >= 0 ? fopencookie(a->ws, "w", io) : NULL;
    if (!a->fp) {
        br_error("cannot create '%s': %s", a->tmp, strerror(errno));
        if (a->ws->fd >= 0) {
            close(a->ws->fd);
            unlink(a->tmp);
        }
        free(a->path);
        free(a->tmp);
        free(a->ws);
        memset(a, 0, sizeof(*a));
        return -1;
    }
    return 0;
}

static const char *write_reason(const struct fs_atomic *a, int e)
{
    int first = a->ws ? a->ws->err : 0;
    return strerror(first ? first : e ? e : EIO);
}

static void atomic_free(struct fs_atomic *a)
{
    free(a->path);
    free(a->tmp);
    free(a->ws);
    a->path = a->tmp = NULL;
    a->ws = NULL;
}

int fs_atomic_fail(struct fs_atomic *a)
{
    if (a->fp)
        fflush(a->fp);
    br_error("cannot write '%s': %s", a->path ? a->path : "?", write_reason(a, errno));
    fs_atomic_abort(a);
    return -1;
}

int fs_atomic_sync(struct fs_atomic *a)
{
    int rc = 0;
    if (fflush(a->fp) != 0 || ferror(a->fp) || a->ws->err)
        rc = br_error("cannot write '%s': %s", a->path, write_reason(a, errno));
    else if (fsync(a->ws->fd) != 0 && errno != EINVAL)
        rc = br_error("cannot sync '%s': %s", a->path, strerror(errno));
    int ce = fclose(a->fp) != 0 ? errno : 0;
    a->fp = NULL;
    if (ce && rc == 0)
        rc = br_error("cannot close '%s': %s", a->path, write_reason(a, ce));
    if (rc != 0) {
        unlink(a->tmp);
        atomic_free(a);
    }
    return rc;
}

int fs_atomic_rename(struct fs_atomic *a)
{
    int rc = 0;
    if (rename(a->tmp, a->path) != 0) {
        rc = br_error("cannot rename '%s' to '%s': %s", a->tmp, a->path, strerror(errno));
        unlink(a->tmp);
    }
    atomic_free(a);
    return rc;
}

int fs_atomic_commit(struct fs_atomic *a)
{
    if (fs_atomic_sync(a) != 0)
        return -1;
    return fs_atomic_rename(a);
}

void fs_atomic_abort(struct fs_atomic *a)
{
    if (a->fp)
        fclose(a->fp);
    if (a->tmp)
        unlink(a->tmp);
    a->fp = NULL;
    atomic_free(a);
}

int fs_remove_flat_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : br_error("cannot open folder '%s': %s", dir, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) && rc == 0) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = fs_path_join(dir, e->d_name);
        if (unlink(p) != 0)
            rc = br_error("cannot remove '%s': %s", p, strerror(errno));
        free(p);
    }
    closedir(d);
    if (rc == 0 && rmdir(dir) != 0)
        rc = br_error("cannot remove folder '%s': %s", dir, strerror(errno));
    return rc;
}

int fs_replace_dir(const char *fresh, const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0 && errno == ENOENT) {
        if (rename(fresh, dir) == 0)
            return 0;
        return br_error("cannot rename '%s' to '%s': %s", fresh, dir, strerror(errno));
    }
    if (renameat2(AT_FDCWD, fresh, AT_FDCWD, dir, RENAME_EXCHANGE) == 0)
        return fs_remove_flat_dir(fresh);          /* the old folder, now at fresh */
    if (errno != EINVAL && errno != ENOSYS)
        return br_error("cannot exchange '%s' and '%s': %s", fresh, dir, strerror(errno));
    char *old = xasprintf("%s.old.%ld", dir, (long)getpid());
    int rc = 0;
    if (rename(dir, old) != 0)
        rc = br_error("cannot rename '%s' to '%s': %s", dir, old, strerror(errno));
    else if (rename(fresh, dir) != 0) {
        rc = br_error("cannot rename '%s' to '%s': %s", fresh, dir, strerror(errno));
        rename(old, dir);       /* the old folder back in place */
    } else
        rc = fs_remove_flat_dir(old);
    free(old);
    return rc;
}

int fs_write_atomic(const char *path, const void *data, size_t len)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) != 0)
        return -1;
    if (len && fwrite(data, 1, len, a.fp) != len)
        return fs_atomic_fail(&a);
    return fs_atomic_commit(&a);
}

int fs_copy_file(const char *src, const char *dst)
{
    size_t len;
    char *data = fs_read_file(src, &len);
    if (!data)
        return -1;
    int rc = fs_write_atomic(dst, data, len);
    free(data);
    return rc;
}

char *fs_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    if (la == 1 && a[0] == '/')
        return xasprintf("/%s", b);
    return xasprintf("%.*s/%s", (int)la, a, b);
}

char *fs_abspath(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    if (path[0] == '/')
        return xstrdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return xstrdup(path);
    return fs_path_join(cwd, path);
}

char *fs_self_exe(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return xstrdup(buf);
}

char *fs_self_dir(void)
{
    char *exe = fs_self_exe();
    if (!exe)
        return NULL;
    char *slash = strrchr(exe, '/');
    if (slash && slash != exe)
        *slash = '\0';
    return exe;
}

char *fs_share_dir(void)
{
    const char *env = getenv("BENCHRUN_SHARE");
    if (env && *env) {
        if (fs_is_dir(env))
            return xstrdup(env);
        br_error("BENCHRUN_SHARE='%s' is not a directory", env);
        return NULL;
    }
    char *dir = fs_self_dir();
    if (!dir) {
        br_error("cannot find the benchrun executable (/proc/self/exe)");
        return NULL;
    }
    const char *cands[] = { "../share/benchrun", "share/benchrun" };
    for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
        char *p = fs_path_join(dir, cands[i]);
        if (fs_is_dir(p)) {
            char *r = fs_abspath(p);
            free(p);
            free(dir);
            return r;
        }
        free(p);
    }
    br_error("cannot find share/benchrun next to '%s' (set BENCHRUN_SHARE)", dir);
    free(dir);
    return NULL;
}

char *fs_share_path(const char *rel)
{
    char *dir = fs_share_dir();
    if (!dir)
        return NULL;
    char *p = fs_path_join(dir, rel);
    free(dir);
    return p;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bool fs_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int fs_list_suffix(const char *dir, const char *suffix, struct strv *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct strv found;
    strv_init(&found);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (fs_ends_with(e->d_name, suffix))
            strv_pushf(&found, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(found.v, found.n, sizeof(*found.v), cmp_str);
    strv_extend(out, &found);
    int n = (int)found.n;
    strv_release(&found);
    return n;
}
