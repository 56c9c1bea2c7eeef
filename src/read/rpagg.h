/* rpagg.h - aggregation of one rocprofv3 file set (one process of one pass)
 * while reading: per kernel name Σ counter values, Σ durations, launches.
 *
 * Used by the pmc reader (rocprof.c, one file set per worker thread) and by
 * tests and fuzz targets (rp_agg_read_mem). Nothing is printed while reading:
 * the first error goes to err ("file:line: what was expected") and warnings
 * (a dropped truncated last line) to warn, one per line; the owner prints
 * them with rp_agg_flush_messages, in a deterministic order.
 *
 * Values that cannot be a count (NaN, +-inf, out of the double range,
 * negative, 2^64-1 and above: a 64-bit all-ones "no value") and a counter row
 * repeated for the same launch (counters 0-63 of a file set are tracked) are
 * left out of the sums and counted, with the first file:line, for the data
 * checks (docs/design.md §8): never summed silently.
 *
 * Launch identity: (file, Dispatch_Id), or Correlation_Id when the counter
 * file has no timestamps (6.2) or the trace has no Dispatch_Id (6.2), so that
 * durations and the "launches without counters" check can be joined from the
 * kernel trace of the same file set.
 */
#ifndef BR_READ_RPAGG_H
#define BR_READ_RPAGG_H

#include "read/extrapolate.h"
#include "model/intern.h"
#include "read/rocprof.h"
#include "util/strbuf.h"

#include <stdint.h>

struct rp_u64map {          /* launch key -> kernel id (bit 31: has a duration) */
    uint64_t *key;          /* key + 1; 0 = empty */
    uint32_t *val;
    uint64_t *seen;         /* counters 0-63 of the launch already summed (bit c) */
    uint32_t n, nslot;
};

struct rp_agg {
    struct intern kn, cn;            /* local kernel and counter names */
    uint32_t kcap, ccap;             /* capacities of the arrays below */
    uint64_t *launches;              /* [k] */
    uint64_t *uncounted;             /* [k] traced launches without counter rows */
    double *dur;                     /* [k] ns */
    struct rp_kattr *attr;           /* [k] */
    double *csum;                    /* [k*ccap + c] */
    uint64_t *crows;                 /* [k*ccap + c] */
    struct rp_u64map map;
    struct rp_u64map units;          /* launch key -> its launch_units.csv unit (sampled sets) */
    uint64_t rows, dispatches;
    uint64_t *agent;                 /* distinct Agent_Id of the counter launches */
    uint32_t nagent;
    uint64_t trace_launches, uncounted_launches, untimed_launches, truncated;
    bool cc_empty, kt_empty;         /* header-only file: a process without kernels */
    /* Rows left out of the sums, each kind with its first "file:line: ..." */
    uint64_t bad_values;             /* Counter_Value not finite, negative or >= 2^64 */
    char *bad_value_at;
    uint64_t dup_rows;               /* a counter of a launch seen again */
    char *dup_row_at;
    double trace_ns, uncounted_ns;
    const char *cc_layout, *kt_layout;
    uint64_t cc_missing;             /* bit c: the counter file lacks column c (rp_col) */
    /* Launch-sampled pass (read/extrapolate.h): csum holds the estimates over
     * every traced launch, launches and dur the trace's, profiled the launches
     * with counter rows; cvar/cdf the estimates' variance and degrees of
     * freedom. NULL in a pass that collected every launch. */
    struct xp_set *ex;
    uint64_t *profiled;              /* [k] */
    double *cvar, *cdf;              /* [k*ccap + c] */
    uint64_t untraced;               /* profiled launches missing from the trace */
    char *err;
    struct strbuf warn;
};

/* Reads one file set: counter file and/or kernel trace (either may be NULL);
 * units_path: its launch_units.csv (read/launchunits.h; NULL: none, and
 * ignored when every launch has counters); sampling: how its launches were
 * sampled, NULL when every launch has counters. 0, or -1 with a->err set.
 * a is initialized here. */
int rp_agg_read_set(struct rp_agg *a, const char *cc_path, const char *kt_path,
                    const char *units_path, const struct xp_sampling *sampling);
/* One rocpd database (one process: its counters_collection and kernels
 * views, read/rocpd.h), aggregated exactly as the CSV pair of the same run.
 * 0, or -1 with a->err set. a is initialized here. */
struct rocpd_db;
int rp_agg_read_rocpd(struct rp_agg *a, struct rocpd_db *db);
/* The same, opening the database file path (read-only); sampling as in
 * rp_agg_read_set. */
int rp_agg_read_db(struct rp_agg *a, const char *path, const struct xp_sampling *sampling);
/* One file from memory, kind detected from the header (agent_info: header
 * checked only). 0, or -1 with a->err set. */
int rp_agg_read_mem(struct rp_agg *a, const char *name, const void *data, size_t len,
                    enum rp_kind *kind);
/* Prints the warnings, then the error, through br_warn/br_error. */
void rp_agg_flush_messages(struct rp_agg *a);
void rp_agg_release(struct rp_agg *a);

#endif
