/* cmd_plain.c - 'benchrun plain CONF [--dry-run]': the seed's plain run.
 * Run folder RESULTS_DIR/plain-<jobid>/ with workload.conf, app.txt (the
 * app's stdout+stderr), run_info.txt, run.json; prints the PERF_GREP lines.
 * The app's exit status decides the stage's: non-zero -> exit 1. */
#include "cli/cli.h"
#include "cli/stageargs.h"
#include "stage/runinfo.h"
#include "stage/stage.h"
#include "util/fsutil.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchrun plain CONF [--dry-run]\n"
    "\n"
    "Plain run of the workload in CONF (a seed workload.conf): correctness and\n"
    "reference timing. Creates RESULTS_DIR/plain-<jobid>/ with workload.conf,\n"
    "app.txt (stdout+stderr of the app), run_info.txt and run.json, and prints\n"
    "the app's lines matching PERF_GREP. Inside Slurm the app runs under\n"
    "srun -n NTASKS (or LAUNCHER from the conf); outside, directly (NTASKS=1).\n"
    "\n"
    "  -n, --dry-run  print every command that would run, check the conf and\n"
    "                 REQUIRED_FILES, run and create nothing\n"
    "  -h, --help     this help\n"
    "\n"
    "Exit status: 0 the app succeeded, 1 it failed (results kept) or the conf is\n"
    "invalid, 2 usage error.\n";

static int plain_run(struct stage *st, const struct strv *app)
{
    char *log = fs_path_join(st->rundir, "app.txt");
    struct stage_exec_result r;
    int rc = stage_run_info_write(st, app, NULL, NULL);
    if (rc == 0)
        rc = stage_exec(app, log, &r);
    if (rc != 0) {
        free(log);
        return BR_EXIT_FAIL;
    }
    json_t *extra = json_object();
    stage_perf_lines(st, log, extra);
    rc = stage_run_info_write(st, app, &r, extra);
    json_decref(extra);
    stage_summary(st, &r);
    int code = strcmp(stage_run_status(&r), "ok") == 0 && rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
    stage_exec_result_release(&r);
    free(log);
    return code;
}

int cmd_plain(int argc, char **argv)
{
    const char *conf;
    bool dry;
    int rc = cli_stage_args("plain", usage, argc, argv, &conf, &dry);
    if (rc != 0)
        return rc == 1 ? BR_EXIT_OK : rc;
    struct stage st;
    if (stage_begin(&st, "plain", conf, dry) != 0)
        return BR_EXIT_FAIL;
    struct strv app;
    if (stage_app_argv(&st, NULL, NULL, &app) != 0) {
        stage_release(&st);
        return BR_EXIT_FAIL;
    }
    if (dry) {
        stage_dry_run_header(&st);
        stage_dry_run_print(&app);
        rc = BR_EXIT_OK;
    } else {
        rc = plain_run(&st, &app);
    }
    strv_release(&app);
    stage_release(&st);
    return rc;
}
