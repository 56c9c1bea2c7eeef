/* brcupti.h - shared state of libbenchrun-cupti.so (private to src/trace/cupti/).
 *
 * The library is loaded into an unmodified CUDA application through
 * CUDA_INJECTION64_PATH (InitializeInjection, inject.c). Modules:
 *   inject.c    entry point, configuration (BENCHRUN_CUPTI_* variables), the
 *               CUPTI subscriber, exit/SIGTERM/context-destroy handling, files
 *   kstore.c    CUPTI activity buffers → compact kernel records; kernel_trace.csv
 *   rangeprof.c per-context range profiler (auto range = one range per launch)
 *   host.c      profiler host API: pass counts, metric lists (also used offline)
 * All timestamps written are CLOCK_BOOTTIME ns (clockconv.h).
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

#include "trace/clockconv.h"
#include "trace/copytrace.h"
#include "trace/ktrace_write.h"

/* Configuration read from the environment once, at injection. */
struct brc_config {
    char *out_dir;         /* BENCHRUN_CUPTI_OUT (default ".") */
    char *prefix;          /* BENCHRUN_CUPTI_NAME with %pid% expanded, pid appended */
    char **metrics;        /* BENCHRUN_CUPTI_METRICS, comma-separated; NULL: trace only */
    size_t nmetrics;
    bool trace;            /* write kernel_trace.csv (BENCHRUN_CUPTI_TRACE, default 1) */
    size_t max_ranges;     /* ranges per counter image (BENCHRUN_CUPTI_MAX_RANGES) */
    bool kernel_replay;    /* BENCHRUN_CUPTI_REPLAY=kernel (default user: no replay) */
    size_t buffer_bytes;   /* activity buffer size (BENCHRUN_CUPTI_BUFFER_KB) */
    size_t flush_records;  /* trace: write rows when this many are held */
    bool verbose;          /* BENCHRUN_CUPTI_VERBOSE=1: progress on stderr */
    size_t devbuf_bytes;   /* CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, 0 = CUPTI default */
    bool activity;         /* kernel activity records (BENCHRUN_CUPTI_ACTIVITY; default 1 in
                              trace mode, 0 in counter mode: CUPTI's activity timestamps patch
                              every kernel, see rangeprof.c) */
    bool range_runs;       /* BENCHRUN_CUPTI_RANGE=run: one user range per run of consecutive
                              launches of the same kernel (default: auto range per launch) */
    bool serialize;        /* BENCHRUN_CUPTI_SERIALIZE=1: one launch or module load/unload call
                              at a time in the process, the library's lock held through it */
    bool copies;           /* memory copy and set activity (BENCHRUN_CUPTI_COPIES, default 1):
                              <prefix>_memory_copy_trace.csv, in both modes */
    bool strip_pdl;        /* BENCHRUN_CUPTI_STRIP_PDL: programmatic stream serialization
                              turned off in the launch attributes (default: SASS passes) */
    bool unload_reset;     /* BENCHRUN_CUPTI_UNLOAD_RESET: range profiler disabled before
                              each module unload, enabled at the next launch (default:
                              SASS passes, see rangeprof.c brc_rp_on_module_unload) */
};

/* Launch attributes seen (brc_launch.attrs). */
enum {
    BRC_ATTR_CLUSTER = 1,  /* cluster dimension attribute with more than one block */
    BRC_ATTR_PDL = 2,      /* programmatic stream serialization allowed */
    BRC_ATTR_COOP = 4,     /* cooperative launch attribute */
};

/* What a launch API callback knows about one launch (inject.c → rangeprof.c). */
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
};

/* What the launch callbacks saw, for the companion JSON (atomic counters). */
struct brc_census {
    uint64_t launch_ex;        /* cuLaunchKernelEx / cudaLaunchKernelExC calls */
    uint64_t cluster;          /* ... with a cluster dimension attribute of > 1 block */
    uint64_t cluster1;         /* ... with a cluster dimension attribute of 1 x 1 x 1 */
    uint64_t pdl;              /* ... with programmatic stream serialization allowed */
    uint64_t pdl_stripped;     /* ... where BENCHRUN_CUPTI_STRIP_PDL turned it off */
    uint64_t modules_loaded;   /* CUPTI_CBID_RESOURCE_MODULE_LOADED callbacks */
    uint64_t threads;          /* distinct threads that launched */
};

/* One kernel execution as CUPTI reported it (raw CUPTI timestamps). */
struct brc_kernel {
    uint64_t start, end;
    uint32_t corr, device, context, stream;
    uint32_t grid[3], block[3];
    uint32_t regs, lds, local;
    uint32_t name;         /* index into the name table */
};

/* Process-wide state; everything below is guarded by lock. */
struct brc_state {
    pthread_mutex_t lock;
    struct brc_config cfg;
    CUpti_SubscriberHandle sub;
    bool finished;         /* files written; later events are ignored */
    long pid;
    struct clk_conv clock;
    /* kernel records held until written */
    struct brc_kernel *k;
    size_t nk, capk;
    uint64_t dispatched;   /* rows written so far (Dispatch_Id base) */
    uint64_t dropped;      /* activity records CUPTI dropped */
    FILE *trace_fp;        /* <prefix>_kernel_trace.csv.part while open */
    /* memory copies and sets held until written (raw CUPTI timestamps) */
    struct ct_copy *copies;
    size_t ncopies, capcopies;
    uint64_t copy_rows;
    FILE *copy_fp;         /* <prefix>_memory_copy_trace.csv.part while open */
    uint64_t trace_rows;
    /* interned demangled names */
    char **names;
    const char **name_keys;  /* CUPTI's name pointer for each entry */
    size_t nnames, capnames;
    /* counter collection summary */
    uint64_t counter_rows, ranges, ranges_dropped, unmatched;
    /* launches not profiled (companion JSON): a failure while profiling one
     * launch drops that launch, never the application (rangeprof.c) */
    uint64_t launches_dropped;     /* profiler call failed for it, or context failed */
    uint64_t launches_captured;    /* into a capturing stream: recorded in a graph, not run */
    uint64_t launches_reentrant;   /* launched from inside our own callback (CUPTI/driver) */
    uint64_t profiler_reenabled;   /* range profiler enabled again after a module unload */
    char *error;           /* first error, for the companion JSON */
    int hw_trace;          /* CUptiResult of cuptiActivityEnableHWTrace(1), -1 not tried */
    struct brc_census census;
};

extern struct brc_state brc;

/* What this thread is doing inside the library (a string literal, NULL: not in
 * the library); printed by the fatal-signal reporter (inject.c). */
extern __thread const char *brc_tls_phase;
/* The last phase any thread entered and that thread's id: when another thread
 * crashes, the report says what the library was doing meanwhile. */
extern const char *volatile brc_any_phase;
extern volatile long brc_any_phase_tid;
void brc_phase(const char *s);
#define BRC_PHASE(s) brc_phase(s)

/* Records the first error (printf-style) and prints it to stderr. */
void brc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Name of a CUPTI result. */
const char *brc_cupti_str(CUptiResult r);
/* Path <out_dir>/<prefix>_<suffix>; caller frees. */
char *brc_path(const char *suffix);

/* kstore.c */
int brc_kstore_start(bool kernels, bool copies);   /* activity kinds + buffers */
void brc_kstore_device_buffer(size_t bytes);       /* before brc_kstore_start */
void brc_kstore_flush(bool forced);                /* cuptiActivityFlushAll */
void brc_kstore_write_trace(void);                 /* held records → CSV (lock held) */
int brc_kstore_close_trace(void);                  /* rename .part → final (lock held) */
void brc_kstore_write_copies(void);                /* held copies → CSV (lock held) */
const char *brc_kstore_name(uint32_t idx);
uint32_t brc_kstore_intern(const char *mangled);   /* lock held */
/* Fills a rocprofv3 row from a record; timestamps converted to boottime. */
void brc_kernel_to_ktw(const struct brc_kernel *k, uint64_t dispatch, struct ktw_kernel *out);

/* rangeprof.c (all under brc.lock) */
int brc_rp_init(void);                             /* cuptiProfilerInitialize once */
void brc_rp_on_launch(CUcontext ctx, const struct brc_launch *l);  /* launch API enter */
/* launch API exit: host end time, end event; launch_failed: the call returned an error */
void brc_rp_on_launch_exit(CUcontext ctx, bool launch_failed);
void brc_rp_on_function(CUcontext ctx, CUfunction f);  /* the launch's function (driver call) */
void brc_rp_on_ctx_destroy(CUcontext ctx);
void brc_rp_on_module_unload(CUcontext ctx);       /* ctx NULL: every context */
void brc_rp_finish(void);                          /* collect every context */
int brc_rp_write(void);                            /* join with kernels, write CSV */

/* Exported entry points (default visibility). */
int InitializeInjection(void);
int br_cupti_host_passes(const char *chip, const char *const *names, size_t n, size_t *passes);
int br_cupti_host_list(const char *chip, void (*fn)(void *ctx, const char *name, const char *type),
                       void *ctx);

/* host.c */
int brc_host_passes(const char *chip, const uint8_t *avail, const char *const *names, size_t n,
                    size_t *passes);

#endif
