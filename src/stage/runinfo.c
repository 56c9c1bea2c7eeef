/* runinfo.c - run_info.txt ("key: value" lines, for people) and run.json (the
 * same facts, for programs) in every run folder (runinfo.h).
 * Both files are rewritten as a pair (both temporaries complete, then both
 * renamed): "starting" once the folder exists, "running" with the app, then
 * the end, so a killed job still leaves a complete, agreeing pair. Values
 * are escaped: one line each in the text file, valid UTF-8 in the JSON
 * (util/textesc.h). */
#include "stage/runinfo.h"
#include "stage/stage.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/stopsig.h"
#include "util/strbuf.h"
#include "util/textesc.h"
#include "util/xalloc.h"

#include <errno.h>
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
    json_object_set_new(o, k, esc_json_string(v));
}

static json_t *base_json(const struct stage *st, const struct strv *command)
{
    const struct br_conf *c = &st->conf;
    char host[256] = "unknown";
    gethostname(host, sizeof(host) - 1);
    char *date = iso_utc(st->t_start);
    json_t *o = json_object();
    set_str(o, "stage", stage_name(st));
    set_str(o, "workload", c->workload);
    set_str(o, "description", c->workload_desc);
    set_str(o, "conf", c->path);
    set_str(o, "host", host);
    set_str(o, "date", date);
    set_str(o, "job_id", st->jobid);
    set_str(o, "vendor", gpu_vendor_name(st->vendor));
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

static void add_result(json_t *o, const char *status, const struct stage_exec_result *r)
{
    set_str(o, "status", status);
    if (!r)
        return;
    json_object_set_new(o, "exit_status", r->started || r->exit_code >= 0
                                              ? json_integer(r->exit_code) : json_null());
    json_object_set_new(o, "wall_time_s", json_real(r->wall_s));
    set_str(o, "reason", r->reason);
    set_str(o, "signal", r->forwarded_signal ? stopsig_name(r->forwarded_signal) : NULL);
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
            sb_addf(sb, "%s%s: ", prefix, k);
            esc_line(sb, json_string_value(v));
            sb_addc(sb, '\n');
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

/* Both temporaries first, then the two renames back to back. */
static int write_files(const char *rundir, json_t *o)
{
    struct strbuf txt;
    sb_init(&txt);
    txt_add(&txt, "", o);
    char *js = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!js) {
        sb_release(&txt);
        return br_error("%s: cannot encode run.json", rundir);
    }
    char *json = xasprintf("%s\n", js);
    free(js);
    const char *names[2] = { "run.json", "run_info.txt" };
    const char *data[2] = { json, txt.buf };
    size_t len[2] = { strlen(json), txt.len };
    struct fs_atomic a[2];
    int rc = 0, opened = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        char *path = fs_path_join(rundir, names[i]);
        rc = fs_atomic_open(&a[i], path);
        free(path);
        if (rc != 0)
            break;
        opened = i + 1;
        rc = fwrite(data[i], 1, len[i], a[i].fp) == len[i] ? fs_atomic_sync(&a[i])
                                                          : fs_atomic_fail(&a[i]);
    }
    for (int i = 0; i < opened; i++) {
        if (rc == 0)
            rc = fs_atomic_rename(&a[i]);
        else
            fs_atomic_abort(&a[i]);
    }
    free(json);
    sb_release(&txt);
    return rc;
}

static int write_record(const struct stage *st, const struct strv *command, const char *status,
                        const struct stage_exec_result *r, json_t *extra)
{
    json_t *o = base_json(st, command);
    add_result(o, status, r);
    if (extra)
        json_object_update(o, extra);
    int rc = write_files(st->rundir, o);
    json_decref(o);
    return rc;
}

int stage_run_info_write(const struct stage *st, const struct strv *command,
                         const struct stage_exec_result *r, json_t *extra)
{
    return write_record(st, command, r ? stage_run_status(r) : "running", r, extra);
}

int stage_run_info_starting(const struct stage *st)
{
    return write_record(st, NULL, "starting", NULL, NULL);
}
