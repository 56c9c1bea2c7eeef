/* cupti_list.c - NVIDIA counter list through benchrun-cupti-host (cupti_list.h). */
#include "trace/cupti_list.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/xalloc.h"

#define HOST_TOOL "benchrun-cupti-host"

/* Path of the host tool, NULL when absent (no message). Caller frees. */
static char *host_tool(void)
{
    const char *env = getenv("BENCHRUN_CUPTI_HOST");
    if (env && *env)
        return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
    char *dir = fs_self_dir();
    const char *rel[] = { "lib/benchrun/" HOST_TOOL, "../lib/benchrun/" HOST_TOOL };
    for (size_t i = 0; dir && i < 2; i++) {
        char *p = fs_path_join(dir, rel[i]);
        if (access(p, X_OK) == 0) {
            free(dir);
            return p;
        }
        free(p);
    }
    free(dir);
    return NULL;
}

const char *cupti_chip_for_cc(const char *cc)
{
    /* CUPTI chip names (cuptiDeviceGetChipName) of the GPUs with an arch profile. */
    static const struct { const char *cc, *chip; } map[] = { { "9.0", "GH100" } };
    for (size_t i = 0; cc && i < sizeof(map) / sizeof(*map); i++)
        if (strcmp(cc, map[i].cc) == 0)
            return map[i].chip;
    return NULL;
}

bool cupti_list_available(void)
{
    char *tool = host_tool();
    bool ok = tool && proc_which("nvidia-smi", NULL);
    free(tool);
    return ok;
}

/* First line of nvidia-smi's compute capability, trimmed; NULL on failure. */
static char *compute_cap(void)
{
    const char *argv[] = { "nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader", NULL };
    struct strbuf out;
    sb_init(&out);
    int st = -1;
    char *cc = NULL;
    if (proc_capture(argv, &out, NULL, &st) == 0 && st == 0 && out.len) {
        size_t n = strcspn(out.buf, "\r\n");
        while (n > 0 && isspace((unsigned char)out.buf[n - 1]))
            n--;
        cc = xstrndup(out.buf, n);
    }
    sb_release(&out);
    return cc;
}

int cupti_list(struct strbuf *out)
{
    char *cc = compute_cap(), *tool = host_tool();
    const char *chip = cupti_chip_for_cc(cc);
    int rc = -1;
    if (!cc)
        br_error("counters list: nvidia-smi --query-gpu=compute_cap failed");
    else if (!chip)
        br_error("counters list: no CUPTI chip known for compute capability %s (supported: 9.0, "
                 "H100/H200)", cc);
    else if (!tool)
        br_error("counters list: %s not found (benchrun built without CUDA?)", HOST_TOOL);
    else {
        const char *argv[] = { tool, "list", chip, NULL };
        struct strbuf list, err;
        sb_init(&list);
        sb_init(&err);
        int st = -1;
        if (proc_capture(argv, &list, &err, &st) == 0 && st == 0 && list.len) {
            char *lower = xstrdup(chip);   /* the arch profile name: GH100 -> gh100 */
            for (char *c = lower; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            sb_addf(out, "Chip %s\n", lower);
            sb_add(out, list.buf, list.len);
            free(lower);
            rc = 0;
        } else {
            br_error("counters list: %s list %s failed (status %d): %s", tool, chip, st,
                     err.len ? err.buf : "no message");
        }
        sb_release(&list);
        sb_release(&err);
    }
    free(cc);
    free(tool);
    return rc;
}
