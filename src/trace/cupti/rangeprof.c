/* rangeprof.c - per-context CUPTI range profiler: one auto range per kernel launch.
 *
 * Counter mode of libbenchrun-cupti.so (cfg.nmetrics > 0). For each CUDA
 * context, on its first launch: counter availability image, profiler host
 * object for the chip, config image of the metrics (must need ONE pass: the
 * group was made single-pass by benchrun; no kernel replay), range profiler
 * enabled with CUPTI_AutoRange and user replay (default) so each launch is one
 * range collected in the application's own single run. Before the counter data
 * image fills (cfg.max_ranges launches), the image is decoded, every range
 * evaluated to GPU values (cuptiProfilerHostEvaluateToGpuValues) and the image
 * re-initialized. At the end, range i is joined with the i-th launch seen by
 * the launch callbacks of the same context (auto range serializes kernels, so
 * ranges are in launch order) and written as rocprofv3 7.x
 * counter_collection.csv rows: name and grid/block from the launch parameters,
 * Start = CLOCK_BOOTTIME at the launch API's entry, End = Start + the device
 * time: gpu__time_duration.sum when that metric is in the pass (run ranges:
 * the events first), else the time between two CUDA events recorded in the launch's stream around it (SASS
 * metrics share no pass with any hardware counter, not even the duration),
 * else CLOCK_BOOTTIME at the API's exit. Device start times are in the trace
 * run's kernel_trace.csv.
 *
 * Why no kernel activity records in counter mode (issue 9, measured on H200,
 * CUDA 13.0): on Hopper CUPTI takes kernel activity timestamps by instrumenting
 * the kernel code (cupti_activity.h, cuptiActivityEnableHWTrace: "instead of
 * the traditional SW instrumentation and semaphore based approach", HW events
 * on Blackwell only). With CONCURRENT_KERNEL activity enabled the counters saw
 * that instrumentation: smsp__inst_executed +8 warp instructions per warp
 * (+42% on axpy) and every sm__sass_* instruction counter 0 (the SASS patch of
 * the profiler was not applied to the instrumented code). The activity records
 * are therefore off by default here (BENCHRUN_CUPTI_ACTIVITY=1 restores them
 * for comparison). Checked on the H200 (tests/gpu/xcheck.sh, axpy 16M floats,
 * 21 launches, totals vs ncu): activity on: ffma 0 (ncu 352,321,536) and
 * smsp__inst_executed +42.11%; activity off: ffma, smsp__inst_executed and
 * smsp__thread_inst_executed +0.00%, dram__bytes_read -0.00%, cycles/warps
 * -1.2..-1.6%, dram__bytes_write -3.4% (ncu's cache control differs).
 *
 * Range mode "run" (BENCHRUN_CUPTI_RANGE=run): one user range per run of
 * consecutive launches of one kernel, its values split evenly over them. Sums
 * stay exact per run (ffma +0.00% above) but per-launch values are the run's
 * mean, and "elapsed" counters (sm__cycles_elapsed, gpu__time_duration) also
 * count the host gaps inside the run (+990% on that test): use it for instruction/
 * FLOP/byte passes of long same-kernel runs; cost 3-38 us/launch instead of
 * 155-930 us/launch (axpy 1M, H200).
 * Sources: CUPTI 13.0 cupti_range_profiler.h, cupti_profiler_host.h,
 * cupti_activity.h and the CUPTI documentation "Range Profiling" (auto range,
 * replay modes).
 */
#include "trace/cupti/brcupti.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cupti_range_profiler.h>

#include "util/xalloc.h"

/* One launch as the launch callbacks saw it. */
struct rp_launch {
    uint32_t name;             /* interned symbol name */
    uint32_t grid[3], block[3], shmem;
    uint32_t regs, local;      /* registers and local memory per thread (0: unknown) */
    uint64_t t0, t1;           /* CLOCK_BOOTTIME ns at API entry and exit */
    uint64_t tid;              /* launching OS thread */
    double dev_ns;             /* device time from the launch's event pair, NaN if none */
    bool ev_begin, ev_end;     /* its events were recorded (slots relative to first_open) */
};

struct rp_ctx {
    CUcontext ctx;
    uint32_t ctx_id, device;
    CUpti_RangeProfiler_Object *obj;
    CUpti_Profiler_Host_Object *host;
    uint8_t *avail;            /* counter availability image, alive as long as host */
    uint8_t *config;
    size_t config_size;
    uint8_t *data;             /* counter data image */
    size_t data_size;
    size_t in_image;           /* launches since the last Start */
    double *vals;              /* ranges × nmetrics, in range order */
    size_t nranges, capvals;
    struct rp_launch *launches;   /* every launch, in order */
    size_t nlaunch, caplaunch;
    uint32_t *run_len;         /* range mode "run": launches in each range, in order */
    size_t nruns, capruns;
    CUevent *ev;               /* event pair of launch first_open + i at ev[2i], ev[2i+1] */
    size_t nev, capev, first_open;
    uint32_t run_name;         /* kernel of the open user range */
    bool in_range;
    bool active, failed;
    bool reenable;             /* disabled at a module unload: enable again at the next launch */
};

/* Each context's state is allocated once and never moves (pointers to it are
 * held across profiler calls); finished ones stay listed with ctx = NULL. */
static struct rp_ctx **ctxs;
static size_t nctx, capctx;
static int events_wanted = -1;   /* event pairs needed (see wants_events) */

/* The launch this thread has open (between its launch API's entry and exit):
 * launches from several threads (PyTorch's autograd engine launches the
 * backward pass from its own thread) must not update each other's records. */
static __thread struct rp_ctx *tls_open_ctx;
static __thread size_t tls_open_idx;
static __thread bool tls_open_events;   /* its begin event was recorded */
static __thread CUstream tls_open_stream;
static int profiler_state;   /* 0 not yet, 1 initialized, -1 failed */
static uint64_t launch_rows;  /* rows written from launch records (dispatch ids) */

#define CALL(fn, p)                                                              \
    do {                                                                         \
        CUptiResult r_ = fn(p);                                                  \
        if (r_ != CUPTI_SUCCESS) {                                               \
            brc_fail("%s: %s", #fn, brc_cupti_str(r_));                         \
            return -1;                                                           \
        }                                                                        \
    } while (0)

int brc_rp_init(void)
{
    if (profiler_state != 0)
        return profiler_state > 0 ? 0 : -1;
    profiler_state = -1;
    CUpti_Profiler_Initialize_Params p = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
    CALL(cuptiProfilerInitialize, &p);
    profiler_state = 1;
    return 0;
}

static uint64_t boot_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The counter availability image of the context's device. "This API may fail,
 * if any profiling or sampling session is active on the specified context or
 * its device" (cupti_profiler_target.h): tried a few times, 50 ms apart. */
static int get_availability(struct rp_ctx *c)
{
    CUptiResult r = CUPTI_ERROR_UNKNOWN;
    for (int attempt = 0; attempt < 5; attempt++) {
        if (attempt > 0)
            nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
        CUpti_Profiler_GetCounterAvailability_Params av = {
            CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE };
        av.ctx = c->ctx;
        r = cuptiProfilerGetCounterAvailability(&av);
        if (r != CUPTI_SUCCESS || av.counterAvailabilityImageSize == 0)
            continue;
        free(c->avail);
        c->avail = xcalloc(av.counterAvailabilityImageSize, 1);
        av.pCounterAvailabilityImage = c->avail;
        r = cuptiProfilerGetCounterAvailability(&av);
        if (r == CUPTI_SUCCESS)
            return 0;
    }
    brc_fail("cuptiProfilerGetCounterAvailability: %s (another profiling or sampling session "
             "on the device?): counters not collected in this context", brc_cupti_str(r));
    return -1;
}

/* The availability image stays alive as long as the host object (c->avail,
 * freed in finish_ctx after cuptiProfilerHostDeinitialize), as the CUPTI
 * samples do; nothing documents that the host object copies it. Before, it was
 * freed right after cuptiProfilerHostInitialize (and NULL was passed when the
 * query failed); the config image allocated next could reuse its memory. Seen
 * on the H200 (notes/e2e-run2, this library's crash report): SIGSEGV at
 * address 0x1f inside libnvperf_host.so under cuptiProfilerHostGetNumOfPasses
 * (return address libcupti.so.13+0xe1632 = GetNumOfPasses+0x62 in CUPTI
 * 13.0's build, checked with objdump), in the first launch's callback, in
 * some passes of the PyTorch runs (which ones varied between runs) and in all
 * six calibration passes once the heap layout changed: a use after free.
 * Not yet confirmed on the GPU with this change (no device time left). */
static int make_host(struct rp_ctx *c, CUdevice dev)
{
    CUpti_Device_GetChipName_Params chip = { CUpti_Device_GetChipName_Params_STRUCT_SIZE };
    chip.deviceIndex = (size_t)dev;
    CALL(cuptiDeviceGetChipName, &chip);
    if (!chip.pChipName || get_availability(c) != 0)
        return -1;
    CUpti_Profiler_Host_Initialize_Params hi = { CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.pChipName;
    hi.pCounterAvailabilityImage = c->avail;
    CUptiResult r = cuptiProfilerHostInitialize(&hi);
    if (r != CUPTI_SUCCESS || !hi.pHostObject) {
        brc_fail("cuptiProfilerHostInitialize(%s): %s", chip.pChipName, brc_cupti_str(r));
        return -1;
    }
    c->host = hi.pHostObject;
    return 0;
}

static int make_config(struct rp_ctx *c)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE };
    add.pHostObject = c->host;
    add.ppMetricNames = (const char **)brc.cfg.metrics;
    add.numMetrics = brc.cfg.nmetrics;
    CALL(cuptiProfilerHostConfigAddMetrics, &add);
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE };
    sz.pHostObject = c->host;
    CALL(cuptiProfilerHostGetConfigImageSize, &sz);
    c->config_size = sz.configImageSize;
    c->config = xcalloc(c->config_size, 1);
    CUpti_Profiler_Host_GetConfigImage_Params gi = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE };
    gi.pHostObject = c->host;
    gi.configImageSize = c->config_size;
    gi.pConfigImage = c->config;
    CALL(cuptiProfilerHostGetConfigImage, &gi);
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE };
    np.configImageSize = c->config_size;
    np.pConfigImage = c->config;
    CALL(cuptiProfilerHostGetNumOfPasses, &np);
    if (np.numOfPasses != 1) {
        brc_fail("the %zu counters need %zu hardware passes; benchrun collects one pass per "
                 "application run (split the group)", brc.cfg.nmetrics, np.numOfPasses);
        return -1;
    }
    return 0;
}

/* Ranges the counter data image holds: twice the launches after which it is
 * decoded. The launches we count are those of the launch callbacks; kernels the
 * driver runs that no launch callback announces (or that we skip, such as
 * re-entrant ones) would otherwise write past a full image, and a graph launch
 * has an unknown number of kernels. */
static size_t image_ranges(void)
{
    return 2 * brc.cfg.max_ranges + 64;
}

static int init_image(struct rp_ctx *c)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE };
    ini.pRangeProfilerObject = c->obj;
    ini.counterDataSize = c->data_size;
    ini.pCounterData = c->data;
    CALL(cuptiRangeProfilerCounterDataImageInitialize, &ini);
    CUpti_RangeProfiler_SetConfig_Params sc = { CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE };
    sc.pRangeProfilerObject = c->obj;
    sc.configSize = c->config_size;
    sc.pConfig = c->config;
    sc.counterDataImageSize = c->data_size;
    sc.pCounterDataImage = c->data;
    sc.range = brc.cfg.range_runs ? CUPTI_UserRange : CUPTI_AutoRange;
    sc.replayMode = brc.cfg.kernel_replay ? CUPTI_KernelReplay : CUPTI_UserReplay;
    sc.maxRangesPerPass = image_ranges();
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CALL(cuptiRangeProfilerSetConfig, &sc);
    CUpti_RangeProfiler_Start_Params st = { CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };
    st.pRangeProfilerObject = c->obj;
    CALL(cuptiRangeProfilerStart, &st);
    c->in_image = 0;
    c->active = true;
    return 0;
}

static int enable_profiler(struct rp_ctx *c);

static int enable(struct rp_ctx *c)
{
    CUdevice dev = 0;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        dev = 0;
    if (make_host(c, dev) != 0 || make_config(c) != 0)
        return -1;
    return enable_profiler(c);
}

/* The range profiler object, its counter data image (kept across a
 * re-enable: same metrics, same size) and the first pass. */
static int enable_profiler(struct rp_ctx *c)
{
    CUpti_RangeProfiler_Enable_Params en = { CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE };
    en.ctx = c->ctx;
    CALL(cuptiRangeProfilerEnable, &en);
    c->obj = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE };
    ds.pRangeProfilerObject = c->obj;
    ds.pMetricNames = (const char **)brc.cfg.metrics;
    ds.numMetrics = brc.cfg.nmetrics;
    ds.maxNumOfRanges = image_ranges();
    ds.maxNumRangeTreeNodes = (uint32_t)image_ranges();
    CALL(cuptiRangeProfilerGetCounterDataSize, &ds);
    if (!c->data || ds.counterDataSize != c->data_size) {
        free(c->data);
        c->data_size = ds.counterDataSize;
        c->data = xcalloc(c->data_size, 1);
    }
    return init_image(c);
}

/* Device time of each launch from a pair of CUDA events recorded in its stream
 * around it (events add stream commands, not kernel code, so the counters do not
 * see them). Event pairs are reused after every decode, which synchronizes. */
static bool event_record(struct rp_ctx *c, size_t slot, CUstream stream)
{
    while (c->nev <= slot) {
        xgrow((void **)&c->ev, &c->capev, c->nev + 1, sizeof(*c->ev));
        if (cuEventCreate(&c->ev[c->nev], CU_EVENT_DEFAULT) != CUDA_SUCCESS)
            return false;
        c->nev++;
    }
    return cuEventRecord(c->ev[slot], stream) == CUDA_SUCCESS;
}

static void event_times(struct rp_ctx *c)
{
    for (size_t i = c->first_open; i < c->nlaunch; i++) {
        size_t k = 2 * (i - c->first_open);
        float ms = 0;
        struct rp_launch *l = &c->launches[i];
        if (l->ev_begin && l->ev_end && k + 1 < c->nev &&
            cuEventElapsedTime(&ms, c->ev[k], c->ev[k + 1]) == CUDA_SUCCESS)
            l->dev_ns = 1e6 * (double)ms;
    }
    c->first_open = c->nlaunch;
}

/* Event pairs are only needed where no counter gives the device time: passes
 * without gpu__time_duration.sum (the SASS pass) and range mode "run". Passes
 * that have it make no extra driver calls per launch. */
static bool wants_events(void)
{
    if (events_wanted < 0) {
        events_wanted = brc.cfg.range_runs;
        bool dur = false;
        for (size_t m = 0; m < brc.cfg.nmetrics; m++)
            dur |= strcmp(brc.cfg.metrics[m], "gpu__time_duration.sum") == 0;
        events_wanted |= !dur;
    }
    return events_wanted > 0;
}

static int pop_range(struct rp_ctx *c)
{
    if (!c->in_range)
        return 0;
    c->in_range = false;
    CUpti_RangeProfiler_PopRange_Params pp = { CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE };
    pp.pRangeProfilerObject = c->obj;
    CALL(cuptiRangeProfilerPopRange, &pp);
    return 0;
}

static int push_range(struct rp_ctx *c, uint32_t name)
{
    CUpti_RangeProfiler_PushRange_Params pr = { CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE };
    pr.pRangeProfilerObject = c->obj;
    pr.pRangeName = "run";
    CALL(cuptiRangeProfilerPushRange, &pr);
    c->in_range = true;
    c->run_name = name;
    xgrow((void **)&c->run_len, &c->capruns, c->nruns + 1, sizeof(*c->run_len));
    c->run_len[c->nruns++] = 0;
    return 0;
}

/* Decodes the image and appends every range's values (image left stopped). */
static int collect(struct rp_ctx *c)
{
    if (pop_range(c) != 0)
        return -1;
    CUpti_RangeProfiler_Stop_Params sp = { CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE };
    sp.pRangeProfilerObject = c->obj;
    c->active = false;
    CALL(cuptiRangeProfilerStop, &sp);
    CUpti_RangeProfiler_DecodeData_Params dd = { CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE };
    dd.pRangeProfilerObject = c->obj;
    CALL(cuptiRangeProfilerDecodeData, &dd);
    event_times(c);
    brc.ranges_dropped += dd.numOfRangeDropped;
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE };
    info.pCounterDataImage = c->data;
    info.counterDataImageSize = c->data_size;
    CALL(cuptiRangeProfilerGetCounterDataInfo, &info);
    size_t nm = brc.cfg.nmetrics;
    xgrow((void **)&c->vals, &c->capvals, (c->nranges + info.numTotalRanges) * nm, sizeof(double));
    for (size_t i = 0; i < info.numTotalRanges; i++) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE };
        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->data;
        ev.counterDataImageSize = c->data_size;
        ev.rangeIndex = i;
        ev.ppMetricNames = (const char **)brc.cfg.metrics;
        ev.numMetrics = nm;
        ev.pMetricValues = c->vals + (c->nranges + i) * nm;
        CALL(cuptiProfilerHostEvaluateToGpuValues, &ev);
    }
    c->nranges += info.numTotalRanges;
    brc.ranges += info.numTotalRanges;
    return 0;
}

static struct rp_ctx *find_ctx(CUcontext ctx, bool create)
{
    for (size_t i = 0; i < nctx; i++)
        if (ctxs[i]->ctx == ctx && (ctxs[i]->obj || ctxs[i]->failed || ctxs[i]->reenable))
            return ctxs[i];
    if (!create)
        return NULL;
    /* cuptiProfilerInitialize fails (CUPTI_ERROR_UNKNOWN, seen on an H200 with
     * CUDA 13.0) when called from InitializeInjection, inside cuInit: it is
     * called here, at the first launch, once the context exists. */
    brc_rp_init();
    struct rp_ctx *c = xcalloc(1, sizeof(*c));
    xgrow((void **)&ctxs, &capctx, nctx + 1, sizeof(*ctxs));
    ctxs[nctx++] = c;
    c->ctx = ctx;
    cuptiGetContextId(ctx, &c->ctx_id);
    cuptiGetDeviceId(ctx, &c->device);
    if (profiler_state < 0 || enable(c) != 0)
        c->failed = true;
    return c;
}

/* A launch into a stream that is being captured is recorded into a graph and
 * runs nothing now: no range, and no event may be recorded into that stream
 * (it would become a node of the application's graph). */
static bool stream_capturing(const struct brc_launch *l)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!l->has_stream)
        return false;
    if (cuStreamIsCapturing(l->stream, &st) != CUDA_SUCCESS)
        return true;   /* e.g. the legacy stream during a global capture: the launch fails */
    return st != CU_STREAM_CAPTURE_STATUS_NONE;
}

void brc_rp_on_launch(CUcontext ctx, const struct brc_launch *l)
{
    tls_open_ctx = NULL;
    if (brc.finished || !ctx)
        return;
    if (stream_capturing(l)) {
        brc.launches_captured++;
        return;
    }
    struct rp_ctx *c = find_ctx(ctx, true);
    if (c->reenable && !c->failed) {
        BRC_PHASE("enabling the range profiler again after a module unload");
        c->reenable = false;
        if (enable_profiler(c) != 0)
            c->failed = true;
        brc.profiler_reenabled++;
        BRC_PHASE("launch API entry callback (range profiler, events)");
    }
    if (c->failed) {
        brc.launches_dropped++;
        return;
    }
    uint32_t name = brc_kstore_intern(l->symbol);
    bool same_run = brc.cfg.range_runs && c->in_range && name == c->run_name && !l->graph;
    if (brc.cfg.range_runs && !same_run && pop_range(c) != 0)
        goto failed;
    /* A graph launch runs an unknown number of kernels: leave it half an image. */
    size_t limit = l->graph ? brc.cfg.max_ranges / 2 : brc.cfg.max_ranges;
    if (!same_run && c->active && c->in_image >= limit && !l->late) {
        BRC_PHASE("decoding and re-arming the counter image (cuptiRangeProfilerStop/"
                  "DecodeData/SetConfig/Start)");
        if (collect(c) != 0 || init_image(c) != 0)
            goto failed;
        BRC_PHASE("launch API entry callback (range profiler, events)");
        if (brc.cfg.verbose)
            fprintf(stderr, "benchrun-cupti: %zu ranges collected\n", c->nranges);
    }
    if (!c->active)
        goto failed;
    if (brc.cfg.range_runs) {
        if (!same_run && push_range(c, name) != 0)
            goto failed;
        c->run_len[c->nruns - 1]++;
    }
    if (!same_run)
        c->in_image++;
    xgrow((void **)&c->launches, &c->caplaunch, c->nlaunch + 1, sizeof(*c->launches));
    struct rp_launch *r = &c->launches[c->nlaunch++];
    memset(r, 0, sizeof(*r));
    r->name = name;
    memcpy(r->grid, l->grid, sizeof(r->grid));
    memcpy(r->block, l->block, sizeof(r->block));
    r->shmem = l->shmem;
    r->tid = (uint64_t)syscall(SYS_gettid);
    r->dev_ns = NAN;
    tls_open_ctx = c;
    tls_open_idx = c->nlaunch - 1;
    tls_open_stream = l->stream;
    tls_open_events = l->has_stream && wants_events() && !l->late;
    if (tls_open_events) {
        BRC_PHASE("recording the launch's begin event (cuEventRecord)");
        r->ev_begin = event_record(c, 2 * (tls_open_idx - c->first_open), l->stream);
    }
    r->t0 = boot_ns();
    r->t1 = r->t0;
    return;
failed:
    /* the context's image is unusable now: this and later launches are dropped */
    c->failed = true;
    brc.launches_dropped++;
}

/* One integer attribute of a launched function, 0 when unknown. f may be a
 * CUkernel cast to CUfunction (cuda.h, cuLaunchKernel: "context-less kernel
 * CUkernel ... by casting to CUfunction"), as the CUDA 12+ runtime's library
 * loading and cuBLAS 13 (nvjet kernels) may pass; cuFuncGetAttribute fails on
 * one. Counter rows of the H200 runs had 0 registers for every runtime launch
 * (at::native kernels, calib_reglimit: its register limit read 64 warps
 * instead of 16) and every nvjet kernel; cuDNN's driver launches had theirs.
 * cuKernelGetAttribute answers for a CUkernel on a device whether or not it
 * is loaded in the context yet (cuda.h, CUDA 12.0+). */
static int func_attr(CUfunction f, CUfunction_attribute a, bool have_dev, CUdevice dev)
{
    int v = 0;
    if (cuFuncGetAttribute(&v, a, f) == CUDA_SUCCESS)
        return v;
    v = 0;
    if (have_dev && cuKernelGetAttribute(&v, a, (CUkernel)f, dev) == CUDA_SUCCESS)
        return v;
    return 0;
}

/* Registers, static shared and local memory of the launch's function: the
 * activity records are off in counter mode, so they come from the driver
 * (the launch's context is current in its launch callback). */
void brc_rp_on_function(CUcontext ctx, CUfunction f)
{
    /* per thread: launch callbacks come from several threads (PyTorch's
     * autograd thread), each caching its last function's attributes */
    static __thread CUfunction last;
    static __thread CUcontext last_ctx;
    static __thread int regs, smem, local;
    struct rp_ctx *c = tls_open_ctx;
    if (brc.finished || !ctx || !f || !c || c->failed || c->ctx != ctx || tls_open_idx >= c->nlaunch)
        return;
    if (f != last || ctx != last_ctx) {
        CUdevice dev = 0;
        bool have_dev = cuCtxGetDevice(&dev) == CUDA_SUCCESS;
        regs = func_attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS, have_dev, dev);
        smem = func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, have_dev, dev);
        local = func_attr(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, have_dev, dev);
        last = f;
        last_ctx = ctx;
    }
    struct rp_launch *r = &c->launches[tls_open_idx];
    r->regs = (uint32_t)regs;
    r->shmem += (uint32_t)smem;
    r->local = (uint32_t)local;
}

void brc_rp_on_launch_exit(CUcontext ctx, bool launch_failed)
{
    struct rp_ctx *c = tls_open_ctx;
    tls_open_ctx = NULL;
    if (brc.finished || !ctx || !c || !c->ctx || c->failed || tls_open_idx >= c->nlaunch)
        return;   /* !c->ctx: its context was destroyed and collected meanwhile */
    if (launch_failed) {
        /* nothing ran, so CUPTI made no range: forget the launch (launch mode;
         * only while it is still the newest, else ranges and launches would shift) */
        if (!brc.cfg.range_runs && tls_open_idx == c->nlaunch - 1 && c->in_image > 0) {
            c->nlaunch--;
            c->in_image--;
        }
        brc.launches_dropped++;
        return;
    }
    struct rp_launch *r = &c->launches[tls_open_idx];
    r->t1 = boot_ns();
    /* the pair's slots belong to the image decoded since, if any */
    if (tls_open_events && r->ev_begin && tls_open_idx >= c->first_open)
        r->ev_end = event_record(c, 2 * (tls_open_idx - c->first_open) + 1, tls_open_stream);
}

static void finish_ctx(struct rp_ctx *c)
{
    if (!c->failed && c->active && collect(c) != 0)
        c->failed = true;
    if (c->obj) {
        CUpti_RangeProfiler_Disable_Params dp = { CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE };
        dp.pRangeProfilerObject = c->obj;
        cuptiRangeProfilerDisable(&dp);
        c->obj = NULL;
    }
    if (c->host) {
        CUpti_Profiler_Host_Deinitialize_Params hd = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE };
        hd.pHostObject = c->host;
        cuptiProfilerHostDeinitialize(&hd);
        c->host = NULL;
    }
    free(c->avail);
    c->avail = NULL;
    c->ctx = NULL;   /* the handle may be reused by a new context */
}

/* A module or library is about to be unloaded. With SASS metrics, CUPTI 13.0
 * crashes at the next launch after a cuModuleUnload (tests/gpu/sass_repro.cu
 * mode churn on an H200: SIGSEGV at 0xc18 in libnvperf_host under
 * cuLaunchKernelEx, none of our code on the stack; JAX's autotuner unloads
 * its candidates' modules and died the same way, at 0x18). So the range
 * profiler of the context (every context for a library: ctx NULL) is
 * collected and disabled before the unload, and enabled again, fresh, at the
 * next launch: the ranges already taken are kept in order, so the join of
 * ranges and launches is unchanged. */
void brc_rp_on_module_unload(CUcontext ctx)
{
    for (size_t i = 0; i < nctx; i++) {
        struct rp_ctx *c = ctxs[i];
        if (!c->ctx || c->failed || !c->obj || (ctx && c->ctx != ctx))
            continue;
        if (c->active && collect(c) != 0) {
            c->failed = true;
            continue;
        }
        CUpti_RangeProfiler_Disable_Params dp = { CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE };
        dp.pRangeProfilerObject = c->obj;
        cuptiRangeProfilerDisable(&dp);
        c->obj = NULL;
        c->reenable = true;
    }
}

void brc_rp_on_ctx_destroy(CUcontext ctx)
{
    for (size_t i = 0; i < nctx; i++)
        if (ctxs[i]->ctx == ctx)
            finish_ctx(ctxs[i]);
    if (tls_open_ctx && !tls_open_ctx->ctx)
        tls_open_ctx = NULL;
}

void brc_rp_finish(void)
{
    for (size_t i = 0; i < nctx; i++)
        if (ctxs[i]->ctx)
            finish_ctx(ctxs[i]);
}

static int by_start(const void *a, const void *b)
{
    const struct brc_kernel *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Writes the rows of one context: its i-th kernel (by start) gets range i. */
static void write_ctx(FILE *fp, const struct rp_ctx *c, const struct brc_kernel *k, size_t nk,
                      size_t base)
{
    size_t used = 0, nm = brc.cfg.nmetrics;
    struct ktw_kernel row;
    for (size_t i = 0; i < nk && used < c->nranges; i++) {
        if (k[i].context != c->ctx_id)
            continue;
        brc_kernel_to_ktw(&k[i], base + i + 1, &row);
        for (size_t m = 0; m < nm; m++)
            ktw_write_counter_row(fp, &row, brc.pid, brc.cfg.metrics[m], c->vals[used * nm + m]);
        brc.counter_rows += nm;
        used++;
    }
    /* gpu__time_duration.sum, when collected, gives the device time: End = Start + it. */
    size_t dur_idx = nm;
    for (size_t m = 0; m < nm; m++)
        if (strcmp(brc.cfg.metrics[m], "gpu__time_duration.sum") == 0)
            dur_idx = m;
    if (used == 0 && c->nranges > 0) {
        /* The default (no kernel activity records, see the top of this file):
         * range r is launch r of this context. */
        size_t range = 0, left = c->run_len && c->nruns ? c->run_len[0] : 1;
        for (size_t r = 0; r < c->nlaunch && range < c->nranges; r++) {
            const struct rp_launch *l = &c->launches[r];
            /* range mode "run": the range's values split evenly over its launches */
            double share = c->run_len ? 1.0 / c->run_len[range] : 1.0;
            memset(&row, 0, sizeof(row));
            row.name = brc_kstore_name(l->name);
            row.kernel_id = (uint64_t)l->name + 1;
            row.dispatch_id = base + nk + ++launch_rows;
            row.agent = c->device;
            row.thread_id = l->tid;
            row.start_ns = l->t0;
            row.end_ns = l->t1;
            /* run ranges: the range's duration also holds the host gaps, so
             * the launch's own event time comes first there */
            double dur = dur_idx < nm ? c->vals[range * nm + dur_idx] * share : NAN;
            if (brc.cfg.range_runs && !isnan(l->dev_ns))
                dur = l->dev_ns;
            else if (isnan(dur))
                dur = l->dev_ns;
            if (!isnan(dur))
                row.end_ns = l->t0 + (uint64_t)(dur + 0.5);
            row.lds_bytes = l->shmem;
            row.vgpr = l->regs;
            row.scratch_bytes = l->local;
            memcpy(row.grid, l->grid, sizeof(row.grid));
            memcpy(row.block, l->block, sizeof(row.block));
            for (size_t m = 0; m < nm; m++)
                ktw_write_counter_row(fp, &row, brc.pid, brc.cfg.metrics[m],
                                      c->vals[range * nm + m] * share);
            brc.counter_rows += nm;
            if (--left == 0) {
                used++;
                range++;
                left = c->run_len ? (range < c->nruns ? c->run_len[range] : 0) : 1;
            }
        }
    }
    brc.unmatched += c->nranges - used;
}

int brc_rp_write(void)
{
    /* Dispatch ids: kernels in start order, the same in both files. */
    qsort(brc.k, brc.nk, sizeof(*brc.k), by_start);
    uint64_t base = brc.dispatched;
    brc_kstore_write_trace();
    char *part = brc_path("counter_collection.csv.part");
    char *final = brc_path("counter_collection.csv");
    FILE *fp = fopen(part, "w");
    int rc = 0;
    if (!fp) {
        brc_fail("cannot create '%s'", part);
        rc = -1;
    } else {
        fputs(ktw_counter_header, fp);
        for (size_t i = 0; i < nctx; i++)
            write_ctx(fp, ctxs[i], brc.k, brc.nk, (size_t)base);
        if ((ferror(fp) | fclose(fp)) || rename(part, final) != 0) {
            brc_fail("cannot write '%s'", final);
            rc = -1;
        }
    }
    free(part);
    free(final);
    return rc;
}
