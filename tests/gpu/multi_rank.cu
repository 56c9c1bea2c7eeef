// multi_rank.cu - one process per GPU with a known amount of work (issue 7,
// tests/gpu/multi.sh), and a heavy kernel on one GPU for the NVML mapping check.
//
//   multi_rank work [LAUNCHES]   rank r = $SLURM_PROCID (else $RANK, else 0)
//   multi_rank heavy SECONDS     FMA loop on CUDA device 0 for SECONDS
//
// work: LAUNCHES (default 200) launches of fma_work<r> (one kernel name per
// rank, r < 8, so a kernel's rank is visible in every trace and counter file)
// on CUDA device 0 of the process (launch.sh binds GPU r to rank r with
// BIND_GPU_PER_TASK=1), each BLOCKS x THREADS threads doing ITERS x 4 FP32 FMAs:
// sm__sass_thread_inst_executed_op_ffma_pred_on.sum = LAUNCHES x BLOCKS x
// THREADS x ITERS x 4 exactly, FLOP = 2 x that. Prints one line:
//   multi_rank rank=<r> pid=<pid> visible=<CUDA_VISIBLE_DEVICES> bus=<PCI bus id>
//     launches=<n> ffma=<expected> flop=<expected> ms=<loop time>
// heavy: prints "multi_rank heavy bus=<PCI bus id> visible=... seconds=<s>".
// Every CUDA call and the result are checked (exit 1 on error).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <unistd.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "multi_rank: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

enum { BLOCKS = 264, THREADS = 256, ITERS = 2048 };

template <int R>
__global__ void fma_work(float *out, float a, float b)
{
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
    for (int i = 0; i < ITERS; i++) {
        x0 = fmaf(x0, a, b);
        x1 = fmaf(x1, a, b);
        x2 = fmaf(x2, a, b);
        x3 = fmaf(x3, a, b);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + R;
}

static void launch(int r, float *out)
{
    switch (r) {
    case 0: fma_work<0><<<BLOCKS, THREADS>>>(out, 0.5f, 1.0f); break;
    case 1: fma_work<1><<<BLOCKS, THREADS>>>(out, 0.5f, 1.0f); break;
    case 2: fma_work<2><<<BLOCKS, THREADS>>>(out, 0.5f, 1.0f); break;
    case 3: fma_work<3><<<BLOCKS, THREADS>>>(out, 0.5f, 1.0f); break;
    case 4: fma_work<4><<<BLOCKS, THREADS>>>(out, 0.5f, 1.0f); break;
    case 5: fma_work<5><<<BLOCKS, THREADS>>>(out, 0.5f, 1.0f); break;
    case 6: fma_work<6><<<BLOCKS, THREADS>>>(out, 0.5f, 1.0f); break;
    default: fma_work<7><<<BLOCKS, THREADS>>>(out, 0.5f, 1.0f); break;
    }
}

static int env_int(const char *a, const char *b, int dflt)
{
    const char *v = getenv(a);
    if (!v || !*v)
        v = getenv(b);
    return v && *v ? atoi(v) : dflt;
}

static const char *bus_id(char *buf, int len)
{
    CK(cudaDeviceGetPCIBusId(buf, len, 0));
    return buf;
}

// x = fma(x, 0.5, 1) converges to 2 from any start: each of the 4 chains
// ends at 2 (to float precision after 2048 steps), so out = 8 + R.
static int check(const float *d, int r)
{
    static float h[BLOCKS * THREADS];
    CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i < BLOCKS * THREADS; i += 997)
        if (h[i] != 8.0f + r) {
            fprintf(stderr, "multi_rank: wrong result out[%d] = %g, expected %d\n", i, h[i], 8 + r);
            return 1;
        }
    return 0;
}

static int work(int launches)
{
    int r = env_int("SLURM_PROCID", "RANK", 0);
    if (r < 0 || r > 7) {
        fprintf(stderr, "multi_rank: rank %d: at most 8 ranks (fma_work<0..7>)\n", r);
        return 1;
    }
    char bus[32];
    CK(cudaSetDevice(0));
    float *out;
    CK(cudaMalloc(&out, BLOCKS * THREADS * sizeof(float)));
    launch(r, out);                           // warm-up (counted: launches + 1 in total)
    CK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int l = 0; l < launches; l++)
        launch(r, out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (check(out, r))
        return 1;
    CK(cudaFree(out));
    long long n = launches + 1, ffma = n * BLOCKS * THREADS * (long long)ITERS * 4;
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    printf("multi_rank rank=%d pid=%d visible=%s bus=%s launches=%lld ffma=%lld flop=%lld ms=%.3f\n",
           r, (int)getpid(), vis ? vis : "unset", bus_id(bus, sizeof(bus)), n, ffma, 2 * ffma, ms);
    return 0;
}

static int heavy(double seconds)
{
    char bus[32];
    CK(cudaSetDevice(0));
    float *out;
    CK(cudaMalloc(&out, BLOCKS * THREADS * 16 * sizeof(float)));
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    printf("multi_rank heavy bus=%s visible=%s seconds=%g\n", bus_id(bus, sizeof(bus)),
           vis ? vis : "unset", seconds);
    fflush(stdout);
    auto t0 = std::chrono::steady_clock::now();
    long n = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
        for (int k = 0; k < 50; k++, n++)
            fma_work<0><<<BLOCKS * 16, THREADS>>>(out, 0.5f, 1.0f);
        CK(cudaDeviceSynchronize());
    }
    CK(cudaFree(out));
    printf("multi_rank heavy launches=%ld\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "work") == 0)
        return work(argc > 2 ? atoi(argv[2]) : 200);
    if (argc >= 3 && strcmp(argv[1], "heavy") == 0)
        return heavy(atof(argv[2]));
    fprintf(stderr, "usage: multi_rank work [LAUNCHES] | multi_rank heavy SECONDS\n");
    return 2;
}
