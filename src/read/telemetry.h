/* telemetry.h - streaming reader of the sampler's telemetry CSV
 * (docs/design.md §10; the schema, shared with the sampler: model/telemetry.h).
 *
 * Besides what the sampler writes, the reader accepts: a metadata line of
 * key=value pairs separated by blanks, commas or semicolons, optionally after
 * a leading '#', a list value keeping its commas (caps=socket_power,energy);
 * a file whose first line is already the header (no metadata); columns in
 * any order (found by name); blanks around values; `nan` in any case with an
 * optional sign, or an empty field, for "sensor absent" (NAN). A missing
 * required column or a duplicate column name is an error. timestamp_ns is a
 * non-negative integer, CLOCK_BOOTTIME ns (the rocprofv3 kernel-trace domain).
 *
 * Errors (reported with br_error_at as "file:line: what was expected"):
 * empty file, no header, missing/duplicate column, a row with the wrong number
 * of fields, a non-numeric value in a column that is parsed. A last line with
 * no newline is a row cut short by a killed job: it is dropped with a warning
 * (not fatal) and br_telem_truncated() says so. CRLF line ends are accepted.
 *
 * Lines, fields and numbers are read with read/csv.h (blocks, no per-row
 * allocation, correctly rounded numbers); only the required columns and the
 * extra columns asked for with br_telem_want() are converted.
 *
 * Typical use:
 *   struct br_telem *t = br_telem_open(path);          // reads lines 1-2
 *   if (!t) return -1;                                  // error already printed
 *   int e = br_telem_want(t, "energy_J");               // optional, -1 if absent
 *   struct br_telem_row row;
 *   int rc;
 *   while ((rc = br_telem_next(t, &row)) > 0)
 *       use(row.timestamp_ns, row.v[TELEM_GFX_CLOCK], e >= 0 ? row.extra[e] : NAN);
 *   br_telem_close(t);                                  // rc < 0: error printed
 */
#ifndef BR_READ_TELEMETRY_H
#define BR_READ_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/telemetry.h"

/* One sample. Pointers stay valid until the next br_telem_next/close. */
struct br_telem_row {
    int64_t timestamp_ns;       /* CLOCK_BOOTTIME ns */
    double v[TELEM_NREQUIRED];  /* the required columns (enum telem_col); NAN where absent */
    const double *extra;        /* columns asked for with br_telem_want, in slot order */
    long line;                  /* 1-based line number in the file */
};

struct br_telem;

/* Opens a file and reads the metadata and header lines. NULL on error
 * (printed). */
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
