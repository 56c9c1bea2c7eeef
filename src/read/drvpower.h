/* drvpower.h - NVML's buffered power samples as the sampler writes them
 * (<stem>_driver_power.csv, src/sample/sample_nvml.c): a metadata line, the
 * header timestamp_ns,power_W,nvml_timestamp_us,gap_before, one sample a
 * line; timestamps CLOCK_BOOTTIME ns, power in W, gap_before 1 when samples
 * were lost before this one (the driver's ring overran). Columns are found by
 * name; only timestamp_ns and power_W are required.
 */
#ifndef BR_READ_DRVPOWER_H
#define BR_READ_DRVPOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct br_drvpower {
    size_t n, cap;
    int64_t *t_ns;
    double *power_W;
    bool *gap_before;               /* false when the file has no such column */
};

/* Reads a file (or a memory buffer; name for messages). 0, or -1 with the
 * error printed as `file:line: what`. out is filled either way (free it). */
int br_drvpower_read(const char *path, struct br_drvpower *out);
int br_drvpower_read_mem(const char *name, const void *data, size_t len, struct br_drvpower *out);
void br_drvpower_free(struct br_drvpower *d);

/* True for a *_driver_power.csv name (a path or a base name). */
bool br_drvpower_is_file(const char *name);

#endif
