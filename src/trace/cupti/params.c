/* params.c - the parameter key of a driver launch (trace/paramkey.h), for launch sampling.
 *
 * A sampled counter pass splits a (kernel, grid, block) signature into one
 * sampling unit per parameter key (launches.c), so that GEMMs of several
 * shapes under one cuBLAS kernel name are sampled and scaled apart. The
 * parameter layout of a function comes from cuFuncGetParamInfo, or for a
 * CUkernel passed as a CUfunction (cuBLAS 13's nvjet kernels, launched with
 * cuLaunchKernelEx) cuKernelGetParamInfo (both CUDA 12.4+, cuda.h); the
 * values from the call's kernelParams, or its `extra` buffer
 * (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE). Addresses are told apart with
 * cuPointerGetAttribute (CU_POINTER_ATTRIBUTE_MEMORY_TYPE succeeds for
 * device, managed, registered host and VMM-mapped memory, fails with
 * CUDA_ERROR_INVALID_VALUE on any other value). Runtime launches
 * (cudaLaunchKernel) carry only the host stub and the argument pointers, not
 * the sizes: they get no key (0) and keep the coarse unit.
 * Layouts are cached per function handle and forgotten at every module
 * unload (a handle may be reused by a function of another layout; its stale
 * sizes would read past the caller's arguments). Lock held.
 */
#include "trace/cupti/brcupti.h"

#include <stdlib.h>
#include <string.h>

#include "trace/paramkey.h"
#include "util/xalloc.h"

/* More parameters than this, or a block larger (CUDA 12.1+ allows 32,764
 * bytes), and the launch gets no key: the hash would cost more than it says. */
#define MAX_PARAMS 512
#define MAX_BYTES 32768

struct layout {
    CUfunction f;
    bool usable;
    size_t n, bytes;
    size_t *offset, *size;
    struct pk_func pk;
};

static struct {
    struct layout *l;
    size_t n, cap;
    uint32_t *slot;            /* hash of f: index + 1 */
    size_t nslot;
    uint8_t *block;            /* MAX_BYTES scratch */
    uint64_t learned, asked, addresses, keyed, unkeyed;
} pp;

static size_t f_slot(CUfunction f)
{
    size_t j = (size_t)(((uintptr_t)f >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (pp.nslot - 1);
    while (pp.slot[j] && pp.l[pp.slot[j] - 1].f != f)
        j = (j + 1) & (pp.nslot - 1);
    return j;
}

static void rehash(void)
{
    free(pp.slot);
    pp.nslot = pp.nslot ? pp.nslot * 2 : 256;
    pp.slot = xcalloc(pp.nslot, sizeof(*pp.slot));
    for (size_t i = 0; i < pp.n; i++)
        pp.slot[f_slot(pp.l[i].f)] = (uint32_t)i + 1;
}

/* Offset and size of parameter i of f (a CUfunction or a CUkernel cast to one). */
static bool param_info(CUfunction f, size_t i, bool kernel, size_t *off, size_t *size)
{
    return (kernel ? cuKernelGetParamInfo((CUkernel)f, i, off, size)
                   : cuFuncGetParamInfo(f, i, off, size)) == CUDA_SUCCESS;
}

/* The function's parameter layout, asked once. A function that answers for
 * no parameter 0 under either call has none (or cannot say: then every
 * launch gets one key, the coarse unit). */
static void learn(struct layout *l)
{
    size_t off, size, n = 0;
    bool kernel = !param_info(l->f, 0, false, &off, &size);
    if (!kernel || param_info(l->f, 0, true, &off, &size))
        for (n = 1; n <= MAX_PARAMS && param_info(l->f, n, kernel, &off, &size); n++)
            ;
    if (n > MAX_PARAMS)
        return;   /* unusable */
    l->offset = xcalloc(n + 1, sizeof(*l->offset));
    l->size = xcalloc(n + 1, sizeof(*l->size));
    for (size_t i = 0; i < n; i++) {
        if (!param_info(l->f, i, kernel, &l->offset[i], &l->size[i]))
            return;
        if (l->offset[i] + l->size[i] > l->bytes)
            l->bytes = l->offset[i] + l->size[i];
    }
    l->n = n;
    l->usable = l->bytes <= MAX_BYTES;
    pk_func_init(&l->pk, l->usable ? l->bytes : 0);
}

static struct layout *layout_of(CUfunction f)
{
    if ((pp.n + 1) * 2 > pp.nslot)
        rehash();
    size_t j = f_slot(f);
    if (pp.slot[j])
        return &pp.l[pp.slot[j] - 1];
    xgrow((void **)&pp.l, &pp.cap, pp.n + 1, sizeof(*pp.l));
    struct layout *l = &pp.l[pp.n];
    memset(l, 0, sizeof(*l));
    l->f = f;
    learn(l);
    pp.learned++;
    pp.slot[j] = (uint32_t)++pp.n;
    return l;
}

static bool is_address(uint64_t v, void *ud)
{
    (void)ud;
    CUmemorytype mt;
    pp.asked++;
    bool yes = cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)v) ==
               CUDA_SUCCESS;
    pp.addresses += yes;
    return yes;
}

/* The `extra` launch form: a packed argument buffer and its size. */
static bool extra_buffer(void **extra, const uint8_t **buf, size_t *size)
{
    *buf = NULL;
    *size = 0;
    for (int i = 0; extra && i < 16 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            *buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
            *size = *(const size_t *)extra[i + 1];
    }
    return *buf && *size;
}

uint64_t brc_params_key(CUfunction f, void **kernel_params, void **extra)
{
    if (!f || (!kernel_params && !extra)) {
        pp.unkeyed++;
        return 0;
    }
    struct layout *l = layout_of(f);
    if (!l->usable) {
        pp.unkeyed++;
        return 0;
    }
    const uint8_t *buf;
    size_t size;
    if (kernel_params) {
        if (!pp.block)
            pp.block = xmalloc(MAX_BYTES);
        if (!pk_gather(pp.block, l->bytes, (const void *const *)kernel_params, l->offset, l->size,
                       l->n)) {
            pp.unkeyed++;
            return 0;
        }
        buf = pp.block, size = l->bytes;
    } else if (!extra_buffer(extra, &buf, &size)) {
        pp.unkeyed++;
        return 0;
    }
    pp.keyed++;
    return pk_key(&l->pk, buf, size < l->bytes ? size : l->bytes, is_address, NULL);
}

void brc_params_forget(void)
{
    for (size_t i = 0; i < pp.n; i++) {
        free(pp.l[i].offset);
        free(pp.l[i].size);
        pk_func_release(&pp.l[i].pk);
    }
    pp.n = 0;
    if (pp.slot)
        memset(pp.slot, 0, pp.nslot * sizeof(*pp.slot));
}

void brc_params_json(FILE *fp)
{
    fprintf(fp, "  \"parameter_keys\": {\"layouts_read\": %llu, \"keyed\": %llu, \"unkeyed\": %llu, "
                "\"address_questions\": %llu, \"addresses\": %llu},\n",
            (unsigned long long)pp.learned, (unsigned long long)pp.keyed, (unsigned long long)pp.unkeyed,
            (unsigned long long)pp.asked, (unsigned long long)pp.addresses);
}
