/* sample_amdgpu.c - power/clocks/temps from amdgpu gpu_metrics + hwmon (AMD, primary).
 *
 * Owns: GPU index mapping for AMD, the open file descriptors on sysfs, and
 * the translation of gpu_metrics / hwmon readings into struct br_sample.
 *
 * GPU indices are numbered the way ROCR (and so HIP) numbers them: the KFD
 * topology nodes (/sys/class/kfd/kfd/topology/nodes/N/properties) whose
 * simd_count is non-zero, in increasing node id; ROCR_VISIBLE_DEVICES then
 * selects and reorders that list, and HIP_VISIBLE_DEVICES applies on top of
 * ROCR's (ROCr os_linux.cpp / topology.cpp enumerate KFD nodes in order; HIP
 * filters the agents ROCr exposes). A node's device folder is
 * /sys/class/drm/renderD<drm_render_minor>/device. Without a KFD topology
 * (amdgpu loaded without KFD) the cards /sys/class/drm/cardN with an AMD
 * vendor id are used in increasing N.
 *
 * Sources, per device, chosen at open:
 *  - gpu_metrics (one pread of an fd kept open; see gpu_metrics.c for the
 *    layouts): socket power (W), energy (2^-16 J), gfx clock (mean over XCCs,
 *    max in its own column), uclk, hotspot and HBM temperature, firmware
 *    timestamp (10 ns ticks; time base of the energy counter) and
 *    system_clock_counter (CLOCK_BOOTTIME ns when the driver filled the table);
 *    no edge temperature on MI300X (NAN);
 *  - hwmon fallback (no gpu_metrics, or BENCHRUN_AMDGPU_SOURCE=hwmon):
 *    power1_input (uW), freq1_input (sclk, Hz), freq2_input (uclk, Hz),
 *    temp1/temp2/temp3_input (edge/junction/mem, milli-C); no energy.
 * Sysfs paths go through br_sysfs_path (BENCHRUN_SYSFS_ROOT for tests).
 */
#include "sample/gpu_metrics.h"
#include "sample/sample.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"

enum { HW_POWER, HW_SCLK, HW_UCLK, HW_EDGE, HW_JUNCTION, HW_MEM, HW_N };
static const char *const hwmon_files[HW_N] = {
    "power1_input", "freq1_input", "freq2_input", "temp1_input", "temp2_input", "temp3_input",
};

struct br_sampler_dev {
    int fd_metrics;            /* -1: hwmon only */
    unsigned char *buf;
    size_t cap;
    char *metrics_path;
    int fd_hw[HW_N];           /* -1 where absent */
};

/* One AMD GPU as ROCR would list it. */
struct amd_gpu {
    long node;                 /* KFD node id, or card number without KFD */
    char *devdir;              /* .../device (with the sysfs root) */
    char *pci;                 /* "0000:05:00.0" or NULL */
};

static void gpus_free(struct amd_gpu *g, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(g[i].devdir);
        free(g[i].pci);
    }
    free(g);
}

/* Value of "key <number>" in a KFD properties file; -1 when absent. */
static long prop_value(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ' ')
            return strtol(p + klen + 1, NULL, 10);
    }
    return -1;
}

static int cmp_gpu(const void *a, const void *b)
{
    long x = ((const struct amd_gpu *)a)->node, y = ((const struct amd_gpu *)b)->node;
    return (x > y) - (x < y);
}

/* Adds KFD node `name` to the list when it is a GPU. */
static void kfd_add_node(const char *nodes, const char *name, struct amd_gpu **g,
                         size_t *n, size_t *cap)
{
    char *end;
    long id = strtol(name, &end, 10);
    if (*end || end == name)
        return;
    char *path = xasprintf("%s/%s/properties", nodes, name);
    char *text = fs_exists(path) ? fs_read_file(path, NULL) : NULL;
    free(path);
    if (!text)
        return;
    long simd = prop_value(text, "simd_count"), minor = prop_value(text, "drm_render_minor");
    long dom = prop_value(text, "domain"), loc = prop_value(text, "location_id");
    free(text);
    if (simd <= 0 || minor < 0)
        return;
    xgrow((void **)g, cap, *n + 1, sizeof(**g));
    char *rel = xasprintf("/sys/class/drm/renderD%ld/device", minor);
    (*g)[*n].node = id;
    (*g)[*n].devdir = br_sysfs_path(rel);
    (*g)[*n].pci = loc >= 0 ? xasprintf("%04lx:%02lx:%02lx.%lx", dom < 0 ? 0 : dom,
                                        (loc >> 8) & 0xff, (loc >> 3) & 0x1f, loc & 7)
                            : NULL;
    free(rel);
    (*n)++;
}

/* GPUs from the KFD topology, in node order; -1 when there is no topology. */
static int list_kfd(struct amd_gpu **out, size_t *nout)
{
    char *nodes = br_sysfs_path(KFD_NODES);
    DIR *d = opendir(nodes);
    if (!d) {
        free(nodes);
        return -1;
    }
    struct amd_gpu *g = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));)
        kfd_add_node(nodes, e->d_name, &g, &n, &cap);
    closedir(d);
    free(nodes);
    if (n > 1)
        qsort(g, n, sizeof(*g), cmp_gpu);
    *out = g;
    *nout = n;
    return 0;
}

static bool is_amd_card(const char *devdir)
{
    char *vpath = xasprintf("%s/vendor", devdir);
    char *v = fs_exists(vpath) ? fs_read_file(vpath, NULL) : NULL;
    free(vpath);
    bool amd = v && strtol(v, NULL, 16) == 0x1002;
    free(v);
    return amd;
}

/* Fallback: /sys/class/drm/cardN with an AMD vendor id, in card order. */
static void list_cards(struct amd_gpu **out, size_t *nout)
{
    char *drm = br_sysfs_path("/sys/class/drm");
    DIR *d = opendir(drm);
    struct amd_gpu *g = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char *end;
        if (strncmp(e->d_name, "card", 4) != 0)
            continue;
        long id = strtol(e->d_name + 4, &end, 10);
        if (*end || end == e->d_name + 4)
            continue;
        char *dev = xasprintf("%s/%s/device", drm, e->d_name);
        if (!is_amd_card(dev)) {
            free(dev);
            continue;
        }
        xgrow((void **)&g, &cap, n + 1, sizeof(*g));
        g[n++] = (struct amd_gpu){ .node = id, .devdir = dev, .pci = NULL };
    }
    if (d)
        closedir(d);
    free(drm);
    if (n > 1)
        qsort(g, n, sizeof(*g), cmp_gpu);
    *out = g;
    *nout = n;
}

/* Applies one visible-devices variable: keeps and reorders the listed ones. */
static int apply_visible(const char *var, struct amd_gpu **g, size_t *n)
{
    const char *val = getenv(var);
    if (!val)
        return 0;
    int *idx = NULL;
    int k = br_parse_index_list(val, &idx);
    if (k < 0)
        return br_error("sample: %s='%s': expected a comma-separated list of indices", var, val);
    struct amd_gpu *sel = xcalloc(k > 0 ? (size_t)k : 1, sizeof(*sel));
    for (int i = 0; i < k; i++) {
        if (idx[i] < 0 || (size_t)idx[i] >= *n) {
            free(idx);
            gpus_free(sel, (size_t)i);
            return br_error("sample: %s='%s': entry %d is not one of the %zu GPU(s) "
                            "(only integer indices are supported)", var, val, i + 1, *n);
        }
        sel[i].node = (*g)[idx[i]].node;
        sel[i].devdir = xstrdup((*g)[idx[i]].devdir);
        sel[i].pci = (*g)[idx[i]].pci ? xstrdup((*g)[idx[i]].pci) : NULL;
    }
    free(idx);
    gpus_free(*g, *n);
    *g = sel;
    *n = (size_t)k;
    return 0;
}

/* The GPUs the application sees, in its numbering. */
static int list_visible(struct amd_gpu **g, size_t *n)
{
    if (list_kfd(g, n) != 0)
        list_cards(g, n);
    if (apply_visible("ROCR_VISIBLE_DEVICES", g, n) != 0 ||
        apply_visible("HIP_VISIBLE_DEVICES", g, n) != 0) {
        gpus_free(*g, *n);
        return -1;
    }
    return 0;
}

char *br_amdgpu_pci_of(int index)
{
    struct amd_gpu *g = NULL;
    size_t n = 0;
    if (list_visible(&g, &n) != 0)
        return NULL;
    char *pci = NULL;
    if (index >= 0 && (size_t)index < n && g[index].pci)
        pci = xstrdup(g[index].pci);
    else
        br_error("sample: no AMD GPU with index %d and a PCI address (%zu visible)", index, n);
    gpus_free(g, n);
    return pci;
}

static int amdgpu_probe(char **why)
{
    struct amd_gpu *g = NULL;
    size_t n = 0;
    if (list_visible(&g, &n) != 0) {
        *why = xstrdup("bad visible-devices variable");
        return -1;
    }
    gpus_free(g, n);
    if (n == 0) {
        *why = xstrdup("no AMD GPU in the KFD topology or /sys/class/drm");
        return -1;
    }
    return 0;
}

/* Opens a sysfs file for repeated pread; reports why it cannot. */
static int open_ro(const char *path, bool required)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), e = errno;
    if (fd < 0 && (required || e != ENOENT))
        br_error("sample: cannot open '%s': %s%s", path, strerror(e),
                 e == EACCES ? " (the amdgpu sysfs files need read permission)" : "");
    errno = e; /* callers tell "absent" from "failed" */
    return fd;
}

/* Reads the whole gpu_metrics table; returns its length or -1. */
static ssize_t read_metrics(struct br_sampler_dev *d)
{
    for (;;) {
        ssize_t got = pread(d->fd_metrics, d->buf, d->cap, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 || (size_t)got < d->cap || d->cap >= BR_GPU_METRICS_MAX_SIZE)
            return got;
        d->cap *= 2;
        d->buf = xrealloc(d->buf, d->cap);
    }
}

/* One table read and decoded into *m; 0, or -1 after the error is reported
 * (a decode error followed by decode_hint). */
static int read_decoded(struct br_sampler_dev *d, struct br_gpu_metrics *m,
                        const char *decode_hint)
{
    ssize_t len = read_metrics(d);
    if (len < 0)
        return br_error("sample: cannot read '%s': %s", d->metrics_path, strerror(errno));
    const char *err = br_gpu_metrics_decode(d->buf, (size_t)len, m);
    if (err)
        return br_error("sample: %s: %s%s", d->metrics_path, err, decode_hint);
    return 0;
}

static int open_metrics(struct br_sampler_dev *d, const char *devdir, struct br_dev_info *info)
{
    d->metrics_path = xasprintf("%s/gpu_metrics", devdir);
    d->fd_metrics = open_ro(d->metrics_path, false);
    if (d->fd_metrics < 0)
        return errno == ENOENT ? 0 : -1;
    d->cap = 8192;
    d->buf = xmalloc(d->cap);
    struct br_gpu_metrics m;
    if (read_decoded(d, &m, " (set BENCHRUN_AMDGPU_SOURCE=hwmon to read hwmon instead)") != 0)
        return -1;
    info->source = xstrdup(d->metrics_path);
    info->detail = xasprintf("gpu_metrics_v%u.%u", m.format_rev, m.content_rev);
    info->gfx_clock = "mean_over_xcc";
    info->caps = BR_CAP_SOCKET_POWER | BR_CAP_GFX_CLOCK | BR_CAP_MEM_CLOCK |
                 BR_CAP_HOTSPOT_TEMP | BR_CAP_MEM_TEMP;
    if (m.has_energy) {
        info->caps |= BR_CAP_ENERGY;
        info->energy_resolution_J = BR_GPU_METRICS_ENERGY_UNIT_J;
    }
    if (m.has_system_clock)
        info->caps |= BR_CAP_SOURCE_TIME;
    return 0;
}

/* First hwmonN folder under the device; NULL if none. */
static char *find_hwmon(const char *devdir)
{
    char *base = xasprintf("%s/hwmon", devdir), *found = NULL;
    DIR *d = opendir(base);
    for (struct dirent *e; d && !found && (e = readdir(d));)
        if (strncmp(e->d_name, "hwmon", 5) == 0)
            found = xasprintf("%s/%s", base, e->d_name);
    if (d)
        closedir(d);
    free(base);
    return found;
}

static const unsigned hw_caps[HW_N] = {
    BR_CAP_SOCKET_POWER, BR_CAP_GFX_CLOCK, BR_CAP_MEM_CLOCK,
    BR_CAP_EDGE_TEMP, BR_CAP_HOTSPOT_TEMP, BR_CAP_MEM_TEMP,
};

static int open_hwmon(struct br_sampler_dev *d, const char *devdir, struct br_dev_info *info)
{
    char *hw = find_hwmon(devdir);
    if (!hw)
        return br_error("sample: %s has neither gpu_metrics nor a hwmon folder", devdir);
    for (int i = 0; i < HW_N; i++) {
        char *p = xasprintf("%s/%s", hw, hwmon_files[i]);
        d->fd_hw[i] = open_ro(p, false);
        free(p);
        if (d->fd_hw[i] >= 0)
            info->caps |= hw_caps[i];
        else if (errno != ENOENT) {
            free(hw);
            return -1;
        }
    }
    info->source = hw;
    info->detail = xstrdup("hwmon");
    info->gfx_clock = "xcc0_sclk";
    info->energy_resolution_J = NAN;
    return 0;
}

static void dev_close(struct br_sampler_dev *d)
{
    if (!d)
        return;
    if (d->fd_metrics >= 0)
        close(d->fd_metrics);
    for (int i = 0; i < HW_N; i++)
        if (d->fd_hw[i] >= 0)
            close(d->fd_hw[i]);
    free(d->buf);
    free(d->metrics_path);
    free(d);
}

static struct br_sampler_dev *amdgpu_open(int index, const struct br_open_opts *opts,
                                          struct br_dev_info *info)
{
    struct amd_gpu *g = NULL;
    size_t n = 0;
    if (list_visible(&g, &n) != 0)
        return NULL;
    if (index < 0 || (size_t)index >= n) {
        br_error("sample: no AMD GPU with index %d (%zu visible, numbered as ROCR/HIP do)",
                 index, n);
        gpus_free(g, n);
        return NULL;
    }
    struct br_sampler_dev *d = xcalloc(1, sizeof(*d));
    d->fd_metrics = -1;
    for (int i = 0; i < HW_N; i++)
        d->fd_hw[i] = -1;
    info->pci_bus_id = g[index].pci ? xstrdup(g[index].pci) : NULL;
    info->energy_resolution_J = NAN;
    const char *src = getenv("BENCHRUN_AMDGPU_SOURCE");
    bool hwmon_only = src && strcmp(src, "hwmon") == 0;
    int rc = hwmon_only ? 0 : open_metrics(d, g[index].devdir, info);
    if (rc == 0 && d->fd_metrics < 0)
        rc = open_hwmon(d, g[index].devdir, info);
    gpus_free(g, n);
    if (rc != 0) {
        dev_close(d);
        br_dev_info_release(info);
        return NULL;
    }
    return d;
}

/* One integer from an open hwmon file, scaled; NAN when absent or failing. */
static double hw_read(int fd, double scale)
{
    char buf[32];
    if (fd < 0)
        return NAN;
    ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);
    if (got <= 0)
        return NAN;
    buf[got] = '\0';
    char *end;
    long long v = strtoll(buf, &end, 10);
    return end == buf ? NAN : (double)v * scale;
}

static int read_hwmon(struct br_sampler_dev *d, struct br_sample *s)
{
    s->socket_power_W = hw_read(d->fd_hw[HW_POWER], 1e-6);
    s->gfx_clock_MHz = s->gfx_clock_max_MHz = hw_read(d->fd_hw[HW_SCLK], 1e-6);
    s->mem_clock_MHz = hw_read(d->fd_hw[HW_UCLK], 1e-6);
    s->edge_temp_C = hw_read(d->fd_hw[HW_EDGE], 1e-3);
    s->hotspot_temp_C = hw_read(d->fd_hw[HW_JUNCTION], 1e-3);
    s->mem_temp_C = hw_read(d->fd_hw[HW_MEM], 1e-3);
    return 0;
}

static int amdgpu_read(struct br_sampler_dev *d, struct br_sample *s)
{
    if (d->fd_metrics < 0)
        return read_hwmon(d, s);
    struct br_gpu_metrics m;
    if (read_decoded(d, &m, "") != 0)
        return -1;
    s->socket_power_W = m.socket_power_W;
    s->hotspot_temp_C = m.hotspot_temp_C;
    s->mem_temp_C = m.mem_temp_C;
    s->gfx_clock_MHz = m.gfxclk_mean_MHz;
    s->gfx_clock_max_MHz = m.gfxclk_max_MHz;
    s->mem_clock_MHz = m.uclk_MHz;
    if (m.has_energy) {
        s->energy_J = (double)m.energy_acc * BR_GPU_METRICS_ENERGY_UNIT_J;
        s->energy_time_ns = m.has_firmware_ts ? (int64_t)m.firmware_ts_ns
                          : m.has_system_clock ? (int64_t)m.system_clock_ns : -1;
    }
    if (m.has_system_clock)
        s->source_time_ns = (int64_t)m.system_clock_ns;
    s->source_seq = m.has_firmware_ts ? m.firmware_ts_ns + 1
                  : m.has_system_clock ? m.system_clock_ns + 1 : 0;
    return 0;
}

const struct br_sampler_ops br_sampler_amdgpu = {
    .name = "amdgpu",
    .probe = amdgpu_probe,
    .open = amdgpu_open,
    .read = amdgpu_read,
    .finish = NULL,
    .close = dev_close,
};
