/* test_calib.c - calibration (src/calib/): the expected table's known answers
 * (worked out by hand from calib.cu's arithmetic), tolerance checks against
 * generated per_kernel_metrics.csv files (pass, miss, skip, missing kernel,
 * quoted names), power-rise detection on synthetic series, the power-run
 * folder check (kernel trace + telemetry + NVML driver samples), the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib/calib.h"
#include "msgcap.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char g_dir[] = "/tmp/test_calib.XXXXXX";


static int setup(void **state)
{
    (void)state;
    msgcap_start();
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    int rc = tmpdir_remove(g_dir);
    msgcap_stop();
    return rc == 0 ? 0 : -1;
}

static char *write_tmp(const char *name, const char *text)
{
    char *p = fs_path_join(g_dir, name);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    assert_int_equal(fs_mkdir_p(p), 0);
    *slash = '/';
    assert_int_equal(fs_write_atomic(p, text, strlen(text)), 0);
    return p;
}

static const struct br_calib_expect *find(const struct br_calib_expect *e, size_t n,
                                          const char *check)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].check, check) == 0)
            return &e[i];
    fail_msg("no check '%s'", check);
    return NULL;
}

/* ---- expected values --------------------------------------------------------- */

static void test_expect_nvidia(void **state)
{
    (void)state;
    struct br_calib_params p;
    br_calib_params_default(&p, GPU_VENDOR_NVIDIA);
    struct br_calib_expect *e;
    size_t n = br_calib_expect_table(&p, &e);
    assert_true(n >= 20);
    /* 2^27 doubles x 8 B x 8 launches */
    assert_true(find(e, n, "copy: DRAM read bytes")->value == 8589934592.0);
    assert_true(find(e, n, "copy: DRAM write bytes")->value == 8589934592.0);
    assert_true(find(e, n, "triad: DRAM read bytes")->value == 17179869184.0);
    assert_true(find(e, n, "triad: FP64 FLOPs")->value == 2147483648.0);
    /* 1056 x 256 threads x 4 launches x 4096 iters x 8 chains x 2 */
    assert_true(find(e, n, "FP64 FMA loop: FLOPs")->value == 70866960384.0);
    assert_true(find(e, n, "FP32 FMA loop: FLOPs")->value == 70866960384.0);
    /* NVIDIA FP16: 4 packed HFMA2 per iteration, counted once each: half */
    assert_true(find(e, n, "FP16 FMA loop: FLOPs")->value == 35433480192.0);
    assert_true(find(e, n, "divergent loop: FP32 FLOPs")->value == 35433480192.0);
    assert_true(find(e, n, "divergent loop: lanes active %")->value == 50.0);
    /* 1056 x 256 x 4 launches x 256 iters x 160 x 2 */
    assert_true(find(e, n, "register-limited: FP32 FLOPs")->value == 88583700480.0);
    const struct br_calib_expect *occ = find(e, n, "register-limited: occupancy %");
    assert_true(occ->how == BR_CALIB_RANGE && occ->hi == 25.25 && occ->lo == 12.5);
    /* all kernels: 2 x 7680^3 x 3 + the tensor-path kernels of that precision
     * (FP64: m8n8k4 8858370048 + mixed DMMA 2214592512; BF16: m16n8k16
     * 70866960384 + m16n8k8 35433480192 + wgmma 566935683072 + mixed 159450660864) */
    const struct br_calib_expect *g = find(e, n, "DGEMM (cuBLAS): FP64 tensor FLOPs, all kernels");
    assert_true(g->value == 2728981954560.0 && g->row == BR_CALIB_ROW_TOTAL && g->tol == 0.001);
    assert_true(find(e, n, "BF16 GEMM (cuBLAS): BF16 tensor FLOPs, all kernels")->value == 3550595776512.0);
    assert_true(find(e, n, "copy: DRAM read bytes")->tol == 0.02);
    assert_string_equal(find(e, n, "triad: bound")->label, "memory");
    assert_string_equal(find(e, n, "BF16 GEMM (cuBLAS): bound")->label, "compute");
    /* tensor paths: 528 blocks, 1024 iters x 4 instructions, 2 launches;
     * 2112 warps (mma.sync) or 528 warpgroups (wgmma); 2*M*N*K per instruction */
    assert_true(find(e, n, "mma.sync m16n8k16 bf16: BF16 tensor FLOPs")->value == 70866960384.0);
    assert_true(find(e, n, "mma.sync m16n8k8 f16 (f32 acc): FP16 tensor FLOPs")->value == 35433480192.0);
    assert_true(find(e, n, "mma.sync m16n8k32 s8: INT8 tensor ops")->value == 141733920768.0);
    assert_true(find(e, n, "mma.sync m8n8k4 f64: FP64 tensor FLOPs")->value == 8858370048.0);
    assert_true(find(e, n, "wgmma m64n64k16 bf16: BF16 tensor FLOPs")->value == 566935683072.0);
    assert_true(find(e, n, "wgmma m64n64k8 tf32: TF32 tensor FLOPs")->value == 283467841536.0);
    assert_true(find(e, n, "wgmma m64n64k32 e5m2: FP8 tensor FLOPs")->value == 1133871366144.0);
    /* mixed: 128 x 528 threads x 2048 x 4 counted FLOPs; 2048 x (2112 x 4096 + 528 x 131072) */
    assert_true(find(e, n, "mixed paths: FP16 CUDA-core FLOPs")->value == 553648128.0);
    assert_true(find(e, n, "mixed paths: BF16 tensor FLOPs (HMMA + HGMMA)")->value == 159450660864.0);
    assert_true(find(e, n, "mixed paths: FP64 tensor FLOPs (DMMA)")->value == 2214592512.0);
    free(e);
}

static void test_expect_amd(void **state)
{
    (void)state;
    struct br_calib_params p;
    br_calib_params_default(&p, GPU_VENDOR_AMD);
    struct br_calib_expect *e;
    size_t n = br_calib_expect_table(&p, &e);
    assert_int_equal(p.warp, 64);
    /* AMD VALU FLOP counters count every lane issued: the full amount */
    assert_true(find(e, n, "divergent loop: FP32 FLOPs")->value == 70866960384.0);
    const struct br_calib_expect *occ = find(e, n, "register-limited: occupancy %");
    assert_true(occ->hi == 50.5 && occ->lo == 25.0);    /* 16 of 32 waves */
    for (size_t i = 0; i < n; i++)                         /* CUDA-only kernels */
        assert_null(strstr(e[i].check, "mma"));
    free(e);
}

static void test_params_argv(void **state)
{
    (void)state;
    struct br_calib_params p;
    br_calib_params_default(&p, GPU_VENDOR_NVIDIA);
    p.long_ms = 500;
    struct strv a;
    strv_init(&a);
    br_calib_params_argv(&p, &a);
    assert_int_equal(a.n, 15);
    assert_string_equal(a.v[0], "n=134217728");
    assert_string_equal(a.v[8], "long_ms=500");
    assert_string_equal(a.v[10], "flush_mib=256");
    assert_string_equal(a.v[11], "mma_blocks=528");
    assert_string_equal(a.v[13], "mma_reps=2");
    assert_string_equal(a.v[14], "power_phases=1");
    strv_release(&a);
}

/* ---- analysis checks -------------------------------------------------------------- */

/* A per_kernel_metrics.csv with the expected values scaled by the factors
 * given (1 = exact). */
static char *analysis_csv(const struct br_calib_params *p, double flop_f, double byte_f,
                          const char *fma_bound, bool with_maxw)
{
    struct strbuf sb;
    sb_init(&sb);
    double nb = 8.0 * (double)p->n * (double)p->stream_reps;
    double fl = 1056.0 * 256 * 4 * 4096 * 16 * flop_f, g = 2.0 * 7680 * 7680 * 7680 * 3;
    sb_addf(&sb, "kernel,kernel_full_name,launches,VALUUtilization_pct,Occupancy_pct,%s"
                 "FP64_VALU_FLOP,FP32_VALU_FLOP,FP16_VALU_FLOP,FP64_MFMA_FLOP,BF16_MFMA_FLOP,"
                 "mem_read_bytes,mem_write_bytes,bound,bound_mix,F16_TENSOR_FLOP,TF32_TENSOR_FLOP,"
                 "F8_TENSOR_FLOP,I8_TENSOR_OPS\n", with_maxw ? "max_waves_CU,Occupancy_of_max_pct," : "");
    const char *mw = with_maxw ? "64,90," : "";
    sb_addf(&sb, "calib_copy,calib_copy,8,100,80,%s,,,,,%.0f,%.0f,memory,memory,,,,\n", mw, nb * byte_f, nb);
    sb_addf(&sb, "calib_triad,calib_triad,8,100,80,%s%.0f,,,,,%.0f,%.0f,memory,memory,,,,\n", mw,
            2.0 * (double)p->n * 8, 2 * nb, nb);
    sb_addf(&sb, "calib_fma_f64,calib_fma_f64,4,99.5,90,%s%.0f,,,,,0,0,%s,%s,,,,\n", mw, fl, fma_bound, fma_bound);
    sb_addf(&sb, "calib_fma_f32,calib_fma_f32,4,100,90,%s,%.0f,,,,0,0,compute,compute,,,,\n", mw, fl);
    sb_addf(&sb, "calib_fma_f16,calib_fma_f16,4,100,90,%s,,%.0f,,,0,0,compute,compute,,,,\n", mw,
            p->f16_per_inst ? fl / 2 : fl);   /* NVIDIA: packed HFMA2 counted once */
    sb_addf(&sb, "calib_diverge,calib_diverge,4,50.4,90,%s,%.0f,,,,0,0,compute,compute,,,,\n", mw, fl / 2);
    sb_addf(&sb, "calib_reglimit,calib_reglimit,4,100,24.1,%s,88583700480,,,,0,0,compute,compute,,,,\n",
            with_maxw ? "16,95," : "");
    sb_addf(&sb, "sm90_xmma_gemm_f64,\"void cutlass::Kernel<sm90_xmma_gemm_f64f64, 128, 1>(Params)\","
                 "3,100,12,%s,,,%.0f,,1e9,1e9,compute,compute,,,,\n", mw, g);
    sb_addf(&sb, "sm90_xmma_gemm_bf16,sm90_xmma_gemm_bf16f32,3,100,12,%s,,,,%.0f,1e9,1e9,compute,compute,,,,\n",
            mw, g);
    sb_addf(&sb, "TOTAL,TOTAL,60,90,50,%s%.0f,%.0f,%.0f,%.0f,%.0f,1,1,memory,memory,,,,\n", mw, fl, fl, fl,
            g + 11072962560.0, g + 832686784512.0);   /* + the tensor-path kernels (test_expect_nvidia) */
    /* tensor paths: FLOPs = 2*M*N*K x 4 x 1024 iters x 2 launches x 2112 warps
     * (mma.sync) or 528 warpgroups (wgmma), by hand: k16 4096, k8 2048, k32 8192,
     * f64 m8n8k4 512, wgmma k16 131072, k8 65536, k32 262144 per instruction.
     * Fields after the attributes: FP64_MFMA 5, BF16_MFMA 6, bounds 9-10, F16 11,
     * TF32 12, F8 13, I8 14. */
    static const struct { const char *k; int col; double per_inst; bool wg; } tk[] = {
        { "calib_mma_bf16_k16", 6, 4096, false }, { "calib_mma_bf16_k8", 6, 2048, false },
        { "calib_mma_f16_k16", 11, 4096, false }, { "calib_mma_f16_k8", 11, 2048, false },
        { "calib_mma_f16f32_k16", 11, 4096, false }, { "calib_mma_f16f32_k8", 11, 2048, false },
        { "calib_mma_tf32_k8", 12, 2048, false }, { "calib_mma_s8_k32", 14, 8192, false },
        { "calib_mma_f64_k4", 5, 512, false }, { "calib_wgmma_bf16", 6, 131072, true },
        { "calib_wgmma_f16", 11, 131072, true }, { "calib_wgmma_f16_f16", 11, 131072, true },
        { "calib_wgmma_tf32", 12, 65536, true }, { "calib_wgmma_e4m3", 13, 262144, true },
        { "calib_wgmma_e5m2", 13, 262144, true }, { "calib_wgmma_s8", 14, 262144, true },
    };
    for (size_t i = 0; i < sizeof(tk) / sizeof(*tk); i++) {
        sb_addf(&sb, "%s,%s,2,100,50,%s", tk[i].k, tk[i].k, mw);
        for (int c = 2; c <= 14; c++) {
            if (c == tk[i].col)
                sb_addf(&sb, "%.0f", tk[i].per_inst * 4 * 2048 * (tk[i].wg ? 528 : 2112) * flop_f);
            else if (c == 9 || c == 10)
                sb_adds(&sb, "compute");
            sb_adds(&sb, c < 14 ? "," : "\n");
        }
    }
    /* mixed: 128 x 528 x 2048 threads x 4 counted FLOPs per precision;
     * BF16 2048 x (2112 x 4096 + 528 x 131072); FP64 tensor 2048 x 2112 x 512 */
    sb_addf(&sb, "calib_mixed_paths,calib_mixed_paths,2,100,50,%s%.0f,%.0f,%.0f,%.0f,%.0f,0,0,"
                 "compute,compute,,,,\n", mw, 553648128.0 * flop_f, 553648128.0 * flop_f,
            553648128.0 * flop_f, 2214592512.0 * flop_f, 159450660864.0 * flop_f);
char *path = write_tmp("a/analysis/per_kernel_metrics.csv", sb.buf);
    sb_release(&sb);
    return path;
}

static size_t count(const struct br_calib_results *r, enum br_calib_status s)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        k += r->v[i].status == s;
    return k;
}

static const struct br_calib_result *result(const struct br_calib_results *r, const char *check)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].check, check) == 0)
            return &r->v[i];
    fail_msg("no result '%s'", check);
    return NULL;
}

static void run_checks(const char *csv, struct br_calib_results *res)
{
    struct br_calib_params p;
    br_calib_params_default(&p, GPU_VENDOR_NVIDIA);
    struct br_calib_expect *e;
    size_t n = br_calib_expect_table(&p, &e);
    assert_int_equal(br_calib_check_analysis(csv, e, n, res), 0);
    assert_int_equal(res->n, n);
    free(e);
}

static void test_check_all_pass(void **state)
{
    (void)state;
    struct br_calib_params p;
    br_calib_params_default(&p, GPU_VENDOR_NVIDIA);
    char *csv = analysis_csv(&p, 1.0, 1.015, "compute", true);   /* bytes +1.5 %: inside 2 % */
    struct br_calib_results res = { 0 };
    run_checks(csv, &res);
    for (size_t i = 0; i < res.n; i++)
        if (res.v[i].status != BR_CALIB_PASS)
            fail_msg("%s: %s %s", res.v[i].check, res.v[i].measured, res.v[i].note);
    assert_string_equal(result(&res, "DGEMM (cuBLAS): bound")->source,
                        "sm90_xmma_gemm_f64 bound_mix");
    assert_string_equal(result(&res, "copy: DRAM read bytes")->measured, "8.71878e+09 (+1.500%)");
    br_calib_results_release(&res);
    free(csv);
}

static void test_check_misses(void **state)
{
    (void)state;
    struct br_calib_params p;
    br_calib_params_default(&p, GPU_VENDOR_NVIDIA);
    /* FLOPs +0.2 % (outside 0.1 %), bytes +2.5 % (outside 2 %), wrong label,
     * no max_waves_CU column (optional: skip) */
    char *csv = analysis_csv(&p, 1.002, 1.025, "memory", false);
    struct br_calib_results res = { 0 };
    run_checks(csv, &res);
    assert_int_equal(result(&res, "FP64 FMA loop: FLOPs")->status, BR_CALIB_MISS);
    assert_int_equal(result(&res, "FP32 FMA loop: FLOPs")->status, BR_CALIB_MISS);
    assert_int_equal(result(&res, "copy: DRAM read bytes")->status, BR_CALIB_MISS);
    assert_int_equal(result(&res, "copy: DRAM write bytes")->status, BR_CALIB_PASS);
    assert_int_equal(result(&res, "FP64 FMA loop: bound")->status, BR_CALIB_MISS);
    assert_string_equal(result(&res, "FP64 FMA loop: bound")->measured, "memory");
    assert_int_equal(result(&res, "register-limited: max warps per SM")->status, BR_CALIB_SKIP);
    assert_int_equal(result(&res, "divergent loop: lanes active %")->status, BR_CALIB_PASS);
    assert_int_equal(count(&res, BR_CALIB_SKIP), 2);    /* max warps, occupancy of max */
    /* 4 FMA-loop FLOPs, read bytes, label, 16 tensor paths, 5 mixed-kernel counts */
    assert_int_equal(br_calib_misses(&res), 27);
    assert_int_equal(result(&res, "wgmma m64n64k32 s8: INT8 tensor ops")->status, BR_CALIB_MISS);
    br_calib_results_release(&res);
    free(csv);
}

static void test_check_missing_kernel_and_bad_file(void **state)
{
    (void)state;
    char *csv = write_tmp("b/per_kernel_metrics.csv",
                          "kernel,kernel_full_name,FP64_VALU_FLOP,bound_mix\n"
                          "other,other,5,compute\nTOTAL,TOTAL,5,compute\n");
    struct br_calib_results res = { 0 };
    struct br_calib_params p;
    br_calib_params_default(&p, GPU_VENDOR_NVIDIA);
    struct br_calib_expect *e;
    size_t n = br_calib_expect_table(&p, &e);
    assert_int_equal(br_calib_check_analysis(csv, e, n, &res), 0);
    const struct br_calib_result *r = result(&res, "FP64 FMA loop: FLOPs");
    assert_int_equal(r->status, BR_CALIB_MISS);
    assert_string_equal(r->note, "kernel not found in the analysis");
    r = result(&res, "copy: DRAM read bytes");
    assert_string_equal(r->note, "metric not in this analysis");
    assert_int_equal(count(&res, BR_CALIB_PASS), 0);
    br_calib_results_release(&res);
    free(csv);
    /* wrong field count names file and line */
    csv = write_tmp("c/per_kernel_metrics.csv", "kernel,a,b\nx,1\n");
    sb_reset(&g_msgs);
    assert_int_equal(br_calib_check_analysis(csv, e, n, &res), -1);
    assert_non_null(strstr(g_msgs.buf, "per_kernel_metrics.csv:2"));
    br_calib_results_release(&res);
    free(csv);
    free(e);
}

/* ---- power ------------------------------------------------------------------------ */

/* 1 ms samples of a source that refreshes every `refresh` ms; the power steps
 * from 100 W to 400 W at step_ms (source time), seen at the next refresh. */
static size_t synth(int64_t *t, double *w, size_t n, int refresh, int step_ms, int64_t t0)
{
    double held = 100;
    for (size_t i = 0; i < n; i++) {
        if ((int)i % refresh == 0)
            held = (int)i >= step_ms ? 400 + (double)(i % 7) : 100 + (double)(i % 5);
        t[i] = t0 + (int64_t)i * 1000000;
        w[i] = held;
    }
    return n;
}

static void test_power_rise(void **state)
{
    (void)state;
    enum { N = 2000 };
    int64_t t[N];
    double w[N];
    int64_t t0 = 5000000000LL, ks = t0 + 1003000000LL, ke = ks + 800000000LL;
    synth(t, w, N, 20, 1003, t0);
    struct br_calib_rise r;
    assert_int_equal(br_calib_power_rise(t, w, N, ks, ke, 250000000LL, &r), 0);
    assert_true(fabs(r.period_ms - 20.0) < 1e-9);
    assert_true(r.delta_ms >= 0 && r.delta_ms <= 20.0);
    assert_true(fabs(r.delta_ms - 17.0) < 1e-9);     /* next refresh at 1020 ms */
    assert_true(fabs(r.low_delta_ms + 250.0) < 1e-9); /* one low value from the window start */
    assert_true(r.baseline_W >= 100 && r.baseline_W <= 104);
    assert_true(r.plateau_W >= 400 && r.plateau_W <= 406);
    /* trace 200 ms late against the samples: rise 183 ms before the start */
    assert_int_equal(br_calib_power_rise(t, w, N, ks + 200000000LL, ke, 250000000LL, &r), 0);
    assert_true(fabs(r.delta_ms + 183.0) < 1e-9);
    /* 20 ms samples (window averages: one half-way sample): the rise at the
     * second sample after the start, +24 ms, the one before at +4 ms */
    {
        int64_t t2[80];
        double w2[80];
        for (int i = 0; i < 80; i++) {
            t2[i] = t0 + (int64_t)i * 20000000;
            w2[i] = i < 40 ? 125 : i == 40 ? 200 : 335;
        }
        int64_t s2 = t0 + 796000000LL;   /* 4 ms before sample 40 */
        assert_int_equal(br_calib_power_rise(t2, w2, 80, s2, s2 + 700000000LL, 250000000LL, &r), 0);
        assert_true(fabs(r.delta_ms - 24.0) < 1e-9);
        assert_true(fabs(r.low_delta_ms - 4.0) < 1e-9);
    }
    /* no samples before the kernel */
    assert_int_equal(br_calib_power_rise(t, w, N, t0, ke, 250000000LL, &r), -1);
    assert_true(r.rise_ns == -1 && isnan(r.delta_ms));
    /* every-sample period and too few changes */
    assert_true(fabs(br_calib_refresh_ms(t, w, N, true) - 1.0) < 1e-9);
    double flat[4] = { 1, 1, 1, 1 };
    assert_true(isnan(br_calib_refresh_ms(t, flat, 4, false)));
}

static const char ktrace_hdr[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

/* lag_ms: the sampler's power shows the step that many ms of refreshes late
 * (the GPU ramping from idle: the refresh after the start still reads low). */
static void write_prof_lag(const char *sub, int64_t kstart, int64_t kdur, int64_t shift, int lag_ms)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, ktrace_hdr);
    sb_addf(&sb, "\"KERNEL_DISPATCH\",\"Agent 0\",1,7,100,1,1,\"void f<a, b>(int)\",1,%lld,%lld,"
                 "0,0,20,0,0,256,1,1,1024,1,1\n", (long long)kstart - 500000000, (long long)kstart - 400000000);
    sb_addf(&sb, "\"KERNEL_DISPATCH\",\"Agent 0\",1,7,100,2,2,\"calib_long\",2,%lld,%lld,"
                 "0,0,13,0,0,256,1,1,135168,1,1\n", (long long)kstart, (long long)(kstart + kdur));
    char *p = xasprintf("%s/ktrace_calibrate/calibrate_77_kernel_trace.csv", sub);
    free(write_tmp(p, sb.buf));
    free(p);
    /* telemetry: 1 ms samples, refresh 100 ms; driver: 20 ms samples */
    sb_reset(&sb);
    sb_adds(&sb, "device=0 backend=nvml interval_ms=1\n"
                 "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C\n");
    int64_t t0 = kstart - 1000000000LL + shift;
    for (int i = 0; i < 2200; i++) {
        int held = (i / 100) * 100;     /* value of the last refresh */
        double wv = held >= 1000 + lag_ms ? 450 : 90;
        sb_addf(&sb, "%lld,%.1f,nan,1980,40,50\n", (long long)(t0 + (int64_t)i * 1000000), wv + (i / 100) % 3);
    }
    p = xasprintf("%s/profiling_result_calibrate_0.csv", sub);
    free(write_tmp(p, sb.buf));
    free(p);
    sb_reset(&sb);
    sb_adds(&sb, "device=0 backend=nvml kind=driver_power_samples unit=W\n"
                 "timestamp_ns,power_W,nvml_timestamp_us,gap_before\n");
    for (int i = 0; i < 110; i++) {
        int64_t ts = t0 + (int64_t)i * 20000000 + 3000000;
        sb_addf(&sb, "%lld,%.1f,%lld,0\n", (long long)ts, ts - shift >= kstart ? 455.0 : 92.0, (long long)ts / 1000);
    }
    p = xasprintf("%s/profiling_result_calibrate_0_driver_power.csv", sub);
    free(write_tmp(p, sb.buf));
    free(p);
    sb_release(&sb);
}

static void write_prof(const char *sub, int64_t kstart, int64_t kdur, int64_t shift)
{
    write_prof_lag(sub, kstart, kdur, shift, 0);
}

static void test_check_power(void **state)
{
    (void)state;
    int64_t ks = 7000000000LL;
    write_prof("prof-ok", ks, 1002000000LL, 0);
    char *dir = fs_path_join(g_dir, "prof-ok");
    struct br_calib_results res = { 0 };
    assert_int_equal(br_calib_check_power(dir, "calib_long", 1000, &res), 0);
    assert_int_equal(res.n, 3);
    for (size_t i = 0; i < res.n; i++)
        if (res.v[i].status != BR_CALIB_PASS)
            fail_msg("%s: %s (%s)", res.v[i].check, res.v[i].measured, res.v[i].expected);
    assert_string_equal(result(&res, "long kernel: duration in the trace")->measured, "1002.000 ms");
    assert_string_equal(result(&res, "long kernel: power rise vs start (NVML driver samples)")->expected,
                        "crossing within 20.0 ms (period)");
    assert_string_equal(result(&res, "long kernel: power rise vs start (sampler telemetry)")->expected,
                        "crossing within 100.0 ms (period)");
    br_calib_results_release(&res);
    free(dir);
    /* as on the H200: the refresh 10 ms after the start still low, the next
     * (+110 ms, over one period) high: the crossing lies in (+10, +110] */
    write_prof_lag("prof-ramp", ks, 1002000000LL, 10000000LL, 100);
    dir = fs_path_join(g_dir, "prof-ramp");
    assert_int_equal(br_calib_check_power(dir, "calib_long", 1000, &res), 0);
    assert_int_equal(br_calib_misses(&res), 0);
    assert_string_equal(result(&res, "long kernel: power rise vs start (sampler telemetry)")->measured,
                        "+110.0 ms, last low refresh +10.0 ms (91 -> 451 W)");
    br_calib_results_release(&res);
    free(dir);
    /* samples 300 ms late against the trace (a clock conversion error), and a
     * kernel that ran 3 % long */
    write_prof("prof-bad", ks, 1030000000LL, 300000000LL);
    dir = fs_path_join(g_dir, "prof-bad");
    assert_int_equal(br_calib_check_power(dir, "calib_long", 1000, &res), 0);
    assert_int_equal(br_calib_misses(&res), 3);
    br_calib_results_release(&res);
    /* no long kernel at all */
    assert_int_equal(br_calib_check_power(dir, "calib_nothere", 1000, &res), 0);
    assert_int_equal(res.n, 1);
    assert_string_equal(res.v[0].note, "long kernel not in the power run's trace");
    br_calib_results_release(&res);
    free(dir);
}

/* Regression (fuzz_calib): a header with timestamp_ns but no power_W read
 * f[-1]. Also the memory readers' known answers. */
static void test_readers_mem(void **state)
{
    (void)state;
    static const char bad[] = "meta=1\ntimestamp_ns,watts\n1,2\n";
    static const char good[] = "meta=1\ntimestamp_ns,power_W,nvml_timestamp_us,gap_before\n"
                               "1000,90.5,1,0\n21000,91,21,0\n";
    int64_t *t = NULL;
    double *w = NULL;
    sb_reset(&g_msgs);
    assert_int_equal(br_calib_driver_power_mem("d.csv", bad, strlen(bad), &t, &w), -1);
    assert_non_null(strstr(g_msgs.buf, "d.csv:2"));
    free(t), free(w);
    assert_int_equal(br_calib_driver_power_mem("d.csv", good, strlen(good), &t, &w), 2);
    assert_true(t[1] == 21000 && w[0] == 90.5);
    free(t), free(w);
    char *tr = xasprintf("%s\"KERNEL_DISPATCH\",\"Agent 0\",1,7,9,1,1,\"calib_long(int*, float)\",1,"
                         "100,300,0,0,13,0,0,256,1,1,1024,1,1\n", ktrace_hdr);
    int64_t a = 0, b = 0;
    assert_int_equal(br_calib_trace_find_mem("k.csv", tr, strlen(tr), "calib_long", &a, &b), 1);
    assert_true(a == 100 && b == 300);
    assert_int_equal(br_calib_trace_find_mem("k.csv", tr, strlen(tr), "calib_lon", &a, &b), 0);
    assert_int_equal(br_calib_trace_find_mem("k.csv", "a,b\n", 4, "calib_long", &a, &b), -1);
    free(tr);
}

static void test_print(void **state)
{
    (void)state;
    struct br_calib_results res = { 0 };
    br_calib_result_add(&res, "a check", "1 ±0.1%", "1 (+0.000%)", "k col", BR_CALIB_PASS, NULL);
    br_calib_result_add(&res, "b|pipe", "memory", "compute", "k bound", BR_CALIB_MISS, "wrong");
    br_calib_result_add(&res, "c", "16 ±0", NULL, "k max", BR_CALIB_SKIP, "metric not in this analysis");
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(br_calib_print(fp, &res), 1);
    fclose(fp);
    assert_non_null(strstr(buf, "b|pipe   memory    compute      MISS  (wrong: k bound)"));
    assert_non_null(strstr(buf, "3 checks: 1 ok, 1 missed, 1 skipped"));
    free(buf);
    fp = open_memstream(&buf, &len);
    br_calib_print_md(fp, &res);
    fclose(fp);
    assert_non_null(strstr(buf, "| b\\|pipe | memory | compute | MISS | k bound |"));
    assert_non_null(strstr(buf, "| c | 16 ±0 | n/a | skip | k max |"));
    free(buf);
    br_calib_results_release(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expect_nvidia),
        cmocka_unit_test(test_expect_amd),
        cmocka_unit_test(test_params_argv),
        cmocka_unit_test(test_check_all_pass),
        cmocka_unit_test(test_check_misses),
        cmocka_unit_test(test_check_missing_kernel_and_bad_file),
        cmocka_unit_test(test_power_rise),
        cmocka_unit_test(test_check_power),
        cmocka_unit_test(test_readers_mem),
        cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
