/* brcupti.h - the modules of libbenchrun-cupti.so (private to src/trace/cupti/).
 *
 * The library is loaded into an unmodified CUDA application through
 * CUDA_INJECTION64_PATH (InitializeInjection, inject.c). Modules, each with
 * its own state behind the functions below:
 *   inject.c    entry point, configuration (BENCHRUN_CUPTI_* variables), the
 *               CUPTI subscriber and its callbacks, the one lock, module
 *               unloads in SASS passes, exit/SIGTERM/context-destroy handling,
 *               the companion JSON
 *   kstore.c    kernel names; CUPTI activity buffers → kernel and copy records
 *               (trace mode); the clock conversion; kernel_trace.csv and
 *               memory_copy_trace.csv
 *   launches.c  counter mode: every launch seen by the launch callbacks, which
 *               of them are profiled (trace/launchplan.h), their device times
 *               (CUDA events), the join with the profiler's ranges, and the
 *               rows of kernel_trace.csv and counter_collection.csv
 *   rangeprof.c per-context CUPTI range profiler: one range per profiled
 *               launch, its calls per launch chosen by trace/rptoggle.h
 *   host.c      profiler host API: pass counts, metric lists (also used offline)
 * Locking: one recursive mutex (brc_lock, inject.c). Every callback that
 * touches a module's state takes it; functions documented "lock held" expect
 * it. All timestamps written are CLOCK_BOOTTIME ns (clockconv.h).
 */
#ifndef BR_CUPTI_INTERNAL_H
#define BR_CUPTI_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda.h>
#include <cupti.h>

#include "trace/launchplan.h"
#include "trace/clockconv.h"
#include "trace/copytrace.h"
#include "trace/ktrace_write.h"
#include "trace/rptoggle.h"

/* What module unloads do in a counter pass (BENCHRUN_CUPTI_UNLOAD). */
enum brc_unload {
    BRC_UNLOAD_KEEP,    /* nothing: the unload goes through (default outside SASS passes) */
    BRC_UNLOAD_DEFER,   /* the module stays loaded to the end (default in SASS passes) */
    BRC_UNLOAD_RESET,   /* range profiler disabled before it, enabled at the next profiled launch */
};

/* Configuration read from the environment once, at injection; read-only after. */
struct brc_config {
    char *out_dir;         /* BENCHRUN_CUPTI_OUT (default ".") */
    char *cache_dir;       /* BENCHRUN_CUPTI_CACHE: folder the passes of one run share for
                              the counter availability image (rangeprof.c); NULL: none */
    char *prefix;          /* BENCHRUN_CUPTI_NAME with %pid% expanded, pid appended */
    char **metrics;        /* BENCHRUN_CUPTI_METRICS, comma-separated; NULL: trace only */
    size_t nmetrics;
    bool sass;             /* some metric is SASS-patched (sm__sass_*): CUPTI instruments kernels */
    bool trace;            /* write kernel_trace.csv (BENCHRUN_CUPTI_TRACE, default 1) */
    size_t max_ranges;     /* ranges per counter image (BENCHRUN_CUPTI_MAX_RANGES) */
    bool kernel_replay;    /* BENCHRUN_CUPTI_REPLAY=kernel (default user: no replay) */
    size_t buffer_bytes;   /* activity buffer size (BENCHRUN_CUPTI_BUFFER_KB) */
    size_t flush_records;  /* trace: write rows when this many are held */
    bool verbose;          /* BENCHRUN_CUPTI_VERBOSE=1: progress on stderr */
    bool debug;            /* BENCHRUN_CUPTI_DEBUG=1: <prefix>_debug.log, every launch,
                              profiler call, module load and decoded range (brc_debug) */
    size_t devbuf_bytes;   /* CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, 0 = CUPTI default */
    bool activity;         /* kernel activity records (BENCHRUN_CUPTI_ACTIVITY; default 1 in
                              trace mode, 0 in counter mode: CUPTI's activity timestamps patch
                              every kernel, see rangeprof.c) */
    bool sampled;          /* BENCHRUN_CUPTI_SAMPLE=FIRST:EVERY:BLOCKS:SEED: counters on the
                              launches `plan` picks per (kernel, grid, block); unset or "all":
                              every launch */
    struct lp_plan plan;
    bool serialize;        /* BENCHRUN_CUPTI_SERIALIZE=1: one launch or module load/unload call
                              at a time in the process, the library's lock held through it */
    bool copies;           /* memory copy and set activity (BENCHRUN_CUPTI_COPIES, default 1):
                              <prefix>_memory_copy_trace.csv, in both modes */
    bool strip_pdl;        /* BENCHRUN_CUPTI_STRIP_PDL: programmatic stream serialization
                              turned off in the launch attributes (default: SASS passes) */
    enum brc_unload unload;   /* BENCHRUN_CUPTI_UNLOAD=defer|reset|keep (inject.c) */
    enum rpt_mode toggle;     /* BENCHRUN_CUPTI_TOGGLE (trace/rptoggle.h), default full */
    bool param_units;      /* sampled passes: signatures split by parameter key
                              (BENCHRUN_CUPTI_PARAM_UNITS, default 1; params.c) */
    unsigned empty_ranges; /* user ranges: ranges pushed around no work before the first
                              launch's, their counts taken out of every launch's
                              (BENCHRUN_CUPTI_EMPTY_RANGES, default 3, 0: none;
                              trace/rangeoffset.h) */
};

extern struct brc_config brc_cfg;

/* Launch attributes seen (brc_launch.attrs). */
enum {
    BRC_ATTR_CLUSTER = 1,  /* cluster dimension attribute with more than one block */
    BRC_ATTR_PDL = 2,      /* programmatic stream serialization allowed */
    BRC_ATTR_COOP = 4,     /* cooperative launch attribute */
};

/* What a launch API callback knows about one launch (inject.c → launches.c). */
struct brc_launch {
    const char *symbol;    /* mangled kernel name (CUPTI's symbolName) */
    bool graph;            /* a graph launch: unknown number of kernels */
    uint32_t grid[3], block[3];
    uint32_t shmem;        /* dynamic shared memory per block, bytes */
    bool has_stream;       /* stream known (the launch calls with dims below) */
    CUstream stream;
    bool late;             /* seen only at the API's exit: already submitted (no events,
                              no decode before it) */
    unsigned attrs;        /* BRC_ATTR_* of an Ex launch */
    uint32_t cluster[3];   /* cluster dimension attribute (0: none) */
    uint64_t param_key;    /* trace/paramkey.h key of a driver launch's parameters (0: none) */
};

/* One kernel execution as CUPTI's activity API reported it (raw CUPTI timestamps). */
struct brc_kernel {
    uint64_t start, end;
    uint32_t corr, device, context, stream;
    uint32_t grid[3], block[3];
    uint32_t regs, lds, local;
    uint32_t name;         /* index into the name table */
};

/* ---- inject.c ---------------------------------------------------------------- */

/* The library's one lock (recursive). */
void brc_lock(void);
void brc_unlock(void);
/* Module loads seen so far (any lock state). */
uint64_t brc_modules_loaded(void);
/* Files written: later events are ignored (lock held). */
bool brc_finished(void);
long brc_pid(void);

/* What this thread is doing inside the library (a string literal, NULL: not in
 * the library); printed by the fatal-signal reporter (inject.c). */
void brc_phase(const char *s);
/* The calling thread's id (asked of the kernel once per thread). */
long brc_gettid(void);
#define BRC_PHASE(s) brc_phase(s)

/* Records the first error (printf-style) and prints it to stderr. */
void brc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line of <prefix>_debug.log (BENCHRUN_CUPTI_DEBUG=1), after a
 * CLOCK_MONOTONIC time in ms. Any lock state. BRC_DEBUG evaluates its
 * arguments only when the log is on (it is called on every launch). */
void brc_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define BRC_DEBUG(...)                                                           \
    do {                                                                         \
        if (brc_cfg.debug)                                                       \
            brc_debug(__VA_ARGS__);                                              \
    } while (0)
/* Name of a CUPTI result. */
const char *brc_cupti_str(CUptiResult r);
/* Path <out_dir>/<prefix>_<suffix>; caller frees. */
char *brc_path(const char *suffix);
/* *fp, or else <out_dir>/<prefix>_<suffix> created now with its header line(s)
 * and kept in *fp; NULL after reporting a failure (the next call tries again). */
FILE *brc_part_file(FILE **fp, const char *suffix, const char *header);
/* Closes *fp (a <prefix>_<name>.part file; NULL: nothing) and renames it to
 * <prefix>_<name>. 0, or -1 (recorded with brc_fail). */
int brc_part_close(FILE **fp, const char *name);
/* Writes fputs(s) / a JSON string to the companion JSON being written. */
void brc_json_str(FILE *fp, const char *s);

/* ---- kstore.c (lock held unless noted) ----------------------------------------- */

int brc_kstore_start(bool kernels, bool copies);   /* activity kinds + buffers (no lock) */
void brc_kstore_device_buffer(size_t bytes);       /* before brc_kstore_start */
void brc_kstore_flush(bool forced);                /* cuptiActivityFlushAll (no lock) */
void brc_kstore_write_trace(void);                 /* held activity records → CSV */
int brc_kstore_close_trace(void);                  /* rename .part → final, both files */
void brc_kstore_write_copies(void);                /* held copies → CSV */
const char *brc_kstore_name(uint32_t idx);         /* demangled */
const char *brc_kstore_mangled(uint32_t idx);
uint32_t brc_kstore_intern(const char *mangled);
/* The kernel trace file, opened with its header on first use (NULL: failed). */
FILE *brc_kstore_trace_file(void);
void brc_kstore_count_rows(uint64_t n);            /* rows written by launches.c */
/* A fresh (CUPTI, CLOCK_BOOTTIME) point; CUPTI timestamps → boottime. */
void brc_kstore_clock_point(void);
uint64_t brc_kstore_to_boot(uint64_t cupti_ns);
/* For the companion JSON. */
struct brc_kstore_stats {
    uint64_t kernels, dropped, copies;
    int hw_trace;          /* CUptiResult of cuptiActivityEnableHWTrace(1), -1 not tried */
    const struct clk_conv *clock;
};
void brc_kstore_stats(struct brc_kstore_stats *out);

/* ---- params.c (lock held) --------------------------------------------------------- */

/* The parameter key of a driver launch of f (trace/paramkey.h); 0 when its
 * parameters cannot be read. */
uint64_t brc_params_key(CUfunction f, void **kernel_params, void **extra);
/* Forgets every function's layout (at a module unload). */
void brc_params_forget(void);
void brc_params_json(FILE *fp);

/* ---- rangeprof.c (lock held) ------------------------------------------------------ */

struct brc_rp_ctx;   /* one CUDA context's range profiler */

/* The context's profiler, created and enabled at its first profiled launch;
 * NULL when it cannot be (the error is recorded once). */
struct brc_rp_ctx *brc_rp_get(CUcontext ctx);
/* Before a profiled launch (dispatch: its id, kernel: its mangled name, for
 * a user range's name): the calls BENCHRUN_CUPTI_TOGGLE needs (a full image
 * decoded first); the range is counted. 0, 1 (a user range is open: not
 * profiled) or -1 (context unusable from now on). */
int brc_rp_arm(struct brc_rp_ctx *c, bool graph, uint64_t dispatch, const char *kernel);
/* After that launch's call returned (launch_failed: it ran nothing). 0/-1. */
int brc_rp_launch_done(struct brc_rp_ctx *c, bool launch_failed);
/* Before a launch that is not profiled. 0/-1. */
int brc_rp_disarm(struct brc_rp_ctx *c);
/* Launch records wait for ranges: decode now where decodes are deferred. 0/-1. */
int brc_rp_flush(struct brc_rp_ctx *c);
/* A launch seen only at its API's exit: whether it became a range (counted). */
bool brc_rp_count_late(struct brc_rp_ctx *c);
bool brc_rp_failed(const struct brc_rp_ctx *c);
/* Decoded ranges not yet taken: n rows of brc_cfg.nmetrics values and the
 * range names (NULL where unknown); marks them taken. */
size_t brc_rp_take(struct brc_rp_ctx *c, const double **vals, const char *const **names);
/* A module is about to be unloaded (BRC_UNLOAD_RESET): decode, disable; the
 * next brc_rp_arm enables again. ctx NULL: every context. */
void brc_rp_on_module_unload(CUcontext ctx);
void brc_rp_finish_ctx(struct brc_rp_ctx *c);      /* decode, disable, release */
void brc_rp_finish(void);                          /* every context */
int brc_rp_init(void);                             /* cuptiProfilerInitialize once */
/* Calls made and their wall time (ms), for the companion JSON. */
struct brc_rp_stats {
    uint64_t ranges, ranges_dropped, ranges_counted, reenabled;
    uint64_t arms;                 /* cuptiRangeProfilerStart calls */
    uint64_t stops, inits, decodes, pushes, syncs, flushes;
    uint64_t busy;                 /* profiled launches refused: a user range was open */
    uint64_t fallbacks;            /* startstop restarts that failed (full from then on) */
    uint64_t ranges_past_pushes;   /* user ranges: decoded ranges past the pushed ones, left out */
    double enable_ms, init_ms, start_ms, stop_ms, decode_ms, push_ms, sync_ms;
    double host_ms, config_ms;     /* of enable_ms: the host object (chip, availability), the config */
    double avail_ms;               /* of host_ms: the counter availability image */
    uint64_t avail_cached;         /* availability images read from BENCHRUN_CUPTI_CACHE */
};
void brc_rp_stats(struct brc_rp_stats *out);
/* The companion JSON's "range_offset": per context, the empty ranges pushed
 * and decoded and the offset taken out of each launch's range (null outside
 * user ranges). */
void brc_rp_offset_json(FILE *fp);
/* Ranges a counter data image holds (the JSON's image_ranges). */
size_t brc_rp_image_ranges(void);

/* ---- launches.c (lock held) -------------------------------------------------------- */

/* launch API entry (late: at the exit, already submitted) */
void brc_launches_enter(CUcontext ctx, const struct brc_launch *l);
/* launch API exit: host end time, end event; launch_failed: the call returned an error */
void brc_launches_exit(CUcontext ctx, bool launch_failed);
void brc_launches_function(CUcontext ctx, CUfunction f);  /* the launch's function */
void brc_launches_on_ctx_destroy(CUcontext ctx);   /* rows of that context, events freed */
void brc_launches_finish(void);                    /* every context's rows, the counter file */
void brc_launches_json(FILE *fp);                  /* their part of the companion JSON */

/* ---- exported entry points (default visibility) ------------------------------------ */
int InitializeInjection(void);
int br_cupti_host_passes(const char *chip, const char *const *names, size_t n, size_t *passes);
int br_cupti_host_list(const char *chip, void (*fn)(void *ctx, const char *name, const char *type),
                       void *ctx);

/* host.c */
int brc_host_passes(const char *chip, const uint8_t *avail, const char *const *names, size_t n,
                    size_t *passes);

#endif
