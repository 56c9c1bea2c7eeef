// multistream.cu - overlapping kernels on 4 streams (tests/gpu/run.sh: the trace must keep
// them concurrent). Each stream runs ROUNDS spin kernels of ~SPIN_US µs (one block each),
// so kernels of different streams overlap in time when the tracer does not serialize.
//   multistream [ROUNDS] [SPIN_US]   defaults 8 and 200
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "multistream: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void spin(long long cycles, int *out)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
    if (threadIdx.x == 0)
        atomicAdd(out, 1);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 8;
    int spin_us = argc > 2 ? atoi(argv[2]) : 200;
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    long long cycles = (long long)clock_khz * spin_us / 1000;
    const int NS = 4;
    cudaStream_t s[NS];
    int *count;
    CK(cudaMalloc(&count, sizeof(int)));
    CK(cudaMemset(count, 0, sizeof(int)));
    for (int i = 0; i < NS; i++)
        CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < NS; i++)
            spin<<<1, 32, 0, s[i]>>>(cycles, count);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h = 0;
    CK(cudaMemcpy(&h, count, sizeof(int), cudaMemcpyDeviceToHost));
    printf("kernels=%d expected=%d\n", h, rounds * NS);
    return h == rounds * NS ? 0 : 1;
}
