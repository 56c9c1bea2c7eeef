/* calib_expect.c - calibration kernel parameters and the values they must give.
 *
 * Owns: the default parameters, the program's argv, and the expected-value
 * table. Every number is the arithmetic of share/benchrun/calibrate/calib.cu
 * (see the kernel comments there): bytes = elements x 8 B per array touched,
 * FLOPs = threads x FMAs per thread x 2 (NVIDIA FP16: x 2 per packed HFMA2,
 * the profile's counting), GEMM FLOPs = 2·M·N·K. Occupancy
 * limits: NVIDIA Hopper has 65536 registers and 64 warps per SM; a 256-thread
 * block at 128 registers/thread uses 32768, so 2 blocks = 16 warps fit (25 %).
 * AMD gfx942: 512 VGPRs per SIMD lane, 128 VGPRs -> 4 waves/SIMD = 16 waves/CU
 * of 32 (50 %) (docs/design.md §14). Units: bytes, FLOPs, percent.
 * SPDX-License-Identifier: MIT
 */
#include "calib/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void br_calib_params_default(struct br_calib_params *p, enum gpu_vendor vendor)
{
    bool amd = vendor == GPU_VENDOR_AMD;
    *p = (struct br_calib_params){
        .n = 1L << 27,          /* 1 GiB per array: 18x the H200's 50 MiB L2 */
        .stream_reps = 8,       /* leftover dirty L2 lines < 1 % of 8 GiB */
        .fma_blocks = 1056,     /* 8 blocks x 132 SMs: one full wave on an H200 */
        .fma_threads = 256,
        .fma_iters = 4096,
        .fma_reps = 4,
        /* 3840 = lcm(64, 128, 192, 256, 320, 384): a multiple of every tile edge
         * cuBLAS used here, so no tile is padded. The tensor counters count the
         * work executed: at n = 8192 an nvjet 320x128 BF16 tile pads 8192 to
         * 8320 rows and the H200 read 2·M·N·K x 1.015625 (+1.5625 %). */
        .gemm_n = 7680,
        .gemm_reps = 3,
        .long_ms = 1000,
        .idle_ms = 600,         /* > baseline window (250 ms) + NVML refresh (~100 ms) after the GEMMs */
        .flush_mib = 256,
        .mma_blocks = 528,      /* 4 blocks x 132 SMs, 128 threads each */
        .mma_iters = 1024,
        .mma_reps = 2,
        .tensor_paths = !amd,
        .power_phases = 1,      /* one pass of the 15 power phases (2.6 s): the energy check */
        .warp = amd ? 64 : 32,
        .issued_flops = amd,
        .f16_per_inst = !amd,
    };
}

void br_calib_params_argv(const struct br_calib_params *p, struct strv *out)
{
    const struct { const char *k; long v; } kv[] = {
        { "n", p->n }, { "stream_reps", p->stream_reps }, { "fma_blocks", p->fma_blocks },
        { "fma_threads", p->fma_threads }, { "fma_iters", p->fma_iters },
        { "fma_reps", p->fma_reps }, { "gemm_n", p->gemm_n }, { "gemm_reps", p->gemm_reps },
        { "long_ms", p->long_ms }, { "idle_ms", p->idle_ms }, { "flush_mib", p->flush_mib },
        { "mma_blocks", p->mma_blocks }, { "mma_iters", p->mma_iters }, { "mma_reps", p->mma_reps },
        { "power_phases", p->power_phases },
    };
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
        strv_pushf(out, "%s=%ld", kv[i].k, kv[i].v);
}

/* Column candidates: the NVIDIA profile may name tensor-core FLOPs either way. */
static const char *const c_rd[] = { "mem_read_bytes", NULL };
static const char *const c_wr[] = { "mem_write_bytes", NULL };
static const char *const c_bound[] = { "bound_mix", "bound", NULL };
static const char *const c_fp64[] = { "FP64_VALU_FLOP", "FP64_FLOP", NULL };
static const char *const c_fp32[] = { "FP32_VALU_FLOP", "FP32_FLOP", NULL };
static const char *const c_fp16[] = { "FP16_VALU_FLOP", NULL };
static const char *const c_lanes[] = { "VALUUtilization_pct", NULL };
static const char *const c_occ[] = { "Occupancy_pct", NULL };
static const char *const c_occmax[] = { "Occupancy_of_max_pct", NULL };
static const char *const c_maxw[] = { "max_waves_CU", NULL };
static const char *const c_t64[] = { "FP64_TENSOR_FLOP", "FP64_MFMA_FLOP", NULL };
static const char *const c_tbf16[] = { "BF16_TENSOR_FLOP", "BF16_MFMA_FLOP", NULL };
static const char *const c_tf16[] = { "F16_TENSOR_FLOP", NULL };
static const char *const c_ttf32[] = { "TF32_TENSOR_FLOP", NULL };
static const char *const c_tf8[] = { "F8_TENSOR_FLOP", NULL };
static const char *const c_ti8[] = { "I8_TENSOR_OPS", NULL };

struct tab {
    struct br_calib_expect *v;
    size_t n, cap;
};

static struct br_calib_expect *add(struct tab *t, const char *check, const char *kernel,
                                   const char *const *cols, const char *why)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
    }
    struct br_calib_expect *e = &t->v[t->n++];
    *e = (struct br_calib_expect){ .check = check, .row = BR_CALIB_ROW_KERNEL,
                                   .kernel = kernel, .cols = cols, .why = why };
    return e;
}

static void rel(struct tab *t, const char *check, const char *kernel, const char *const *cols,
                double value, double tol, const char *why)
{
    struct br_calib_expect *e = add(t, check, kernel, cols, why);
    e->how = BR_CALIB_REL;
    e->value = value;
    e->tol = tol;
}

static void label(struct tab *t, const char *check, const char *kernel, const char *want)
{
    struct br_calib_expect *e = add(t, check, kernel, c_bound, "roofline of the kernel's own work");
    e->how = BR_CALIB_LABEL;
    e->label = want;
}

static void lanes(struct tab *t, const char *check, const char *kernel, double pct, const char *why)
{
    struct br_calib_expect *e = add(t, check, kernel, c_lanes, why);
    e->how = BR_CALIB_ABS;
    e->value = pct;
    e->tol = 1.0;
}

static void streams(struct tab *t, const struct br_calib_params *p)
{
    double b = 8.0 * (double)p->n * (double)p->stream_reps;
    rel(t, "copy: DRAM read bytes", "calib_copy", c_rd, b, 0.02, "8 B x n x launches");
    rel(t, "copy: DRAM write bytes", "calib_copy", c_wr, b, 0.02, "8 B x n x launches");
    label(t, "copy: bound", "calib_copy", "memory");
    rel(t, "triad: DRAM read bytes", "calib_triad", c_rd, 2 * b, 0.02, "16 B x n x launches");
    rel(t, "triad: DRAM write bytes", "calib_triad", c_wr, b, 0.02, "8 B x n x launches");
    rel(t, "triad: FP64 FLOPs", "calib_triad", c_fp64,
        2.0 * (double)p->n * (double)p->stream_reps, 0.001, "1 DFMA x n x launches");
    label(t, "triad: bound", "calib_triad", "memory");
}

static void fma_loops(struct tab *t, const struct br_calib_params *p)
{
    double threads = (double)p->fma_blocks * (double)p->fma_threads * (double)p->fma_reps;
    double flop = threads * (double)p->fma_iters * 8.0 * 2.0;
    const char *w = "threads x iters x 8 FMA x 2 x launches";
    rel(t, "FP64 FMA loop: FLOPs", "calib_fma_f64", c_fp64, flop, 0.001, w);
    lanes(t, "FP64 FMA loop: lanes active %", "calib_fma_f64", 100.0, "no divergence");
    label(t, "FP64 FMA loop: bound", "calib_fma_f64", "compute");
    rel(t, "FP32 FMA loop: FLOPs", "calib_fma_f32", c_fp32, flop, 0.001, w);
    lanes(t, "FP32 FMA loop: lanes active %", "calib_fma_f32", 100.0, "no divergence");
    label(t, "FP32 FMA loop: bound", "calib_fma_f32", "compute");
    /* NVIDIA: calib_fma_f16 runs 4 packed HFMA2 per iteration; the SASS counter
     * counts each once and gh100's FP16_VALU_FLOP gives it 2 FLOPs (a lower bound,
     * docs/arch-profile.md "FP16"): half the FLOPs done. */
    rel(t, "FP16 FMA loop: FLOPs", "calib_fma_f16", c_fp16, p->f16_per_inst ? flop / 2 : flop,
        0.001, p->f16_per_inst ? "threads x iters x 4 HFMA2 x 2 x launches (packed: counted once)"
                               : "threads x iters x 8 FP16 FMA x 2 x launches");
    label(t, "FP16 FMA loop: bound", "calib_fma_f16", "compute");
    rel(t, "divergent loop: FP32 FLOPs", "calib_diverge", c_fp32,
        p->issued_flops ? flop : flop / 2, 0.001,
        p->issued_flops ? "all lanes issued (AMD counts per wave x 64)" : "half of each warp");
    lanes(t, "divergent loop: lanes active %", "calib_diverge", 50.0, "lanes 0..W/2-1 only");
}

static void reglimit(struct tab *t, const struct br_calib_params *p)
{
    long iters = p->fma_iters / 16 > 0 ? p->fma_iters / 16 : 1;
    double flop = (double)p->fma_blocks * 256.0 * (double)p->fma_reps * (double)iters * 160 * 2;
    rel(t, "register-limited: FP32 FLOPs", "calib_reglimit", c_fp32, flop, 0.001,
        "blocks x 256 x iters/16 x 160 FMA x 2 x launches");
    double max_units = p->warp == 64 ? 32.0 : 64.0;     /* waves/CU or warps/SM */
    double limit_pct = 100.0 * 16.0 / max_units;
    struct br_calib_expect *e = add(t, "register-limited: occupancy %", "calib_reglimit", c_occ,
                                    "16 warps (waves) of the 128-register limit");
    e->how = BR_CALIB_RANGE;
    e->lo = 0.5 * limit_pct;
    e->hi = 1.01 * limit_pct;
    e = add(t, "register-limited: max warps per SM", "calib_reglimit", c_maxw,
            "2 blocks x 8 warps at 128 registers");
    e->how = BR_CALIB_ABS;
    e->value = 16.0;
    e->tol = 0.0;
    e->optional = true;
    e = add(t, "register-limited: occupancy of its limit %", "calib_reglimit", c_occmax,
            "achieved <= limit");
    e->how = BR_CALIB_RANGE;
    e->lo = 50.0;
    e->hi = 101.0;
    e->optional = true;
}

/* One cuBLAS GEMM: tensor FLOPs of all kernels, and the bound label of the
 * kernel with the most of them (max_col: the NVIDIA|AMD column names). The
 * check names are kept, not copied: literals. */
static void gemm(struct tab *t, const char *flop_check, const char *bound_check,
                 const char *const *col, const char *max_col, double flop)
{
    rel(t, flop_check, NULL, col, flop, 0.001, "2·M·N·K x launches");
    t->v[t->n - 1].row = BR_CALIB_ROW_TOTAL;
    struct br_calib_expect *e = add(t, bound_check, NULL, c_bound,
                                    "tensor-core GEMM, M = N = K = gemm_n");
    e->row = BR_CALIB_ROW_MAX_OF;
    e->max_col = max_col;
    e->how = BR_CALIB_LABEL;
    e->label = "compute";
}

/* One tensor-path kernel (calib.cu "tensor-core paths"): M x N x K of its
 * instruction, issued by each warp (mma.sync) or warpgroup (wgmma). */
struct tpath {
    const char *check, *kernel;
    const char *const *col;
    int m, n, k;
    bool per_warpgroup;
};

static const struct tpath tpaths[] = {
    { "mma.sync m16n8k16 bf16: BF16 tensor FLOPs", "calib_mma_bf16_k16", c_tbf16, 16, 8, 16, false },
    { "mma.sync m16n8k8 bf16: BF16 tensor FLOPs", "calib_mma_bf16_k8", c_tbf16, 16, 8, 8, false },
    { "mma.sync m16n8k16 f16 (f16 acc): FP16 tensor FLOPs", "calib_mma_f16_k16", c_tf16, 16, 8, 16, false },
    { "mma.sync m16n8k8 f16 (f16 acc): FP16 tensor FLOPs", "calib_mma_f16_k8", c_tf16, 16, 8, 8, false },
    { "mma.sync m16n8k16 f16 (f32 acc): FP16 tensor FLOPs", "calib_mma_f16f32_k16", c_tf16, 16, 8, 16, false },
    { "mma.sync m16n8k8 f16 (f32 acc): FP16 tensor FLOPs", "calib_mma_f16f32_k8", c_tf16, 16, 8, 8, false },
    { "mma.sync m16n8k8 tf32: TF32 tensor FLOPs", "calib_mma_tf32_k8", c_ttf32, 16, 8, 8, false },
    { "mma.sync m16n8k32 s8: INT8 tensor ops", "calib_mma_s8_k32", c_ti8, 16, 8, 32, false },
    { "mma.sync m8n8k4 f64: FP64 tensor FLOPs", "calib_mma_f64_k4", c_t64, 8, 8, 4, false },
    { "wgmma m64n64k16 bf16: BF16 tensor FLOPs", "calib_wgmma_bf16", c_tbf16, 64, 64, 16, true },
    { "wgmma m64n64k16 f16 (f32 acc): FP16 tensor FLOPs", "calib_wgmma_f16", c_tf16, 64, 64, 16, true },
    { "wgmma m64n64k16 f16 (f16 acc): FP16 tensor FLOPs", "calib_wgmma_f16_f16", c_tf16, 64, 64, 16, true },
    { "wgmma m64n64k8 tf32: TF32 tensor FLOPs", "calib_wgmma_tf32", c_ttf32, 64, 64, 8, true },
    { "wgmma m64n64k32 e4m3: FP8 tensor FLOPs", "calib_wgmma_e4m3", c_tf8, 64, 64, 32, true },
    { "wgmma m64n64k32 e5m2: FP8 tensor FLOPs", "calib_wgmma_e5m2", c_tf8, 64, 64, 32, true },
    { "wgmma m64n64k32 s8: INT8 tensor ops", "calib_wgmma_s8", c_ti8, 64, 64, 32, true },
};

/* FLOPs = 2*M*N*K x 4 instructions per iteration x iters x issuers x launches,
 * issuers = blocks x 4 warps (mma.sync) or blocks x 1 warpgroup (wgmma). The
 * mixed kernel issues one of each per iteration: per thread 1 DFMA + 1 DMUL +
 * 1 DADD (4 FLOP), likewise FP32, and HFMA2 + HMUL2 + HADD2 (8 FLOP done,
 * counted 4: one per thread instruction, 2 for the FMA); per warp one
 * m16n8k16 bf16 (4096) and one m8n8k4 f64 (512); per warpgroup one m64n64k16
 * bf16 (131072). */
static void tensor_paths(struct tab *t, const struct br_calib_params *p)
{
    double launches = (double)p->mma_reps * (double)p->mma_iters;
    double warps = 4.0 * (double)p->mma_blocks, groups = (double)p->mma_blocks;
    for (size_t i = 0; i < sizeof(tpaths) / sizeof(*tpaths); i++) {
        const struct tpath *x = &tpaths[i];
        double flop = 2.0 * x->m * x->n * x->k * 4.0 * launches * (x->per_warpgroup ? groups : warps);
        rel(t, x->check, x->kernel, x->col, flop, 0.001,
            x->per_warpgroup ? "2·M·N·K x 4 x iters x warpgroups x launches"
                             : "2·M·N·K x 4 x iters x warps x launches");
    }
    double thr = 128.0 * (double)p->mma_blocks * launches;
    const char *k = "calib_mixed_paths";
    rel(t, "mixed paths: FP64 CUDA-core FLOPs", k, c_fp64, 4.0 * thr, 0.001, "DFMA + DMUL + DADD per thread");
    rel(t, "mixed paths: FP32 CUDA-core FLOPs", k, c_fp32, 4.0 * thr, 0.001, "FFMA + FMUL + FADD per thread");
    rel(t, "mixed paths: FP16 CUDA-core FLOPs", k, c_fp16, 4.0 * thr, 0.001,
        "HFMA2 + HMUL2 + HADD2 per thread, each counted once (HFMA2 as 2)");
    rel(t, "mixed paths: BF16 tensor FLOPs (HMMA + HGMMA)", k, c_tbf16,
        launches * (warps * 4096.0 + groups * 131072.0), 0.001, "m16n8k16 per warp + m64n64k16 per warpgroup");
    rel(t, "mixed paths: FP64 tensor FLOPs (DMMA)", k, c_t64, launches * warps * 512.0, 0.001,
        "m8n8k4 per warp");
}

/* The tensor FLOPs of column col that the tensor-path kernels add to the
 * TOTAL row (the GEMM checks read "all kernels"). */
static double tensor_paths_total(const struct br_calib_params *p, const char *const *col)
{
    if (!p->tensor_paths)
        return 0;
    struct tab t = { 0 };
    tensor_paths(&t, p);
    double sum = 0;
    for (size_t i = 0; i < t.n; i++)
        if (t.v[i].cols == col)
            sum += t.v[i].value;
    free(t.v);
    return sum;
}

static void gemms(struct tab *t, const struct br_calib_params *p)
{
    double n = (double)p->gemm_n;
    double flop = 2.0 * n * n * n * (double)p->gemm_reps;
    gemm(t, "DGEMM (cuBLAS): FP64 tensor FLOPs, all kernels", "DGEMM (cuBLAS): bound", c_t64,
         "FP64_TENSOR_FLOP|FP64_MFMA_FLOP", flop + tensor_paths_total(p, c_t64));
    gemm(t, "BF16 GEMM (cuBLAS): BF16 tensor FLOPs, all kernels", "BF16 GEMM (cuBLAS): bound",
         c_tbf16, "BF16_TENSOR_FLOP|BF16_MFMA_FLOP", flop + tensor_paths_total(p, c_tbf16));
}


size_t br_calib_expect_table(const struct br_calib_params *p, struct br_calib_expect **out)
{
    struct tab t = { 0 };
    streams(&t, p);
    fma_loops(&t, p);
    reglimit(&t, p);
    if (p->tensor_paths)
        tensor_paths(&t, p);
    gemms(&t, p);
    *out = t.v;
    return t.n;
}
