/* submit.c - sbatch command lines, the afterok chain and submitted.json.
 *
 * Owns: Slurm time-limit strings (parse/format), the pmc time estimate,
 * building and running one sbatch per stage, parsing `sbatch --parsable`,
 * finding the newest successful plain run, and RESULTS_DIR/submitted.json.
 * Units: seconds. Facts: sbatch(1) and slurm.conf(5) of slurm-wlm 22.05
 * (time formats, --parsable "<id>[;<cluster>]"); the seed README's
 * "allow ~passes x 3 x plain wall time" for the counter passes.
 * SPDX-License-Identifier: MIT
 */
#include "stage/submit.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arch/passes.h"
#include "conf/conf.h"
#include "util/error.h"
#include "util/textesc.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

bool submit_is_stage(const char *name)
{
    return name && (strcmp(name, "plain") == 0 || strcmp(name, "pmc") == 0 ||
                    strcmp(name, "power") == 0);
}

/* ---- time limits ----------------------------------------------------- */

/* Parses up to max ':'-separated non-negative integers; returns the count
 * or -1. */
static int parse_colon_fields(const char *s, long *f, int max)
{
    int n = 0;
    while (n < max) {
        if (!isdigit((unsigned char)*s))
            return -1;
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || v > 100000000L)
            return -1;
        f[n++] = v;
        if (*end == '\0')
            return n;
        if (*end != ':')
            return -1;
        s = end + 1;
    }
    return -1;
}

/* Longest limit accepted: 100000 days (Slurm's own cap is far below). */
#define SLURM_TIME_MAX_S (100000L * 86400L)

static int time_parse(const char *s, long *seconds);

int submit_slurm_time_parse(const char *s, long *seconds)
{
    long v;
    if (time_parse(s, &v) != 0 || v > SLURM_TIME_MAX_S)
        return -1;
    *seconds = v;
    return 0;
}

static int time_parse(const char *s, long *seconds)
{
    if (!s || !*s)
        return -1;
    if (strcasecmp(s, "UNLIMITED") == 0 || strcasecmp(s, "INFINITE") == 0) {
        *seconds = -1;
        return 0;
    }
    long f[3], days = 0;
    const char *dash = strchr(s, '-');
    if (dash) {                           /* D-H, D-H:M, D-H:M:S */
        char *end;
        if (!isdigit((unsigned char)*s))
            return -1;
        days = strtol(s, &end, 10);
        if (end != dash || days > 100000)
            return -1;
        int n = parse_colon_fields(dash + 1, f, 3);
        if (n < 1)
            return -1;
        long h = f[0], m = n > 1 ? f[1] : 0, sec = n > 2 ? f[2] : 0;
        *seconds = ((days * 24 + h) * 60 + m) * 60 + sec;
        return 0;
    }
    int n = parse_colon_fields(s, f, 3);  /* M, M:S, H:M:S */
    if (n == 1)
        *seconds = f[0] * 60;
    else if (n == 2)
        *seconds = f[0] * 60 + f[1];
    else if (n == 3)
        *seconds = (f[0] * 60 + f[1]) * 60 + f[2];
    else
        return -1;
    return 0;
}

char *submit_slurm_time_format(long seconds)
{
    if (seconds < 0)
        return xstrdup("UNLIMITED");
    long d = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
    if (d > 0)
        return xasprintf("%ld-%02ld:%02ld:%02ld", d, h, m, s);
    return xasprintf("%02ld:%02ld:%02ld", h, m, s);
}

long submit_pmc_seconds(long passes, double wall_s)
{
    if (passes <= 0 || !(wall_s > 0) || !isfinite(wall_s))
        return -1;
    double minutes = ceil((double)passes * 3.0 * wall_s / 60.0);
    if (minutes < 1)
        minutes = 1;
    if (minutes > 1e8)
        minutes = 1e8;
    return (long)minutes * 60;
}

/* pmc: the estimate from the plain run, or TIME_LIMIT when longer. */
static int pmc_time_limit(const struct submit_params *p, long conf_s, char **limit,
                          char **note)
{
    long est = submit_pmc_seconds(p->pmc_passes, p->plain_wall_s);
    if (est < 0)
        return 1;                         /* no estimate: caller falls back */
    if (p->time_limit && (conf_s < 0 || conf_s >= est)) {
        *limit = xstrdup(p->time_limit);
        *note = xasprintf("pmc -t %s: TIME_LIMIT, not shorter than %ld passes x 3 x plain "
                          "wall %.1f s (%s)", p->time_limit, p->pmc_passes, p->plain_wall_s,
                          p->plain_run ? p->plain_run : "plain run");
        return 0;
    }
    *limit = submit_slurm_time_format(est);
    *note = xasprintf("pmc -t %s: %ld passes x 3 x plain wall %.1f s (%s), rounded up to "
                      "whole minutes", *limit, p->pmc_passes, p->plain_wall_s,
                      p->plain_run ? p->plain_run : "plain run");
    return 0;
}

int submit_time_limit(const struct submit_params *p, const char *stage, char **limit,
                      char **note)
{
    *limit = *note = NULL;
    long conf_s = 0;
    if (p->time_limit && submit_slurm_time_parse(p->time_limit, &conf_s) != 0)
        return br_error("%s: TIME_LIMIT '%s' is not a Slurm time (minutes, M:S, H:M:S, "
                        "D-H, D-H:M, D-H:M:S or UNLIMITED)", p->conf_path, p->time_limit);
    if (strcmp(stage, "pmc") == 0 && pmc_time_limit(p, conf_s, limit, note) == 0)
        return 0;
    if (p->time_limit) {
        *limit = xstrdup(p->time_limit);
        *note = xasprintf("%s -t %s: TIME_LIMIT", stage, p->time_limit);
        return 0;
    }
    char *script = xasprintf("%s/run_%s.sbatch", p->scripts_dir, stage);
    char *def = submit_sbatch_script_time(script);
    char *applies = def ? xasprintf("the #SBATCH --time=%s of run_%s.sbatch applies", def, stage)
                        : xstrdup("the partition's default time limit applies");
    if (strcmp(stage, "pmc") == 0)
        *note = xasprintf("pmc: no TIME_LIMIT and no successful plain run in RESULTS_DIR: no -t, "
                          "%s (allow ~passes x 3 x the plain wall time)", applies);
    else
        *note = xasprintf("%s: no TIME_LIMIT: no -t, %s", stage, applies);
    free(applies);
    free(def);
    free(script);
    return 0;
}

/* The value of a "#SBATCH --time=T" / "#SBATCH -t T" line of the script's
 * header (sbatch stops reading #SBATCH at the first command line). */
char *submit_sbatch_script_time(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    char *line = NULL, *val = NULL;
    size_t cap = 0;
    ssize_t n;
    while (!val && (n = getline(&line, &cap, fp)) > 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != '#' && line[0] != '\0')
            break;                        /* first command: no more #SBATCH */
        const char *v = NULL;
        if (strncmp(line, "#SBATCH --time=", 15) == 0)
            v = line + 15;
        else if (strncmp(line, "#SBATCH -t ", 11) == 0)
            v = line + 11;
        if (v) {
            v += strspn(v, " \t");
            val = xstrndup(v, strcspn(v, " \t#"));
        }
    }
    free(line);
    fclose(fp);
    if (val && !*val) {
        free(val);
        val = NULL;
    }
    return val;
}

/* ---- building the command -------------------------------------------- */

int submit_build(const struct submit_params *p, const char *stage, const char *dep,
                 struct submit_job *job)
{
    memset(job, 0, sizeof(*job));
    strv_init(&job->argv);
    job->stage = strcmp(stage, "plain") == 0 ? "plain" : strcmp(stage, "pmc") == 0 ? "pmc"
                                                                                 : "power";
    if (submit_time_limit(p, stage, &job->time_limit, &job->time_note) != 0)
        return -1;
    struct strv *a = &job->argv;
    strv_push(a, "sbatch");
    strv_push(a, "--parsable");
    if (p->partition && *p->partition) {
        strv_push(a, "-p");
        strv_push(a, p->partition);
    }
    strv_push(a, "-N");
    strv_pushf(a, "%ld", p->nnodes > 0 ? p->nnodes : 1);
    strv_push(a, "-n");
    strv_pushf(a, "%ld", p->ntasks > 0 ? p->ntasks : 1);
    strv_push(a, "-J");
    strv_pushf(a, "%s-%s", p->workload, job->stage);
    if (job->time_limit) {
        strv_push(a, "-t");
        strv_push(a, job->time_limit);
    }
    strv_push(a, "--output");
    strv_pushf(a, "%s/%s-%s-%%j.out", p->results_dir, p->workload, job->stage);
    if (dep) {
        job->depends_on = xstrdup(dep);
        strv_pushf(a, "--dependency=afterok:%s", dep);
    }
    if (p->benchrun_exe && !strchr(p->benchrun_exe, ','))
        strv_pushf(a, "--export=ALL,BENCHRUN=%s", p->benchrun_exe);
    strv_pushf(a, "%s/run_%s.sbatch", p->scripts_dir, job->stage);
    strv_push(a, p->conf_path);
    return 0;
}

void submit_job_release(struct submit_job *job)
{
    strv_release(&job->argv);
    free(job->time_limit);
    free(job->time_note);
    free(job->depends_on);
    free(job->job_id);
    memset(job, 0, sizeof(*job));
}

char *submit_parse_jobid(const char *out)
{
    const char *s = out;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = 0;
    while (isdigit((unsigned char)s[n]))
        n++;
    if (n == 0 || n > 20)
        return NULL;
    const char *rest = s + n;
    if (*rest == ';') {                   /* "<id>;<cluster>" */
        rest += strcspn(rest, "\n");
    }
    while (*rest == '\n' || *rest == '\r' || *rest == ' ')
        rest++;
    if (*rest)
        return NULL;                      /* more than one line / not an id */
    return xstrndup(s, n);
}

/* ---- running sbatch --------------------------------------------------- */

/* sbatch's stderr, each line prefixed, on our stderr. */
static void relay_stderr(const char *text)
{
    const char *s = text;
    while (*s) {
        size_t n = strcspn(s, "\n");
        if (n > 0)
            fprintf(stderr, "  | %.*s\n", (int)n, s);
        s += n;
        if (*s)
            s++;
    }
}

int submit_run(struct submit_job *job)
{
    struct strbuf out, err;
    sb_init(&out);
    sb_init(&err);
    int status = 0, ret = -1;
    if (proc_capture((const char *const *)job->argv.v, &out, &err, &status) != 0)
        goto done;                        /* could not fork: printed */
    if (status == 127 && !err.len) {
        br_error("submit: cannot run '%s' (is this a Slurm login node?)", job->argv.v[0]);
        goto done;
    }
    if (status != 0) {
        br_error("submit: sbatch rejected the %s job (exit status %d); sbatch said:",
                 job->stage, status);
        relay_stderr(err.len ? err.buf : "(nothing on stderr)\n");
        goto done;
    }
    job->job_id = submit_parse_jobid(out.buf);
    if (!job->job_id) {
        br_error("submit: sbatch accepted the %s job but printed no job id: '%s'", job->stage,
                 out.buf);
        relay_stderr(err.buf);
        goto done;
    }
    relay_stderr(err.buf);                /* warnings of an accepted job */
    ret = 0;
done:
    sb_release(&out);
    sb_release(&err);
    return ret;
}

/* ---- submitted.json ---------------------------------------------------- */

static char *record_path(const char *results_dir)
{
    return fs_path_join(results_dir, "submitted.json");
}

/* Loads submitted.json, or a fresh {"submissions": []} when absent. */
static json_t *record_load(const char *path)
{
    if (!fs_exists(path))
        return json_pack("{s:[]}", "submissions");
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        br_error_at(path, je.line, je.column, "cannot be read as JSON: %s (move it away to "
                    "start a new record)", je.text);
        return NULL;
    }
    if (!json_is_array(json_object_get(root, "submissions"))) {
        json_decref(root);
        br_error("%s: no \"submissions\" array (move it away to start a new record)", path);
        return NULL;
    }
    return root;
}

int submit_record_check(const char *results_dir)
{
    char *path = record_path(results_dir);
    json_t *root = record_load(path);
    free(path);
    if (!root)
        return -1;
    json_decref(root);
    return 0;
}

static json_t *job_json(const struct submit_job *j)
{
    json_t *cmd = json_array();
    for (size_t i = 0; i < j->argv.n; i++)
        json_array_append_new(cmd, esc_json_string(j->argv.v[i]));
    return json_pack("{s:s, s:o, s:o, s:o, s:o}", "stage", j->stage,
                     "job_id", j->job_id ? esc_json_string(j->job_id) : json_null(),
                     "depends_on", j->depends_on ? esc_json_string(j->depends_on) : json_null(),
                     "time_limit", j->time_limit ? esc_json_string(j->time_limit) : json_null(),
                     "command", cmd);
}

static char *utc_now(void)
{
    time_t t = time(NULL);
    struct tm tm;
    char buf[32];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return xstrdup(buf);
}

int submit_record(const struct submit_params *p, const struct submit_job *jobs,
                  size_t n, bool complete)
{
    char *path = record_path(p->results_dir);
    json_t *root = record_load(path);
    if (!root) {
        free(path);
        return -1;
    }
    json_t *done = json_array(), *missing = json_array();
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].job_id)
            json_array_append_new(done, job_json(&jobs[i]));
        else
            json_array_append_new(missing, esc_json_string(jobs[i].stage));
    }
    char *date = utc_now();
    json_t *entry = json_pack("{s:s, s:o, s:o, s:b, s:o, s:o}", "date", date, "conf",
                              esc_json_string(p->conf_path), "workload",
                              esc_json_string(p->workload), "complete", complete,
                              "jobs", done, "not_submitted", missing);
    free(date);
    json_array_append_new(json_object_get(root, "submissions"), entry);
    char *text = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    int rc = -1;
    if (text) {
        size_t len = strlen(text);
        text[len] = '\n';                 /* replace NUL: file ends with a newline */
        rc = fs_write_atomic(path, text, len + 1);
        free(text);
    }
    free(path);
    return rc;
}

/* ---- the plain run the pmc estimate comes from ------------------------- */

/* Wall seconds of a finished, successful run (run.json written by
 * stage_run_info_write: "status": "ok", "exit_status": 0, "wall_time_s"), or -1;
 * *arch gets its "gpu_arch" when present. */
static double plain_wall_from_json(const char *path, char **arch)
{
    *arch = NULL;
    json_t *root = json_load_file(path, 0, NULL);
    if (!root)
        return -1;
    double wall = -1;
    json_t *ex = json_object_get(root, "exit_status");
    json_t *w = json_object_get(root, "wall_time_s");
    json_t *status = json_object_get(root, "status");
    bool ok = json_is_integer(ex) && json_integer_value(ex) == 0 &&
              (!status || (json_is_string(status) && strcmp(json_string_value(status), "ok") == 0));
    if (ok && json_is_number(w))
        wall = json_number_value(w);
    json_t *a = json_object_get(root, "gpu_arch");
    if (wall > 0 && isfinite(wall) && json_is_string(a) && *json_string_value(a))
        *arch = xstrdup(json_string_value(a));
    json_decref(root);
    return wall > 0 && isfinite(wall) ? wall : -1;
}

/* Keeps the newest candidate (by run.json mtime). */
static void keep_newest(struct submit_plain_run *best, struct timespec *best_t, const char *name,
                        double wall, char *arch, const struct timespec *t)
{
    if (best->run && (t->tv_sec < best_t->tv_sec ||
                      (t->tv_sec == best_t->tv_sec && t->tv_nsec <= best_t->tv_nsec))) {
        free(arch);
        return;
    }
    submit_plain_run_release(best);
    best->run = xstrdup(name);
    best->wall_s = wall;
    best->arch = arch;
    *best_t = *t;
}

int submit_find_plain(const char *results_dir, struct submit_plain_run *out)
{
    memset(out, 0, sizeof(*out));
    DIR *d = opendir(results_dir);
    if (!d)
        return 1;
    struct timespec best_t = { 0, 0 };
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "plain-", 6) != 0)
            continue;
        char *path = xasprintf("%s/%s/run.json", results_dir, e->d_name);
        struct stat st;
        char *arch = NULL;
        double w = stat(path, &st) == 0 ? plain_wall_from_json(path, &arch) : -1;
        free(path);
        if (w > 0)
            keep_newest(out, &best_t, e->d_name, w, arch, &st.st_mtim);
    }
    closedir(d);
    return out->run ? 0 : 1;
}

void submit_plain_run_release(struct submit_plain_run *r)
{
    free(r->run);
    free(r->arch);
    memset(r, 0, sizeof(*r));
}

/* ---- where the sbatch wrappers are ------------------------------------- */

static bool has_wrappers(const char *dir)
{
    char *p = fs_path_join(dir, "run_plain.sbatch");
    bool ok = fs_exists(p);
    free(p);
    return ok;
}

char *submit_scripts_dir(void)
{
    const char *env = getenv("BENCHRUN_SCRIPTS");
    if (env && *env) {
        if (has_wrappers(env))
            return fs_abspath(env);
        br_error("BENCHRUN_SCRIPTS='%s' holds no run_plain.sbatch", env);
        return NULL;
    }
    char *share = fs_share_dir();
    if (!share)
        return NULL;
    const char *cands[] = { "scripts", "../../scripts" };
    for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
        char *dir = fs_path_join(share, cands[i]);
        if (has_wrappers(dir)) {
            char *abs = fs_abspath(dir);
            free(dir);
            free(share);
            return abs;
        }
        free(dir);
    }
    br_error("no sbatch wrappers (run_plain.sbatch) under '%s/scripts' or the source tree's "
             "scripts/: is benchrun installed (make install)?", share);
    free(share);
    return NULL;
}

/* ---- how many counter passes ------------------------------------------- */

/* The first message the loader printed, kept as the reason. */
static void keep_first(void *ctx, int is_warning, const char *msg)
{
    char **why = ctx;
    if (!is_warning && !*why)
        *why = xstrdup(msg);
}

int submit_pmc_passes(const struct br_conf *c, const char *arch, long *passes, char **why)
{
    if (!arch)
        arch = c->arch;
    const char *set = c->counters ? c->counters : "default";
    *why = NULL;
    bool file = arch_set_is_file(set);
    if (!file && !arch) {
        *why = xstrdup("ARCH is not set in the conf and no plain run recorded the GPU, so "
                       "the counter set is not known here");
        return -1;
    }
    /* a COUNTERS file is relative to the conf's folder; the GPU name (sm_90)
     * maps to its profile (gh100) inside arch_passes_load */
    char *path = file && set[0] != '/' ? fs_path_join(c->dir, set) : xstrdup(set);
    struct arch_passes p;
    br_error_sink sink;
    void *sink_ctx;
    br_error_get_sink(&sink, &sink_ctx);
    br_error_set_sink(keep_first, why);
    int rc = arch_passes_load(&p, path, file ? NULL : arch);
    br_error_set_sink(sink, sink_ctx);
    if (rc == 0) {
        *passes = (long)p.n;
        free(*why);
        *why = NULL;
        arch_passes_release(&p);
    } else if (!*why) {
        *why = xasprintf("cannot read the counter set '%s'", set);
    }
    free(path);
    return rc;
}
