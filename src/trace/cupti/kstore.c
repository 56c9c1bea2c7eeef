/* kstore.c - kernel names, CUPTI activity buffers → kernel and copy records,
 * the clock conversion, and the files kernel_trace.csv and memory_copy_trace.csv.
 *
 * Owns the activity side of libbenchrun-cupti.so (its state is `ks`, reached
 * only through the brc_kstore_* functions, under brc_lock): enables
 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (kernels keep running concurrently),
 * hands CUPTI buffers (cfg.buffer_bytes each), copies each kernel record into a
 * compact struct brc_kernel and interns its demangled name (CUPTI shares one
 * name pointer per kernel, so interning keys on the pointer first). Rows are
 * written when cfg.flush_records records are held ("buffers fill") and at the
 * end; before each write a fresh (CUPTI, CLOCK_BOOTTIME) clock point is taken so
 * every written timestamp lies inside the measured model (clockconv.h).
 * Source: CUPTI 13.0 cupti_activity.h (CUpti_ActivityKernel10 fields).
 */
#include "trace/cupti/brcupti.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static struct kstore {
    struct clk_conv clock;
    struct brc_kernel *k;      /* activity kernel records held until written */
    size_t nk, capk;
    uint64_t dispatched;       /* trace rows written so far (Dispatch_Id base) */
    uint64_t dropped;          /* activity records CUPTI dropped */
    FILE *trace_fp;            /* <prefix>_kernel_trace.csv.part while open */
    uint64_t trace_rows;
    struct ct_copy *copies;    /* memory copies and sets held until written */
    size_t ncopies, capcopies;
    uint64_t copy_rows;
    FILE *copy_fp;             /* <prefix>_memory_copy_trace.csv.part while open */
    char **names;              /* interned demangled names */
    const char **name_keys;    /* the mangled names they came from */
    size_t nnames, capnames;
    int hw_trace;              /* cuptiActivityEnableHWTrace result, -1 not tried */
    bool clock_ready;
} ks = { .hw_trace = -1 };

/* libstdc++'s demangler (Itanium C++ ABI); linked with -lstdc++. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *size = brc_cfg.buffer_bytes;
    *buffer = aligned_alloc(8, *size);
    *max_records = 0;
    if (!*buffer)
        *size = 0;
}

uint32_t brc_kstore_intern(const char *mangled)
{
    if (!mangled)
        mangled = "<unknown>";
    for (size_t i = ks.nnames; i-- > 0;)   /* recent kernels repeat: search backwards */
        if (ks.name_keys[i] == mangled)
            return (uint32_t)i;
    for (size_t i = 0; i < ks.nnames; i++)   /* same name, another pointer */
        if (strcmp(ks.name_keys[i], mangled) == 0)
            return (uint32_t)i;
    int status = -1;
    char *dem = __cxa_demangle(mangled, NULL, NULL, &status);
    size_t cap = ks.capnames;
    xgrow((void **)&ks.names, &cap, ks.nnames + 1, sizeof(*ks.names));
    xgrow((void **)&ks.name_keys, &ks.capnames, ks.nnames + 1, sizeof(*ks.name_keys));
    ks.names[ks.nnames] = (status == 0 && dem) ? dem : xstrdup(mangled);
    if (status != 0)
        free(dem);
    ks.name_keys[ks.nnames] = xstrdup(mangled);
    return (uint32_t)ks.nnames++;
}

const char *brc_kstore_name(uint32_t idx)
{
    return idx < ks.nnames ? ks.names[idx] : "";
}

const char *brc_kstore_mangled(uint32_t idx)
{
    return idx < ks.nnames ? ks.name_keys[idx] : "";
}

static void take_kernel(const CUpti_ActivityKernel10 *r)
{
    xgrow((void **)&ks.k, &ks.capk, ks.nk + 1, sizeof(*ks.k));
    struct brc_kernel *k = &ks.k[ks.nk++];
    k->start = r->start;
    k->end = r->end;
    k->corr = r->correlationId;
    k->device = r->deviceId;
    k->context = r->contextId;
    k->stream = r->streamId;
    k->grid[0] = (uint32_t)r->gridX, k->grid[1] = (uint32_t)r->gridY, k->grid[2] = (uint32_t)r->gridZ;
    k->block[0] = (uint32_t)r->blockX, k->block[1] = (uint32_t)r->blockY;
    k->block[2] = (uint32_t)r->blockZ;
    k->regs = r->registersPerThread;
    k->lds = (uint32_t)(r->staticSharedMemory + r->dynamicSharedMemory);
    k->local = r->localMemoryPerThread;
    k->name = brc_kstore_intern(r->name);
}

/* CUPTI's copyKind (CUpti_ActivityMemcpyKind) as a direction: arrays are
 * device memory; peer copies are device to device. */
static enum ct_dir copy_dir(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return CT_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return CT_D2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return CT_H2H;
    default:
        return CT_D2D;
    }
}

static struct ct_copy *new_copy(void)
{
    xgrow((void **)&ks.copies, &ks.capcopies, ks.ncopies + 1, sizeof(*ks.copies));
    struct ct_copy *c = &ks.copies[ks.ncopies++];
    memset(c, 0, sizeof(*c));
    return c;
}

static void take_memcpy(const CUpti_ActivityMemcpy6 *r)
{
    struct ct_copy *c = new_copy();
    c->dir = copy_dir(r->copyKind);
    c->src_agent = c->dir == CT_H2D || c->dir == CT_H2H ? CT_HOST : (int32_t)r->deviceId;
    c->dst_agent = c->dir == CT_D2H || c->dir == CT_H2H ? CT_HOST : (int32_t)r->deviceId;
    c->stream = r->streamId, c->correlation = r->correlationId;
    c->start_ns = r->start, c->end_ns = r->end, c->bytes = r->bytes;
}

static void take_ptop(const CUpti_ActivityMemcpyPtoP4 *r)
{
    struct ct_copy *c = new_copy();
    c->dir = copy_dir(r->copyKind);
    c->src_agent = (int32_t)r->srcDeviceId, c->dst_agent = (int32_t)r->dstDeviceId;
    c->stream = r->streamId, c->correlation = r->correlationId;
    c->start_ns = r->start, c->end_ns = r->end, c->bytes = r->bytes;
}

static void take_memset(const CUpti_ActivityMemset4 *r)
{
    struct ct_copy *c = new_copy();
    c->dir = CT_SET;
    c->src_agent = c->dst_agent = (int32_t)r->deviceId;
    c->stream = r->streamId, c->correlation = r->correlationId;
    c->start_ns = r->start, c->end_ns = r->end, c->bytes = r->bytes;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    CUpti_Activity *rec = NULL;
    brc_lock();
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            rec->kind == CUPTI_ACTIVITY_KIND_KERNEL)
            take_kernel((const CUpti_ActivityKernel10 *)rec);
        else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
            take_memcpy((const CUpti_ActivityMemcpy6 *)rec);
        else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY2)
            take_ptop((const CUpti_ActivityMemcpyPtoP4 *)rec);
        else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET)
            take_memset((const CUpti_ActivityMemset4 *)rec);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        ks.dropped += dropped;
    if (!brc_finished() && ks.nk >= brc_cfg.flush_records)
        brc_kstore_write_trace();
    if (!brc_finished() && ks.ncopies >= brc_cfg.flush_records)
        brc_kstore_write_copies();
    brc_unlock();
    free(buffer);
}

int brc_kstore_start(bool kernels, bool copies)
{
    /* Kernel timestamps from hardware events, without instrumenting the kernels:
     * Blackwell and later only (cupti_activity.h); elsewhere CUPTI answers
     * NOT_SUPPORTED and keeps its software instrumentation, whose cost per
     * kernel is the floor of the trace overhead (README "NVIDIA"). */
    if (kernels)
        ks.hw_trace = (int)cuptiActivityEnableHWTrace(1);
    CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r == CUPTI_SUCCESS && kernels)
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) {
        brc_fail("cannot enable CUPTI kernel activity: %s", brc_cupti_str(r));
        return -1;
    }
    /* Copies and sets are timed by the copy engines, not by instrumenting
     * kernels, so counter passes keep them too. A failure only loses them. */
    const CUpti_ActivityKind ck[] = { CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                                      CUPTI_ACTIVITY_KIND_MEMSET };
    for (size_t i = 0; copies && i < sizeof(ck) / sizeof(*ck); i++)
        if ((r = cuptiActivityEnable(ck[i])) != CUPTI_SUCCESS)
            brc_fail("cannot enable CUPTI copy activity %d: %s", (int)ck[i], brc_cupti_str(r));
    return 0;
}

void brc_kstore_device_buffer(size_t bytes)
{
    size_t sz = sizeof(bytes);
    CUptiResult r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &bytes);
    if (r == CUPTI_SUCCESS) {
        size_t n = 1;   /* pre-allocate one such buffer per context */
        sz = sizeof(n);
        r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, &sz, &n);
    }
    if (r != CUPTI_SUCCESS)
        brc_fail("cannot set the CUPTI device buffer size: %s", brc_cupti_str(r));
}

void brc_kstore_flush(bool forced)
{
    cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

static uint64_t cupti_now(void *ctx)
{
    (void)ctx;
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return t;
}

void brc_kstore_clock_point(void)
{
    if (!ks.clock_ready) {
        clk_conv_init(&ks.clock);
        ks.clock_ready = true;
    }
    clk_conv_add(&ks.clock, clk_measure(cupti_now, NULL, NULL, 5));
}

uint64_t brc_kstore_to_boot(uint64_t cupti_ns)
{
    return clk_conv_to_boot(&ks.clock, cupti_ns);
}

void brc_kstore_stats(struct brc_kstore_stats *out)
{
    out->kernels = ks.trace_rows ? ks.trace_rows : ks.nk;
    out->dropped = ks.dropped;
    out->copies = ks.copy_rows;
    out->hw_trace = ks.hw_trace;
    out->clock = &ks.clock;
}

void brc_kstore_count_rows(uint64_t n)
{
    ks.trace_rows += n;
}

static void kernel_to_ktw(const struct brc_kernel *k, uint64_t dispatch, struct ktw_kernel *out)
{
    memset(out, 0, sizeof(*out));
    out->name = brc_kstore_name(k->name);
    out->kernel_id = (uint64_t)k->name + 1;
    out->dispatch_id = dispatch;
    out->correlation_id = k->corr;
    out->agent = k->device;
    out->stream_id = k->stream;
    out->start_ns = clk_conv_to_boot(&ks.clock, k->start);
    out->end_ns = clk_conv_to_boot(&ks.clock, k->end);
    out->lds_bytes = k->lds;
    out->scratch_bytes = k->local;
    out->vgpr = k->regs;
    memcpy(out->block, k->block, sizeof(out->block));
    memcpy(out->grid, k->grid, sizeof(out->grid));
}

/* <prefix>_kernel_trace.csv.part, with its header, opened at first use. */
FILE *brc_kstore_trace_file(void)
{
    return brc_part_file(&ks.trace_fp, "kernel_trace.csv.part", ktw_kernel_trace_header);
}

void brc_kstore_write_trace(void)
{
    brc_kstore_clock_point();
    if (!brc_cfg.trace || ks.nk == 0 || !brc_kstore_trace_file())
        return;
    struct ktw_kernel row;
    for (size_t i = 0; i < ks.nk; i++) {
        kernel_to_ktw(&ks.k[i], ++ks.dispatched, &row);
        ktw_write_trace_row(ks.trace_fp, &row);
    }
    ks.trace_rows += ks.nk;
    ks.nk = 0;
    fflush(ks.trace_fp);
}

/* Held copies → <prefix>_memory_copy_trace.csv(.part), timestamps converted
 * to CLOCK_BOOTTIME with the clock points taken so far (lock held). */
void brc_kstore_write_copies(void)
{
    if (ks.ncopies == 0)
        return;
    brc_kstore_clock_point();
    if (!brc_part_file(&ks.copy_fp, "memory_copy_trace.csv.part", ct_header))
        return;
    for (size_t i = 0; i < ks.ncopies; i++) {
        struct ct_copy c = ks.copies[i];
        c.start_ns = clk_conv_to_boot(&ks.clock, c.start_ns);
        c.end_ns = clk_conv_to_boot(&ks.clock, c.end_ns);
        ct_write_row(ks.copy_fp, &c);
    }
    ks.copy_rows += ks.ncopies;
    ks.ncopies = 0;
    fflush(ks.copy_fp);
}

int brc_kstore_close_trace(void)
{
    brc_kstore_write_copies();
    int crc = brc_part_close(&ks.copy_fp, "memory_copy_trace.csv");
    int krc = brc_part_close(&ks.trace_fp, "kernel_trace.csv");
    return crc || krc ? -1 : 0;
}
