/* test_gh100_limits.c - known answers for gh100.json's per-kernel occupancy
 * limit, tensor pipe busy and tensor FLOP rates per instruction path.
 *
 * max_waves_CU (warps per SM a kernel can have resident) from registers per
 * thread, shared memory per block and block size, checked against the
 * arithmetic of CUDA 13.0 cuda_occupancy.h (cudaOccMaxBlocksPerSMRegsLimit,
 * cudaOccMaxBlocksPerSMSmemLimit) with H100/H200 numbers: 65536 registers per
 * SM in 4 sub-partitions, allocated per warp in units of 256; 64 warps and 32
 * blocks per SM; 228 KiB shared memory, 1 KiB reserved per block, 128 B units.
 * SPDX-License-Identifier: MIT
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "archeval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *PROFILE = BR_SOURCE_DIR "/share/benchrun/arch/gh100.json";

static double limit_for(struct arch_profile *ap, const char *name, double regs, double smem,
                        double threads)
{
    double attr[AA_COUNT] = { 0 };
    attr[AA_VGPR] = regs;
    attr[AA_LDS] = smem;
    attr[AA_WG_SIZE] = threads;
    return metric_eval(ap, name, attr, NULL, NAN);
}

#define WARPS(regs, smem, threads, want)                                                  \
    do {                                                                                  \
        double got_ = limit_for(ap, "max_waves_CU", regs, smem, threads);                 \
        if (got_ != (want))                                                               \
            fail_msg("%g regs, %g B shared, %g threads: %g warps/SM, want %g",            \
                     (double)(regs), (double)(smem), (double)(threads), got_, (double)(want)); \
    } while (0)

static void test_registers(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(PROFILE, NULL, 0);
    assert_non_null(ap);
    /* calib_reglimit: 128 regs x 32 = 4096 per warp, 16384 / 4096 = 4 warps per
     * sub-partition = 16 per SM = 2 blocks of 8 warps */
    WARPS(128, 0, 256, 16);
    /* 32 regs: 1024 per warp, 16 per sub-partition = 64: warp limit */
    WARPS(32, 0, 256, 64);
    /* 40 regs: 1280 per warp, floor(16384 / 1280) = 12 per sub-partition = 48
     * warps = 24 blocks of 2 warps (a whole-SM division would give 25 = 50) */
    WARPS(40, 0, 64, 48);
    /* 255 regs round up to 8192 per warp: 2 per sub-partition = 8 warps */
    WARPS(255, 0, 128, 8);
    /* 72 regs: 2304 per warp, 7 per sub-partition = 28 warps = 7 blocks of 4 */
    WARPS(72, 0, 128, 28);
    arch_free(ap);
}

/* Tensor pipe busy: sm__pipe_tensor_cycles_active.sum adds the 4 sub-partitions'
 * pipes, so all of them busy every cycle on all 132 SMs = 100 %. H200, nvjet
 * BF16 GEMM: 276 % over SM cycles alone = 4 x 69 %, its share of the BF16
 * peak at the measured 1980 MHz. */
static void test_tensor_pipe(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(PROFILE, NULL, 0);
    assert_non_null(ap);
    double attr[AA_COUNT] = { 0 };
    struct rate all[] = { { "sm__pipe_tensor_cycles_active.sum", 1.98 * 132 * 4 }, { NULL, 0 } };
    assert_true(fabs(metric_eval(ap, "MfmaUtil_pct", attr, all, 1980) - 100.0) < 1e-9);
    struct rate gemm[] = { { "sm__pipe_tensor_cycles_active.sum", 2.76 * 1.98 * 132 }, { NULL, 0 } };
    assert_true(fabs(metric_eval(ap, "MfmaUtil_pct", attr, gemm, 1980) - 69.0) < 1e-9);
    arch_free(ap);
}

/* Tensor FLOP rates per instruction path. The factors are the
 * H200 calibration's (every path counter = 2*M*N*K x instructions, ncu and
 * benchrun calibrate): exactly 1. A kernel mixing paths adds them: counter
 * rates per ns in, TFLOP/s = FLOP/ns / 1000 out, computed here by hand. */
static void test_tensor_paths(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(PROFILE, NULL, 0);
    assert_non_null(ap);
    const char *factors[] = { "TENSOR_FLOP_PER_OP_HGMMA", "TENSOR_FLOP_PER_OP_HMMA",
                              "TENSOR_FLOP_PER_OP_QGMMA", "TENSOR_FLOP_PER_OP_IGMMA",
                              "TENSOR_FLOP_PER_OP_IMMA", "TENSOR_FLOP_PER_OP_DMMA" };
    for (size_t f = 0; f < sizeof(factors) / sizeof(*factors); f++) {
        bool found = false;
        for (int i = 0; i < ap->nconsts; i++)
            if (!strcmp(ap->consts[i].name, factors[f])) {
                found = true;
                assert_true(ap->consts[i].value == 1.0);
            }
        if (!found)
            fail_msg("%s not in gh100.json", factors[f]);
    }
    double attr[AA_COUNT] = { 0 };
    /* 500e3 FLOP/ns on wgmma + 250e3 on mma.sync: 750 TFLOP/s of BF16 */
    struct rate bf16[] = { { "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", 500e3 },
                           { "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum", 250e3 },
                           { NULL, 0 } };
    assert_true(fabs(metric_eval(ap, "TFLOPs_BF16_TENSOR", attr, bf16, 1980) - 750.0) < 1e-9);
    /* FP16: wgmma 100e3, mma.sync f16-accumulate 20e3 (pass 04), f32-accumulate
     * 30e3 (pass 06): 150 TFLOP/s; without pass 04 (NaN) the other two, 130 */
    struct rate f16[] = { { "sm__ops_path_tensor_op_hgmma_src_fp16.sum", 100e3 },
                          { "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum", 20e3 },
                          { "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum", 30e3 },
                          { NULL, 0 } };
    assert_true(fabs(metric_eval(ap, "TFLOPs_F16_TENSOR", attr, f16, 1980) - 150.0) < 1e-9);
    f16[1].counter = "not_collected";
    assert_true(fabs(metric_eval(ap, "TFLOPs_F16_TENSOR", attr, f16, 1980) - 130.0) < 1e-9);
    struct rate tf32[] = { { "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum", 40e3 },
                           { "sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32.sum", 2e3 },
                           { NULL, 0 } };
    assert_true(fabs(metric_eval(ap, "TFLOPs_TF32_TENSOR", attr, tf32, 1980) - 42.0) < 1e-9);
    struct rate i8[] = { { "sm__ops_path_tensor_op_igmma_src_int8.sum", 900e3 },
                         { "sm__ops_path_tensor_op_imma_src_int8_sparsity_off.sum", 100e3 },
                         { NULL, 0 } };
    assert_true(fabs(metric_eval(ap, "TFLOPs_I8_TENSOR", attr, i8, 1980) - 1000.0) < 1e-9);
    struct rate f64[] = { { "sm__ops_path_tensor_src_fp64.sum", 60e3 }, { NULL, 0 } };
    assert_true(fabs(metric_eval(ap, "TFLOPs_FP64_TENSOR", attr, f64, 1980) - 60.0) < 1e-9);
    arch_free(ap);
}

static void test_blocks_and_smem(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(PROFILE, NULL, 0);
    assert_non_null(ap);
    /* registers unknown (0): block size and the 32-block limit only */
    WARPS(0, 0, 256, 64);
    WARPS(0, 0, 32, 32);
    /* 1024 threads = 32 warps: 2 blocks */
    WARPS(32, 0, 1024, 64);
    /* 48 KiB shared: ceilto(49152 + 1024, 128) = 50176 B, 233472 / 50176 = 4 blocks */
    WARPS(32, 49152, 256, 32);
    /* 227 KiB (the opt-in maximum): 1 block */
    WARPS(32, 232448, 128, 4);
    /* Occupancy_of_max_pct needs counters: NaN from attributes alone */
    assert_true(isnan(limit_for(ap, "Occupancy_of_max_pct", 128, 0, 256)));
    arch_free(ap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registers),
        cmocka_unit_test(test_blocks_and_smem),
        cmocka_unit_test(test_tensor_pipe),
        cmocka_unit_test(test_tensor_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
