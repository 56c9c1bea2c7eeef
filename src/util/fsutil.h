/* fsutil.h - file-system helpers: paths, whole-file I/O, atomic writes.
 *
 * Every function reports its own error through br_error (naming the path and
 * strerror) and returns -1/NULL, so callers only propagate.
 */
#ifndef BR_FSUTIL_H
#define BR_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "util/strv.h"

/* mkdir -p; mode 0755. */
int fs_mkdir_p(const char *path);
bool fs_exists(const char *path);
bool fs_is_dir(const char *path);

/* Opens an input file for reading: only a regular file (following links) is
 * accepted, so /dev/zero (endless) or a FIFO (open and read block forever)
 * are refused at once. Returns the fd, or -1 with *why (allocated) saying
 * "not a regular file (a FIFO)" or strerror. */
int fs_open_read(const char *path, char **why);

/* Reads a whole regular file into a NUL-terminated buffer (binary safe: *len
 * set). */
char *fs_read_file(const char *path, size_t *len);
/* json_load_file for inputs: only a regular file is read (a FIFO named
 * run.json must not block analyze); NULL with je->text set otherwise
 * ("not a regular file (a FIFO)"), nothing printed; je may be NULL. */
json_t *fs_read_json(const char *path, size_t flags, json_error_t *je);

/* Writes data to path atomically: path.tmp.<pid>, fsync, rename. */
int fs_write_atomic(const char *path, const void *data, size_t len);

/* Atomic writer for streamed output: fs_atomic_open gives a FILE* on a
 * temporary name; fs_atomic_commit flushes, fsyncs, closes and renames it;
 * fs_atomic_abort closes and removes the temporary. The stream remembers
 * the errno of its first failed write (ENOSPC on a full disk), so every
 * "cannot write" message says why, however much was buffered in between.
 * fs_atomic_commit = fs_atomic_sync + fs_atomic_rename, for writers that
 * commit several files together (run_info.txt + run.json). */
struct fs_wstate;    /* fd and first write errno (fsutil.c) */
struct fs_atomic {
    FILE *fp;
    char *path;
    char *tmp;
    struct fs_wstate *ws;
};
int fs_atomic_open(struct fs_atomic *a, const char *path);
int fs_atomic_commit(struct fs_atomic *a);
void fs_atomic_abort(struct fs_atomic *a);
/* Flush, fsync and close the temporary (removed on error). */
int fs_atomic_sync(struct fs_atomic *a);
/* Rename the synced temporary to its final name. */
int fs_atomic_rename(struct fs_atomic *a);
/* Prints "cannot write '<path>': <reason>" and aborts; returns -1. */
int fs_atomic_fail(struct fs_atomic *a);

/* Next line of fp into buf, without its line end (LF, CRLF): at most cap-1
 * bytes are kept (NUL-terminated), the rest of a longer line is read and
 * dropped, so memory stays bounded whatever the input (a 1 GB line). Returns
 * the kept length, or -1 at end of file or on a read error (ferror(fp)).
 * *cut (may be NULL) says whether the line was longer. */
long fs_read_line_bounded(FILE *fp, char *buf, size_t cap, bool *cut);

/* Puts the folder `fresh` in place of `dir` in one step: rename(2) when dir
 * does not exist, else an atomic exchange (renameat2 RENAME_EXCHANGE, Linux
 * 3.15+) after which the old folder, now named fresh, is removed with
 * fs_remove_flat_dir. On a file system that cannot exchange (EINVAL, e.g.
 * some network file systems) dir is renamed to <dir>.old.<pid> first, so a
 * kill between the two renames leaves both folders whole but neither at
 * dir. 0 or -1 (printed). */
int fs_replace_dir(const char *fresh, const char *dir);
/* Removes a folder and the files in it; a subfolder in it is an error
 * (nothing benchrun writes this way has one). 0 or -1 (printed). */
int fs_remove_flat_dir(const char *dir);

/* Copies a file (used for the conf copy in run folders). */
int fs_copy_file(const char *src, const char *dst);

/* Whether the string s (a file name or path) ends with suffix. */
bool fs_ends_with(const char *s, const char *suffix);
/* Files in dir whose names end with suffix (sorted); appended to out as
 * full paths. Returns how many, -1 when dir cannot be read. */
int fs_list_suffix(const char *dir, const char *suffix, struct strv *out);
/* a + "/" + b, with a single separator. */
char *fs_path_join(const char *a, const char *b);
/* Absolute form of path (realpath when it exists, else cwd-joined). */
char *fs_abspath(const char *path);
/* Directory holding the running executable (/proc/self/exe). */
char *fs_self_dir(void);
/* Absolute path of the running executable. */
char *fs_self_exe(void);

/* share/benchrun folder: $BENCHRUN_SHARE, else <exe dir>/../share/benchrun,
 * else <exe dir>/share/benchrun (the build tree). NULL with an error if none. */
char *fs_share_dir(void);
/* A file under the share folder (e.g. "arch/gfx942.json"). */
char *fs_share_path(const char *rel);

#endif
