/* cmd_submit.c - 'benchrun submit CONF [plain] [pmc] [power] [--after JOBID] [--dry-run]'.
 *
 * Owns: the command line of submit, the order of the chain and what is told
 * to the user (one line per job on stdout: stage, job id, sbatch command;
 * notes on stderr; a dry run prints a shell script on stdout instead). The
 * sbatch commands, time limits and submitted.json are src/stage/submit.c.
 */
#include "cli/cli.h"

#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "stage/submit.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/shquote.h"
#include "util/xalloc.h"

struct submit_opts {
    const char *conf;
    const char *stages[SUBMIT_MAX_STAGES];
    size_t nstages;
    const char *after;
    bool dry_run;
};

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: benchrun submit CONF [plain] [pmc] [power] [--after JOBID] [--dry-run]\n\n"
            "Submits one sbatch job per stage (default: plain pmc power), in the order\n"
            "given, each depending on the previous one (--dependency=afterok), and\n"
            "records the job ids in RESULTS_DIR/submitted.json.\n\n"
            "  sbatch --parsable [-p PARTITION] -N NNODES -n NTASKS -J <tag>-<stage>\n"
            "         [-t LIMIT] --output RESULTS_DIR/<tag>-<stage>-%%j.out\n"
            "         [--dependency=afterok:<previous>] run_<stage>.sbatch CONF\n\n"
            "-t is TIME_LIMIT from the conf; for pmc, when a successful plain run is in\n"
            "RESULTS_DIR: passes x 3 x its wall time, rounded up to minutes (or\n"
            "TIME_LIMIT when longer). Without PARTITION / TIME_LIMIT the cluster's\n"
            "defaults apply. Account, QoS, GPUs: sbatch's own SBATCH_ACCOUNT,\n"
            "SBATCH_QOS, SBATCH_GPUS... environment variables.\n\n"
            "Options:\n"
            "  --after JOBID   the first stage waits for JOBID to succeed (afterok)\n"
            "  -n, --dry-run   print the sbatch commands as a shell script; submit nothing\n"
            "  -h, --help      this help\n\n"
            "Output: one line per job: <stage> <job id> <sbatch command>.\n"
            "Exit status: 0 all submitted, 1 a conf error or a rejected submission\n"
            "(what was already submitted is listed), 2 usage error.\n");
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* Positionals: CONF, then stage names (each at most once). */
static int add_positional(struct submit_opts *o, const char *arg)
{
    if (!o->conf) {
        o->conf = arg;
        return 0;
    }
    if (!submit_is_stage(arg))
        return cli_usage_error("submit", "'%s' is not a stage (plain, pmc, power)", arg);
    for (size_t i = 0; i < o->nstages; i++)
        if (strcmp(o->stages[i], arg) == 0)
            return cli_usage_error("submit", "stage '%s' given twice", arg);
    o->stages[o->nstages++] = arg;
    return 0;
}

/* 0 ok, 1 help printed, BR_EXIT_USAGE on a usage error. */
static int parse_args(int argc, char **argv, struct submit_opts *o)
{
    static const struct option longopts[] = {
        { .name = "after", .has_arg = required_argument, .val = 'a' },
        { .name = "dry-run", .has_arg = no_argument, .val = 'n' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "nh", longopts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (!all_digits(optarg))
                return cli_usage_error("submit", "--after: expected a job id, got '%s'", optarg);
            o->after = optarg;
            break;
        case 'n': o->dry_run = true; break;
        case 'h': usage(stdout); return 1;
        default: return cli_usage_error("submit", "unknown option");
        }
    }
    for (int i = optind; i < argc; i++)
        if (add_positional(o, argv[i]) != 0)
            return BR_EXIT_USAGE;
    if (!o->conf)
        return cli_usage_error("submit", "missing CONF");
    if (o->nstages == 0) {
        o->stages[0] = "plain";
        o->stages[1] = "pmc";
        o->stages[2] = "power";
        o->nstages = 3;
    }
    return 0;
}

/* Fills the parts of p that need looking up: wrappers, exe, the plain run
 * behind the pmc estimate (*plain, borrowed by p). Notes go to *notes. */
static int resolve_params(const struct br_conf *c, const struct submit_opts *o,
                          struct submit_params *p, char **scripts, char **exe,
                          struct submit_plain_run *plain, struct strv *notes)
{
    *scripts = submit_scripts_dir();
    if (!*scripts)
        return -1;
    *exe = fs_self_exe();
    *p = (struct submit_params){
        .conf_path = c->path, .workload = c->workload, .results_dir = c->results_dir,
        .partition = c->partition, .nnodes = c->nnodes, .ntasks = c->ntasks,
        .time_limit = c->time_limit, .scripts_dir = *scripts, .benchrun_exe = *exe,
        .after = o->after,
    };
    if (!c->partition)
        strv_push(notes, "PARTITION not set in the conf: no -p, the cluster's default "
                         "partition is used");
    bool want_pmc = false;
    for (size_t i = 0; i < o->nstages; i++)
        want_pmc |= strcmp(o->stages[i], "pmc") == 0;
    if (!want_pmc || submit_find_plain(c->results_dir, plain) != 0)
        return 0;
    char *why = NULL;
    if (submit_pmc_passes(c, plain->arch, &p->pmc_passes, &why) != 0) {
        strv_pushf(notes, "pmc: %s: no -t estimate from %s", why, plain->run);
        free(why);
        return 0;
    }
    p->plain_wall_s = plain->wall_s;
    p->plain_run = plain->run;
    return 0;
}

/* The dry-run line: name=$(sbatch ...), the dependency as a shell reference. */
static void print_dry_line(const struct submit_job *j)
{
    struct strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < j->argv.n; i++) {
        if (i)
            sb_addc(&sb, ' ');
        if (strncmp(j->argv.v[i], "--dependency=afterok:$", 22) == 0)
            sb_adds(&sb, j->argv.v[i]);   /* keep $name expandable */
        else
            sh_quote(&sb, j->argv.v[i]);
    }
    printf("%s=$(%s)\n", j->stage, sb.buf);
    sb_release(&sb);
}

static int dry_run(const struct submit_params *p, const struct submit_opts *o,
                   const struct strv *notes)
{
    printf("# benchrun submit --dry-run: nothing was submitted; as a shell script:\n");
    for (size_t i = 0; i < notes->n; i++)
        printf("# %s\n", notes->v[i]);
    struct strbuf dir;                    /* sbatch cannot open --output in a missing folder */
    sb_init(&dir);
    sh_quote(&dir, p->results_dir);
    printf("mkdir -p %s\n", dir.buf);
    sb_release(&dir);
    const char *prev = o->after;
    char *ref = NULL;
    for (size_t i = 0; i < o->nstages; i++) {
        struct submit_job j;
        int rc = submit_build(p, o->stages[i], prev, &j);
        if (rc == 0) {
            printf("# %s\n", j.time_note);
            print_dry_line(&j);
        }
        submit_job_release(&j);
        if (rc != 0) {
            free(ref);
            return BR_EXIT_FAIL;
        }
        free(ref);
        prev = ref = xasprintf("$%s", o->stages[i]);
    }
    free(ref);
    printf("echo \"submitted:");
    for (size_t i = 0; i < o->nstages; i++)
        printf(" %s=$%s", o->stages[i], o->stages[i]);
    printf("\"\n");
    return BR_EXIT_OK;
}

/* After a rejected stage: exactly what is in the queue now. */
static void report_partial(const struct submit_job *jobs, size_t n)
{
    struct strbuf done, ids, rest;
    sb_init(&done);
    sb_init(&ids);
    sb_init(&rest);
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].job_id) {
            sb_addf(&done, "%s%s job %s", done.len ? ", " : "", jobs[i].stage, jobs[i].job_id);
            sb_addf(&ids, " %s", jobs[i].job_id);
        } else {
            sb_addf(&rest, "%s%s", rest.len ? ", " : "", jobs[i].stage);
        }
    }
    if (done.len)
        br_error("submit: already submitted and still queued: %s (cancel with: scancel%s); "
                 "not submitted: %s", done.buf, ids.buf, rest.buf);
    else
        br_error("submit: nothing was submitted");
    sb_release(&done);
    sb_release(&ids);
    sb_release(&rest);
}

/* Submits the chain; 0 when every stage was accepted. */
static int submit_all(const struct submit_params *p, const struct submit_opts *o,
                      struct submit_job *jobs)
{
    const char *prev = o->after;
    size_t built = 0;
    int rc = 0;
    for (size_t i = 0; i < o->nstages && rc == 0; i++) {
        if (submit_build(p, o->stages[i], prev, &jobs[i]) != 0) {
            rc = -1;
        } else if (submit_run(&jobs[i]) != 0) {
            rc = -1;
        } else {
            fprintf(stderr, "benchrun: note: %s\n", jobs[i].time_note);
            char *cmd = strv_quoted(&jobs[i].argv);
            printf("%-5s %s %s\n", jobs[i].stage, jobs[i].job_id, cmd);
            fflush(stdout);
            free(cmd);
            prev = jobs[i].job_id;
        }
        built = i + 1;
    }
    for (size_t i = built; i < o->nstages; i++) {   /* named in the record */
        memset(&jobs[i], 0, sizeof(jobs[i]));
        strv_init(&jobs[i].argv);
        jobs[i].stage = o->stages[i];
    }
    return rc;
}

static int submit_real(const struct submit_params *p, const struct submit_opts *o,
                       const struct strv *notes)
{
    if (!proc_which("sbatch", NULL)) {
        br_error("submit: sbatch not found in PATH: run this on a Slurm login node (nothing "
                 "was submitted)");
        return BR_EXIT_FAIL;
    }
    if (fs_mkdir_p(p->results_dir) != 0 || submit_record_check(p->results_dir) != 0)
        return BR_EXIT_FAIL;
    for (size_t i = 0; i < notes->n; i++)
        fprintf(stderr, "benchrun: note: %s\n", notes->v[i]);
    struct submit_job jobs[SUBMIT_MAX_STAGES];
    int rc = submit_all(p, o, jobs);
    if (rc != 0)
        report_partial(jobs, o->nstages);
    char *rec = fs_path_join(p->results_dir, "submitted.json");
    if (submit_record(p, jobs, o->nstages, rc == 0) == 0)
        fprintf(stderr, "benchrun: job ids recorded in %s\n", rec);
    else
        rc = -1;
    free(rec);
    for (size_t i = 0; i < o->nstages; i++)
        submit_job_release(&jobs[i]);
    return rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
}

int cmd_submit(int argc, char **argv)
{
    struct submit_opts o = { 0 };
    int prc = parse_args(argc, argv, &o);
    if (prc != 0)
        return prc == 1 ? BR_EXIT_OK : prc;
    struct br_conf c;
    if (br_conf_load(o.conf, NULL, BR_CONF_CHECK_FILES, &c) != 0)
        return BR_EXIT_FAIL;
    struct submit_params p;
    struct strv notes;
    strv_init(&notes);
    char *scripts = NULL, *exe = NULL;
    struct submit_plain_run plain = { 0 };
    int rc = BR_EXIT_FAIL;
    if (resolve_params(&c, &o, &p, &scripts, &exe, &plain, &notes) == 0)
        rc = o.dry_run ? dry_run(&p, &o, &notes) : submit_real(&p, &o, &notes);
    strv_release(&notes);
    free(scripts);
    free(exe);
    submit_plain_run_release(&plain);
    br_conf_release(&c);
    return rc;
}
