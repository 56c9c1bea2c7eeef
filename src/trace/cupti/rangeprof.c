/* rangeprof.c - per-context CUPTI range profiler: one range per profiled launch.
 *
 * Counter mode of libbenchrun-cupti.so (brc_cfg.nmetrics > 0). For each CUDA
 * context, at its first profiled launch: counter availability image,
 * profiler host object for the chip, config image of the metrics (must need
 * ONE pass: the group was made single-pass by benchrun; no kernel replay),
 * range profiler enabled with user replay (default), so the counters are
 * collected in the application's own single run. launches.c decides which
 * launches are profiled (all, or a sample) and calls brc_rp_arm before a
 * profiled launch, brc_rp_launch_done after it, brc_rp_disarm before a launch
 * that is not. Which CUPTI calls those make is BENCHRUN_CUPTI_TOGGLE
 * (trace/rptoggle.h, the steps run here in its order):
 *   full (the default with every launch profiled), startstop: CUPTI_AutoRange, each kernel that runs while
 *     the profiler is started is one range, in launch order (auto range
 *     serializes kernels), named by CUPTI after the kernel, which launches.c
 *     uses to check its join. full starts the profiler (image initialized,
 *     config set) before each stretch of profiled launches and stops and
 *     decodes it after; startstop only starts and stops per stretch and
 *     decodes when the image is full or at the end.
 *   user (the default of sampled passes), user-async: CUPTI_UserRange, the
 *     profiler started once per image; each profiled launch is one pushed
 *     range named "<dispatch>:<kernel>", pushed at its driver call once its
 *     function is loaded (launches.c, which joins by the dispatch id and
 *     drops NaN ranges); only the pushed ranges of a decode are read
 *     (rpt_ranges_kept); work outside a pushed range is
 *     in no range (NVIDIA's range_profiling sample, CUDA 12.6+, launches a
 *     kernel after its last pop and before the stop: it gets no range).
 *     After each start a warm-up range, and after the context's first the
 *     empty ranges, are pushed around no work: what a range counts of its
 *     own is taken out of each launch's (trace/rangeoffset.h).
 *     user synchronizes the context before the push and before the pop, so
 *     the range holds the launch's kernel and nothing else whatever the
 *     order CUPTI gives the push and pop against the stream; user-async does
 *     not (the removed run-range mode pushed and popped from the launch
 *     callbacks unsynchronized and counted FFMAs and instructions exactly
 *     over runs of launches on the H200, README cross-check table).
 * A decode evaluates every range to GPU values
 * (cuptiProfilerHostEvaluateToGpuValues) and takes its name.
 *
 * Why no kernel activity records in counter mode (measured on H200,
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
 * Sources: CUPTI 13.0 cupti_range_profiler.h, cupti_profiler_host.h,
 * cupti_activity.h and the CUPTI documentation "Range Profiling" (auto range,
 * replay modes).
 */
#include "trace/cupti/brcupti.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cupti_range_profiler.h>

#include "trace/rangeoffset.h"
#include "trace/rptoggle.h"
#include "util/xalloc.h"

struct brc_rp_ctx {
    CUcontext ctx;             /* NULL once finished */
    CUpti_RangeProfiler_Object *obj;
    CUpti_Profiler_Host_Object *host;
    uint8_t *avail;            /* counter availability image, alive as long as host */
    uint8_t *config;
    size_t config_size;
    uint8_t *data;             /* counter data image */
    size_t data_size;
    struct rpt_state st;       /* which profiler calls come next (trace/rptoggle.h) */
    double *vals;              /* ranges × nmetrics, in range order */
    char **names;              /* [range] range name (the kernel), NULL when unknown */
    size_t nranges, capvals, capnames, taken;
    bool failed;
    bool reenable;             /* disabled at a module unload: enable at the next arm */
    /* user ranges: what a range counts of its own (trace/rangeoffset.h) */
    unsigned empty_pushed, empty_decoded, warmups_pushed, warmups_decoded;
    double *empty_vals;        /* empty_decoded rows of nmetrics values */
    unsigned own_in_image;     /* warm-up and empty ranges in the image being filled */
    double *offset;            /* per counter (NaN: none); set once every empty range is decoded */
    size_t offset_counters;    /* counters given an offset */
    uint64_t offset_ranges;    /* launch ranges the offset was taken out of */
    uint64_t offset_floored;   /* their values below the offset, made 0 */
};

/* The module's state: contexts (each allocated once, never moved: pointers
 * to it are held across profiler calls; finished ones stay listed). */
static struct {
    struct brc_rp_ctx **ctxs;
    size_t nctx, capctx;
    int profiler_state;        /* 0 not yet, 1 initialized, -1 failed */
    struct brc_rp_stats stats;
} rp;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

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
    if (rp.profiler_state != 0)
        return rp.profiler_state > 0 ? 0 : -1;
    rp.profiler_state = -1;
    CUpti_Profiler_Initialize_Params p = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
    CALL(cuptiProfilerInitialize, &p);
    rp.profiler_state = 1;
    return 0;
}

/* <BENCHRUN_CUPTI_CACHE>/cupti_availability_<chip>_<device uuid>.bin, NULL
 * without a cache folder. Asking CUPTI for the image took 116-136 ms on the
 * H200, nearly all of enabling the profiler (docs/validation.md §15), in
 * every pass: the run's first pass asks, the others read its answer. */
static char *avail_path(const char *chip, CUdevice dev)
{
    CUuuid u;
    if (!brc_cfg.cache_dir || cuDeviceGetUuid(&u, dev) != CUDA_SUCCESS)
        return NULL;
    char hex[2 * sizeof(u.bytes) + 1];
    for (size_t i = 0; i < sizeof(u.bytes); i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)u.bytes[i]);
    return xasprintf("%s/cupti_availability_%s_%s.bin", brc_cfg.cache_dir, chip, hex);
}

/* The cached image into c->avail; false when there is none (or it is unreadable). */
static bool avail_read(struct brc_rp_ctx *c, const char *path)
{
    FILE *fp = path ? fopen(path, "rb") : NULL;
    if (!fp)
        return false;
    long n = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
    uint8_t *img = n > 0 && n < (1L << 26) ? xmalloc((size_t)n) : NULL;
    bool ok = img && fseek(fp, 0, SEEK_SET) == 0 && fread(img, 1, (size_t)n, fp) == (size_t)n;
    fclose(fp);
    if (!ok) {
        free(img);
        return false;
    }
    free(c->avail);
    c->avail = img;
    return true;
}

/* Written under a name of this process, then renamed: passes of several
 * processes may write at once, and none reads half a file. (util/fsutil.h's
 * fs_write_atomic is not linked into the library: it brings jansson.) */
static void avail_write(const struct brc_rp_ctx *c, size_t size, const char *path)
{
    if (!path)
        return;
    char *tmp = xasprintf("%s.%ld.tmp", path, brc_pid());
    FILE *fp = fopen(tmp, "wb");
    bool ok = fp && fwrite(c->avail, 1, size, fp) == size;
    if (fp && fclose(fp) != 0)
        ok = false;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
    free(tmp);
}

/* The counter availability image of the context's device, from the run's
 * cache when an earlier pass left it. "This API may fail, if any profiling
 * or sampling session is active on the specified context or its device"
 * (cupti_profiler_target.h): tried a few times, 50 ms apart. */
static int get_availability(struct brc_rp_ctx *c, const char *chip, CUdevice dev)
{
    char *path = avail_path(chip, dev);
    if (avail_read(c, path)) {
        rp.stats.avail_cached++;
        free(path);
        return 0;
    }
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
        if (r == CUPTI_SUCCESS) {
            avail_write(c, av.counterAvailabilityImageSize, path);
            free(path);
            return 0;
        }
    }
    free(path);
    brc_fail("cuptiProfilerGetCounterAvailability: %s (another profiling or sampling session "
             "on the device?): counters not collected in this context", brc_cupti_str(r));
    return -1;
}

/* The availability image stays alive as long as the host object (c->avail,
 * freed in brc_rp_finish_ctx after cuptiProfilerHostDeinitialize), as the
 * CUPTI samples do; nothing documents that the host object copies it. Freed
 * right after cuptiProfilerHostInitialize, it was reused by the config image
 * and CUPTI crashed in cuptiProfilerHostGetNumOfPasses (H200, notes/e2e-run2:
 * SIGSEGV at 0x1f in libnvperf_host.so at the first launch). */
static int make_host(struct brc_rp_ctx *c, CUdevice dev)
{
    CUpti_Device_GetChipName_Params chip = { CUpti_Device_GetChipName_Params_STRUCT_SIZE };
    chip.deviceIndex = (size_t)dev;
    CALL(cuptiDeviceGetChipName, &chip);
    double t0 = now_ms();
    if (!chip.pChipName || get_availability(c, chip.pChipName, dev) != 0)
        return -1;
    rp.stats.avail_ms += now_ms() - t0;
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

static int make_config(struct brc_rp_ctx *c)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE };
    add.pHostObject = c->host;
    add.ppMetricNames = (const char **)brc_cfg.metrics;
    add.numMetrics = brc_cfg.nmetrics;
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
                 "application run (split the group)", brc_cfg.nmetrics, np.numOfPasses);
        return -1;
    }
    return 0;
}

/* Ranges the counter data image holds: twice the ranges after which it is
 * decoded. Auto ranges: the ranges we count are the profiled launches of the
 * launch callbacks; kernels the driver runs that no launch callback announces
 * would otherwise write past a full image, and a graph launch has an unknown
 * number of kernels (64 more). */
size_t brc_rp_image_ranges(void)
{
    /* User ranges are the pushed ones, none unannounced; CUPTI 13.0 still
     * reported up to twice the pushes (31 for 16, on the H200), and the
     * profiler's start took longer the larger the image (H200, axpy: ~90 ms
     * at 128 ranges, ~230 ms at 320). */
    if (rpt_user_ranges(brc_cfg.toggle))   /* the launches' and the library's own (arm) */
        return 2 * (brc_cfg.max_ranges + 1 + brc_cfg.empty_ranges) + 8;
    return 2 * brc_cfg.max_ranges + 64;
}

/* Counter data image initialized and the config set: a fresh image. */
static int init_image(struct brc_rp_ctx *c)
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
    sc.range = rpt_user_ranges(c->st.mode) ? CUPTI_UserRange : CUPTI_AutoRange;
    sc.replayMode = brc_cfg.kernel_replay ? CUPTI_KernelReplay : CUPTI_UserReplay;
    sc.maxRangesPerPass = brc_rp_image_ranges();
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CALL(cuptiRangeProfilerSetConfig, &sc);
    return 0;
}

/* The range profiler object and its counter data image (kept across a
 * re-enable: same metrics, same size). Left enabled, not started. */
static int enable_profiler(struct brc_rp_ctx *c)
{
    CUpti_RangeProfiler_Enable_Params en = { CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE };
    en.ctx = c->ctx;
    CALL(cuptiRangeProfilerEnable, &en);
    c->obj = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE };
    ds.pRangeProfilerObject = c->obj;
    ds.pMetricNames = (const char **)brc_cfg.metrics;
    ds.numMetrics = brc_cfg.nmetrics;
    ds.maxNumOfRanges = brc_rp_image_ranges();
    ds.maxNumRangeTreeNodes = (uint32_t)brc_rp_image_ranges();
    CALL(cuptiRangeProfilerGetCounterDataSize, &ds);
    if (!c->data || ds.counterDataSize != c->data_size) {
        free(c->data);
        c->data_size = ds.counterDataSize;
        c->data = xcalloc(c->data_size, 1);
    }
    return 0;
}

static int enable(struct brc_rp_ctx *c)
{
    CUdevice dev = 0;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        dev = 0;
    double t0 = now_ms();
    if (make_host(c, dev) != 0)
        return -1;
    double t1 = now_ms();
    rp.stats.host_ms += t1 - t0;
    if (make_config(c) != 0)
        return -1;
    rp.stats.config_ms += now_ms() - t1;
    return enable_profiler(c);
}

/* The range's name (auto range: the kernel's), copied; NULL when unknown. */
static char *range_name(const struct brc_rp_ctx *c, size_t i)
{
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE };
    ri.pCounterDataImage = c->data;
    ri.counterDataImageSize = c->data_size;
    ri.rangeIndex = i;
    ri.rangeDelimiter = "/";
    if (cuptiRangeProfilerCounterDataGetRangeInfo(&ri) != CUPTI_SUCCESS || !ri.rangeName)
        return NULL;
    return xstrdup(ri.rangeName);
}

/* The debug log's line for decoded range i (its values v already evaluated). */
static void debug_range(size_t i, size_t slot, const double *v, const char *name)
{
    char bad[256] = "";
    size_t nbad = 0, len = 0;
    for (size_t m = 0; m < brc_cfg.nmetrics; m++)
        if (!isfinite(v[m])) {
            nbad++;
            int k = snprintf(bad + len, sizeof(bad) - len, "%s%zu", len ? "," : "", m);
            if (k > 0 && (size_t)k < sizeof(bad) - len)
                len += (size_t)k;
        }
    BRC_DEBUG("range %zu/%zu nonfinite=%zu [%s] v0=%g %s", i, slot, nbad, bad,
              brc_cfg.nmetrics ? v[0] : 0.0, name ? name : "(none)");
}

/* An empty range's values (trace/rangeoffset.h), kept for the offset. */
static void keep_empty(struct brc_rp_ctx *c, const double *v)
{
    size_t nm = brc_cfg.nmetrics;
    c->empty_vals = xrealloc(c->empty_vals, (c->empty_decoded + 1) * nm * sizeof(double));
    memcpy(c->empty_vals + c->empty_decoded * nm, v, nm * sizeof(double));
    c->empty_decoded++;
}

/* Decodes the (stopped) image and appends every range's values and name. */
static int decode(struct brc_rp_ctx *c)
{
    CUpti_RangeProfiler_DecodeData_Params dd = { CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE };
    dd.pRangeProfilerObject = c->obj;
    CALL(cuptiRangeProfilerDecodeData, &dd);
    rp.stats.ranges_dropped += dd.numOfRangeDropped;
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE };
    info.pCounterDataImage = c->data;
    info.counterDataImageSize = c->data_size;
    CALL(cuptiRangeProfilerGetCounterDataInfo, &info);
    size_t nm = brc_cfg.nmetrics, n = info.numTotalRanges;
    size_t kept = rpt_ranges_kept(c->st.mode, n, c->st.in_image);
    rp.stats.ranges_past_pushes += n - kept;
    n = kept;
    xgrow((void **)&c->vals, &c->capvals, (c->nranges + n) * nm, sizeof(double));
    xgrow((void **)&c->names, &c->capnames, c->nranges + n, sizeof(char *));
    size_t at = c->nranges;   /* the next launch range's slot: empty ones take none */
    for (size_t i = 0; i < n; i++) {
        double *v = c->vals + at * nm;
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE };
        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->data;
        ev.counterDataImageSize = c->data_size;
        ev.rangeIndex = i;
        ev.ppMetricNames = (const char **)brc_cfg.metrics;
        ev.numMetrics = nm;
        ev.pMetricValues = v;
        CALL(cuptiProfilerHostEvaluateToGpuValues, &ev);
        char *name = range_name(c, i);
        if (brc_cfg.debug)
            debug_range(i, at, v, name);
        unsigned k;
        enum ro_range kind = ro_range_kind(name, &k);
        if (kind != RO_LAUNCH) {
            if (kind == RO_EMPTY)
                keep_empty(c, v);
            else
                c->warmups_decoded++;
            free(name);
            continue;
        }
        c->names[at++] = name;
    }
    /* the empty ranges come first in the context's first image, so its
     * decode has all of them that CUPTI kept: their median is the offset of
     * this and every later launch range */
    if (!c->offset && c->empty_decoded) {
        c->offset = xmalloc(nm * sizeof(double));
        c->offset_counters = ro_offset(c->empty_vals, c->empty_decoded, nm,
                                       (const char *const *)brc_cfg.metrics, c->offset);
    }
    for (size_t r = c->nranges; c->offset && r < at; r++) {
        c->offset_floored += ro_subtract(c->vals + r * nm, c->offset, nm);
        c->offset_ranges++;
    }
    BRC_DEBUG("decoded ranges=%zu dropped=%zu counted=%zu", n, (size_t)dd.numOfRangeDropped,
              c->st.in_image);
    rp.stats.ranges += at - c->nranges;
    c->nranges = at;
    rp.stats.ranges_counted += c->st.in_image;
    if (brc_cfg.verbose)
        fprintf(stderr, "benchrun-cupti: %zu ranges collected\n", c->nranges);
    return 0;
}

static int sync_ctx(void)
{
    CUresult r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS) {
        brc_fail("cuCtxSynchronize before a user range: CUDA error %d", (int)r);
        return -1;
    }
    return 0;
}

static int checked(CUptiResult r, const char *fn)
{
    if (r == CUPTI_SUCCESS)
        return 0;
    brc_fail("%s: %s", fn, brc_cupti_str(r));
    return -1;
}

static int run_step(struct brc_rp_ctx *c, unsigned step, const char *push_name);

static const char *step_name(unsigned step)
{
    switch (step) {
    case RPT_SYNC: return "sync";
    case RPT_POP: return "pop";
    case RPT_STOP: return "stop";
    case RPT_DECODE: return "decode";
    case RPT_INIT: return "init";
    case RPT_START: return "start";
    case RPT_PUSH: return "push";
    default: return "?";
    }
}

/* cuptiRangeProfilerStart failed with r: startstop restarting a stopped
 * image gets the retry rptoggle gives (decode, init, start; full from then
 * on, which the JSON says). 1: the retry ran and is applied; -1: failed. */
static int start_failed(struct brc_rp_ctx *c, CUptiResult r)
{
    unsigned retry = rpt_start_failed(&c->st);
    if (!retry)
        return checked(r, "cuptiRangeProfilerStart");
    for (unsigned b = RPT_DECODE; b <= RPT_START; b <<= 1) {
        if (!(retry & b))
            continue;
        if (run_step(c, b, NULL) != 0)
            return -1;
        rpt_apply(&c->st, b);
    }
    return 1;
}

/* One step (an RPT_* bit), counted and timed in the stats. 0, 1 (done and
 * applied by a retry) or -1. */
static int run_step(struct brc_rp_ctx *c, unsigned step, const char *push_name)
{
    struct brc_rp_stats *t = &rp.stats;
    double t0 = now_ms(), *ms = &t->push_ms;
    uint64_t *n = NULL;
    int rc = 0;
    switch (step) {
    case RPT_SYNC:
        rc = sync_ctx();
        ms = &t->sync_ms, n = &t->syncs;
        break;
    case RPT_POP: {
        CUpti_RangeProfiler_PopRange_Params pp = { CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE };
        pp.pRangeProfilerObject = c->obj;
        rc = checked(cuptiRangeProfilerPopRange(&pp), "cuptiRangeProfilerPopRange");
        break;
    }
    case RPT_STOP: {
        CUpti_RangeProfiler_Stop_Params sp = { CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE };
        sp.pRangeProfilerObject = c->obj;
        rc = checked(cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
        ms = &t->stop_ms, n = &t->stops;
        break;
    }
    case RPT_DECODE:
        BRC_PHASE("decoding the counter image (cuptiRangeProfilerDecodeData, evaluation)");
        rc = decode(c);
        ms = &t->decode_ms, n = &t->decodes;
        break;
    case RPT_INIT:
        BRC_PHASE("initializing the counter image (cuptiRangeProfilerSetConfig)");
        rc = init_image(c);
        ms = &t->init_ms, n = &t->inits;
        break;
    case RPT_START: {
        CUpti_RangeProfiler_Start_Params sp = { CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };
        sp.pRangeProfilerObject = c->obj;
        CUptiResult r = cuptiRangeProfilerStart(&sp);
        t->arms++;
        t->start_ms += now_ms() - t0;
        BRC_DEBUG("step start rc=%d %.3fms", (int)r, now_ms() - t0);
        return r == CUPTI_SUCCESS ? 0 : start_failed(c, r);
    }
    case RPT_PUSH: {
        CUpti_RangeProfiler_PushRange_Params pp = { CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE };
        pp.pRangeProfilerObject = c->obj;
        pp.pRangeName = push_name;
        rc = checked(cuptiRangeProfilerPushRange(&pp), "cuptiRangeProfilerPushRange");
        n = &t->pushes;
        break;
    }
    default:
        return 0;
    }
    *ms += now_ms() - t0;
    if (n)
        (*n)++;
    BRC_DEBUG("step %s rc=%d %.3fms%s%s", step_name(step), rc, now_ms() - t0,
              step == RPT_PUSH ? " " : "", step == RPT_PUSH && push_name ? push_name : "");
    return rc;
}

/* Runs the steps in bit order (trace/rptoggle.h); a failure makes the
 * context unusable. 0/-1. */
static int run_steps(struct brc_rp_ctx *c, unsigned steps, const char *push_name)
{
    for (unsigned b = RPT_SYNC; b <= RPT_PUSH; b <<= 1) {
        if (!(steps & b))
            continue;
        int rc = run_step(c, b, push_name);
        if (rc < 0) {
            c->failed = true;
            return -1;
        }
        if (rc == 0)
            rpt_apply(&c->st, b);
    }
    return 0;
}

/* A user-range launch whose steps start the profiler: what those steps do
 * before their push, then a warm-up range and, after the context's first
 * start, the empty ranges, each pushed and popped around no work with the
 * synchronization a launch's range gets (trace/rangeoffset.h); *steps
 * keeps the launch's own push. 0/-1. */
static int push_offset_ranges(struct brc_rp_ctx *c, unsigned *steps)
{
    unsigned push = *steps & (RPT_SYNC | RPT_PUSH);
    if (run_steps(c, *steps & ~push, NULL) != 0)
        return -1;
    *steps = push;
    BRC_PHASE("pushing the warm-up and empty ranges (what a user range counts of its own)");
    unsigned n = 1 + (c->empty_pushed ? 0 : brc_cfg.empty_ranges);
    c->own_in_image = n;   /* a start begins an image: they are its first ranges */
    for (unsigned i = 0; i < n; i++) {
        bool warmup = i == 0;
        char name[48];
        ro_range_name(name, sizeof(name), warmup ? RO_WARMUP : RO_EMPTY,
                      warmup ? c->warmups_pushed : c->empty_pushed);
        if (run_steps(c, push, name) != 0)
            return -1;
        rpt_count(&c->st);
        if (warmup)
            c->warmups_pushed++;
        else
            c->empty_pushed++;
        if (run_steps(c, rpt_launch_done(&c->st, false), NULL) != 0)
            return -1;
    }
    return 0;
}

/* run_steps with the crash report's phase set to `phase`, then `after`. */
static int run_in_phase(struct brc_rp_ctx *c, unsigned steps, const char *phase, const char *after)
{
    if (!steps)
        return 0;
    BRC_PHASE(phase);
    int rc = run_steps(c, steps, NULL);
    BRC_PHASE(after);
    return rc;
}

struct brc_rp_ctx *brc_rp_get(CUcontext ctx)
{
    for (size_t i = 0; i < rp.nctx; i++)
        if (rp.ctxs[i]->ctx == ctx)
            return rp.ctxs[i]->failed ? NULL : rp.ctxs[i];
    /* cuptiProfilerInitialize fails (CUPTI_ERROR_UNKNOWN, seen on an H200 with
     * CUDA 13.0) when called from InitializeInjection, inside cuInit: it is
     * called here, at the first launch, once the context exists. */
    brc_rp_init();
    struct brc_rp_ctx *c = xcalloc(1, sizeof(*c));
    xgrow((void **)&rp.ctxs, &rp.capctx, rp.nctx + 1, sizeof(*rp.ctxs));
    rp.ctxs[rp.nctx++] = c;
    c->ctx = ctx;
    rpt_init(&c->st, brc_cfg.toggle);
    BRC_PHASE("enabling the range profiler (host object, config image, cuptiRangeProfilerEnable)");
    double t0 = now_ms();
    if (rp.profiler_state < 0 || enable(c) != 0)
        c->failed = true;
    rp.stats.enable_ms += now_ms() - t0;
    BRC_PHASE("launch API entry callback (range profiler, events)");
    return c->failed ? NULL : c;
}

int brc_rp_arm(struct brc_rp_ctx *c, bool graph, uint64_t dispatch, const char *kernel)
{
    if (c->failed)
        return -1;
    if (c->reenable) {
        BRC_PHASE("enabling the range profiler again after a module unload");
        c->reenable = false;
        rp.stats.reenabled++;
        if (enable_profiler(c) != 0) {
            c->failed = true;
            return -1;
        }
    }
    /* An auto-range graph launch runs an unknown number of kernels: leave it
     * half an image. The library's own ranges do not take launches' places
     * (one more image per pass cost a start, a stop and a decode). */
    size_t limit = graph && !rpt_user_ranges(c->st.mode) ? brc_cfg.max_ranges / 2
                                                         : brc_cfg.max_ranges + c->own_in_image;
    unsigned steps = rpt_profiled(&c->st, limit);
    if (steps & RPT_BUSY) {
        rp.stats.busy++;
        return 1;
    }
    char name[224] = "";
    if (steps & RPT_PUSH)   /* launches.c joins on the number; the kernel is for people */
        rpt_range_name(name, sizeof(name), dispatch, kernel);
    BRC_PHASE("arming the range profiler for a profiled launch");
    int rc = 0;
    if ((steps & RPT_PUSH) && (steps & RPT_START) && brc_cfg.empty_ranges)
        rc = push_offset_ranges(c, &steps);
    if (rc == 0)
        rc = run_steps(c, steps, name);
    BRC_PHASE("launch API entry callback (range profiler, events)");
    if (rc != 0)
        return -1;
    rpt_count(&c->st);
    return 0;
}

int brc_rp_launch_done(struct brc_rp_ctx *c, bool launch_failed)
{
    if (c->failed)
        return -1;
    if (launch_failed)
        rpt_uncount_failed(&c->st);
    return run_in_phase(c, rpt_launch_done(&c->st, launch_failed),
                        "closing the launch's user range (cuptiRangeProfilerPopRange)", NULL);
}

bool brc_rp_count_late(struct brc_rp_ctx *c)
{
    return c && !c->failed && rpt_count_late(&c->st);
}

int brc_rp_disarm(struct brc_rp_ctx *c)
{
    if (c->failed)
        return -1;
    return run_in_phase(c, rpt_unprofiled(&c->st),
                        "disarming the range profiler (cuptiRangeProfilerStop/DecodeData)",
                        "launch API entry callback (range profiler, events)");
}

int brc_rp_flush(struct brc_rp_ctx *c)
{
    if (c->failed)
        return -1;
    unsigned steps = rpt_flush(&c->st);
    rp.stats.flushes += steps != 0;
    return run_in_phase(c, steps, "decoding the counter image early: launches wait for their ranges",
                        NULL);
}

bool brc_rp_failed(const struct brc_rp_ctx *c)
{
    return !c || c->failed;
}

size_t brc_rp_take(struct brc_rp_ctx *c, const double **vals, const char *const **names)
{
    size_t n = c->nranges - c->taken;
    *vals = c->vals + c->taken * brc_cfg.nmetrics;
    *names = (const char *const *)c->names + c->taken;
    c->taken = c->nranges;
    return n;
}

/* The last ranges of the context (whatever stretch or range is open). */
static void finish_ranges(struct brc_rp_ctx *c)
{
    if (!c->failed && c->obj)
        run_steps(c, rpt_finish(&c->st), NULL);
    rp.stats.fallbacks += c->st.fallbacks;
    c->st.fallbacks = 0;
}

void brc_rp_finish_ctx(struct brc_rp_ctx *c)
{
    finish_ranges(c);
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
    c->failed = true;
}

/* BRC_UNLOAD_RESET: a module or library is about to be unloaded. With SASS
 * metrics, CUPTI 13.0 crashes at the next launch after a cuModuleUnload
 * (tests/gpu/sass_repro.cu mode churn on an H200: SIGSEGV at 0xc18 in
 * libnvperf_host under cuLaunchKernelEx, none of our code on the stack; JAX's
 * autotuner unloads its candidates' modules and died the same way, at 0x18).
 * The range profiler of the context (every context for a library: ctx NULL)
 * is decoded and disabled before the unload, and enabled again, fresh, at the
 * next profiled launch (brc_rp_arm). On the H200 each re-enable took ~4 s in
 * JAX: the default is therefore to keep the modules loaded instead
 * (BRC_UNLOAD_DEFER, inject.c); this is the fallback. */
void brc_rp_on_module_unload(CUcontext ctx)
{
    for (size_t i = 0; i < rp.nctx; i++) {
        struct brc_rp_ctx *c = rp.ctxs[i];
        if (!c->ctx || c->failed || !c->obj || (ctx && c->ctx != ctx))
            continue;
        finish_ranges(c);
        if (c->failed)
            continue;
        CUpti_RangeProfiler_Disable_Params dp = { CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE };
        dp.pRangeProfilerObject = c->obj;
        cuptiRangeProfilerDisable(&dp);
        c->obj = NULL;
        enum rpt_mode mode = c->st.mode;
        rpt_init(&c->st, mode);   /* nothing configured on the next object */
        c->reenable = true;
    }
}

void brc_rp_finish(void)
{
    for (size_t i = 0; i < rp.nctx; i++)
        if (rp.ctxs[i]->ctx)
            brc_rp_finish_ctx(rp.ctxs[i]);
}

void brc_rp_offset_json(FILE *fp)
{
    if (!brc_cfg.nmetrics || !rpt_user_ranges(brc_cfg.toggle)) {
        fputs("  \"range_offset\": null,\n", fp);
        return;
    }
    fprintf(fp, "  \"range_offset\": {\"empty_ranges\": %u, \"contexts\": [", brc_cfg.empty_ranges);
    int n = 0;
    for (size_t i = 0; i < rp.nctx; i++) {
        const struct brc_rp_ctx *c = rp.ctxs[i];
        if (!c->empty_pushed)
            continue;
        fprintf(fp, "%s{\"pushed\": %u, \"decoded\": %u, \"warmups_pushed\": %u, "
                    "\"warmups_decoded\": %u, \"counters\": %zu, "
                    "\"ranges_corrected\": %llu, \"values_floored\": %llu, \"offset\": {",
                n++ ? ",\n    " : "\n    ", c->empty_pushed, c->empty_decoded,
                c->warmups_pushed, c->warmups_decoded,
                c->offset_counters, (unsigned long long)c->offset_ranges,
                (unsigned long long)c->offset_floored);
        int k = 0;
        for (size_t m = 0; c->offset && m < brc_cfg.nmetrics; m++) {
            if (isnan(c->offset[m]))
                continue;
            fputs(k++ ? ", " : "", fp);
            brc_json_str(fp, brc_cfg.metrics[m]);
            fprintf(fp, ": %.10g", c->offset[m]);
        }
        fputs("}}", fp);
    }
    fputs(n ? "\n  ]},\n" : "]},\n", fp);
}

void brc_rp_stats(struct brc_rp_stats *out)
{
    *out = rp.stats;
    for (size_t i = 0; i < rp.nctx; i++)   /* contexts still running */
        out->fallbacks += rp.ctxs[i]->st.fallbacks;
}
