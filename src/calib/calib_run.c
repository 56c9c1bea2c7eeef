/* calib_run.c - `benchrun calibrate` steps: build the kernels, write their
 * workload.conf, run plain -> pmc -> power -> analyze through this same
 * executable's subcommands.
 *
 * Owns: finding the GPU compiler (NVIDIA: $NVCC, $CUDA_HOME/bin, PATH,
 * /usr/local/cuda/bin; AMD: $HIPCC, $ROCM_PATH/bin, PATH, /opt/rocm/bin), the
 * calibration conf, locating the result folder each stage created
 * (RESULTS_DIR/<kind>-<jobid>, the one that was not there before), and one
 * result row per stage. The stages are run as child processes (argv, never a
 * shell string) so calibrate exercises exactly what users run.
 * SPDX-License-Identifier: MIT
 */
#include "calib/calib.h"

#include <dirent.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "stage/exec.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* "calibrate: ..." on stderr when progress is wanted (docs/design.md §13). */
static void __attribute__((format(printf, 2, 3))) progress(const struct br_calib_run *r,
                                                           const char *fmt, ...)
{
    if (!r->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("calibrate: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- compiler ---------------------------------------------------------------- */

static char *env_bin(const char *var, const char *rel)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return NULL;
    char *p = rel ? fs_path_join(v, rel) : xstrdup(v);
    if (fs_exists(p))
        return p;
    free(p);
    return NULL;
}

/* Newest /usr/local/cuda-X.Y/bin/nvcc (glob sorts names; fine up to 99.x). */
static char *cuda_glob(void)
{
    glob_t g;
    char *found = NULL;
    if (glob("/usr/local/cuda-*/bin/nvcc", 0, NULL, &g) == 0 && g.gl_pathc > 0)
        found = xstrdup(g.gl_pathv[g.gl_pathc - 1]);
    globfree(&g);
    return found;
}

static char *find_compiler(enum gpu_vendor vendor)
{
    bool amd = vendor == GPU_VENDOR_AMD;
    const char *tool = amd ? "hipcc" : "nvcc";
    char *p = env_bin(amd ? "HIPCC" : "NVCC", NULL);
    if (!p)
        p = env_bin(amd ? "ROCM_PATH" : "CUDA_HOME", amd ? "bin/hipcc" : "bin/nvcc");
    if (!p && !amd)
        p = env_bin("CUDA_PATH", "bin/nvcc");
    if (!p && proc_which(tool, &p) != 1) {
        free(p);
        p = NULL;
    }
    const char *fixed = amd ? "/opt/rocm/bin/hipcc" : "/usr/local/cuda/bin/nvcc";
    if (!p && fs_exists(fixed))
        p = xstrdup(fixed);
    if (!p && !amd)
        p = cuda_glob();
    return p;
}

/* The compiler's target: the GPU found, else the vendor's default (the
 * gfx942 or sm_90 the profiles default to). */
static char *detect_arch(enum gpu_vendor vendor)
{
    struct gpu_node g;
    gpu_detect(&g);
    char *a = g.arch && g.vendor == vendor ? xstrdup(g.arch) : NULL;
    gpu_node_release(&g);
    return a ? a : xstrdup(vendor == GPU_VENDOR_AMD ? "gfx942" : "sm_90");
}

int br_calib_build(struct br_calib_run *r)
{
    char *cc = r->compiler ? xstrdup(r->compiler) : find_compiler(r->vendor);
    if (!cc)
        return br_error("calibrate: no %s found (set %s or put it in PATH)",
                        r->vendor == GPU_VENDOR_AMD ? "hipcc" : "nvcc",
                        r->vendor == GPU_VENDOR_AMD ? "HIPCC" : "NVCC");
    char *src = fs_share_path("calibrate/calib.cu");
    char *arch = r->gpu_arch ? xstrdup(r->gpu_arch) : detect_arch(r->vendor);
    char *bindir = fs_path_join(r->outdir, "bin"), *logdir = fs_path_join(r->outdir, "logs");
    char *log = fs_path_join(logdir, "build.log");
    int rc = src && fs_mkdir_p(bindir) == 0 && fs_mkdir_p(logdir) == 0 ? 0 : -1;
    r->exe = fs_path_join(bindir, "calib");
    struct strv argv;
    strv_init(&argv);
    if (r->vendor == GPU_VENDOR_AMD) {
        strv_pushv(&argv, (const char *const[]){ cc, "-O3", "-x", "hip", NULL });
        strv_pushf(&argv, "--offload-arch=%s", arch);
    } else {
        strv_pushv(&argv, (const char *const[]){ cc, "-O3", "-std=c++17", NULL });
        /* Hopper: the arch-specific sm_90a target, which wgmma needs (the
         * -gencode form: with nvcc 13.4 `-arch=sm_90a` also ran a plain sm_90
         * pass that rejects wgmma) */
        if (strcmp(arch, "sm_90") == 0 || strcmp(arch, "sm_90a") == 0)
            strv_push(&argv, "-gencode=arch=compute_90a,code=sm_90a");
        else
            strv_pushf(&argv, "-arch=%s", arch);
    }
    strv_pushv(&argv, (const char *const[]){ "-o", r->exe, src ? src : "", NULL });
    strv_push(&argv, r->vendor == GPU_VENDOR_AMD ? "-lhipblas" : "-lcublas");
    struct stage_exec_result x = { 0 };
    if (rc == 0 && stage_exec(&argv, log, &x) != 0)
        rc = -1;
    else if (rc == 0 && (x.exit_code != 0 || !fs_exists(r->exe)))
        rc = br_error("calibrate: building %s failed (exit %d): see %s", src, x.exit_code, log);
    if (rc == 0)
        progress(r, "built %s for %s with %s (%.1f s)", r->exe, arch, cc, x.wall_s);
    stage_exec_result_release(&x);
    strv_release(&argv);
    free(cc), free(src), free(arch), free(bindir), free(logdir), free(log);
    return rc;
}

/* ---- conf ---------------------------------------------------------------------- */

static void conf_line(struct strbuf *sb, const char *key, const char *value)
{
    sb_addf(sb, "%s=", key);
    sh_quote(sb, value);
    sb_addc(sb, '\n');
}

int br_calib_write_conf(struct br_calib_run *r)
{
    struct strbuf sb;
    sb_init(&sb);
    char *results = fs_path_join(r->outdir, "results");
    sb_adds(&sb, "# calibrate.conf - written by `benchrun calibrate`: the known-answer kernels\n"
                 "# of share/benchrun/calibrate/calib.cu as a seed workload.conf.\n");
    conf_line(&sb, "WORKLOAD", "calibrate");
    conf_line(&sb, "WORKLOAD_DESC", "benchrun known-answer calibration kernels");
    conf_line(&sb, "PROFILING_DIR", r->outdir);
    conf_line(&sb, "RESULTS_DIR", results);
    sb_adds(&sb, "NGPUS=1\nNTASKS=1\nBIND_GPU_PER_TASK=0\nSAMPLE_GPUS=0\nSAMPLE_MS=1\n"
                 "MODULES=()\nROCM_PATH=${ROCM_PATH:-}\nLAUNCHER=\n");
    conf_line(&sb, "VENDOR", gpu_vendor_name(r->vendor));
    if (r->counters)
        conf_line(&sb, "COUNTERS", r->counters);
    sb_adds(&sb, "PERF_GREP='^calib'\nREQUIRED_FILES=(");
    sh_quote(&sb, r->exe);
    sb_adds(&sb, ")\nstage_inputs() { :; }\napp_env() { :; }\napp_cmd() {\n    APP_CMD=(");
    sh_quote(&sb, r->exe);
    struct strv args;
    strv_init(&args);
    br_calib_params_argv(&r->params, &args);
    for (size_t i = 0; i < args.n; i++) {
        sb_addc(&sb, ' ');
        sh_quote(&sb, args.v[i]);
    }
    sb_adds(&sb, ")\n}\n");
    r->conf = fs_path_join(r->outdir, "calibrate.conf");
    int rc = fs_mkdir_p(results) == 0 ? fs_write_atomic(r->conf, sb.buf, sb.len) : -1;
    strv_release(&args);
    sb_release(&sb);
    free(results);
    return rc;
}

/* ---- stages ---------------------------------------------------------------------- */

/* Entries of dir starting with "<kind>-", as a NULL-free strv (names). */
static void list_kind(const char *dir, const char *kind, struct strv *out)
{
    DIR *d = opendir(dir);
    size_t k = strlen(kind);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, kind, k) == 0 && e->d_name[k] == '-')
            strv_push(out, e->d_name);
    if (d)
        closedir(d);
}

/* The <kind>-* folder created since `before` was listed; NULL if none. */
static char *new_dir(const char *results, const char *kind, const struct strv *before)
{
    struct strv now;
    strv_init(&now);
    list_kind(results, kind, &now);
    char *found = NULL;
    for (size_t i = 0; i < now.n && !found; i++)
        if (!strv_has(before, now.v[i]))
            found = fs_path_join(results, now.v[i]);
    strv_release(&now);
    return found;
}

/* Runs `self ARGS...` logged to logs/<name>.log; adds a result row; returns
 * the exit code (or -1 when it could not run). */
static int stage(struct br_calib_run *r, const char *name, const char *const *args,
                 struct br_calib_results *res)
{
    char *self = fs_self_exe(), *log = xasprintf("%s/logs/%s.log", r->outdir, name);
    struct strv argv;
    strv_init(&argv);
    strv_push(&argv, self);
    strv_pushv(&argv, args);
    progress(r, "%s ...", name);
    struct stage_exec_result x = { 0 };
    int code = stage_exec(&argv, log, &x) == 0 ? x.exit_code : -1;
    char *check = xasprintf("stage %s: exit status", name), *meas = xasprintf("%d (%.1f s)", code, x.wall_s);
    br_calib_result_add(res, check, "0", meas, log, code == 0 ? BR_CALIB_PASS : BR_CALIB_MISS,
                        code == 0 ? NULL : "stage failed: see its log");
    progress(r, "%s: exit %d, %.1f s (log %s)", name, code, x.wall_s, log);
    stage_exec_result_release(&x);
    strv_release(&argv);
    free(self), free(log), free(check), free(meas);
    return code;
}

/* Runs stage `kind` on the conf and finds the folder it made (*dir). */
static int conf_stage(struct br_calib_run *r, const char *kind, struct br_calib_results *res,
                      char **dir)
{
    char *results = fs_path_join(r->outdir, "results");
    struct strv before;
    strv_init(&before);
    const char *leaf = strcmp(kind, "power") == 0 ? "prof" : kind;   /* docs/design.md §5 */
    list_kind(results, leaf, &before);
    int code = stage(r, kind, (const char *const[]){ kind, r->conf, NULL }, res);
    if (dir)
        *dir = new_dir(results, leaf, &before);
    strv_release(&before);
    free(results);
    return code;
}

int br_calib_stages(struct br_calib_run *r, struct br_calib_results *res)
{
    if (conf_stage(r, "plain", res, NULL) != 0)
        return 0;    /* the program itself fails: nothing to profile */
    conf_stage(r, "pmc", res, &r->pmc_dir);
    conf_stage(r, "power", res, &r->prof_dir);
    if (!r->pmc_dir) {
        br_calib_result_add(res, "stage analyze: exit status", "0", NULL, "", BR_CALIB_MISS,
                            "no pmc run folder to analyze");
        return 0;
    }
    struct strv a;
    strv_init(&a);
    strv_pushv(&a, (const char *const[]){ "analyze", r->pmc_dir, NULL });
    if (r->prof_dir)
        strv_pushv(&a, (const char *const[]){ "--power", r->prof_dir, NULL });
    stage(r, "analyze", (const char *const *)a.v, res);
    strv_release(&a);
    return 0;
}

void br_calib_run_release(struct br_calib_run *r)
{
    free(r->exe), free(r->conf), free(r->pmc_dir), free(r->prof_dir);
    r->exe = r->conf = r->pmc_dir = r->prof_dir = NULL;
}
