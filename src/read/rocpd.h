/* rocpd.h - rocprofv3's SQLite output (rocpd, the default from ROCm 7.0):
 * one database per process, `<output_file>_results.db`, read through the
 * database's own views.
 *
 * Schema (tests/fixtures/amd/rocpd/schema/, copied from rocprofiler-sdk's
 * source/share/rocprofiler-sdk-rocpd/ at ROCm/rocm-systems@1b1610fc): tables
 * `rocpd_<name>_<uuid>`, a view `rocpd_<name>` over each, and joined views.
 * Read here:
 *   kernels              one row per dispatch (name, dispatch_id, start, end,
 *                        agent_abs_index, grid_x..z, workgroup_x..z, lds_size,
 *                        scratch_size, vgpr_count, accum_vgpr_count, sgpr_count,
 *                        corr_id); filled by --kernel-trace, or from the
 *                        counter records when only counters are collected
 *   counters_collection  one row per (dispatch, counter): the rocpd_pmc_event
 *                        values summed over hardware instances (value), with
 *                        the dispatch's kernel_name, times and attributes,
 *                        as counter_collection.csv has them
 *   rocpd_info_agent     agents: type ('GPU'), absolute_index, name (gfx942),
 *                        product_name, and extdata: the agent record as JSON
 *                        whose keys are agent_info.csv's names in lower case
 *                        (cu_count, num_xcc, max_engine_clk_fcompute, ...)
 *   memory_copies        start, end, size, name, src/dst_agent_abs_index
 * Columns are found by name in each view (a few are spelled two ways across
 * schema versions: vgpr_count / arch_vgpr_count, corr_id / correlation_id,
 * agent_abs_index / agent_absolute_index), so column order never matters.
 *
 * Opening: read-only (SQLITE_OPEN_READONLY, URI mode=ro; immutable=1 unless
 * a -wal file says the writer did not finish, so nothing is ever written next
 * to the database), trusted_schema off and defensive mode on (the views come
 * from the file). Errors are "file: what": not an SQLite file, an empty file,
 * a view missing (not a rocpd database), a missing column, a value of the
 * wrong type (e.g. TEXT where an integer belongs, naming view, row and
 * column), a negative or reversed time.
 *
 * Callbacks get one row at a time; strings in it are valid during the call
 * only. A callback returning non-zero stops the walk with that status.
 */
#ifndef BR_READ_ROCPD_H
#define BR_READ_ROCPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/rocprof.h"

struct rocpd_db;

/* One dispatch: a row of kernels, or the dispatch part of a row of
 * counters_collection. */
struct rocpd_dispatch {
    uint64_t dispatch_id, corr_id, agent;   /* agent: absolute index ("Agent N") */
    uint64_t start, end;                    /* ns, CLOCK_BOOTTIME */
    const char *name;                       /* kernel display name */
    size_t name_len;
    struct rp_kattr attr;                   /* registers, LDS, sizes (seen = true) */
};

struct rocpd_memcopy {
    uint64_t start, end, size, src_agent, dst_agent;
    const char *name;                       /* e.g. MEMORY_COPY_HOST_TO_DEVICE */
    size_t name_len;
};

/* True when the first bytes are SQLite's header ("SQLite format 3\0"). */
bool rocpd_is_sqlite(const void *head, size_t len);

/* Opens path read-only. 0, or -1 with *err set (allocated, "path: what"). */
int rocpd_open(struct rocpd_db **db, const char *path, char **err);
/* The same over a copy of len bytes (fuzz targets, tests); name for messages. */
int rocpd_open_mem(struct rocpd_db **db, const char *name, const void *data, size_t len,
                   char **err);
void rocpd_close(struct rocpd_db *db);
const char *rocpd_name(const struct rocpd_db *db);
/* Stops any statement after about n virtual-machine steps (0: no limit):
 * a file's views could loop forever (fuzz targets set it). Process-wide. */
void rocpd_set_step_limit(uint64_t n);

typedef int (*rocpd_dispatch_fn)(void *ctx, const struct rocpd_dispatch *d);
typedef int (*rocpd_counter_fn)(void *ctx, const struct rocpd_dispatch *d, const char *counter,
                                size_t counter_len, double value);
typedef int (*rocpd_memcopy_fn)(void *ctx, const struct rocpd_memcopy *m);

/* Every row of kernels / counters_collection / memory_copies. 0, the
 * callback's non-zero status, or -1 with *err set. */
int rocpd_each_dispatch(struct rocpd_db *db, rocpd_dispatch_fn fn, void *ctx, char **err);
int rocpd_each_counter(struct rocpd_db *db, rocpd_counter_fn fn, void *ctx, char **err);
int rocpd_each_memcopy(struct rocpd_db *db, rocpd_memcopy_fn fn, void *ctx, char **err);

/* The GPU agent with the lowest absolute_index into ag, as agent_info.csv's
 * first GPU row: the view's columns and the keys of its extdata JSON, looked
 * up ignoring case (rp_agent_get(ag, "Cu_Count") finds cu_count). No GPU
 * agent: 0 with ag->present false. -1 with *err set on a malformed view. */
int rocpd_agent(struct rocpd_db *db, struct rp_agent *ag, char **err);

#endif
