// calib.cu - known-answer kernels for `benchrun calibrate` (CUDA; HIP when built with hipcc).
//
// Every kernel does work whose amount follows from its parameters alone; the
// expected counter values are computed in C by src/calib/calib_expect.c from the
// same parameters (the key=value arguments below), never from a run. Keep the
// two in step: a kernel change here is a formula change there.
//
//   calib_copy     b[i] = a[i]                 doubles: reads 8n B, writes 8n B
//   calib_triad    a[i] = b[i] + s*c[i]        reads 16n B, writes 8n B, n DFMA (2n FLOP)
//   calib_fma_f64  8 chains x iters DFMA/thread        2*8*iters FLOP per thread
//   calib_fma_f32  8 chains x iters FFMA/thread        likewise, FP32
//   calib_fma_f16  8 FP16 FMAs x iters per thread: CUDA 4 chains of packed
//                  fma.rn.f16x2 (4 HFMA2 per iteration, 2 FMAs each), HIP 8 scalar
//                  chains. The FLOPs are 2*8*iters per thread either way; the NVIDIA
//                  counter counts each HFMA2 once (see docs/arch-profile.md, "FP16")
//   calib_diverge  calib_fma_f32 body in lanes 0..W/2-1 of each warp only (50% lanes)
//   calib_reglimit 160 live FP32 accumulators, __launch_bounds__(256, 2): at most
//                  128 registers/thread -> 2 blocks of 256 = 16 warps/SM (25% of 64)
//   calib_flush    reads a scratch buffer larger than L2 between phases, so each
//                  phase starts and ends with no dirty lines of another phase
//   cuBLAS DGEMM and BF16 GEMM (FP32 accumulate), M=N=K=gemm_n: 2*n^3 FLOP each
//   calib_long     FP32 FMA loop on every SM until the GPU's global timer has
//                  advanced long_ms; preceded by idle_ms of idle GPU (power step)
// The per-thread loops end with a comparison, not a sum, so no extra FP add is
// executed (a setp is not an add/mul/fma instruction).
//
// usage: calib [key=value ...]   keys: n stream_reps fma_blocks fma_threads
//        fma_iters fma_reps gemm_n gemm_reps long_ms idle_ms flush_mib only
// Prints one "calib: <kernel> ..." line per phase and "calib_total_s=<s>".
// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hipblas/hipblas.h>
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMemset hipMemset
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaGetLastError hipGetLastError
#define cudaGetErrorString hipGetErrorString
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cublasHandle_t hipblasHandle_t
#define cublasCreate hipblasCreate
#define cublasDestroy hipblasDestroy
#define cublasDgemm hipblasDgemm
#define CUBLAS_OP_N HIPBLAS_OP_N
#define CUBLAS_STATUS_SUCCESS HIPBLAS_STATUS_SUCCESS
typedef __hip_bfloat16 calib_bf16;
#define CALIB_WARP 64
#else
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
typedef __nv_bfloat16 calib_bf16;
#define CALIB_WARP 32
#endif

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "calib: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

struct params {
    long n, stream_reps, fma_blocks, fma_threads, fma_iters, fma_reps;
    long gemm_n, gemm_reps, long_ms, idle_ms, flush_mib;
    const char *only;
};

// ---- memory phases ------------------------------------------------------------

extern "C" __global__ void calib_copy(const double *__restrict__ a, double *__restrict__ b, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i];
}

extern "C" __global__ void calib_triad(double *__restrict__ a, const double *__restrict__ b,
                                       const double *__restrict__ c, double s, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = fma(s, c[i], b[i]);
}

// Integer work only: fills x[i] with a value derived from i (no FP instruction
// the FLOP counters see besides the conversion).
extern "C" __global__ void calib_fill(double *x, long n, int salt)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = (double)((i * 2654435761L + salt) & 1023);
}

extern "C" __global__ void calib_flush(const unsigned *__restrict__ x, long n, unsigned *out)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = 0;
    for (; i < n; i += (long)gridDim.x * blockDim.x)
        v ^= x[i];
    if (v == 0x12345678u)
        out[0] = v;
}

// ---- FLOP loops ----------------------------------------------------------------

// Start values come from integers (conversions, not FP adds) and the result
// is tested with compares, so the loop's FMAs are the only FP instructions.
#define CHAINS8(T, F) \
    int t_ = threadIdx.x & 7; \
    T x0 = (T)(t_), x1 = (T)(t_ + 1), x2 = (T)(t_ + 2), x3 = (T)(t_ + 3); \
    T x4 = (T)(t_ + 4), x5 = (T)(t_ + 5), x6 = (T)(t_ + 6), x7 = (T)(t_ + 7); \
    for (int it = 0; it < iters; it++) { \
        x0 = F(x0, a, b); x1 = F(x1, a, b); x2 = F(x2, a, b); x3 = F(x3, a, b); \
        x4 = F(x4, a, b); x5 = F(x5, a, b); x6 = F(x6, a, b); x7 = F(x7, a, b); \
    } \
    if (x0 == (T)-1 || x1 == (T)-1 || x2 == (T)-1 || x3 == (T)-1 || \
        x4 == (T)-1 || x5 == (T)-1 || x6 == (T)-1 || x7 == (T)-1) \
        out[0] = 1;

__device__ __forceinline__ double f64fma(double x, double a, double b) { return fma(x, a, b); }
__device__ __forceinline__ float f32fma(float x, float a, float b) { return fmaf(x, a, b); }

extern "C" __global__ void calib_fma_f64(int *out, double a, double b, int iters)
{
    CHAINS8(double, f64fma)
}

extern "C" __global__ void calib_fma_f32(int *out, float a, float b, int iters)
{
    CHAINS8(float, f32fma)
}

extern "C" __global__ void calib_diverge(int *out, float a, float b, int iters)
{
    if ((int)(threadIdx.x % CALIB_WARP) < CALIB_WARP / 2) {
        CHAINS8(float, f32fma)
    }
}

#if defined(__HIPCC__)
// One scalar FP16 FMA per call (AMD: v_fma_f16 or packed by the compiler; the
// gfx profiles count FP16 FMAs per lane either way).
__device__ __forceinline__ unsigned short h16fma(unsigned short x, unsigned short a, unsigned short b)
{
    return __half_as_ushort(__hfma(__ushort_as_half(x), __ushort_as_half(a), __ushort_as_half(b)));
}

extern "C" __global__ void calib_fma_f16(int *out, unsigned short a, unsigned short b, int iters)
{
    int t_ = threadIdx.x & 7;
    unsigned short x0 = (unsigned short)(0x3c00 + t_), x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
    unsigned short x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;   // integer adds on bits
    for (int it = 0; it < iters; it++) {
        x0 = h16fma(x0, a, b); x1 = h16fma(x1, a, b); x2 = h16fma(x2, a, b); x3 = h16fma(x3, a, b);
        x4 = h16fma(x4, a, b); x5 = h16fma(x5, a, b); x6 = h16fma(x6, a, b); x7 = h16fma(x7, a, b);
    }
    // bit compares (integer), no FP16 op
    if ((x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7) == 0xbeef)
        out[0] = 1;
}
#else
// Two FP16 FMAs per call: one packed fma.rn.f16x2 = one HFMA2. Packed on purpose:
// ptxas pairs independent scalar fma.rn.f16 into HFMA2 anyway (CUDA 13.0, sm_90:
// 8 scalar chains gave 20 HFMA2 for 40 FMAs), so only packed code has a known
// instruction count. The counter counts one per HFMA2, so FP16_VALU_FLOP (2 per
// instruction) is half the FLOPs done here; calib_expect.c expects exactly that.
__device__ __forceinline__ unsigned h2fma(unsigned x, unsigned a, unsigned b)
{
    unsigned r;
    asm volatile("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(a), "r"(b));
    return r;
}

extern "C" __global__ void calib_fma_f16(int *out, unsigned short a, unsigned short b, int iters)
{
    unsigned t_ = threadIdx.x & 7, a2 = a | ((unsigned)a << 16), b2 = b | ((unsigned)b << 16);
    unsigned x0 = (0x3c00u + t_) | ((0x3c01u + t_) << 16);   // integer ops on bits
    unsigned x1 = x0 + 0x00020002u, x2 = x0 + 0x00040004u, x3 = x0 + 0x00060006u;
    for (int it = 0; it < iters; it++) {
        x0 = h2fma(x0, a2, b2); x1 = h2fma(x1, a2, b2); x2 = h2fma(x2, a2, b2); x3 = h2fma(x3, a2, b2);
    }
    // bit compares (integer), no FP16 op
    if ((x0 ^ x1 ^ x2 ^ x3) == 0xbeefbeefu)
        out[0] = 1;
}
#endif

// 160 accumulators live across the loop: far more than the 128 registers the
// launch bounds allow, so the compiler uses the cap (spilling the rest).
#define NACC 160
extern "C" __global__ void __launch_bounds__(256, 2)
#if defined(__HIPCC__)
__attribute__((amdgpu_num_vgpr(128)))
#endif
calib_reglimit(int *out, float a, float b, int iters)
{
    float acc[NACC];
#pragma unroll
    for (int j = 0; j < NACC; j++)
        acc[j] = (float)(threadIdx.x + j);
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int j = 0; j < NACC; j++)
            acc[j] = fmaf(acc[j], a, b);
    }
    int hit = 0;
#pragma unroll
    for (int j = 0; j < NACC; j++)
        hit |= acc[j] == -1.0f;
    if (hit)
        out[0] = 1;
}

// ---- long kernel ------------------------------------------------------------------

__device__ __forceinline__ unsigned long long now_ns(void)
{
#if defined(__HIPCC__)
    return wall_clock64() * 10ull;    // MI300X wall clock: 100 MHz
#else
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#endif
}

extern "C" __global__ void calib_long(int *out, float a, float b, unsigned long long dur_ns)
{
    __shared__ unsigned long long t0;
    if (threadIdx.x == 0)
        t0 = now_ns();
    __syncthreads();
    float x0 = threadIdx.x, x1 = x0 * a, x2 = x0 * b, x3 = x1 * b;
    while (now_ns() - t0 < dur_ns) {
        for (int k = 0; k < 256; k++) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
        }
    }
    if (x0 == -1.0f || x1 == -1.0f || x2 == -1.0f || x3 == -1.0f)
        out[0] = 1;
}

// ---- host ---------------------------------------------------------------------------

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static bool want(const struct params *p, const char *what)
{
    return !p->only || strstr(p->only, what) != NULL;
}

static long parse_kv(const char *arg, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(arg, key, k) != 0 || arg[k] != '=')
        return -1;
    char *end;
    long v = strtol(arg + k + 1, &end, 10);
    if (*end || v < 0) {
        fprintf(stderr, "calib: bad value in '%s'\n", arg);
        exit(2);
    }
    return v;
}

static void parse_args(int argc, char **argv, struct params *p)
{
    struct { const char *k; long *v; } t[] = {
        {"n", &p->n}, {"stream_reps", &p->stream_reps}, {"fma_blocks", &p->fma_blocks},
        {"fma_threads", &p->fma_threads}, {"fma_iters", &p->fma_iters},
        {"fma_reps", &p->fma_reps}, {"gemm_n", &p->gemm_n}, {"gemm_reps", &p->gemm_reps},
        {"long_ms", &p->long_ms}, {"idle_ms", &p->idle_ms}, {"flush_mib", &p->flush_mib},
    };
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "only=", 5) == 0) {
            p->only = argv[i] + 5;
            continue;
        }
        size_t j = 0;
        for (; j < sizeof(t) / sizeof(t[0]); j++) {
            long v = parse_kv(argv[i], t[j].k);
            if (v >= 0) {
                *t[j].v = v;
                break;
            }
        }
        if (j == sizeof(t) / sizeof(t[0])) {
            fprintf(stderr, "calib: unknown argument '%s'\n", argv[i]);
            exit(2);
        }
    }
}

static void sync_check(const char *what)
{
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    (void)what;
}

static void flush_l2(const unsigned *scratch, long words, unsigned *out)
{
    calib_flush<<<1024, 256>>>(scratch, words, out);
    sync_check("flush");
}

static void run_streams(const struct params *p, const unsigned *scratch, long words, unsigned *uout)
{
    double *a, *b, *c;
    size_t bytes = (size_t)p->n * sizeof(double);
    CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&c, bytes));
    unsigned grid = (unsigned)((p->n + 255) / 256);
    calib_fill<<<grid, 256>>>(a, p->n, 1);
    calib_fill<<<grid, 256>>>(b, p->n, 2);
    calib_fill<<<grid, 256>>>(c, p->n, 3);
    flush_l2(scratch, words, uout);
    for (long r = 0; r < p->stream_reps; r++)
        calib_copy<<<grid, 256>>>(a, b, p->n);
    flush_l2(scratch, words, uout);
    for (long r = 0; r < p->stream_reps; r++)
        calib_triad<<<grid, 256>>>(a, b, c, 0.5, p->n);
    flush_l2(scratch, words, uout);
    printf("calib: calib_copy calib_triad n=%ld launches=%ld each\n", p->n, p->stream_reps);
    CK(cudaFree(a)); CK(cudaFree(b)); CK(cudaFree(c));
}

static void run_fma(const struct params *p, int *out)
{
    unsigned g = (unsigned)p->fma_blocks, t = (unsigned)p->fma_threads;
    int it = (int)p->fma_iters;
    for (long r = 0; r < p->fma_reps; r++) {
        calib_fma_f64<<<g, t>>>(out, 1.0000001, 1e-9, it);
        calib_fma_f32<<<g, t>>>(out, 1.0000001f, 1e-9f, it);
        calib_fma_f16<<<g, t>>>(out, 0x3c00, 0x0001, it);   // 1.0, smallest subnormal
        calib_diverge<<<g, t>>>(out, 1.0000001f, 1e-9f, it);
        calib_reglimit<<<g, 256>>>(out, 1.0000001f, 1e-9f, it / 16 > 0 ? it / 16 : 1);
    }
    sync_check("fma");
    printf("calib: fma loops blocks=%ld threads=%ld iters=%ld launches=%ld each\n",
           p->fma_blocks, p->fma_threads, p->fma_iters, p->fma_reps);
}

static void run_gemm(const struct params *p)
{
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "calib: cublasCreate failed\n");
        exit(1);
    }
    int n = (int)p->gemm_n;
    size_t e = (size_t)n * n;
    double *A, *B, *C;
    CK(cudaMalloc(&A, e * 8)); CK(cudaMalloc(&B, e * 8)); CK(cudaMalloc(&C, e * 8));
    CK(cudaMemset(A, 0, e * 8)); CK(cudaMemset(B, 0, e * 8)); CK(cudaMemset(C, 0, e * 8));
    double one = 1.0, zero = 0.0;
    for (long r = 0; r < p->gemm_reps; r++)
        if (cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n)
            != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "calib: cublasDgemm failed\n"); exit(1); }
    sync_check("dgemm");
    printf("calib: dgemm n=%d launches=%ld\n", n, p->gemm_reps);
    float fone = 1.0f, fzero = 0.0f;
    calib_bf16 *Ah = (calib_bf16 *)A, *Bh = (calib_bf16 *)B;
    float *Cf = (float *)C;
    for (long r = 0; r < p->gemm_reps; r++) {
#if defined(__HIPCC__)
        hipblasStatus_t s = hipblasGemmEx(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, &fone, Ah,
            HIP_R_16BF, n, Bh, HIP_R_16BF, n, &fzero, Cf, HIP_R_32F, n, HIPBLAS_COMPUTE_32F,
            HIPBLAS_GEMM_DEFAULT);
        if (s != HIPBLAS_STATUS_SUCCESS) {
#else
        cublasStatus_t s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &fone, Ah,
            CUDA_R_16BF, n, Bh, CUDA_R_16BF, n, &fzero, Cf, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT);
        if (s != CUBLAS_STATUS_SUCCESS) {
#endif
            fprintf(stderr, "calib: GemmEx bf16 failed (%d)\n", (int)s);
            exit(1);
        }
    }
    sync_check("bf16 gemm");
    printf("calib: bf16gemm n=%d launches=%ld\n", n, p->gemm_reps);
    CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(C));
    cublasDestroy(h);
}

static void run_long(const struct params *p, int *out)
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    sync_check("before idle");
    sleep_ms(p->idle_ms);
    // 4 blocks of 256 per SM: all resident at once, so every block starts together.
    calib_long<<<sms * 4, 256>>>(out, 1.0000001f, 1e-9f, (unsigned long long)p->long_ms * 1000000ull);
    sync_check("long");
    sleep_ms(p->idle_ms);
    printf("calib: calib_long ms=%ld blocks=%d\n", p->long_ms, sms * 4);
}

int main(int argc, char **argv)
{
    struct params p = { 1L << 27, 8, 1056, 256, 4096, 4, 7680, 3, 1000, 600, 256, NULL };
    parse_args(argc, argv, &p);
    double t0 = wall_s();
    int *out;
    unsigned *uout, *scratch;
    long words = p.flush_mib * (1L << 20) / 4;
    CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&uout, 64));
    CK(cudaMalloc(&scratch, (size_t)words * 4));
    CK(cudaMemset(scratch, 0, (size_t)words * 4));
    if (want(&p, "stream"))
        run_streams(&p, scratch, words, uout);
    if (want(&p, "fma"))
        run_fma(&p, out);
    if (want(&p, "gemm"))
        run_gemm(&p);
    if (want(&p, "long"))
        run_long(&p, out);
    CK(cudaFree(out)); CK(cudaFree(uout)); CK(cudaFree(scratch));
    printf("calib_total_s=%.3f\n", wall_s() - t0);
    return 0;
}
