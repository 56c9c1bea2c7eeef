// sass_repro.cu - minimal driver-API programs for the counter pass that crashed
// JAX (issue 14: pass 01_flops_sass, SIGSEGV in cuLaunchKernelEx -> libcuda ->
// libcupti -> libnvperf_host). Each MODE exercises one thing XLA does that the
// PyTorch runs did not: cuLaunchKernelEx with launch attributes (XLA's
// LaunchCudaKernel adds CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION and/or
// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION), library kernels,
// module load/unload churn (autotuning), several threads, several contexts,
// graphs. Run it under libbenchrun-cupti.so with the SASS metrics
// (tests/gpu/crash_repro.sh); exit 0 and "ok MODE" mean it survived.
//   usage: sass_repro MODE [launches]
// The kernels are PTX (written here), JIT-compiled by the driver at load.
// SPDX-License-Identifier: MIT
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    // FP32 FMA loop: out[0] written only if the result is -1 (never)
    ".visible .entry repro_fma(.param .u64 out, .param .u32 iters)\n{\n"
    "  .reg .f32 %f<3>; .reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .pred %p<2>;\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [iters];\n"
    "  mov.u32 %r2, %tid.x; cvt.rn.f32.u32 %f1, %r2; mov.f32 %f2, 0f3F800001; mov.u32 %r3, 0;\n"
    "L1: setp.ge.u32 %p1, %r3, %r1; @%p1 bra L2;\n"
    "  fma.rn.f32 %f1, %f1, %f2, %f2; add.u32 %r3, %r3, 1; bra L1;\n"
    "L2: setp.eq.f32 %p1, %f1, 0fBF800000; @!%p1 bra L3;\n"
    "  cvta.to.global.u64 %rd2, %rd1; st.global.f32 [%rd2], %f1;\n"
    "L3: ret;\n}\n"
    // the same with programmatic dependent launch (griddepcontrol, sm_90)
    ".visible .entry repro_pdl(.param .u64 out, .param .u32 iters)\n{\n"
    "  .reg .f32 %f<3>; .reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .pred %p<2>;\n"
    "  griddepcontrol.wait;\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [iters];\n"
    "  mov.u32 %r2, %tid.x; cvt.rn.f32.u32 %f1, %r2; mov.f32 %f2, 0f3F800001; mov.u32 %r3, 0;\n"
    "L1: setp.ge.u32 %p1, %r3, %r1; @%p1 bra L2;\n"
    "  fma.rn.f32 %f1, %f1, %f2, %f2; add.u32 %r3, %r3, 1; bra L1;\n"
    "L2: griddepcontrol.launch_dependents;\n"
    "  setp.eq.f32 %p1, %f1, 0fBF800000; @!%p1 bra L3;\n"
    "  cvta.to.global.u64 %rd2, %rd1; st.global.f32 [%rd2], %f1;\n"
    "L3: ret;\n}\n"
    // compiled-in cluster of 2 blocks
    ".visible .entry repro_cluster2(.param .u64 out, .param .u32 iters) .reqnctapercluster 2, 1, 1\n{\n"
    "  .reg .f32 %f<3>; .reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .pred %p<2>;\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [iters];\n"
    "  mov.u32 %r2, %tid.x; cvt.rn.f32.u32 %f1, %r2; mov.f32 %f2, 0f3F800001; mov.u32 %r3, 0;\n"
    "L1: setp.ge.u32 %p1, %r3, %r1; @%p1 bra L2;\n"
    "  fma.rn.f32 %f1, %f1, %f2, %f2; add.u32 %r3, %r3, 1; bra L1;\n"
    "L2: setp.eq.f32 %p1, %f1, 0fBF800000; @!%p1 bra L3;\n"
    "  cvta.to.global.u64 %rd2, %rd1; st.global.f32 [%rd2], %f1;\n"
    "L3: ret;\n}\n";

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_ = ""; \
    cuGetErrorString(r_, &s_); fprintf(stderr, "sass_repro: %s:%d: %s: %s\n", __FILE__, __LINE__, \
    #x, s_); exit(1); } } while (0)

static CUcontext g_ctx;
static CUdeviceptr g_out;
static int g_launches = 20;
static const unsigned GRID = 264, BLOCK = 256, ITERS = 4096;

static CUmodule load(void)
{
    CUmodule m;
    CK(cuModuleLoadData(&m, ptx));
    return m;
}

static CUfunction fn(CUmodule m, const char *name)
{
    CUfunction f;
    CK(cuModuleGetFunction(&f, m, name));
    return f;
}

enum attr { A_NONE, A_CLUSTER1, A_CLUSTER2, A_PDL };

static void launch_ex(CUfunction f, CUstream s, enum attr a)
{
    void *args[] = { &g_out, (void *)&ITERS };
    CUlaunchAttribute at;
    memset(&at, 0, sizeof(at));
    CUlaunchConfig c;
    memset(&c, 0, sizeof(c));
    c.gridDimX = GRID, c.gridDimY = 1, c.gridDimZ = 1;
    c.blockDimX = BLOCK, c.blockDimY = 1, c.blockDimZ = 1;
    c.hStream = s;
    if (a == A_CLUSTER1 || a == A_CLUSTER2) {
        at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        at.value.clusterDim.x = a == A_CLUSTER2 ? 2 : 1;
        at.value.clusterDim.y = at.value.clusterDim.z = 1;
    } else if (a == A_PDL) {
        at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        at.value.programmaticStreamSerializationAllowed = 1;
    }
    c.attrs = a == A_NONE ? NULL : &at;
    c.numAttrs = a == A_NONE ? 0 : 1;
    CK(cuLaunchKernelEx(&c, f, args, NULL));
}

static void launch(CUfunction f, CUstream s)
{
    void *args[] = { &g_out, (void *)&ITERS };
    CK(cuLaunchKernel(f, GRID, 1, 1, BLOCK, 1, 1, 0, s, args, NULL));
}

struct job { CUfunction f; enum attr a; int own_ctx; };

static void *worker(void *p)
{
    struct job *j = (struct job *)p;
    CUcontext c = g_ctx;
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    if (j->own_ctx) {
        CK(cuCtxCreate(&c, NULL, 0, dev));
        CUmodule m = load();
        j->f = fn(m, "repro_fma");
    }
    CK(cuCtxSetCurrent(c));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < g_launches; i++)
        launch_ex(j->f, s, j->a);
    CK(cuStreamSynchronize(s));
    return NULL;
}

static void *churn(void *p)
{
    (void)p;
    CK(cuCtxSetCurrent(g_ctx));
    for (int i = 0; i < 30; i++) {
        CUmodule m = load();
        (void)fn(m, "repro_fma");
        CK(cuModuleUnload(m));
    }
    return NULL;
}

static void threads(int n, struct job *j)
{
    pthread_t t[8];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, &j[i]);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sass_repro MODE [launches]\n");
        return 2;
    }
    const char *mode = argv[1];
    if (argc > 2)
        g_launches = atoi(argv[2]);
    CUdevice dev;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&g_ctx, dev));
    CK(cuCtxSetCurrent(g_ctx));
    CK(cuMemAlloc(&g_out, 64));
    CUmodule m = load();
    CUfunction f = fn(m, "repro_fma"), fpdl = fn(m, "repro_pdl"), fcl = fn(m, "repro_cluster2");
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    if (!strcmp(mode, "launch")) {
        for (int i = 0; i < g_launches; i++) launch(f, s);
    } else if (!strcmp(mode, "ex")) {
        for (int i = 0; i < g_launches; i++) launch_ex(f, s, A_NONE);
    } else if (!strcmp(mode, "ex_cluster1")) {
        for (int i = 0; i < g_launches; i++) launch_ex(f, s, A_CLUSTER1);
    } else if (!strcmp(mode, "ex_cluster2")) {
        for (int i = 0; i < g_launches; i++) launch_ex(f, s, A_CLUSTER2);
    } else if (!strcmp(mode, "cluster_compiled")) {
        for (int i = 0; i < g_launches; i++) launch(fcl, s);
    } else if (!strcmp(mode, "ex_pdl")) {
        for (int i = 0; i < g_launches; i++) launch_ex(fpdl, s, A_PDL);
    } else if (!strcmp(mode, "ex_pdl_plain")) {   // PDL attribute, kernel without griddepcontrol
        for (int i = 0; i < g_launches; i++) launch_ex(f, s, A_PDL);
    } else if (!strcmp(mode, "pdl_kernel")) {     // griddepcontrol kernel, no attribute
        for (int i = 0; i < g_launches; i++) launch(fpdl, s);
    } else if (!strcmp(mode, "library")) {
        CUlibrary lib;
        CUkernel k;
        CK(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
        CK(cuLibraryGetKernel(&k, lib, "repro_fma"));
        for (int i = 0; i < g_launches; i++) launch_ex((CUfunction)k, s, A_NONE);
    } else if (!strcmp(mode, "churn")) {
        for (int i = 0; i < g_launches; i++) {
            CUmodule mm = load();
            launch_ex(fn(mm, "repro_fma"), s, A_NONE);
            CK(cuStreamSynchronize(s));
            CK(cuModuleUnload(mm));
        }
    } else if (!strcmp(mode, "threads")) {
        struct job j[4] = { { f, A_NONE, 0 }, { f, A_NONE, 0 }, { f, A_NONE, 0 }, { f, A_NONE, 0 } };
        threads(4, j);
    } else if (!strcmp(mode, "threads_pdl")) {
        struct job j[4] = { { fpdl, A_PDL, 0 }, { fpdl, A_PDL, 0 }, { f, A_NONE, 0 }, { f, A_NONE, 0 } };
        threads(4, j);
    } else if (!strcmp(mode, "loader")) {     // modules loaded/unloaded while another thread launches
        pthread_t t;
        pthread_create(&t, NULL, churn, NULL);
        for (int i = 0; i < 5 * g_launches; i++) launch_ex(f, s, A_NONE);
        pthread_join(t, NULL);
    } else if (!strcmp(mode, "contexts")) {
        struct job j[2] = { { f, A_NONE, 1 }, { f, A_NONE, 1 } };
        threads(2, j);
    } else if (!strcmp(mode, "graph")) {
        CUgraph g;
        CUgraphExec ge;
        CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
        for (int i = 0; i < 5; i++) launch_ex(f, s, A_NONE);
        CK(cuStreamEndCapture(s, &g));
        CK(cuGraphInstantiate(&ge, g, 0));
        for (int i = 0; i < 3; i++) CK(cuGraphLaunch(ge, s));
    } else {
        fprintf(stderr, "sass_repro: unknown mode '%s'\n", mode);
        return 2;
    }
    CK(cuStreamSynchronize(s));
    CK(cuCtxSynchronize());
    printf("ok %s\n", mode);
    return 0;
}
