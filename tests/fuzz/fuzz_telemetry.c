/* fuzz_telemetry.c - libFuzzer target for the telemetry CSV reader
 * (src/read/telemetry.c): any bytes as a whole file, read to the end. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "read/telemetry.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double g_sink;     /* keeps the parsed values alive */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct br_telem *t = br_telem_open_mem("fuzz.csv", data, size);
    if (!t)
        return 0;
    int e = br_telem_want(t, "energy_J");
    for (size_t i = 0; i < br_telem_meta_count(t); i++)
        (void)br_telem_meta(t, br_telem_meta_key(t, i));
    struct br_telem_row row;
    while (br_telem_next(t, &row) > 0) {
        g_sink += (double)row.timestamp_ns + row.v[TELEM_GFX_CLOCK];
        if (e >= 0 && !isnan(row.extra[e]))
            g_sink += row.extra[e];
    }
    (void)br_telem_truncated(t);
    br_telem_close(t);
    return 0;
}
