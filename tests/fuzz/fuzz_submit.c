/* fuzz_submit.c - libFuzzer target for the small parsers of benchrun submit
 * (src/stage/submit.c): Slurm time strings (submit_slurm_time_parse, checked to
 * round-trip through submit_slurm_time_format), `sbatch --parsable` output
 * (submit_parse_jobid: the id must be digits only) and the #SBATCH
 * --time header of a wrapper script (submit_sbatch_script_time, on a temp file,
 * for inputs that start with '#'). */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stage/submit.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_time(const char *s)
{
    long sec;
    if (submit_slurm_time_parse(s, &sec) != 0)
        return;
    if (sec < -1)
        abort();
    char *f = submit_slurm_time_format(sec);
    long back;
    if (submit_slurm_time_parse(f, &back) != 0 || back != sec)
        abort();
    free(f);
}

static void check_jobid(const char *s)
{
    char *id = submit_parse_jobid(s);
    if (!id)
        return;
    if (!*id || strlen(id) > 20)
        abort();
    for (const char *p = id; *p; p++)
        if (!isdigit((unsigned char)*p))
            abort();
    free(id);
}

static void check_script(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_submit.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return;
    if (write(fd, data, size) == (ssize_t)size) {
        char *t = submit_sbatch_script_time(path);
        if (t && (!*t || strchr(t, '\n')))
            abort();
        free(t);
    }
    close(fd);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = xstrndup((const char *)data, size);   /* stops at the first NUL */
    check_time(s);
    check_jobid(s);
    free(s);
    if (size > 0 && data[0] == '#')                 /* a script header: file I/O only then */
        check_script(data, size);
    return 0;
}
