/* telemetry.c - the telemetry schema's table and file names (telemetry.h). */
#include "model/telemetry.h"

#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

const struct telem_col_info telem_cols[TELEM_NCOLS] = {
    [TELEM_SOCKET_POWER] = { "current_socket_power_W", 3 },
    [TELEM_INST_POWER] = { "inst_power_W", 3 },
    [TELEM_GFX_CLOCK] = { "gfx_clock_MHz", 1 },
    [TELEM_EDGE_TEMP] = { "edge_temp_C", 2 },
    [TELEM_HOTSPOT_TEMP] = { "hotspot_temp_C", 2 },
    [TELEM_ENERGY] = { "energy_J", 6 },
    [TELEM_MEM_CLOCK] = { "mem_clock_MHz", 1 },
    [TELEM_SOURCE_TIMESTAMP] = { "source_timestamp_ns", TELEM_INTEGER },
    [TELEM_REFRESHED] = { "refreshed", TELEM_INTEGER },
    [TELEM_MEM_TEMP] = { "mem_temp_C", 2 },
    [TELEM_GFX_CLOCK_MAX] = { "gfx_clock_max_MHz", 1 },
};

const char *telem_header(void)
{
    static char *header;        /* built once from the table */
    if (!header) {
        struct strbuf sb;
        sb_init(&sb);
        sb_adds(&sb, TELEM_TIMESTAMP_COL);
        for (int c = 0; c < TELEM_NCOLS; c++)
            sb_addf(&sb, ",%s", telem_cols[c].name);
        header = sb_detach(&sb);
    }
    return header;
}

char *telem_file_stem(const char *prefix, const char *node, int gpu)
{
    if (node)
        return xasprintf(TELEM_FILE_PREFIX "%s_%s_%d", prefix, node, gpu);
    return xasprintf(TELEM_FILE_PREFIX "%s_%d", prefix, gpu);
}

bool telem_is_sample_file(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return strncmp(base, TELEM_FILE_PREFIX, strlen(TELEM_FILE_PREFIX)) == 0 &&
           fs_ends_with(base, ".csv") && !fs_ends_with(base, TELEM_DRIVER_SUFFIX);
}

void telem_file_release(struct telem_file *f)
{
    free(f->path);
    free(f->name);
    free(f->node);
    free(f->kernel_clock);
    series_grow_release(&f->strip);
    free(f->power_x);
    free(f->power_y);
    free(f->clock_x);
    free(f->clock_y);
    memset(f, 0, sizeof(*f));
}

void telem_run_release(struct telem_run *r)
{
    for (size_t i = 0; i < r->n; i++)
        telem_file_release(&r->f[i]);
    free(r->f);
    memset(r, 0, sizeof(*r));
}
