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
//   calib_phase_fma / calib_phase_copy / calib_phase_sleep
//                  power phases of 20-500 ms in a known order (energy check):
//                  FP64 FMA loop, DRAM copy of the stream arrays, __nanosleep
//                  loop, each on every SM until the global timer has advanced
//                  the phase's length; idle_ms / 2 idle before and after
// The per-thread loops end with a comparison, not a sum, so no extra FP add is
// executed (a setp is not an add/mul/fma instruction).
//
//   calib_mma_* / calib_wgmma_* / calib_mixed_paths: one kernel per tensor-core
//                  instruction path (CUDA only; see "tensor-core paths" below)
// usage: calib [key=value ...]   keys: n stream_reps fma_blocks fma_threads
//        fma_iters fma_reps gemm_n gemm_reps long_ms idle_ms flush_mib
//        mma_blocks mma_iters mma_reps power_phases only
//        (only: stream fma tensor gemm long power; power_phases: repetitions of
//        the power phase sequence, 0 none)
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
    long mma_blocks, mma_iters, mma_reps;
    long power_phases;
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

// ---- tensor-core paths (CUDA, Hopper) ---------------------------------------------
//
// One kernel per tensor instruction path a Hopper program can execute, each
// issuing a known number of matrix instructions in inline PTX (asm volatile:
// the compiler can neither drop nor merge them). Blocks are 128 threads (4
// warps = 1 warpgroup); each iteration issues MMA_PER_ITER (4) instructions
// per warp (mma.sync, 4 independent accumulators) or per warpgroup (wgmma: one
// group of 4 into one accumulator, committed and waited for). Operands are
// integer bit patterns (no FP instruction prepares them); accumulators are
// only compared at the end. FLOPs = 2*M*N*K per instruction x 4 x iters x
// warps (or warpgroups) x launches (calib_expect.c, tensor_paths()).
//
//   mma.sync, per warp                           wgmma (sm_90a), per warpgroup
//   calib_mma_bf16_k16    m16n8k16 bf16 -> f32   calib_wgmma_bf16     m64n64k16 bf16 -> f32
//   calib_mma_bf16_k8     m16n8k8  bf16 -> f32   calib_wgmma_f16      m64n64k16 f16 -> f32
//   calib_mma_f16_k16     m16n8k16 f16 -> f16    calib_wgmma_f16_f16  m64n64k16 f16 -> f16
//   calib_mma_f16_k8      m16n8k8  f16 -> f16    calib_wgmma_tf32     m64n64k8  tf32 -> f32
//   calib_mma_f16f32_k16  m16n8k16 f16 -> f32    calib_wgmma_e4m3     m64n64k32 e4m3 -> f32
//   calib_mma_f16f32_k8   m16n8k8  f16 -> f32    calib_wgmma_e5m2     m64n64k32 e5m2 -> f32
//   calib_mma_tf32_k8     m16n8k8  tf32 -> f32   calib_wgmma_s8       m64n64k32 s8 -> s32
//   calib_mma_s8_k32      m16n8k32 s8 -> s32
//   calib_mma_f64_k4      m8n8k4   f64 -> f64
//   calib_mixed_paths     per thread and iteration DFMA DMUL DADD FFMA FMUL FADD HFMA2
//                         HMUL2 HADD2 (inline PTX with .rn: never contracted), per warp
//                         one mma.sync m16n8k16 bf16 and one m8n8k4 f64, per warpgroup
//                         one wgmma m64n64k16 bf16: every FLOP counter in one kernel
#if !defined(__HIPCC__)
#define MMA_THREADS 128
#define MMA_PER_ITER 4

// operand bits from the thread index: integer work only
#define MMA_BITS(i) ((threadIdx.x * 2654435761u + (i) * 40503u) & 0x3c7f3c7fu)

// mma.sync, A 4 regs, B 2 regs, C = D 4 x 32 bit (f32 or s32): m16n8k16 16-bit,
// m16n8k8 tf32, m16n8k32 s8
#define MMA_A4B2_D4(NAME, PTX, T, CON) \
extern "C" __global__ void __launch_bounds__(MMA_THREADS) NAME(int *out, int iters) \
{ \
    unsigned a0 = MMA_BITS(0), a1 = MMA_BITS(1), a2 = MMA_BITS(2), a3 = MMA_BITS(3); \
    unsigned b0 = MMA_BITS(4), b1 = MMA_BITS(5); \
    T c[MMA_PER_ITER][4] = {}; \
    for (int it = 0; it < iters; it++) { \
        _Pragma("unroll") \
        for (int j = 0; j < MMA_PER_ITER; j++) \
            asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
                         : CON(c[j][0]), CON(c[j][1]), CON(c[j][2]), CON(c[j][3]) \
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1)); \
    } \
    for (int j = 0; j < MMA_PER_ITER; j++) \
        if (c[j][0] == (T)-1 || c[j][1] == (T)-1 || c[j][2] == (T)-1 || c[j][3] == (T)-1) \
            out[0] = 1; \
}

// mma.sync m16n8k8 16-bit, A 2 regs, B 1 reg, C = D 4 x f32
#define MMA_A2B1_D4(NAME, PTX) \
extern "C" __global__ void __launch_bounds__(MMA_THREADS) NAME(int *out, int iters) \
{ \
    unsigned a0 = MMA_BITS(0), a1 = MMA_BITS(1), b0 = MMA_BITS(4); \
    float c[MMA_PER_ITER][4] = {}; \
    for (int it = 0; it < iters; it++) { \
        _Pragma("unroll") \
        for (int j = 0; j < MMA_PER_ITER; j++) \
            asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};" \
                         : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3]) \
                         : "r"(a0), "r"(a1), "r"(b0)); \
    } \
    for (int j = 0; j < MMA_PER_ITER; j++) \
        if (c[j][0] == -1.0f || c[j][1] == -1.0f || c[j][2] == -1.0f || c[j][3] == -1.0f) \
            out[0] = 1; \
}

// mma.sync with f16 accumulate, C = D 2 x f16x2; AB: the A and B operands
// (%2 on), ARGS their registers, declared from MMA_BITS
#define MMA_F16ACC(NAME, PTX, AB, ...) \
extern "C" __global__ void __launch_bounds__(MMA_THREADS) NAME(int *out, int iters) \
{ \
    const unsigned r[6] = { MMA_BITS(0), MMA_BITS(1), MMA_BITS(2), MMA_BITS(3), MMA_BITS(4), \
                            MMA_BITS(5) }; \
    unsigned c[MMA_PER_ITER][2] = {}; \
    for (int it = 0; it < iters; it++) { \
        _Pragma("unroll") \
        for (int j = 0; j < MMA_PER_ITER; j++) \
            asm volatile(PTX " {%0,%1}, " AB ", {%0,%1};" : "+r"(c[j][0]), "+r"(c[j][1]) \
                         : __VA_ARGS__); \
    } \
    for (int j = 0; j < MMA_PER_ITER; j++) \
        if ((c[j][0] ^ c[j][1]) == 0xbeefbeefu) \
            out[0] = 1; \
}

MMA_A4B2_D4(calib_mma_bf16_k16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", float, "+f")
MMA_A2B1_D4(calib_mma_bf16_k8, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32")
MMA_F16ACC(calib_mma_f16_k16, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
           "{%2,%3,%4,%5}, {%6,%7}", "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]))
MMA_F16ACC(calib_mma_f16_k8, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
           "{%2,%3}, {%4}", "r"(r[0]), "r"(r[1]), "r"(r[4]))
MMA_A4B2_D4(calib_mma_f16f32_k16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", float, "+f")
MMA_A2B1_D4(calib_mma_f16f32_k8, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32")
MMA_A4B2_D4(calib_mma_tf32_k8, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", float, "+f")
MMA_A4B2_D4(calib_mma_s8_k32, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", int, "+r")

// FP64 operands from integer bits (a move, not a conversion)
#define MMA_F64_BITS(i) __longlong_as_double(0x3ff0000000000000ll | MMA_BITS(i))
#define MMA_F64_PTX "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"

extern "C" __global__ void __launch_bounds__(MMA_THREADS) calib_mma_f64_k4(int *out, int iters)
{
    double a = MMA_F64_BITS(0), b = MMA_F64_BITS(1);
    double c[MMA_PER_ITER][2] = {};
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int j = 0; j < MMA_PER_ITER; j++)
            asm volatile(MMA_F64_PTX : "+d"(c[j][0]), "+d"(c[j][1]) : "d"(a), "d"(b));
    }
    for (int j = 0; j < MMA_PER_ITER; j++)
        if (c[j][0] == -1.0 || c[j][1] == -1.0)
            out[0] = 1;
}

// wgmma reads A and B from shared memory through matrix descriptors (PTX ISA,
// "Matrix Descriptor Format": start address >> 4 in bits 0-13, leading byte
// offset >> 4 in bits 16-29, stride byte offset >> 4 in bits 32-45, no
// swizzle): 128 B and 256 B keep every core matrix of a 64x64 tile inside the
// 8 KiB half of the block's buffer. The values are whatever bits the block
// wrote; only the instruction count matters.
#define WG_SMEM 16384
__device__ __forceinline__ unsigned long long wg_desc(unsigned saddr)
{
    return (unsigned long long)((saddr & 0x3ffff) >> 4) | (8ull << 16) | (16ull << 32);
}

__device__ __forceinline__ void wg_fill(unsigned *s)
{
    for (int i = threadIdx.x; i < WG_SMEM / 4; i += blockDim.x)
        s[i] = (i * 2654435761u) & 0x3c7f3c7fu;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic writes -> async proxy
    __syncthreads();
}

#define WG_D32 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20," \
               "%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p"
#define WG_D16 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p"
#define WG_OPS16(C, d) C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7]), \
    C(d[8]), C(d[9]), C(d[10]), C(d[11]), C(d[12]), C(d[13]), C(d[14]), C(d[15])
#define WG_OPS32(C, d) WG_OPS16(C, d), C(d[16]), C(d[17]), C(d[18]), C(d[19]), C(d[20]), \
    C(d[21]), C(d[22]), C(d[23]), C(d[24]), C(d[25]), C(d[26]), C(d[27]), C(d[28]), C(d[29]), \
    C(d[30]), C(d[31])
#define WG_F(x) "+f"(x)
#define WG_R(x) "+r"(x)

// One group of MMA_PER_ITER wgmma into one accumulator (scale-d p = true),
// then commit and wait for it.
#define WG_GROUP(LINE) \
    "{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\nwgmma.fence.sync.aligned;\n" \
    LINE LINE LINE LINE "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}\n"

// wgmma exists for sm_90a only; another target builds an empty loop
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_ISSUE(LINE, OUTS) asm volatile(WG_GROUP(LINE) : OUTS : "l"(da), "l"(db) : "memory")
#else
#define WG_ISSUE(LINE, OUTS) (void)da, (void)db
#endif

#define WGMMA_KERNEL(NAME, T, NREG, OPS, CON, LINE, ENDTEST) \
extern "C" __global__ void __launch_bounds__(MMA_THREADS) NAME(int *out, int iters) \
{ \
    __shared__ __align__(128) unsigned s[WG_SMEM / 4]; \
    wg_fill(s); \
    unsigned base = (unsigned)__cvta_generic_to_shared(s); \
    unsigned long long da = wg_desc(base), db = wg_desc(base + WG_SMEM / 2); \
    T d[NREG] = {}; \
    for (int it = 0; it < iters; it++) \
        WG_ISSUE(LINE, OPS(CON, d)); \
    for (int j = 0; j < NREG; j++) \
        if (ENDTEST) \
            out[0] = 1; \
}

#define WG_F32_END (d[j] == -1.0f)
#define WG_BITS_END (d[j] == 0xbeefbeefu)
WGMMA_KERNEL(calib_wgmma_bf16, float, 32, WG_OPS32, WG_F,
             "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " WG_D32 ", 1, 1, 0, 0;\n", WG_F32_END)
WGMMA_KERNEL(calib_wgmma_f16, float, 32, WG_OPS32, WG_F,
             "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " WG_D32 ", 1, 1, 0, 0;\n", WG_F32_END)
WGMMA_KERNEL(calib_wgmma_f16_f16, unsigned, 16, WG_OPS16, WG_R,
             "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 " WG_D16 ", 1, 1, 0, 0;\n", WG_BITS_END)
WGMMA_KERNEL(calib_wgmma_tf32, float, 32, WG_OPS32, WG_F,
             "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 " WG_D32 ", 1, 1;\n", WG_F32_END)
WGMMA_KERNEL(calib_wgmma_e4m3, float, 32, WG_OPS32, WG_F,
             "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 " WG_D32 ", 1, 1;\n", WG_F32_END)
WGMMA_KERNEL(calib_wgmma_e5m2, float, 32, WG_OPS32, WG_F,
             "wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2 " WG_D32 ", 1, 1;\n", WG_F32_END)
WGMMA_KERNEL(calib_wgmma_s8, unsigned, 32, WG_OPS32, WG_R,
             "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 " WG_D32 ";\n", WG_BITS_END)

// Every path in one kernel: per thread and iteration 3 FP64, 3 FP32 and 3
// packed FP16 CUDA-core instructions, per warp one HMMA bf16 and one DMMA,
// per warpgroup one HGMMA bf16 (a group of one).
extern "C" __global__ void __launch_bounds__(MMA_THREADS) calib_mixed_paths(int *out, int iters)
{
    __shared__ __align__(128) unsigned s[WG_SMEM / 4];
    wg_fill(s);
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    unsigned long long da = wg_desc(base), db = wg_desc(base + WG_SMEM / 2);
    float d[32] = {}, c[4] = {};
    double e[2] = {}, a64 = MMA_F64_BITS(0), b64 = MMA_F64_BITS(1);
    double x64 = MMA_F64_BITS(2), y64 = MMA_F64_BITS(3), z64 = MMA_F64_BITS(4);
    float x32 = __uint_as_float(0x3f800000u | (MMA_BITS(5) & 0x7fff)), y32 = x32, z32 = x32;
    float a32 = __uint_as_float(0x3f800001u), b32 = __uint_as_float(0x33d6bf95u);   // ~1, 1e-7
    unsigned x16 = MMA_BITS(6), y16 = x16, z16 = x16, a16 = 0x3c003c00u, b16 = 0x00010001u;
    unsigned a0 = MMA_BITS(0), a1 = MMA_BITS(1), a2 = MMA_BITS(2), a3 = MMA_BITS(3);
    unsigned b0 = MMA_BITS(4), b1 = MMA_BITS(5);
    for (int it = 0; it < iters; it++) {
        asm volatile("fma.rn.f64 %0, %0, %3, %4;\n\tmul.rn.f64 %1, %1, %3;\n\tadd.rn.f64 %2, %2, %4;"
                     : "+d"(x64), "+d"(y64), "+d"(z64) : "d"(a64), "d"(b64));
        asm volatile("fma.rn.f32 %0, %0, %3, %4;\n\tmul.rn.f32 %1, %1, %3;\n\tadd.rn.f32 %2, %2, %4;"
                     : "+f"(x32), "+f"(y32), "+f"(z32) : "f"(a32), "f"(b32));
        asm volatile("fma.rn.f16x2 %0, %0, %3, %4;\n\tmul.rn.f16x2 %1, %1, %3;\n\tadd.rn.f16x2 %2, %2, %4;"
                     : "+r"(x16), "+r"(y16), "+r"(z16) : "r"(a16), "r"(b16));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        asm volatile(MMA_F64_PTX : "+d"(e[0]), "+d"(e[1]) : "d"(a64), "d"(b64));
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
        asm volatile("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\nwgmma.fence.sync.aligned;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " WG_D32 ", 1, 1, 0, 0;\n"
                     "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}\n"
                     : WG_OPS32(WG_F, d) : "l"(da), "l"(db) : "memory");
#endif
    }
    bool hit = x64 == -1.0 || y64 == -1.0 || z64 == -1.0 || x32 == -1.0f || y32 == -1.0f ||
               z32 == -1.0f || (x16 ^ y16 ^ z16) == 0xbeefbeefu || e[0] == -1.0 || e[1] == -1.0;
    for (int j = 0; j < 4; j++)
        hit |= c[j] == -1.0f;
    for (int j = 0; j < 32; j++)
        hit |= d[j] == -1.0f;
    if (hit)
        out[0] = 1;
    (void)da, (void)db;
}
#endif

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

// ---- power phases (energy per kernel) ---------------------------------------------

// Every block starts its own clock: the grid is resident at once (4 blocks of
// 256 per SM), so the blocks start together and end within one step.
__device__ __forceinline__ unsigned long long block_start_ns(void)
{
    __shared__ unsigned long long t0;
    if (threadIdx.x == 0)
        t0 = now_ns();
    __syncthreads();
    return t0;
}

extern "C" __global__ void calib_phase_fma(int *out, double a, double b, unsigned long long dur_ns)
{
    unsigned long long t0 = block_start_ns();
    double x0 = threadIdx.x, x1 = x0 * a, x2 = x0 * b, x3 = x1 * b;
    while (now_ns() - t0 < dur_ns) {
        for (int k = 0; k < 128; k++) {
            x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
        }
    }
    if (x0 == -1.0 || x1 == -1.0 || x2 == -1.0 || x3 == -1.0)
        out[0] = 1;
}

// Whole passes of b[i] = a[i] over n doubles until dur_ns (a pass of 2 GiB
// of traffic takes ~0.5 ms on an H200).
extern "C" __global__ void calib_phase_copy(const double *__restrict__ a, double *__restrict__ b,
                                            long n, unsigned long long dur_ns)
{
    unsigned long long t0 = block_start_ns();
    __shared__ int stop;
    for (;;) {
        for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += (long)gridDim.x * blockDim.x)
            b[i] = a[i];
        if (threadIdx.x == 0)
            stop = now_ns() - t0 >= dur_ns;
        __syncthreads();
        if (stop)
            break;
        __syncthreads();
    }
}

extern "C" __global__ void calib_phase_sleep(unsigned long long dur_ns)
{
    unsigned long long t0 = block_start_ns();
    while (now_ns() - t0 < dur_ns) {
#if defined(__HIPCC__)
        __builtin_amdgcn_s_sleep(127);
#else
        __nanosleep(10000);
#endif
    }
}

// The sequence: each kind at each length once, consecutive kinds different.
static const struct { char kind; int ms; } phase_seq[] = {
    {'F', 500}, {'C', 20}, {'S', 200}, {'F', 50}, {'C', 500}, {'S', 20}, {'F', 200}, {'C', 50},
    {'S', 500}, {'F', 20}, {'C', 200}, {'S', 50}, {'F', 100}, {'C', 100}, {'S', 100},
};

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
        {"mma_blocks", &p->mma_blocks}, {"mma_iters", &p->mma_iters}, {"mma_reps", &p->mma_reps},
        {"power_phases", &p->power_phases},
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

#if !defined(__HIPCC__)
typedef void (*calib_mma_fn)(int *, int);
static const struct { const char *name; calib_mma_fn fn; } calib_mma_kernels[] = {
    { "calib_mma_bf16_k16", calib_mma_bf16_k16 }, { "calib_mma_bf16_k8", calib_mma_bf16_k8 },
    { "calib_mma_f16_k16", calib_mma_f16_k16 }, { "calib_mma_f16_k8", calib_mma_f16_k8 },
    { "calib_mma_f16f32_k16", calib_mma_f16f32_k16 }, { "calib_mma_f16f32_k8", calib_mma_f16f32_k8 },
    { "calib_mma_tf32_k8", calib_mma_tf32_k8 }, { "calib_mma_s8_k32", calib_mma_s8_k32 },
    { "calib_mma_f64_k4", calib_mma_f64_k4 },
    { "calib_wgmma_bf16", calib_wgmma_bf16 }, { "calib_wgmma_f16", calib_wgmma_f16 },
    { "calib_wgmma_f16_f16", calib_wgmma_f16_f16 }, { "calib_wgmma_tf32", calib_wgmma_tf32 },
    { "calib_wgmma_e4m3", calib_wgmma_e4m3 }, { "calib_wgmma_e5m2", calib_wgmma_e5m2 },
    { "calib_wgmma_s8", calib_wgmma_s8 }, { "calib_mixed_paths", calib_mixed_paths },
};

// Every tensor-path kernel mma_reps times (the wgmma ones need sm_90a: on
// another GPU they issue nothing, and calibrate reports the misses).
static void run_tensor(const struct params *p, int *out)
{
    int major = 0;
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    if (major != 9)
        fprintf(stderr, "calib: compute capability %d.x: the wgmma kernels run only on 9.0 (sm_90a)\n", major);
    size_t nk = sizeof(calib_mma_kernels) / sizeof(calib_mma_kernels[0]);
    for (long r = 0; r < p->mma_reps; r++)
        for (size_t k = 0; k < nk; k++)
            calib_mma_kernels[k].fn<<<(unsigned)p->mma_blocks, MMA_THREADS>>>(out, (int)p->mma_iters);
    sync_check("tensor");
    printf("calib: tensor paths blocks=%ld threads=%d iters=%ld per_iter=%d launches=%ld each\n",
           p->mma_blocks, MMA_THREADS, p->mma_iters, MMA_PER_ITER, p->mma_reps);
}
#endif

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

static void run_phases(const struct params *p, int *out)
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    double *a, *b;
    size_t bytes = (size_t)p->n * sizeof(double);
    CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes));
    calib_fill<<<(unsigned)((p->n + 255) / 256), 256>>>(a, p->n, 4);
    sync_check("before phases");
    sleep_ms(p->idle_ms / 2);
    unsigned blocks = (unsigned)sms * 4;
    for (long r = 0; r < p->power_phases; r++)
        for (size_t i = 0; i < sizeof(phase_seq) / sizeof(phase_seq[0]); i++) {
            unsigned long long ns = (unsigned long long)phase_seq[i].ms * 1000000ull;
            if (phase_seq[i].kind == 'F')
                calib_phase_fma<<<blocks, 256>>>(out, 1.0000001, 1e-9, ns);
            else if (phase_seq[i].kind == 'C')
                calib_phase_copy<<<blocks, 256>>>(a, b, p->n, ns);
            else
                calib_phase_sleep<<<blocks, 256>>>(ns);
        }
    sync_check("phases");
    sleep_ms(p->idle_ms / 2);
    printf("calib: calib_phase_fma calib_phase_copy calib_phase_sleep reps=%ld phases=%zu\n",
           p->power_phases, sizeof(phase_seq) / sizeof(phase_seq[0]));
    CK(cudaFree(a)); CK(cudaFree(b));
}

int main(int argc, char **argv)
{
    struct params p = { 1L << 27, 8, 1056, 256, 4096, 4, 7680, 3, 1000, 600, 256, 528, 1024, 2, 1, NULL };
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
#if !defined(__HIPCC__)
    if (want(&p, "tensor"))
        run_tensor(&p, out);
#endif
    if (want(&p, "gemm"))
        run_gemm(&p);
    if (want(&p, "long"))
        run_long(&p, out);
    if (p.power_phases > 0 && want(&p, "power"))
        run_phases(&p, out);
    CK(cudaFree(out)); CK(cudaFree(uout)); CK(cudaFree(scratch));
    printf("calib_total_s=%.3f\n", wall_s() - t0);
    return 0;
}
