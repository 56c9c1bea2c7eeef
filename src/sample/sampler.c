/* sampler.c - the deadline loop: sample every GPU around a command, write telemetry CSVs.
 *
 * Owns: the child process (fork + execvp, exit status), signal forwarding
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT are passed to the command from the
 * handler itself; the loop keeps sampling until the command exits), the
 * per-GPU telemetry files (one write(2) per whole line, so SIGKILL leaves
 * only complete lines and loses nothing already read), inst_power and the
 * refresh flag, and the run statistics. File format: sampler.h.
 *
 * Timing: pass i is due at start + i x interval on CLOCK_BOOTTIME and the
 * loop sleeps with clock_nanosleep(TIMER_ABSTIME), so the cost of a pass does
 * not stretch the period; a pass that overruns by a whole interval skips the
 * missed deadlines (counted) instead of bursting.
 */
#include "sample/sampler.h"
#include "sample/clockref.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/stopsig.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sample/sampler_report.h"

static volatile sig_atomic_t g_child_pid;
static volatile sig_atomic_t g_signal;
static const int fwd_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define N_FWD (sizeof(fwd_signals) / sizeof(fwd_signals[0]))

static void on_forward(int sig)
{
    g_signal = sig;
    if (g_child_pid > 0)
        kill((pid_t)g_child_pid, sig); /* async-signal-safe */
}

static void on_child(int sig)
{
    (void)sig; /* only interrupts clock_nanosleep */
}

struct sig_saved {
    struct sigaction fwd[N_FWD], chld;
};

static void install_signals(struct sig_saved *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_forward; /* no SA_RESTART: the sleep must wake */
    for (size_t i = 0; i < N_FWD; i++)
        sigaction(fwd_signals[i], &sa, &old->fwd[i]);
    sa.sa_handler = on_child;
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &old->chld);
}

static void restore_signals(const struct sig_saved *old)
{
    for (size_t i = 0; i < N_FWD; i++)
        sigaction(fwd_signals[i], &old->fwd[i], NULL);
    sigaction(SIGCHLD, &old->chld, NULL);
}

static int64_t boot_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- per-GPU output ------------------------------------------------------ */

int br_fmt_fixed(char *out, double v, int decimals)
{
    if (isnan(v))
        return (int)(strcpy(out, "nan"), 3);
    static const double pow10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
    if (decimals < 0 || decimals > 9 || !(fabs(v) * pow10[decimals] < 9e15))
        return snprintf(out, 32, "%.*g", 17, v);
    long long q = llround(v * pow10[decimals]);
    char tmp[32];
    int n = 0;
    unsigned long long a = q < 0 ? 0ULL - (unsigned long long)q : (unsigned long long)q;
    do {
        tmp[n++] = (char)('0' + a % 10);
        a /= 10;
        if (n == decimals)
            tmp[n++] = '.';
    } while (a || n <= decimals + (decimals > 0));
    int len = 0;
    if (q < 0)
        out[len++] = '-';
    while (n > 0)
        out[len++] = tmp[--n];
    out[len] = '\0';
    return len;
}

static void add_fixed(struct strbuf *sb, double v, int decimals)
{
    char buf[40];
    sb_add(sb, buf, (size_t)br_fmt_fixed(buf, v, decimals));
    sb_addc(sb, ',');
}

/* Writes the whole buffer with write(2); -1 with errno on failure. */
static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* A metadata value stays one token on line 1: blanks and every control
 * character become '_' (a driver string or --node cannot add a line). */
static void sanitize(char *s)
{
    for (; s && *s; s++)
        if (*s == ' ' || iscntrl((unsigned char)*s))
            *s = '_';
}

static void add_kv(struct strbuf *sb, const char *key, const char *val)
{
    char *v = xstrdup(val ? val : "unknown");
    sanitize(v);
    sb_addf(sb, " %s=%s", key, v);
    free(v);
}

static const char *const cap_names[] = {
    "socket_power", "energy", "gfx_clock", "mem_clock", "edge_temp",
    "hotspot_temp", "mem_temp", "source_time", "driver_power",
};

static void metadata_line(struct strbuf *sb, const struct br_sampler_config *cfg,
                          const struct br_gpu_out *g)
{
    char num[40];
    sb_addf(sb, "benchrun_telemetry=1 device=%d backend=%s", g->gpu, cfg->ops->name);
    br_fmt_fixed(num, (double)cfg->interval_ns * 1e-6, 6);
    add_kv(sb, "interval_ms", num);
    snprintf(num, sizeof(num), "%.12g", g->info.energy_resolution_J);
    add_kv(sb, "energy_resolution_J", isnan(g->info.energy_resolution_J) ? "nan" : num);
    add_kv(sb, "clock", "CLOCK_BOOTTIME");
    add_kv(sb, "source", g->info.source);
    add_kv(sb, "pci", g->info.pci_bus_id);
    add_kv(sb, "detail", g->info.detail);
    add_kv(sb, "prefix", cfg->prefix);
    add_kv(sb, "node", cfg->node ? cfg->node : "none");
    sb_adds(sb, " caps=");
    bool first = true;
    for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
        if (g->info.caps & (1u << i)) {
            sb_addf(sb, "%s%s", first ? "" : ",", cap_names[i]);
            first = false;
        }
    add_kv(sb, "gfx_clock", g->info.gfx_clock);
    sb_addf(sb, " inst_power=energy_delta_over_source_time missing=nan\n%s\n", telem_header());
}

static int open_gpu(const struct br_sampler_config *cfg, struct br_gpu_out *g, int gpu)
{
    g->gpu = gpu;
    g->fd = -1;
    g->e0 = g->prev_e = g->last_inst = NAN;
    sb_init(&g->line);
    char *stem = telem_file_stem(cfg->prefix, cfg->node, gpu);
    struct br_open_opts o = { .outdir = cfg->outdir, .file_stem = stem,
                              .interval_ns = cfg->interval_ns };
    g->dev = cfg->ops->open(gpu, &o, &g->info);
    g->path = xasprintf("%s/%s.csv", cfg->outdir, stem);
    free(stem);
    if (!g->dev)
        return -1;
    g->fd = open(g->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (g->fd < 0)
        return br_error("sample: cannot create '%s': %s", g->path, strerror(errno));
    metadata_line(&g->line, cfg, g);
    if (write_all(g->fd, g->line.buf, g->line.len) != 0)
        return br_error("sample: cannot write '%s': %s", g->path, strerror(errno));
    return 0;
}

static bool values_differ(const struct br_sample *a, const struct br_sample *b)
{
    const double x[] = { a->socket_power_W, a->energy_J, a->gfx_clock_MHz, a->mem_clock_MHz,
                         a->edge_temp_C, a->hotspot_temp_C, a->mem_temp_C };
    const double y[] = { b->socket_power_W, b->energy_J, b->gfx_clock_MHz, b->mem_clock_MHz,
                         b->edge_temp_C, b->hotspot_temp_C, b->mem_temp_C };
    for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
        if (!(x[i] == y[i] || (isnan(x[i]) && isnan(y[i]))))
            return true;
    return false;
}

/* inst_power: energy delta over the energy's own time delta, updated when the
 * energy reading changes and held in between; NAN until two readings. */
static void update_inst(struct br_gpu_out *g, const struct br_sample *s)
{
    if (isnan(s->energy_J))
        return;
    int64_t et = s->energy_time_ns >= 0 ? s->energy_time_ns : s->t_ns;
    if (isnan(g->e0))
        g->e0 = s->energy_J;
    if (!isnan(g->prev_e) && et != g->prev_et) {
        double dt = (double)(et - g->prev_et) * 1e-9, de = s->energy_J - g->prev_e;
        g->last_inst = (dt > 0 && de >= 0) ? de / dt : NAN; /* reset: start again */
    }
    if (isnan(g->prev_e) || et != g->prev_et) {
        g->prev_e = s->energy_J;
        g->prev_et = et;
    }
}

static bool is_refresh(struct br_gpu_out *g, const struct br_sample *s)
{
    bool r;
    if (!g->have_prev)
        r = true;
    else if (s->source_seq != 0)
        r = s->source_seq != g->prev.source_seq;
    else
        r = values_differ(s, &g->prev);
    g->prev = *s;
    g->have_prev = true;
    return r;
}

/* One row in the schema's column order (model/telemetry.h). */
static void format_row(struct br_gpu_out *g, const struct br_sample *s, bool refreshed)
{
    double v[TELEM_NCOLS] = {
        [TELEM_SOCKET_POWER] = s->socket_power_W,
        [TELEM_INST_POWER] = g->last_inst,
        [TELEM_GFX_CLOCK] = s->gfx_clock_MHz,
        [TELEM_EDGE_TEMP] = s->edge_temp_C,
        [TELEM_HOTSPOT_TEMP] = s->hotspot_temp_C,
        [TELEM_ENERGY] = isnan(s->energy_J) ? NAN : s->energy_J - g->e0,
        [TELEM_MEM_CLOCK] = s->mem_clock_MHz,
        [TELEM_REFRESHED] = refreshed ? 1 : 0,
        [TELEM_MEM_TEMP] = s->mem_temp_C,
        [TELEM_GFX_CLOCK_MAX] = s->gfx_clock_max_MHz,
    };
    struct strbuf *sb = &g->line;
    sb_reset(sb);
    sb_addf(sb, "%lld,", (long long)s->t_ns);
    for (int c = 0; c < TELEM_NCOLS; c++) {
        if (c == TELEM_SOURCE_TIMESTAMP && s->source_time_ns >= 0)   /* ns: an int64 */
            sb_addf(sb, "%lld,", (long long)s->source_time_ns);
        else if (c == TELEM_SOURCE_TIMESTAMP)
            sb_adds(sb, "nan,");
        else if (telem_cols[c].decimals == TELEM_INTEGER)
            sb_addf(sb, "%.0f,", v[c]);
        else
            add_fixed(sb, v[c], telem_cols[c].decimals);
    }
    sb->buf[sb->len - 1] = '\n';
}

static void swallow(void *ctx, int is_warning, const char *msg)
{
    (void)ctx, (void)is_warning, (void)msg;
}

/* Reads one GPU and appends its row. */
static void sample_gpu(const struct br_sampler_config *cfg, struct br_gpu_out *g)
{
    if (g->dead)
        return;
    struct br_sample s;
    br_sample_clear(&s);
    s.t_ns = boot_ns();
    bool hush = g->read_errors > 0; /* the first error was shown; count the rest */
    if (hush)
        br_error_set_sink(swallow, NULL);
    int rc = cfg->ops->read(g->dev, &s);
    if (hush)
        br_error_set_sink(NULL, NULL);
    if (rc != 0) {
        g->read_errors++;
        return;
    }
    update_inst(g, &s);
    bool refreshed = is_refresh(g, &s);
    format_row(g, &s, refreshed);
    if (write_all(g->fd, g->line.buf, g->line.len) != 0) {
        g->write_errno = errno;
        br_error("sample: cannot write '%s': %s; no more samples for GPU %d", g->path,
                 strerror(errno), g->gpu);
        g->dead = true;
        return;
    }
    br_report_count(g, &s, refreshed);  /* a sample counts once it is in the file */
}

/* ---- the command ------------------------------------------------------------ */

/* Starts argv; 0 with *pid, or the exit status to report (127) with an error. */
static int spawn(char *const *argv, pid_t *pid)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return br_error("sample: pipe: %s", strerror(errno)), 127;
    pid_t c = stopsig_fork();  /* the child never runs with our handler */
    if (c < 0) {
        stopsig_fork_done(0);
        close(p[0]);
        close(p[1]);
        return br_error("sample: fork: %s", strerror(errno)), 127;
    }
    if (c == 0) {
        close(p[0]);
        execvp(argv[0], argv);
        int e = errno;
        if (write(p[1], &e, sizeof(e)) < 0)
            _exit(127);
        _exit(127);
    }
    close(p[1]);
    g_child_pid = c;
    stopsig_fork_done(0);      /* a signal that arrived meanwhile is forwarded now */
    int e = 0;
    ssize_t got;
    while ((got = read(p[0], &e, sizeof(e))) < 0 && errno == EINTR)
        ;
    close(p[0]);
    *pid = c;
    if (got == (ssize_t)sizeof(e)) {
        br_error("sample: cannot run '%s': %s", argv[0], strerror(e));
        return 127;
    }
    if (g_signal) /* arrived between fork and g_child_pid: forward now */
        kill(c, g_signal);
    return 0;
}

static int exit_status(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 1;
}

/* True once the command has exited (status stored). */
static bool child_done(pid_t pid, int *status)
{
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) {
        *status = exit_status(st);
        return true;
    }
    return r < 0 && errno == ECHILD;
}

/* ---- the loop --------------------------------------------------------------- */

struct loop {
    const struct br_sampler_config *cfg;
    struct br_gpu_out *g;
    struct br_run_times *rt;
    pid_t pid;
    int status;
};

/* Sleeps to the deadline; returns true when the run must end (command gone,
 * duration reached, or a signal with no command to forward it to). */
static bool wait_deadline(struct loop *L, int64_t deadline)
{
    struct timespec ts = { .tv_sec = deadline / 1000000000LL,
                           .tv_nsec = deadline % 1000000000LL };
    for (;;) {
        if (L->pid > 0 && child_done(L->pid, &L->status))
            return true;
        if (L->pid <= 0 && g_signal)
            return true;
        int rc = clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL);
        if (rc != EINTR)
            break;
    }
    if (L->pid > 0 && child_done(L->pid, &L->status))
        return true;
    return L->pid <= 0 && (g_signal || boot_ns() >= L->rt->start_ns + L->cfg->duration_ns);
}

static void pass(struct loop *L)
{
    int64_t t0 = boot_ns();
    for (size_t i = 0; i < L->cfg->ngpus; i++)
        sample_gpu(L->cfg, &L->g[i]);
    br_report_pass(L->rt, t0, boot_ns());
    if (L->cfg->progress)
        br_report_progress(L->rt, L->g, L->cfg->ngpus, false);
}

static void run_loop(struct loop *L)
{
    int64_t iv = L->cfg->interval_ns, next = L->rt->start_ns;
    for (;;) {
        next += iv;
        int64_t now = boot_ns();
        if (now - next >= iv) { /* overran whole periods: skip them */
            int64_t k = (now - next) / iv;
            L->rt->missed += (uint64_t)k;
            next += k * iv;
        }
        bool end = wait_deadline(L, next);
        pass(L); /* the last pass comes after the command exited */
        if (end)
            break;
    }
}

static int open_all(const struct br_sampler_config *cfg, struct br_gpu_out *g)
{
    if (fs_mkdir_p(cfg->outdir) != 0)
        return -1;
    char *probe = xasprintf("%s/.benchrun-write-test.%ld", cfg->outdir, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        br_error("sample: output folder '%s' is not writable: %s", cfg->outdir,
                 strerror(errno));
        free(probe);
        return -1;
    }
    close(fd);
    unlink(probe);
    free(probe);
    for (size_t i = 0; i < cfg->ngpus; i++)
        if (open_gpu(cfg, &g[i], cfg->gpus[i]) != 0)
            return -1;
    return 0;
}

static void close_all(const struct br_sampler_config *cfg, struct br_gpu_out *g)
{
    for (size_t i = 0; i < cfg->ngpus; i++) {
        if (g[i].dev && cfg->ops->finish)
            cfg->ops->finish(g[i].dev);
        if (g[i].fd >= 0 && close(g[i].fd) != 0)
            br_error("sample: cannot write '%s': %s", g[i].path, strerror(errno));
        g[i].fd = -1;
    }
}

static void free_all(const struct br_sampler_config *cfg, struct br_gpu_out *g)
{
    for (size_t i = 0; i < cfg->ngpus; i++) {
        if (g[i].dev)
            cfg->ops->close(g[i].dev);
        br_dev_info_release(&g[i].info);
        sb_release(&g[i].line);
        free(g[i].path);
    }
    free(g);
}

static char *side_path(const struct br_sampler_config *cfg, const char *base, const char *ext)
{
    if (cfg->node)
        return xasprintf("%s/%s_%s.%s", cfg->outdir, base, cfg->node, ext);
    return xasprintf("%s/%s.%s", cfg->outdir, base, ext);
}

/* Clock reference, first pass, then the command and the loop. */
static int sample_around(struct loop *L)
{
    struct br_clock_ref ref;
    br_clock_ref_read(&ref);
    char *path = side_path(L->cfg, "clock_ref", "txt");
    int rc = br_clock_ref_write(path, &ref);
    free(path);
    if (rc != 0)
        return -1;
    L->rt->start_ns = boot_ns();
    pass(L); /* sampling starts before the command */
    if (L->cfg->argv) {
        int st = spawn(L->cfg->argv, &L->pid);
        if (st != 0) {
            L->status = st;
            return 0;
        }
    }
    run_loop(L);
    return 0;
}

int br_sampler_run(const struct br_sampler_config *cfg, struct br_sampler_stats *stats)
{
    struct br_gpu_out *g = xcalloc(cfg->ngpus ? cfg->ngpus : 1, sizeof(*g));
    struct br_run_times rt;
    br_report_init(&rt, cfg->interval_ns);
    struct loop L = { .cfg = cfg, .g = g, .rt = &rt, .pid = 0, .status = 0 };
    struct sig_saved old;
    g_signal = 0;
    g_child_pid = 0;
    install_signals(&old);
    double cpu0 = cpu_seconds();
    int rc = open_all(cfg, g) == 0 ? sample_around(&L) : -1;
    close_all(cfg, g);
    g_child_pid = 0;
    restore_signals(&old);
    if (rc == 0) {
        if (!L.cfg->argv && g_signal)
            L.status = 128 + g_signal;
        rt.cpu_s = cpu_seconds() - cpu0;
        rt.forwarded_signal = g_signal;
        char *json = xasprintf("%s/sampler_%s%s%s.json", cfg->outdir, cfg->prefix,
                               cfg->node ? "_" : "", cfg->node ? cfg->node : "");
        if (br_report_finish(cfg, &rt, g, L.status, json, stats) != 0)
            rc = -1;
        free(json);
    }
    br_report_release(&rt);
    free_all(cfg, g);
    return rc == 0 ? L.status : -1;
}
