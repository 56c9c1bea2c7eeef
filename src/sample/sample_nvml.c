/* sample_nvml.c - power/clocks/temperature from NVML, loaded with dlopen (NVIDIA).
 *
 * Owns: the dlopen'ed libnvidia-ml.so.1 (symbol table, init/shutdown refcount),
 * the NVML-to-CUDA device mapping, one background thread per device, and the
 * driver-buffered power samples file
 * <stem>_driver_power.csv (timestamp_ns,power_W,nvml_timestamp_us,gap_before).
 *
 * Per 1 ms read (each call costs ~1.4-5 us on an H200, driver 580):
 *   nvmlDeviceGetFieldValues(POWER_INSTANT 186 [mW], MEMORY_TEMP 82 [C]) ->
 *   current_socket_power_W and mem temp, the field's timestamp -> source time;
 *   nvmlDeviceGetClockInfo(SM, MEM) [MHz]; nvmlDeviceGetTemperature(GPU) [C]
 *   -> edge_temp_C (NVML has no hotspot reading: NAN).
 * In the background thread (never in the 1 ms loop):
 *   every 100 ms the energy field (ENERGY 191, mJ since driver load; one read
 *   costs ~5 ms), published to the loop with its timestamp, so inst_power_W =
 *   energy delta / time delta comes out per energy refresh;
 *   every 0.5 s nvmlDeviceGetSamples(NVML_TOTAL_POWER_SAMPLES) drained from the
 *   last seen timestamp (the ring holds ~2.4 s) into the driver power file.
 * NVML stamps in us of CLOCK_REALTIME; converted to CLOCK_BOOTTIME ns with an
 * offset read next to each conversion (realtime steps are followed). The
 * timestamp of an instant-power field value is the time of the query (H200,
 * driver 580), so the telemetry file has no source timestamp for NVML and the
 * refreshed flag comes from value changes. BENCHRUN_NVML_LIBRARY overrides
 * the library name (tests).
 * Values refresh only every ~100 ms on the H200 (measured; docs/design.md §11).
 *
 * Device numbering is CUDA's: NVML devices sorted by PCI domain/bus/device
 * (CUDA_DEVICE_ORDER=PCI_BUS_ID; the default FASTEST_FIRST gives the same
 * order on nodes of identical GPUs), then CUDA_VISIBLE_DEVICES (indices or
 * GPU-<uuid> prefixes) selects and reorders.
 */
#include "model/telemetry.h"
#include "sample/nvml_abi.h"
#include "sample/sample.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ENERGY_PERIOD_NS 100000000LL
#define DRAIN_PERIOD_NS 500000000LL
#define DRIVER_GAP_US 100000ULL
#define STOP_POLL_NS 50000000LL

static struct {
    void *lib;
    int refs;
    nvmlReturn_t (*Init)(void);
    nvmlReturn_t (*Shutdown)(void);
    const char *(*ErrorString)(nvmlReturn_t);
    nvmlReturn_t (*GetCount)(unsigned *);
    nvmlReturn_t (*GetHandleByIndex)(unsigned, nvmlDevice_t *);
    nvmlReturn_t (*GetPciInfo)(nvmlDevice_t, nvmlPciInfo_t *);
    nvmlReturn_t (*GetUUID)(nvmlDevice_t, char *, unsigned);
    nvmlReturn_t (*GetFieldValues)(nvmlDevice_t, int, nvmlFieldValue_t *);
    nvmlReturn_t (*GetClockInfo)(nvmlDevice_t, int, unsigned *);
    nvmlReturn_t (*GetTemperature)(nvmlDevice_t, int, unsigned *);
    nvmlReturn_t (*GetSamples)(nvmlDevice_t, int, unsigned long long, int *, unsigned *,
                               nvmlSample_t *);
} nv;

struct nv_sym {
    const char *name, *alt;
    void **fp;
    bool required;
};

static const struct nv_sym nv_syms[] = {
    { "nvmlInit_v2", "nvmlInit", (void **)&nv.Init, true },
    { "nvmlShutdown", NULL, (void **)&nv.Shutdown, true },
    { "nvmlErrorString", NULL, (void **)&nv.ErrorString, true },
    { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", (void **)&nv.GetCount, true },
    { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex",
      (void **)&nv.GetHandleByIndex, true },
    { "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", (void **)&nv.GetPciInfo, true },
    { "nvmlDeviceGetUUID", NULL, (void **)&nv.GetUUID, false },
    { "nvmlDeviceGetFieldValues", NULL, (void **)&nv.GetFieldValues, false },
    { "nvmlDeviceGetClockInfo", NULL, (void **)&nv.GetClockInfo, false },
    { "nvmlDeviceGetTemperature", NULL, (void **)&nv.GetTemperature, false },
    { "nvmlDeviceGetSamples", NULL, (void **)&nv.GetSamples, false },
};

struct br_sampler_dev {
    nvmlDevice_t h;
    int index;
    pthread_t thread;
    bool thread_started;
    atomic_bool stop;
    pthread_mutex_t mu;
    double energy_J;           /* latest energy reading (mu) */
    int64_t energy_t_ns;       /* its timestamp, CLOCK_BOOTTIME ns; -1 none (mu) */
    bool has_energy, has_samples, has_fields;
    int fd_drv;                /* driver power file, -1 when not written */
    char *drv_path;
    unsigned long long last_seen_us;
    nvmlSample_t *sbuf;
    unsigned scap;
    struct strbuf line;
};

static const char *nv_err(nvmlReturn_t rc)
{
    const char *s = nv.ErrorString ? nv.ErrorString(rc) : NULL;
    return s ? s : "unknown NVML error";
}

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_REALTIME us -> CLOCK_BOOTTIME ns, with the offset read now. */
static int64_t realtime_us_to_boot_ns(long long us)
{
    int64_t b1 = now_ns(CLOCK_BOOTTIME), r = now_ns(CLOCK_REALTIME), b2 = now_ns(CLOCK_BOOTTIME);
    return (int64_t)us * 1000 + ((b1 + b2) / 2 - r);
}

/* Loads the library and its symbols; sets *why on failure. */
static int nv_load(char **why)
{
    if (nv.lib)
        return 0;
    const char *name = getenv("BENCHRUN_NVML_LIBRARY"); /* tests */
    if (!name || !*name)
        name = "libnvidia-ml.so.1"; /* not the bare .so: it can be the CUDA stub */
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        *why = xasprintf("cannot load %s (NVIDIA driver library): %s", name, dlerror());
        return -1;
    }
    for (size_t i = 0; i < sizeof(nv_syms) / sizeof(nv_syms[0]); i++) {
        const struct nv_sym *s = &nv_syms[i];
        *s->fp = dlsym(lib, s->name);
        if (!*s->fp && s->alt)
            *s->fp = dlsym(lib, s->alt);
        if (!*s->fp && s->required) {
            *why = xasprintf("libnvidia-ml.so.1 lacks %s", s->name);
            dlclose(lib);
            memset(&nv, 0, sizeof(nv));
            return -1;
        }
    }
    nv.lib = lib;
    return 0;
}

static int nv_acquire(char **why)
{
    if (nv_load(why) != 0)
        return -1;
    if (nv.refs == 0) {
        nvmlReturn_t rc = nv.Init();
        if (rc != NVML_SUCCESS) {
            *why = xasprintf("nvmlInit failed: %s", nv_err(rc));
            return -1;
        }
    }
    nv.refs++;
    return 0;
}

static void nv_release(void)
{
    if (nv.refs > 0 && --nv.refs == 0)
        nv.Shutdown();
}

static int nvml_probe(char **why)
{
    if (nv_acquire(why) != 0)
        return -1;
    unsigned n = 0;
    nvmlReturn_t rc = nv.GetCount(&n);
    nv_release();
    if (rc != NVML_SUCCESS || n == 0) {
        *why = xasprintf("no NVIDIA GPU (%s)", rc != NVML_SUCCESS ? nv_err(rc) : "count 0");
        return -1;
    }
    return 0;
}

struct nv_gpu {
    nvmlDevice_t h;
    unsigned domain, bus, dev;
    char busid[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE + 1];
    char uuid[96];
};

static int cmp_pci(const void *a, const void *b)
{
    const struct nv_gpu *x = a, *y = b;
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    if (x->bus != y->bus)
        return x->bus < y->bus ? -1 : 1;
    return (x->dev > y->dev) - (x->dev < y->dev);
}

/* Every NVML device in PCI bus order (CUDA's order). */
static int list_pci_order(struct nv_gpu **out, unsigned *nout)
{
    unsigned n = 0;
    nvmlReturn_t rc = nv.GetCount(&n);
    if (rc != NVML_SUCCESS)
        return br_error("sample: nvmlDeviceGetCount: %s", nv_err(rc));
    struct nv_gpu *g = xcalloc(n ? n : 1, sizeof(*g));
    for (unsigned i = 0; i < n; i++) {
        nvmlPciInfo_t pci;
        if ((rc = nv.GetHandleByIndex(i, &g[i].h)) != NVML_SUCCESS ||
            (rc = nv.GetPciInfo(g[i].h, &pci)) != NVML_SUCCESS) {
            free(g);
            return br_error("sample: NVML device %u: %s", i, nv_err(rc));
        }
        g[i].domain = pci.domain;
        g[i].bus = pci.bus;
        g[i].dev = pci.device;
        memcpy(g[i].busid, pci.busId, sizeof(pci.busId));
        if (nv.GetUUID)
            nv.GetUUID(g[i].h, g[i].uuid, sizeof(g[i].uuid));
    }
    if (n > 1)
        qsort(g, n, sizeof(*g), cmp_pci);
    *out = g;
    *nout = n;
    return 0;
}

/* Resolves one CUDA_VISIBLE_DEVICES entry to a PCI-order position; -1 if none. */
static int resolve_visible(const char *item, const struct nv_gpu *g, unsigned n)
{
    if (strncmp(item, "GPU-", 4) == 0) {
        int hit = -1;
        for (unsigned i = 0; i < n; i++)
            if (strncmp(g[i].uuid, item, strlen(item)) == 0)
                hit = hit < 0 ? (int)i : -2; /* ambiguous prefix */
        return hit < 0 ? -1 : hit;
    }
    char *end;
    long v = strtol(item, &end, 10);
    return (*item && !*end && v >= 0 && v < (long)n) ? (int)v : -1;
}

/* Physical PCI-order position of CUDA ordinal `index`; -1 with an error. */
static int cuda_to_pci_pos(int index, const struct nv_gpu *g, unsigned n)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (!vis)
        return index >= 0 && (unsigned)index < n ? index
               : br_error("sample: no NVIDIA GPU with index %d (%u present)", index, n);
    char *copy = xstrdup(vis), *save = NULL;
    int k = 0, pos = -1;
    bool found = false;
    for (char *it = strtok_r(copy, ",", &save); it && !found;
         it = strtok_r(NULL, ",", &save), k++) {
        if (k != index)
            continue;
        found = true;
        pos = resolve_visible(it, g, n);
        if (pos < 0)
            br_error("sample: CUDA_VISIBLE_DEVICES='%s': entry '%s' matches no NVIDIA GPU "
                     "(indices and GPU-<uuid> are supported)", vis, it);
    }
    free(copy);
    if (!found)
        return br_error("sample: no NVIDIA GPU with index %d (CUDA_VISIBLE_DEVICES='%s')",
                        index, vis);
    return pos;
}

static double nv_value(int type, nvmlValue_t v)
{
    switch (type) {
    case NVML_VALUE_TYPE_DOUBLE: return v.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return (double)v.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return (double)v.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return (double)v.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return (double)v.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT: return (double)v.siVal;
    default: return NAN;
    }
}

/* Reads the energy field and publishes it to the sampling loop. */
static void energy_tick(struct br_sampler_dev *d)
{
    nvmlFieldValue_t f = { .fieldId = NVML_FI_DEV_ENERGY };
    if (nv.GetFieldValues(d->h, 1, &f) != NVML_SUCCESS || f.nvmlReturn != NVML_SUCCESS)
        return;
    double mJ = nv_value(f.valueType, f.value);
    int64_t t = f.timestamp > 0 ? realtime_us_to_boot_ns(f.timestamp) : now_ns(CLOCK_BOOTTIME);
    pthread_mutex_lock(&d->mu);
    d->energy_J = mJ * 1e-3;
    d->energy_t_ns = t;
    pthread_mutex_unlock(&d->mu);
}

static void write_line(struct br_sampler_dev *d)
{
    const char *p = d->line.buf;
    size_t left = d->line.len;
    while (left > 0) {
        ssize_t w = write(d->fd_drv, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* reported once at finish through the count of lines */
        p += w;
        left -= (size_t)w;
    }
}

/* Drains the driver's power sample ring from the last seen timestamp. */
static void drain_tick(struct br_sampler_dev *d)
{
    int vtype = 0;
    unsigned count = d->scap;
    nvmlReturn_t rc = nv.GetSamples(d->h, NVML_TOTAL_POWER_SAMPLES, d->last_seen_us, &vtype,
                                    &count, d->sbuf);
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
        d->scap *= 2;
        d->sbuf = xrealloc(d->sbuf, d->scap * sizeof(*d->sbuf));
        return; /* next tick reads them: nothing is lost before the ring wraps */
    }
    if (rc != NVML_SUCCESS)
        return; /* NOT_FOUND: nothing new */
    for (unsigned i = 0; i < count; i++) {
        const nvmlSample_t *s = &d->sbuf[i];
        if (s->timeStamp <= d->last_seen_us)
            continue;
        bool gap = d->last_seen_us && s->timeStamp - d->last_seen_us > DRIVER_GAP_US;
        sb_reset(&d->line);
        sb_addf(&d->line, "%lld,%.3f,%llu,%d\n",
                (long long)realtime_us_to_boot_ns((long long)s->timeStamp),
                nv_value(vtype, s->sampleValue) * 1e-3, s->timeStamp, gap ? 1 : 0);
        write_line(d);
        d->last_seen_us = s->timeStamp;
    }
}

static void sleep_until(int64_t t)
{
    struct timespec ts = { .tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL };
    while (clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void *bg_main(void *arg)
{
    struct br_sampler_dev *d = arg;
    int64_t next_e = now_ns(CLOCK_BOOTTIME), next_d = next_e + DRAIN_PERIOD_NS;
    while (!atomic_load(&d->stop)) {
        int64_t now = now_ns(CLOCK_BOOTTIME);
        if (d->has_energy && now >= next_e) {
            energy_tick(d);
            next_e += ENERGY_PERIOD_NS;
        }
        if (d->fd_drv >= 0 && now >= next_d) {
            drain_tick(d);
            next_d += DRAIN_PERIOD_NS;
        }
        int64_t wake = d->has_energy && next_e < next_d ? next_e : next_d;
        if (wake > now + STOP_POLL_NS)
            wake = now + STOP_POLL_NS; /* finish() waits at most this long */
        sleep_until(wake > now ? wake : now + 1000000);
    }
    return NULL;
}

/* Which optional readings this device answers; sets caps. */
static void probe_caps(struct br_sampler_dev *d, struct br_dev_info *info)
{
    unsigned v;
    nvmlFieldValue_t f[2] = { { .fieldId = NVML_FI_DEV_POWER_INSTANT },
                              { .fieldId = NVML_FI_DEV_ENERGY } };
    if (nv.GetFieldValues && nv.GetFieldValues(d->h, 2, f) == NVML_SUCCESS) {
        d->has_fields = f[0].nvmlReturn == NVML_SUCCESS;
        d->has_energy = f[1].nvmlReturn == NVML_SUCCESS;
    }
    if (d->has_fields)
        info->caps |= BR_CAP_SOCKET_POWER;
    if (d->has_energy) {
        info->caps |= BR_CAP_ENERGY;
        info->energy_resolution_J = 1e-3;
    }
    if (nv.GetClockInfo && nv.GetClockInfo(d->h, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
        info->caps |= BR_CAP_GFX_CLOCK;
    if (nv.GetClockInfo && nv.GetClockInfo(d->h, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
        info->caps |= BR_CAP_MEM_CLOCK;
    if (nv.GetTemperature && nv.GetTemperature(d->h, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
        info->caps |= BR_CAP_EDGE_TEMP;
}

/* Opens <stem>_driver_power.csv and writes its two header lines. */
static int open_driver_file(struct br_sampler_dev *d, const struct br_open_opts *o,
                            struct br_dev_info *info)
{
    d->drv_path = xasprintf("%s/%s" TELEM_DRIVER_SUFFIX, o->outdir, o->file_stem);
    d->fd_drv = open(d->drv_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (d->fd_drv < 0)
        return br_error("sample: cannot create '%s': %s", d->drv_path, strerror(errno));
    sb_reset(&d->line);
    sb_addf(&d->line, "device=%d backend=nvml kind=driver_power_samples source="
            "nvmlDeviceGetSamples(NVML_TOTAL_POWER_SAMPLES) pci=%s clock=CLOCK_BOOTTIME "
            "unit=W\ntimestamp_ns,power_W,nvml_timestamp_us,gap_before\n",
            d->index, info->pci_bus_id ? info->pci_bus_id : "unknown");
    write_line(d);
    info->caps |= BR_CAP_DRIVER_POWER;
    info->driver_power_path = xstrdup(d->drv_path);
    d->scap = 256;
    d->sbuf = xcalloc(d->scap, sizeof(*d->sbuf));
    d->last_seen_us = (unsigned long long)(now_ns(CLOCK_REALTIME) / 1000);
    return 0;
}

static void nvml_close(struct br_sampler_dev *d);

static struct br_sampler_dev *nvml_open(int index, const struct br_open_opts *opts,
                                        struct br_dev_info *info)
{
    char *why = NULL;
    if (nv_acquire(&why) != 0) {
        br_error("sample: nvml: %s", why);
        free(why);
        return NULL;
    }
    struct nv_gpu *g = NULL;
    unsigned n = 0;
    int pos = list_pci_order(&g, &n) == 0 ? cuda_to_pci_pos(index, g, n) : -1;
    if (pos < 0) {
        free(g);
        nv_release();
        return NULL;
    }
    struct br_sampler_dev *d = xcalloc(1, sizeof(*d));
    d->h = g[pos].h;
    d->index = index;
    d->fd_drv = -1;
    d->energy_t_ns = -1;
    sb_init(&d->line);
    pthread_mutex_init(&d->mu, NULL);
    info->pci_bus_id = xstrdup(g[pos].busid);
    info->source = xstrdup("libnvidia-ml.so.1");
    info->gfx_clock = "sm_clock";
    info->detail = xstrdup(g[pos].uuid[0] ? g[pos].uuid : "unknown");
    info->energy_resolution_J = NAN;
    free(g);
    probe_caps(d, info);
    if (nv.GetSamples && open_driver_file(d, opts, info) != 0) {
        nvml_close(d);
        br_dev_info_release(info);
        return NULL;
    }
    if ((d->has_energy || d->fd_drv >= 0) && pthread_create(&d->thread, NULL, bg_main, d) == 0)
        d->thread_started = true;
    return d;
}

static int nvml_read(struct br_sampler_dev *d, struct br_sample *s)
{
    if (d->has_fields) {
        nvmlFieldValue_t f[2] = { { .fieldId = NVML_FI_DEV_POWER_INSTANT },
                                  { .fieldId = NVML_FI_DEV_MEMORY_TEMP } };
        if (nv.GetFieldValues(d->h, 2, f) == NVML_SUCCESS) {
            if (f[0].nvmlReturn == NVML_SUCCESS) {
                /* The field's timestamp is the time of the query, not of the
                 * reading (measured on an H200): refresh comes from values. */
                s->socket_power_W = nv_value(f[0].valueType, f[0].value) * 1e-3;
            }
            if (f[1].nvmlReturn == NVML_SUCCESS)
                s->mem_temp_C = nv_value(f[1].valueType, f[1].value);
        }
    }
    unsigned v;
    if (nv.GetClockInfo && nv.GetClockInfo(d->h, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
        s->gfx_clock_MHz = s->gfx_clock_max_MHz = v;
    if (nv.GetClockInfo && nv.GetClockInfo(d->h, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
        s->mem_clock_MHz = v;
    if (nv.GetTemperature && nv.GetTemperature(d->h, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
        s->edge_temp_C = v;
    pthread_mutex_lock(&d->mu);
    if (d->energy_t_ns >= 0) {
        s->energy_J = d->energy_J;
        s->energy_time_ns = d->energy_t_ns;
    }
    pthread_mutex_unlock(&d->mu);
    return 0;
}

static int nvml_finish(struct br_sampler_dev *d)
{
    if (d->thread_started) {
        atomic_store(&d->stop, true);
        pthread_join(d->thread, NULL);
        d->thread_started = false;
    }
    if (d->fd_drv >= 0) {
        drain_tick(d);
        if (close(d->fd_drv) != 0)
            br_error("sample: cannot write '%s': %s", d->drv_path, strerror(errno));
        d->fd_drv = -1;
    }
    return 0;
}

static void nvml_close(struct br_sampler_dev *d)
{
    if (!d)
        return;
    nvml_finish(d);
    pthread_mutex_destroy(&d->mu);
    free(d->drv_path);
    free(d->sbuf);
    sb_release(&d->line);
    free(d);
    nv_release();
}

const struct br_sampler_ops br_sampler_nvml = {
    .name = "nvml",
    .probe = nvml_probe,
    .open = nvml_open,
    .read = nvml_read,
    .finish = nvml_finish,
    .close = nvml_close,
};
