// axpy.cu - 20,000 launches of a float axpy kernel (tests/gpu/run.sh overhead tables).
//   axpy [N] [LAUNCHES]   defaults 1048576 and 20000 (4096 × 256 threads, ~4.5 µs each)
// Prints "loop_s=<s> total_s=<s> launches=<n>": loop_s is host wall time around the
// launches plus the final synchronize (after one warm-up launch), total_s the whole
// program. Checks every CUDA call and the result (y = 1 + launches × 2 × 0.5).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "axpy: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void axpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    auto t0 = std::chrono::steady_clock::now();
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    int launches = argc > 2 ? atoi(argv[2]) : 20000;
    float *x, *y;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    float *h = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) h[i] = 2.0f;
    CK(cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice));
    for (int i = 0; i < n; i++) h[i] = 1.0f;
    CK(cudaMemcpy(y, h, n * sizeof(float), cudaMemcpyHostToDevice));
    int block = 256, grid = (n + block - 1) / block;
    axpy<<<grid, block>>>(n, 0.0f, x, y);   // warm-up (a = 0: y unchanged)
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto t1 = std::chrono::steady_clock::now();
    for (int l = 0; l < launches; l++)
        axpy<<<grid, block>>>(n, 0.5f, x, y);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto t2 = std::chrono::steady_clock::now();
    CK(cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost));
    double want = 1.0 + launches * 1.0;
    for (int i = 0; i < n; i += n / 7 + 1)
        if (fabs(h[i] - want) > 1e-3 * want) {
            fprintf(stderr, "axpy: wrong result y[%d] = %g, expected %g\n", i, h[i], want);
            return 1;
        }
    CK(cudaFree(x));
    CK(cudaFree(y));
    free(h);
    auto t3 = std::chrono::steady_clock::now();
    printf("loop_s=%.6f total_s=%.6f launches=%d n=%d\n",
           std::chrono::duration<double>(t2 - t1).count(),
           std::chrono::duration<double>(t3 - t0).count(), launches, n);
    return 0;
}
