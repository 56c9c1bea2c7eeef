/* gpu.c - the vendor enum's names, and which GPUs this node has, without
 * vendor libraries.
 *
 * AMD: KFD topology (/sys/class/kfd/kfd/topology/nodes/<n>/properties, the
 * list ROCr itself enumerates; CPU nodes have gfx_target_version 0), else
 * `rocminfo | grep -m1 " Name: *gfx"` (seed pitfall: the first "Marketing
 * Name" is the CPU). gfx_target_version encodes major*10000 + minor*100 +
 * stepping, printed as gfx<major><minor hex><stepping hex> (90402 = gfx942,
 * 90010 = gfx90a; ROCr's topology code). Driver: /sys/module/amdgpu/version.
 * NVIDIA: `nvidia-smi --query-gpu=name,compute_cap,driver_version
 * --format=csv,noheader`, else /proc/driver/nvidia/gpus/<bus>/information.
 * $BENCHRUN_SYSFS_ROOT prefixes the sysfs/procfs paths (tests).
 */
#include "gpu/gpu.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *gpu_vendor_name(enum gpu_vendor v)
{
    static const char *const names[] = { "unknown", "amd", "nvidia", "none" };
    return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "unknown";
}

int gpu_vendor_parse(const char *s, enum gpu_vendor *out)
{
    static const struct { const char *name; enum gpu_vendor v; } rows[] = {
        { "amd", GPU_VENDOR_AMD }, { "nvidia", GPU_VENDOR_NVIDIA }, { "none", GPU_VENDOR_NONE },
    };
    for (size_t i = 0; s && i < sizeof(rows) / sizeof(rows[0]); i++)
        if (strcmp(s, rows[i].name) == 0) {
            *out = rows[i].v;
            return 0;
        }
    return -1;
}

static char *root_path(const char *p)
{
    const char *root = getenv("BENCHRUN_SYSFS_ROOT");
    return root && *root ? xasprintf("%s%s", root, p) : xstrdup(p);
}

/* Value of "key <number>" in a KFD properties text; -1 absent/malformed. */
static int prop_long(const char *text, size_t len, const char *key, long *out)
{
    size_t kl = strlen(key);
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if ((size_t)(le - p) > kl && strncmp(p, key, kl) == 0 && p[kl] == ' ') {
            char num[32];
            size_t n = (size_t)(le - p) - kl - 1;
            if (n == 0 || n >= sizeof(num))
                return -1;
            memcpy(num, p + kl + 1, n);
            num[n] = '\0';
            char *e;
            errno = 0;
            long v = strtol(num, &e, 10);
            if (errno || *e || e == num)
                return -1;
            *out = v;
            return 0;
        }
        p = le + 1;
    }
    return -1;
}

int gpu_kfd_parse_props(const char *text, size_t len, long *gfx_target_version, long *simd_count)
{
    if (prop_long(text, len, "gfx_target_version", gfx_target_version) != 0)
        return -1;
    if (prop_long(text, len, "simd_count", simd_count) != 0)
        *simd_count = 0;
    return 0;
}

char *gpu_gfx_name(long v)
{
    if (v <= 0)
        return NULL;
    return xasprintf("gfx%ld%lx%lx", v / 10000, (v / 100) % 100, v % 100);
}

char *gpu_sm_name(const char *cc)
{
    int maj, min;
    char extra;
    if (!cc || sscanf(cc, "%d.%d%c", &maj, &min, &extra) != 2 || maj < 0 || min < 0)
        return NULL;
    return xasprintf("sm_%d%d", maj, min);
}

static char *read_trimmed(const char *path)
{
    if (!fs_exists(path))
        return NULL;
    size_t len;
    char *s = fs_read_file(path, &len);
    if (!s)
        return NULL;
    while (len && isspace((unsigned char)s[len - 1]))
        s[--len] = '\0';
    return s;
}

static int kfd_node(const char *dir, const char *node, struct gpu_node *g)
{
    char *props = xasprintf("%s/%s/properties", dir, node);
    size_t len;
    char *text = fs_exists(props) ? fs_read_file(props, &len) : NULL;
    free(props);
    long ver = 0, simd = 0;
    int is_gpu = text && gpu_kfd_parse_props(text, len, &ver, &simd) == 0 && ver > 0;
    free(text);
    if (is_gpu) {
        g->count++;
        if (!g->arch)
            g->arch = gpu_gfx_name(ver);
    }
    return is_gpu;
}

static void detect_kfd(struct gpu_node *g)
{
    char *dir = root_path("/sys/class/kfd/kfd/topology/nodes");
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (isdigit((unsigned char)e->d_name[0]))
                kfd_node(dir, e->d_name, g);
        closedir(d);
    }
    free(dir);
    if (g->count > 0) {
        g->vendor = GPU_VENDOR_AMD;
        g->source = xstrdup("kfd topology");
        char *ver = root_path("/sys/module/amdgpu/version");
        g->driver = read_trimmed(ver);
        free(ver);
    }
}

static void detect_rocminfo(struct gpu_node *g)
{
    const char *argv[] = { "rocminfo", NULL };
    struct strbuf out;
    sb_init(&out);
    int st;
    if (proc_capture(argv, &out, NULL, &st) == 0 && st == 0) {
        for (char *line = strtok(out.buf, "\n"); line; line = strtok(NULL, "\n")) {
            char *n = strstr(line, "Name:");
            if (!n)
                continue;
            n += 5;
            while (*n == ' ')
                n++;
            if (strncmp(n, "gfx", 3) == 0) {
                if (!g->arch)
                    g->arch = xstrndup(n, strcspn(n, " \t"));
                g->count++;
            }
        }
    }
    sb_release(&out);
    if (g->count > 0) {
        g->vendor = GPU_VENDOR_AMD;
        g->source = xstrdup("rocminfo");
    }
}

/* "NVIDIA H200, 9.0, 580.1" lines. */
static void detect_nvidia_smi(struct gpu_node *g)
{
    const char *argv[] = { "nvidia-smi", "--query-gpu=name,compute_cap,driver_version",
                           "--format=csv,noheader", NULL };
    struct strbuf out;
    sb_init(&out);
    int st;
    if (proc_capture(argv, &out, NULL, &st) == 0 && st == 0) {
        char *save = NULL;
        for (char *line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
            if (!c2)
                continue;
            *c1 = *c2 = '\0';
            g->count++;
            if (!g->name) {
                g->name = xstrdup(line);
                g->arch = gpu_sm_name(c1 + 1 + strspn(c1 + 1, " "));
                g->driver = xstrdup(c2 + 1 + strspn(c2 + 1, " "));
            }
        }
    }
    sb_release(&out);
    if (g->count > 0) {
        g->vendor = GPU_VENDOR_NVIDIA;
        g->source = xstrdup("nvidia-smi");
    }
}

static void detect_proc_nvidia(struct gpu_node *g)
{
    char *dir = root_path("/proc/driver/nvidia/gpus");
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.')
                g->count++;
        closedir(d);
    }
    free(dir);
    if (g->count > 0) {
        g->vendor = GPU_VENDOR_NVIDIA;
        g->source = xstrdup("/proc/driver/nvidia/gpus");
        char *ver = root_path("/proc/driver/nvidia/version");
        char *text = read_trimmed(ver);
        free(ver);
        if (text) {
            char *nl = strchr(text, '\n');
            if (nl)
                *nl = '\0';
            g->driver = text;
        }
    }
}

void gpu_detect(struct gpu_node *g)
{
    memset(g, 0, sizeof(*g));
    detect_kfd(g);
    const char *root = getenv("BENCHRUN_SYSFS_ROOT");
    bool fake = root && *root;     /* tests: only the fake tree counts */
    if (g->count == 0 && !fake)
        detect_rocminfo(g);
    if (g->count == 0 && !fake)
        detect_nvidia_smi(g);
    if (g->count == 0)
        detect_proc_nvidia(g);
}

void gpu_node_release(struct gpu_node *g)
{
    free(g->arch);
    free(g->name);
    free(g->driver);
    free(g->source);
    memset(g, 0, sizeof(*g));
}
