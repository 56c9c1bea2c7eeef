/* perf.c - --perf-regex: the app's timing line in each pass folder's output
 * (an_int.h). */
#include "analysis/an_int.h"

#include "read/rocprof.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Files of dir matching the seed's log.*, *.txt, *.log, in that order (each
 * sorted), then the older <pmc_dir>/rocprof.<pass>.txt. */
static char **perf_files(const char *pmc_dir, const char *pass)
{
    char *dir = fs_path_join(pmc_dir, pass);
    char **all = rp_find_files(dir, "");
    size_t n = 0;
    while (all[n])
        n++;
    char **v = xcalloc(n + 2, sizeof(char *));
    size_t k = 0;
    for (int kind = 0; kind < 3; kind++)
        for (size_t i = 0; i < n; i++) {
            const char *base = strrchr(all[i], '/') ? strrchr(all[i], '/') + 1 : all[i];
            size_t bl = strlen(base);
            bool in_dir = strlen(all[i]) == strlen(dir) + 1 + bl;   /* not in a subfolder */
            bool hit = kind == 0 ? !strncmp(base, "log.", 4)
                     : kind == 1 ? bl > 4 && !strcmp(base + bl - 4, ".txt")
                                 : bl > 4 && !strcmp(base + bl - 4, ".log") && strncmp(base, "log.", 4);
            if (in_dir && hit)
                v[k++] = xstrdup(all[i]);
        }
    char *old = xasprintf("%s/rocprof.%s.txt", pmc_dir, pass);
    if (fs_exists(old))
        v[k++] = old;
    else
        free(old);
    str_array_free(all);
    free(dir);
    return v;
}

/* The last line of path matching re, with group 1 as a number in *secs.
 * Read line by line with a bounded buffer: an app output of any
 * size, lines of any length (the first 4 KiB of each are matched); a file
 * that is not regular (a FIFO) is skipped. */
static char *perf_in_file(const regex_t *re, const char *path, double *secs)
{
    char *why, *hit = NULL;
    int fd = fs_open_read(path, &why);
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!fp) {
        free(why);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *line = xmalloc(4097);
    regmatch_t m[2];
    while (fs_read_line_bounded(fp, line, 4097, NULL) >= 0) {
        if (regexec(re, line, 2, m, 0) != 0)
            continue;
        free(hit);
        hit = xstrdup(line);
        *secs = NAN;
        if (re->re_nsub >= 1 && m[1].rm_so >= 0) {
            char *g = xstrndup(line + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so)), *end;
            double v = strtod(g, &end);
            *secs = end != g && *end == '\0' ? v : NAN;
            free(g);
        }
    }
    free(line);
    fclose(fp);
    return hit;
}

/* The first file (perf_files order) with a match gives the pass's line. */
static void perf_pass(const regex_t *re, const char *pmc_dir, struct mx_pass *mp)
{
    char **files = perf_files(pmc_dir, mp->name);
    for (char **f = files; *f && !mp->perf; f++)
        mp->perf = perf_in_file(re, *f, &mp->perf_s);
    str_array_free(files);
}

int an_perf_lines(const struct an_opts *o, struct mx_result *res)
{
    regex_t re;
    if (regcomp(&re, o->perf_regex, REG_EXTENDED) != 0)
        return br_error("analyze: --perf-regex: invalid regular expression '%s'", o->perf_regex);
    for (uint32_t p = 0; p < res->npasses; p++)
        perf_pass(&re, o->pmc_dir, &res->pass[p]);
    regfree(&re);
    return 0;
}
