/* stage.c - the stage context: conf + run folder + GPUs + launch.sh argv,
 * the start of a stage, and dry-run printing (stage.h has the contract). */
#include "stage/stage.h"
#include "stage/jobdir.h"
#include "stage/launcher.h"
#include "stage/runinfo.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/stopsig.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- argv --------------------------------------------------------------- */

static char *launch_sh(const struct stage *st)
{
    return fs_path_join(st->share, "launch.sh");
}

int stage_app_argv(const struct stage *st, const char *outdir, const struct strv *collector,
                   struct strv *out)
{
    if (stage_launcher_argv(&st->conf, st->assume_slurm, out) != 0) {
        strv_release(out);
        return -1;
    }
    char *sh = launch_sh(st);
    strv_push(out, "bash");
    strv_push(out, sh);
    strv_push(out, st->conf.path);
    strv_push(out, st->rundir);
    strv_push(out, outdir ? outdir : st->rundir);
    if (collector)
        strv_extend(out, collector);
    free(sh);
    return 0;
}

void stage_setup_argv(const struct stage *st, struct strv *out)
{
    char *sh = launch_sh(st);
    strv_init(out);
    strv_push(out, "bash");
    strv_push(out, sh);
    strv_push(out, "--setup");
    strv_push(out, st->conf.path);
    strv_push(out, st->rundir);
    free(sh);
}

/* ---- dry run -------------------------------------------------------------- */

void stage_dry_run_print(const struct strv *argv)
{
    char *q = strv_quoted(argv);
    printf("[dry-run] %s\n", q);
    free(q);
}

void stage_dry_run_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("[dry-run] # ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
}

void stage_dry_run_header(const struct stage *st)
{
    const struct br_conf *c = &st->conf;
    stage_dry_run_note("%s stage of '%s' (%s)", stage_name(st), c->workload, c->workload_desc);
    stage_dry_run_note("conf: %s", c->path);
    stage_dry_run_note("run folder: %s (created by the real run)", st->rundir);
    stage_dry_run_note("layout: NGPUS=%ld NTASKS=%ld NNODES=%ld BIND_GPU_PER_TASK=%d VENDOR=%s",
                       c->ngpus, c->ntasks, c->nnodes, c->bind_gpu_per_task ? 1 : 0,
                       c->vendor != GPU_VENDOR_UNKNOWN ? gpu_vendor_name(c->vendor) : "auto");
    if (st->assume_slurm)
        stage_dry_run_note("not in a Slurm allocation: NTASKS=%ld needs sbatch -n %ld; "
                           "shown as the job will run it", c->ntasks, c->ntasks);
    stage_dry_run_note("REQUIRED_FILES: %zu checked, all present", c->required_files.n);
    for (size_t i = 0; i < c->modules.n; i++)
        stage_dry_run_note("module load %s", c->modules.v[i]);
    char *app = strv_quoted(&c->app_cmd);
    stage_dry_run_note("APP_CMD: %s", app);
    free(app);
    if (c->perf_grep)
        stage_dry_run_note("PERF_GREP: %s", c->perf_grep);
    struct strv setup;
    stage_setup_argv(st, &setup);
    stage_dry_run_print(&setup);
    strv_release(&setup);
}

/* ---- begin / release ------------------------------------------------------ */

static void set_vendor(struct stage *st)
{
    st->vendor = st->conf.vendor != GPU_VENDOR_UNKNOWN ? st->conf.vendor : st->gpus.vendor;
    setenv("BENCHRUN_VENDOR", gpu_vendor_name(st->vendor), 1);
}

/* The end of a start that did not reach the app: why, in the run record. */
static int start_failed(struct stage *st, struct stage_exec_result *r)
{
    stage_run_info_write(st, NULL, r, NULL);       /* the folder says why it is empty */
    stage_exec_result_release(r);
    return -1;
}

static int start_failed_msg(struct stage *st, const char *why)
{
    struct stage_exec_result r = { .exit_code = -1, .killed_after_s = -1, .reason = xstrdup(why) };
    int sig = stopsig_received();
    if (sig) {                  /* the step failed because a signal stopped it */
        free(r.reason);
        r.reason = stage_stop_reason(sig);
        r.forwarded_signal = sig;
    }
    return start_failed(st, &r);
}

/* Modules + stage_inputs; their failure, or a stop signal (also one the
 * setup ignored), ends the stage with the reason in the run record. */
static int run_setup(struct stage *st)
{
    struct strv argv;
    stage_setup_argv(st, &argv);
    struct stage_exec_result r;
    int rc = stage_exec(&argv, NULL, &r);
    strv_release(&argv);
    if (rc != 0)
        return start_failed_msg(st, "setup (modules, stage_inputs) could not be started");
    if (!r.forwarded_signal && stopsig_received()) {    /* the setup ignored it */
        r.forwarded_signal = stopsig_received();
        free(r.reason);
        r.reason = stage_stop_reason(r.forwarded_signal);
    }
    if (r.forwarded_signal) {
        br_error("%s: stopped (%s) during the setup (modules, stage_inputs)", st->conf.path,
                 r.reason);
    } else if (r.exit_code != 0) {
        br_error("%s: setup (modules, stage_inputs) failed with exit status %d", st->conf.path,
                 r.exit_code);
        free(r.reason);
        r.reason = xasprintf("setup failed (modules or stage_inputs), exit status %d", r.exit_code);
    } else {
        stage_exec_result_release(&r);
        return 0;
    }
    return start_failed(st, &r);
}

/* Real runs: GPUs, vendor, layout and launcher checks (nothing created). */
static int check_real(struct stage *st)
{
    gpu_detect(&st->gpus);
    set_vendor(st);
    if (stage_check_layout(&st->conf, &st->gpus) != 0)
        return -1;
    struct strv probe;          /* launcher errors (NTASKS>1 outside Slurm) come first */
    int rc = stage_launcher_argv(&st->conf, false, &probe);
    strv_release(&probe);
    return rc;
}

int stage_load(struct stage *st, const char *kind, const char *conf_path, bool dry_run)
{
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    st->dry_run = dry_run;
    st->t_start = (double)time(NULL);
    if (!dry_run) {             /* from here on a stop signal is recorded, never lost */
        stopsig_install();
        if (stage_kill_wait_from_env() != 0)
            return -1;
    }
    if (br_conf_load(conf_path, NULL, BR_CONF_CHECK_FILES, &st->conf) != 0)
        return -1;
    st->share = fs_share_dir();
    st->jobid = stage_job_id();
    st->rundir = stage_run_dir_name(st->conf.results_dir, kind, st->jobid);
    int rc = st->share ? 0 : -1;
    if (rc == 0 && dry_run) {
        /* A dry run on the login node shows what the sbatch job will run. */
        st->assume_slurm = !stage_in_slurm() && st->conf.ntasks > 1 && st->conf.launcher.n == 0;
        st->vendor = st->conf.vendor;
        rc = br_conf_reload_app_cmd(&st->conf, st->rundir);
    } else if (rc == 0 && (rc = check_real(st)) == 0) {
        /* The folder name is known now: the second reading of the conf (the
         * one that gives APP_CMD its OUT_DIR) happens before anything exists. */
        free(st->rundir);
        st->rundir = stage_run_dir_free_name(st->conf.results_dir, kind, st->jobid);
        rc = br_conf_reload_app_cmd(&st->conf, st->rundir);
    }
    if (rc != 0)
        stage_release(st);
    return rc;
}

int stage_start(struct stage *st)
{
    if (stopsig_received())
        return br_error("%s: stopped (%s) before the run folder was created", st->conf.path,
                        stopsig_name(stopsig_received()));
    int made = stage_run_dir_create_at(st->conf.results_dir, st->rundir);
    if (made < 0)
        return -1;
    bool renamed = made == 1;   /* taken since stage_load (a concurrent run) */
    if (renamed) {
        free(st->rundir);
        if (stage_run_dir_create(st->conf.results_dir, st->kind, st->jobid, &st->rundir) != 0)
            return -1;
    }
    if (stage_run_info_starting(st) != 0)
        return -1;
    char *copy = fs_path_join(st->rundir, "workload.conf");
    int rc = fs_copy_file(st->conf.path, copy);
    free(copy);
    if (rc != 0)
        return start_failed_msg(st, "cannot copy the conf into the run folder");
    if (renamed && br_conf_reload_app_cmd(&st->conf, st->rundir) != 0)
        return start_failed_msg(st, "the conf read with the new run folder failed");
    if (stopsig_received())
        return start_failed_msg(st, "");
    return run_setup(st);
}

int stage_begin(struct stage *st, const char *kind, const char *conf_path, bool dry_run)
{
    if (stage_load(st, kind, conf_path, dry_run) != 0)
        return -1;
    if (dry_run || stage_start(st) == 0)
        return 0;
    stage_release(st);
    return -1;
}

void stage_release(struct stage *st)
{
    br_conf_release(&st->conf);
    gpu_node_release(&st->gpus);
    free(st->jobid);
    free(st->rundir);
    free(st->share);
    st->jobid = st->rundir = st->share = NULL;
}
