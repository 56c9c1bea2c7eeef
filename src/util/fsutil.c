/* fsutil.c - paths, whole-file reads and atomic (temp + rename) writes. */
#include "util/fsutil.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fs_mkdir_p(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            br_error("cannot create directory '%s': %s", p, strerror(e));
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        rc = br_error("cannot create directory '%s': %s", p, strerror(errno));
    else if (!fs_is_dir(p))
        rc = br_error("cannot create directory '%s': a file of that name exists", p);
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

char *fs_read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        br_error("cannot open '%s': %s", path, strerror(errno));
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

int fs_atomic_open(struct fs_atomic *a, const char *path)
{
    a->path = xstrdup(path);
    a->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    a->fp = fopen(a->tmp, "wb");
    if (!a->fp) {
        br_error("cannot create '%s': %s", a->tmp, strerror(errno));
        free(a->path);
        free(a->tmp);
        a->path = a->tmp = NULL;
        return -1;
    }
    return 0;
}

int fs_atomic_commit(struct fs_atomic *a)
{
    int rc = 0;
    if (fflush(a->fp) != 0 || ferror(a->fp))
        rc = br_error("cannot write '%s': %s", a->tmp, strerror(errno));
    else if (fsync(fileno(a->fp)) != 0 && errno != EINVAL)
        rc = br_error("cannot sync '%s': %s", a->tmp, strerror(errno));
    if (fclose(a->fp) != 0 && rc == 0)
        rc = br_error("cannot close '%s': %s", a->tmp, strerror(errno));
    if (rc == 0 && rename(a->tmp, a->path) != 0)
        rc = br_error("cannot rename '%s' to '%s': %s", a->tmp, a->path, strerror(errno));
    if (rc != 0)
        unlink(a->tmp);
    free(a->path);
    free(a->tmp);
    a->fp = NULL;
    a->path = a->tmp = NULL;
    return rc;
}

void fs_atomic_abort(struct fs_atomic *a)
{
    if (a->fp)
        fclose(a->fp);
    if (a->tmp)
        unlink(a->tmp);
    free(a->path);
    free(a->tmp);
    a->fp = NULL;
    a->path = a->tmp = NULL;
}

int fs_write_atomic(const char *path, const void *data, size_t len)
{
    struct fs_atomic a;
    if (fs_atomic_open(&a, path) != 0)
        return -1;
    if (len && fwrite(data, 1, len, a.fp) != len) {
        br_error("cannot write '%s': %s", a.tmp, strerror(errno));
        fs_atomic_abort(&a);
        return -1;
    }
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
