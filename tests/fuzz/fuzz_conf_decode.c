/* fuzz_conf_decode.c - libFuzzer target for the workload.conf record decoder
 * (src/conf/conf.c br_conf_decode): any bytes as the bash loader's
 * NUL-separated stream; decoded, validated (REQUIRED_FILES checked too) and
 * released. */
#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *ctx, int is_warning, const char *msg)
{
    (void)ctx, (void)is_warning, (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    br_error_set_sink(quiet, NULL);
    struct br_conf c;
    if (br_conf_decode((const char *)data, size, "/fuzz/x.conf", BR_CONF_CHECK_FILES, &c) == 0)
        br_conf_release(&c);
    return 0;
}
