/* fuzz_calib.c - libFuzzer target for the calibration readers (src/calib/):
 * byte 0 picks the reader: per_kernel_metrics.csv table + every check of the
 * default expected table; a kernel_trace.csv searched for calib_long; a NVML
 * driver power CSV, whose series then goes through the power-rise detection.
 * Contract checked: results are well formed, found launches are ordered
 * inputs, series lengths match. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void analysis(const uint8_t *data, size_t size)
{
    struct br_calib_params p;
    br_calib_params_default(&p, GPU_VENDOR_NVIDIA);
    struct br_calib_expect *e;
    size_t n = br_calib_expect_table(&p, &e);
    struct br_calib_results res = { 0 };
    if (br_calib_check_analysis_mem("fuzz.csv", data, size, e, n, &res) == 0 && res.n != n)
        abort();
    for (size_t i = 0; i < res.n; i++)
        if (!res.v[i].check || !res.v[i].measured || !res.v[i].expected)
            abort();
    br_calib_results_release(&res);
    free(e);
}

static void driver(const uint8_t *data, size_t size)
{
    int64_t *t = NULL;
    double *w = NULL;
    long n = br_calib_driver_power_mem("fuzz.csv", data, size, &t, &w);
    if (n > 0) {
        struct br_calib_rise r;
        (void)br_calib_power_rise(t, w, (size_t)n, t[0] + 1000, t[n - 1], 500, &r);
        (void)br_calib_refresh_ms(t, w, (size_t)n, false);
    }
    free(t);
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    fuzz_silence();
    int64_t s = 0, e = 0;
    switch (data[0] % 3) {
    case 0: analysis(data + 1, size - 1); break;
    case 1: (void)br_calib_trace_find_mem("fuzz.csv", data + 1, size - 1, "calib_long", &s, &e); break;
    default: driver(data + 1, size - 1); break;
    }
    return 0;
}
