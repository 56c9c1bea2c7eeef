/* bench_vectors.c - `benchrun vectors` on 10 million telemetry samples against
 * baselines measured in the same run on the same files (page cache warm):
 *   cat   read(2) of every file in 1 MiB blocks, bytes discarded
 *   wc -l the same reads plus a memchr count of newlines
 *   vectors  vec_compute() + vec_write_json(): the whole command's work
 * Prints each time (best of --reps) and the ratios vectors / cat and
 * vectors / wc -l.
 *
 * usage: bench_vectors [--samples N] [--gpus G] [--reps R] [--dir DIR] [--keep]
 * Data: G files profiling_result_bench_<g>.csv in DIR (default a temp folder,
 * removed afterwards unless --keep; an existing folder with the same sample
 * count is reused), written in the sampler's layout (docs/design.md §10 + extra
 * columns) with values like a busy MI300X, and a rocprofv3 7.x kernel trace
 * whose window drops the first and last 5% of the samples.
 */
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "vectors/vectors.h"

#include "bench_util.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint32_t rng(void)
{
    return (uint32_t)(bench_xorshift(&rng_state) >> 16);
}

static const int64_t T0 = 1550151853029637LL;   /* a rocprofv3 7.0 sample timestamp */

static int write_gpu(const char *dir, int g, long n)
{
    char *p = xasprintf("%s/profiling_result_bench_%d.csv", dir, g);
    FILE *f = fopen(p, "w");
    if (!f)
        return br_error("cannot create '%s'", p);
    fprintf(f, "# device=%d interval_ms=1 backend=bench clock=CLOCK_BOOTTIME "
               "energy_resolution_J=1.52587890625e-05\n", g);
    fprintf(f, "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,"
               "hotspot_temp_C,energy_J,mem_clock_MHz,source_timestamp_ns,refreshed\n");
    double e = 0;
    for (long i = 0; i < n; i++) {
        int64_t t = T0 + i * 1000000LL + (int64_t)(rng() % 20000);
        double inst = 300 + (rng() % 1200000) / 1000.0;
        e += inst * 1e-3;
        fprintf(f, "%lld,%d,%.3f,%d,nan,%d,%.6f,1300,%lld,%d\n", (long long)t,
                350 + (int)(rng() % 500), inst, 1200 + (int)(rng() % 1000), 40 + (int)(rng() % 60),
                e, (long long)(t - 1234), (int)(rng() & 1));
    }
    int rc = fclose(f) == 0 ? 0 : br_error("cannot write '%s'", p);
    free(p);
    return rc;
}

static int write_trace(const char *dir, long n)
{
    char *d = xasprintf("%s/ktrace_bench", dir);
    char *p = xasprintf("%s/1_kernel_trace.csv", d);
    int rc = fs_mkdir_p(d);
    FILE *f = rc == 0 ? fopen(p, "w") : NULL;
    if (f) {
        fprintf(f, "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
                   "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
                   "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
                   "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\","
                   "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n");
        long long a = T0 + n / 20 * 1000000LL, b = T0 + (n - n / 20) * 1000000LL;
        fprintf(f, "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,1,1,1,\"void k()\",1,%lld,%lld,"
                   "0,0,8,0,16,64,1,1,64,1,1\n", a, a + 1000);
        fprintf(f, "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,1,2,1,\"void k()\",2,%lld,%lld,"
                   "0,0,8,0,16,64,1,1,64,1,1\n", b - 1000, b);
        rc = fclose(f) == 0 ? 0 : -1;
    } else {
        rc = br_error("cannot create '%s'", p);
    }
    free(p);
    free(d);
    return rc;
}

/* Reads every telemetry file; counts newlines when count is set. */
static double read_all(const char *dir, int gpus, int count, uint64_t *bytes, uint64_t *lines)
{
    size_t cap = 1 << 20;
    char *buf = xmalloc(cap);
    double t = bench_now_s();
    *bytes = *lines = 0;
    for (int g = 0; g < gpus; g++) {
        char *p = xasprintf("%s/profiling_result_bench_%d.csv", dir, g);
        int fd = open(p, O_RDONLY);
        ssize_t n;
        while (fd >= 0 && (n = read(fd, buf, cap)) > 0) {
            *bytes += (uint64_t)n;
            for (char *s = buf, *e = buf + n; count && (s = memchr(s, '\n', (size_t)(e - s)));
                 s++)
                (*lines)++;
        }
        if (fd >= 0)
            close(fd);
        free(p);
    }
    t = bench_now_s() - t;
    free(buf);
    return t;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static double g_vec_cpu = 1e9;     /* CPU seconds of the fastest vectors run */

static double run_vectors(const char *dir, uint64_t *used)
{
    struct vec_opts o = { .prof_dir = dir, .tdp_W = 750, .per_gpu = true };
    struct vec_result r;
    char *out = xasprintf("%s/sampling_vectors.json", dir);
    double t = bench_now_s(), c = cpu_s();
    int rc = vec_compute(&o, &r);
    if (rc == 0)
        rc = vec_write_json(&o, &r, out);
    t = bench_now_s() - t;
    c = cpu_s() - c;
    if (c < g_vec_cpu)
        g_vec_cpu = c;
    *used = r.used;
    vec_result_release(&r);
    free(out);
    return rc == 0 ? t : -1;
}

static int prepare(const char *dir, int gpus, long per_gpu)
{
    char *stamp = xasprintf("%s/.bench_%d_%ld", dir, gpus, per_gpu);
    int rc = 0;
    if (!fs_exists(stamp)) {
        fprintf(stderr, "bench_vectors: writing %d x %ld samples to %s ...\n", gpus, per_gpu, dir);
        rc = fs_mkdir_p(dir);
        for (int g = 0; rc == 0 && g < gpus; g++)
            rc = write_gpu(dir, g, per_gpu);
        if (rc == 0)
            rc = write_trace(dir, per_gpu);
        if (rc == 0)
            rc = fs_write_atomic(stamp, "", 0);
    }
    free(stamp);
    return rc;
}

int main(int argc, char **argv)
{
    long samples = 10000000;
    int gpus = 8, reps = 3, keep = 0;
    char *dir = NULL;
    static const struct option lo[] = {
        { "samples", required_argument, NULL, 'n' }, { "gpus", required_argument, NULL, 'g' },
        { "reps", required_argument, NULL, 'r' }, { "dir", required_argument, NULL, 'd' },
        { "keep", no_argument, NULL, 'k' }, { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "n:g:r:d:k", lo, NULL)) != -1) {
        switch (c) {
        case 'n': samples = atol(optarg); break;
        case 'g': gpus = atoi(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 'd': dir = xstrdup(optarg); keep = 1; break;
        case 'k': keep = 1; break;
        default: fprintf(stderr, "usage: bench_vectors [--samples N] [--gpus G] [--reps R] "
                                 "[--dir DIR] [--keep]\n"); return 2;
        }
    }
    if (samples < gpus * 100L || gpus < 1 || reps < 1)
        return fprintf(stderr, "bench_vectors: bad sizes\n"), 2;
    if (!dir) {
        char tmpl[] = "/tmp/bench_vectors.XXXXXX";
        if (!mkdtemp(tmpl))
            return perror("mkdtemp"), 1;
        dir = fs_path_join(tmpl, "prof-bench");
    }
    if (prepare(dir, gpus, samples / gpus) != 0)
        return 1;
    uint64_t bytes, lines, used;
    read_all(dir, gpus, 0, &bytes, &lines);             /* warm the page cache */
    double tc = 1e9, tw = 1e9, tv = 1e9;
    for (int i = 0; i < reps; i++) {
        double a = read_all(dir, gpus, 0, &bytes, &lines);
        double b = read_all(dir, gpus, 1, &bytes, &lines);
        double v = run_vectors(dir, &used);
        if (v < 0)
            return 1;
        tc = a < tc ? a : tc, tw = b < tw ? b : tw, tv = v < tv ? v : tv;
    }
    printf("bench_vectors: %llu samples in %d files, %.1f MB, %llu in the window; best of %d\n",
           (unsigned long long)(lines - 2ULL * gpus), gpus, bytes / 1e6,
           (unsigned long long)used, reps);
    printf("  cat (read, discard)   %8.3f s  %8.0f MB/s\n", tc, bytes / 1e6 / tc);
    printf("  wc -l (read, count)   %8.3f s  %8.0f MB/s\n", tw, bytes / 1e6 / tw);
    printf("  vectors (per-GPU)     %8.3f s  %8.0f MB/s  %6.1f M samples/s\n", tv,
           bytes / 1e6 / tv, (double)(lines - 2ULL * gpus) / tv / 1e6);
    printf("  vectors CPU time      %8.3f s  (%ld CPUs online; files are read in parallel)\n",
           g_vec_cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("  ratio vectors / cat   %8.2f\n", tv / tc);
    printf("  ratio vectors / wc -l %8.2f\n", tv / tw);
    if (!keep) {
        char *parent = xstrdup(dir);
        *strrchr(parent, '/') = '\0';                /* the mkdtemp folder */
        char *cmd = xasprintf("rm -rf '%s'", parent);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_vectors: cannot remove %s\n", parent);
        free(cmd);
        free(parent);
    }
    free(dir);
    return 0;
}
