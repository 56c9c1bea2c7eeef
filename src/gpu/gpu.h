/* gpu.h - the GPU vendor, and which GPUs this node has (no vendor library).
 *
 * The vendor is an enum everywhere (conf VENDOR, the detected GPUs, the
 * collectors, the arch profiles): compared as a value, printed with
 * gpu_vendor_name(), parsed once with gpu_vendor_parse().
 */
#ifndef BR_GPU_GPU_H
#define BR_GPU_GPU_H

#include <stddef.h>

enum gpu_vendor {
    GPU_VENDOR_UNKNOWN = 0,     /* not set and not detected */
    GPU_VENDOR_AMD,
    GPU_VENDOR_NVIDIA,
    GPU_VENDOR_NONE,            /* conf VENDOR=none: a CPU-only workload */
};

/* "unknown", "amd", "nvidia", "none" (the values of BENCHRUN_VENDOR). */
const char *gpu_vendor_name(enum gpu_vendor v);
/* "amd", "nvidia" or "none" -> *out; 0, or -1 for anything else (no message). */
int gpu_vendor_parse(const char *s, enum gpu_vendor *out);

/* GPUs seen on this node. */
struct gpu_node {
    enum gpu_vendor vendor;     /* UNKNOWN when none was found */
    int count;                  /* GPUs seen (0 when none) */
    char *arch;                 /* "gfx942", "sm_90", ...; NULL unknown */
    char *name;                 /* marketing name when known, else NULL */
    char *driver;               /* driver version when known, else NULL */
    char *source;               /* how they were found ("kfd topology", "nvidia-smi", ...) */
};

/* Detects GPUs: AMD from $BENCHRUN_SYSFS_ROOT/sys/class/kfd/kfd/topology/
 * nodes/<n>/properties (gfx_target_version != 0), else `rocminfo`; NVIDIA from
 * `nvidia-smi --query-gpu=name,compute_cap,driver_version`, else
 * /proc/driver/nvidia/gpus/. Never fails: count 0 means none found. */
void gpu_detect(struct gpu_node *g);
void gpu_node_release(struct gpu_node *g);

/* KFD "properties" text -> gfx_target_version (0 for CPU nodes) and
 * simd_count. 0, or -1 when the key is absent/malformed (no message). */
int gpu_kfd_parse_props(const char *text, size_t len, long *gfx_target_version, long *simd_count);
/* 90402 -> "gfx942", 90010 -> "gfx90a", 110000 -> "gfx1100". Caller frees;
 * NULL for values <= 0. */
char *gpu_gfx_name(long gfx_target_version);
/* "9.0" -> "sm_90". Caller frees; NULL when malformed. */
char *gpu_sm_name(const char *compute_cap);

#endif
