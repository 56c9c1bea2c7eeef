/* test_metrics.c - known answers for the metric engine (src/metrics) on
 * hand-built aggregates: every formula family per kernel and for TOTAL
 * (utilization, FLOPs, useful FLOPs per kernel then summed, instruction mix,
 * memory with each direction over its own pass, roofline, all-precision mix,
 * bound labels, dominant precision), cross-pass rates with launch counts and
 * durations differing per pass, a missing pass, a counter missing
 * everywhere, a kernel over a physical limit, the GRBM clock fallback, top
 * kernels, time spread and lost launches, display names, and the sampled
 * clock from a telemetry file. Expected values are written out from
 * docs/design.md §14 here, not taken from the profile. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sampledclock.h"

#include "metrics/metrics.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *PROFILE = BR_SOURCE_DIR "/share/benchrun/arch/gfx942.json";
static const char *const PASSES[6] = { "01_fp64_flops", "02_fp32_int_ops", "03_fp16_instmix",
                                       "04_cu_util", "05_hbm_read", "06_hbm_write" };

#define CLK 1500.0            /* MHz, --clock-mhz in most tests */
#define CYC (CLK / 1000.0)    /* cycles per ns */

/* ---- a hand-built run: 6 passes x nk kernels, counters as in the profile ---- */

struct fx {
    struct rp_run run;
    struct arch_profile *ap;
    struct arch_pass defs[6];
    struct mx_result res;
};

static void fx_init(struct fx *f, int nk, const char *const *names)
{
    memset(f, 0, sizeof(*f));
    f->ap = arch_load(PROFILE, PASSES, 6);
    assert_non_null(f->ap);
    intern_init(&f->run.names);
    for (int k = 0; k < nk; k++)
        intern_add(&f->run.names, names[k], strlen(names[k]));
    f->run.attr = xcalloc((size_t)nk, sizeof(*f->run.attr));
    f->run.nattr = (uint32_t)nk;
    f->run.npasses = 6;
    f->run.passes = xcalloc(6, sizeof(struct rp_pass));
    for (int p = 0; p < 6; p++) {
        struct rp_pass *ps = &f->run.passes[p];
        const struct arch_pass *ap = &f->ap->passes[p];
        assert_string_equal(ap->name, PASSES[p]);
        ps->name = xstrdup(PASSES[p]);
        ps->present = true;
        ps->ncounters = (uint32_t)ap->counters.n;
        ps->counters = xcalloc(ap->counters.n + 1, sizeof(char *));
        for (size_t c = 0; c < ap->counters.n; c++)
            ps->counters[c] = xstrdup(ap->counters.v[c]);
        ps->nkernels = (uint32_t)nk;
        ps->launches = xcalloc((size_t)nk, sizeof(uint64_t));
        ps->dur_ns = xcalloc((size_t)nk, sizeof(double));
        ps->csum = xcalloc((size_t)nk * ps->ncounters, sizeof(double));
        ps->crows = xcalloc((size_t)nk * ps->ncounters, sizeof(uint64_t));
        f->defs[p] = (struct arch_pass){ .name = (char *)PASSES[p], .counters = ap->counters };
    }
}

static void fx_free(struct fx *f)
{
    mx_release(&f->res);
    rp_run_release(&f->run);
    arch_free(f->ap);
}

/* Kernel k ran in pass p for dur ns with n launches. */
static void dur(struct fx *f, int p, int k, double d, uint64_t n)
{
    struct rp_pass *ps = &f->run.passes[p];
    ps->dur_ns[k] = d;
    ps->launches[k] = n;
    ps->dur_ns_total += d;
    ps->launches_total += n;
}

/* Counter c of kernel k in every pass collecting it: rate per ns x the
 * kernel's time in that pass (so the rate is exact whatever the time). */
static void rate(struct fx *f, int k, const char *c, double r)
{
    for (uint32_t p = 0; p < f->run.npasses; p++) {
        struct rp_pass *ps = &f->run.passes[p];
        for (uint32_t i = 0; i < ps->ncounters; i++)
            if (!strcmp(ps->counters[i], c)) {
                ps->csum[(size_t)k * ps->ncounters + i] = r * ps->dur_ns[k];
                ps->crows[(size_t)k * ps->ncounters + i] = ps->launches[k];
            }
    }
}

static double val(const struct fx *f, int row, const char *metric)
{
    int m = mx_metric_index(f->ap, metric);
    if (m < 0)
        fail_msg("no metric %s", metric);
    return mx_value(&f->res, (uint32_t)row, m);
}

static const char *lab(const struct fx *f, int row, const char *metric)
{
    return mx_label(&f->res, (uint32_t)row, mx_metric_index(f->ap, metric));
}

#define NEAR(a, b) do { double a_ = (a), b_ = (b); \
    if (!(fabs(a_ - b_) <= 1e-9 * fabs(b_) + 1e-12)) fail_msg("%s = %.15g, want %.15g", #a, a_, b_); \
} while (0)

static bool has_warning(const struct mx_result *r, const char *a, const char *b)
{
    for (size_t i = 0; i < r->nwarn; i++)
        if (strstr(r->warn[i], a) && (!b || strstr(r->warn[i], b)))
            return true;
    return false;
}

static int compute(struct fx *f, enum mx_clock_src src)
{
    struct mx_opts o = { .time_pct = 90, .latency_pct = 10, .clock_src = src,
                         .clock_mhz = src == MX_CLOCK_FALLBACK ? NAN : CLK };
    return mx_compute(&f->res, f->ap, &f->run, NULL, f->defs, 6, &o);
}

/* Pass times: kernel A (0) 1 ms x (1 + 0.1 p), 10 + p launches; kernel B (1)
 * 0.5 ms x (1 + 0.3 p), 20 - p launches: launch counts and durations differ
 * between passes. */
static double DA(int p) { return 1e6 * (1 + 0.1 * p); }
static double DB(int p) { return 5e5 * (1 + 0.3 * p); }

static void two_kernels(struct fx *f)
{
    static const char *const names[2] = { "void kern_a<double>(double*, int)", "kern_b" };
    fx_init(f, 2, names);
    for (int p = 0; p < 6; p++) {
        dur(f, p, 0, DA(p), 10 + (uint64_t)p);
        dur(f, p, 1, DB(p), 20 - (uint64_t)p);
    }
    /* A: FP64 VALU compute kernel. 64 x (1 + 2 + 2x3 + 0.5) = 608 FLOP/ns */
    rate(f, 0, "SQ_INSTS_VALU_ADD_F64", 1);
    rate(f, 0, "SQ_INSTS_VALU_MUL_F64", 2);
    rate(f, 0, "SQ_INSTS_VALU_FMA_F64", 3);
    rate(f, 0, "SQ_INSTS_VALU_TRANS_F64", 0.5);
    rate(f, 0, "SQ_INSTS_VALU_MFMA_MOPS_F64", 0);
    rate(f, 0, "SQ_INSTS_VALU", 13);
    rate(f, 0, "SQ_BUSY_CU_CYCLES", 0.5 * CYC * 304);
    rate(f, 0, "SQ_ACTIVE_INST_VALU", 0.2 * CYC * 304);
    rate(f, 0, "SQ_THREAD_CYCLES_VALU", 48 * 0.2 * CYC * 304);
    rate(f, 0, "SQ_WAVE_CYCLES", 8 * CYC * 304 / 4);
    rate(f, 0, "SQ_ACTIVE_INST_ANY", 0.1 * 8 * CYC * 304 / 4);
    rate(f, 0, "TCC_EA0_RDREQ_sum", 1);
    rate(f, 0, "TCC_BUBBLE_sum", 1);
    rate(f, 0, "TCC_EA0_RDREQ_32B_sum", 0);
    rate(f, 0, "TCC_EA0_WRREQ_sum", 0);
    rate(f, 0, "TCC_EA0_WRREQ_64B_sum", 0);
    rate(f, 0, "SQ_INSTS_SALU", 1);
    rate(f, 0, "SQ_INSTS_VMEM_RD", 3);
    rate(f, 0, "SQ_INSTS_VMEM_WR", 2);
    rate(f, 0, "SQ_INSTS_LDS", 1);
    /* B: memory kernel without FLOPs. */
    rate(f, 1, "SQ_INSTS_VALU_ADD_F64", 0);
    rate(f, 1, "SQ_INSTS_VALU_MUL_F64", 0);
    rate(f, 1, "SQ_INSTS_VALU_FMA_F64", 0);
    rate(f, 1, "SQ_INSTS_VALU_TRANS_F64", 0);
    rate(f, 1, "SQ_INSTS_VALU_MFMA_MOPS_F64", 0);
    rate(f, 1, "SQ_INSTS_VALU", 2);
    rate(f, 1, "SQ_BUSY_CU_CYCLES", 0.9 * CYC * 304);
    rate(f, 1, "SQ_ACTIVE_INST_VALU", 0.1 * CYC * 304);
    rate(f, 1, "SQ_THREAD_CYCLES_VALU", 16 * 0.1 * CYC * 304);
    rate(f, 1, "SQ_WAVE_CYCLES", 4 * CYC * 304 / 4);
    rate(f, 1, "TCC_EA0_RDREQ_sum", 20);
    rate(f, 1, "TCC_BUBBLE_sum", 5);
    rate(f, 1, "TCC_EA0_RDREQ_32B_sum", 5);
    rate(f, 1, "TCC_EA0_WRREQ_sum", 10);
    rate(f, 1, "TCC_EA0_WRREQ_64B_sum", 4);
    rate(f, 1, "TCC_EA0_ATOMIC_sum", 1);
    for (int k = 0; k < 2; k++)
        rate(f, k, "GRBM_GUI_ACTIVE", 8 * CYC);   /* 1500 MHz x 8 XCC */
    f->run.attr[0] = (struct rp_kattr){ .vgpr = 28, .agpr = 4, .wg_size = 256, .seen = true };
    f->run.attr[1] = (struct rp_kattr){ .vgpr = 128, .lds = 16384, .wg_size = 256, .seen = true };
}

static void test_per_kernel(void **st)
{
    (void)st;
    struct fx f;
    two_kernels(&f);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_int_equal(f.res.nk, 2);
    /* utilization (pass 4 counters at 1500 MHz) */
    NEAR(val(&f, 0, "CU_busy_frac"), 0.5);
    NEAR(val(&f, 0, "CU_busy_pct"), 50);
    NEAR(val(&f, 0, "VALUBusy_pct"), 20);
    NEAR(val(&f, 0, "VALU_threads"), 48);
    NEAR(val(&f, 0, "VALUUtilization_pct"), 75);
    NEAR(val(&f, 0, "waves_per_CU"), 8);
    NEAR(val(&f, 0, "Occupancy_pct"), 25);
    NEAR(val(&f, 0, "Wave_issue_pct"), 10);
    NEAR(val(&f, 0, "clock_factor"), 1500.0 / 2100);
    NEAR(val(&f, 0, "eff_clock_MHz"), 1500);
    /* max waves (docs/design.md §14 examples): 28 VGPR + 4 AGPR -> 32/CU; 128 VGPR
     * -> 16, LDS 16 KiB x 4 waves/WG -> 16 */
    NEAR(val(&f, 0, "max_waves_CU"), 32);
    NEAR(val(&f, 1, "max_waves_CU"), 16);
    NEAR(val(&f, 0, "Occupancy_of_max_pct"), 25);
    NEAR(val(&f, 1, "Occupancy_of_max_pct"), 25);
    /* FLOPs: 608 FLOP/ns over pass 1's time */
    NEAR(val(&f, 0, "FP64_VALU_FLOP"), 608 * DA(0));
    NEAR(val(&f, 0, "FP64_TRANS_FLOP"), 64 * 0.5 * DA(0));
    NEAR(val(&f, 0, "TFLOPs_FP64_VALU"), 0.608);
    NEAR(val(&f, 0, "FP64_VALU_FLOP_useful"), 608 * DA(0) * 0.75);
    NEAR(val(&f, 0, "TFLOPs_FP64_VALU_useful"), 0.608 * 0.75);
    NEAR(val(&f, 0, "FP64_VALU_peak_pct"), 100 * 0.608 / 81.7);
    NEAR(val(&f, 0, "FP64_VALU_peak_clk_pct"), 100 * 0.608 / (81.7 * 1500 / 2100));
    NEAR(val(&f, 0, "FP64_share_pct"), 100 * 6.5 / 13);
    /* instruction mix among VALU 13, SALU 1, VMEM_RD 3, VMEM_WR 2, LDS 1 */
    NEAR(val(&f, 0, "inst_VALU_pct"), 65);
    NEAR(val(&f, 0, "inst_VMEM_RD_pct"), 15);
    /* memory: B reads 128x5 + 64x10 + 32x5 = 1440 B/ns over pass 5, writes
     * 32x6 + 64x4 = 448 B/ns over pass 6 */
    NEAR(val(&f, 1, "mem_read_bytes"), 1440 * DB(4));
    NEAR(val(&f, 1, "mem_write_bytes"), 448 * DB(5));
    NEAR(val(&f, 1, "read_BW_TBps"), 1.44);
    NEAR(val(&f, 1, "write_BW_TBps"), 0.448);
    NEAR(val(&f, 1, "mem_BW_TBps"), 1.888);
    NEAR(val(&f, 1, "mem_BW_peak_pct"), 100 * 1.888 / 5.3);
    NEAR(val(&f, 1, "read_128B_pct"), 25);
    NEAR(val(&f, 1, "read_32B_pct"), 25);
    NEAR(val(&f, 1, "atomic_req_pct"), 10);
    NEAR(val(&f, 1, "atomic_bytes"), 32 * DB(5));
    /* roofline: A reads 128 B/ns = 0.128 TB/s, AI = 0.608 / 0.128 = 4.75 */
    NEAR(val(&f, 0, "AI_FP64"), 4.75);
    NEAR(val(&f, 0, "attainable_TFLOPs"), 4.75 * 5.3);
    NEAR(val(&f, 0, "roofline_pct"), 100 * 0.608 / (4.75 * 5.3));
    /* FP64 bound (the seed's): only the roofline side, A's 0.74% of the FP64
     * peak < its 2.4% of the bandwidth: memory; bound_mix: both below 10%,
     * latency. B: no FLOPs, 35.6% of BW: memory */
    assert_string_equal(lab(&f, 0, "bound"), "memory");
    assert_string_equal(lab(&f, 0, "bound_mix"), "latency");
    assert_string_equal(lab(&f, 1, "bound"), "memory");
    assert_string_equal(lab(&f, 1, "bound_mix"), "memory");
    assert_string_equal(lab(&f, 0, "dominant_precision"), "FP64_VALU");
    assert_null(lab(&f, 1, "dominant_precision"));
    assert_true(isnan(val(&f, 1, "attainable_TFLOPs_mix")) || val(&f, 1, "TFLOPs_all") == 0);
    /* per-pass clocks from GRBM */
    NEAR(val(&f, 0, "clock_MHz_03_fp16_instmix"), 1500);
    /* time: mean over the 6 passes; launches and their mean duration from
     * the pass collecting SQ_WAVE_CYCLES (04_cu_util: 13 launches, DA(3)) */
    NEAR(val(&f, 0, "time_ms"), (6e6 + 1.5e6) / 6 / 1e6);
    NEAR(val(&f, 0, "launches"), 13);
    assert_int_equal(mx_cell_kind(&f.res, 0, mx_metric_index(f.ap, "launches")), MX_CELL_INT);
    NEAR(val(&f, 0, "mean_launch_us"), DA(3) / 13 / 1000);
    /* eff_clock_MHz: the first pass's GRBM_GUI_ACTIVE / 8 */
    NEAR(val(&f, 0, "eff_clock_MHz"), 1500);
    /* no low-precision pass: TFLOPs_lowp_MFMA is the integer 0 (the seed's
     * empty sum), the FLOP counts "nan" */
    int lp = mx_metric_index(f.ap, "TFLOPs_lowp_MFMA"), bf = mx_metric_index(f.ap, "BF16_MFMA_FLOP");
    NEAR(val(&f, 0, "TFLOPs_lowp_MFMA"), 0);
    assert_int_equal(mx_cell_kind(&f.res, 0, lp), MX_CELL_INT);
    assert_true(isnan(mx_value(&f.res, 0, bf)));
    assert_int_equal(mx_cell_kind(&f.res, 0, bf), MX_CELL_NUM);
    assert_false(has_warning(&f.res, "physical", NULL));
    fx_free(&f);
}

static void test_whole_run(void **st)
{
    (void)st;
    struct fx f;
    two_kernels(&f);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    int T = 2;
    /* Σ over kernels within each pass, then rates */
    NEAR(val(&f, T, "TFLOPs_FP64_VALU"), 608 * DA(0) / (DA(0) + DB(0)) / 1000);
    NEAR(val(&f, T, "FP64_VALU_FLOP"), 608 * DA(0));
    double busy = (0.5 * DA(3) + 0.9 * DB(3)) / (DA(3) + DB(3));
    NEAR(val(&f, T, "CU_busy_frac"), busy);
    double act = 0.2 * DA(3) + 0.1 * DB(3), thr = 48 * 0.2 * DA(3) + 16 * 0.1 * DB(3);
    NEAR(val(&f, T, "VALU_threads"), thr / act);
    /* useful FLOPs: per kernel then summed (B has none), not whole x whole */
    NEAR(val(&f, T, "FP64_VALU_FLOP_useful"), 608 * DA(0) * 0.75);
    assert_true(fabs(val(&f, T, "FP64_VALU_FLOP_useful") -
                     val(&f, T, "FP64_VALU_FLOP") * thr / act / 64) > 1);
    NEAR(val(&f, T, "TFLOPs_FP64_VALU_useful"), 608 * DA(0) * 0.75 / (DA(0) + DB(0)) / 1000);
    /* each direction over its own pass */
    NEAR(val(&f, T, "read_BW_TBps"), (128 * DA(4) + 1440 * DB(4)) / (DA(4) + DB(4)) / 1000);
    NEAR(val(&f, T, "write_BW_TBps"), 448 * DB(5) / (DA(5) + DB(5)) / 1000);
    NEAR(val(&f, T, "time_ms"), (6e6 + 1.5e6) / 6 / 1e6 + (3e6 + 0.5e6 * 4.5) / 6 / 1e6);
    /* launches of pass 04_cu_util: 13 + 17; their time DA(3) + DB(3) */
    NEAR(val(&f, T, "launches"), 30);
    NEAR(val(&f, T, "mean_launch_us"), (DA(3) + DB(3)) / 30 / 1000);
    /* the seed's whole-run limit: the kernels' limits (A 32, B 16 waves)
     * weighted by their time in the launch pass, and occupancy against it
     * (A 8, B 4 waves/CU over pass 4) */
    double wl = (32 * DA(3) + 16 * DB(3)) / (DA(3) + DB(3));
    double wv = (8 * DA(3) + 4 * DB(3)) / (DA(3) + DB(3));
    NEAR(val(&f, T, "max_waves_CU"), wl);
    NEAR(val(&f, T, "Occupancy_of_max_pct"), 100 * wv / wl);
    int mw = mx_metric_index(f.ap, "max_waves_CU");
    assert_int_equal(mx_cell_kind(&f.res, 0, mw), MX_CELL_INT);   /* 32 */
    assert_int_equal(mx_cell_kind(&f.res, T, mw), MX_CELL_NUM);   /* a weighted mean */
    /* time shares from the passes (no power run) and top kernels */
    double ta = 7.5e6 / 6, tb = 5.25e6 / 6;
    NEAR(val(&f, 0, "time_share_pct"), 100 * ta / (ta + tb));
    NEAR(val(&f, T, "time_share_pct"), 100);
    assert_int_equal(f.res.order[0], 0);
    assert_int_equal(f.res.by_time[0], 0);
    assert_int_equal(f.res.ntop, 2);   /* A alone is 58.8% < 90% */
    /* top_share_pct: each top kernel's own share, 100 on TOTAL; the
     * cumulative one is cum_share_pct */
    NEAR(val(&f, 0, "top_share_pct"), 100 * ta / (ta + tb));
    NEAR(val(&f, 1, "top_share_pct"), 100 * tb / (ta + tb));
    NEAR(val(&f, T, "top_share_pct"), 100);
    NEAR(val(&f, 0, "cum_share_pct"), 100 * ta / (ta + tb));
    NEAR(val(&f, 1, "cum_share_pct"), 100);
    NEAR(val(&f, T, "cum_share_pct"), 100);
    /* GPU busy: TOTAL only (empty on kernels), and no power run: empty */
    assert_true(isnan(val(&f, T, "GPU_busy_pct")));
    assert_int_equal(mx_cell_kind(&f.res, 0, mx_metric_index(f.ap, "GPU_busy_pct")), MX_CELL_EMPTY);
    assert_int_equal(mx_cell_kind(&f.res, T, mx_metric_index(f.ap, "GPU_busy_pct")), MX_CELL_EMPTY);
    fx_free(&f);
}

static void test_fallback_clock(void **st)
{
    (void)st;
    struct fx f;
    two_kernels(&f);
    /* kernel B's counters ran at 1800 MHz: its own GRBM gives its clock */
    rate(&f, 1, "GRBM_GUI_ACTIVE", 8 * 1.8);
    assert_int_equal(compute(&f, MX_CLOCK_FALLBACK), 0);
    NEAR(val(&f, 0, "clock_MHz_used"), 1500);
    NEAR(val(&f, 1, "clock_MHz_used"), 1800);
    NEAR(val(&f, 1, "CU_busy_frac"), 0.9 * 1500 / 1800);
    /* TOTAL: the first pass's GRBM (eff_clock_MHz), over both kernels */
    double num = 8 * CYC * DA(0) + 8 * 1.8 * DB(0), den = DA(0) + DB(0);
    NEAR(val(&f, 2, "clock_MHz_used"), 1000 * num / den / 8);
    assert_true(has_warning(&f.res, "GRBM", "fallback"));
    assert_int_equal(f.res.clock_src, MX_CLOCK_FALLBACK);
    fx_free(&f);
}

static void test_missing_pass_and_counter(void **st)
{
    (void)st;
    struct fx f;
    two_kernels(&f);
    /* pass 6 missing: write metrics empty; RD_UNCACHED has no rows anywhere */
    f.run.passes[5].present = false;
    struct rp_pass *p5 = &f.run.passes[4];
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t c = 0; c < p5->ncounters; c++)
            if (!strcmp(p5->counters[c], "TCC_EA0_RD_UNCACHED_32B_sum"))
                p5->crows[k * p5->ncounters + c] = 0;
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_true(isnan(val(&f, 1, "write_BW_TBps")));
    assert_true(isnan(val(&f, 1, "mem_BW_TBps")));
    assert_true(isnan(val(&f, 1, "uncached_read_bytes")));
    assert_true(isnan(val(&f, 1, "clock_MHz_06_hbm_write")));
    NEAR(val(&f, 1, "read_BW_TBps"), 1.44);
    assert_null(lab(&f, 1, "bound"));
    assert_true(has_warning(&f.res, "06_hbm_write", "no counter data"));
    assert_true(has_warning(&f.res, "TCC_EA0_RD_UNCACHED_32B_sum", "no data"));
    /* time means over the 5 passes present */
    NEAR(val(&f, 0, "time_ms"), (5e6 + 1e6) / 5 / 1e6);
    fx_free(&f);
}

static void test_over_limit(void **st)
{
    (void)st;
    struct fx f;
    two_kernels(&f);
    rate(&f, 1, "SQ_BUSY_CU_CYCLES", 1.25 * CYC * 304);
    rate(&f, 0, "SQ_WAVE_CYCLES", 40 * CYC * 304 / 4);   /* 40 waves > 32 */
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    NEAR(val(&f, 1, "CU_busy_frac"), 1.25);
    assert_true(has_warning(&f.res, "kern_b", "CU busy above 1"));
    assert_true(has_warning(&f.res, "kern_a<double>", "register/LDS limit"));
    fx_free(&f);
}

static void test_pass_checks(void **st)
{
    (void)st;
    struct fx f;
    two_kernels(&f);
    /* pass 2 ran 10x longer overall; pass 3 lost launches; pass 4 at 900 MHz */
    f.run.passes[1].dur_ns_total *= 10;
    f.run.passes[2].trace_launches = 40;
    f.run.passes[2].uncounted_launches = 3;
    f.run.passes[2].trace_ns = 1e7;
    f.run.passes[2].uncounted_ns = 1e5;   /* 1% */
    rate(&f, 0, "GRBM_GUI_ACTIVE", 8 * 0.9);
    rate(&f, 1, "GRBM_GUI_ACTIVE", 8 * 0.9);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_true(has_warning(&f.res, "differs", "across passes"));
    assert_true(f.res.time_spread_pct > 5);
    assert_true(has_warning(&f.res, "03_fp16_instmix", "lost launches"));
    NEAR(f.res.pass[2].uncounted_pct, 1);
    assert_true(has_warning(&f.res, "04_cu_util", "outside 1000-2200"));
    assert_true(has_warning(&f.res, "04_cu_util", "clock mismatch"));
    fx_free(&f);
}

/* The pass clock check (clockcheck.c): counter mode adds ~16k GRBM cycles per
 * launch. Kernel A: 10 launches of 1 ms at 2100 MHz, 2.116M cycles each
 * (2116 MHz read); kernel B: 200 launches of 6 us, 12.6k + 16k = 28.6k cycles
 * each (4766.7 MHz). The pass reads (21.16M + 5.72M) / 11.2 ms = 2400 MHz,
 * over 2200: the seed's rule warns. Judged on A alone (2.116M >= 18000 x 100 /
 * 3 = 600k cycles per launch): 2116 MHz, no warning. */
static void clock_run(struct fx *f, double a_mhz, double b_mhz, bool with_a)
{
    static const char *const names[2] = { "Cijk_Ailk_Bljk_BBS_BH_MT256x256", "elementwise_add" };
    fx_init(f, 2, names);
    for (int p = 0; p < 6; p++) {
        if (with_a)
            dur(f, p, 0, 1e7, 10);
        dur(f, p, 1, 1.2e6, 200);
    }
    if (with_a)
        rate(f, 0, "GRBM_GUI_ACTIVE", 8 * a_mhz / 1000);
    rate(f, 1, "GRBM_GUI_ACTIVE", 8 * b_mhz / 1000);
}

static void test_clock_overhead(void **st)
{
    (void)st;
    struct fx f;
    clock_run(&f, 2116, 28600.0 / 6, true);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    NEAR(f.res.pass[0].eff_clock_MHz, 2400);            /* the seed's figure stays */
    NEAR(f.res.pass[0].judged_clock_MHz, 2116);
    assert_int_equal(f.res.pass[0].judged_kernels, 1);
    assert_string_equal(f.res.pass[0].judged_on, "long kernels");
    assert_false(has_warning(&f.res, "effective clock", NULL));
    fx_free(&f);

    /* A at 900 MHz (900k cycles per launch, still judged): named, B left out */
    clock_run(&f, 900, 28600.0 / 6, true);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_true(has_warning(&f.res, "pass 01_fp64_flops: effective clock 900 MHz (GRBM_GUI_ACTIVE / N_XCC) "
                            "is outside 1000-2200 MHz: Cijk_Ailk_Bljk_BBS_BH_MT256x256 900 MHz (1000.0 us "
                            "per launch); judged on its 1 kernel(s) with launches of at least 600k cycles "
                            "(89.3% of its kernel time); shorter ones left out: counter mode adds up to 18k "
                            "cycles to each launch (1 kernel(s))", NULL));
    fx_free(&f);

    /* B alone: no kernel that long, the overhead bounded: 4766.7 MHz read,
     * at least (5.72M - 200 x 18k) / 1.2 ms = 1766.7: in range, no warning */
    clock_run(&f, 0, 28600.0 / 6, false);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_string_equal(f.res.pass[0].judged_on, "every kernel, overhead bounded");
    assert_false(has_warning(&f.res, "effective clock", NULL));
    fx_free(&f);

    /* B at 9000 MHz (54k cycles per 6 us launch): at least (10.8M - 3.6M) /
     * 1.2 ms = 6000 MHz: over 2200 whatever the overhead; and 4x the clock used */
    clock_run(&f, 0, 9000, false);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_true(has_warning(&f.res, "pass 01_fp64_flops: effective clock 6000 MHz (GRBM_GUI_ACTIVE / N_XCC, "
                            "at least) is outside 1000-2200 MHz: elementwise_add 9000 MHz (6.0 us per "
                            "launch); no kernel has launches of 600k cycles or more, so all 1 are judged",
                            NULL));
    assert_true(has_warning(&f.res, "01_fp64_flops", "0.8-2.0x the clock used (1500 MHz) (clock mismatch"));
    fx_free(&f);
}

/* Kernels missing from some passes (passcover.c): A in every pass, B not in
 * 04_cu_util, C (the shortest) not in 03_fp16_instmix and 06_hbm_write. The
 * list goes by counter-pass time (B before C) and names the passes. */
static void test_pass_cover(void **st)
{
    (void)st;
    static const char *const names[3] = { "kern_a", "kern_b", "kern_c" };
    struct fx f;
    fx_init(&f, 3, names);
    for (int p = 0; p < 6; p++) {
        dur(&f, p, 0, 1e6, 10);
        if (p != 3)
            dur(&f, p, 1, 5e5, 10);
        if (p != 2 && p != 5)
            dur(&f, p, 2, 2.5e5, 10);
    }
    for (int k = 0; k < 3; k++)
        rate(&f, k, "GRBM_GUI_ACTIVE", 8 * CYC);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_int_equal(f.res.nmissk, 2);
    assert_string_equal(f.res.shortname[f.res.missk[0].row], "kern_b");
    assert_int_equal(f.res.missk[0].npass, 1);
    assert_int_equal(f.res.missk[0].pass[0], 3);
    assert_string_equal(f.res.shortname[f.res.missk[1].row], "kern_c");
    assert_int_equal(f.res.missk[1].npass, 2);
    assert_true(f.res.missk[1].pass[0] == 2 && f.res.missk[1].pass[1] == 5);
    assert_true(has_warning(&f.res, "2 kernel(s) are missing from some passes (",
                            "of the counter-pass time): kern_b (not in 04_cu_util), kern_c (not in "
                            "03_fp16_instmix, 06_hbm_write); the passes did not run the same kernels"));
    fx_free(&f);

    /* the same kernels everywhere: nothing listed */
    fx_init(&f, 3, names);
    for (int p = 0; p < 6; p++)
        for (int k = 0; k < 3; k++)
            dur(&f, p, k, 1e6, 10);
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_int_equal(f.res.nmissk, 0);
    assert_false(has_warning(&f.res, "missing from some passes", NULL));
    fx_free(&f);
}

/* A pass whose counters patch the kernel code (CUPTI's SASS metrics) runs
 * every kernel slower with the same counts: its rates divide by the other
 * passes' time per launch x its launches, and it is out of the time spread. */
static void instrument(struct fx *f, const char *prefix)
{
    f->ap->instr_prefix = xcalloc(2, sizeof(char *));
    f->ap->instr_prefix[0] = xstrdup(prefix);
    f->ap->ninstr = 1;
}

static void test_instrumented_pass(void **st)
{
    (void)st;
    struct fx f;
    two_kernels(&f);
    instrument(&f, "SQ_INSTS_VALU_ADD_F64");   /* only in pass 0 */
    struct rp_pass *ps = &f.run.passes[0];
    for (uint32_t k = 0; k < 2; k++)
        ps->dur_ns[k] *= 15;
    ps->dur_ns_total *= 15;
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    double ta = 0, la = 0, tb = 0, lb = 0;
    for (int p = 1; p < 6; p++) {
        ta += DA(p), la += 10 + p;
        tb += DB(p), lb += 20 - p;
    }
    double a0 = ta / la * 10, b0 = tb / lb * 20;   /* pass 0 launches: 10 and 20 */
    NEAR(val(&f, 0, "FP64_VALU_FLOP"), 608 * DA(0));
    NEAR(val(&f, 0, "TFLOPs_FP64_VALU"), 608 * DA(0) / a0 / 1000);
    assert_true(f.res.pass[0].instrumented);
    assert_false(f.res.pass[1].instrumented);
    NEAR(f.res.pass[0].slowdown, 15 * (DA(0) + DB(0)) / (a0 + b0));
    double tmin = INFINITY, tmax = 0;
    for (int p = 1; p < 6; p++) {
        double t = DA(p) + DB(p);
        tmin = fmin(tmin, t), tmax = fmax(tmax, t);
    }
    NEAR(f.res.time_spread_pct, 100 * (tmax - tmin) / tmin);   /* the seed's: / min */
    assert_false(has_warning(&f.res, "instrumented", NULL));
    fx_free(&f);

    /* every pass instrumented: nothing to time them by, said so */
    two_kernels(&f);
    instrument(&f, "");
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    NEAR(val(&f, 0, "TFLOPs_FP64_VALU"), 0.608);
    assert_true(has_warning(&f.res, "01_fp64_flops is instrumented", "slowed kernel time"));
    fx_free(&f);
}

/* NCCL kernels spin until every rank arrives: under profiling their time
 * differs per pass (2 H200s, DDP: 312..1130 ms); the spread leaves them out. */
static void test_comm_kernels_out_of_spread(void **st)
{
    (void)st;
    static const char *const names[2] = { "kern_a", "ncclDevKernel_AllReduce_Sum_f32_RING_LL" };
    struct fx f;
    fx_init(&f, 2, names);
    for (int p = 0; p < 6; p++) {
        dur(&f, p, 0, 1e6, 10);
        dur(&f, p, 1, 1e6 * (1 + p), 4);   /* waits 1..6 ms */
    }
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    NEAR(f.res.time_spread_pct, 0);
    assert_false(has_warning(&f.res, "differs", "across passes"));
    NEAR(f.res.pass[3].comm_ms, 4);
    NEAR(f.res.pass[3].time_ms, 5);
    fx_free(&f);
    /* the same wait in a compute kernel is a real difference */
    static const char *const plain[2] = { "kern_a", "kern_wait" };
    fx_init(&f, 2, plain);
    for (int p = 0; p < 6; p++) {
        dur(&f, p, 0, 1e6, 10);
        dur(&f, p, 1, 1e6 * (1 + p), 4);
    }
    assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
    assert_true(has_warning(&f.res, "differs", "across passes"));
    fx_free(&f);
}

static void test_top_n_and_labels(void **st)
{
    (void)st;
    struct fx f;
    two_kernels(&f);
    /* kernel A at 40% of the FP64 VALU peak: compute bound */
    double inst = 0.4 * 81.7 * 1000 / 64 / 9.5;
    rate(&f, 0, "SQ_INSTS_VALU_ADD_F64", inst);
    rate(&f, 0, "SQ_INSTS_VALU_MUL_F64", 2 * inst);
    rate(&f, 0, "SQ_INSTS_VALU_FMA_F64", 3 * inst);
    rate(&f, 0, "SQ_INSTS_VALU_TRANS_F64", 0.5 * inst);
    struct mx_opts o = { .time_pct = 90, .top_n = 1, .latency_pct = 10,
                         .clock_src = MX_CLOCK_OVERRIDE, .clock_mhz = CLK };
    assert_int_equal(mx_compute(&f.res, f.ap, &f.run, NULL, f.defs, 6, &o), 0);
    NEAR(val(&f, 0, "FP64_VALU_peak_pct"), 40);
    NEAR(val(&f, 0, "compute_peak_pct"), 40);
    NEAR(val(&f, 0, "peak_TFLOPs_mix"), 81.7);
    assert_string_equal(lab(&f, 0, "bound"), "compute");
    assert_string_equal(lab(&f, 0, "bound_mix"), "compute");
    assert_int_equal(f.res.ntop, 1);
    NEAR(val(&f, 0, "top_share_pct"), val(&f, 0, "time_share_pct"));
    NEAR(val(&f, 2, "cum_share_pct"), val(&f, 0, "time_share_pct"));
    assert_int_equal(mx_cell_kind(&f.res, 1, mx_metric_index(f.ap, "top_share_pct")), MX_CELL_EMPTY);
    mx_release(&f.res);
    /* --latency-pct 50: A is under 50% of both peaks; the FP64 bound has no
     * latency label */
    o.top_n = 0;
    o.latency_pct = 50;
    assert_int_equal(mx_compute(&f.res, f.ap, &f.run, NULL, f.defs, 6, &o), 0);
    assert_string_equal(lab(&f, 0, "bound_mix"), "latency");
    assert_string_equal(lab(&f, 0, "bound"), "compute");
    fx_free(&f);
}

/* The seed's thresholds (gfx942 CHECK_* constants): CU busy above 1.05 only
 * on kernels with at least 0.1% of the time, threads above 64.5, waves above
 * 1.05x the kernel's own limit. */
static void limits(struct fx *f, double b_ns, double busy, double threads, double waves)
{
    static const char *const names[2] = { "kern_a", "kern_b" };
    fx_init(f, 2, names);
    for (int p = 0; p < 6; p++) {
        dur(f, p, 0, 1e6, 10);
        dur(f, p, 1, b_ns, 10);
    }
    for (int k = 0; k < 2; k++) {
        rate(f, k, "GRBM_GUI_ACTIVE", 8 * CYC);
        rate(f, k, "SQ_BUSY_CU_CYCLES", (k ? busy : 0.5) * CYC * 304);
        rate(f, k, "SQ_ACTIVE_INST_VALU", 0.2 * CYC * 304);
        rate(f, k, "SQ_THREAD_CYCLES_VALU", (k ? threads : 32) * 0.2 * CYC * 304);
        rate(f, k, "SQ_WAVE_CYCLES", (k ? waves : 4) * CYC * 304 / 4);
        f->run.attr[k] = (struct rp_kattr){ .vgpr = 128, .lds = 16384, .wg_size = 256,
                                            .seen = true };   /* limit 16 waves */
    }
}

static void test_check_thresholds(void **st)
{
    (void)st;
    struct fx f;
    struct { double b_ns, busy, threads, waves; bool warn; const char *what; } c[] = {
        { 1e5, 1.04, 64.4, 16.7, false, NULL },          /* within the seed's slack */
        { 1e5, 1.06, 32, 8, true, "CU busy" },
        { 500, 1.2, 32, 8, false, NULL },                /* 0.05% of the time */
        { 1e5, 0.5, 64.6, 8, true, "VALU threads" },
        { 1e5, 0.5, 32, 16.9, true, "waves/CU" },        /* > 1.05 x 16 */
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        limits(&f, c[i].b_ns, c[i].busy, c[i].threads, c[i].waves);
        assert_int_equal(compute(&f, MX_CLOCK_OVERRIDE), 0);
        bool w = has_warning(&f.res, "physical limit", NULL);
        if (w != c[i].warn)
            fail_msg("case %zu: warning %d, expected %d", i, w, c[i].warn);
        if (c[i].what)
            assert_true(has_warning(&f.res, c[i].what, "kern_b"));
        fx_free(&f);
    }
}

static void test_names(void **st)
{
    (void)st;
    /* the seed's short names (tests/fixtures/seed-reference per_kernel_metrics.csv) */
    static const char *const cases[][2] = {
        { "void Kokkos::Impl::hip_parallel_launch_constant_memory<Kokkos::Impl::ParallelFor<LAMMPS_NS::"
          "PairReaxFFKokkos<Kokkos::HIP>, Kokkos::RangePolicy<Kokkos::HIP, LAMMPS_NS::TagPairReax"
          "ComputeLJCoulomb<1, 1>>, Kokkos::HIP>>()", "PairReaxFFKokkos::TagPairReaxComputeLJCoulomb<1,1>" },
        { "void Kokkos::Impl::hip_parallel_launch_local_memory<Kokkos::Impl::ParallelFor<LAMMPS_NS::"
          "NPairKokkosBuildFunctor<Kokkos::HIP, 1, 0, 0>, Kokkos::TeamPolicy<Kokkos::HIP>, Kokkos::HIP>, "
          "1024u, 1u>()", "NPairKokkosBuildFunctor" },
        { "void Kokkos::Impl::hip_parallel_launch_constant_memory<Kokkos::Impl::ParallelReduce<Kokkos::"
          "Impl::CombinedFunctorReducer<LAMMPS_NS::FixQEqReaxFFKokkos<Kokkos::HIP>, Kokkos::Impl::"
          "FunctorAnalysis<Kokkos::Impl::FunctorPatternInterface::REDUCE, Kokkos::RangePolicy<Kokkos::"
          "HIP, LAMMPS_NS::TagQEqDot1>, LAMMPS_NS::FixQEqReaxFFKokkos<Kokkos::HIP>, double>::Reducer, "
          "void>, Kokkos::RangePolicy<Kokkos::HIP, LAMMPS_NS::TagQEqDot1>, Kokkos::HIP>>()",
          "reduce FixQEqReaxFFKokkos::TagQEqDot1" },
        { "void Kokkos::Impl::hip_parallel_launch_local_memory<Kokkos::Impl::ParallelScan<LAMMPS_NS::"
          "AtomVecKokkos<Kokkos::HIP>, Kokkos::RangePolicy<Kokkos::HIP, LAMMPS_NS::TagPack<1, "
          "Foo<2, 3>>>, Kokkos::HIP>>()", "scan AtomVecKokkos::TagPack<1,Foo<2,3>>" },
        /* the functor itself named Tag...: the tag is a later name */
        { "Kokkos::Impl::ParallelFor<LAMMPS_NS::TagOnly<1>>", "TagOnly" },
        { "void Kokkos::Impl::hip_parallel_launch_local_memory<Kokkos::Impl::ParallelFor<Kokkos::Impl::"
          "ViewFill<Kokkos::View<double*>, double, 1>, Kokkos::RangePolicy<Kokkos::HIP>, Kokkos::HIP>>()",
          "Kokkos::ParallelFor" },
        { "__amd_rocclr_fillBufferAligned", "rocclr:fillBufferAligned" },
        { "void __amd_rocclr_copyBuffer.kd", "rocclr:copyBuffer.kd" },
        { "Cijk_Ailk_Bljk_DB.kd", "Cijk_Ailk_Bljk_DB.kd" },
        { "", "" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *n = mx_display_name(cases[i][0]);
        assert_string_equal(n, cases[i][1]);
        free(n);
    }
    /* anything else: the first 80 characters */
    const char *longname = "void gemm_tile<double, 64, 4>(double const*, double const*, double*, int, "
                           "int, int, float)";
    char *n = mx_display_name(longname);
    assert_int_equal(strlen(n), 80);
    assert_memory_equal(n, longname, 80);
    free(n);
    char *v[3] = { xstrdup("f"), xstrdup("f"), xstrdup("f #2") };
    mx_unique_names(v, 3);
    assert_string_equal(v[0], "f");
    assert_true(strcmp(v[1], "f") && strcmp(v[1], "f #2"));
    assert_string_equal(v[2], "f #2");
    for (int i = 0; i < 3; i++)
        free(v[i]);
}

static void test_sampled_clock(void **st)
{
    (void)st;
    char path[] = "/tmp/h9telXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fprintf(fp, "# device=0\ntimestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,"
                "edge_temp_C,hotspot_temp_C\n");
    /* 138 MHz startup, 2 samples in kernel 1 (1600, 1700), 800 idle, 1 in
     * kernel 2 (1900), 500 after */
    static const long long ts[] = { 10, 100, 150, 250, 320, 400, 500 };
    static const double clk[] = { 138, 1600, 1700, 800, 1900, 1000, 500 };
    for (int i = 0; i < 7; i++)
        fprintf(fp, "%lld,100,100,%g,nan,50\n", ts[i], clk[i]);
    fclose(fp);
    /* kernel intervals (unsorted, overlapping): [90,160] [100,200] [300,330] */
    int64_t iv[] = { 300, 330, 100, 200, 90, 160 };
    char *files[2] = { path, NULL };
    struct mx_clock_stats cs;
    assert_int_equal(sampled_clock(files, 1, iv, 3, NULL, NULL, &cs), 0);
    assert_int_equal(cs.samples_running, 3);
    NEAR(cs.mean, (1600 + 1700 + 1900) / 3.0);
    assert_int_equal(sampled_clock(files, 1, iv, 0, NULL, NULL, &cs), 0);
    assert_true(isnan(cs.mean));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_kernel),
        cmocka_unit_test(test_whole_run),
        cmocka_unit_test(test_fallback_clock),
        cmocka_unit_test(test_missing_pass_and_counter),
        cmocka_unit_test(test_over_limit),
        cmocka_unit_test(test_pass_checks),
        cmocka_unit_test(test_clock_overhead),
        cmocka_unit_test(test_pass_cover),
        cmocka_unit_test(test_instrumented_pass),
        cmocka_unit_test(test_comm_kernels_out_of_spread),
        cmocka_unit_test(test_top_n_and_labels),
        cmocka_unit_test(test_check_thresholds),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_sampled_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
