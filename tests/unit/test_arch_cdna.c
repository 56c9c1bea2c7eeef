/* test_arch_cdna.c - known answers of the gfx90a (MI250X GCD / MI250 / MI210)
 * and gfx950 (MI350X / MI355X) profiles, every number computed by hand from
 * the data sheets' per-CU rates (the profiles' constant_sources):
 *   peak TFLOP/s = CUs x MHz x FLOP per clock per CU / 1e6.
 * gfx90a, one MI250X GCD: 110 x 1700 x 128 / 1e6 = 23.936 FP64 vector
 * (data sheet: 47.9 for two GCDs); MI210 (104 CUs): 22.6304 (data sheet 22.6).
 * gfx950, MI350X: 256 x 2200 x 128 / 1e6 = 72.0896; MI355X at 2400 MHz:
 * 78.6432 (data sheet 78.6), FP6/FP4 256 x 2400 x 16384 / 1e6 = 10066.3296
 * (10.1 PFLOP/s). Also: what the profiles leave out (no FP8 on CDNA2), the
 * gfx90a TCC_EA_* byte formula, the 160 KiB LDS limit of gfx950, and that
 * every constant cites a source. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "arch/arch.h"
#include "archeval.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static const char *P90A = BR_SOURCE_DIR "/share/benchrun/arch/gfx90a.json";
static const char *P950 = BR_SOURCE_DIR "/share/benchrun/arch/gfx950.json";

struct want { const char *name; double v; };

static void expect_consts(const struct arch_profile *ap, const struct want *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double got = arch_const(ap, w[i].name);
        if (!(fabs(got - w[i].v) <= 1e-9 * fabs(w[i].v)))
            fail_msg("%s: %s = %.10g, want %.10g", ap->arch, w[i].name, got, w[i].v);
    }
}

static bool pass_has(const struct arch_profile *ap, const char *counter)
{
    for (int p = 0; p < ap->npasses; p++)
        for (size_t c = 0; c < ap->passes[p].counters.n; c++)
            if (!strcmp(ap->passes[p].counters.v[c], counter))
                return true;
    return false;
}

static bool has_metric(const struct arch_profile *ap, const char *name)
{
    for (int m = 0; m < ap->nmetrics; m++)
        if (!strcmp(ap->metrics[m].name, name))
            return true;
    return false;
}

static double waves(struct arch_profile *ap, double vgpr, double agpr, double lds, double wg)
{
    double attr[AA_COUNT] = { vgpr, agpr, 0, lds, 0, wg, 0 };
    return metric_eval(ap, "max_waves_CU", attr, NULL, NAN);
}

static void every_constant_cited(const struct arch_profile *ap)
{
    for (int i = 0; i < ap->nconsts; i++)
        if (!ap->consts[i].cited || !*ap->consts[i].cited)
            fail_msg("%s: %s has no constant_sources entry", ap->arch, ap->consts[i].name);
}

static void test_gfx90a(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(P90A, NULL, 0);
    assert_non_null(ap);
    assert_string_equal(ap->arch, "gfx90a");
    static const struct want w[] = {
        { "N_XCC", 1 }, { "N_CU", 110 }, { "N_SIMD", 440 }, { "WAVE", 64 }, { "MAX_WAVES_CU", 32 },
        { "MAX_WAVES_SIMD", 8 }, { "VGPR_PER_SIMD", 512 }, { "LDS_PER_CU", 65536 },
        { "F_BOOST_MHZ", 1700 }, { "TDP_W", 560 },
        { "PEAK_FP64_VALU", 23.936 }, { "PEAK_FP32_VALU", 47.872 }, { "PEAK_FP16_VALU", 47.872 },
        { "PEAK_FP64_MFMA", 47.872 }, { "PEAK_FP32_MFMA", 47.872 }, { "PEAK_BF16_MFMA", 191.488 },
        { "PEAK_F16_MFMA", 191.488 }, { "PEAK_I8_MFMA", 191.488 }, { "PEAK_MEM_BW", 1.6 },
    };
    expect_consts(ap, w, sizeof(w) / sizeof(*w));
    /* CDNA2 has no FP8: neither the peak, the counter nor the metric */
    assert_int_equal(arch_const_index(ap, "PEAK_F8_MFMA"), -1);
    assert_false(pass_has(ap, "SQ_INSTS_VALU_MFMA_MOPS_F8"));
    assert_false(has_metric(ap, "TFLOPs_F8_MFMA"));
    /* gfx90a names the L2 -> memory counters TCC_EA_*, not TCC_EA0_* */
    assert_true(pass_has(ap, "TCC_EA_RDREQ_sum"));
    assert_true(pass_has(ap, "TCC_EA_WRREQ_64B_sum"));
    assert_false(pass_has(ap, "TCC_EA0_RDREQ_sum"));
    assert_false(pass_has(ap, "TCC_BUBBLE_sum"));
    assert_false(has_metric(ap, "read_128B_pct"));
    /* read bytes = 64 x (RDREQ - RDREQ_32B) + 32 x RDREQ_32B: 10 and 4 per ns
     * -> (64 x 6 + 32 x 4) B/ns = 512 GB/s = 0.512 TB/s; writes 32 x (8 - 2)
     * + 64 x 2 = 320 GB/s */
    struct rate r[] = { { "TCC_EA_RDREQ_sum", 10 }, { "TCC_EA_RDREQ_32B_sum", 4 },
                        { "TCC_EA_WRREQ_sum", 8 }, { "TCC_EA_WRREQ_64B_sum", 2 },
                        { "SQ_INSTS_VALU_MFMA_MOPS_F64", 100 }, { NULL, 0 } };
    double attr[AA_COUNT] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    assert_true(fabs(metric_eval(ap, "read_BW_TBps", attr, r, NAN) - 0.512) < 1e-12);
    assert_true(fabs(metric_eval(ap, "mem_BW_TBps", attr, r, NAN) - 0.832) < 1e-12);
    /* 100 FP64 MOPS per ns x 512 = 51.2 TFLOP/s = 106.95 % of one GCD's 47.872 */
    assert_true(fabs(metric_eval(ap, "TFLOPs_FP64_MFMA", attr, r, NAN) - 51.2) < 1e-12);
    assert_true(fabs(metric_eval(ap, "FP64_MFMA_peak_pct", attr, r, NAN) - 106.951871657754) < 1e-9);
    /* occupancy rules as gfx942: 128 VGPRs -> 4 waves/SIMD -> 16/CU;
     * 40 KiB LDS per 256-thread workgroup -> 1 workgroup = 4 waves */
    assert_true(waves(ap, 128, 0, 0, 256) == 16);
    assert_true(waves(ap, 20, 132, 0, 256) == 12);
    assert_true(waves(ap, 16, 0, 40960, 256) == 4);
    every_constant_cited(ap);
    /* MI210 / MI250 GCD: agent_info Cu_Count 104 */
    assert_int_equal(arch_set_const(ap, "N_CU", 104, "agent_info Cu_Count"), 0);
    static const struct want mi210[] = {
        { "PEAK_FP64_VALU", 22.6304 }, { "PEAK_BF16_MFMA", 181.0432 }, { "N_SIMD", 416 },
        { "PEAK_MEM_BW", 1.6 },
    };
    expect_consts(ap, mi210, sizeof(mi210) / sizeof(*mi210));
    arch_free(ap);
}

static void test_gfx950(void **st)
{
    (void)st;
    struct arch_profile *ap = arch_load(P950, NULL, 0);
    assert_non_null(ap);
    assert_string_equal(ap->arch, "gfx950");
    static const struct want w[] = {
        { "N_XCC", 8 }, { "N_CU", 256 }, { "N_SIMD", 1024 }, { "MAX_WAVES_CU", 32 },
        { "LDS_PER_CU", 163840 }, { "F_BOOST_MHZ", 2200 }, { "TDP_W", 1000 },
        { "PEAK_FP64_VALU", 72.0896 }, { "PEAK_FP32_VALU", 144.1792 }, { "PEAK_FP16_VALU", 144.1792 },
        { "PEAK_FP64_MFMA", 72.0896 }, { "PEAK_FP32_MFMA", 144.1792 },
        { "PEAK_BF16_MFMA", 2306.8672 }, { "PEAK_F16_MFMA", 2306.8672 },
        { "PEAK_F8_MFMA", 4613.7344 }, { "PEAK_I8_MFMA", 4613.7344 },
        { "PEAK_F6F4_MFMA", 9227.4688 }, { "PEAK_MEM_BW", 8 },
    };
    expect_consts(ap, w, sizeof(w) / sizeof(*w));
    assert_true(pass_has(ap, "SQ_INSTS_VALU_MFMA_MOPS_F6F4"));
    assert_true(pass_has(ap, "TCC_EA0_RDREQ_sum"));
    assert_true(pass_has(ap, "TCC_BUBBLE_sum"));
    /* FP6/FP4 in the low-precision and all-precision rates: MOPS per ns
     * BF16 1, F16 0, F8 0, I8 0, F6F4 10 -> 512 x 11 / 1000 = 5.632 TFLOP/s */
    struct rate r[] = { { "SQ_INSTS_VALU_MFMA_MOPS_BF16", 1 }, { "SQ_INSTS_VALU_MFMA_MOPS_F16", 0 },
                        { "SQ_INSTS_VALU_MFMA_MOPS_F8", 0 }, { "SQ_INSTS_VALU_MFMA_MOPS_I8", 0 },
                        { "SQ_INSTS_VALU_MFMA_MOPS_F6F4", 10 }, { NULL, 0 } };
    double attr[AA_COUNT] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    assert_true(fabs(metric_eval(ap, "TFLOPs_lowp_MFMA", attr, r, NAN) - 5.632) < 1e-12);
    assert_true(fabs(metric_eval(ap, "TFLOPs_all", attr, r, NAN) - 5.632) < 1e-12);
    /* % of peak summed over precisions: 0.512 / 2306.8672 + 5.12 / 9227.4688 */
    double pct = 100 * (0.512 / 2306.8672 + 5.12 / 9227.4688);
    assert_true(fabs(metric_eval(ap, "compute_peak_pct", attr, r, NAN) - pct) < 1e-12);
    /* LDS 160 KiB: 40 KiB per 256-thread workgroup -> 4 workgroups = 16 waves
     * (gfx942: 4); 64 KiB -> 2 workgroups = 8 waves; registers as gfx942 */
    assert_true(waves(ap, 16, 0, 40960, 256) == 16);
    assert_true(waves(ap, 16, 0, 65536, 256) == 8);
    assert_true(waves(ap, 128, 0, 0, 256) == 16);
    every_constant_cited(ap);
    /* MI355X: agent_info Max_Engine_Clk_Fcompute 2400 */
    assert_int_equal(arch_set_const(ap, "F_BOOST_MHZ", 2400, "agent_info Max_Engine_Clk_Fcompute"), 0);
    static const struct want mi355[] = {
        { "PEAK_FP64_VALU", 78.6432 }, { "PEAK_BF16_MFMA", 2516.5824 },
        { "PEAK_F6F4_MFMA", 10066.3296 }, { "PEAK_MEM_BW", 8 },
    };
    expect_consts(ap, mi355, sizeof(mi355) / sizeof(*mi355));
    /* CPX partition: 32 CUs, one XCC */
    assert_int_equal(arch_set_const(ap, "N_CU", 32, "agent_info Cu_Count"), 0);
    static const struct want cpx[] = { { "PEAK_FP64_VALU", 78.6432 / 8 } };
    expect_consts(ap, cpx, 1);
    arch_free(ap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gfx90a),
        cmocka_unit_test(test_gfx950),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
