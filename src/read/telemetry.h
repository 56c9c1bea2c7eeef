/* telemetry.h - streaming reader of the sampler's telemetry CSV (docs/design.md §10).
 *
 * File layout (written by `benchrun sample`, seed-compatible):
 *   line 1  metadata: key=value pairs separated by blanks, commas or semicolons,
 *           optionally after a leading '#' (device, interval, backend, energy
 *           resolution, clock, ...); a list value keeps its commas
 *           (caps=socket_power,energy). A file whose first line is already the
 *           header (starts with "timestamp_ns") is accepted with no metadata.
 *   line 2  header: timestamp_ns,current_socket_power_W,inst_power_W,
 *           gfx_clock_MHz,edge_temp_C,hotspot_temp_C, then any extra columns.
 *   line 3+ one sample per line. Values are decimal numbers; `nan` (any case,
 *           optional sign) or an empty field means "sensor absent" -> NAN.
 * Columns are found by name (a reordered file reads correctly); a missing
 * required column or a duplicate column name is an error. timestamp_ns is a
 * non-negative integer, CLOCK_BOOTTIME ns (the rocprofv3 kernel-trace domain).
 *
 * Errors (reported with br_error_at as "file:line: what was expected"):
 * empty file, no header, missing/duplicate column, a row with the wrong number
 * of fields, a non-numeric value in a column that is parsed. A last line with
 * no newline is a row cut short by a killed job: it is dropped with a warning
 * (not fatal) and br_telem_truncated() says so. CRLF line ends are accepted.
 *
 * Speed: the reader streams the file in large blocks (no per-row allocation,
 * no line-length limit) and parses only the six required columns plus the
 * extra columns asked for with br_telem_want(). Numbers are converted exactly
 * (correctly rounded, same result as strtod) with a fast path for the short
 * decimals the sampler writes.
 *
 * Typical use:
 *   struct br_telem *t = br_telem_open(path);          // reads lines 1-2
 *   if (!t) return -1;                                  // error already printed
 *   int e = br_telem_want(t, "energy_J");               // optional, -1 if absent
 *   struct br_telem_row row;
 *   int rc;
 *   while ((rc = br_telem_next(t, &row)) > 0)
 *       use(row.timestamp_ns, row.v[BR_TV_GFX_CLOCK], e >= 0 ? row.extra[e] : NAN);
 *   br_telem_close(t);                                  // rc < 0: error printed
 */
#ifndef BR_READ_TELEMETRY_H
#define BR_READ_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The five required value columns, in file order after timestamp_ns. */
enum br_telem_value {
    BR_TV_SOCKET_POWER = 0, /* current_socket_power_W, W */
    BR_TV_INST_POWER,       /* inst_power_W, W (energy delta / time delta) */
    BR_TV_GFX_CLOCK,        /* gfx_clock_MHz, MHz */
    BR_TV_EDGE_TEMP,        /* edge_temp_C, degC (NaN on MI300X) */
    BR_TV_HOTSPOT_TEMP,     /* hotspot_temp_C, degC */
    BR_TV_COUNT
};

/* Column names: br_telem_value_names[BR_TV_INST_POWER] = "inst_power_W". */
extern const char *const br_telem_value_names[BR_TV_COUNT];
#define BR_TELEM_TIMESTAMP_COL "timestamp_ns"

/* One sample. Pointers stay valid until the next br_telem_next/close. */
struct br_telem_row {
    int64_t timestamp_ns;       /* CLOCK_BOOTTIME ns */
    double v[BR_TV_COUNT];      /* NAN where the sensor is absent */
    const double *extra;        /* columns asked for with br_telem_want, in slot order */
    long line;                  /* 1-based line number in the file */
};

struct br_telem;

/* Opens a file and reads the metadata and header lines. NULL on error
 * (printed). */
/* True for a sampler telemetry file name (profiling_result_*.csv), false for
 * the NVIDIA driver's buffered power samples (*_driver_power.csv), which have
 * their own columns. Takes a base name or a path. */
bool br_telem_is_sample_file(const char *name);

struct br_telem *br_telem_open(const char *path);
/* Same over a memory buffer (not copied; must outlive the reader). name is
 * used in messages. Used by the fuzz target and unit tests. */
struct br_telem *br_telem_open_mem(const char *name, const void *data, size_t len);
void br_telem_close(struct br_telem *t);

/* Next sample: 1 with *row filled, 0 at the end of the file, -1 on a
 * malformed row (error printed with file:line; the reader is then done). */
int br_telem_next(struct br_telem *t, struct br_telem_row *row);

/* Metadata of line 1, in file order. br_telem_meta returns NULL when the key
 * is absent. Keys are compared exactly. */
size_t br_telem_meta_count(const struct br_telem *t);
const char *br_telem_meta_key(const struct br_telem *t, size_t i);
const char *br_telem_meta_value(const struct br_telem *t, size_t i);
const char *br_telem_meta(const struct br_telem *t, const char *key);

/* Header: number of columns, name of column i, index of a name (-1 absent). */
size_t br_telem_ncols(const struct br_telem *t);
const char *br_telem_colname(const struct br_telem *t, size_t i);
int br_telem_col(const struct br_telem *t, const char *name);

/* Asks for an extra column to be parsed as a number into row.extra[slot].
 * Returns the slot (0, 1, ... in call order), or -1 when the file has no such
 * column. Call before the first br_telem_next. A required column may also be
 * asked for (it is then parsed once and copied). */
int br_telem_want(struct br_telem *t, const char *name);

/* The file name given to open (for messages). */
const char *br_telem_name(const struct br_telem *t);
/* Rows returned so far. */
long br_telem_rows(const struct br_telem *t);
/* True once the end was reached and the last line had been cut short. */
bool br_telem_truncated(const struct br_telem *t);

#endif
