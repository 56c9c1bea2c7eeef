/* inject.c - libbenchrun-cupti.so entry point: configuration, callbacks, exit paths, files.
 *
 * Loaded into an unmodified CUDA application with CUDA_INJECTION64_PATH; the
 * CUDA driver calls InitializeInjection() once, at cuInit. Configured by
 * environment variables that benchrun sets (README "NVIDIA"):
 *   BENCHRUN_CUPTI_OUT      output folder (default ".")
 *   BENCHRUN_CUPTI_CACHE    folder the counter passes of one run share: the device's
 *                           counter availability image is kept there (benchrun pmc:
 *                           the run folder; unset: asked of CUPTI in every process)
 *   BENCHRUN_CUPTI_NAME     file prefix; "%pid%" is replaced by the process id,
 *                           which is appended when absent (one file set per process)
 *   BENCHRUN_CUPTI_METRICS  comma-separated metrics (one hardware pass): counter mode
 *   BENCHRUN_CUPTI_TRACE    0 to skip kernel_trace.csv in counter mode (default 1)
 *   BENCHRUN_CUPTI_MAX_RANGES   launches per counter data image (default 2000)
 *   BENCHRUN_CUPTI_REPLAY   "kernel" for CUPTI kernel replay (default user: none)
 *   BENCHRUN_CUPTI_BUFFER_KB    activity buffer size (default 8192)
 *   BENCHRUN_CUPTI_VERBOSE  1: progress on stderr
 *   BENCHRUN_CUPTI_DEVICE_BUFFER_MB  CUPTI device buffer size (default CUPTI's)
 *   BENCHRUN_CUPTI_ACTIVITY kernel activity records: default 1 in trace mode, 0 in
 *                           counter mode (CUPTI instruments kernels for them, which
 *                           falsifies instruction counters: rangeprof.c)
 *   BENCHRUN_CUPTI_SAMPLE   FIRST:EVERY:BLOCKS:SEED: counters on the launches of each
 *                           (kernel, grid, block) that trace/launchplan.h picks, the
 *                           trace on every launch (launches.c); unset or "all": every
 *                           launch profiled
 *   BENCHRUN_CUPTI_PARAM_UNITS 0: counter passes do not split signatures by the
 *                           launch's parameter key (default 1: sampled passes sample
 *                           per key, and every pass writes launch_units.csv;
 *                           trace/paramkey.h, params.c)
 *   BENCHRUN_CUPTI_TOGGLE   full|startstop|user|user-async: the range profiler calls
 *                           between profiled and unprofiled launches (trace/rptoggle.h,
 *                           rangeprof.c; default user in sampled passes, full with
 *                           every launch profiled; startstop, user-async experimental)
 *   BENCHRUN_CUPTI_EMPTY_RANGES  user ranges: ranges pushed around no work before a
 *                           context's first launch range, whose median counts are taken
 *                           out of every launch's (default 3, at most 64; 0: none;
 *                           trace/rangeoffset.h)
 *   BENCHRUN_CUPTI_COPIES   0: no memory copy/set activity (default 1, both modes:
 *                           <prefix>_memory_copy_trace.csv, trace/copytrace.h)
 *   BENCHRUN_CUPTI_SERIALIZE 1: the library's lock held through every launch and
 *                           module load/unload call (one at a time per process);
 *                           default 1 in counter mode with user ranges, else 0
 *   BENCHRUN_CUPTI_STRIP_PDL 1/0: programmatic stream serialization turned off in
 *                           launch attributes (default: in passes with SASS metrics)
 *   BENCHRUN_CUPTI_UNLOAD   defer|reset|keep: what a cuModuleUnload/cuLibraryUnload does
 *                           in a counter pass (default: defer in passes with SASS
 *                           metrics, where CUPTI 13.0 crashes after an unload; keep
 *                           elsewhere); BENCHRUN_CUPTI_UNLOAD_RESET=1/0, the older
 *                           name, means reset/keep
 * Files, written at the end (exit() from any thread, cudaDeviceReset or context
 * destruction, SIGTERM) and, for the trace, also whenever cfg.flush_records
 * kernels are held: <prefix>_kernel_trace.csv, <prefix>_counter_collection.csv
 * and <prefix>_cupti.json (clock points, offset and drift, counts, errors).
 * SIGTERM: the handler only writes a byte to a pipe; a helper thread writes the
 * files, restores the previous disposition and re-raises the signal.
 */
#include "trace/cupti/brcupti.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace/rangeoffset.h"
#include "util/sigsafe.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct brc_config brc_cfg;

/* What the launch callbacks saw, for the companion JSON (atomic counters). */
struct census {
    uint64_t launch_ex;        /* cuLaunchKernelEx / cudaLaunchKernelExC calls */
    uint64_t cluster;          /* ... with a cluster dimension attribute of > 1 block */
    uint64_t cluster1;         /* ... with a cluster dimension attribute of 1 x 1 x 1 */
    uint64_t pdl;              /* ... with programmatic stream serialization allowed */
    uint64_t pdl_stripped;     /* ... where BENCHRUN_CUPTI_STRIP_PDL turned it off */
    uint64_t modules_loaded;   /* CUPTI_CBID_RESOURCE_MODULE_LOADED callbacks */
    uint64_t threads;          /* distinct threads that launched */
    uint64_t reentrant;        /* launches from inside our own callback (CUPTI/driver) */
};

/* What module unloads did (BENCHRUN_CUPTI_UNLOAD). */
struct unloads {
    uint64_t deferred;         /* unloads given a stand-in module: the real one stays */
    uint64_t reset;            /* unloads with the profiler reset around them */
    uint64_t passed;           /* unloads that went through (keep, or the stand-in failed) */
    bool defer_failed;         /* the driver unloaded the real module after all: reset from then on */
    int probe;                 /* stand-in tried on a module of ours first: 0 not yet, 1 taken,
                                  -1 not taken, 2 unverified (no module ids seen) */
};

/* The module's state, behind brc_lock() (atomic counters excepted). */
static struct {
    pthread_mutex_t lock;
    CUpti_SubscriberHandle sub;
    bool finished;             /* files written; later events are ignored */
    long pid;
    char *error;               /* first error, for the companion JSON */
    struct census census;
    struct unloads unl;
    uint64_t cb_calls, cb_ns;  /* launch callbacks and the time spent in them (atomic) */
} lib;

/* What this thread is doing inside the library: launch calls, the crash
 * report's phase, a module unload in progress. */
static __thread struct {
    int runtime_launch;        /* inside a runtime launch API call */
    bool runtime_deferred;     /* that call had no context yet: its driver call counts */
    bool deferred_taken;       /* ... and a driver launch callback recorded it */
    int in_callback;           /* inside on_api's profiler work (re-entrancy) */
    const char *phase;         /* a string literal, NULL: not in the library */
    const char *api;           /* the launch API call it is inside (CUPTI's static name) */
    char api_symbol[160];      /* and its kernel, for the crash report */
    unsigned api_attrs;
    bool counted;              /* this thread's first launch was counted */
    bool unloading;            /* inside a cuModuleUnload/cuLibraryUnload given a stand-in */
    bool probing;              /* inside the probe's own unload (probe_standin) */
    bool loading_standin;      /* loading that stand-in */
    uint32_t standin_id;       /* its CUPTI module id (0: none seen) */
    bool foreign_unload;       /* another module was unloaded in that call */
    long tid;                  /* this thread's id, 0: not asked yet (brc_gettid) */
} tls;

/* The thread id, asked of the kernel once per thread: a launch names its
 * thread several times (the crash report's phase, the trace row), and each
 * gettid is a system call (0.2-1 us in a virtual machine). */
long brc_gettid(void)
{
    if (!tls.tid)
        tls.tid = (long)syscall(SYS_gettid);
    return tls.tid;
}

/* fork(): the child's thread has another id than the parent's copy says. */
static void forget_tid(void)
{
    tls.tid = 0;
}

/* The last phase any thread entered and that thread's id: when another thread
 * crashes, the report says what the library was doing meanwhile. */
static const char *volatile any_phase;
static volatile long any_phase_tid;

void brc_phase(const char *s)
{
    tls.phase = s;
    if (s) {
        any_phase = s;
        any_phase_tid = brc_gettid();
    }
}

void brc_lock(void)
{
    pthread_mutex_lock(&lib.lock);
}

void brc_unlock(void)
{
    pthread_mutex_unlock(&lib.lock);
}

bool brc_finished(void)
{
    return lib.finished;
}

long brc_pid(void)
{
    return lib.pid;
}
static int sig_pipe[2] = { -1, -1 };
static struct sigaction old_term;

const char *brc_cupti_str(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

void brc_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = try_vasprintf(fmt, ap);
    va_end(ap);
    fprintf(stderr, "benchrun-cupti: %s\n", msg ? msg : fmt);
    if (!lib.error && msg)
        lib.error = msg;
    else
        free(msg);
}

uint64_t brc_modules_loaded(void)
{
    return __atomic_load_n(&lib.census.modules_loaded, __ATOMIC_RELAXED);
}

/* CLOCK_MONOTONIC in ns: the debug log's times and the callbacks' cost. */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pthread_mutex_t debug_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *debug_fp;

void brc_debug(const char *fmt, ...)
{
    uint64_t now = mono_ns();
    pthread_mutex_lock(&debug_lock);
    if (!debug_fp) {
        char *path = brc_path("debug.log");
        debug_fp = fopen(path, "w");
        free(path);
    }
    if (debug_fp) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(debug_fp, "%.3f ", 1e-6 * (double)now);
        vfprintf(debug_fp, fmt, ap);
        fputc('\n', debug_fp);
        va_end(ap);
        fflush(debug_fp);
    }
    pthread_mutex_unlock(&debug_lock);
}

char *brc_path(const char *suffix)
{
    return xasprintf("%s/%s_%s", brc_cfg.out_dir, brc_cfg.prefix, suffix);
}

FILE *brc_part_file(FILE **fp, const char *suffix, const char *header)
{
    if (*fp)
        return *fp;
    char *path = brc_path(suffix);
    *fp = fopen(path, "w");
    if (!*fp)
        brc_fail("cannot create '%s'", path);
    else
        fputs(header, *fp);
    free(path);
    return *fp;
}

int brc_part_close(FILE **fp, const char *name)
{
    if (!*fp)
        return 0;
    int bad = ferror(*fp) | fclose(*fp);
    *fp = NULL;
    char *pn = xasprintf("%s.part", name);
    char *part = brc_path(pn), *final = brc_path(name);
    if (bad || rename(part, final) != 0) {
        brc_fail("cannot write '%s'", final);
        bad = 1;
    }
    free(pn);
    free(part);
    free(final);
    return bad ? -1 : 0;
}

/* ---- configuration ---------------------------------------------------- */

static size_t env_size(const char *name, size_t def, size_t min)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return def;
    unsigned long long v = strtoull(s, &end, 10);
    return (*end || v < min) ? def : (size_t)v;
}

static char *expand_prefix(const char *name, long pid)
{
    struct strbuf sb;
    sb_init(&sb);
    const char *p = strstr(name, "%pid%");
    if (p) {
        sb_add(&sb, name, (size_t)(p - name));
        sb_addf(&sb, "%ld%s", pid, p + 5);
    } else {
        sb_addf(&sb, "%s_%ld", name, pid);
    }
    return sb_detach(&sb);
}

static void split_metrics(const char *s)
{
    size_t cap = 0;
    while (s && *s) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len > 0) {
            xgrow((void **)&brc_cfg.metrics, &cap, brc_cfg.nmetrics + 1, sizeof(char *));
            brc_cfg.metrics[brc_cfg.nmetrics++] = xstrndup(s, len);
        }
        s = comma ? comma + 1 : NULL;
    }
}

/* BENCHRUN_CUPTI_UNLOAD (or the older BENCHRUN_CUPTI_UNLOAD_RESET=1/0). */
static enum brc_unload unload_mode(bool sass)
{
    const char *u = getenv("BENCHRUN_CUPTI_UNLOAD"), *old = getenv("BENCHRUN_CUPTI_UNLOAD_RESET");
    if (u && !strcmp(u, "defer"))
        return BRC_UNLOAD_DEFER;
    if (u && !strcmp(u, "reset"))
        return BRC_UNLOAD_RESET;
    if (u && !strcmp(u, "keep"))
        return BRC_UNLOAD_KEEP;
    if (old && *old)
        return strcmp(old, "0") ? BRC_UNLOAD_RESET : BRC_UNLOAD_KEEP;
    return sass ? BRC_UNLOAD_DEFER : BRC_UNLOAD_KEEP;
}

static void read_config(void)
{
    struct brc_config *c = &brc_cfg;
    const char *out = getenv("BENCHRUN_CUPTI_OUT");
    const char *name = getenv("BENCHRUN_CUPTI_NAME");
    const char *trace = getenv("BENCHRUN_CUPTI_TRACE");
    const char *replay = getenv("BENCHRUN_CUPTI_REPLAY");
    const char *verbose = getenv("BENCHRUN_CUPTI_VERBOSE");
    c->out_dir = xstrdup(out && *out ? out : ".");
    const char *cache = getenv("BENCHRUN_CUPTI_CACHE");
    c->cache_dir = cache && *cache ? xstrdup(cache) : NULL;
    c->prefix = expand_prefix(name && *name ? name : "benchrun", lib.pid);
    split_metrics(getenv("BENCHRUN_CUPTI_METRICS"));
    c->trace = !(trace && strcmp(trace, "0") == 0);
    c->max_ranges = 0;   /* below, once sampling is known */
    c->kernel_replay = replay && strcmp(replay, "kernel") == 0;
    c->buffer_bytes = env_size("BENCHRUN_CUPTI_BUFFER_KB", 8192, 64) * 1024;
    c->flush_records = env_size("BENCHRUN_CUPTI_FLUSH_RECORDS", 1000000, 1);
    c->devbuf_bytes = env_size("BENCHRUN_CUPTI_DEVICE_BUFFER_MB", 0, 1) * 1024 * 1024;
    const char *act = getenv("BENCHRUN_CUPTI_ACTIVITY");
    c->activity = act && *act ? strcmp(act, "0") != 0 : c->nmetrics == 0;
    const char *sample = getenv("BENCHRUN_CUPTI_SAMPLE");
    if (sample && *sample && strcmp(sample, "all") != 0) {
        c->sampled = c->nmetrics && lp_plan_parse(sample, &c->plan) == 0;
        if (!c->sampled && c->nmetrics)
            fprintf(stderr, "benchrun-cupti: BENCHRUN_CUPTI_SAMPLE='%s' is not FIRST:EVERY:BLOCKS:SEED: "
                            "every launch is profiled\n", sample);
    }
    const char *ser = getenv("BENCHRUN_CUPTI_SERIALIZE"), *pdl = getenv("BENCHRUN_CUPTI_STRIP_PDL");
    for (size_t i = 0; i < c->nmetrics; i++)   /* SASS-patched metrics: CUPTI instruments kernels */
        c->sass |= strstr(c->metrics[i], "__sass_") != NULL;
    const char *units = getenv("BENCHRUN_CUPTI_PARAM_UNITS");
    /* with every launch profiled too: its launch_units.csv lets analyze
     * --resample read the run in the units a sampled pass would use */
    c->param_units = c->nmetrics && !(units && strcmp(units, "0") == 0);
    c->strip_pdl = pdl && *pdl ? strcmp(pdl, "0") != 0 : c->sass;
    c->unload = c->nmetrics ? unload_mode(c->sass) : BRC_UNLOAD_KEEP;
    const char *toggle = getenv("BENCHRUN_CUPTI_TOGGLE");
    if (rpt_parse(toggle, c->sampled, &c->toggle) != 0) {
        c->toggle = rpt_default(c->sampled);
        fprintf(stderr, "benchrun-cupti: BENCHRUN_CUPTI_TOGGLE='%s' is not full, startstop, user "
                        "or user-async: %s\n", toggle, rpt_name(c->toggle));
    }
    /* Ranges per counter image. Auto ranges in a sampled pass decode at
     * every stretch of profiled launches, and on the H200 each decode and
     * re-arm took ~150 ms with the 4,064-range image of full collection
     * (docs/validation.md §10): a small image there. User ranges too: their
     * start took longer with a larger image (axpy on the H200: 128 ranges
     * per image, 2 starts per pass, cost more than 32 and 3 starts). */
    c->max_ranges = env_size("BENCHRUN_CUPTI_MAX_RANGES", c->sampled ? 32 : 2000, 1);
    /* A user range holds whatever kernels run between its push and its pop:
     * with a second launching thread (PyTorch's autograd engine) another
     * launch's kernel could run in it. One launch at a time keeps each range
     * to its own launch (measured free on a single-threaded program; it did
     * not cure user ranges' NaN values on PyTorch: docs/validation.md §13). */
    c->serialize = ser && *ser ? strcmp(ser, "1") == 0 : c->nmetrics && rpt_user_ranges(c->toggle);
    size_t empty = env_size("BENCHRUN_CUPTI_EMPTY_RANGES", RO_DEFAULT_EMPTY_RANGES, 0);
    c->empty_ranges = rpt_user_ranges(c->toggle) ? (unsigned)(empty > 64 ? 64 : empty) : 0;
    const char *copies = getenv("BENCHRUN_CUPTI_COPIES");
    c->copies = !(copies && strcmp(copies, "0") == 0);
    c->verbose = verbose && strcmp(verbose, "1") == 0;
    const char *debug = getenv("BENCHRUN_CUPTI_DEBUG");
    c->debug = debug && strcmp(debug, "1") == 0;
}

/* ---- the companion JSON ---------------------------------------------- */

void brc_json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(fp, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(fp, "\\u%04x", ch);
        else
            fputc(ch, fp);
    }
    fputc('"', fp);
}

static void json_clock(FILE *fp, const struct clk_conv *clock)
{
    fprintf(fp, "  \"clock\": {\"source\": \"cuptiGetTimestamp\", \"target\": \"CLOCK_BOOTTIME\",\n"
                "    \"drift_ppm\": %.6f,\n    \"points\": [", clk_conv_drift_ppm(clock));
    for (size_t i = 0; i < clock->n; i++) {
        const struct clk_point *p = &clock->pts[i];
        fprintf(fp, "%s\n      {\"cupti_ns\": %llu, \"boottime_ns\": %llu, \"offset_ns\": %lld, "
                    "\"uncertainty_ns\": %llu}", i ? "," : "", (unsigned long long)p->src_ns,
                (unsigned long long)p->boot_ns, (long long)clk_offset_ns(p),
                (unsigned long long)p->err_ns);
    }
    fprintf(fp, "]},\n");
}

/* How the profiler was toggled (BENCHRUN_CUPTI_TOGGLE) and what its calls
 * cost: "arm" (image initialized, config set, started) and "decode" (stopped,
 * decoded, evaluated) as before the toggle modes, then each call's share. */
static void json_toggle(FILE *fp, const struct brc_rp_stats *rs)
{
    enum rpt_mode used = brc_cfg.toggle == RPT_STARTSTOP && rs->fallbacks ? RPT_FULL : brc_cfg.toggle;
    fprintf(fp, "  \"profiler_toggle\": {\"requested\": \"%s\", \"used\": \"%s\", "
                "\"restart_fallbacks\": %llu, \"busy\": %llu, \"early_decodes\": %llu},\n",
            rpt_name(brc_cfg.toggle), rpt_name(used), (unsigned long long)rs->fallbacks,
            (unsigned long long)rs->busy, (unsigned long long)rs->flushes);
    fprintf(fp, "  \"profiler_calls\": {\"start\": %llu, \"stop\": %llu, \"init\": %llu, "
                "\"decode\": %llu, \"push\": %llu, \"sync\": %llu, \"availability_cached\": %llu},\n",
            (unsigned long long)rs->arms, (unsigned long long)rs->stops,
            (unsigned long long)rs->inits, (unsigned long long)rs->decodes,
            (unsigned long long)rs->pushes, (unsigned long long)rs->syncs,
            (unsigned long long)rs->avail_cached);
    fprintf(fp, "  \"profiler_ms\": {\"enable\": %.1f, \"enable_host\": %.1f, \"enable_config\": %.1f, "
                "\"enable_availability\": %.1f, \"arm\": %.1f, \"decode\": %.1f, "
                "\"init\": %.1f, \"start\": %.1f, \"stop\": %.1f, \"decode_evaluate\": %.1f, "
                "\"push_pop\": %.1f, \"sync\": %.1f, \"image_ranges\": %zu},\n",
            rs->enable_ms, rs->host_ms, rs->config_ms, rs->avail_ms, rs->init_ms + rs->start_ms, rs->stop_ms + rs->decode_ms, rs->init_ms,
            rs->start_ms, rs->stop_ms, rs->decode_ms, rs->push_ms, rs->sync_ms,
            brc_rp_image_ranges());
    fprintf(fp, "  \"ranges_counted\": %llu,\n", (unsigned long long)rs->ranges_counted);
}

/* What the launch callbacks and the module unloads saw (counter mode; zeros
 * in trace mode). */
static void json_census(FILE *fp)
{
    const struct census *c = &lib.census;
    fprintf(fp, "  \"launch_census\": {\"launch_ex\": %llu, \"cluster\": %llu, \"cluster_1x1x1\": %llu, "
                "\"programmatic_serialization\": %llu, \"programmatic_serialization_stripped\": %llu, "
                "\"modules_loaded\": %llu, \"threads\": %llu, \"serialized\": %s},\n",
            (unsigned long long)c->launch_ex, (unsigned long long)c->cluster,
            (unsigned long long)c->cluster1, (unsigned long long)c->pdl,
            (unsigned long long)c->pdl_stripped, (unsigned long long)c->modules_loaded,
            (unsigned long long)c->threads, brc_cfg.serialize ? "true" : "false");
    /* the library's own share of a launch's cost, profiler calls included
     * (profiler_ms splits those out) */
    fprintf(fp, "  \"launch_callbacks\": {\"calls\": %llu, \"ms\": %.1f},\n",
            (unsigned long long)lib.cb_calls, 1e-6 * (double)lib.cb_ns);
    static const char *const modes[] = { "keep", "defer", "reset" };
    struct brc_rp_stats rs;
    brc_rp_stats(&rs);
    static const char *const probes[] = { "not tried", "stand-in taken", "unverified" };
    fprintf(fp, "  \"module_unloads\": {\"mode\": \"%s\", \"deferred\": %llu, \"reset\": %llu, "
                "\"passed\": %llu, \"defer_failed\": %s, \"probe\": \"%s\"},\n",
            modes[brc_cfg.unload], (unsigned long long)lib.unl.deferred,
            (unsigned long long)lib.unl.reset, (unsigned long long)lib.unl.passed,
            lib.unl.defer_failed ? "true" : "false",
            lib.unl.probe < 0 ? "stand-in not taken" : probes[lib.unl.probe]);
    fprintf(fp, "  \"profiler_reenabled_after_unload\": %llu,\n  \"profiler_armed\": %llu,\n",
            (unsigned long long)rs.reenabled, (unsigned long long)rs.arms);
    fprintf(fp, "  \"ranges_past_pushes\": %llu,\n", (unsigned long long)rs.ranges_past_pushes);
    json_toggle(fp, &rs);
}

static void write_json(const char *reason)
{
    char *part = brc_path("cupti.json.part"), *final = brc_path("cupti.json");
    FILE *fp = fopen(part, "w");
    struct brc_kstore_stats ks;
    struct brc_rp_stats rs;
    brc_kstore_stats(&ks);
    brc_rp_stats(&rs);
    if (fp) {
        fprintf(fp, "{\n  \"tool\": \"libbenchrun-cupti\",\n  \"pid\": %ld,\n  \"mode\": \"%s\",\n"
                    "  \"end_reason\": ", lib.pid, brc_cfg.nmetrics ? "counters" : "trace");
        brc_json_str(fp, reason);
        fprintf(fp, ",\n  \"metrics\": [");
        for (size_t i = 0; i < brc_cfg.nmetrics; i++) {
            fputs(i ? ", " : "", fp);
            brc_json_str(fp, brc_cfg.metrics[i]);
        }
        fprintf(fp, "],\n  \"replay\": \"%s\",\n  \"ranges_per\": \"launch\",\n"
                    "  \"kernel_activity\": %s,\n", brc_cfg.kernel_replay ? "kernel" : "user",
                brc_cfg.activity ? "true" : "false");
        fprintf(fp, "  \"kernel_timestamps\": \"%s\",\n",
                ks.hw_trace == CUPTI_SUCCESS ? "hardware events"
                : ks.hw_trace < 0 ? (brc_cfg.nmetrics ? "launch callbacks and events" : "none")
                : "software instrumentation");
        json_clock(fp, ks.clock);
        fprintf(fp, "  \"kernels\": %llu,\n  \"activity_records_dropped\": %llu,\n"
                    "  \"ranges\": %llu,\n  \"ranges_dropped\": %llu,\n"
                    "  \"launches_reentrant\": %llu,\n  \"memory_copies\": %llu,\n",
                (unsigned long long)ks.kernels, (unsigned long long)ks.dropped,
                (unsigned long long)rs.ranges, (unsigned long long)rs.ranges_dropped,
                (unsigned long long)lib.census.reentrant, (unsigned long long)ks.copies);
        if (brc_cfg.nmetrics)
            brc_launches_json(fp);
        json_census(fp);
        brc_rp_offset_json(fp);
        fputs("  \"error\": ", fp);
        if (lib.error)
            brc_json_str(fp, lib.error);
        else
            fputs("null", fp);
        fprintf(fp, "\n}\n");
        if ((ferror(fp) | fclose(fp)) == 0)
            rename(part, final);
    }
    free(part);
    free(final);
}

/* ---- the end ------------------------------------------------------------ */

/* Writes every file once; later calls return at once. */
static void finish(const char *reason)
{
    brc_lock();
    if (lib.finished) {
        brc_unlock();
        return;
    }
    if (brc_cfg.nmetrics)
        brc_launches_finish();   /* last decodes (they sync the contexts), every row */
    brc_unlock();
    brc_kstore_flush(true);   /* delivers buffers through buffer_completed */
    brc_lock();
    lib.finished = true;
    brc_kstore_write_trace();   /* activity records, if any */
    brc_kstore_close_trace();
    write_json(reason);
    brc_unlock();
}

static void at_exit(void)
{
    finish("exit");
}

static void on_sigterm(int sig)
{
    char b = (char)sig;
    ssize_t w = write(sig_pipe[1], &b, 1);
    (void)w;
}

static void *signal_thread(void *arg)
{
    (void)arg;
    char b;
    while (read(sig_pipe[0], &b, 1) < 0 && errno == EINTR)
        ;
    finish("SIGTERM");
    sigaction(SIGTERM, &old_term, NULL);
    kill(getpid(), SIGTERM);
    return NULL;
}

static void install_sigterm(void)
{
    pthread_t th;
    if (pipe2(sig_pipe, O_CLOEXEC) != 0)
        return;
    if (pthread_create(&th, NULL, signal_thread, NULL) != 0)
        return;
    pthread_detach(th);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigterm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, &old_term);
}

/* ---- fatal signals ------------------------------------------------------ */

/* A crash report on stderr for SIGSEGV/SIGBUS/SIGILL/SIGFPE: the signal, the
 * faulting address, the thread, what this library was doing in that thread
 * (tls.phase: NULL means the fault is outside our code, e.lib. in the
 * application or in CUPTI working on its own) and a backtrace with each
 * frame's module and offset (resolve with addr2line -e MODULE OFFSET). Then
 * the previous disposition is restored and the handler returns, so the fault
 * repeats and the process ends exactly as it would have without us (core,
 * exit status 139). Only write(2) and stack buffers, except backtrace() (its
 * library is loaded at install time) and dladdr(), which do not allocate once
 * loaded (glibc). BENCHRUN_CUPTI_CRASH_REPORT=0 turns it off. */
static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
static struct sigaction old_fatal[sizeof(fatal_sigs) / sizeof(*fatal_sigs)];

static void report_frame(int i, void *pc)
{
    char line[512];
    size_t n = 0;
    Dl_info info;
    ss_append(line, sizeof(line), &n, "benchrun-cupti:   #");
    ss_append_u(line, sizeof(line), &n, (uint64_t)i, 10);
    ss_append(line, sizeof(line), &n, " ");
    if (dladdr(pc, &info) && info.dli_fname) {
        ss_append(line, sizeof(line), &n, info.dli_fname);
        ss_append(line, sizeof(line), &n, "+0x");
        ss_append_u(line, sizeof(line), &n, (uint64_t)((uintptr_t)pc - (uintptr_t)info.dli_fbase), 16);
        if (info.dli_sname) {
            ss_append(line, sizeof(line), &n, " (");
            ss_append(line, sizeof(line), &n, info.dli_sname);
            ss_append(line, sizeof(line), &n, "+0x");
            ss_append_u(line, sizeof(line), &n, (uint64_t)((uintptr_t)pc - (uintptr_t)info.dli_saddr), 16);
            ss_append(line, sizeof(line), &n, ")");
        }
    } else {
        ss_append(line, sizeof(line), &n, "0x");
        ss_append_u(line, sizeof(line), &n, (uint64_t)(uintptr_t)pc, 16);
    }
    ss_append(line, sizeof(line), &n, "\n");
    ss_write(2, line);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    char head[512];
    size_t n = 0;
    ss_append(head, sizeof(head), &n, "benchrun-cupti: fatal signal ");
    ss_append_u(head, sizeof(head), &n, (uint64_t)sig, 10);
    ss_append(head, sizeof(head), &n, " at address 0x");
    ss_append_u(head, sizeof(head), &n, (uint64_t)(uintptr_t)(si ? si->si_addr : NULL), 16);
    ss_append(head, sizeof(head), &n, " in thread ");
    ss_append_u(head, sizeof(head), &n, (uint64_t)syscall(SYS_gettid), 10);
    ss_append(head, sizeof(head), &n, "; libbenchrun-cupti was: ");
    ss_append(head, sizeof(head), &n, tls.phase ? tls.phase : "not running in this thread");
    ss_append(head, sizeof(head), &n, "\n");
    ss_write(2, head);
    n = 0;
    if (tls.api) {
        ss_append(head, sizeof(head), &n, "benchrun-cupti: this thread is inside ");
        ss_append(head, sizeof(head), &n, tls.api);
        ss_append(head, sizeof(head), &n, " of ");
        ss_append(head, sizeof(head), &n, tls.api_symbol[0] ? tls.api_symbol : "(no symbol)");
        ss_append(head, sizeof(head), &n, (tls.api_attrs & BRC_ATTR_CLUSTER) ? ", cluster attribute" : "");
        ss_append(head, sizeof(head), &n, (tls.api_attrs & BRC_ATTR_PDL) ? ", programmatic stream serialization" : "");
        ss_append(head, sizeof(head), &n, "\n");
    }
    const char *other = any_phase;
    if (other && any_phase_tid != brc_gettid()) {
        ss_append(head, sizeof(head), &n, "benchrun-cupti: last phase entered by thread ");
        ss_append_u(head, sizeof(head), &n, (uint64_t)any_phase_tid, 10);
        ss_append(head, sizeof(head), &n, ": ");
        ss_append(head, sizeof(head), &n, other);
        ss_append(head, sizeof(head), &n, "\n");
    }
    if (n)
        ss_write(2, head);
    void *pcs[48];
    int np = backtrace(pcs, 48);
    for (int i = 0; i < np; i++)
        report_frame(i, pcs[i]);
    for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(*fatal_sigs); i++)
        if (fatal_sigs[i] == sig)
            sigaction(sig, &old_fatal[i], NULL);
}

static void install_crash_report(void)
{
    const char *e = getenv("BENCHRUN_CUPTI_CRASH_REPORT");
    if (e && strcmp(e, "0") == 0)
        return;
    void *warm[2];
    backtrace(warm, 2);   /* loads libgcc_s now, not inside the handler */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO;
    for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(*fatal_sigs); i++)
        sigaction(fatal_sigs[i], &sa, &old_fatal[i]);
}

/* ---- callbacks ---------------------------------------------------------- */

static bool is_graph_launch(CUpti_CallbackDomain dom, CUpti_CallbackId id)
{
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
        return id == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
               id == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
    return id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

static void set_cluster(struct brc_launch *l, unsigned x, unsigned y, unsigned z)
{
    l->cluster[0] = x, l->cluster[1] = y, l->cluster[2] = z;
    if ((unsigned long long)x * y * z > 1)
        l->attrs |= BRC_ATTR_CLUSTER;
}

static void set_dims(struct brc_launch *l, const unsigned g[3], const unsigned b[3], size_t shmem,
                     CUstream stream, bool ptsz)
{
    memcpy(l->grid, g, sizeof(l->grid));
    memcpy(l->block, b, sizeof(l->block));
    l->shmem = (uint32_t)shmem;
    l->has_stream = true;
    /* a _ptsz call's stream 0 is the calling thread's per-thread default stream */
    l->stream = ptsz && !stream ? CU_STREAM_PER_THREAD : stream;
}

/* Grid, block, dynamic shared memory and stream of a launch call (graph
 * launches: none). The Ex calls carry them in a launch config, which may be
 * NULL in an invalid call (then the launch fails and runs nothing). */
static void launch_dims(CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *params,
                        struct brc_launch *l)
{
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
        bool ptsz = id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
                    id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000 ||
                    id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060;
        if (id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
            id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
            id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
            id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000) {
            /* the cooperative call's parameters have the same layout */
            const cudaLaunchKernel_v7000_params *p = params;
            unsigned g[3] = { p->gridDim.x, p->gridDim.y, p->gridDim.z };
            unsigned b[3] = { p->blockDim.x, p->blockDim.y, p->blockDim.z };
            set_dims(l, g, b, p->sharedMem, (CUstream)p->stream, ptsz);
        } else if ((id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 || ptsz) &&
                   ((const cudaLaunchKernelExC_v11060_params *)params)->config) {
            const cudaLaunchConfig_t *c = ((const cudaLaunchKernelExC_v11060_params *)params)->config;
            unsigned g[3] = { c->gridDim.x, c->gridDim.y, c->gridDim.z };
            unsigned b[3] = { c->blockDim.x, c->blockDim.y, c->blockDim.z };
            set_dims(l, g, b, c->dynamicSmemBytes, (CUstream)c->stream, ptsz);
            for (unsigned i = 0; c->attrs && i < c->numAttrs; i++) {
                const cudaLaunchAttribute *a = &c->attrs[i];
                if (a->id == cudaLaunchAttributeClusterDimension)
                    set_cluster(l, a->val.clusterDim.x, a->val.clusterDim.y, a->val.clusterDim.z);
                else if (a->id == cudaLaunchAttributeProgrammaticStreamSerialization &&
                         a->val.programmaticStreamSerializationAllowed)
                    l->attrs |= BRC_ATTR_PDL;
                else if (a->id == cudaLaunchAttributeCooperative && a->val.cooperative)
                    l->attrs |= BRC_ATTR_COOP;
            }
        }
        return;
    }
    bool ptsz = id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
                id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
        id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
        const cuLaunchKernel_params *p = params;
        unsigned g[3] = { p->gridDimX, p->gridDimY, p->gridDimZ };
        unsigned b[3] = { p->blockDimX, p->blockDimY, p->blockDimZ };
        set_dims(l, g, b, p->sharedMemBytes, p->hStream, ptsz);
    } else if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
               id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz) {
        const cuLaunchCooperativeKernel_params *p = params;
        unsigned g[3] = { p->gridDimX, p->gridDimY, p->gridDimZ };
        unsigned b[3] = { p->blockDimX, p->blockDimY, p->blockDimZ };
        set_dims(l, g, b, p->sharedMemBytes, p->hStream, ptsz);
    } else if ((id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
                id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) &&
               ((const cuLaunchKernelEx_params *)params)->config) {
        const CUlaunchConfig *c = ((const cuLaunchKernelEx_params *)params)->config;
        unsigned g[3] = { c->gridDimX, c->gridDimY, c->gridDimZ };
        unsigned b[3] = { c->blockDimX, c->blockDimY, c->blockDimZ };
        set_dims(l, g, b, c->sharedMemBytes, c->hStream, ptsz);
        for (unsigned i = 0; c->attrs && i < c->numAttrs; i++) {
            const CUlaunchAttribute *a = &c->attrs[i];
            if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
                set_cluster(l, a->value.clusterDim.x, a->value.clusterDim.y, a->value.clusterDim.z);
            else if (a->id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
                     a->value.programmaticStreamSerializationAllowed)
                l->attrs |= BRC_ATTR_PDL;
            else if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->value.cooperative)
                l->attrs |= BRC_ATTR_COOP;
        }
    }
}

static bool is_ex_launch(CUpti_CallbackDomain dom, CUpti_CallbackId id)
{
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
        return id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
               id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060;
    return id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
           id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
}

/* BENCHRUN_CUPTI_STRIP_PDL: programmatic stream serialization turned off in
 * the caller's own launch attributes (valid for the duration of the call).
 * A kernel launched without it runs after its predecessor ends, and
 * griddepcontrol.wait returns at once (PTX ISA, griddepcontrol): the same
 * results, which auto ranges serialize anyway. Returns whether it did. */
static bool strip_pdl(CUpti_CallbackDomain dom, const void *params)
{
    bool done = false;
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
        const cudaLaunchConfig_t *c = ((const cudaLaunchKernelExC_v11060_params *)params)->config;
        for (unsigned i = 0; c && c->attrs && i < c->numAttrs; i++)
            if (c->attrs[i].id == cudaLaunchAttributeProgrammaticStreamSerialization &&
                c->attrs[i].val.programmaticStreamSerializationAllowed) {
                ((cudaLaunchAttribute *)&c->attrs[i])->val.programmaticStreamSerializationAllowed = 0;
                done = true;
            }
        return done;
    }
    const CUlaunchConfig *c = ((const cuLaunchKernelEx_params *)params)->config;
    for (unsigned i = 0; c && c->attrs && i < c->numAttrs; i++)
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
            c->attrs[i].value.programmaticStreamSerializationAllowed) {
            ((CUlaunchAttribute *)&c->attrs[i])->value.programmaticStreamSerializationAllowed = 0;
            done = true;
        }
    return done;
}

/* Counts an Ex launch and its attributes (census in the companion JSON). */
static void census_launch(const struct brc_launch *l)
{
    struct census *c = &lib.census;
    __atomic_fetch_add(&c->launch_ex, 1, __ATOMIC_RELAXED);
    if (l->attrs & BRC_ATTR_CLUSTER)
        __atomic_fetch_add(&c->cluster, 1, __ATOMIC_RELAXED);
    else if (l->cluster[0])
        __atomic_fetch_add(&c->cluster1, 1, __ATOMIC_RELAXED);
    if (l->attrs & BRC_ATTR_PDL)
        __atomic_fetch_add(&c->pdl, 1, __ATOMIC_RELAXED);
}

/* A driver launch call's function (NULL for other calls) and its argument
 * forms (kernelParams, extra; NULL where the call has none). The function
 * may be a CUkernel cast to CUfunction (cuda.h, cuLaunchKernel: "context-less
 * kernel CUkernel ... passing it to the API by casting to CUfunction"). */
static CUfunction launch_function(CUpti_CallbackId id, const void *params, void ***kernel_params,
                                  void ***extra)
{
    *kernel_params = *extra = NULL;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
        id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
        const cuLaunchKernel_params *p = params;
        *kernel_params = p->kernelParams, *extra = p->extra;
        return p->f;
    }
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
        id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
        const cuLaunchKernelEx_params *p = params;
        *kernel_params = p->kernelParams, *extra = p->extra;
        return p->f;
    }
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
        id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz) {
        const cuLaunchCooperativeKernel_params *p = params;
        *kernel_params = p->kernelParams;
        return p->f;
    }
    return NULL;
}

/* The launch call returned an error (then it ran nothing); the return value is
 * only valid in the exit callback (cupti_callbacks.h, functionReturnValue). */
static bool launch_failed(bool runtime, const CUpti_CallbackData *cb)
{
    if (!cb->functionReturnValue)
        return false;
    return runtime ? *(const cudaError_t *)cb->functionReturnValue != cudaSuccess
                   : *(const CUresult *)cb->functionReturnValue != CUDA_SUCCESS;
}

/* A runtime launch that had no context at its entry and whose driver call
 * made no launch callback (cudart's own driver calls may not: counter rows of
 * runtime launches never got the function's registers from one): recorded at
 * its exit, when the context is current. The kernel is already submitted, so
 * it gets no events and no decode may come before it. */
static void take_late_launch(CUpti_CallbackDomain dom, CUpti_CallbackId id,
                             const CUpti_CallbackData *cb)
{
    struct brc_launch l = { cb->symbolName, false, { 0 }, { 0 }, 0, false, NULL, true };
    launch_dims(dom, id, cb->functionParams, &l);
    brc_lock();
    BRC_PHASE("launch API exit callback (launch without a context at its entry)");
    brc_launches_enter(cb->context, &l);
    brc_launches_exit(cb->context, false);
    BRC_PHASE(NULL);
    brc_unlock();
}

static void on_api(CUpti_CallbackDomain dom, CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    bool runtime = dom == CUPTI_CB_DOMAIN_RUNTIME_API;
    void **kp = NULL, **extra = NULL;
    CUfunction f = !runtime && cb->callbackSite == CUPTI_API_ENTER
                   ? launch_function(id, cb->functionParams, &kp, &extra) : NULL;
    if (!runtime && tls.runtime_launch > 0) {
        /* the driver call made by a runtime launch: counted once; it names the function */
        if (f) {
            brc_lock();
            BRC_PHASE("reading the launched function's attributes (cuFuncGetAttribute)");
            brc_launches_function(cb->context, f);
            BRC_PHASE(NULL);
            brc_unlock();
        }
        return;
    }
    if (runtime && cb->callbackSite == CUPTI_API_EXIT && tls.runtime_deferred) {
        tls.runtime_deferred = false;
        if (!tls.deferred_taken && cb->context && !launch_failed(runtime, cb))
            take_late_launch(dom, id, cb);   /* no driver callback came: record it now */
        tls.deferred_taken = false;
        return;
    }
    if (runtime && cb->callbackSite == CUPTI_API_ENTER && !cb->context) {
        /* The thread's first runtime call has no current context yet (the
         * runtime makes the primary context current inside the call:
         * cupti_callbacks.h, CUpti_CallbackData.context); PyTorch's autograd
         * thread starts so. The kernel still runs and makes a range, so the
         * driver launch inside this call is taken as the launch instead
         * (on the H200: one range more than launches before, which shifted
         * the per-launch join). */
        tls.runtime_deferred = true;
        tls.deferred_taken = false;
        return;
    }
    if (cb->callbackSite == CUPTI_API_EXIT) {
        if (runtime && tls.runtime_launch > 0)
            tls.runtime_launch--;
        brc_lock();
        BRC_PHASE("launch API exit callback");
        brc_launches_exit(cb->context, launch_failed(runtime, cb));
        BRC_PHASE(NULL);
        brc_unlock();
        return;
    }
    if (runtime)
        tls.runtime_launch++;
    /* symbolName is documented for kernel launch callbacks only: a graph
     * launch runs many kernels and has none (cupti_callbacks.h) */
    bool graph = is_graph_launch(dom, id);
    struct brc_launch l = { graph ? "<graph launch>" : cb->symbolName, graph, { 0 }, { 0 }, 0,
                            false, NULL };
    launch_dims(dom, id, cb->functionParams, &l);
    if (is_ex_launch(dom, id)) {
        census_launch(&l);
        if (brc_cfg.strip_pdl && (l.attrs & BRC_ATTR_PDL) && strip_pdl(dom, cb->functionParams)) {
            __atomic_fetch_add(&lib.census.pdl_stripped, 1, __ATOMIC_RELAXED);
            l.attrs &= ~(unsigned)BRC_ATTR_PDL;
        }
    }
    tls.api_attrs = l.attrs;
    if (tls.runtime_deferred)
        tls.deferred_taken = true;
    brc_lock();
    if (f && brc_cfg.param_units) {   /* a driver launch: its parameters may split its unit */
        BRC_PHASE("reading the launch's parameters (cuFuncGetParamInfo, cuPointerGetAttribute)");
        l.param_key = brc_params_key(f, kp, extra);
    }
    BRC_PHASE("launch API entry callback (range profiler, events)");
    brc_launches_enter(cb->context, &l);
    if (f) {
        BRC_PHASE("reading the launched function's attributes (cuFuncGetAttribute)");
        brc_launches_function(cb->context, f);
    }
    BRC_PHASE(NULL);
    brc_unlock();
}

/* ---- module unloads -------------------------------------------------------

 * With SASS metrics, CUPTI 13.0 crashes at the first launch after a
 * cuModuleUnload (tests/gpu/sass_repro.cu mode churn on an H200: SIGSEGV at
 * 0xc18 in libnvperf_host under cuLaunchKernelEx, none of our code on the
 * stack; JAX's autotuner unloads its candidates' modules and died the same
 * way). CUPTI callbacks cannot skip an API call, and the driver API is not
 * reached through symbols we could interpose (the CUDA runtime and XLA take
 * their entry points with cuGetProcAddress / dlsym on libcuda's handle). So
 * BRC_UNLOAD_DEFER hands the call a stand-in: an empty module (or library)
 * loaded here, whose handle replaces the application's in the call's
 * parameters; the driver unloads the stand-in and returns CUDA_SUCCESS, the
 * application's module stays loaded until the process ends (it never uses
 * the handle again). Whether the driver took the replaced handle is checked,
 * not assumed: the CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING callbacks of
 * the call must name only the stand-in's module. If another module is
 * unloaded, the library falls back to BRC_UNLOAD_RESET for this and every
 * later unload (the profiler decoded and disabled, enabled again at the next
 * profiled launch; ~4 s per re-enable in JAX on the H200). Before the
 * application's first unload is touched, the stand-in is tried on a module
 * of the library's own (probe_standin), so that an application module is
 * never unloaded under a profiler that was not reset first. */

/* An empty PTX module: no functions, nothing to patch or launch. */
static const char standin_ptx[] = ".version 7.0\n.target sm_50\n.address_size 64\n";

static bool give_standin(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    tls.unloading = true;
    tls.loading_standin = true;
    tls.standin_id = 0;
    tls.foreign_unload = false;
    bool ok = false;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuModuleUnload) {
        CUmodule m;
        if ((ok = cuModuleLoadData(&m, standin_ptx) == CUDA_SUCCESS))
            ((cuModuleUnload_params *)cb->functionParams)->hmod = m;
    } else {
        CUlibrary standin;
        if ((ok = cuLibraryLoadData(&standin, standin_ptx, NULL, NULL, 0, NULL, NULL, 0) ==
                  CUDA_SUCCESS))
            ((cuLibraryUnload_params *)cb->functionParams)->library = standin;
    }
    tls.loading_standin = false;
    if (!ok)
        tls.unloading = false;
    return ok;
}

/* Loads an empty module of ours and unloads it with the stand-in swap: did
 * the driver unload the stand-in (lib.unl.probe 1) or ours (-1)? 2: no
 * module ids were reported, so it could not tell (the swap is kept). */
static void probe_standin(void)
{
    CUmodule mine;
    tls.loading_standin = true;
    tls.standin_id = 0;
    bool loaded = cuModuleLoadData(&mine, standin_ptx) == CUDA_SUCCESS;
    uint32_t mine_id = tls.standin_id;
    tls.loading_standin = false;
    if (!loaded) {
        lib.unl.probe = -1;
        brc_fail("cannot load a stand-in module: module unloads reset the range profiler");
        return;
    }
    tls.probing = true;
    cuModuleUnload(mine);   /* our callback swaps in a second stand-in */
    tls.probing = false;
    if (tls.foreign_unload)
        lib.unl.probe = -1;
    else
        lib.unl.probe = mine_id && tls.standin_id ? 1 : 2;
    tls.foreign_unload = false;
    if (lib.unl.probe < 0)
        brc_fail("the driver does not take a stand-in module in cuModuleUnload's parameters: "
                 "module unloads reset the range profiler (slow)");
}

/* cuModuleUnload / cuLibraryUnload, entry and exit (counter mode). */
static void on_unload(CUpti_CallbackId id, const CUpti_CallbackData *cb, bool enter)
{
    CUcontext ctx = id == CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload ? NULL : cb->context;
    brc_lock();
    if (lib.finished) {
        brc_unlock();
        return;
    }
    if (!enter)   /* a function handle may come back with another layout */
        brc_params_forget();
    if (enter && tls.probing) {   /* the probe's own unload */
        give_standin(id, cb);
        brc_unlock();
        return;
    }
    if (!enter && tls.probing) {
        tls.unloading = false;
        brc_unlock();
        return;
    }
    if (enter) {
        BRC_PHASE("a module unload (stand-in module, or profiler reset)");
        if (brc_cfg.unload == BRC_UNLOAD_DEFER && lib.unl.probe == 0)
            probe_standin();
        lib.unl.defer_failed |= lib.unl.probe < 0;
        if (brc_cfg.unload == BRC_UNLOAD_DEFER && !lib.unl.defer_failed && give_standin(id, cb)) {
            lib.unl.deferred++;
        } else if (brc_cfg.unload != BRC_UNLOAD_KEEP) {
            brc_rp_on_module_unload(ctx);
            lib.unl.reset++;
        } else {
            lib.unl.passed++;
        }
    } else if (tls.unloading) {
        tls.unloading = false;
        if (tls.foreign_unload) {   /* the driver did not take the stand-in */
            BRC_PHASE("a module unload went through: resetting the range profiler");
            lib.unl.defer_failed = true;
            lib.unl.deferred--;
            lib.unl.passed++;
            brc_fail("cuModuleUnload/cuLibraryUnload unloaded the application's module, not "
                     "the stand-in: range profiler reset at every unload from now on");
            brc_rp_on_module_unload(ctx);
        }
    }
    BRC_PHASE(NULL);
    brc_unlock();
}

/* Module resource callbacks: counted, and the stand-in's module told apart. */
static void on_module_resource(CUpti_CallbackId id, const CUpti_ResourceData *rd)
{
    const CUpti_ModuleResourceData *md = rd->resourceDescriptor;
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {   /* no lock: inside the driver's load */
        __atomic_fetch_add(&lib.census.modules_loaded, 1, __ATOMIC_RELAXED);
        BRC_DEBUG("module_loaded id=%u tid=%ld", md ? md->moduleId : 0u, brc_gettid());
        if (tls.loading_standin && md)
            tls.standin_id = md->moduleId;
    } else if (id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING && tls.unloading && md &&
               md->moduleId != tls.standin_id) {
        tls.foreign_unload = true;
    }
}

/* Module and library loads and unloads: taken with BENCHRUN_CUPTI_SERIALIZE
 * (loads and unloads) and in counter mode (unloads). */
static const CUpti_CallbackId driver_module[] = {
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData,
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx, CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary,
    CUPTI_DRIVER_TRACE_CBID_cuModuleUnload, CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile, CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload,
};

static bool is_unload_call(CUpti_CallbackId id)
{
    return id == CUPTI_DRIVER_TRACE_CBID_cuModuleUnload || id == CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload;
}

static bool is_module_call(CUpti_CallbackId id)
{
    for (size_t i = 0; i < sizeof(driver_module) / sizeof(*driver_module); i++)
        if (driver_module[i] == id)
            return true;
    return false;
}

static void on_resource(CUpti_CallbackId id, const CUpti_ResourceData *rd)
{
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED || id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
        on_module_resource(id, rd);
        return;
    }
    if (id != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
        return;
    brc_lock();
    if (brc_cfg.nmetrics && !lib.finished)
        brc_launches_on_ctx_destroy(rd->context);
    brc_unlock();
    brc_kstore_flush(false);
}

/* The crash report's view of this thread's outermost launch call. */
static void note_api(const CUpti_CallbackData *cb)
{
    tls.api = cb->functionName;
    size_t k = 0;
    for (const char *p = cb->symbolName; p && *p && k + 1 < sizeof(tls.api_symbol); p++)
        tls.api_symbol[k++] = *p;
    tls.api_symbol[k] = '\0';
    tls.api_attrs = 0;
    if (!tls.counted) {
        tls.counted = true;
        __atomic_fetch_add(&lib.census.threads, 1, __ATOMIC_RELAXED);
    }
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id,
                                 const void *data)
{
    (void)ud;
    if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
        on_resource(id, data);
        return;
    }
    const CUpti_CallbackData *cb = data;
    bool enter = cb->callbackSite == CUPTI_API_ENTER;
    /* BENCHRUN_CUPTI_SERIALIZE: the lock is held from the entry of a launch or
     * module call to its exit (recursive: the callbacks below take it again) */
    if (brc_cfg.serialize && enter)
        brc_lock();
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && is_module_call(id)) {
        if (brc_cfg.nmetrics && is_unload_call(id) && !tls.loading_standin)
            on_unload(id, cb, enter);
        if (brc_cfg.serialize && !enter)
            brc_unlock();
        return;
    }
    if (!tls.api && enter)   /* the outermost launch call of this thread */
        note_api(cb);
    if (tls.in_callback) {
        /* a launch made from inside our own work (CUPTI or the driver working
         * for a profiler call of ours): never profiled, never recursed into */
        __atomic_fetch_add(&lib.census.reentrant, 1, __ATOMIC_RELAXED);
        BRC_DEBUG("reentrant %s site=%d", cb->functionName ? cb->functionName : "?", (int)cb->callbackSite);
    } else {
        tls.in_callback = 1;
        uint64_t t0 = mono_ns();
        on_api(dom, id, data);
        __atomic_fetch_add(&lib.cb_ns, mono_ns() - t0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&lib.cb_calls, 1, __ATOMIC_RELAXED);
        tls.in_callback = 0;
    }
    if (!enter && tls.api == cb->functionName)
        tls.api = NULL;
    if (brc_cfg.serialize && !enter)
        brc_unlock();
}

static const CUpti_CallbackId runtime_launch[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
};
static const CUpti_CallbackId driver_launch[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunch, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

static int subscribe(void)
{
    CUptiResult r = cuptiSubscribe(&lib.sub, on_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        brc_fail("cuptiSubscribe: %s (another CUPTI client in this process?)", brc_cupti_str(r));
        return -1;
    }
    cuptiEnableCallback(1, lib.sub, CUPTI_CB_DOMAIN_RESOURCE,
                        CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    cuptiEnableCallback(1, lib.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    if (!brc_cfg.nmetrics)
        return 0;   /* trace mode: no per-launch callback at all */
    cuptiEnableCallback(1, lib.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING);
    for (size_t i = 0; i < sizeof(runtime_launch) / sizeof(*runtime_launch); i++)
        cuptiEnableCallback(1, lib.sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launch[i]);
    for (size_t i = 0; i < sizeof(driver_launch) / sizeof(*driver_launch); i++)
        cuptiEnableCallback(1, lib.sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_launch[i]);
    for (size_t i = 0; i < sizeof(driver_module) / sizeof(*driver_module); i++)
        if (brc_cfg.serialize || ((brc_cfg.unload != BRC_UNLOAD_KEEP || brc_cfg.param_units) &&
                                  is_unload_call(driver_module[i])))
            cuptiEnableCallback(1, lib.sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_module[i]);
    return 0;
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static int done;
    if (done++)
        return 1;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lib.lock, &ma);
    pthread_atfork(NULL, NULL, forget_tid);
    lib.pid = (long)getpid();
    read_config();
    brc_kstore_clock_point();
    mkdir(brc_cfg.out_dir, 0755);
    if (brc_cfg.devbuf_bytes)
        brc_kstore_device_buffer(brc_cfg.devbuf_bytes);
    if (subscribe() != 0 ||
        ((brc_cfg.activity || brc_cfg.copies) && brc_kstore_start(brc_cfg.activity, brc_cfg.copies) != 0)) {
        write_json("CUPTI initialization failed");
        return 1;
    }
    atexit(at_exit);
    install_sigterm();
    install_crash_report();
    return 1;
}
