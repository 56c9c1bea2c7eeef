/* fuzz_conf_decode.c - libFuzzer target for the workload.conf record decoder
 * (src/conf/conf.c br_conf_decode): any bytes as the bash loader's
 * NUL-separated stream; decoded, validated (REQUIRED_FILES checked too) and
 * released. */
#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct br_conf c;
    if (br_conf_decode((const char *)data, size, "/fuzz/x.conf", BR_CONF_CHECK_FILES, &c) == 0)
        br_conf_release(&c);
    return 0;
}
