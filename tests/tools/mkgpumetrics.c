/* mkgpumetrics.c - writes the fake amdgpu sysfs trees of tests/fixtures/sysfs/.
 *
 *   mkgpumetrics OUTDIR     (OUTDIR/<case>/sys/...; the committed fixtures are
 *                            this tool's output, checked by tests/cli/0601)
 *
 * Each gpu_metrics blob is laid out with the byte offsets stated in
 * docs/design.md §11 (from the kernel's
 * kgd_pp_interface.h), written here as numbers, independently of the C
 * structs the decoder declares: a wrong struct in src/sample/gpu_metrics.c
 * fails the unit tests instead of agreeing with itself. Unfilled bytes are
 * 0xFF as the driver leaves them. v1.9 is a packed attribute list in the
 * order and types of smu_v13_0_6 (SMU_13_0_6_METRICS_FIELDS).
 *
 * Known values for revision r (4..9) of GPU g (0 or 1):
 *   hotspot 50+r C, mem 40+r C, socket power 300+r+g W,
 *   energy_accumulator 0x10000000 * (r+1) + g (2^-16 J units),
 *   system_clock_counter 1e12 + r ns, firmware_timestamp 5e9 + r (10 ns),
 *   current_gfxclk {2100, 2000, 1900, 1800, unset x4} MHz (mean 1950, max 2100),
 *   current_uclk 1300 MHz.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/xalloc.h"

struct layout {
    int rev;
    size_t size;
    size_t hotspot, mem, power, energy, sysclk, fwts, gfxclk, uclk;
};

/* Offsets from docs/design.md §11. */
static const struct layout layouts[] = {
    { 4, 288, 4, 6, 10, 24, 32, 232, 240, 280 },
    { 5, 360, 4, 6, 10, 88, 96, 304, 312, 352 },
    { 6, 1664, 4, 6, 10, 16, 24, 256, 264, 304 },
    { 7, 2208, 4, 6, 10, 24, 32, 288, 296, 336 },
    { 8, 3872, 4, 6, 10, 24, 32, 288, 296, 336 },
};

static const uint16_t gfxclk[8] = { 2100, 2000, 1900, 1800, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF };

static void put(unsigned char *b, size_t off, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        b[off + i] = (unsigned char)(v >> (8 * i));
}

static void mkdirs(const char *path)
{
    char *p = strdup(path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
    free(p);
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
    mkdirs(dir);
    char *path = xasprintf("%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
        fprintf(stderr, "mkgpumetrics: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    free(path);
}

static size_t fixed_blob(unsigned char *b, const struct layout *L, int g)
{
    memset(b, 0xFF, L->size);
    put(b, 0, L->size, 2);
    b[2] = 1;
    b[3] = (unsigned char)L->rev;
    put(b, L->hotspot, 50 + L->rev, 2);
    put(b, L->mem, 40 + L->rev, 2);
    put(b, L->power, 300 + L->rev + g, 2);
    put(b, L->energy, 0x10000000ULL * (L->rev + 1) + g, 8);
    put(b, L->sysclk, 1000000000000ULL + L->rev, 8);
    put(b, L->fwts, 5000000000ULL + L->rev, 8);
    for (int i = 0; i < 8; i++)
        put(b, L->gfxclk + 2 * i, gfxclk[i], 2);
    put(b, L->uclk, 1300, 2);
    return L->size;
}

/* v1.9 attribute: u64 (unit<<24 | type<<20 | id<<10 | n) then n values. */
static size_t attr(unsigned char *b, size_t pos, unsigned unit, unsigned type, unsigned id,
                   unsigned n, const uint64_t *vals)
{
    static const unsigned tsize[8] = { 1, 1, 2, 2, 4, 4, 8, 8 };
    put(b, pos, ((uint64_t)unit << 24) | ((uint64_t)type << 20) | ((uint64_t)id << 10) | n, 8);
    pos += 8;
    for (unsigned i = 0; i < n; i++, pos += tsize[type])
        put(b, pos, vals ? vals[i] : ~0ULL, tsize[type]);
    return pos;
}

enum { U16 = 2, U32 = 4, U64 = 6 };
enum { NONE = 0, CLOCK = 1, TEMP = 2, POWER = 3, TIME1 = 4, TIME2 = 5, BW = 8, PCT = 10 };

static size_t v19_blob(unsigned char *b, int g)
{
    uint64_t v[8];
    size_t pos = 8;
    int count = 0;
#define A(unit, type, id, n, ...)                                                  \
    do {                                                                           \
        const uint64_t init_[] = { __VA_ARGS__ };                                  \
        memcpy(v, init_, sizeof(init_));                                           \
        pos = attr(b, pos, unit, type, id, n, v);                                  \
        count++;                                                                   \
    } while (0)
    A(TEMP, U16, 0, 1, 59);                       /* TEMPERATURE_HOTSPOT */
    A(TEMP, U16, 1, 1, 49);                       /* TEMPERATURE_MEM */
    A(TEMP, U16, 2, 1, 45);                       /* TEMPERATURE_VRSOC */
    A(POWER, U16, 3, 1, 309 + (uint64_t)g);       /* CURR_SOCKET_POWER */
    A(PCT, U16, 4, 1, 97);                        /* AVERAGE_GFX_ACTIVITY */
    A(BW, U64, 6, 1, 5300);                       /* MEM_MAX_BANDWIDTH */
    A(NONE, U64, 7, 1, 0x10000000ULL * 10 + (uint64_t)g); /* ENERGY_ACCUMULATOR */
    A(TIME1, U64, 8, 1, 1000000000009ULL);        /* SYSTEM_CLOCK_COUNTER */
    A(NONE, U32, 9, 1, 77);                       /* ACCUMULATION_COUNTER */
    A(TIME2, U64, 32, 1, 5000000009ULL);          /* FIRMWARE_TIMESTAMP */
    A(CLOCK, U16, 33, 8, 2100, 2000, 1900, 1800, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF);
    A(CLOCK, U16, 34, 4, 100, 100, 100, 100);     /* CURRENT_SOCCLK */
    A(CLOCK, U16, 37, 1, 1300);                   /* CURRENT_UCLK */
    A(PCT, U32, 40, 8, 1, 2, 3, 4, 5, 6, 7, 8);   /* GFX_BUSY_INST */
#undef A
    put(b, 0, pos, 2);
    b[2] = 1;
    b[3] = 9;
    put(b, 4, (uint64_t)count, 4);
    return pos;
}

static void kfd_node(const char *root, int node, long simd, long minor, long loc)
{
    char text[512];
    char *dir = xasprintf("%s/sys/class/kfd/kfd/topology/nodes/%d", root, node);
    snprintf(text, sizeof(text),
             "cpu_cores_count %d\nsimd_count %ld\nmem_banks_count 1\ngfx_target_version %d\n"
             "location_id %ld\ndomain 0\ndrm_render_minor %ld\nnum_xcc %d\n",
             simd ? 0 : 96, simd, simd ? 90402 : 0, loc, minor, simd ? 8 : 0);
    write_file(dir, "properties", text, strlen(text));
    free(dir);
}

static char *device_dir(const char *root, long minor)
{
    return xasprintf("%s/sys/class/drm/renderD%ld/device", root, minor);
}

static void hwmon(const char *devdir)
{
    char *dir = xasprintf("%s/hwmon/hwmon3", devdir);
    const char *files[][2] = { { "power1_input", "345000000\n" }, { "freq1_input", "2100000000\n" },
                               { "freq2_input", "1300000000\n" }, { "temp2_input", "56000\n" },
                               { "temp3_input", "47000\n" } };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        write_file(dir, files[i][0], files[i][1], strlen(files[i][1]));
    free(dir);
}

/* A tree with GPUs at KFD nodes 1 (renderD128) and 2 (renderD136), CPU node 0. */
static void tree(const char *out, const char *name, int rev, int mode)
{
    static unsigned char b[8192];
    char *root = xasprintf("%s/%s", out, name);
    kfd_node(root, 0, 0, 0, 0);
    for (int g = 0; g < 2; g++) {
        long minor = g ? 136 : 128, loc = g ? 0x2600 : 0x0500;
        kfd_node(root, g + 1, 1216, minor, loc);
        char *dev = device_dir(root, minor);
        write_file(dev, "vendor", "0x1002\n", 7);
        size_t len = 0;
        if (mode == 1) { /* hwmon only */
            hwmon(dev);
            free(dev);
            continue;
        }
        if (rev == 9)
            len = v19_blob(b, g);
        else if (rev >= 4)
            len = fixed_blob(b, &layouts[rev - 4], g);
        if (mode == 2) /* short: a v1.8 table cut after 100 bytes */
            len = 100;
        if (mode == 3) { /* unknown revision: a v1.3 (RDNA) header */
            memset(b, 0, 120);
            put(b, 0, 120, 2);
            b[2] = 1;
            b[3] = 3;
            len = 120;
        }
        write_file(dev, "gpu_metrics", b, len);
        hwmon(dev);
        free(dev);
    }
    free(root);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkgpumetrics OUTDIR\n");
        return 2;
    }
    char name[32];
    for (int rev = 4; rev <= 9; rev++) {
        snprintf(name, sizeof(name), "v1_%d", rev);
        tree(argv[1], name, rev, 0);
    }
    tree(argv[1], "hwmon", 0, 1);
    tree(argv[1], "short", 8, 2);
    tree(argv[1], "unknown", 0, 3);
    return 0;
}
