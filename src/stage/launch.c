/* launch.c - the stage context: conf + run folder + launcher + launch.sh argv,
 * the seed's layout checks, and dry-run printing (stage.h has the contract). */
#include "stage/stage.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/shquote.h"
#include "util/stopsig.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- layout ------------------------------------------------------------- */

/* The sbatch line a user should have used for this conf. */
static char *sbatch_hint(const struct br_conf *c)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_addf(&sb, "sbatch -p %s", c->partition ? c->partition : "<partition with >= NGPUS GPUs>");
    if (c->nnodes > 1)
        sb_addf(&sb, " -N %ld", c->nnodes);
    if (c->ntasks > 1)
        sb_addf(&sb, " -n %ld", c->ntasks);
    sb_adds(&sb, " run_<stage>.sbatch ");
    sh_quote(&sb, c->path);
    return sb_detach(&sb);
}

int br_check_layout(const struct br_conf *c, const struct br_gpus *g)
{
    bool cpu_only = c->vendor && strcmp(c->vendor, "none") == 0;
    long per_node = (c->ngpus + c->nnodes - 1) / c->nnodes;
    int rc = 0;
    if (!cpu_only && g->count < per_node) {
        char *hint = sbatch_hint(c);
        rc = br_error("%s: NGPUS=%ld but this node has %d GPU%s (%s); run on a node with "
                      "%ld GPUs: %s", c->path, c->ngpus, g->count, g->count == 1 ? "" : "s",
                      g->source ? g->source : "none found", per_node, hint);
        free(hint);
        return rc;
    }
    const char *nt = getenv("SLURM_NTASKS");
    long have = nt && *nt ? strtol(nt, NULL, 10) : 0;
    if (br_in_slurm() && have > 0 && have < c->ntasks && c->launcher.n == 0) {
        char *hint = sbatch_hint(c);
        rc = br_error("%s: NTASKS=%ld but this Slurm job has %ld task%s; submit with: %s",
                      c->path, c->ntasks, have, have == 1 ? "" : "s", hint);
        free(hint);
    }
    return rc;
}

static int launcher_argv(const struct br_conf *c, bool assume_slurm, struct strv *out)
{
    strv_init(out);
    if (c->launcher.n > 0) {
        if (!(c->launcher.n == 1 && strcmp(c->launcher.v[0], "none") == 0))
            strv_extend(out, &c->launcher);
        else if (c->ntasks > 1)
            return br_error("%s: LAUNCHER=none cannot start NTASKS=%ld tasks", c->path, c->ntasks);
        return 0;
    }
    if (assume_slurm || br_in_slurm()) {
        strv_push(out, "srun");
        if (c->nnodes > 1)
            strv_pushf(out, "-N%ld", c->nnodes);
        strv_pushf(out, "-n%ld", c->ntasks);
        return 0;
    }
    if (c->ntasks > 1)
        return br_error("%s: NTASKS=%ld needs a launcher, and this is not a Slurm allocation: "
                        "submit it with sbatch -n %ld (or salloc), or set LAUNCHER in the conf "
                        "(e.g. LAUNCHER=(mpirun -np %ld))", c->path, c->ntasks, c->ntasks, c->ntasks);
    return 0;
}

int br_launcher_argv(const struct br_conf *c, struct strv *out)
{
    return launcher_argv(c, false, out);
}

/* ---- argv --------------------------------------------------------------- */

static char *launch_sh(const struct br_stage *st)
{
    return fs_path_join(st->share, "launch.sh");
}

int br_app_argv(const struct br_stage *st, const char *outdir, const struct strv *collector,
                struct strv *out)
{
    if (launcher_argv(&st->conf, st->assume_slurm, out) != 0) {
        strv_free(out);
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

void br_setup_argv(const struct br_stage *st, struct strv *out)
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

void br_dry_run_print(const struct strv *argv)
{
    char *q = strv_quoted(argv);
    printf("[dry-run] %s\n", q);
    free(q);
}

void br_dry_run_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("[dry-run] # ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
}

void br_dry_run_header(const struct br_stage *st)
{
    const struct br_conf *c = &st->conf;
    br_dry_run_note("%s stage of '%s' (%s)", br_stage_name(st), c->workload, c->workload_desc);
    br_dry_run_note("conf: %s", c->path);
    br_dry_run_note("run folder: %s (created by the real run)", st->rundir);
    br_dry_run_note("layout: NGPUS=%ld NTASKS=%ld NNODES=%ld BIND_GPU_PER_TASK=%d VENDOR=%s",
                    c->ngpus, c->ntasks, c->nnodes, c->bind_gpu_per_task ? 1 : 0,
                    c->vendor ? c->vendor : "auto");
    if (st->assume_slurm)
        br_dry_run_note("not in a Slurm allocation: NTASKS=%ld needs sbatch -n %ld; "
                        "shown as the job will run it", c->ntasks, c->ntasks);
    br_dry_run_note("REQUIRED_FILES: %zu checked, all present", c->required_files.n);
    for (size_t i = 0; i < c->modules.n; i++)
        br_dry_run_note("module load %s", c->modules.v[i]);
    char *app = strv_quoted(&c->app_cmd);
    br_dry_run_note("APP_CMD: %s", app);
    free(app);
    if (c->perf_grep)
        br_dry_run_note("PERF_GREP: %s", c->perf_grep);
    struct strv setup;
    br_setup_argv(st, &setup);
    br_dry_run_print(&setup);
    strv_free(&setup);
}

/* ---- begin / release ------------------------------------------------------ */

static void set_vendor(struct br_stage *st)
{
    const char *v = st->conf.vendor;
    if (!v)
        v = st->gpus.vendor;
    st->vendor = xstrdup(v ? v : "unknown");
    setenv("BENCHRUN_VENDOR", st->vendor, 1);
}

/* The end of a start that did not reach the app: why, in the run record. */
static int start_failed(struct br_stage *st, struct br_exec_result *r)
{
    br_run_info_write(st, NULL, r, NULL);       /* the folder says why it is empty */
    br_exec_result_release(r);
    return -1;
}

static int start_failed_msg(struct br_stage *st, const char *why)
{
    struct br_exec_result r = { .exit_code = -1, .killed_after_s = -1, .reason = xstrdup(why) };
    int sig = stopsig_received();
    if (sig) {                  /* the step failed because a signal stopped it */
        free(r.reason);
        r.reason = br_stop_reason(sig);
        r.forwarded_signal = sig;
    }
    return start_failed(st, &r);
}

/* Modules + stage_inputs; their failure, or a stop signal (also one the
 * setup ignored), ends the stage with the reason in the run record. */
static int run_setup(struct br_stage *st)
{
    struct strv argv;
    br_setup_argv(st, &argv);
    struct br_exec_result r;
    int rc = br_stage_exec(&argv, NULL, &r);
    strv_free(&argv);
    if (rc != 0)
        return start_failed_msg(st, "setup (modules, stage_inputs) could not be started");
    if (!r.forwarded_signal && stopsig_received()) {    /* the setup ignored it */
        r.forwarded_signal = stopsig_received();
        free(r.reason);
        r.reason = br_stop_reason(r.forwarded_signal);
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
        br_exec_result_release(&r);
        return 0;
    }
    return start_failed(st, &r);
}

/* Real runs: GPUs, vendor, layout and launcher checks (nothing created). */
static int check_real(struct br_stage *st)
{
    br_gpu_detect(&st->gpus);
    set_vendor(st);
    if (br_check_layout(&st->conf, &st->gpus) != 0)
        return -1;
    struct strv probe;          /* launcher errors (NTASKS>1 outside Slurm) come first */
    int rc = br_launcher_argv(&st->conf, &probe);
    strv_free(&probe);
    return rc;
}

int br_stage_load(struct br_stage *st, const char *kind, const char *conf_path, bool dry_run)
{
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    st->dry_run = dry_run;
    st->t_start = (double)time(NULL);
    if (!dry_run) {             /* from here on a stop signal is recorded, never lost */
        stopsig_install();
        if (br_stage_kill_wait_from_env() != 0)
            return -1;
    }
    if (br_conf_load(conf_path, NULL, BR_CONF_CHECK_FILES, &st->conf) != 0)
        return -1;
    st->share = fs_share_dir();
    st->jobid = br_job_id();
    st->rundir = br_run_dir_name(st->conf.results_dir, kind, st->jobid);
    int rc = st->share ? 0 : -1;
    if (rc == 0 && dry_run) {
        /* A dry run on the login node shows what the sbatch job will run. */
        st->assume_slurm = !br_in_slurm() && st->conf.ntasks > 1 && st->conf.launcher.n == 0;
        st->vendor = xstrdup(st->conf.vendor ? st->conf.vendor : "unknown");
        rc = br_conf_reload_app_cmd(&st->conf, st->rundir);
    } else if (rc == 0 && (rc = check_real(st)) == 0) {
        /* The folder name is known now: the second reading of the conf (the
         * one that gives APP_CMD its OUT_DIR) happens before anything exists. */
        free(st->rundir);
        st->rundir = br_run_dir_free_name(st->conf.results_dir, kind, st->jobid);
        rc = br_conf_reload_app_cmd(&st->conf, st->rundir);
    }
    if (rc != 0)
        br_stage_release(st);
    return rc;
}

int br_stage_start(struct br_stage *st)
{
    if (stopsig_received())
        return br_error("%s: stopped (%s) before the run folder was created", st->conf.path,
                        stopsig_name(stopsig_received()));
    int made = br_run_dir_create_at(st->conf.results_dir, st->rundir);
    if (made < 0)
        return -1;
    bool renamed = made == 1;   /* taken since br_stage_load (a concurrent run) */
    if (renamed) {
        free(st->rundir);
        if (br_run_dir_create(st->conf.results_dir, st->kind, st->jobid, &st->rundir) != 0)
            return -1;
    }
    if (br_run_info_starting(st) != 0)
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

int br_stage_begin(struct br_stage *st, const char *kind, const char *conf_path, bool dry_run)
{
    if (br_stage_load(st, kind, conf_path, dry_run) != 0)
        return -1;
    if (dry_run || br_stage_start(st) == 0)
        return 0;
    br_stage_release(st);
    return -1;
}

void br_stage_release(struct br_stage *st)
{
    br_conf_free(&st->conf);
    br_gpus_free(&st->gpus);
    free(st->jobid);
    free(st->rundir);
    free(st->share);
    free(st->vendor);
    st->jobid = st->rundir = st->share = st->vendor = NULL;
}
