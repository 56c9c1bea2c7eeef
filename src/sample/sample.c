/* sample.c - the backend table, backend lookup and small helpers shared by backends.
 *
 * Owns: br_sampler_backends[] (explicit const table, #if rows: static
 * libraries drop objects nothing references, so no constructor registration),
 * auto-detection, the sysfs root used by tests (BENCHRUN_SYSFS_ROOT) and the
 * parser of visible-device lists (ROCR_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES).
 */
#include "sample/sample.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct br_sampler_ops *const br_sampler_backends[] = {
    &br_sampler_amdgpu,
#ifdef BENCHRUN_HAVE_AMDSMI
    &br_sampler_amdsmi,
#endif
    &br_sampler_nvml,
    &br_sampler_sim, /* tests only: never chosen automatically */
    NULL,
};

void br_sample_clear(struct br_sample *s)
{
    s->t_ns = 0;
    s->socket_power_W = s->energy_J = NAN;
    s->energy_time_ns = -1;
    s->gfx_clock_MHz = s->gfx_clock_max_MHz = s->mem_clock_MHz = NAN;
    s->edge_temp_C = s->hotspot_temp_C = s->mem_temp_C = NAN;
    s->source_time_ns = -1;
    s->source_seq = 0;
}

void br_dev_info_release(struct br_dev_info *info)
{
    free(info->source);
    free(info->pci_bus_id);
    free(info->detail);
    free(info->driver_power_path);
    memset(info, 0, sizeof(*info));
}

const struct br_sampler_ops *br_sampler_find(const char *name)
{
    for (size_t i = 0; br_sampler_backends[i]; i++)
        if (strcmp(br_sampler_backends[i]->name, name) == 0)
            return br_sampler_backends[i];
    return NULL;
}

const struct br_sampler_ops *br_sampler_auto(void)
{
    struct strbuf why;
    sb_init(&why);
    for (size_t i = 0; br_sampler_backends[i]; i++) {
        const struct br_sampler_ops *ops = br_sampler_backends[i];
        if (ops == &br_sampler_sim)
            continue;
        char *reason = NULL;
        if (ops->probe(&reason) == 0) {
            free(reason);
            sb_release(&why);
            return ops;
        }
        sb_addf(&why, "; %s: %s", ops->name, reason ? reason : "unavailable");
        free(reason);
    }
    br_error("sample: no telemetry backend works on this machine%s", why.buf);
    sb_release(&why);
    return NULL;
}

char *br_sysfs_path(const char *path)
{
    const char *root = getenv("BENCHRUN_SYSFS_ROOT");
    if (!root || !*root)
        return xstrdup(path);
    return xasprintf("%s%s", root, path);
}

int br_parse_index_list(const char *s, int **out)
{
    int *v = NULL;
    size_t n = 0, cap = 0;
    const char *p = s;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char *item = xstrndup(p, len), *end;
        errno = 0;
        long x = strtol(item, &end, 10);
        bool ok = len > 0 && !errno && *end == '\0' && x >= 0 && x < 1000000;
        free(item);
        xgrow((void **)&v, &cap, n + 1, sizeof(*v));
        v[n++] = ok ? (int)x : -1;
        p += len + (comma ? 1 : 0);
        if (comma && !*p) { /* trailing comma */
            free(v);
            return -1;
        }
    }
    *out = v;
    return (int)n;
}
