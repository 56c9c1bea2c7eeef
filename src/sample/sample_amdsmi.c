/* sample_amdsmi.c - power/clocks/temps through ROCm's amd-smi library (AMD, optional).
 *
 * Built only when src/sample/amdsmi.cmake found amd_smi/amdsmi.h
 * (BENCHRUN_HAVE_AMDSMI); otherwise this file is empty. Same columns as the
 * amdgpu backend, from amdsmi_get_gpu_metrics_info (amdsmi_gpu_metrics_t, a
 * union of every gpu_metrics version; unsupported fields are UINTn_MAX):
 * current_socket_power (W), energy_accumulator (2^-16 J on MI300X; amd-smi
 * states 15.3 uJ, the exact unit is 15.2587890625 uJ), current_gfxclks[]
 * (mean over the XCCs that report one, as in sample_amdgpu.c), current_uclk,
 * temperature_hotspot / _mem / _edge (C), system_clock_counter (boottime ns),
 * firmware_timestamp. Facts: ROCm amdsmi.h 6.3 / 7.x, docs/design.md §11.
 *
 * Device numbering: amd-smi ignores ROCR/HIP_VISIBLE_DEVICES and has its own
 * order, so GPU `index` is first mapped like the amdgpu backend (KFD topology,
 * then ROCR_ and HIP_VISIBLE_DEVICES) to a PCI address, then matched against
 * amdsmi_get_gpu_device_bdf of every processor.
 * Each amd-smi metrics call reads sysfs twice and builds a map: this backend
 * costs more CPU per sample than amdgpu; prefer amdgpu where both work.
 */
#ifdef BENCHRUN_HAVE_AMDSMI
#include "sample/gpu_metrics.h"
#include "sample/sample.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <amd_smi/amdsmi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct br_sampler_dev {
    amdsmi_processor_handle h;
};

static int g_refs;

static int smi_acquire(char **why)
{
    if (g_refs == 0) {
        amdsmi_status_t rc = amdsmi_init(AMDSMI_INIT_AMD_GPUS);
        if (rc != AMDSMI_STATUS_SUCCESS) {
            *why = xasprintf("amdsmi_init failed (status %d)", (int)rc);
            return -1;
        }
    }
    g_refs++;
    return 0;
}

static void smi_release(void)
{
    if (g_refs > 0 && --g_refs == 0)
        amdsmi_shut_down();
}

static int smi_probe(char **why)
{
    if (smi_acquire(why) != 0)
        return -1;
    uint32_t n = 0;
    amdsmi_status_t rc = amdsmi_get_socket_handles(&n, NULL);
    smi_release();
    if (rc != AMDSMI_STATUS_SUCCESS || n == 0) {
        *why = xstrdup("amd-smi sees no AMD GPU");
        return -1;
    }
    return 0;
}

/* The processor whose PCI address is pci; NULL if none. */
static amdsmi_processor_handle find_by_pci(const char *pci)
{
    uint32_t ns = 0;
    if (amdsmi_get_socket_handles(&ns, NULL) != AMDSMI_STATUS_SUCCESS || ns == 0)
        return NULL;
    amdsmi_socket_handle *s = xcalloc(ns, sizeof(*s));
    amdsmi_processor_handle found = NULL;
    amdsmi_get_socket_handles(&ns, s);
    for (uint32_t i = 0; i < ns && !found; i++) {
        uint32_t np = 0;
        if (amdsmi_get_processor_handles(s[i], &np, NULL) != AMDSMI_STATUS_SUCCESS || !np)
            continue;
        amdsmi_processor_handle *p = xcalloc(np, sizeof(*p));
        amdsmi_get_processor_handles(s[i], &np, p);
        for (uint32_t j = 0; j < np && !found; j++) {
            amdsmi_bdf_t b;
            char text[32];
            if (amdsmi_get_gpu_device_bdf(p[j], &b) != AMDSMI_STATUS_SUCCESS)
                continue;
            snprintf(text, sizeof(text), "%04llx:%02x:%02x.%x",
                     (unsigned long long)b.domain_number, (unsigned)b.bus_number,
                     (unsigned)b.device_number, (unsigned)b.function_number);
            if (strcmp(text, pci) == 0)
                found = p[j];
        }
        free(p);
    }
    free(s);
    return found;
}

static struct br_sampler_dev *smi_open(int index, const struct br_open_opts *opts,
                                       struct br_dev_info *info)
{
    (void)opts;
    char *why = NULL, *pci = br_amdgpu_pci_of(index);
    if (!pci)
        return NULL;
    if (smi_acquire(&why) != 0) {
        br_error("sample: amdsmi: %s", why);
        free(why);
        free(pci);
        return NULL;
    }
    amdsmi_processor_handle h = find_by_pci(pci);
    if (!h) {
        br_error("sample: amdsmi: no processor at PCI address %s (GPU %d)", pci, index);
        free(pci);
        smi_release();
        return NULL;
    }
    struct br_sampler_dev *d = xcalloc(1, sizeof(*d));
    d->h = h;
    info->pci_bus_id = pci;
    info->source = xstrdup("amdsmi_get_gpu_metrics_info");
    info->detail = xstrdup("amd-smi");
    info->gfx_clock = "mean_over_xcc";
    info->caps = BR_CAP_SOCKET_POWER | BR_CAP_ENERGY | BR_CAP_GFX_CLOCK | BR_CAP_MEM_CLOCK |
                 BR_CAP_HOTSPOT_TEMP | BR_CAP_MEM_TEMP | BR_CAP_EDGE_TEMP | BR_CAP_SOURCE_TIME;
    info->energy_resolution_J = BR_GPU_METRICS_ENERGY_UNIT_J;
    return d;
}

static double u16v(uint16_t v)
{
    return v == UINT16_MAX ? NAN : (double)v;
}

static int smi_read(struct br_sampler_dev *d, struct br_sample *s)
{
    amdsmi_gpu_metrics_t m;
    amdsmi_status_t rc = amdsmi_get_gpu_metrics_info(d->h, &m);
    if (rc != AMDSMI_STATUS_SUCCESS)
        return br_error("sample: amdsmi_get_gpu_metrics_info failed (status %d)", (int)rc);
    s->socket_power_W = u16v(m.current_socket_power);
    s->hotspot_temp_C = u16v(m.temperature_hotspot);
    s->mem_temp_C = u16v(m.temperature_mem);
    s->edge_temp_C = u16v(m.temperature_edge);
    s->mem_clock_MHz = u16v(m.current_uclk);
    double sum = 0, max = NAN;
    int n = 0;
    for (size_t i = 0; i < sizeof(m.current_gfxclks) / sizeof(m.current_gfxclks[0]); i++) {
        if (m.current_gfxclks[i] == UINT16_MAX)
            continue;
        sum += m.current_gfxclks[i];
        max = (n++ == 0 || m.current_gfxclks[i] > max) ? m.current_gfxclks[i] : max;
    }
    s->gfx_clock_MHz = n ? sum / n : NAN;
    s->gfx_clock_max_MHz = max;
    if (m.energy_accumulator != UINT64_MAX) {
        s->energy_J = (double)m.energy_accumulator * BR_GPU_METRICS_ENERGY_UNIT_J;
        /* amd-smi returns firmware_timestamp in ns (notes): the energy time base */
        s->energy_time_ns = m.firmware_timestamp != UINT64_MAX ? (int64_t)m.firmware_timestamp
                          : m.system_clock_counter != UINT64_MAX
                          ? (int64_t)m.system_clock_counter : -1;
    }
    if (m.system_clock_counter != UINT64_MAX)
        s->source_time_ns = (int64_t)m.system_clock_counter;
    s->source_seq = m.firmware_timestamp != UINT64_MAX ? m.firmware_timestamp + 1 : 0;
    return 0;
}

static void smi_close(struct br_sampler_dev *d)
{
    free(d);
    smi_release();
}

const struct br_sampler_ops br_sampler_amdsmi = {
    .name = "amdsmi",
    .probe = smi_probe,
    .open = smi_open,
    .read = smi_read,
    .finish = NULL,
    .close = smi_close,
};
#else
/* ISO C forbids an empty translation unit. */
typedef int br_sample_amdsmi_not_built;
#endif
