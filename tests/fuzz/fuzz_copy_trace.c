/* fuzz_copy_trace.c - libFuzzer target for the memory copy trace reader
 * (src/read/rpcopy.c). The first input byte picks one of the documented
 * headers (6.x, 7.x, rocpd2csv, benchrun's NVIDIA + Bytes) or none (the
 * input is the whole file, header included); the copies read are then summed
 * and charged to their GPUs, as the power run does. */
#include "read/rpcopy.h"
#include "util/error.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const headers[] = {
    "\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n",
    "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n",
    "\"Guid\",\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n",
    "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n",
    "",
};

static void quiet(void *ctx, int is_warning, const char *msg)
{
    (void)ctx, (void)is_warning, (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    br_error_set_sink(quiet, NULL);
    const char *h = headers[data[0] % (sizeof(headers) / sizeof(headers[0]))];
    size_t hn = strlen(h);
    char *buf = malloc(hn + size);
    if (!buf)
        return 0;
    memcpy(buf, h, hn);
    memcpy(buf + hn, data + 1, size - 1);
    struct rp_copies cp;
    memset(&cp, 0, sizeof(cp));
    if (rp_copies_read_mem(&cp, "fuzz_memory_copy_trace.csv", buf, hn + size - 1) == 0) {
        struct rp_copy_sum by[CT_NDIR], all;
        rp_copies_sum(&cp, by, &all);
        for (size_t i = 0; i < cp.n; i++) {
            int32_t g[2];
            int n = rp_copy_gpus(&cp.v[i].c, g);
            if (n < 0 || n > 2 || cp.v[i].c.end_ns < cp.v[i].c.start_ns || cp.v[i].c.dir >= CT_NDIR)
                abort();   /* the reader's contract */
        }
    }
    rp_copies_release(&cp);
    free(buf);
    return 0;
}
