/* telemetry.h - the telemetry CSV: the one schema of the sampler that writes
 * it (sample/sampler.c) and the reader (read/telemetry.h), docs/design.md §10.
 *
 * A file per GPU, TELEM_FILE_PREFIX<prefix>[_<node>]_<gpu>.csv: line 1 the
 * sampler's metadata (key=value pairs), line 2 the header, then one row per
 * sample: timestamp_ns (CLOCK_BOOTTIME ns) and the columns of telem_cols in
 * enum order. The first TELEM_NREQUIRED value columns are the seed's and
 * every file has them; the rest are benchrun's. A reading the source lacks
 * is written "nan". NVML's buffered power samples go beside, in
 * <stem>TELEM_DRIVER_SUFFIX (read/drvpower.h), with their own columns.
 */
#ifndef BR_MODEL_TELEMETRY_H
#define BR_MODEL_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/series.h"

#define TELEM_FILE_PREFIX "profiling_result_"
#define TELEM_DRIVER_SUFFIX "_driver_power.csv"
#define TELEM_TIMESTAMP_COL "timestamp_ns"

/* The value columns after timestamp_ns, in file order. */
enum telem_col {
    TELEM_SOCKET_POWER,         /* current_socket_power_W, W */
    TELEM_INST_POWER,           /* inst_power_W, W (energy delta / source time delta) */
    TELEM_GFX_CLOCK,            /* gfx_clock_MHz, MHz */
    TELEM_EDGE_TEMP,            /* edge_temp_C, degC (NaN on MI300X) */
    TELEM_HOTSPOT_TEMP,         /* hotspot_temp_C, degC */
    TELEM_ENERGY,               /* energy_J since the first sample, J */
    TELEM_MEM_CLOCK,            /* mem_clock_MHz */
    TELEM_SOURCE_TIMESTAMP,     /* source_timestamp_ns: when the source filled its reading */
    TELEM_REFRESHED,            /* refreshed: 1 when the reading changed since the last row */
    TELEM_MEM_TEMP,             /* mem_temp_C */
    TELEM_GFX_CLOCK_MAX,        /* gfx_clock_max_MHz: the fastest XCC's clock */
    TELEM_NCOLS
};
/* Columns every telemetry file has (the seed sampler's). */
#define TELEM_NREQUIRED (TELEM_HOTSPOT_TEMP + 1)

#define TELEM_INTEGER (-1)      /* telem_col_info.decimals of an integer column */

struct telem_col_info {
    const char *name;
    int decimals;               /* digits the sampler writes after the point, or TELEM_INTEGER */
};
extern const struct telem_col_info telem_cols[TELEM_NCOLS];

/* The header line: "timestamp_ns,current_socket_power_W,...", no newline. */
const char *telem_header(void);

/* TELEM_FILE_PREFIX<prefix>[_<node>]_<gpu>: the file of a GPU without its
 * ".csv". Caller frees. */
char *telem_file_stem(const char *prefix, const char *node, int gpu);
/* True for a telemetry file name (TELEM_FILE_PREFIX...csv, not the driver's
 * ...TELEM_DRIVER_SUFFIX). Takes a base name or a path. */
bool telem_is_sample_file(const char *name);

/* ---- telemetry files in the model (read/telread.h fills them) ---------- */

/* Count, sum and largest value of a column's readings (NaN ones left out). */
struct telem_stat {
    uint64_t n;
    double sum, max;            /* max NaN while n is 0 */
};

/* One telemetry file, read once: its facts, the summary of each quantity,
 * the gfx clock of the samples inside running kernels (the sampled clock's
 * input, docs/design.md §7) and decimated lines for the report. Times:
 * CLOCK_BOOTTIME ns of the file's node. */
struct telem_file {
    char *path, *name;          /* name: the base name */
    char *node;                 /* metadata node=, NULL on one node */
    uint64_t rows;
    int64_t first_ns, last_ns;  /* -1 without rows */
    bool truncated;
    struct telem_stat socket_power, gfx_clock, hotspot_temp, edge_temp;
    /* the samples inside the node's kernel window, and of those inside a
     * running kernel: the gfx clock readings (> 0; no_clock counts 0 or below) */
    uint64_t in_window, no_clock;
    double *kernel_clock;
    size_t nkernel_clock, kernel_clock_cap;
    /* the report's lines (only when asked for): x in s from origin_ns, the
     * node's first kernel start; socket power (inst power where it has no
     * reading) over the whole file, and power and gfx clock inside
     * [0, window_s]: the node's kernel window */
    int64_t origin_ns;
    double window_s;
    struct series_grow strip;
    size_t nzoom;               /* points of power_x/y and clock_x/y */
    double *power_x, *power_y;
    size_t nclock;
    double *clock_x, *clock_y;
};

struct telem_run {
    size_t n;
    struct telem_file *f;
};

void telem_file_release(struct telem_file *f);
void telem_run_release(struct telem_run *r);

#endif
