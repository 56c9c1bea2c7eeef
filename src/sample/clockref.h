/* clockref.h - CLOCK_BOOTTIME, CLOCK_MONOTONIC and CLOCK_REALTIME read together.
 *
 * clock_ref.txt is written before the sampled command starts, so samples,
 * kernel traces (rocprofv3: CLOCK_BOOTTIME) and wall-clock logs can be put on
 * one time line afterwards. Format: comment line, then key=value lines:
 * boottime_ns, monotonic_ns, realtime_ns (all read within spread_ns of each
 * other), realtime_iso, boottime_minus_realtime_ns,
 * boottime_minus_monotonic_ns (time spent suspended), spread_ns, host.
 */
#ifndef BR_CLOCKREF_H
#define BR_CLOCKREF_H

#include <stdint.h>

struct br_clock_ref {
    int64_t boottime_ns, monotonic_ns, realtime_ns;
    int64_t spread_ns;         /* boottime read before - after the other two */
};

/* Reads the three clocks; keeps the tightest of a few tries. */
void br_clock_ref_read(struct br_clock_ref *r);
/* The file's text (caller frees). */
char *br_clock_ref_format(const struct br_clock_ref *r);
/* Writes path atomically; -1 with an error. */
int br_clock_ref_write(const char *path, const struct br_clock_ref *r);

#endif
