/* rpconst.c - constant fields are not counters (contract in rpconst.h).
 * Sources: rocprofiler-sdk counter_defs.yaml (CU_NUM, SE_NUM, SIMD_NUM,
 * MAX_WAVE_SIZE: expressions that are numbers; XCC_NUM, GRBM_COUNT_NUM on
 * other releases), Linux drivers/gpu/drm/amd/amdkfd/kfd_topology.c (the node
 * and cache properties it prints in sysfs). */
#include "read/rpconst.h"

#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const constant_fields[] = {
    /* rocprofiler-sdk constants */
    "CU_NUM", "SE_NUM", "SIMD_NUM", "XCC_NUM", "MAX_WAVE_SIZE", "GRBM_COUNT_NUM",
    /* KFD node properties */
    "cpu_cores_count", "simd_count", "mem_banks_count", "caches_count", "io_links_count",
    "p2p_links_count", "cpu_core_id_base", "simd_id_base", "max_waves_per_simd", "lds_size_in_kb",
    "gds_size_in_kb", "num_gws", "wave_front_size", "array_count", "simd_arrays_per_engine",
    "cu_per_simd_array", "simd_per_cu", "max_slots_scratch_cu", "gfx_target_version", "vendor_id",
    "device_id", "location_id", "domain", "drm_render_minor", "hive_id", "num_sdma_engines",
    "num_sdma_xgmi_engines", "num_sdma_queues_per_engine", "num_cp_queues",
    "max_engine_clk_fcompute", "max_engine_clk_ccompute", "local_mem_size", "fw_version",
    "sdma_fw_version", "capability", "debug_prop", "unique_id", "num_xcc",
    /* KFD cache properties */
    "processor_id_low", "cache_line_size", "cache_lines_per_tag", "association",
    NULL
};

bool rp_is_constant_field(const char *name)
{
    for (int i = 0; constant_fields[i]; i++)
        if (!strcasecmp(constant_fields[i], name))
            return true;
    return false;
}

void rp_pass_drop_constants(struct rp_pass *ps)
{
    uint32_t keep = 0, nc = ps->ncounters;
    for (uint32_t c = 0; c < nc; c++)
        if (rp_is_constant_field(ps->counters[c])) {
            ps->constants = xrealloc(ps->constants, (ps->nconstants + 2) * sizeof(char *));
            ps->constants[ps->nconstants++] = ps->counters[c];
            ps->constants[ps->nconstants] = NULL;
            ps->counters[c] = NULL;
        }
    if (!ps->nconstants)
        return;
    for (uint32_t k = 0; k < ps->nkernels; k++) {   /* compact each row's kept columns */
        uint32_t j = 0;
        for (uint32_t c = 0; c < nc; c++)
            if (ps->counters[c]) {
                ps->csum[(size_t)k * (nc - ps->nconstants) + j] = ps->csum[(size_t)k * nc + c];
                ps->crows[(size_t)k * (nc - ps->nconstants) + j] = ps->crows[(size_t)k * nc + c];
                j++;
            }
    }
    for (uint32_t c = 0; c < nc; c++)
        if (ps->counters[c])
            ps->counters[keep++] = ps->counters[c];
    ps->counters[keep] = NULL;
    ps->ncounters = keep;
}
