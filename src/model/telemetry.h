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

#endif
