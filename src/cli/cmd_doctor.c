/* cmd_doctor.c - 'benchrun doctor': what this node has for benchrun.
 *
 * GPUs and their architecture (gpu/gpu.c detection), driver, profilers
 * and libraries found (rocprofv3, rocminfo, amd-smi, nvidia-smi, ncu; NVML,
 * CUPTI, amd-smi library, benchrun's CUPTI tracer), the sampler backends that
 * would work (sample.h probes), Slurm allocation, and whether performance
 * counters are permitted: AMD needs read/write access to /dev/kfd (rocprofv3
 * collects counters through it); NVIDIA needs RmProfilingAdminOnly: 0 in
 * /proc/driver/nvidia/params (module option NVreg_RestrictProfilingToAdminUsers=0)
 * or root. Always exits 0 after printing: "not found" is an answer.
 */
#include "cli/cli.h"
#include "sample/sample.h"
#include "gpu/gpu.h"
#include "trace/cupti_env.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/xalloc.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char usage[] =
    "usage: benchrun doctor\n"
    "\n"
    "Prints what this node has: GPUs and their architecture, driver, profilers\n"
    "and vendor libraries found, usable sampler backends, the Slurm allocation,\n"
    "and whether hardware counters are permitted. Useful on a login node with\n"
    "no GPU too. Exit status 0.\n";

static void row(const char *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void row(const char *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  %-22s ", k);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
}

static void gpus(void)
{
    struct gpu_node g;
    gpu_detect(&g);
    printf("GPUs\n");
    if (g.count == 0) {
        row("found", "none (looked at: KFD topology, rocminfo, nvidia-smi, /proc/driver/nvidia)");
    } else {
        row("found", "%d x %s%s%s (%s)", g.count, g.arch ? g.arch : "unknown arch",
            g.name ? ", " : "", g.name ? g.name : "", gpu_vendor_name(g.vendor));
        row("detected by", "%s", g.source);
        row("driver", "%s", g.driver ? g.driver : "unknown");
    }
    gpu_node_release(&g);
}

static void tools(void)
{
    const char *names[] = { "rocprofv3", "rocminfo", "amd-smi", "nvidia-smi", "ncu", "srun", "sbatch" };
    printf("Tools (PATH)\n");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char *where = NULL;
        if (proc_which(names[i], &where))
            row(names[i], "%s", where);
        else
            row(names[i], "not found");
        free(where);
    }
}

static void lib(const char *label, const char *const *sonames)
{
    for (size_t i = 0; sonames[i]; i++) {
        /* Left loaded on purpose: dlclose would unload the C++ runtime that
         * libcupti pulls in and strand its exception pool, which
         * LeakSanitizer then reports as a 72 KiB leak. doctor exits soon. */
        void *h = dlopen(sonames[i], RTLD_LAZY | RTLD_LOCAL);
        if (h) {
            row(label, "%s loads", sonames[i]);
            return;
        }
    }
    const char *e = dlerror();
    row(label, "not loadable (%s)", e ? e : sonames[0]);
}

static void quiet_sink(void *ctx, int is_warning, const char *msg)
{
    (void)ctx; (void)is_warning; (void)msg;
}

static void libraries(void)
{
    printf("Libraries (dlopen)\n");
    lib("NVML", (const char *const[]){ "libnvidia-ml.so.1", NULL });
    lib("CUPTI", (const char *const[]){ "libcupti.so", "libcupti.so.13", "libcupti.so.12", NULL });
    lib("amd-smi", (const char *const[]){ "libamd_smi.so", NULL });
    lib("HIP runtime", (const char *const[]){ "libamdhip64.so", NULL });
    br_error_set_sink(quiet_sink, NULL);
    char *cupti = cupti_lib_path();
    br_error_set_sink(NULL, NULL);
    row("benchrun CUPTI tracer", "%s", cupti ? cupti : "not built (needs the CUDA toolkit at build time)");
    free(cupti);
}

static void samplers(void)
{
    printf("Sampler backends (benchrun sample --backend)\n");
    for (size_t i = 0; br_sampler_backends[i]; i++) {
        const struct br_sampler_ops *b = br_sampler_backends[i];
        if (strcmp(b->name, "sim") == 0) {
            row(b->name, "synthetic data, tests only");
            continue;
        }
        char *why = NULL;
        if (b->probe(&why) == 0)
            row(b->name, "usable");
        else
            row(b->name, "not usable: %s", why ? why : "unknown reason");
        free(why);
    }
}

static void slurm(void)
{
    printf("Slurm\n");
    const char *job = getenv("SLURM_JOB_ID");
    if (!job || !*job) {
        row("allocation", "none (a login node or a plain shell): stages run directly, NTASKS=1");
        return;
    }
    const char *keys[] = { "SLURM_JOB_ID", "SLURM_JOB_PARTITION", "SLURM_JOB_NUM_NODES",
                           "SLURM_NTASKS", "SLURM_JOB_NODELIST", "SLURM_GPUS_ON_NODE" };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const char *v = getenv(keys[i]);
        row(keys[i], "%s", v && *v ? v : "-");
    }
}

static void nvidia_profiling(void)
{
    char *p = fs_exists("/proc/driver/nvidia/params") ? fs_read_file("/proc/driver/nvidia/params", NULL) : NULL;
    const char *k = p ? strstr(p, "RmProfilingAdminOnly: ") : NULL;
    if (!k)
        row("NVIDIA counters", "no /proc/driver/nvidia/params (no NVIDIA driver)");
    else if (k[22] == '0')
        row("NVIDIA counters", "permitted for all users (RmProfilingAdminOnly: 0)");
    else
        row("NVIDIA counters", "admin only (RmProfilingAdminOnly: 1)%s", geteuid() == 0 ?
            "; running as root: permitted" : ": set NVreg_RestrictProfilingToAdminUsers=0");
    free(p);
}

static void permissions(void)
{
    printf("Permissions\n");
    if (!fs_exists("/dev/kfd"))
        row("AMD counters", "no /dev/kfd (no AMD GPU driver)");
    else if (access("/dev/kfd", R_OK | W_OK) == 0)
        row("AMD counters", "/dev/kfd read/write: permitted");
    else
        row("AMD counters", "/dev/kfd not accessible: add the user to the render/video group");
    nvidia_profiling();
    char *paranoid = fs_exists("/proc/sys/kernel/perf_event_paranoid") ?
        fs_read_file("/proc/sys/kernel/perf_event_paranoid", NULL) : NULL;
    if (paranoid)
        row("perf_event_paranoid", "%.*s", (int)strcspn(paranoid, "\n"), paranoid);
    free(paranoid);
}

static void install(void)
{
    printf("benchrun\n");
    char *exe = fs_self_exe();
    row("executable", "%s", exe ? exe : "unknown");
    free(exe);
    br_error_set_sink(quiet_sink, NULL);
    char *share = fs_share_dir();
    br_error_set_sink(NULL, NULL);
    row("share folder", "%s", share ? share : "NOT FOUND (set BENCHRUN_SHARE or reinstall)");
    if (share) {
        char *sh = fs_path_join(share, "launch.sh");
        row("launch.sh", "%s", fs_exists(sh) ? "present" : "MISSING");
        free(sh);
    }
    free(share);
}

int cmd_doctor(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return BR_EXIT_OK;
    }
    if (argc > 1)
        return cli_usage_error("doctor", "unexpected argument '%s'", argv[1]);
    struct utsname u;
    char host[256] = "unknown";
    gethostname(host, sizeof(host) - 1);
    printf("benchrun doctor: %s", host);
    if (uname(&u) == 0)
        printf(" (%s %s %s)", u.sysname, u.release, u.machine);
    printf("\n");
    install();
    gpus();
    tools();
    libraries();
    samplers();
    slurm();
    permissions();
    return BR_EXIT_OK;
}
