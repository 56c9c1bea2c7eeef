/* cmd_trace.c - 'benchrun trace [-o DIR] [--name NAME] -- CMD...': kernel trace of any command.
 *
 * NVIDIA: the command runs under libbenchrun-cupti.so (CUPTI activity API,
 * concurrent kernels), which writes DIR/NAME_<pid>_kernel_trace.csv in the
 * rocprofv3 7.x schema (timestamps CLOCK_BOOTTIME ns) plus
 * NAME_<pid>_cupti.json (clock offset/drift, counts) for every CUDA process.
 * AMD: rocprofv3 --kernel-trace --memory-copy-trace writes the same file names
 * (`--collector rocprofv3`, the default when no NVIDIA driver is present).
 * Exit status: the command's (1 if no trace file was written), 2 on usage errors.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"
#include "stage/exec.h"
#include "trace/cupti_env.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"

struct trace_opts {
    const char *dir;
    const char *name;
    const char *collector;   /* "cupti" or "rocprofv3"; NULL: by driver present */
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: benchrun trace [-o DIR] [--name NAME] [--collector cupti|rocprofv3] "
                "-- CMD [ARGS...]\n\n"
                "Runs CMD with a kernel tracer and writes DIR/NAME_<pid>_kernel_trace.csv\n"
                "(rocprofv3 7.x schema, CLOCK_BOOTTIME ns) for every GPU process.\n"
                "  -o, --output DIR     output folder (default: ktrace)\n"
                "  -n, --name NAME      file name stem (default: trace)\n"
                "  --collector C        cupti (NVIDIA, libbenchrun-cupti.so) or rocprofv3 (AMD);\n"
                "                       default: cupti when an NVIDIA driver is loaded\n");
}

static bool nvidia_present(void)
{
    return access("/proc/driver/nvidia/version", R_OK) == 0;
}

/* The collector argv prefix; 0 or -1 (printed). */
static int tracer_argv(const struct trace_opts *o, const char *dir, struct strv *argv)
{
    bool cupti = o->collector ? strcmp(o->collector, "cupti") == 0 : nvidia_present();
    if (cupti) {
        char *lib = cupti_lib_path();
        if (!lib)
            return -1;
        cupti_env_argv(argv, lib, dir, NULL, o->name, NULL, NULL);
        free(lib);
        return 0;
    }
    strv_push(argv, "rocprofv3");
    strv_push(argv, "--kernel-trace");
    strv_push(argv, "--memory-copy-trace");
    strv_push(argv, "--output-format");
    strv_push(argv, "csv");
    strv_push(argv, "-d");
    strv_push(argv, dir);
    strv_push(argv, "-o");
    strv_pushf(argv, "%s_%%pid%%", o->name);
    strv_push(argv, "--");
    return 0;
}

static int parse(int argc, char **argv, struct trace_opts *o)
{
    static const struct option longopts[] = {
        { .name = "output", .has_arg = required_argument, .val = 'o' },
        { .name = "name", .has_arg = required_argument, .val = 'n' },
        { .name = "collector", .has_arg = required_argument, .val = 'c' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+o:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->dir = optarg; break;
        case 'n': o->name = optarg; break;
        case 'c':
            if (strcmp(optarg, "cupti") != 0 && strcmp(optarg, "rocprofv3") != 0)
                return cli_usage_error("trace", "unknown collector '%s' (cupti|rocprofv3)", optarg);
            o->collector = optarg;
            break;
        case 'h': usage(stdout); return 1;
        default: return cli_usage_error("trace", "see 'benchrun trace --help'");
        }
    }
    if (optind >= argc)
        return cli_usage_error("trace", "no command given (benchrun trace [opts] -- CMD...)");
    if (strchr(o->name, '/'))
        return cli_usage_error("trace", "--name must not contain '/'");
    return 0;
}

int cmd_trace(int argc, char **argv)
{
    struct trace_opts o = { .dir = "ktrace", .name = "trace" };
    int prc = parse(argc, argv, &o);
    if (prc != 0)
        return prc == 1 ? BR_EXIT_OK : BR_EXIT_USAGE;
    if (fs_mkdir_p(o.dir) != 0)
        return BR_EXIT_FAIL;
    char *dir = fs_abspath(o.dir);
    struct strv cmd;
    strv_init(&cmd);
    int rc = BR_EXIT_FAIL;
    if (tracer_argv(&o, dir, &cmd) == 0) {
        strv_pushv(&cmd, (const char *const *)argv + optind);
        struct stage_exec_result res;
        if (stage_exec(&cmd, NULL, &res) == 0) {
            struct strv files;
            strv_init(&files);
            int n = fs_list_suffix(dir, "_kernel_trace.csv", &files);
            fprintf(stderr, "benchrun trace: exit status %d, %.3f s, %d kernel trace file(s) in %s\n",
                    res.exit_code, res.wall_s, n < 0 ? 0 : n, dir);
            rc = res.exit_code != 0 ? (res.exit_code > 255 ? 1 : res.exit_code)
                                    : (n > 0 ? BR_EXIT_OK : BR_EXIT_FAIL);
            strv_release(&files);
            stage_exec_result_release(&res);
        }
    }
    strv_release(&cmd);
    free(dir);
    return rc;
}
