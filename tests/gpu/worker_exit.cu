// worker_exit.cu - the application calls exit() from a worker thread while the main thread
// still launches kernels (tests/gpu/run.sh: the trace must still be written).
//   worker_exit [LAUNCHES_BEFORE_EXIT]   default 500
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "worker_exit: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void touch(float *p) { p[threadIdx.x] += 1.0f; }

static std::atomic<int> launched{0};

int main(int argc, char **argv)
{
    int before = argc > 1 ? atoi(argv[1]) : 500;
    float *p;
    CK(cudaMalloc(&p, 256 * sizeof(float)));
    std::thread worker([before] {
        while (launched.load() < before)
            std::this_thread::yield();
        CK(cudaDeviceSynchronize());
        printf("worker: exit(0) after %d launches\n", launched.load());
        fflush(stdout);
        exit(0);
    });
    for (;;) {   // the main thread never returns: only the worker's exit() ends the process
        touch<<<1, 256>>>(p);
        launched++;
    }
}
