/* cupti_env.c - find libbenchrun-cupti.so and build its environment prefix (cupti_env.h). */
#include "trace/cupti_env.h"

#include <stdlib.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define CUPTI_LIB_NAME "libbenchrun-cupti.so"

char *cupti_lib_path(void)
{
    const char *env = getenv("BENCHRUN_CUPTI_LIB");
    if (env && *env) {
        if (access(env, R_OK) == 0)
            return fs_abspath(env);
        br_error("BENCHRUN_CUPTI_LIB: '%s' is not readable", env);
        return NULL;
    }
    char *dir = fs_self_dir();
    if (!dir)
        return NULL;
    const char *rel[] = { "lib/benchrun/" CUPTI_LIB_NAME, "../lib/benchrun/" CUPTI_LIB_NAME };
    for (size_t i = 0; i < 2; i++) {
        char *p = fs_path_join(dir, rel[i]);
        if (access(p, R_OK) == 0) {
            free(dir);
            return p;
        }
        free(p);
    }
    br_error("%s not found in %s/lib/benchrun or %s/../lib/benchrun (benchrun was built "
             "without CUDA; rebuild where the CUDA toolkit is installed, or set "
             "BENCHRUN_CUPTI_LIB)", CUPTI_LIB_NAME, dir, dir);
    free(dir);
    return NULL;
}

void cupti_env_argv(struct strv *out, const char *lib, const char *dir, const char *cache,
                    const char *name, const char *const *metrics, const struct lp_plan *sample)
{
    strv_push(out, "env");
    strv_pushf(out, "CUDA_INJECTION64_PATH=%s", lib);
    strv_pushf(out, "BENCHRUN_CUPTI_OUT=%s", dir);
    strv_pushf(out, "BENCHRUN_CUPTI_NAME=%s_%%pid%%", name);
    if (!metrics || !metrics[0])
        return;
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, "BENCHRUN_CUPTI_METRICS=");
    for (size_t i = 0; metrics[i]; i++)
        sb_addf(&sb, "%s%s", i ? "," : "", metrics[i]);
    strv_push(out, sb.buf);
    sb_release(&sb);
    if (sample) {
        char plan[96];
        lp_plan_format(sample, plan, sizeof(plan));
        strv_pushf(out, "BENCHRUN_CUPTI_SAMPLE=%s", plan);
    }
    if (cache)
        strv_pushf(out, "BENCHRUN_CUPTI_CACHE=%s", cache);
}
