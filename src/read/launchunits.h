/* launchunits.h - <prefix>_launch_units.csv: the sampling unit of each launch of a keyed unit.
 *
 * Written by libbenchrun-cupti.so in a sampled counter pass (launches.c) when
 * a (kernel, grid, block) signature was split by the launches' parameter keys
 * (trace/paramkey.h). Header "Dispatch_Id,Launch_Unit", then one row per
 * launch of a keyed unit, two unsigned decimal numbers, in dispatch order; a
 * launch without a row is in its signature's own unit; Launch_Unit fits 32
 * bits (the library writes its unit's index + 1). The reader (read/rpagg.c)
 * gives each launch's unit to read/extrapolate.h (the variant of
 * xp_add_sample and xp_add_trace), which ranks each unit's launches as the
 * plan did. tests/fuzz/fuzz_launch_units.c.
 */
#ifndef BR_READ_LAUNCHUNITS_H
#define BR_READ_LAUNCHUNITS_H

#include <stdint.h>

struct csv_src;

#define LU_SUFFIX "launch_units.csv"

typedef void (*lu_row_fn)(void *ud, uint64_t dispatch, uint32_t unit);

/* Reads every row of src into add. 0, or -1 with *line (1-based, 0: the
 * file) and *what (a static description) of the first bad line. An
 * unterminated last line is a file cut short by a kill: its rows before
 * it are kept, it is ignored. */
int lu_read(struct csv_src *src, lu_row_fn add, void *ud, long *line, const char **what);

#endif
