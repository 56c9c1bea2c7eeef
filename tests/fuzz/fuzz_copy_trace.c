/* fuzz_copy_trace.c - libFuzzer target for the memory copy trace reader
 * (src/read/rpcopy.c). The first input byte picks one of the documented
 * headers (6.x, 7.x, rocpd2csv, benchrun's NVIDIA + Bytes) or none (the
 * input is the whole file, header included); the copies read are then summed
 * and charged to their GPUs, as the power run does. */
#include "fuzz_headed.h"
#include "read/rpcopy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const headers[] = {
    "\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n",
    "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n",
    "\"Guid\",\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n",
    "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n",
    "",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len;
    char *buf = fuzz_headed_input(headers, sizeof(headers) / sizeof(headers[0]), data, size, &len);
    if (!buf)
        return 0;
    struct rp_copies cp;
    memset(&cp, 0, sizeof(cp));
    if (rp_copies_read_mem(&cp, "fuzz_memory_copy_trace.csv", buf, len) == 0) {
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
