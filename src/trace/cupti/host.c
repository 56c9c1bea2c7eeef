/* host.c - CUPTI profiler host API: pass counts and metric lists for a chip.
 *
 * The host API (cupti_profiler_host.h, CUDA 12.6+) works without a GPU and
 * without a driver: given a chip name ("GH100") it builds config images and
 * tells how many hardware passes a metric set needs. benchrun uses it to check
 * that every counter group of an arch profile fits ONE pass (no replay) and to
 * list the metrics of a chip (`benchrun-cupti-host`, tests). Exported with
 * default visibility (br_cupti_host_*) so tools can dlopen the library.
 */
#include "trace/cupti/brcupti.h"

#include <stdlib.h>

#include <cupti_profiler_host.h>

#include "util/xalloc.h"

static CUpti_Profiler_Host_Object *host_open(const char *chip, const uint8_t *avail)
{
    CUpti_Profiler_Host_Initialize_Params hi = { CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip;
    hi.pCounterAvailabilityImage = avail;
    if (cuptiProfilerHostInitialize(&hi) != CUPTI_SUCCESS)
        return NULL;
    return hi.pHostObject;
}

static void host_close(CUpti_Profiler_Host_Object *h)
{
    CUpti_Profiler_Host_Deinitialize_Params hd = { CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE };
    hd.pHostObject = h;
    cuptiProfilerHostDeinitialize(&hd);
}

static int count_passes(CUpti_Profiler_Host_Object *h, const char *const *names, size_t n,
                        size_t *passes)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE };
    add.pHostObject = h;
    add.ppMetricNames = (const char **)names;
    add.numMetrics = n;
    if (cuptiProfilerHostConfigAddMetrics(&add) != CUPTI_SUCCESS)
        return -1;
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE };
    sz.pHostObject = h;
    if (cuptiProfilerHostGetConfigImageSize(&sz) != CUPTI_SUCCESS)
        return -1;
    uint8_t *img = xcalloc(sz.configImageSize ? sz.configImageSize : 1, 1);
    CUpti_Profiler_Host_GetConfigImage_Params gi = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE };
    gi.pHostObject = h;
    gi.configImageSize = sz.configImageSize;
    gi.pConfigImage = img;
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE };
    np.configImageSize = sz.configImageSize;
    np.pConfigImage = img;
    int rc = (cuptiProfilerHostGetConfigImage(&gi) == CUPTI_SUCCESS &&
              cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS) ? 0 : -1;
    *passes = np.numOfPasses;
    free(img);
    return rc;
}

int brc_host_passes(const char *chip, const uint8_t *avail, const char *const *names, size_t n,
                    size_t *passes)
{
    /* A fresh host object per query: metrics added to a config accumulate. */
    CUpti_Profiler_Host_Object *h = host_open(chip, avail);
    if (!h)
        return -1;
    int rc = count_passes(h, names, n, passes);
    host_close(h);
    return rc;
}

/* Exported: number of passes names[0..n) need on chip (no GPU needed). */
__attribute__((visibility("default"))) int br_cupti_host_passes(const char *chip,
                                                                const char *const *names,
                                                                size_t n, size_t *passes)
{
    return brc_host_passes(chip, NULL, names, n, passes);
}

/* Exported: calls fn for every base metric of type counter/ratio/throughput. */
__attribute__((visibility("default"))) int br_cupti_host_list(const char *chip,
                                                              void (*fn)(void *ctx,
                                                                         const char *name,
                                                                         const char *type),
                                                              void *ctx)
{
    static const char *const types[] = { "counter", "ratio", "throughput" };
    CUpti_Profiler_Host_Object *h = host_open(chip, NULL);
    if (!h)
        return -1;
    for (int t = 0; t < 3; t++) {
        CUpti_Profiler_Host_GetBaseMetrics_Params b = {
            CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE };
        b.pHostObject = h;
        b.metricType = (CUpti_MetricType)t;
        if (cuptiProfilerHostGetBaseMetrics(&b) != CUPTI_SUCCESS)
            continue;
        for (size_t i = 0; i < b.numMetrics; i++)
            fn(ctx, b.ppMetricNames[i], types[t]);
    }
    host_close(h);
    return 0;
}
