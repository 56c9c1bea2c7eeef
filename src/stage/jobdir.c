/* jobdir.c - job id and run folders: RESULTS_DIR/<kind>-<jobid>, never reused.
 * Job id: $SLURM_JOB_ID inside Slurm, else local-<UTC timestamp>-<pid>. */
#include "stage/jobdir.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *stage_job_id(void)
{
    const char *j = getenv("SLURM_JOB_ID");
    if (j && *j && !strchr(j, '/'))
        return xstrdup(j);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char ts[32];
    strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
    return xasprintf("local-%s-%ld", ts, (long)getpid());
}

bool stage_in_slurm(void)
{
    const char *j = getenv("SLURM_JOB_ID");
    return j && *j;
}

char *stage_run_dir_name(const char *results_dir, const char *kind, const char *jobid)
{
    char *leaf = xasprintf("%s-%s", kind, jobid);
    char *p = fs_path_join(results_dir, leaf);
    free(leaf);
    return p;
}

/* <base>, <base>.2, <base>.3, ...: the n-th candidate (n >= 1). */
static char *candidate(const char *base, int n)
{
    return n == 1 ? xstrdup(base) : xasprintf("%s.%d", base, n);
}

char *stage_run_dir_free_name(const char *results_dir, const char *kind, const char *jobid)
{
    char *base = stage_run_dir_name(results_dir, kind, jobid);
    for (int n = 1; n < 10000; n++) {
        char *cand = candidate(base, n);
        struct stat st;
        if (lstat(cand, &st) != 0) {
            free(base);
            return cand;
        }
        free(cand);
    }
    return base;    /* stage_run_dir_create says why it cannot be used */
}

int stage_run_dir_create_at(const char *results_dir, const char *path)
{
    if (fs_mkdir_p(results_dir) != 0)
        return -1;
    if (mkdir(path, 0755) == 0)
        return 0;
    if (errno == EEXIST)
        return 1;
    return br_error("cannot create run folder '%s': %s", path, strerror(errno));
}

int stage_run_dir_create(const char *results_dir, const char *kind, const char *jobid, char **out)
{
    *out = NULL;
    char *base = stage_run_dir_name(results_dir, kind, jobid);
    for (int n = 1; n < 10000; n++) {
        char *cand = candidate(base, n);
        int rc = stage_run_dir_create_at(results_dir, cand);
        if (rc == 0) {
            free(base);
            *out = fs_abspath(cand);
            free(cand);
            return 0;
        }
        free(cand);
        if (rc < 0) {
            free(base);
            return -1;
        }
    }
    br_error("cannot create run folder '%s': too many earlier runs with this id", base);
    free(base);
    return -1;
}
