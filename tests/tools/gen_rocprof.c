/* gen_rocprof.c - test-data generator: complete rocprofv3 results with known answers.
 *
 * Writes what `benchrun pmc` (rocprofv3 --pmc ... --kernel-trace) and
 * `benchrun power` leave on disk, for any release layout, so that every metric
 * of docs/design.md §14 has a value known in advance:
 *   PMC_DIR/counters.json                      the passes used (arch-profile schema)
 *   PMC_DIR/<pass>/<pass>[_<pid>]_counter_collection.csv
 *   PMC_DIR/<pass>/<pass>[_<pid>]_kernel_trace.csv
 *   PMC_DIR/<pass>/<pass>[_<pid>]_agent_info.csv   (--agent-info)
 *   PMC_DIR/expected.json                      expected metrics (see below)
 *   PMC_DIR/<pass>/launch_sampling.json        (--sample: counter rows only for the
 *                                              launches the plan profiles, trace of all)
 *   PMC_DIR/<pass>/<pass>[_<pid>]_launch_units.csv  (--sample --units: each kernel's
 *                                              launches of work scale s in a unit of their
 *                                              own, as libbenchrun-cupti splits a signature
 *                                              by parameter key: read/launchunits.h)
 *   PROF_DIR/ktrace_<tag>/<pid>_kernel_trace.csv, PROF_DIR/profiling_result_<tag>_<gpu>.csv
 *                                              (--power PROF_DIR)
 * File formats follow docs/design.md §11 (csv.hpp writing
 * rules: strings quoted, inner '"' not escaped, numbers bare, floats >= 1 as
 * %.6f and < 1 as %.8e, 6.2 counter values integers, Agent_Id `4` in 6.x and
 * `"Agent 4"` in 7.x) and docs/design.md §10 (telemetry CSV).
 *
 * The hidden model: kernel k has a base launch duration d_k (ns) and, for
 * every counter c, an integer count n_k[c] per base launch. Launch i of a
 * kernel lasts s*d_k with s in {1,2,3} and reports s*n_k[c], so the counter
 * rate C/D of every pass is exactly n_k[c]/d_k whatever the launch counts
 * (which jitter between passes with --jitter). expected.json is computed from
 * those rates with the formulas of docs/design.md §14 by this file alone (gen_expect_*),
 * independently of src/metrics: it never links or calls the metric engine.
 * Counts are integers, so 6.2 integer values and 6.3+ doubles are exact.
 *
 * Units: durations and timestamps in ns (CLOCK_BOOTTIME-like values), clocks
 * in MHz, TFLOP/s = FLOP/ns / 1000, TB/s = B/ns / 1000.
 */
#include "trace/launchplan.h"
#include "read/sampfile.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- MI300X constants (docs/design.md §14; the generator's own copy) ---- */
#define N_XCC 8
#define N_CU 304
#define N_SIMD 1216
#define WAVE 64
#define MAX_WAVES_CU 32
#define F_BOOST 2100.0
#define PEAK_BW 5.3
#define PK_FP64_VALU 81.7
#define PK_163 163.4
#define PK_MFMA16 1307.4
#define PK_MFMA8 2614.9

/* ---- counters the model knows ---- */
enum ctr {
    C_GRBM, C_ADD64, C_MUL64, C_FMA64, C_TRANS64, C_MOPS64, C_MFMA_BUSY, C_VALU,
    C_ADD32, C_MUL32, C_FMA32, C_TRANS32, C_MOPS32, C_INT32, C_INT64,
    C_ADD16, C_MUL16, C_FMA16, C_TRANS16, C_SALU, C_VMEM_RD, C_VMEM_WR, C_LDS,
    C_BUSY_CU, C_WAVE_CYC, C_ACT_VALU, C_THR_VALU, C_ACT_ANY, C_SALU_CYC, C_WAVES,
    C_RDREQ, C_RD32, C_BUBBLE, C_RDUNC, C_WRREQ, C_WR64, C_WRUNC, C_ATOMIC,
    C_BF16, C_F16M, C_F8, C_I8, NCTR
};
static const char *const ctr_names[NCTR] = {
    "GRBM_GUI_ACTIVE", "SQ_INSTS_VALU_ADD_F64", "SQ_INSTS_VALU_MUL_F64", "SQ_INSTS_VALU_FMA_F64",
    "SQ_INSTS_VALU_TRANS_F64", "SQ_INSTS_VALU_MFMA_MOPS_F64", "SQ_VALU_MFMA_BUSY_CYCLES",
    "SQ_INSTS_VALU", "SQ_INSTS_VALU_ADD_F32", "SQ_INSTS_VALU_MUL_F32", "SQ_INSTS_VALU_FMA_F32",
    "SQ_INSTS_VALU_TRANS_F32", "SQ_INSTS_VALU_MFMA_MOPS_F32", "SQ_INSTS_VALU_INT32",
    "SQ_INSTS_VALU_INT64", "SQ_INSTS_VALU_ADD_F16", "SQ_INSTS_VALU_MUL_F16",
    "SQ_INSTS_VALU_FMA_F16", "SQ_INSTS_VALU_TRANS_F16", "SQ_INSTS_SALU", "SQ_INSTS_VMEM_RD",
    "SQ_INSTS_VMEM_WR", "SQ_INSTS_LDS", "SQ_BUSY_CU_CYCLES", "SQ_WAVE_CYCLES",
    "SQ_ACTIVE_INST_VALU", "SQ_THREAD_CYCLES_VALU", "SQ_ACTIVE_INST_ANY", "SQ_INST_CYCLES_SALU",
    "SQ_WAVES", "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum", "TCC_BUBBLE_sum",
    "TCC_EA0_RD_UNCACHED_32B_sum", "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum",
    "TCC_EA0_WR_UNCACHED_32B_sum", "TCC_EA0_ATOMIC_sum", "SQ_INSTS_VALU_MFMA_MOPS_BF16",
    "SQ_INSTS_VALU_MFMA_MOPS_F16", "SQ_INSTS_VALU_MFMA_MOPS_F8", "SQ_INSTS_VALU_MFMA_MOPS_I8",
};

/* The seed's passes (benchmark-runner README "Counter set"), used when no
 * --counters file is given. GRBM_GUI_ACTIVE is in every pass. */
static const char *const default_passes[][10] = {
    { "01_fp64_flops", "SQ_INSTS_VALU_ADD_F64", "SQ_INSTS_VALU_MUL_F64", "SQ_INSTS_VALU_FMA_F64",
      "SQ_INSTS_VALU_TRANS_F64", "SQ_INSTS_VALU_MFMA_MOPS_F64", "SQ_VALU_MFMA_BUSY_CYCLES",
      "SQ_INSTS_VALU", "GRBM_GUI_ACTIVE", NULL },
    { "02_fp32_int_ops", "SQ_INSTS_VALU_ADD_F32", "SQ_INSTS_VALU_MUL_F32", "SQ_INSTS_VALU_FMA_F32",
      "SQ_INSTS_VALU_TRANS_F32", "SQ_INSTS_VALU_MFMA_MOPS_F32", "SQ_INSTS_VALU_INT32",
      "SQ_INSTS_VALU_INT64", "GRBM_GUI_ACTIVE", NULL },
    { "03_fp16_instmix", "SQ_INSTS_VALU_ADD_F16", "SQ_INSTS_VALU_MUL_F16", "SQ_INSTS_VALU_FMA_F16",
      "SQ_INSTS_VALU_TRANS_F16", "SQ_INSTS_SALU", "SQ_INSTS_VMEM_RD", "SQ_INSTS_VMEM_WR",
      "SQ_INSTS_LDS", "GRBM_GUI_ACTIVE" },
    { "04_cu_util", "SQ_BUSY_CU_CYCLES", "SQ_WAVE_CYCLES", "SQ_ACTIVE_INST_VALU",
      "SQ_THREAD_CYCLES_VALU", "SQ_ACTIVE_INST_ANY", "SQ_INST_CYCLES_SALU", "SQ_WAVES",
      "GRBM_GUI_ACTIVE", NULL },
    { "05_hbm_read", "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum", "TCC_BUBBLE_sum",
      "TCC_EA0_RD_UNCACHED_32B_sum", "GRBM_GUI_ACTIVE", NULL },
    { "06_hbm_write", "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum", "TCC_EA0_WR_UNCACHED_32B_sum",
      "TCC_EA0_ATOMIC_sum", "GRBM_GUI_ACTIVE", NULL },
    { "07_lowp_mfma", "SQ_INSTS_VALU_MFMA_MOPS_BF16", "SQ_INSTS_VALU_MFMA_MOPS_F16",
      "SQ_INSTS_VALU_MFMA_MOPS_F8", "SQ_INSTS_VALU_MFMA_MOPS_I8", "SQ_VALU_MFMA_BUSY_CYCLES",
      "GRBM_GUI_ACTIVE", NULL },
};
#define N_DEFAULT_PASSES 6
#define MAX_PASSES 16

enum layout { L62, L63, L64, L7X };

struct pass {
    char *name;
    char **ctr;      /* counter names, in file order */
    int nctr;
    bool dropped;    /* --drop-pass: no folder written */
};

struct kern {
    char *name;
    long d;                      /* base launch duration, ns */
    int vgpr, agpr, sgpr, lds, scratch, wg[3];
    long grid[3];
    double weight;               /* share of the launches */
    double target[NCTR];         /* wanted rate per ns before rounding */
    long long n[NCTR];           /* count per base launch */
    long launches[MAX_PASSES];   /* per pass, per process */
    long long dsum[MAX_PASSES];  /* per pass, per process: sum of durations */
    long unprof_launches;        /* power run, per process */
    long long unprof_dsum;       /* power run, per process */
};

struct gen {
    const char *out, *power_dir, *tag, *counters_file, *expected;
    enum layout layout;
    int nkern, procs, gpus, min_name_len;
    long launches;
    double jitter, clock, pmc_clock, unprof;
    long grbm_overhead;
    uint64_t seed;
    bool lowp, over_limit, agent_info;
    bool sampled;
    bool units;                  /* --units: sampling units (kernel, scale s) */                /* --sample: counter rows of the plan's launches only */
    struct lp_plan plan;
    char **drop_pass, **drop_ctr;
    int ndrop_pass, ndrop_ctr;
    struct pass pass[MAX_PASSES];
    int npass;
    struct kern *k;
    double sampled_clock;        /* mean gfx clock of in-kernel samples (power run) */
    double gpu_busy_pct;         /* power run, mean over (file, agent) */
};

/* ---- deterministic random numbers (splitmix64) ---- */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double rng_unif(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next(s) >> 11) / 9007199254740992.0;
}
static int rng_int(uint64_t *s, int lo, int hi)
{
    return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

static int ctr_index(const char *name)
{
    for (int c = 0; c < NCTR; c++)
        if (strcmp(ctr_names[c], name) == 0)
            return c;
    return -1;
}

static bool in_list(char **list, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

/* ---- kernel names: the mix every reader must survive ---- */
static const char *const base_names[] = {
    "void gemm_tile<double, 64, 4>(double const*, double const*, double*, int, int, int)",
    "hip_parallel_launch_constant_memory<Kokkos::Impl::ParallelFor<ReaxFF::PairComputeTabulated"
    "<Kokkos::HIP, 1, true>, Kokkos::RangePolicy<Kokkos::HIP, ReaxFF::TagPairCompute<1, 1>>, "
    "Kokkos::HIP>>",
    "stream_copy(float*, float const*, unsigned long)",
    "tiny_reduce",
    "matmul_mfma_bf16 \"tuned\", v2(__hip_bfloat16 const*, float*)",
    "void mfma_dgemm<256, 256>(double*, double const*, double const*)",
    "__amd_rocclr_fillBufferAligned",
    "hip_parallel_launch_constant_memory<Kokkos::Impl::ParallelReduce<Kokkos::Impl::CombinedFunc"
    "torReducer<ReaxFF::BondOrder<Kokkos::HIP>, Kokkos::Sum<double>>, Kokkos::RangePolicy<Kokkos"
    "::HIP, ReaxFF::TagBondOrder>, Kokkos::HIP>>",
};
#define N_BASE_NAMES (sizeof(base_names) / sizeof(base_names[0]))

static char *kernel_name(int k, int min_len)
{
    struct strbuf sb;
    sb_init(&sb);
    if ((size_t)k < N_BASE_NAMES)
        sb_adds(&sb, base_names[k]);
    else
        sb_addf(&sb, "void synth_kernel_%d<float, %d>(float*, float const*, int)", k, k % 7);
    /* Padding keeps the name a valid-looking template name (bench sizes). */
    if ((int)sb.len < min_len && (size_t)k >= N_BASE_NAMES) {
        sb.len -= strlen("(float*, float const*, int)");
        sb.buf[sb.len] = '\0';
        while ((int)sb.len < min_len - 30)
            sb_adds(&sb, "_pad");
        sb_adds(&sb, "(float*, float const*, int)");
    }
    return sb_detach(&sb);
}

/* ---- physical limits (docs/design.md §14), the generator's own implementation ---- */
static int ceil_to(int x, int m) { return (x + m - 1) / m * m; }

static int max_waves_cu(int vgpr, int agpr, int lds, const int wg[3])
{
    int alloc = agpr > 0 ? ceil_to(ceil_to(vgpr, 4) + agpr, 8) : ceil_to(vgpr, 8);
    int simd = alloc > 0 ? 512 / alloc : 8;
    if (simd > 8)
        simd = 8;
    int lim = 4 * simd;
    long threads = (long)wg[0] * wg[1] * wg[2];
    int waves_wg = (int)((threads + WAVE - 1) / WAVE);
    if (lds > 0) {
        int by_lds = (65536 / lds) * waves_wg;
        if (by_lds < lim)
            lim = by_lds;
    }
    return lim < MAX_WAVES_CU ? lim : MAX_WAVES_CU;
}

/* ---- the hidden per-kernel model ---- */
struct shape {            /* what a kernel does, as rates the metrics recover */
    double tf64, tm64, tf32, tm32, tf16, tlowp[4];   /* TFLOP/s: VALU / MFMA */
    double rbw, wbw;                                 /* TB/s */
};

static void kern_shape(int kind, uint64_t *r, struct shape *s)
{
    memset(s, 0, sizeof(*s));
    switch (kind) {
    case 0: s->tf64 = rng_unif(r, 20, 45); s->rbw = rng_unif(r, 0.3, 1.0); break;
    case 1: s->tf64 = rng_unif(r, 2, 8); s->tf32 = rng_unif(r, 1, 5); s->rbw = rng_unif(r, 1, 2);
            s->wbw = rng_unif(r, 0.3, 0.8); break;
    case 2: s->tf32 = rng_unif(r, 0.05, 0.2); s->rbw = rng_unif(r, 2, 3); s->wbw = rng_unif(r, 1, 2);
            break;
    case 3: s->tf64 = rng_unif(r, 0.01, 0.1); s->rbw = 0.01; s->wbw = 0.005; break;
    case 4: s->tlowp[0] = rng_unif(r, 300, 700); s->tm32 = 2; s->rbw = rng_unif(r, 0.5, 1.5);
            s->wbw = 0.2; break;
    case 5: s->tm64 = rng_unif(r, 60, 120); s->tf64 = 1; s->rbw = 0.8; s->wbw = 0.3; break;
    case 6: s->wbw = rng_unif(r, 1.5, 3); break;   /* fill: no FLOPs at all */
    default:
        s->tf64 = rng_unif(r, 0, 10); s->tf32 = rng_unif(r, 0, 10); s->tf16 = rng_unif(r, 0, 5);
        s->tlowp[1] = rng_unif(r, 0, 50); s->tlowp[2] = rng_unif(r, 0, 20);
        s->tlowp[3] = rng_unif(r, 0, 20);
        s->rbw = rng_unif(r, 0.01, 2.5); s->wbw = rng_unif(r, 0.01, 1.5); break;
    }
}

/* VALU FLOP/ns f = 64*(ADD+MUL+2*FMA+TRANS): split into instruction rates. */
static void split_valu(double *t, int add, double tflops, uint64_t *r)
{
    double a = rng_unif(r, 0.1, 0.3), m = rng_unif(r, 0.1, 0.3), tr = rng_unif(r, 0, 0.05);
    double f = 1.0 - a - m - tr;                    /* fractions of instructions */
    double inst = tflops * 1000.0 / 64.0 / (a + m + 2 * f + tr);
    t[add] = a * inst; t[add + 1] = m * inst; t[add + 2] = f * inst; t[add + 3] = tr * inst;
}

static void kern_targets(struct kern *k, int kind, uint64_t *r, double clock, bool over)
{
    struct shape s;
    kern_shape(kind, r, &s);
    double *t = k->target, cyc = clock / 1000.0;        /* cycles per ns */
    split_valu(t, C_ADD64, s.tf64, r);
    split_valu(t, C_ADD32, s.tf32, r);
    split_valu(t, C_ADD16, s.tf16, r);
    t[C_MOPS64] = s.tm64 * 1000 / 512; t[C_MOPS32] = s.tm32 * 1000 / 512;
    for (int i = 0; i < 4; i++)
        t[C_BF16 + i] = s.tlowp[i] * 1000 / 512;
    double v64 = t[C_ADD64] + t[C_MUL64] + t[C_FMA64] + t[C_TRANS64];
    double v32 = t[C_ADD32] + t[C_MUL32] + t[C_FMA32] + t[C_TRANS32];
    t[C_INT32] = rng_unif(r, 0.5, 5) * cyc; t[C_INT64] = rng_unif(r, 0, 1) * cyc;
    t[C_VALU] = v64 / rng_unif(r, 0.2, 0.9) + v32 + t[C_INT32] + 1.0 * cyc;
    t[C_SALU] = t[C_VALU] * rng_unif(r, 0.1, 0.6);
    t[C_VMEM_RD] = t[C_VALU] * rng_unif(r, 0.02, 0.2);
    t[C_VMEM_WR] = t[C_VALU] * rng_unif(r, 0.01, 0.1);
    t[C_LDS] = t[C_VALU] * rng_unif(r, 0, 0.3);
    int mw = max_waves_cu(k->vgpr, k->agpr, k->lds, k->wg);
    double busy = over ? 1.25 : rng_unif(r, 0.2, 0.95);
    t[C_BUSY_CU] = busy * cyc * N_CU;
    t[C_ACT_VALU] = rng_unif(r, 0.05, 0.8) * cyc * N_CU;
    t[C_THR_VALU] = t[C_ACT_VALU] * rng_unif(r, 8, 64);
    t[C_WAVE_CYC] = rng_unif(r, 0.3, 0.95) * mw * cyc * N_CU / 4;
    t[C_ACT_ANY] = t[C_WAVE_CYC] * rng_unif(r, 0.05, 0.6);
    t[C_SALU_CYC] = rng_unif(r, 0.01, 0.3) * cyc * N_CU;
    double mf = s.tm64 + s.tm32 + s.tlowp[0] + s.tlowp[1] + s.tlowp[2] + s.tlowp[3];
    t[C_MFMA_BUSY] = (mf > 0 ? rng_unif(r, 0.3, 0.9) : 0) * cyc * N_SIMD;
    t[C_WAVES] = t[C_WAVE_CYC] / 5000.0;
    double p128 = rng_unif(r, 0.2, 0.8), p32 = rng_unif(r, 0, 1 - p128), p64 = rng_unif(r, 0, 1);
    t[C_RDREQ] = s.rbw * 1000 / (128 * p128 + 32 * p32 + 64 * (1 - p128 - p32));
    t[C_BUBBLE] = p128 * t[C_RDREQ]; t[C_RD32] = p32 * t[C_RDREQ];
    t[C_RDUNC] = t[C_RDREQ] * rng_unif(r, 0, 0.05);
    t[C_WRREQ] = s.wbw * 1000 / (32 + 32 * p64);
    t[C_WR64] = p64 * t[C_WRREQ];
    t[C_ATOMIC] = t[C_WRREQ] * rng_unif(r, 0, 0.1);
    t[C_WRUNC] = t[C_WRREQ] * rng_unif(r, 0, 0.05);
}

/* Integer counts per base launch; sub-counters never exceed their totals. */
static void kern_counts(struct kern *k, double pmc_clock, long overhead)
{
    for (int c = 0; c < NCTR; c++)
        k->n[c] = llround(k->target[c] * (double)k->d);
    k->n[C_GRBM] = llround(N_XCC * ((double)k->d * pmc_clock / 1000.0 + (double)overhead));
    if (k->n[C_BUBBLE] + k->n[C_RD32] > k->n[C_RDREQ])
        k->n[C_RDREQ] = k->n[C_BUBBLE] + k->n[C_RD32];
    if (k->n[C_WR64] > k->n[C_WRREQ])
        k->n[C_WRREQ] = k->n[C_WR64];
}

static void kern_attrs(struct kern *k, int kind, uint64_t *r, bool layout_has_agpr)
{
    static const int wgs[][3] = { { 256, 1, 1 }, { 64, 1, 1 }, { 16, 16, 1 }, { 8, 8, 4 },
                                  { 1024, 1, 1 }, { 128, 2, 1 } };
    const int *w = wgs[rng_int(r, 0, 5)];
    memcpy(k->wg, w, sizeof(k->wg));
    k->vgpr = 8 * rng_int(r, 2, 24);
    int agpr = 4 * rng_int(r, 8, 32);      /* drawn always: same mix in every layout */
    k->agpr = (layout_has_agpr && (kind == 4 || kind == 5)) ? agpr : 0;
    k->sgpr = 16 * rng_int(r, 1, 6);
    k->lds = kind % 3 == 0 ? 512 * rng_int(r, 1, 64) : 0;
    k->scratch = kind == 1 ? 1024 : 0;
    k->grid[0] = (long)w[0] * rng_int(r, 304, 4 * 304);
    k->grid[1] = w[1]; k->grid[2] = w[2];
    k->d = kind == 3 ? rng_int(r, 2000, 6000) : rng_int(r, 20000, 400000);
}

static void make_kernels(struct gen *g)
{
    uint64_t r = g->seed;
    g->k = xcalloc((size_t)g->nkern, sizeof(*g->k));
    double wsum = 0;
    for (int i = 0; i < g->nkern; i++) {
        struct kern *k = &g->k[i];
        int kind = i < (int)N_BASE_NAMES ? i : 7;
        k->name = kernel_name(i, g->min_name_len);
        kern_attrs(k, kind, &r, g->layout >= L64);
        kern_targets(k, kind, &r, g->pmc_clock, g->over_limit && i == 1);
        kern_counts(k, g->pmc_clock, g->grbm_overhead);
        k->weight = 1.0 / (1.0 + 0.3 * i);
        wsum += k->weight;
    }
    for (int i = 0; i < g->nkern; i++)
        g->k[i].weight /= wsum;
}

/* ---- launch schedule ---- */
#define T0_PMC 1550151853029637LL   /* a 7.0-like CLOCK_BOOTTIME value, ns */
#define GAP_NS 3000

/* Launch counts of pass p: weight share of --launches, +-jitter (seeded). */
static void plan_launches(struct gen *g)
{
    uint64_t r = g->seed ^ 0x5eedULL;
    for (int p = 0; p < g->npass; p++)
        for (int i = 0; i < g->nkern; i++) {
            struct kern *k = &g->k[i];
            double base = k->weight * (double)g->launches;
            double u = g->jitter > 0 ? rng_unif(&r, -1, 1) : 0;
            long n = lround(base * (1 + g->jitter / 100.0 * u));
            k->launches[p] = n < 1 ? 1 : n;
        }
    for (int i = 0; i < g->nkern; i++) {
        long n = lround(g->k[i].weight * (double)g->launches);
        g->k[i].unprof_launches = n < 1 ? 1 : n;
    }
}

/* Launch j of a kernel lasts (1 + j%3) base durations. */
static int launch_scale(long j) { return 1 + (int)(j % 3); }

struct launch {
    int k;
    int s;
    long long start, end;
};

/* The app's launch order: rounds over the kernels until each has its count.
 * counts[i] is the number of launches of kernel i; *n receives the total. */
static struct launch *schedule(const struct gen *g, const long *counts, long *n)
{
    long total = 0, maxc = 0;
    for (int i = 0; i < g->nkern; i++) {
        total += counts[i];
        if (counts[i] > maxc)
            maxc = counts[i];
    }
    struct launch *l = xcalloc((size_t)total, sizeof(*l));
    long m = 0;
    for (long round = 0; round < maxc; round++)
        for (int i = 0; i < g->nkern; i++)
            if (round < counts[i])
                l[m++] = (struct launch){ .k = i, .s = launch_scale(round) };
    *n = total;
    return l;
}

/* Serialized timestamps (PMC passes); also sums durations per kernel. */
static void time_serial(struct gen *g, struct launch *l, long n, long long t0, int p)
{
    long long t = t0;
    for (long j = 0; j < n; j++) {
        long long d = (long long)l[j].s * g->k[l[j].k].d;
        l[j].start = t;
        l[j].end = t + d;
        t = l[j].end + GAP_NS;
        if (p >= 0)
            g->k[l[j].k].dsum[p] += d;
    }
}

/* ---- CSV writing (csv.hpp rules) ---- */
static FILE *open_out(const char *path)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        br_error("cannot create '%s': %m", path);
        return NULL;
    }
    setvbuf(fp, NULL, _IOFBF, 1 << 20);
    return fp;
}

static int close_out(FILE *fp, const char *path)
{
    if (ferror(fp) | fclose(fp))
        return br_error("cannot write '%s': %m", path);
    return 0;
}

static void put_header(FILE *fp, const char *const *cols)
{
    for (int i = 0; cols[i]; i++)
        fprintf(fp, "%s\"%s\"", i ? "," : "", cols[i]);
    fputc('\n', fp);
}

static void put_agent(struct strbuf *sb, const struct gen *g, int proc)
{
    if (g->layout == L7X)
        sb_addf(sb, "\"Agent %d\"", 2 + proc);
    else
        sb_addf(sb, "%d", 2 + proc);
}

static const char *const cc_cols_62[] = {
    "Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id",
    "Grid_Size", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size", "Scratch_Size",
    "VGPR_Count", "SGPR_Count", "Counter_Name", "Counter_Value", NULL };
static const char *const cc_cols_63[] = {
    "Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id",
    "Grid_Size", "Kernel_Id", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size", "Scratch_Size",
    "VGPR_Count", "SGPR_Count", "Counter_Name", "Counter_Value", "Start_Timestamp",
    "End_Timestamp", NULL };
static const char *const cc_cols_64[] = {
    "Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id",
    "Grid_Size", "Kernel_Id", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size", "Scratch_Size",
    "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Counter_Name", "Counter_Value",
    "Start_Timestamp", "End_Timestamp", NULL };

/* Everything of a counter row before Counter_Name, for launch j. */
static void cc_prefix(struct strbuf *sb, const struct gen *g, int proc, long j,
                      const struct launch *l)
{
    const struct kern *k = &g->k[l->k];
    long wg = (long)k->wg[0] * k->wg[1] * k->wg[2];
    sb_reset(sb);
    sb_addf(sb, "%ld,%ld,", j + 1, j + 1);
    put_agent(sb, g, proc);
    sb_addf(sb, ",1,%d,%d,%ld,", 10000 + proc, 10000 + proc, k->grid[0] * k->grid[1] * k->grid[2]);
    if (g->layout >= L63)
        sb_addf(sb, "%d,", l->k + 1);
    sb_addf(sb, "\"%s\",%ld,%d,%d,%d,", k->name, wg, k->lds, k->scratch, k->vgpr);
    if (g->layout >= L64)
        sb_addf(sb, "%d,", k->agpr);
    sb_addf(sb, "%d,", k->sgpr);
}

static void cc_value(FILE *fp, const struct gen *g, long long v, const struct launch *l)
{
    if (g->layout == L62)
        fprintf(fp, "%lld\n", v);
    else if (v == 0)
        fprintf(fp, "0.00000000e+00,%lld,%lld\n", l->start, l->end);
    else
        fprintf(fp, "%lld.000000,%lld,%lld\n", v, l->start, l->end);
}

/* Count of counter `name` for one launch: the model's, or a stable filler
 * for counters the model does not know. */
static long long ctr_value(const struct kern *k, const char *name, int s)
{
    int c = ctr_index(name);
    if (c >= 0)
        return (long long)s * k->n[c];
    unsigned h = 5381;
    for (const char *q = name; *q; q++)
        h = h * 33 + (unsigned char)*q;
    return (long long)s * (h % 100000);
}

static int write_counters(const struct gen *g, const struct pass *ps, int proc,
                          const struct launch *l, long n, const char *path)
{
    FILE *fp = open_out(path);
    if (!fp)
        return -1;
    put_header(fp, g->layout == L62 ? cc_cols_62 : g->layout == L63 ? cc_cols_63 : cc_cols_64);
    struct strbuf sb;
    sb_init(&sb);
    /* rocprofv3: iterations per kernel; --units: per kernel and scale */
    long *rank = xcalloc((size_t)g->nkern * 4, sizeof(long));
    for (long j = 0; j < n; j++) {
        long *r = &rank[(size_t)l[j].k * 4 + (g->units ? l[j].s : 0)];
        if (++*r && g->sampled && !lp_profiled(&g->plan, (uint64_t)*r))
            continue;
        cc_prefix(&sb, g, proc, j, &l[j]);
        for (int c = 0; c < ps->nctr; c++) {
            if (in_list(g->drop_ctr, g->ndrop_ctr, ps->ctr[c]))
                continue;
            fwrite(sb.buf, 1, sb.len, fp);
            fprintf(fp, "\"%s\",", ps->ctr[c]);
            cc_value(fp, g, ctr_value(&g->k[l[j].k], ps->ctr[c], l[j].s), &l[j]);
        }
    }
    free(rank);
    sb_release(&sb);
    return close_out(fp, path);
}

static const char *const kt_cols_62[] = {
    "Kind", "Agent_Id", "Queue_Id", "Kernel_Id", "Kernel_Name", "Correlation_Id",
    "Start_Timestamp", "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size",
    "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y",
    "Grid_Size_Z", NULL };
static const char *const kt_cols_63[] = {
    "Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
    "Correlation_Id", "Start_Timestamp", "End_Timestamp", "Private_Segment_Size",
    "Group_Segment_Size", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
    "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z", NULL };
static const char *const kt_cols_7x[] = {
    "Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
    "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size",
    "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X",
    "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z", NULL };

static void kt_row(struct strbuf *sb, const struct gen *g, int proc, long j,
                   const struct launch *l)
{
    const struct kern *k = &g->k[l->k];
    sb_reset(sb);
    sb_adds(sb, "\"KERNEL_DISPATCH\",");
    put_agent(sb, g, proc);
    if (g->layout == L7X)
        sb_addf(sb, ",1,0,%d,%ld,%d,\"%s\",%ld,%lld,%lld,%d,%d,%d,%d,%d,", 10000 + proc, j + 1,
                l->k + 1, k->name, j + 1, l->start, l->end, k->lds, k->scratch, k->vgpr, k->agpr,
                k->sgpr);
    else if (g->layout == L62)
        sb_addf(sb, ",1,%d,\"%s\",%ld,%lld,%lld,%d,%d,", l->k + 1, k->name, j + 1, l->start,
                l->end, k->scratch, k->lds);
    else
        sb_addf(sb, ",1,%d,%ld,%d,\"%s\",%ld,%lld,%lld,%d,%d,", 10000 + proc, j + 1, l->k + 1,
                k->name, j + 1, l->start, l->end, k->scratch, k->lds);
    sb_addf(sb, "%d,%d,%d,%ld,%ld,%ld\n", k->wg[0], k->wg[1], k->wg[2], k->grid[0], k->grid[1],
            k->grid[2]);
}

static int write_trace(const struct gen *g, int proc, const struct launch *l, long n,
                       const char *path)
{
    FILE *fp = open_out(path);
    if (!fp)
        return -1;
    put_header(fp, g->layout == L62 ? kt_cols_62 : g->layout == L7X ? kt_cols_7x : kt_cols_63);
    struct strbuf sb;
    sb_init(&sb);
    for (long j = 0; j < n; j++) {
        kt_row(&sb, g, proc, j, &l[j]);
        fwrite(sb.buf, 1, sb.len, fp);
    }
    sb_release(&sb);
    return close_out(fp, path);
}

/* agent_info.csv: the columns the readers use (a real file has 53; the
 * others are not needed by benchrun and are left out). One CPU agent, then
 * one GPU agent per process. */
static int write_agent_info(const struct gen *g, const char *path)
{
    FILE *fp = open_out(path);
    if (!fp)
        return -1;
    static const char *const cols[] = {
        "Node_Id", "Logical_Node_Id", "Agent_Type", "Simd_Count", "Max_Waves_Per_Simd",
        "Lds_Size_In_Kb", "Wave_Front_Size", "Num_Xcc", "Cu_Count", "Simd_Per_Cu",
        "Max_Engine_Clk_Fcompute", "Max_Waves_Per_Cu", "Name", "Product_Name", NULL };
    put_header(fp, cols);
    fprintf(fp, "0,0,\"CPU\",0,0,0,0,0,96,0,3700,0,\"AMD EPYC 9454\",\"AMD EPYC 9454\"\n");
    for (int i = 0; i < g->procs; i++)
        fprintf(fp, "%d,%d,\"GPU\",%d,8,64,64,%d,%d,4,2100,32,\"gfx942\","
                    "\"AMD Instinct MI300X\"\n", 2 + i, 2 + i, N_SIMD, N_XCC, N_CU);
    return close_out(fp, path);
}

/* ---- expected values: docs/design.md §14 formulas over the hidden rates ---- */
struct mctx {
    double R[NCTR];          /* counts per ns */
    bool have[NCTR];         /* collected and not dropped */
    double D[MAX_PASSES];    /* summed kernel time per pass, ns */
    const int *pass_of;      /* pass whose data a counter's totals use */
    double clock;            /* MHz used for cycles */
    double max_waves;        /* kernel's limit; whole run: weighted by launch-pass time */
};

static double rt(const struct mctx *m, int c) { return m->have[c] ? m->R[c] : NAN; }
static double tot(const struct mctx *m, int c)
{
    return m->have[c] ? m->R[c] * m->D[m->pass_of[c]] : NAN;
}
static double zn(double v) { return isnan(v) ? 0 : v; }   /* absent precision counts 0 */
/* min that propagates NaN (C's fmin drops it). */
static double nmin(double a, double b) { return isnan(a) || isnan(b) ? NAN : a < b ? a : b; }

static void put(json_t *o, const char *name, double v)
{
    json_object_set_new(o, name, isfinite(v) ? json_real(v) : json_null());
}

static void expect_util(const struct mctx *m, json_t *o)
{
    double cyc = m->clock / 1000.0 * N_CU;                 /* CU-cycles per ns */
    double busy = rt(m, C_BUSY_CU) / cyc;
    double threads = rt(m, C_THR_VALU) / rt(m, C_ACT_VALU);
    double waves = 4 * rt(m, C_WAVE_CYC) / cyc;
    put(o, "eff_clock_MHz", rt(m, C_GRBM) / N_XCC * 1000.0);
    put(o, "clock_MHz_used", m->clock);
    put(o, "clock_factor", m->clock / F_BOOST);
    put(o, "CU_busy_frac", busy);
    put(o, "CU_busy_pct", 100 * busy);
    put(o, "VALUBusy_pct", 100 * rt(m, C_ACT_VALU) / cyc);
    put(o, "VALU_threads", threads);
    put(o, "VALUUtilization_pct", 100 * threads / WAVE);
    put(o, "waves_per_CU", waves);
    put(o, "Occupancy_pct", 100 * waves / MAX_WAVES_CU);
    put(o, "max_waves_CU", m->max_waves);
    put(o, "Occupancy_of_max_pct", 100 * waves / m->max_waves);
    put(o, "Wave_issue_pct", 100 * rt(m, C_ACT_ANY) / rt(m, C_WAVE_CYC));
    put(o, "SALUBusy_pct", 100 * rt(m, C_SALU_CYC) / cyc);
    put(o, "MfmaUtil_pct", 100 * rt(m, C_MFMA_BUSY) / (m->clock / 1000.0 * N_SIMD));
}

/* 64*(ADD+MUL+2*FMA+TRANS) per ns of the VALU counters starting at add. */
static double valu_rate(const struct mctx *m, int add)
{
    return 64 * (rt(m, add) + rt(m, add + 1) + 2 * rt(m, add + 2) + rt(m, add + 3));
}

/* FP64/FP32/FP16 FLOPs; returns nothing, fills o. useful_flop is the kernel's
 * FP64_VALU_FLOP_useful (caller passes NAN to compute it here). */
static void expect_flops(const struct mctx *m, json_t *o, double useful)
{
    double D64 = m->D[m->pass_of[C_ADD64]], D32 = m->D[m->pass_of[C_ADD32]];
    double v64 = valu_rate(m, C_ADD64), mf64 = 512 * rt(m, C_MOPS64);
    double util = rt(m, C_THR_VALU) / rt(m, C_ACT_VALU) / WAVE;
    if (isnan(useful))
        useful = v64 * D64 * util;
    double clkf = m->clock / F_BOOST;
    put(o, "FP64_VALU_FLOP", v64 * D64);
    put(o, "FP64_TRANS_FLOP", 64 * tot(m, C_TRANS64));
    put(o, "FP64_MFMA_FLOP", 512 * tot(m, C_MOPS64));
    put(o, "FP64_FLOP", v64 * D64 + 512 * tot(m, C_MOPS64));
    put(o, "FP64_VALU_FLOP_useful", useful);
    put(o, "TFLOPs_FP64_VALU", v64 / 1000);
    put(o, "TFLOPs_FP64_VALU_useful", useful / D64 / 1000);
    put(o, "TFLOPs_FP64_MFMA", mf64 / 1000);
    put(o, "TFLOPs_FP64", (v64 + mf64) / 1000);
    put(o, "FP64_VALU_peak_pct", 100 * v64 / 1000 / PK_FP64_VALU);
    put(o, "FP64_VALU_peak_clk_pct", 100 * v64 / 1000 / (PK_FP64_VALU * clkf));
    put(o, "FP64_MFMA_peak_pct", 100 * mf64 / 1000 / PK_163);
    put(o, "FP64_share_pct", 100 * (rt(m, C_ADD64) + rt(m, C_MUL64) + rt(m, C_FMA64) +
                                    rt(m, C_TRANS64)) / rt(m, C_VALU));
    double v32 = valu_rate(m, C_ADD32), mf32 = 512 * rt(m, C_MOPS32);
    put(o, "FP32_VALU_FLOP", v32 * D32);
    put(o, "FP32_MFMA_FLOP", 512 * tot(m, C_MOPS32));
    put(o, "FP32_FLOP", v32 * D32 + 512 * tot(m, C_MOPS32));
    put(o, "TFLOPs_FP32", (v32 + mf32) / 1000);
    put(o, "FP32_MFMA_peak_pct", 100 * mf32 / 1000 / PK_163);
    put(o, "FP16_VALU_FLOP", valu_rate(m, C_ADD16) * m->D[m->pass_of[C_ADD16]]);
}

static void expect_instmix(const struct mctx *m, json_t *o)
{
    static const int c[5] = { C_VALU, C_SALU, C_VMEM_RD, C_VMEM_WR, C_LDS };
    static const char *const n[5] = { "inst_VALU_pct", "inst_SALU_pct", "inst_VMEM_RD_pct",
                                      "inst_VMEM_WR_pct", "inst_LDS_pct" };
    double sum = 0;
    for (int i = 0; i < 5; i++)
        sum += rt(m, c[i]);
    for (int i = 0; i < 5; i++)
        put(o, n[i], 100 * rt(m, c[i]) / sum);
}

/* Returns mem_BW_TBps (NaN when a direction is missing). */
static double expect_memory(const struct mctx *m, json_t *o)
{
    double rq = rt(m, C_RDREQ), bb = rt(m, C_BUBBLE), r32 = rt(m, C_RD32);
    double rbytes = 128 * bb + 64 * (rq - bb - r32) + 32 * r32;     /* per ns */
    double wq = rt(m, C_WRREQ), w64 = rt(m, C_WR64);
    double wbytes = 32 * (wq - w64) + 64 * w64;
    double Dr = m->D[m->pass_of[C_RDREQ]], Dw = m->D[m->pass_of[C_WRREQ]];
    put(o, "mem_read_bytes", rbytes * Dr);
    put(o, "read_128B_pct", 100 * bb / rq);
    put(o, "read_32B_pct", 100 * r32 / rq);
    put(o, "mem_write_bytes", wbytes * Dw);
    put(o, "atomic_req_pct", 100 * rt(m, C_ATOMIC) / wq);
    put(o, "atomic_bytes", 32 * tot(m, C_ATOMIC));
    put(o, "uncached_read_bytes", 32 * tot(m, C_RDUNC));
    put(o, "uncached_write_bytes", 32 * tot(m, C_WRUNC));
    double bw = (rbytes + wbytes) / 1000;
    put(o, "read_BW_TBps", rbytes / 1000);
    put(o, "write_BW_TBps", wbytes / 1000);
    put(o, "mem_BW_TBps", bw);
    put(o, "mem_BW_peak_pct", 100 * bw / PEAK_BW);
    return bw;
}

/* The seed's labels: bound_mix has latency (both below --latency-pct 10),
 * the FP64 bound is only the roofline side. */
static const char *bound_label(double compute_pct, double bw_pct, bool has_flops, bool latency)
{
    if (isnan(bw_pct))
        return NULL;
    if (latency && (!has_flops || compute_pct < 10) && bw_pct < 10)
        return "latency";
    return has_flops && compute_pct > bw_pct ? "compute" : "memory";
}

static void put_str(json_t *o, const char *name, const char *s)
{
    json_object_set_new(o, name, s ? json_string(s) : json_null());
}

static void expect_roofline64(const struct mctx *m, json_t *o, double bw)
{
    double tf = (valu_rate(m, C_ADD64) + 512 * rt(m, C_MOPS64)) / 1000;
    double ai = tf / bw;
    double att = nmin(PK_FP64_VALU, ai * PEAK_BW);
    put(o, "AI_FP64", ai);
    put(o, "attainable_TFLOPs", att);
    put(o, "roofline_pct", 100 * tf / att);
    double pct = 100 * (valu_rate(m, C_ADD64) / 1000 / PK_FP64_VALU +
                        512 * rt(m, C_MOPS64) / 1000 / PK_163);
    put_str(o, "bound", bound_label(pct, 100 * bw / PEAK_BW, tf > 0, false));
}

static void expect_allprec(const struct mctx *m, json_t *o, double bw)
{
    static const char *const prec[9] = { "FP64_VALU", "FP64_MFMA", "FP32_VALU", "FP32_MFMA",
                                         "FP16_VALU", "BF16_MFMA", "F16_MFMA", "F8_MFMA",
                                         "I8_MFMA" };
    static const double peak[9] = { PK_FP64_VALU, PK_163, PK_163, PK_163, PK_163, PK_MFMA16,
                                     PK_MFMA16, PK_MFMA8, PK_MFMA8 };
    static const char *const lowp[4] = { "BF16_MFMA_FLOP", "F16_MFMA_FLOP", "F8_MFMA_FLOP",
                                         "I8_MFMA_FLOP" };
    double r[9] = { valu_rate(m, C_ADD64), 512 * rt(m, C_MOPS64), valu_rate(m, C_ADD32),
                    512 * rt(m, C_MOPS32), valu_rate(m, C_ADD16) };
    double lp = 0;
    for (int i = 0; i < 4; i++) {
        r[5 + i] = 512 * rt(m, C_BF16 + i);
        put(o, lowp[i], 512 * tot(m, C_BF16 + i));
        lp += zn(r[5 + i]) / 1000;
    }
    put(o, "TFLOPs_lowp_MFMA", lp);   /* the seed's empty sum: 0 without the pass */
    double all = 0, frac = 0, best = 0;
    int dom = -1;
    for (int i = 0; i < 9; i++) {
        double t = zn(r[i]) / 1000;
        all += t;
        frac += t / peak[i];
        if (t / peak[i] > best) {
            best = t / peak[i];
            dom = i;
        }
    }
    double pmix = all > 0 ? all / frac : NAN, ai = all / bw;
    put(o, "TFLOPs_all", all);
    put(o, "compute_peak_pct", 100 * frac);
    put(o, "peak_TFLOPs_mix", pmix);
    put_str(o, "dominant_precision", dom >= 0 ? prec[dom] : NULL);
    put(o, "AI_all", ai);
    put(o, "ridge_mix", pmix / PEAK_BW);
    put(o, "attainable_TFLOPs_mix", nmin(pmix, ai * PEAK_BW));
    put(o, "attainable_BW_TBps", all > 0 ? nmin(PEAK_BW, pmix / ai) : NAN);
    put_str(o, "bound_mix", bound_label(100 * frac, 100 * bw / PEAK_BW, all > 0, true));
}

/* Every counter metric of one kernel (or the whole run) into o. */
static void expect_metrics(const struct mctx *m, json_t *o, double useful)
{
    expect_util(m, o);
    expect_flops(m, o, useful);
    expect_instmix(m, o);
    double bw = expect_memory(m, o);
    expect_roofline64(m, o, bw);
    expect_allprec(m, o, bw);
}

/* ---- passes: built-in seed set, or "passes" of a counters/arch JSON ---- */
static void add_pass(struct gen *g, const char *name, const char *const *ctr, int n)
{
    struct pass *p = &g->pass[g->npass++];
    p->name = xstrdup(name);
    p->ctr = xcalloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; i < n; i++)
        p->ctr[i] = xstrdup(ctr[i]);
    p->nctr = n;
    p->dropped = in_list(g->drop_pass, g->ndrop_pass, name);
}

static void default_pass_set(struct gen *g)
{
    int n = N_DEFAULT_PASSES + (g->lowp ? 1 : 0);
    for (int i = 0; i < n; i++) {
        int c = 0;
        while (c < 9 && default_passes[i][1 + c])
            c++;
        add_pass(g, default_passes[i][0], &default_passes[i][1], c);
    }
}

static int json_pass_set(struct gen *g, const char *path)
{
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    if (!root)
        return br_error_at(path, e.line, e.column, "%s", e.text);
    json_t *ps = json_object_get(root, "passes"), *it;
    size_t i;
    if (!json_is_array(ps) || json_array_size(ps) > MAX_PASSES) {
        json_decref(root);
        return br_error("%s: expected \"passes\": an array of at most %d passes", path, MAX_PASSES);
    }
    json_array_foreach(ps, i, it) {
        json_t *cs = json_object_get(it, "counters");
        const char *name = json_string_value(json_object_get(it, "name"));
        size_t n = json_array_size(cs);
        const char **names = xcalloc(n + 1, sizeof(char *));
        for (size_t j = 0; j < n; j++)
            names[j] = json_string_value(json_array_get(cs, j));
        if (name && n > 0)
            add_pass(g, name, names, (int)n);
        free(names);
    }
    json_decref(root);
    return 0;
}

/* pass_of[c]: first written pass that collects c, -1 when none. */
static void map_counters(const struct gen *g, int *pass_of, bool *have)
{
    for (int c = 0; c < NCTR; c++) {
        pass_of[c] = -1;
        for (int p = 0; p < g->npass && pass_of[c] < 0; p++)
            if (!g->pass[p].dropped && in_list(g->pass[p].ctr, g->pass[p].nctr, ctr_names[c]))
                pass_of[c] = p;
        have[c] = pass_of[c] >= 0 && !in_list(g->drop_ctr, g->ndrop_ctr, ctr_names[c]);
        if (pass_of[c] < 0)
            pass_of[c] = 0;
    }
}

static int write_counters_json(const struct gen *g)
{
    json_t *root = json_object(), *ps = json_array();
    for (int p = 0; p < g->npass; p++) {
        json_t *cs = json_array();
        for (int c = 0; c < g->pass[p].nctr; c++)
            json_array_append_new(cs, json_string(g->pass[p].ctr[c]));
        json_array_append_new(ps, json_pack("{s:s, s:o}", "name", g->pass[p].name, "counters", cs));
    }
    json_object_set_new(root, "passes", ps);
    char *path = fs_path_join(g->out, "counters.json");
    int rc = json_dump_file(root, path, JSON_INDENT(2)) == 0 ? 0 : br_error("cannot write '%s'", path);
    free(path);
    json_decref(root);
    return rc;
}

/* ---- the PMC run ---- */
static char *pass_file(const struct gen *g, const struct pass *ps, int proc, const char *what)
{
    if (g->procs == 1)
        return xasprintf("%s/%s/%s_%s.csv", g->out, ps->name, ps->name, what);
    return xasprintf("%s/%s/%s_%d_%s.csv", g->out, ps->name, ps->name, 10000 + proc, what);
}

/* Dispatch_Id,Launch_Unit of every launch (unit: kernel·4 + scale). */
static int write_units(const struct launch *l, long n, const char *path)
{
    FILE *fp = open_out(path);
    if (!fp)
        return -1;
    fputs("Dispatch_Id,Launch_Unit\n", fp);
    for (long j = 0; j < n; j++)
        fprintf(fp, "%ld,%d\n", j + 1, l[j].k * 4 + l[j].s);
    return close_out(fp, path);
}

static int write_pass_proc(struct gen *g, int p, int proc)
{
    long *cnt = xcalloc((size_t)g->nkern, sizeof(long));
    for (int i = 0; i < g->nkern; i++)
        cnt[i] = g->k[i].launches[p] + proc;      /* processes differ a little */
    long n;
    struct launch *l = schedule(g, cnt, &n);
    time_serial(g, l, n, T0_PMC + (long long)p * 100000000000LL + proc * 7, p);
    char *cc = pass_file(g, &g->pass[p], proc, "counter_collection");
    char *kt = pass_file(g, &g->pass[p], proc, "kernel_trace");
    int rc = write_counters(g, &g->pass[p], proc, l, n, cc);
    if (rc == 0)
        rc = write_trace(g, proc, l, n, kt);
    if (rc == 0 && g->units) {
        char *u = pass_file(g, &g->pass[p], proc, "launch_units");
        rc = write_units(l, n, u);
        free(u);
    }
    if (rc == 0 && g->agent_info) {
        char *ai = pass_file(g, &g->pass[p], proc, "agent_info");
        rc = write_agent_info(g, ai);
        free(ai);
    }
    free(cc); free(kt); free(l); free(cnt);
    return rc;
}

static int write_pmc(struct gen *g)
{
    if (fs_mkdir_p(g->out) != 0 || write_counters_json(g) != 0)
        return -1;
    for (int p = 0; p < g->npass; p++) {
        if (g->pass[p].dropped)
            continue;
        char *dir = fs_path_join(g->out, g->pass[p].name);
        int rc = fs_mkdir_p(dir);
        if (rc == 0 && g->sampled) {   /* what benchrun pmc --launches sampled writes */
            struct xp_sampling s = { g->plan, XP_UNIT_KERNEL, true, false };
            char *text = sf_format(&s, "rocprofv3"), *path = fs_path_join(dir, SF_FILE);
            rc = fs_write_atomic(path, text, strlen(text));
            free(text);
            free(path);
        }
        free(dir);
        for (int proc = 0; rc == 0 && proc < g->procs; proc++)
            rc = write_pass_proc(g, p, proc);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* ---- the power run: unprofiled trace (kernels may overlap) + telemetry ---- */
#define T0_POWER 2060159320877000LL
#define SAMPLE_NS 1000000LL

/* Unprofiled timeline: durations unprof * s * d; every 5th launch starts
 * while the previous one still runs (concurrent streams). */
static void time_power(const struct gen *g, struct launch *l, long n)
{
    long long t = T0_POWER;
    for (long j = 0; j < n; j++) {
        long long d = llround(g->unprof * (double)(l[j].s * g->k[l[j].k].d));
        if (j % 5 == 4 && j > 0)
            t = l[j - 1].start + (l[j - 1].end - l[j - 1].start) / 2;
        l[j].start = t;
        l[j].end = t + d;
        if (l[j].end < l[j > 0 ? j - 1 : 0].end)
            l[j].end = l[j - 1].end;         /* keep ends ordered: simpler union */
        t = l[j].end + GAP_NS + 1000 * (j % 4);
    }
}

/* Union of [start,end] (ends ordered by construction): merged intervals in
 * u (capacity n); returns how many. */
static long union_of(const struct launch *l, long n, long long (*u)[2])
{
    long m = 0;
    for (long j = 0; j < n; j++) {
        if (m > 0 && l[j].start <= u[m - 1][1]) {
            if (l[j].end > u[m - 1][1])
                u[m - 1][1] = l[j].end;
            continue;
        }
        u[m][0] = l[j].start;
        u[m][1] = l[j].end;
        m++;
    }
    return m;
}

static bool inside(long long (*u)[2], long m, long long t)
{
    long lo = 0, hi = m - 1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (t < u[mid][0])
            hi = mid - 1;
        else if (t > u[mid][1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* One telemetry file: 1 ms samples from 30 ms before the first kernel to
 * 30 ms after the last. Clock: 138 MHz before the first kernel (startup),
 * 800 MHz idle, clock +-30 MHz cycling inside kernels. Returns the sum and
 * count of in-kernel clock values through sum and cnt. */
static int write_telemetry(const struct gen *g, int gpu, long long (*u)[2], long m,
                           double *sum, long *cnt)
{
    char *path = xasprintf("%s/profiling_result_%s_%d.csv", g->power_dir, g->tag, gpu);
    FILE *fp = open_out(path);
    if (!fp) {
        free(path);
        return -1;
    }
    fprintf(fp, "# device=%d interval_ms=1 backend=generated energy_resolution_uJ=15.2587890625 "
                "clock=CLOCK_BOOTTIME note=generated-test-data\n", gpu);
    fprintf(fp, "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,"
                "hotspot_temp_C\n");
    static const double wiggle[3] = { -30, 0, 30 };
    long long t0 = u[0][0] - 30 * SAMPLE_NS + 333, t1 = u[m - 1][1] + 30 * SAMPLE_NS;
    long j = 0;
    for (long long t = t0; t < t1; t += SAMPLE_NS, j++) {
        bool in = inside(u, m, t);
        double clk = in ? g->clock + wiggle[j % 3] : t < u[0][0] ? 138 : 800;
        if (in) {
            *sum += clk;
            (*cnt)++;
        }
        fprintf(fp, "%lld,%d,%.3f,%.0f,nan,%d\n", t, in ? 620 : 180, in ? 615.5 : 175.25, clk,
                in ? 71 : 45);
    }
    int rc = close_out(fp, path);
    free(path);
    return rc;
}

static int write_power(struct gen *g)
{
    char *kdir = xasprintf("%s/ktrace_%s", g->power_dir, g->tag);
    int rc = fs_mkdir_p(kdir);
    long *cnt = xcalloc((size_t)g->nkern, sizeof(long)), n, m;
    for (int i = 0; i < g->nkern; i++)
        cnt[i] = g->k[i].unprof_launches;
    struct launch *l = schedule(g, cnt, &n);
    time_power(g, l, n);
    for (long j = 0; j < n; j++)
        g->k[l[j].k].unprof_dsum += l[j].end - l[j].start;
    long long (*u)[2] = xcalloc((size_t)n, sizeof(*u));
    m = union_of(l, n, u);
    long long busy = 0;
    for (long i = 0; i < m; i++)
        busy += u[i][1] - u[i][0];
    g->gpu_busy_pct = 100.0 * (double)busy / (double)(u[m - 1][1] - u[0][0]);
    for (int proc = 0; rc == 0 && proc < g->procs; proc++) {
        char *path = xasprintf("%s/%d_kernel_trace.csv", kdir, 10000 + proc);
        rc = write_trace(g, proc, l, n, path);
        free(path);
    }
    double sum = 0;
    long c = 0;
    for (int gpu = 0; rc == 0 && gpu < g->gpus; gpu++)
        rc = write_telemetry(g, gpu, u, m, &sum, &c);
    g->sampled_clock = c > 0 ? sum / (double)c : NAN;
    free(u); free(l); free(cnt); free(kdir);
    return rc;
}

/* ---- expected.json ---- */
static long launches_total(const struct gen *g, const struct kern *k, int p)
{
    return g->procs * k->launches[p] + (long)g->procs * (g->procs - 1) / 2;
}

static int first_written_pass(const struct gen *g)
{
    for (int p = 0; p < g->npass; p++)
        if (!g->pass[p].dropped)
            return p;
    return -1;
}

/* The pass launches are counted in (the profile's launch_counter): the first
 * written pass collecting SQ_WAVE_CYCLES, else the first written pass. */
static int launch_pass(const struct gen *g, const int *pass_of, const bool *have)
{
    return have[C_WAVE_CYC] ? pass_of[C_WAVE_CYC] : first_written_pass(g);
}

/* Clock used for cycles: power-run samples, else the counters' own
 * GRBM_GUI_ACTIVE / N_XCC / D of the kernel (or whole run). */
static double used_clock(const struct gen *g, const struct mctx *m)
{
    if (g->power_dir)
        return g->sampled_clock;
    return m->R[C_GRBM] / N_XCC * 1000.0;
}

static void kernel_ctx(const struct gen *g, const struct kern *k, const int *pass_of,
                       const bool *have, struct mctx *m)
{
    memset(m, 0, sizeof(*m));
    for (int c = 0; c < NCTR; c++)
        m->R[c] = (double)k->n[c] / (double)k->d;
    memcpy(m->have, have, sizeof(m->have));
    for (int p = 0; p < g->npass; p++)
        m->D[p] = (double)k->dsum[p];
    m->pass_of = pass_of;
    m->clock = used_clock(g, m);
    m->max_waves = max_waves_cu(k->vgpr, k->agpr, k->lds, k->wg);
}


/* Whole run: per counter, sums over kernels within the counter's pass;
 * max_waves_CU = the kernels' limits weighted by their launch-pass time. */
static void whole_ctx(const struct gen *g, const int *pass_of, const bool *have, struct mctx *m)
{
    memset(m, 0, sizeof(*m));
    int lp = launch_pass(g, pass_of, have);
    double wsum = 0, tsum = 0;
    for (int i = 0; i < g->nkern; i++) {
        const struct kern *k = &g->k[i];
        wsum += (double)k->dsum[lp] * max_waves_cu(k->vgpr, k->agpr, k->lds, k->wg);
        tsum += (double)k->dsum[lp];
    }
    m->max_waves = wsum / tsum;
    for (int p = 0; p < g->npass; p++)
        for (int i = 0; i < g->nkern; i++)
            m->D[p] += (double)g->k[i].dsum[p];
    for (int c = 0; c < NCTR; c++) {
        double sum = 0;
        for (int i = 0; i < g->nkern; i++)
            sum += (double)g->k[i].n[c] * (double)(g->k[i].dsum[pass_of[c]] / g->k[i].d);
        m->R[c] = sum / m->D[pass_of[c]];
    }
    memcpy(m->have, have, sizeof(m->have));
    m->pass_of = pass_of;
    m->clock = used_clock(g, m);
}

/* Mean over the written passes of kernel time (the profile's time_ms). */
static double pass_mean_time(const struct gen *g, const struct kern *k)
{
    int n = 0;
    double t = 0;
    for (int p = 0; p < g->npass; p++) {
        if (g->pass[p].dropped)
            continue;
        t += (double)k->dsum[p];
        n++;
    }
    return t / n;
}

/* Σ over kernels of the mean pass time: the whole run's time_ms, ns. */
static double total_time(const struct gen *g)
{
    double T = 0;
    for (int i = 0; i < g->nkern; i++)
        T += pass_mean_time(g, &g->k[i]);
    return T;
}

/* time_ms and its share; launches and mean_launch_us from the launch pass
 * (launch counts jitter between passes: the seed takes one pass's). */
static void expect_times(const struct gen *g, const struct kern *k, json_t *o, double unprof_sum,
                         int lp)
{
    double t = pass_mean_time(g, k), L = (double)launches_total(g, k, lp);
    put(o, "time_ms", t / 1e6);
    put(o, "time_share_pct", 100 * t / total_time(g));
    put(o, "launches", L);
    put(o, "mean_launch_us", (double)k->dsum[lp] / 1e3 / L);
    for (int q = 0; q < g->npass; q++) {
        char *col = xasprintf("clock_MHz_%s", g->pass[q].name);
        put(o, col, g->pass[q].dropped ? NAN : (double)k->n[C_GRBM] / N_XCC / (double)k->d * 1e3);
        free(col);
    }
    if (g->power_dir) {
        double u = (double)g->procs * (double)k->unprof_dsum;
        put(o, "unprof_time_ms", u / 1e6);
        put(o, "unprof_time_share_pct", 100 * u / unprof_sum);
    }
}

static json_t *expect_kernels(const struct gen *g, const int *pass_of, const bool *have,
                              double *useful_sum)
{
    json_t *arr = json_array();
    double unprof = 0;
    for (int i = 0; i < g->nkern; i++)
        unprof += (double)g->procs * (double)g->k[i].unprof_dsum;
    *useful_sum = 0;
    int lp = launch_pass(g, pass_of, have);
    for (int i = 0; i < g->nkern; i++) {
        struct mctx m;
        kernel_ctx(g, &g->k[i], pass_of, have, &m);
        json_t *o = json_object();
        json_object_set_new(o, "kernel_full_name", json_string(g->k[i].name));
        expect_times(g, &g->k[i], o, unprof, lp);
        expect_metrics(&m, o, NAN);
        double u = json_real_value(json_object_get(o, "FP64_VALU_FLOP_useful"));
        *useful_sum += u;
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *expect_whole(const struct gen *g, const int *pass_of, const bool *have,
                            double useful_sum)
{
    struct mctx m;
    whole_ctx(g, pass_of, have, &m);
    json_t *o = json_object();
    int lp = launch_pass(g, pass_of, have);
    double L = 0, TL = 0;
    for (int i = 0; i < g->nkern; i++) {
        L += (double)launches_total(g, &g->k[i], lp);
        TL += (double)g->k[i].dsum[lp];
    }
    put(o, "time_ms", total_time(g) / 1e6);
    put(o, "time_share_pct", 100);
    put(o, "launches", L);
    put(o, "mean_launch_us", TL / 1e3 / L);
    expect_metrics(&m, o, useful_sum);
    for (int q = 0; q < g->npass; q++) {
        double grbm = 0;
        for (int i = 0; i < g->nkern; i++)
            grbm += (double)g->k[i].n[C_GRBM] * (double)(g->k[i].dsum[q] / g->k[i].d);
        char *col = xasprintf("clock_MHz_%s", g->pass[q].name);
        put(o, col, g->pass[q].dropped ? NAN : grbm / N_XCC / m.D[q] * 1e3);
        free(col);
    }
    if (g->power_dir) {
        put(o, "GPU_busy_pct", g->gpu_busy_pct);
        double t = 0;
        for (int i = 0; i < g->nkern; i++)
            t += (double)g->procs * (double)g->k[i].unprof_dsum;
        put(o, "unprof_time_ms", t / 1e6);
        put(o, "unprof_time_share_pct", 100);
    }
    return o;
}

/* Warnings analyze must give (regexes over summary.json checks.warnings). */
static json_t *expect_warnings(const struct gen *g)
{
    json_t *w = json_array();
    for (int i = 0; i < g->ndrop_ctr; i++)
        json_array_append_new(w, json_string(g->drop_ctr[i]));
    for (int i = 0; i < g->ndrop_pass; i++)
        json_array_append_new(w, json_string(g->drop_pass[i]));
    if (g->over_limit)
        json_array_append_new(w, json_string("(?i)(physical|limit|CU busy|CU_busy)"));
    if (!g->power_dir)
        json_array_append_new(w, json_string("(?i)(GRBM|fall)"));
    return w;
}

/* Top kernels as the seed picks them: by descending share (the power run's
 * when there is one, else time_share_pct), the fewest reaching pct.
 * top_share_pct is a top kernel's own share (others: empty, TOTAL 100);
 * cum_share_pct the cumulative share in that order (TOTAL: the top's). */
static json_t *expect_top(const struct gen *g, json_t *kernels, json_t *whole, double pct)
{
    int n = g->nkern, *idx = xcalloc((size_t)n, sizeof(int));
    double *share = xcalloc((size_t)n, sizeof(double)), all = 0;
    for (int i = 0; i < n; i++) {
        idx[i] = i;
        share[i] = g->power_dir ? (double)g->k[i].unprof_dsum : pass_mean_time(g, &g->k[i]);
        all += share[i];
    }
    for (int i = 0; i < n; i++)
        share[i] *= 100 / all;
    for (int i = 1; i < n; i++)            /* insertion sort by share, descending */
        for (int j = i; j > 0 && share[idx[j]] > share[idx[j - 1]]; j--) {
            int t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t;
        }
    json_t *top = json_array();
    double cum = 0, top_total = NAN;
    for (int r = 0; r < n; r++) {
        json_t *o = json_array_get(kernels, (size_t)idx[r]);
        cum += share[idx[r]];
        put(o, "cum_share_pct", cum);
        put(o, "top_share_pct", isnan(top_total) ? share[idx[r]] : NAN);
        if (isnan(top_total)) {
            json_array_append_new(top, json_string(g->k[idx[r]].name));
            if (cum >= pct)
                top_total = cum;
        }
    }
    put(whole, "top_share_pct", 100);
    put(whole, "cum_share_pct", top_total);
    free(idx);
    free(share);
    return top;
}

static const char *layout_name(enum layout l)
{
    static const char *const n[] = { "6.2", "6.3", "6.4", "7.x" };
    return n[l];
}

static int write_expected(const struct gen *g)
{
    int pass_of[NCTR];
    bool have[NCTR];
    map_counters(g, pass_of, have);
    double useful;
    json_t *root = json_object();
    json_object_set_new(root, "note", json_string(
        "generated test data (tests/tools/gen_rocprof.c): expected values from the hidden rates"));
    json_object_set_new(root, "layout", json_string(layout_name(g->layout)));
    json_object_set_new(root, "processes", json_integer(g->procs));
    json_t *kernels = expect_kernels(g, pass_of, have, &useful);
    json_t *whole = expect_whole(g, pass_of, have, useful);
    json_t *top = expect_top(g, kernels, whole, 90.0);
    if (g->power_dir)
        json_object_set_new(root, "top_kernels", top);
    else
        json_decref(top);
    json_object_set_new(root, "kernels", kernels);
    json_object_set_new(root, "whole_run", whole);
    json_object_set_new(root, "clock", json_pack("{s:s, s:f}", "source",
                        g->power_dir ? "telemetry" : "counters",
                        "clock_MHz", g->power_dir ? g->sampled_clock : g->pmc_clock));
    json_object_set_new(root, "expect_warnings", expect_warnings(g));
    json_object_set_new(root, "over_limit_kernel",
                        g->over_limit && g->nkern > 1 ? json_string(g->k[1].name) : json_null());
    char *path = g->expected ? xstrdup(g->expected) : fs_path_join(g->out, "expected.json");
    int rc = json_dump_file(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) == 0
                 ? 0 : br_error("cannot write '%s'", path);
    free(path);
    json_decref(root);
    return rc;
}

/* ---- command line ---- */
static void usage(FILE *fp)
{
    fprintf(fp,
        "usage: gen_rocprof [options] PMC_DIR\n"
        "Writes a generated rocprofv3 counter run (and optionally a power run) with\n"
        "known per-kernel rates, plus PMC_DIR/expected.json. Test data only.\n\n"
        "  --layout 6.2|6.3|6.4|7.x  rocprofv3 release layout (default 7.x; 7.0/7.2 = 7.x)\n"
        "  --kernels N               kernels in the mix (default 8)\n"
        "  --launches N              launches per pass and process (default 400)\n"
        "  --procs N                 processes: file sets per pass (default 1)\n"
        "  --jitter PCT              launch-count jitter between passes (default 0)\n"
        "  --seed N                  random seed (default 1)\n"
        "  --clock-mhz X             gfx clock while kernels run (default 1700)\n"
        "  --pmc-clock-mhz X         clock under counter collection (default = --clock-mhz)\n"
        "  --grbm-overhead CYC       GRBM cycles added per launch and XCC (default 0)\n"
        "  --lowp                    add the 07_lowp_mfma pass (built-in set)\n"
        "  --counters FILE           passes from a JSON file (\"passes\": [{name, counters}])\n"
        "  --drop-pass NAME          leave a pass folder out (repeatable)\n"
        "  --drop-counter NAME       leave a counter out of every file (repeatable)\n"
        "  --over-limit              kernel 1 gets CU busy 1.25 (over a physical limit)\n"
        "  --agent-info              write agent_info.csv in each pass\n"
        "  --power PROF_DIR          also write a power run (trace + telemetry)\n"
        "  --gpus N                  telemetry files in the power run (default = procs)\n"
        "  --unprof X                unprofiled / profiled duration (default 0.8)\n"
        "  --tag T                   workload tag (default gen)\n"
        "  --min-name-len N          pad generated kernel names to N chars (bench sizes)\n"
        "  --expected FILE           where to write expected.json (default PMC_DIR/)\n"
        "  --sample F:E:B:S          counter rows only for the launches this plan profiles\n"
        "                            (per kernel, as rocprofv3 --kernel-iteration-range),\n"
        "                            every launch in the trace, launch_sampling.json per pass;\n"
        "                            expected.json stays the full-collection answer\n"
        "  --units                   with --sample: each kernel's launches of one work scale\n"
        "                            are a sampling unit of their own (launch_units.csv)\n");
}

static int parse_layout(const char *s, enum layout *l)
{
    if (strcmp(s, "6.2") == 0) *l = L62;
    else if (strcmp(s, "6.3") == 0) *l = L63;
    else if (strcmp(s, "6.4") == 0) *l = L64;
    else if (s[0] == '7') *l = L7X;
    else return br_error("unknown layout '%s' (6.2, 6.3, 6.4, 7.x)", s);
    return 0;
}

static int num(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return br_error("%s: expected a number in [%g, %g], got '%s'", opt, lo, hi, s);
    *out = v;
    return 0;
}

static void push(char ***list, int *n, const char *s)
{
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof(char *));
    (*list)[(*n)++] = xstrdup(s);
}

enum { O_LAYOUT = 256, O_KERNELS, O_LAUNCHES, O_PROCS, O_JITTER, O_SEED, O_CLOCK, O_PCLOCK,
       O_GRBM, O_LOWP, O_COUNTERS, O_DPASS, O_DCTR, O_OVER, O_AGENT, O_POWER, O_GPUS, O_UNPROF,
       O_TAG, O_NAMELEN, O_EXPECTED, O_SAMPLE, O_UNITS, O_HELP };

static int parse_opt(struct gen *g, int o, const char *a)
{
    double v = 0;
    switch (o) {
    case O_LAYOUT: return parse_layout(a, &g->layout);
    case O_KERNELS: if (num("--kernels", a, 1, 10000, &v)) return -1; g->nkern = (int)v; return 0;
    case O_LAUNCHES: if (num("--launches", a, 1, 1e9, &v)) return -1; g->launches = (long)v; return 0;
    case O_PROCS: if (num("--procs", a, 1, 64, &v)) return -1; g->procs = (int)v; return 0;
    case O_JITTER: return num("--jitter", a, 0, 50, &g->jitter);
    case O_SEED: if (num("--seed", a, 0, 1e15, &v)) return -1; g->seed = (uint64_t)v; return 0;
    case O_CLOCK: return num("--clock-mhz", a, 100, 3000, &g->clock);
    case O_PCLOCK: return num("--pmc-clock-mhz", a, 100, 3000, &g->pmc_clock);
    case O_GRBM: if (num("--grbm-overhead", a, 0, 1e6, &v)) return -1; g->grbm_overhead = (long)v; return 0;
    case O_LOWP: g->lowp = true; return 0;
    case O_COUNTERS: g->counters_file = a; return 0;
    case O_DPASS: push(&g->drop_pass, &g->ndrop_pass, a); return 0;
    case O_DCTR: push(&g->drop_ctr, &g->ndrop_ctr, a); return 0;
    case O_OVER: g->over_limit = true; return 0;
    case O_AGENT: g->agent_info = true; return 0;
    case O_POWER: g->power_dir = a; return 0;
    case O_GPUS: if (num("--gpus", a, 1, 64, &v)) return -1; g->gpus = (int)v; return 0;
    case O_UNPROF: return num("--unprof", a, 0.05, 1, &g->unprof);
    case O_TAG: g->tag = a; return 0;
    case O_NAMELEN: if (num("--min-name-len", a, 0, 100000, &v)) return -1; g->min_name_len = (int)v; return 0;
    case O_EXPECTED: g->expected = a; return 0;
    case O_SAMPLE:
        if (lp_plan_parse(a, &g->plan) != 0)
            return br_error("--sample: expected FIRST:EVERY:BLOCKS:SEED, got '%s'", a);
        g->sampled = true;
        return 0;
    case O_UNITS: g->units = true; return 0;
    default: return -1;
    }
}

static int parse_args(struct gen *g, int argc, char **argv)
{
    static const struct option opts[] = {
        { "layout", 1, NULL, O_LAYOUT }, { "kernels", 1, NULL, O_KERNELS },
        { "launches", 1, NULL, O_LAUNCHES }, { "procs", 1, NULL, O_PROCS },
        { "jitter", 1, NULL, O_JITTER }, { "seed", 1, NULL, O_SEED },
        { "clock-mhz", 1, NULL, O_CLOCK }, { "pmc-clock-mhz", 1, NULL, O_PCLOCK },
        { "grbm-overhead", 1, NULL, O_GRBM }, { "lowp", 0, NULL, O_LOWP },
        { "counters", 1, NULL, O_COUNTERS }, { "drop-pass", 1, NULL, O_DPASS },
        { "drop-counter", 1, NULL, O_DCTR }, { "over-limit", 0, NULL, O_OVER },
        { "agent-info", 0, NULL, O_AGENT }, { "power", 1, NULL, O_POWER },
        { "gpus", 1, NULL, O_GPUS }, { "unprof", 1, NULL, O_UNPROF }, { "tag", 1, NULL, O_TAG },
        { "min-name-len", 1, NULL, O_NAMELEN }, { "expected", 1, NULL, O_EXPECTED },
        { "sample", 1, NULL, O_SAMPLE }, { "units", 0, NULL, O_UNITS },
        { "help", 0, NULL, O_HELP }, { NULL, 0, NULL, 0 },
    };
    int o;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (o == 'h' || o == O_HELP) {
            usage(stdout);
            exit(0);
        }
        if (o == '?' || parse_opt(g, o, optarg) != 0)
            return -1;
    }
    if (optind != argc - 1)
        return br_error("expected one PMC_DIR (see --help)");
    g->out = argv[optind];
    return 0;
}

static void gen_release(struct gen *g)
{
    for (int p = 0; p < g->npass; p++) {
        for (int c = 0; c < g->pass[p].nctr; c++)
            free(g->pass[p].ctr[c]);
        free(g->pass[p].ctr);
        free(g->pass[p].name);
    }
    for (int i = 0; g->k && i < g->nkern; i++)
        free(g->k[i].name);
    for (int i = 0; i < g->ndrop_pass; i++)
        free(g->drop_pass[i]);
    for (int i = 0; i < g->ndrop_ctr; i++)
        free(g->drop_ctr[i]);
    free(g->drop_pass);
    free(g->drop_ctr);
    free(g->k);
}

int main(int argc, char **argv)
{
    struct gen g = { .layout = L7X, .nkern = 8, .launches = 400, .procs = 1, .seed = 1,
                     .clock = 1700, .unprof = 0.8, .tag = "gen" };
    if (parse_args(&g, argc, argv) != 0) {
        gen_release(&g);
        return 2;
    }
    if (g.pmc_clock == 0)
        g.pmc_clock = g.clock;
    if (g.gpus == 0)
        g.gpus = g.procs;
    int rc = g.counters_file ? json_pass_set(&g, g.counters_file) : (default_pass_set(&g), 0);
    if (rc == 0 && first_written_pass(&g) < 0)
        rc = br_error("every pass is dropped");
    if (rc == 0) {
        make_kernels(&g);
        plan_launches(&g);
        if (write_pmc(&g) != 0 || (g.power_dir && write_power(&g) != 0) || write_expected(&g) != 0)
            rc = -1;
    }
    gen_release(&g);
    return rc == 0 ? 0 : 1;
}
