/* sampledclock.h - unit-test helper: the sampled clock as analyze gets it,
 * the telemetry files read into the model (read/telread.h), then the
 * engine's statistics (mx_clock_stats). Header-only: each test program
 * includes it once. */
#ifndef BR_TEST_SAMPLEDCLOCK_H
#define BR_TEST_SAMPLEDCLOCK_H

#include "metrics/metrics.h"
#include "read/telread.h"

#include <stddef.h>
#include <stdint.h>

static int sampled_clock(char *const *files, size_t nf, const int64_t *iv, size_t niv,
                         const struct rp_power *pw, const char *root, struct mx_clock_stats *st)
{
    struct telem_run run;
    struct telem_read_opts o = { .pw = pw, .root = root, .iv = iv, .niv = niv };
    int rc = telem_read_run(&run, files, nf, &o);
    mx_clock_stats(&run, st);
    telem_run_release(&run);
    return rc;
}

#endif
