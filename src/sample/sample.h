/* sample.h - telemetry sampler backends: the interface every backend fills.
 *
 * A backend turns one GPU's telemetry source (amdgpu sysfs, amd-smi, NVML, the
 * test-only sim) into one struct br_sample per read. The deadline loop
 * (sampler.h) owns timing, files and statistics and never names a vendor.
 *
 * Units: watts, joules, MHz, degrees Celsius. Times: CLOCK_BOOTTIME ns (the
 * clock of rocprofv3 kernel timestamps); a backend whose source runs on
 * another clock converts before it fills the sample. A reading the source does
 * not have is NAN, never 0; driver sentinels (all-ones fields,
 * NVML_ERROR_NOT_SUPPORTED) become NAN inside the backend.
 *
 * Adding a backend:
 *   1. write src/sample/sample_<name>.c defining
 *      `const struct br_sampler_ops br_sampler_<name>` (designated
 *      initializers); guard vendor headers with #if, never link a vendor
 *      library directly (dlopen it, or build the file only when CMake found
 *      the library, as src/sample/amdsmi.cmake does for amd-smi);
 *   2. declare it below and add a row to the table in sample.c (inside the
 *      same #if as its file) in the order auto-detection should try it;
 *   3. set every capability bit it can fill in open(), and NAN the rest;
 *   4. add tests: a fixture-driven unit test (tests/unit/test_sample.c) and,
 *      when it reads a binary or text format, a fuzz target
 *      (tests/fuzz/fuzz_<parser>.c); hardware checks go in tests/gpu/;
 *   5. document it in README.md (Commands > sample > Backends).
 */
#ifndef BR_SAMPLE_H
#define BR_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a backend can fill for a device (probed in open). */
enum br_cap {
    BR_CAP_SOCKET_POWER = 1u << 0, /* current socket power, W */
    BR_CAP_ENERGY       = 1u << 1, /* energy accumulator, J */
    BR_CAP_GFX_CLOCK    = 1u << 2, /* gfx / SM clock, MHz */
    BR_CAP_MEM_CLOCK    = 1u << 3, /* memory clock, MHz */
    BR_CAP_EDGE_TEMP    = 1u << 4, /* edge / GPU temperature, C */
    BR_CAP_HOTSPOT_TEMP = 1u << 5, /* hotspot / junction temperature, C */
    BR_CAP_MEM_TEMP     = 1u << 6, /* memory (HBM) temperature, C */
    BR_CAP_SOURCE_TIME  = 1u << 7, /* the source stamps its readings */
    BR_CAP_DRIVER_POWER = 1u << 8, /* driver-buffered power samples file */
};

/* One reading of one GPU. Set by the backend; t_ns by the loop. */
struct br_sample {
    int64_t t_ns;              /* CLOCK_BOOTTIME when the read started */
    double socket_power_W;
    double energy_J;           /* raw accumulator in J (any origin); NAN if none */
    int64_t energy_time_ns;    /* time base of the energy reading: source time in ns
                                * (own clock allowed), or -1 to use t_ns */
    double gfx_clock_MHz;      /* mean over XCCs where there are several */
    double gfx_clock_max_MHz;  /* max over XCCs (= gfx_clock_MHz otherwise) */
    double mem_clock_MHz;
    double edge_temp_C;
    double hotspot_temp_C;
    double mem_temp_C;
    int64_t source_time_ns;    /* source's own stamp, CLOCK_BOOTTIME ns; -1 if none */
    uint64_t source_seq;       /* changes exactly when the source refreshed;
                                * 0 = unknown (the loop compares values) */
};

/* Resets every reading to "absent". */
void br_sample_clear(struct br_sample *s);

/* A backend's per-device state; each backend defines its own struct. */
struct br_sampler_dev;

/* Static facts about an opened device, for the metadata line and the JSON. */
struct br_dev_info {
    unsigned caps;             /* enum br_cap bits */
    char *source;              /* what is read, e.g. the gpu_metrics path */
    char *pci_bus_id;          /* "0000:05:00.0" where known, else NULL */
    char *detail;              /* e.g. "gpu_metrics=1.8", free text without spaces */
    double energy_resolution_J;/* NAN when there is no energy counter */
    char *driver_power_path;   /* BR_CAP_DRIVER_POWER: file the backend writes */
    const char *gfx_clock;     /* static text: what gfx_clock_MHz is (mean_over_xcc ...) */
};
void br_dev_info_release(struct br_dev_info *info);

/* Options a backend may use when opening a device. */
struct br_open_opts {
    const char *outdir;        /* folder of the run (driver power file) */
    const char *file_stem;     /* "profiling_result_<prefix>[_<node>]_<gpu>" */
    int64_t interval_ns;       /* requested sampling interval */
};

struct br_sampler_ops {
    const char *name;          /* --backend value */
    /* 0 when usable on this machine (library loads, devices exist); else -1,
     * with the reason in why (caller frees), without printing. */
    int (*probe)(char **why);
    /* Opens GPU `index` (numbered as the application sees it, see the
     * backend's mapping); prints a clear error and returns NULL on failure. */
    struct br_sampler_dev *(*open)(int index, const struct br_open_opts *opts,
                                   struct br_dev_info *info);
    /* Fills s (already cleared, t_ns set). Returns 0, or -1 with an error
     * printed when the device cannot be read any more. */
    int (*read)(struct br_sampler_dev *dev, struct br_sample *s);
    /* Stops background work, flushes backend files; may be NULL. */
    int (*finish)(struct br_sampler_dev *dev);
    void (*close)(struct br_sampler_dev *dev);
};

extern const struct br_sampler_ops br_sampler_amdgpu;
extern const struct br_sampler_ops br_sampler_nvml;
extern const struct br_sampler_ops br_sampler_sim;
#ifdef BENCHRUN_HAVE_AMDSMI
extern const struct br_sampler_ops br_sampler_amdsmi;
#endif

/* The registered backends, NULL-terminated, in auto-detection order (sim is
 * listed but never chosen automatically). */
extern const struct br_sampler_ops *const br_sampler_backends[];

/* Finds a backend by name; NULL (no message) if unknown. */
const struct br_sampler_ops *br_sampler_find(const char *name);
/* First backend whose probe succeeds, sim excluded; NULL with an error that
 * lists every backend's reason. */
const struct br_sampler_ops *br_sampler_auto(void);

/* Path under the sysfs root: $BENCHRUN_SYSFS_ROOT + path (tests), else path.
 * Caller frees. */
char *br_sysfs_path(const char *path);

/* PCI address ("0000:05:00.0") of AMD GPU `index` in ROCR/HIP numbering
 * (sample_amdgpu.c); NULL with an error. Used by the amd-smi backend. */
char *br_amdgpu_pci_of(int index);

/* Parses a visible-devices list ("0,2,3"); returns the count, -1 on error.
 * Entries that are not integers are returned as -1 in out. */
int br_parse_index_list(const char *s, int **out);

#endif
