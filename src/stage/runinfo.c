/* runinfo.c - run_info.txt ("key: value" lines, for people) and run.json (the
 * same facts, for programs) in every run folder; PERF_GREP matching.
 * Both files are rewritten atomically: once at start (status "running"), once
 * at the end, so a killed job still leaves a complete first version. */
#include "stage/stage.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *iso_utc(double t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    char buf[40];
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return xstrdup(buf);
}

static void set_str(json_t *o, const char *k, const char *v)
{
    json_object_set_new(o, k, v ? json_string(v) : json_null());
}

static json_t *base_json(const struct br_stage *st, const struct strv *command)
{
    const struct br_conf *c = &st->conf;
    char host[256] = "unknown";
    gethostname(host, sizeof(host) - 1);
    char *date = iso_utc(st->t_start);
    json_t *o = json_object();
    set_str(o, "stage", br_stage_name(st));
    set_str(o, "workload", c->workload);
    set_str(o, "description", c->workload_desc);
    set_str(o, "conf", c->path);
    set_str(o, "host", host);
    set_str(o, "date", date);
    set_str(o, "job_id", st->jobid);
    set_str(o, "vendor", st->vendor);
    set_str(o, "gpu_arch", c->arch ? c->arch : st->gpus.arch);
    set_str(o, "gpu_name", st->gpus.name);
    set_str(o, "driver", st->gpus.driver);
    json_object_set_new(o, "gpus_seen", json_integer(st->gpus.count));
    json_t *lay = json_object();
    json_object_set_new(lay, "ngpus", json_integer(c->ngpus));
    json_object_set_new(lay, "ntasks", json_integer(c->ntasks));
    json_object_set_new(lay, "nnodes", json_integer(c->nnodes));
    json_object_set_new(lay, "bind_gpu_per_task", json_boolean(c->bind_gpu_per_task));
    json_object_set_new(o, "layout", lay);
    set_str(o, "run_dir", st->rundir);
    char *cmd = command ? strv_quoted(command) : NULL;
    set_str(o, "command", cmd);
    free(cmd);
    char *app = strv_quoted(&c->app_cmd);
    set_str(o, "app_command", app);
    free(app);
    free(date);
    return o;
}

static void add_result(json_t *o, const struct br_exec_result *r)
{
    if (!r) {
        set_str(o, "status", "running");
        return;
    }
    set_str(o, "status", r->reason ? "killed" : r->exit_code == 0 ? "ok" : "failed");
    json_object_set_new(o, "exit_status", json_integer(r->exit_code));
    json_object_set_new(o, "wall_time_s", json_real(r->wall_s));
    set_str(o, "reason", r->reason);
}

/* One "key: value" line per scalar member; objects flattened as key.sub. */
static void txt_add(struct strbuf *sb, const char *prefix, json_t *o)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (json_is_object(v)) {
            char *p = xasprintf("%s%s.", prefix, k);
            txt_add(sb, p, v);
            free(p);
        } else if (json_is_string(v)) {
            sb_addf(sb, "%s%s: %s\n", prefix, k, json_string_value(v));
        } else if (json_is_integer(v)) {
            sb_addf(sb, "%s%s: %lld\n", prefix, k, (long long)json_integer_value(v));
        } else if (json_is_real(v)) {
            sb_addf(sb, "%s%s: %.3f\n", prefix, k, json_real_value(v));
        } else if (json_is_boolean(v)) {
            sb_addf(sb, "%s%s: %d\n", prefix, k, json_is_true(v) ? 1 : 0);
        } else if (json_is_null(v)) {
            sb_addf(sb, "%s%s: -\n", prefix, k);
        }
    }
}

static int write_files(const char *rundir, json_t *o)
{
    char *txt_path = fs_path_join(rundir, "run_info.txt");
    char *json_path = fs_path_join(rundir, "run.json");
    struct strbuf sb;
    sb_init(&sb);
    txt_add(&sb, "", o);
    int rc = fs_write_atomic(txt_path, sb.buf, sb.len);
    char *js = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (rc == 0) {
        size_t n = strlen(js);
        char *withnl = xasprintf("%s\n", js);
        rc = fs_write_atomic(json_path, withnl, n + 1);
        free(withnl);
    }
    free(js);
    sb_release(&sb);
    free(txt_path);
    free(json_path);
    return rc;
}

int br_run_info_write(const struct br_stage *st, const struct strv *command,
                      const struct br_exec_result *r, json_t *extra)
{
    json_t *o = base_json(st, command);
    add_result(o, r);
    if (extra)
        json_object_update(o, extra);
    int rc = write_files(st->rundir, o);
    json_decref(o);
    return rc;
}

int br_perf_grep(const char *pattern, const char *path, struct strv *out)
{
    regex_t re;
    int e = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (e != 0) {
        char msg[256];
        regerror(e, &re, msg, sizeof(msg));
        return br_error("PERF_GREP '%s' is not a valid extended regular expression: %s", pattern, msg);
    }
    FILE *fp = fopen(path, "r");
    if (!fp) {
        regfree(&re);
        return br_error("cannot open '%s': %s", path, strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (regexec(&re, line, 0, NULL, 0) == 0)
            strv_push(out, line);
    }
    free(line);
    fclose(fp);
    regfree(&re);
    return 0;
}
