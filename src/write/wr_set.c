/* wr_set.c - an output folder written as a set (contract in wr_set.h). */
#include "write/wr_set.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp_name(const char *out_dir, long pid)
{
    char *copy = xstrdup(out_dir), *slash = strrchr(copy, '/');
    const char *leaf = slash ? slash + 1 : copy;
    char *t = slash ? xasprintf("%.*s/.%s.tmp.%ld", (int)(slash - copy), copy, leaf, pid)
                    : xasprintf(".%s.tmp.%ld", leaf, pid);
    free(copy);
    return t;
}

/* Temporary folders of analyze runs that were killed (their pid is gone). */
static void remove_stale(const char *out_dir)
{
    char *probe = tmp_name(out_dir, 0), *slash = strrchr(probe, '/');
    char *dir = slash ? xstrndup(probe, (size_t)(slash - probe)) : xstrdup(".");
    const char *leaf = slash ? slash + 1 : probe;      /* ".<out>.tmp.0" */
    size_t stem = strlen(leaf) - 1;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *end;
        long pid = strncmp(e->d_name, leaf, stem) == 0 ? strtol(e->d_name + stem, &end, 10) : 0;
        if (pid > 0 && !*end && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            char *p = fs_path_join(dir, e->d_name);
            fs_remove_flat_dir(p);
            free(p);
        }
    }
    if (d)
        closedir(d);
    free(dir);
    free(probe);
}

/* The existing output folder may be replaced: one of cmd's sets (it has
 * marker), or empty. */
static int check_replaceable(const char *out_dir, const char *cmd, const char *kind,
                             const char *marker)
{
    DIR *d = opendir(out_dir);
    if (!d)
        return errno == ENOENT ? 0 : br_error("--out-dir '%s': %s", out_dir, strerror(errno));
    bool any = false, summary = false;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) && rc == 0) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        any = true;
        summary |= !strcmp(e->d_name, marker);
        char *p = fs_path_join(out_dir, e->d_name);
        if (fs_is_dir(p))
            rc = br_error("--out-dir '%s' holds a folder ('%s'): %s replaces the output "
                          "folder as a whole; choose a new one", out_dir, e->d_name, cmd);
        free(p);
    }
    closedir(d);
    if (rc == 0 && any && !summary)
        rc = br_error("--out-dir '%s' is not %s folder (it has files but no %s): %s "
                      "replaces the output folder as a whole; choose a new or empty one",
                      out_dir, kind, marker, cmd);
    return rc;
}

int wr_set_begin(const char *out_dir, char **tmp)
{
    return wr_set_begin_for(out_dir, "analyze", "an analysis", "summary.json", tmp);
}

int wr_set_begin_for(const char *out_dir, const char *cmd, const char *kind, const char *marker,
                     char **tmp)
{
    *tmp = NULL;
    if (check_replaceable(out_dir, cmd, kind, marker) < 0)
        return -1;
    remove_stale(out_dir);
    char *t = tmp_name(out_dir, (long)getpid());
    char *parent = xstrdup(t), *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    int rc = slash ? fs_mkdir_p(parent) : 0;
    free(parent);
    if (rc == 0 && mkdir(t, 0755) != 0)
        rc = br_error("cannot create folder '%s': %s", t, strerror(errno));
    if (rc != 0)
        free(t);
    else
        *tmp = t;
    return rc;
}

/* Files of the old folder that the new set does not have: linked into it. */
static int carry_over(const char *old, const char *fresh)
{
    DIR *d = opendir(old);
    if (!d)
        return 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) && rc == 0) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *from = fs_path_join(old, e->d_name), *to = fs_path_join(fresh, e->d_name);
        if (!fs_exists(to) && link(from, to) != 0)
            rc = br_error("cannot keep '%s' in the new analysis: %s", from, strerror(errno));
        free(from);
        free(to);
    }
    closedir(d);
    return rc;
}

int wr_set_commit(const char *out_dir, char **tmp)
{
    if (carry_over(out_dir, *tmp) < 0 || fs_replace_dir(*tmp, out_dir) < 0)
        return -1;
    free(*tmp);
    *tmp = NULL;
    return 0;
}

void wr_set_abort(char **tmp)
{
    if (*tmp)
        fs_remove_flat_dir(*tmp);
    free(*tmp);
    *tmp = NULL;
}

