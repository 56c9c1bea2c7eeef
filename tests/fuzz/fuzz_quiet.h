/* fuzz_quiet.h - the fuzz targets' error sink: every message dropped (the
 * fuzzer feeds malformed input on purpose; printing each error would be most
 * of the run's time). Header-only: each target includes it once. */
#ifndef BR_FUZZ_QUIET_H
#define BR_FUZZ_QUIET_H

#include "util/error.h"

static void fuzz_quiet(void *ctx, int is_warning, const char *msg)
{
    (void)ctx, (void)is_warning, (void)msg;
}

static inline void fuzz_silence(void)
{
    br_error_set_sink(fuzz_quiet, NULL);
}

#endif
