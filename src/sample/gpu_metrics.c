/* gpu_metrics.c - decode amdgpu gpu_metrics v1.4-v1.9 (MI300X, smu_v13_0_6).
 *
 * Owns: the C mirrors of the kernel's struct gpu_metrics_v1_4 ... v1_8, their
 * offsets (checked at compile time against the byte offsets in
 * docs/design.md §11), and the v1.9 attribute walker.
 *
 * Facts (Linux drivers/gpu/drm/amd/include/kgd_pp_interface.h, kernels
 * 6.7-6.19; smu_cmn.h DECLARE_SMU_METRICS_CLASS for v1.9; smu_v13_0_6_ppt.c):
 *  - header {u16 structure_size; u8 format_revision; u8 content_revision};
 *  - the layouts are natural-alignment C structs (no packing) up to v1.8;
 *  - v1.9 is `struct __packed { header; int attr_count; then per attribute a
 *    u64 encoding (unit<<24 | type<<20 | id<<10 | instances) followed by
 *    `instances` values of that type }`;
 *  - unfilled fields are all-ones (smu_cmn_init_soft_gpu_metrics memset 0xFF);
 *  - temperatures in C, curr_socket_power in W, energy_accumulator in 2^-16 J,
 *    system_clock_counter in ns of ktime_get_boottime_ns(), firmware_timestamp
 *    in 10 ns ticks, clocks in MHz, current_gfxclk[] one per logical XCC.
 *
 * gfx clock: the mean over the XCCs that report one (all-ones entries are
 * unused XCCs in partition modes). A kernel spread over all XCCs advances at
 * their mean clock, which is what cycles = time x clock needs (docs/design.md §7);
 * the max is also returned (one fast XCC overstates a throttled socket).
 * Little-endian hosts only (x86-64, aarch64), like the kernel ABI it mirrors.
 */
#include "sample/gpu_metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define NUM_VCN 4
#define NUM_JPEG_ENG 32
#define NUM_JPEG_ENG_V1 40
#define NUM_XGMI_LINKS 8
#define MAX_GFX_CLKS 8
#define MAX_CLKS 4
#define MAX_XCC 8
#define NUM_XCP 8

struct mt_header {
    uint16_t structure_size;
    uint8_t format_revision;
    uint8_t content_revision;
};

struct gm_v1_4 {
    struct mt_header hdr;
    uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
    uint16_t curr_socket_power;
    uint16_t average_gfx_activity, average_umc_activity;
    uint16_t vcn_activity[NUM_VCN];
    uint64_t energy_accumulator;
    uint64_t system_clock_counter;
    uint32_t throttle_status, gfxclk_lock_status;
    uint16_t pcie_link_width, pcie_link_speed, xgmi_link_width, xgmi_link_speed;
    uint32_t gfx_activity_acc, mem_activity_acc;
    uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst, pcie_l0_to_recov_count_acc;
    uint64_t pcie_replay_count_acc, pcie_replay_rover_count_acc;
    uint64_t xgmi_read_data_acc[NUM_XGMI_LINKS], xgmi_write_data_acc[NUM_XGMI_LINKS];
    uint64_t firmware_timestamp;
    uint16_t current_gfxclk[MAX_GFX_CLKS];
    uint16_t current_socclk[MAX_CLKS], current_vclk0[MAX_CLKS], current_dclk0[MAX_CLKS];
    uint16_t current_uclk;
    uint16_t padding;
};

struct gm_v1_5 {
    struct mt_header hdr;
    uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
    uint16_t curr_socket_power;
    uint16_t average_gfx_activity, average_umc_activity;
    uint16_t vcn_activity[NUM_VCN];
    uint16_t jpeg_activity[NUM_JPEG_ENG];
    uint64_t energy_accumulator;
    uint64_t system_clock_counter;
    uint32_t throttle_status, gfxclk_lock_status;
    uint16_t pcie_link_width, pcie_link_speed, xgmi_link_width, xgmi_link_speed;
    uint32_t gfx_activity_acc, mem_activity_acc;
    uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst, pcie_l0_to_recov_count_acc;
    uint64_t pcie_replay_count_acc, pcie_replay_rover_count_acc;
    uint32_t pcie_nak_sent_count_acc, pcie_nak_rcvd_count_acc;
    uint64_t xgmi_read_data_acc[NUM_XGMI_LINKS], xgmi_write_data_acc[NUM_XGMI_LINKS];
    uint64_t firmware_timestamp;
    uint16_t current_gfxclk[MAX_GFX_CLKS];
    uint16_t current_socclk[MAX_CLKS], current_vclk0[MAX_CLKS], current_dclk0[MAX_CLKS];
    uint16_t current_uclk;
    uint16_t padding;
};

struct xcp_v1_0 {
    uint32_t gfx_busy_inst[MAX_XCC];
    uint16_t jpeg_busy[NUM_JPEG_ENG];
    uint16_t vcn_busy[NUM_VCN];
    uint64_t gfx_busy_acc[MAX_XCC];
};

struct xcp_v1_1 {
    uint32_t gfx_busy_inst[MAX_XCC];
    uint16_t jpeg_busy[NUM_JPEG_ENG];
    uint16_t vcn_busy[NUM_VCN];
    uint64_t gfx_busy_acc[MAX_XCC];
    uint64_t gfx_below_host_limit_acc[MAX_XCC];
};

struct xcp_v1_2 {
    uint32_t gfx_busy_inst[MAX_XCC];
    uint16_t jpeg_busy[NUM_JPEG_ENG_V1];
    uint16_t vcn_busy[NUM_VCN];
    uint64_t gfx_busy_acc[MAX_XCC];
    uint64_t gfx_below_host_limit_ppt_acc[MAX_XCC];
    uint64_t gfx_below_host_limit_thm_acc[MAX_XCC];
    uint64_t gfx_low_utilization_acc[MAX_XCC];
    uint64_t gfx_below_host_limit_total_acc[MAX_XCC];
};

/* v1.6 begins its 64-bit part right after the six u16 at offset 4. */
#define GM_V16_BODY(XCP_T, EXTRA_AFTER_UMC, EXTRA_AFTER_XGMI)                       \
    struct mt_header hdr;                                                           \
    uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;               \
    uint16_t curr_socket_power;                                                     \
    uint16_t average_gfx_activity, average_umc_activity;                            \
    EXTRA_AFTER_UMC                                                                 \
    uint64_t energy_accumulator;                                                    \
    uint64_t system_clock_counter;                                                  \
    uint32_t accumulation_counter, prochot_residency_acc, ppt_residency_acc;        \
    uint32_t socket_thm_residency_acc, vr_thm_residency_acc, hbm_thm_residency_acc; \
    uint32_t gfxclk_lock_status;                                                    \
    uint16_t pcie_link_width, pcie_link_speed, xgmi_link_width, xgmi_link_speed;    \
    uint32_t gfx_activity_acc, mem_activity_acc;                                    \
    uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst, pcie_l0_to_recov_count_acc;   \
    uint64_t pcie_replay_count_acc, pcie_replay_rover_count_acc;                    \
    uint32_t pcie_nak_sent_count_acc, pcie_nak_rcvd_count_acc;                      \
    uint64_t xgmi_read_data_acc[NUM_XGMI_LINKS], xgmi_write_data_acc[NUM_XGMI_LINKS]; \
    EXTRA_AFTER_XGMI                                                                \
    uint64_t firmware_timestamp;                                                    \
    uint16_t current_gfxclk[MAX_GFX_CLKS];                                          \
    uint16_t current_socclk[MAX_CLKS], current_vclk0[MAX_CLKS], current_dclk0[MAX_CLKS]; \
    uint16_t current_uclk;                                                          \
    uint16_t num_partition;                                                         \
    XCP_T xcp_stats[NUM_XCP];                                                       \
    uint32_t pcie_lc_perf_other_end_recovery;

#define GM_NOTHING
#define GM_MEM_MAX_BW uint64_t mem_max_bandwidth;
#define GM_XGMI_STATUS uint16_t xgmi_link_status[NUM_XGMI_LINKS]; uint16_t padding;

struct gm_v1_6 { GM_V16_BODY(struct xcp_v1_0, GM_NOTHING, GM_NOTHING) };
struct gm_v1_7 { GM_V16_BODY(struct xcp_v1_1, GM_MEM_MAX_BW, GM_XGMI_STATUS) };
struct gm_v1_8 { GM_V16_BODY(struct xcp_v1_2, GM_MEM_MAX_BW, GM_XGMI_STATUS) };

/* Offsets and sizes from docs/design.md §11. */
#define OFF(T, F, N) _Static_assert(offsetof(struct T, F) == (N), #T "." #F " offset")
OFF(gm_v1_4, curr_socket_power, 10);
OFF(gm_v1_4, energy_accumulator, 24);
OFF(gm_v1_4, system_clock_counter, 32);
OFF(gm_v1_4, firmware_timestamp, 232);
OFF(gm_v1_4, current_gfxclk, 240);
OFF(gm_v1_4, current_uclk, 280);
_Static_assert(sizeof(struct gm_v1_4) == 288, "v1.4 size");
OFF(gm_v1_5, temperature_hotspot, 4);
OFF(gm_v1_5, temperature_mem, 6);
OFF(gm_v1_5, curr_socket_power, 10);
OFF(gm_v1_5, energy_accumulator, 88);
OFF(gm_v1_5, system_clock_counter, 96);
OFF(gm_v1_5, throttle_status, 104);
OFF(gm_v1_5, firmware_timestamp, 304);
OFF(gm_v1_5, current_gfxclk, 312);
OFF(gm_v1_5, current_uclk, 352);
_Static_assert(sizeof(struct gm_v1_5) == 360, "v1.5 size");
_Static_assert(sizeof(struct xcp_v1_0) == 168, "xcp v1.0 size");
_Static_assert(sizeof(struct xcp_v1_1) == 232, "xcp v1.1 size");
_Static_assert(sizeof(struct xcp_v1_2) == 440, "xcp v1.2 size");
OFF(gm_v1_6, energy_accumulator, 16);
OFF(gm_v1_6, system_clock_counter, 24);
OFF(gm_v1_6, accumulation_counter, 32);
OFF(gm_v1_6, gfxclk_lock_status, 56);
OFF(gm_v1_6, firmware_timestamp, 256);
OFF(gm_v1_6, current_gfxclk, 264);
OFF(gm_v1_6, current_uclk, 304);
OFF(gm_v1_6, num_partition, 306);
OFF(gm_v1_6, xcp_stats, 312);
_Static_assert(sizeof(struct gm_v1_6) == 1664, "v1.6 size");
OFF(gm_v1_7, energy_accumulator, 24);
OFF(gm_v1_7, system_clock_counter, 32);
OFF(gm_v1_7, accumulation_counter, 40);
OFF(gm_v1_7, ppt_residency_acc, 48);
OFF(gm_v1_7, firmware_timestamp, 288);
OFF(gm_v1_7, current_gfxclk, 296);
OFF(gm_v1_7, current_uclk, 336);
OFF(gm_v1_7, num_partition, 338);
OFF(gm_v1_7, xcp_stats, 344);
_Static_assert(sizeof(struct gm_v1_7) == 2208, "v1.7 size");
OFF(gm_v1_8, firmware_timestamp, 288);
OFF(gm_v1_8, current_gfxclk, 296);
OFF(gm_v1_8, xcp_stats, 344);
_Static_assert(sizeof(struct gm_v1_8) == 3872, "v1.8 size");

/* v1.9 attribute ids, types and units (enum amdgpu_metrics_attr_*). */
enum { A_HOTSPOT = 0, A_MEM = 1, A_SOCKET_POWER = 3, A_ENERGY = 7, A_SYSCLOCK = 8,
       A_FW_TS = 32, A_GFXCLK = 33, A_UCLK = 37 };
enum { U_NONE, U_CLOCK_1, U_TEMP_1, U_POWER_1, U_TIME_1, U_TIME_2 };
static const unsigned type_size[8] = { 1, 1, 2, 2, 4, 4, 8, 8 };

static _Thread_local char g_msg[160];

static const char *fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof(g_msg), fmt, ap);
    va_end(ap);
    return g_msg;
}

static double u16_or_nan(uint16_t v)
{
    return v == UINT16_MAX ? NAN : (double)v;
}

static void set_u64(bool *has, uint64_t *dst, uint64_t v, uint64_t scale)
{
    *has = v != UINT64_MAX;
    *dst = *has ? v * scale : 0;
}

/* Folds one XCC clock into the running mean/max. */
static void add_gfxclk(struct br_gpu_metrics *m, uint64_t mhz)
{
    if (mhz == UINT16_MAX || mhz == UINT32_MAX || mhz == UINT64_MAX)
        return;
    double v = (double)mhz;
    double sum = m->n_gfxclk ? m->gfxclk_mean_MHz * m->n_gfxclk : 0.0;
    m->n_gfxclk++;
    m->gfxclk_mean_MHz = (sum + v) / m->n_gfxclk;
    if (isnan(m->gfxclk_max_MHz) || v > m->gfxclk_max_MHz)
        m->gfxclk_max_MHz = v;
}

static void init_out(struct br_gpu_metrics *m, const struct mt_header *h)
{
    memset(m, 0, sizeof(*m));
    m->format_rev = h->format_revision;
    m->content_rev = h->content_revision;
    m->structure_size = h->structure_size;
    m->hotspot_temp_C = m->mem_temp_C = m->socket_power_W = NAN;
    m->gfxclk_mean_MHz = m->gfxclk_max_MHz = m->uclk_MHz = NAN;
}

/* The fields every fixed layout shares, by name. */
#define DECODE_FIXED(M, T)                                                      \
    do {                                                                        \
        (M)->hotspot_temp_C = u16_or_nan((T)->temperature_hotspot);             \
        (M)->mem_temp_C = u16_or_nan((T)->temperature_mem);                     \
        (M)->socket_power_W = u16_or_nan((T)->curr_socket_power);               \
        set_u64(&(M)->has_energy, &(M)->energy_acc, (T)->energy_accumulator, 1); \
        set_u64(&(M)->has_system_clock, &(M)->system_clock_ns,                  \
                (T)->system_clock_counter, 1);                                  \
        set_u64(&(M)->has_firmware_ts, &(M)->firmware_ts_ns,                    \
                (T)->firmware_timestamp, 10);                                   \
        for (int i_ = 0; i_ < MAX_GFX_CLKS; i_++)                               \
            add_gfxclk((M), (T)->current_gfxclk[i_]);                           \
        (M)->uclk_MHz = u16_or_nan((T)->current_uclk);                          \
    } while (0)

size_t br_gpu_metrics_fixed_size(unsigned format_rev, unsigned content_rev)
{
    if (format_rev != 1)
        return 0;
    switch (content_rev) {
    case 4: return sizeof(struct gm_v1_4);
    case 5: return sizeof(struct gm_v1_5);
    case 6: return sizeof(struct gm_v1_6);
    case 7: return sizeof(struct gm_v1_7);
    case 8: return sizeof(struct gm_v1_8);
    default: return 0;
    }
}

static const char *decode_fixed(const void *buf, size_t len, struct br_gpu_metrics *m)
{
    size_t need = br_gpu_metrics_fixed_size(m->format_rev, m->content_rev);
    if (m->structure_size != need)
        return fail("header says %lu bytes, gpu_metrics v1.x of this revision has %lu",
                    (unsigned long)m->structure_size, (unsigned long)need);
    if (len < need)
        return fail("short file: %lu bytes, the table needs %lu", (unsigned long)len,
                    (unsigned long)need);
    union {
        struct gm_v1_4 v4; struct gm_v1_5 v5; struct gm_v1_6 v6;
        struct gm_v1_7 v7; struct gm_v1_8 v8;
    } u;
    memcpy(&u, buf, need); /* aligned copy: the caller's buffer may not be */
    switch (m->content_rev) {
    case 4: DECODE_FIXED(m, &u.v4); break;
    case 5: DECODE_FIXED(m, &u.v5); break;
    case 6: DECODE_FIXED(m, &u.v6); break;
    case 7: DECODE_FIXED(m, &u.v7); break;
    default: DECODE_FIXED(m, &u.v8); break;
    }
    return NULL;
}

static uint64_t load_le(const unsigned char *p, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* All-ones in the attribute's own width means "not filled". */
static bool is_unset(uint64_t v, unsigned size)
{
    return size == 8 ? v == UINT64_MAX : v == (UINT64_C(1) << (8 * size)) - 1;
}

static uint64_t time_scale(unsigned unit)
{
    return unit == U_TIME_2 ? 10 : 1;
}

/* One attribute's values at p (count of them, each size bytes). */
static void take_attr(struct br_gpu_metrics *m, unsigned id, unsigned unit,
                      const unsigned char *p, unsigned size, unsigned count)
{
    if (count == 0)
        return; /* no values: nothing to load (found by fuzz_gpu_metrics) */
    uint64_t v0 = load_le(p, size);
    bool set0 = !is_unset(v0, size);
    switch (id) {
    case A_HOTSPOT: if (set0) m->hotspot_temp_C = (double)v0; break;
    case A_MEM: if (set0) m->mem_temp_C = (double)v0; break;
    case A_SOCKET_POWER: if (set0) m->socket_power_W = (double)v0; break;
    case A_UCLK: if (set0) m->uclk_MHz = (double)v0; break;
    case A_ENERGY: m->has_energy = set0; m->energy_acc = set0 ? v0 : 0; break;
    case A_SYSCLOCK:
        m->has_system_clock = set0;
        m->system_clock_ns = set0 ? v0 * time_scale(unit) : 0;
        break;
    case A_FW_TS:
        m->has_firmware_ts = set0;
        m->firmware_ts_ns = set0 ? v0 * time_scale(unit) : 0;
        break;
    case A_GFXCLK:
        for (unsigned i = 0; i < count; i++) {
            uint64_t v = load_le(p + (size_t)i * size, size);
            if (!is_unset(v, size))
                add_gfxclk(m, v);
        }
        break;
    default: break;
    }
}

static const char *decode_v19(const unsigned char *b, size_t len, struct br_gpu_metrics *m)
{
    if (len < 8)
        return fail("short file: %lu bytes, gpu_metrics v1.9 needs at least 8",
                    (unsigned long)len);
    if (m->structure_size > len)
        return fail("short file: %lu bytes, header says %lu", (unsigned long)len,
                    (unsigned long)m->structure_size);
    size_t end = m->structure_size >= 8 ? m->structure_size : len;
    int32_t count = (int32_t)load_le(b + 4, 4);
    if (count < 0 || (size_t)count > (end - 8) / 8)
        return fail("gpu_metrics v1.9: attribute count %ld does not fit in %lu bytes",
                    (long)count, (unsigned long)end);
    size_t pos = 8;
    for (int32_t i = 0; i < count; i++) {
        if (end - pos < 8)
            return fail("gpu_metrics v1.9: attribute %ld truncated at byte %lu", (long)i,
                        (unsigned long)pos);
        uint64_t enc = load_le(b + pos, 8);
        pos += 8;
        unsigned type = (enc >> 20) & 0xF, id = (enc >> 10) & 0x3FF;
        unsigned unit = (enc >> 24) & 0xFF, inst = enc & 0x3FF;
        if (type >= 8)
            return fail("gpu_metrics v1.9: attribute %ld has unknown value type %u", (long)i,
                        type);
        size_t bytes = (size_t)type_size[type] * inst;
        if (end - pos < bytes)
            return fail("gpu_metrics v1.9: values of attribute %ld run past byte %lu",
                        (long)i, (unsigned long)end);
        take_attr(m, id, unit, b + pos, type_size[type], inst);
        pos += bytes;
    }
    return NULL;
}

const char *br_gpu_metrics_decode(const void *buf, size_t len, struct br_gpu_metrics *out)
{
    struct mt_header h;
    if (len < sizeof(h))
        return fail("short file: %lu bytes, the header needs %lu", (unsigned long)len,
                    (unsigned long)sizeof(h));
    memcpy(&h, buf, sizeof(h));
    init_out(out, &h);
    if (h.format_revision == 1 && h.content_revision >= 4 && h.content_revision <= 8)
        return decode_fixed(buf, len, out);
    if (h.format_revision == 1 && h.content_revision == 9)
        return decode_v19(buf, len, out);
    return fail("unknown gpu_metrics revision %u.%u (benchrun reads 1.4 to 1.9)",
                (unsigned)h.format_revision, (unsigned)h.content_revision);
}
