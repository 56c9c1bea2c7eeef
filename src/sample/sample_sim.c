/* sample_sim.c - deterministic synthetic telemetry, for tests only.
 *
 * Owns nothing on the machine: every value is a function of the GPU index and
 * of how many reads the device has served (k = 0, 1, 2 ...), never of the wall
 * clock, so tests know the answers. The loop writes backend=sim into every
 * file's metadata line; never use these numbers as measurements.
 *
 * Per read k of GPU g, with T = the requested interval in s:
 *   socket power  = 300 + 50 g + 200 sin(2 pi k / 400) W  (MI300X-like range)
 *   energy        = sum of socket power x T over reads 0..k-1, J
 *                   (source time k x T: inst power = the previous read's power)
 *   gfx clock     = 1300 + 10 g + 700 * (k mod 2000) / 2000 MHz
 *   mem clock     = 1300 MHz; hotspot = 40 + g + (k mod 600) / 10 C;
 *   mem temp      = 35 + g C; edge temperature absent (NAN), as on MI300X.
 * The source "refreshes" on every read.
 */
#include "sample/sample.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

struct br_sampler_dev {
    int gpu;
    uint64_t k;
    double energy_J;
    double period_s;
};

static int sim_probe(char **why)
{
    *why = NULL;
    return 0;
}

static struct br_sampler_dev *sim_open(int index, const struct br_open_opts *opts,
                                       struct br_dev_info *info)
{
    struct br_sampler_dev *d = xcalloc(1, sizeof(*d));
    d->gpu = index;
    d->period_s = (double)opts->interval_ns * 1e-9;
    info->caps = BR_CAP_SOCKET_POWER | BR_CAP_ENERGY | BR_CAP_GFX_CLOCK | BR_CAP_MEM_CLOCK |
                 BR_CAP_HOTSPOT_TEMP | BR_CAP_MEM_TEMP | BR_CAP_SOURCE_TIME;
    info->source = xstrdup("sim");
    info->detail = xstrdup("synthetic");
    info->gfx_clock = "synthetic";
    info->energy_resolution_J = 0.0;
    return d;
}

/* Socket power of read k of GPU g. */
static double sim_power(int g, uint64_t k)
{
    return 300.0 + 50.0 * g + 200.0 * sin(2.0 * M_PI * (double)(k % 400) / 400.0);
}

static int sim_read(struct br_sampler_dev *d, struct br_sample *s)
{
    uint64_t k = d->k++;
    int64_t src_ns = (int64_t)llround((double)k * d->period_s * 1e9);
    s->socket_power_W = sim_power(d->gpu, k);
    s->energy_J = d->energy_J;
    s->energy_time_ns = src_ns;
    d->energy_J += s->socket_power_W * d->period_s;
    s->gfx_clock_MHz = s->gfx_clock_max_MHz = 1300.0 + 10.0 * d->gpu + 700.0 * (double)(k % 2000) / 2000.0;
    s->mem_clock_MHz = 1300.0;
    s->hotspot_temp_C = 40.0 + d->gpu + (double)(k % 600) / 10.0;
    s->mem_temp_C = 35.0 + d->gpu;
    s->source_time_ns = s->t_ns;
    s->source_seq = k + 1;
    return 0;
}

static void sim_close(struct br_sampler_dev *d)
{
    free(d);
}

const struct br_sampler_ops br_sampler_sim = {
    .name = "sim",
    .probe = sim_probe,
    .open = sim_open,
    .read = sim_read,
    .finish = NULL,
    .close = sim_close,
};
