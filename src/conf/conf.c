/* conf.c - load workload.conf by running bash, decode and validate the fields.
 *
 * Owns: the loader script (one bash process per load), the NUL-separated
 * record stream it prints, field defaults and every validation message.
 * Field meanings: seed README "Configuring a workload"; docs/conf.md.
 *
 * Record stream (bash writes it on fd 3, the conf's own stdout goes to
 * stderr so `echo` in a conf cannot corrupt it); every item ends with NUL:
 *   E syntax <bash -n message>      the conf does not parse (nothing else follows)
 *   S <NAME> <value>                a scalar that is set (maybe empty)
 *   A <NAME> <n> <v1> ... <vn>      an array (strings are split on blanks)
 *   F <function>                    stage_inputs / app_cmd / app_env defined
 *   R <status>                      app_cmd's return status
 *   Z                               the conf was sourced to the end
 */
#include "conf/conf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/stopsig.h"
#include "util/strbuf.h"
#include "util/textesc.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every field the loader prints. Scalars are printed with ${!name}; arrays
 * element by element (a plain string is split on blanks with read -a). */
#define BR_CONF_SCALARS                                                        \
    "WORKLOAD WORKLOAD_DESC PROFILING_DIR RESULTS_DIR NGPUS NTASKS "           \
    "BIND_GPU_PER_TASK SAMPLE_GPUS ROCM_PATH PROF_LT SAMPLE_MS PERF_GREP "      \
    "VENDOR ARCH PARTITION TIME_LIMIT COUNTERS NNODES SAMPLE_BACKEND ROCPROF_FORMAT GPU "  \
    "LAUNCHES"
#define BR_CONF_ARRAYS "MODULES REQUIRED_FILES LAUNCHER"

const char br_conf_loader_script[] =
    "exec 3>&1 1>&2\n"
    "__br_conf=$1\n"
    "if ! __br_msg=$(bash --norc --noprofile -n \"$__br_conf\" 2>&1); then\n"
    "  printf 'E\\0syntax\\0%s\\0' \"$__br_msg\" >&3; exit 0\n"
    "fi\n"
    "unset -f stage_inputs app_cmd app_env\n"
    "unset " BR_CONF_SCALARS " " BR_CONF_ARRAYS " APP_CMD\n"
    "OUT_DIR=$2; export OUT_DIR\n"
    "__br_s() { local __n; for __n; do [ -n \"${!__n+x}\" ] &&"
    " printf 'S\\0%s\\0%s\\0' \"$__n\" \"${!__n}\" >&3; done; return 0; }\n"
    "__br_a() {\n"
    "  local __n __d __e; local -a __v\n"
    "  for __n; do\n"
    "    __d=$(declare -p \"$__n\" 2>/dev/null) || continue\n"
    "    if [[ $__d =~ ^declare\\ -[a-zA-Z]*[aA] ]]; then local -n __r=$__n; __v=(\"${__r[@]}\"); unset -n __r\n"
    "    else read -r -d '' -a __v <<<\"${!__n}\"; fi\n"
    "    printf 'A\\0%s\\0%d\\0' \"$__n\" \"${#__v[@]}\" >&3\n"
    "    for __e in \"${__v[@]}\"; do printf '%s\\0' \"$__e\" >&3; done\n"
    "  done; return 0\n"
    "}\n"
    "source \"$__br_conf\"\n"
    "__br_s " BR_CONF_SCALARS "\n"
    "__br_a " BR_CONF_ARRAYS "\n"
    "for __f in stage_inputs app_cmd app_env; do\n"
    "  declare -F \"$__f\" >/dev/null && printf 'F\\0%s\\0' \"$__f\" >&3\n"
    "done\n"
    "if declare -F app_cmd >/dev/null; then\n"
    "  unset APP_CMD; app_cmd; printf 'R\\0%d\\0' \"$?\" >&3; __br_a APP_CMD\n"
    "fi\n"
    "printf 'Z\\0' >&3\n";

/* ---- record stream ---------------------------------------------------- */

struct reader {
    const char *p, *end;
};

/* Next NUL-terminated item; NULL when the stream ends (or has no NUL). */
static const char *next_item(struct reader *r)
{
    if (r->p >= r->end)
        return NULL;
    const char *nul = memchr(r->p, '\0', (size_t)(r->end - r->p));
    if (!nul)
        return NULL;
    const char *s = r->p;
    r->p = nul + 1;
    return s;
}

/* Raw values as bash printed them, before validation. */
struct raw {
    const char *scalar_name[32];
    const char *scalar_val[32];
    int nscalars;
    struct strv modules, required_files, launcher, app_cmd;
    bool app_cmd_set;
    bool fn_stage_inputs, fn_app_cmd, fn_app_env;
    long app_cmd_status;
    bool complete;
    const char *syntax_error;
};

static const char *raw_get(const struct raw *w, const char *name)
{
    for (int i = 0; i < w->nscalars; i++)
        if (strcmp(w->scalar_name[i], name) == 0)
            return w->scalar_val[i];
    return NULL;
}

static struct strv *raw_array(struct raw *w, const char *name)
{
    if (strcmp(name, "MODULES") == 0)
        return &w->modules;
    if (strcmp(name, "REQUIRED_FILES") == 0)
        return &w->required_files;
    if (strcmp(name, "LAUNCHER") == 0)
        return &w->launcher;
    if (strcmp(name, "APP_CMD") == 0) {
        w->app_cmd_set = true;
        return &w->app_cmd;
    }
    return NULL;
}

static int read_array(struct reader *r, struct raw *w)
{
    const char *name = next_item(r), *count = next_item(r);
    if (!name || !count)
        return -1;
    char *end;
    errno = 0;
    long n = strtol(count, &end, 10);
    if (errno || *end || n < 0)
        return -1;
    struct strv *dst = raw_array(w, name);
    for (long i = 0; i < n; i++) {
        const char *v = next_item(r);
        if (!v)
            return -1;
        if (dst)
            strv_push(dst, v);
    }
    return 0;
}

static int read_record(struct reader *r, struct raw *w, const char *tag)
{
    if (strcmp(tag, "S") == 0) {
        const char *name = next_item(r), *val = next_item(r);
        if (!name || !val)
            return -1;
        if (w->nscalars < (int)(sizeof(w->scalar_name) / sizeof(w->scalar_name[0]))) {
            w->scalar_name[w->nscalars] = name;
            w->scalar_val[w->nscalars++] = val;
        }
        return 0;
    }
    if (strcmp(tag, "A") == 0)
        return read_array(r, w);
    if (strcmp(tag, "F") == 0) {
        const char *fn = next_item(r);
        if (!fn)
            return -1;
        w->fn_stage_inputs |= strcmp(fn, "stage_inputs") == 0;
        w->fn_app_cmd |= strcmp(fn, "app_cmd") == 0;
        w->fn_app_env |= strcmp(fn, "app_env") == 0;
        return 0;
    }
    if (strcmp(tag, "R") == 0) {
        const char *st = next_item(r);
        if (!st)
            return -1;
        w->app_cmd_status = strtol(st, NULL, 10);
        return 0;
    }
    if (strcmp(tag, "E") == 0) {
        const char *kind = next_item(r);
        w->syntax_error = kind ? next_item(r) : NULL;
        if (!w->syntax_error)
            w->syntax_error = "";
        return 0;
    }
    if (strcmp(tag, "Z") == 0) {
        w->complete = true;
        return 0;
    }
    return -1;
}

static int parse_stream(const char *buf, size_t len, struct raw *w)
{
    struct reader r = { buf, buf + len };
    const char *tag;
    while ((tag = next_item(&r)) != NULL)
        if (read_record(&r, w, tag) != 0)
            return -1;
    return 0;
}

static void raw_release(struct raw *w)
{
    strv_release(&w->modules);
    strv_release(&w->required_files);
    strv_release(&w->launcher);
    strv_release(&w->app_cmd);
}

/* ---- validation --------------------------------------------------------- */

static int conf_err(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int conf_err(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = try_vasprintf(fmt, ap);
    va_end(ap);
    br_error_at(path, 0, 0, "%s", msg ? msg : "invalid workload conf");
    free(msg);
    return -1;
}

static char *opt_str(const struct raw *w, const char *name)
{
    const char *v = raw_get(w, name);
    return v && *v ? xstrdup(v) : NULL;
}

/* A positive integer field up to max; def < 0 means required. */
static int get_posint(const struct raw *w, const char *path, const char *name, long def, long max,
                      long *out)
{
    const char *v = raw_get(w, name);
    if (!v) {
        if (def < 0)
            return conf_err(path, "required field %s is not set", name);
        *out = def;
        return 0;
    }
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || errno || *end || n <= 0 || !isdigit((unsigned char)v[0]))
        return conf_err(path, "%s must be a positive integer, got '%s'", name, v);
    if (n > max)
        return conf_err(path, "%s=%ld is more than %ld", name, n, max);
    *out = n;
    return 0;
}

/* Absolute form of a path from the conf: relative ones are taken from the
 * conf's folder (the seed asks for absolute paths; this is a convenience). */
static char *conf_abs(const char *dir, const char *p)
{
    return p[0] == '/' ? xstrdup(p) : fs_path_join(dir, p);
}

/* The stages put WORKLOAD in file names; the longest,
 * profiling_result_<WORKLOAD>_<node>_<gpu>.csv, has 92 bytes more with a
 * 64-byte host name (HOST_NAME_MAX) and a 5-digit GPU index, and a name must
 * fit in NAME_MAX (255) bytes: 128 leaves room. */
#define BR_WORKLOAD_MAX 128

static int check_workload(const struct raw *w, const char *path, struct br_conf *c)
{
    const char *v = raw_get(w, "WORKLOAD");
    if (!v)
        return conf_err(path, "required field WORKLOAD is not set");
    if (!*v)
        return conf_err(path, "WORKLOAD is empty (a short tag used in file names, e.g. hns16812)");
    for (const char *s = v; *s; s++)
        if (iscntrl((unsigned char)*s) && *s != ' ') {
            struct strbuf sb;
            sb_init(&sb);
            esc_line(&sb, v);
            conf_err(path, "WORKLOAD must not hold control characters, got '%s'", sb.buf);
            sb_release(&sb);
            return -1;
        }
    for (const char *s = v; *s; s++)
        if (isspace((unsigned char)*s) || *s == '/')
            return conf_err(path, "WORKLOAD must be a tag without blanks or '/', got '%s'", v);
    if (v[0] == '-')
        return conf_err(path, "WORKLOAD must not start with '-' (it becomes an argument of "
                              "sbatch and the profilers), got '%s'", v);
    if (strlen(v) > BR_WORKLOAD_MAX)
        return conf_err(path, "WORKLOAD is %zu characters long; at most %d (it is part of file "
                              "names such as profiling_result_<WORKLOAD>_<node>_<gpu>.csv, which "
                              "must fit in 255 bytes)", strlen(v), BR_WORKLOAD_MAX);
    c->workload = xstrdup(v);
    return 0;
}

/* PERF_GREP is used with POSIX regcomp(REG_EXTENDED) after the app ran:
 * a bad pattern must be found before anything runs. */
static int check_perf_grep(const char *path, const struct br_conf *c)
{
    if (!c->perf_grep)
        return 0;
    regex_t re;
    int e = regcomp(&re, c->perf_grep, REG_EXTENDED | REG_NOSUB);
    if (e == 0) {
        regfree(&re);
        return 0;
    }
    char msg[256];
    regerror(e, &re, msg, sizeof(msg));
    return conf_err(path, "PERF_GREP '%s' is not a valid extended regular expression: %s",
                    c->perf_grep, msg);
}

static int check_sample_gpus(const char *path, struct br_conf *c, const char *v)
{
    if (!v || !*v) {
        struct strbuf sb;
        sb_init(&sb);
        for (long i = 0; i < c->ngpus; i++)
            sb_addf(&sb, "%s%ld", i ? "," : "", i);
        c->sample_gpus = sb_detach(&sb);
        return 0;
    }
    for (const char *s = v; *s; s++)
        if (!isdigit((unsigned char)*s) && !(*s == ',' && s != v && s[1] && s[1] != ','))
            return conf_err(path, "SAMPLE_GPUS must be GPU indices like 0 or 0,1,2,3, got '%s'", v);
    c->sample_gpus = xstrdup(v);
    return 0;
}

/* SAMPLE_GPUS, else the older seed confs' GPU=N (the one GPU sampled). */
static const char *sample_gpus_field(const struct raw *w)
{
    const char *v = raw_get(w, "SAMPLE_GPUS");
    return v && *v ? v : raw_get(w, "GPU");
}

static int check_bind(const char *path, struct br_conf *c, const char *v)
{
    if (!v || !*v || strcmp(v, "0") == 0)
        c->bind_gpu_per_task = false;
    else if (strcmp(v, "1") == 0)
        c->bind_gpu_per_task = true;
    else
        return conf_err(path, "BIND_GPU_PER_TASK must be 0 or 1, got '%s'", v);
    return 0;
}

static int check_rocprof_format(const char *path, const struct br_conf *c)
{
    const char *f = c->rocprof_format;
    if (strcmp(f, "auto") && strcmp(f, "csv") && strcmp(f, "rocpd"))
        return conf_err(path, "ROCPROF_FORMAT must be auto, csv or rocpd, got '%s'", f);
    return 0;
}

static int check_launches(const char *path, const struct br_conf *c)
{
    const char *l = c->launches;
    if (strcmp(l, "auto") && strcmp(l, "all") && strcmp(l, "sampled") && strncmp(l, "sampled:", 8))
        return conf_err(path, "LAUNCHES must be auto, all, sampled or sampled:FIRST:EVERY:BLOCKS:SEED, "
                        "got '%s'", l);
    return 0;
}

/* VENDOR, any case; unset = GPU_VENDOR_UNKNOWN (detected at run time). */
static int take_vendor(const struct raw *w, const char *path, struct br_conf *c)
{
    char *v = opt_str(w, "VENDOR");
    for (char *s = v; s && *s; s++)
        *s = (char)tolower((unsigned char)*s);
    int rc = !v || gpu_vendor_parse(v, &c->vendor) == 0 ? 0
           : conf_err(path, "VENDOR must be amd, nvidia or none, got '%s'", v);
    free(v);
    return rc;
}

static int check_numbers(const struct raw *w, const char *path, struct br_conf *c)
{
    /* Upper bounds: far above any cluster, low enough that nothing sized by
     * them (SAMPLE_GPUS default list) can exhaust memory. */
    if (get_posint(w, path, "NGPUS", -1, 65536, &c->ngpus) ||
        get_posint(w, path, "NTASKS", -1, 1000000, &c->ntasks) ||
        get_posint(w, path, "NNODES", 1, 100000, &c->nnodes) ||
        get_posint(w, path, "SAMPLE_MS", 1, 60000, &c->sample_ms))
        return -1;
    if (check_bind(path, c, raw_get(w, "BIND_GPU_PER_TASK")) ||
        check_sample_gpus(path, c, sample_gpus_field(w)))
        return -1;
    return 0;
}

static void take_strings(const struct raw *w, struct br_conf *c)
{
    const char *desc = raw_get(w, "WORKLOAD_DESC");
    c->workload_desc = xstrdup(desc ? desc : "");
    char *prof = opt_str(w, "PROFILING_DIR");
    c->profiling_dir = prof ? conf_abs(c->dir, prof) : xstrdup(c->dir);
    free(prof);
    c->rocm_path = opt_str(w, "ROCM_PATH");
    c->prof_lt = opt_str(w, "PROF_LT");
    c->perf_grep = opt_str(w, "PERF_GREP");
    c->arch = opt_str(w, "ARCH");
    c->partition = opt_str(w, "PARTITION");
    c->time_limit = opt_str(w, "TIME_LIMIT");
    c->counters = opt_str(w, "COUNTERS");
    c->sample_backend = opt_str(w, "SAMPLE_BACKEND");
    if (!c->sample_backend)
        c->sample_backend = xstrdup("auto");
    c->rocprof_format = opt_str(w, "ROCPROF_FORMAT");
    if (!c->rocprof_format)
        c->rocprof_format = xstrdup("auto");
    c->launches = opt_str(w, "LAUNCHES");
    if (!c->launches)
        c->launches = xstrdup("auto");
}

static int check_app_cmd(struct raw *w, const char *path, struct br_conf *c)
{
    if (!w->fn_app_cmd)
        return conf_err(path, "no app_cmd function (define app_cmd() { APP_CMD=(program args...); })");
    if (!w->app_cmd_set || w->app_cmd.n == 0)
        return conf_err(path, "app_cmd did not set APP_CMD (expected APP_CMD=(program args...))");
    if (w->app_cmd_status != 0)
        br_warn("%s: app_cmd returned status %ld (APP_CMD is used anyway)", path, w->app_cmd_status);
    c->app_cmd = w->app_cmd;
    memset(&w->app_cmd, 0, sizeof(w->app_cmd));
    c->has_app_env = w->fn_app_env;
    c->has_stage_inputs = w->fn_stage_inputs;
    return 0;
}

static void take_arrays(struct raw *w, struct br_conf *c)
{
    c->modules = w->modules;
    c->required_files = w->required_files;
    c->launcher = w->launcher;
    memset(&w->modules, 0, sizeof(w->modules));
    memset(&w->required_files, 0, sizeof(w->required_files));
    memset(&w->launcher, 0, sizeof(w->launcher));
    struct strv *arrs[] = { &c->modules, &c->required_files, &c->launcher, &c->app_cmd };
    for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++)
        if (!arrs[i]->v)
            strv_init(arrs[i]);
}

/* One line of bash -n output, without the "<path>: " prefix bash puts first. */
static void add_bash_line(struct strbuf *sb, const char *line, size_t n, const char *path)
{
    size_t pl = strlen(path);
    if (n > pl + 2 && strncmp(line, path, pl) == 0 && line[pl] == ':' && line[pl + 1] == ' ') {
        line += pl + 2;
        n -= pl + 2;
    }
    if (sb->len)
        sb_adds(sb, "; ");
    sb_add(sb, line, n);
}

static int syntax_error(const char *path, const char *msg)
{
    struct strbuf sb;
    sb_init(&sb);
    for (const char *s = msg; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (n)
            add_bash_line(&sb, s, n, path);
        s += n + (nl ? 1 : 0);
    }
    conf_err(path, "bash syntax error: %s", sb.len ? sb.buf : "(bash -n failed without a message)");
    sb_release(&sb);
    return -1;
}

static int validate(struct raw *w, const char *path, unsigned flags, struct br_conf *c)
{
    if (w->syntax_error)
        return syntax_error(path, w->syntax_error);
    if (!w->complete)
        return conf_err(path, "the conf stopped bash before its end (an 'exit' or a fatal error "
                              "while it was sourced)");
    if (check_workload(w, path, c) || check_numbers(w, path, c))
        return -1;
    const char *rd = raw_get(w, "RESULTS_DIR");
    if (!rd)
        return conf_err(path, "required field RESULTS_DIR is not set");
    if (!*rd)
        return conf_err(path, "RESULTS_DIR is empty");
    c->results_dir = conf_abs(c->dir, rd);
    take_strings(w, c);
    if (take_vendor(w, path, c) || check_rocprof_format(path, c) || check_perf_grep(path, c) ||
        check_launches(path, c) ||
        check_app_cmd(w, path, c))
        return -1;
    take_arrays(w, c);
    if ((flags & BR_CONF_CHECK_FILES) && br_conf_check_files(c) != 0)
        return -1;
    return 0;
}

static void conf_set_path(struct br_conf *c, const char *conf_path)
{
    c->path = xstrdup(conf_path);
    c->dir = xstrdup(conf_path);
    char *slash = strrchr(c->dir, '/');
    if (slash && slash != c->dir)
        *slash = '\0';
    else if (slash)
        slash[1] = '\0';
    else {
        free(c->dir);
        c->dir = xstrdup(".");
    }
}

int br_conf_decode(const char *buf, size_t len, const char *conf_path, unsigned flags,
                   struct br_conf *out)
{
    memset(out, 0, sizeof(*out));
    conf_set_path(out, conf_path);
    struct raw w;
    memset(&w, 0, sizeof(w));
    int rc;
    if (parse_stream(buf, len, &w) != 0)
        rc = conf_err(conf_path, "internal error: malformed output from the bash loader");
    else
        rc = validate(&w, conf_path, flags, out);
    raw_release(&w);
    if (rc != 0)
        br_conf_release(out);
    return rc;
}

int br_conf_check_files(const struct br_conf *c)
{
    for (size_t i = 0; i < c->required_files.n; i++) {
        char *p = conf_abs(c->dir, c->required_files.v[i]);
        bool ok = fs_exists(p);
        free(p);
        if (!ok)
            return conf_err(c->path, "REQUIRED_FILES entry '%s' does not exist",
                            c->required_files.v[i]);
    }
    return 0;
}

/* ---- running bash -------------------------------------------------------- */

static int check_readable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return conf_err(path, "cannot read the workload conf: %s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return conf_err(path, "cannot read the workload conf: it is a directory");
    if (access(path, R_OK) != 0)
        return conf_err(path, "cannot read the workload conf: %s", strerror(errno));
    return 0;
}

/* How long the loader may run: BENCHRUN_CONF_TIMEOUT seconds, default 60 (a
 * conf sets variables; bash needs milliseconds). 0 or -1 (printed). */
static int loader_timeout(const char *path, double *out)
{
    const char *v = getenv("BENCHRUN_CONF_TIMEOUT");
    *out = 60;
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    double t = strtod(v, &end);
    if (errno || *end || !(t > 0 && t <= 86400))
        return conf_err(path, "BENCHRUN_CONF_TIMEOUT must be seconds (above 0, at most 86400), "
                              "got '%s'", v);
    *out = t;
    return 0;
}

static int run_loader(const char *abs, const char *out_dir, struct strbuf *out, struct strbuf *err)
{
    const char *argv[] = { "bash", "--norc", "--noprofile", "-c", br_conf_loader_script,
                           "benchrun-conf", abs, out_dir, NULL };
    double timeout;
    if (loader_timeout(abs, &timeout) != 0)
        return -1;
    int status;
    struct proc_end how;
    stopsig_push();     /* a signal while bash runs stops bash's group first */
    int rc = proc_capture_limited(argv, timeout, out, err, &status, &how);
    if (rc == 0 && how.stop_signal)
        rc = conf_err(abs, "stopped (%s received) while the conf was read",
                      stopsig_name(how.stop_signal));
    stopsig_pop();      /* without a stage's handler: the signal ends benchrun now */
    if (rc != 0)
        return -1;
    if (how.timed_out)
        return conf_err(abs, "reading the conf did not finish within %g s (does a command in it "
                             "wait for input or never return?); its processes were stopped "
                             "(BENCHRUN_CONF_TIMEOUT sets the limit)", timeout);
    if (how.left_children)
        br_warn("%s: the conf started background processes when it was read (a command "
                "ending in '&'?); they were stopped", abs);
    if (status == 127 && out->len == 0)
        return conf_err(abs, "cannot run bash to read the conf (is bash installed?)");
    return 0;
}

int br_conf_load(const char *path, const char *out_dir, unsigned flags, struct br_conf *out)
{
    memset(out, 0, sizeof(*out));
    if (check_readable(path) != 0)
        return -1;
    char *abs = fs_abspath(path);
    struct strbuf o, e;
    sb_init(&o);
    sb_init(&e);
    int rc = run_loader(abs, out_dir ? out_dir : "OUT_DIR", &o, &e);
    if (rc == 0) {
        /* What the conf itself printed while sourced (not bash -n output). */
        if (e.len && !(o.len && o.buf[0] == 'E'))
            fprintf(stderr, "%s", e.buf);
        rc = br_conf_decode(o.buf, o.len, abs, flags, out);
    }
    if (rc == 0 && !out_dir) {
        free(out->out_dir);
        out->out_dir = xasprintf("%s/OUT_DIR", out->results_dir);
    } else if (rc == 0) {
        out->out_dir = xstrdup(out_dir);
    }
    sb_release(&o);
    sb_release(&e);
    free(abs);
    return rc;
}

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_strv(const struct strv *a, const struct strv *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0)
            return false;
    return true;
}

/* The first field (not APP_CMD, which follows OUT_DIR) in which two loads of
 * one conf differ, or NULL. */
static const char *first_difference(const struct br_conf *a, const struct br_conf *b)
{
    const struct { const char *name; const char *x, *y; } strs[] = {
        { "WORKLOAD", a->workload, b->workload }, { "WORKLOAD_DESC", a->workload_desc, b->workload_desc },
        { "PROFILING_DIR", a->profiling_dir, b->profiling_dir },
        { "RESULTS_DIR", a->results_dir, b->results_dir }, { "SAMPLE_GPUS", a->sample_gpus, b->sample_gpus },
        { "ROCM_PATH", a->rocm_path, b->rocm_path }, { "PROF_LT", a->prof_lt, b->prof_lt },
        { "PERF_GREP", a->perf_grep, b->perf_grep },
        { "ARCH", a->arch, b->arch }, { "PARTITION", a->partition, b->partition },
        { "TIME_LIMIT", a->time_limit, b->time_limit }, { "COUNTERS", a->counters, b->counters },
        { "SAMPLE_BACKEND", a->sample_backend, b->sample_backend },
        { "ROCPROF_FORMAT", a->rocprof_format, b->rocprof_format },
    };
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        if (!same_str(strs[i].x, strs[i].y))
            return strs[i].name;
    const struct { const char *name; long x, y; } nums[] = {
        { "NGPUS", a->ngpus, b->ngpus }, { "NTASKS", a->ntasks, b->ntasks },
        { "NNODES", a->nnodes, b->nnodes }, { "SAMPLE_MS", a->sample_ms, b->sample_ms },
        { "VENDOR", a->vendor, b->vendor },
        { "BIND_GPU_PER_TASK", a->bind_gpu_per_task, b->bind_gpu_per_task },
        { "stage_inputs()", a->has_stage_inputs, b->has_stage_inputs },
        { "app_env()", a->has_app_env, b->has_app_env },
    };
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
        if (nums[i].x != nums[i].y)
            return nums[i].name;
    if (!same_strv(&a->modules, &b->modules))
        return "MODULES";
    if (!same_strv(&a->required_files, &b->required_files))
        return "REQUIRED_FILES";
    if (!same_strv(&a->launcher, &b->launcher))
        return "LAUNCHER";
    return NULL;
}

int br_conf_reload_app_cmd(struct br_conf *c, const char *out_dir)
{
    struct br_conf tmp;
    if (br_conf_load(c->path, out_dir, 0, &tmp) != 0)
        return -1;
    const char *diff = first_difference(c, &tmp);
    if (diff) {
        conf_err(c->path, "%s differs between two readings of the conf (a value computed from "
                          "the time, $RANDOM or a file that changes?); it must be the same every "
                          "time, since the conf is read again to start the app", diff);
        br_conf_release(&tmp);
        return -1;
    }
    strv_release(&c->app_cmd);
    c->app_cmd = tmp.app_cmd;
    memset(&tmp.app_cmd, 0, sizeof(tmp.app_cmd));
    free(c->out_dir);
    c->out_dir = xstrdup(out_dir);
    br_conf_release(&tmp);
    return 0;
}

void br_conf_release(struct br_conf *c)
{
    char **strs[] = { &c->path, &c->dir, &c->workload, &c->workload_desc, &c->profiling_dir,
                      &c->results_dir, &c->sample_gpus, &c->rocm_path, &c->prof_lt,
                      &c->perf_grep, &c->arch, &c->partition, &c->time_limit,
                      &c->counters, &c->sample_backend, &c->rocprof_format, &c->launches,
                      &c->out_dir };
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        free(*strs[i]);
        *strs[i] = NULL;
    }
    strv_release(&c->modules);
    strv_release(&c->required_files);
    strv_release(&c->launcher);
    strv_release(&c->app_cmd);
}
