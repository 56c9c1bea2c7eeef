/* fuzz_rocpd.c - libFuzzer target for rocpd (SQLite) databases: any bytes
 * opened from memory (sqlite3_deserialize, read-only) and read as a pass's
 * database (counters_collection and kernels views), its GPU agent and its
 * memory copies. A step limit stops views that never end. Seed: a small
 * database written by tests/tools/rocpd_from_csv.py --sample (run-all.sh). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "read/rocpd.h"
#include "read/rocprof.h"
#include "read/rpagg.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int no_copy(void *ctx, const struct rocpd_memcopy *m)
{
    (void)ctx, (void)m;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    rocpd_set_step_limit(2000000);
    struct rocpd_db *db;
    char *err = NULL;
    if (rocpd_open_mem(&db, "fuzz.db", data, size, &err) < 0) {
        free(err);
        return 0;
    }
    struct rp_agg a;
    (void)rp_agg_read_rocpd(&a, db);
    rp_agg_release(&a);
    struct rp_agent ag;
    if (rocpd_agent(db, &ag, &err) == 0 && ag.present) {
        free(ag.file);
        str_array_free(ag.keys);
        str_array_free(ag.vals);
    }
    free(err);
    err = NULL;
    (void)rocpd_each_memcopy(db, no_copy, NULL, &err);
    free(err);
    rocpd_close(db);
    return 0;
}
