/* gpu_metrics.h - decoder of the amdgpu binary /sys/.../device/gpu_metrics table.
 *
 * Pure function over bytes (no I/O), so unit tests and the fuzz target call it
 * directly. Handles format 1, content 4-9 (what MI300X / smu_v13_0_6 reports
 * from kernel 6.7 to 6.19+); v1.4-v1.8 are fixed C layouts, v1.9 is a packed
 * list of (u64 descriptor, values) attributes. All-ones fields (the driver
 * pre-fills the table with 0xFF) decode as absent.
 */
#ifndef BR_GPU_METRICS_H
#define BR_GPU_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2^-16 J: the unit of energy_accumulator on smu_v13_0_6 (15.2587890625 uJ). */
#define BR_GPU_METRICS_ENERGY_UNIT_J (1.0 / 65536.0)

/* Largest table we accept (sysfs attributes are at most one page today). */
#define BR_GPU_METRICS_MAX_SIZE 65536

struct br_gpu_metrics {
    unsigned format_rev, content_rev;
    size_t structure_size;        /* from the header */
    double hotspot_temp_C;        /* NAN when absent */
    double mem_temp_C;
    double socket_power_W;
    bool has_energy;
    uint64_t energy_acc;          /* units of BR_GPU_METRICS_ENERGY_UNIT_J */
    bool has_system_clock;
    uint64_t system_clock_ns;     /* CLOCK_BOOTTIME when the driver filled the table */
    bool has_firmware_ts;
    uint64_t firmware_ts_ns;      /* PMFW timestamp converted from 10 ns ticks */
    unsigned n_gfxclk;            /* XCCs with a valid current_gfxclk */
    double gfxclk_mean_MHz;       /* mean over those XCCs; NAN when none */
    double gfxclk_max_MHz;
    double uclk_MHz;
};

/* Decodes buf[0..len). Returns NULL on success, else a static message
 * ("short file: 12 bytes, header needs 4", "unknown revision 1.3", ...). */
const char *br_gpu_metrics_decode(const void *buf, size_t len, struct br_gpu_metrics *out);

/* Expected structure_size of a fixed layout (content 4-8); 0 if not fixed. */
size_t br_gpu_metrics_fixed_size(unsigned format_rev, unsigned content_rev);

#endif
