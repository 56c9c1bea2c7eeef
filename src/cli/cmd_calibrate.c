/* cmd_calibrate.c - 'benchrun calibrate': known-answer kernels check the
 * counters, the analysis and the telemetry alignment on this GPU.
 *
 * Builds share/benchrun/calibrate/calib.cu for the local GPU, runs it through
 * plain -> pmc -> power -> analyze (this executable's own subcommands), then
 * prints measured vs expected (src/calib/) and writes DIR/calibration.md.
 * `--check PMC_DIR [--power PROF_DIR]` only compares existing results (no GPU).
 * Exit status: 0 every check passed, 1 a miss or a failed stage, 2 usage.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "gpu/gpu.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

struct calib_opts {
    const char *vendor, *outdir, *compiler, *arch, *counters;
    const char *check_pmc, *check_power, *check_power_only;
    bool build_only, progress;
};

static const char usage[] =
    "usage: benchrun calibrate [--vendor nvidia|amd] [-o DIR] [--compiler PATH] [--arch ARCH]\n"
    "                          [--counters SET] [--build-only]\n"
    "       benchrun calibrate --check PMC_DIR [--power PROF_DIR] [--vendor V] [-o DIR]\n"
    "       benchrun calibrate --check-power PROF_DIR [-o DIR]\n"
    "\n"
    "Builds the known-answer kernels (share/benchrun/calibrate/calib.cu: stream copy\n"
    "and triad, FP64/FP32/FP16 FMA loops, a half-warp divergent loop, a register-\n"
    "limited kernel, one kernel per tensor-core instruction path (CUDA), cuBLAS\n"
    "DGEMM and BF16 GEMM, a long kernel of known duration, power phases of\n"
    "20-500 ms: FP64 FMA, DRAM copy, sleep)\n"
    "with nvcc (hipcc on AMD) for this GPU, runs them through plain, pmc, power and\n"
    "analyze, and prints measured vs expected values with their tolerances: FLOPs\n"
    "±0.1 %, DRAM bytes ±2 %, lanes active ±1 point, occupancy within the register\n"
    "limit, bound labels, long-kernel duration, power rise within one telemetry\n"
    "period of the long kernel's start, each phase kernel's fitted power and\n"
    "attributed energy within 5 % of its power measured directly, the fitted\n"
    "total within 1 % of the energy counter. Expected values come from the kernels'\n"
    "parameters, not from a run.\n"
    "\n"
    "  --vendor V        nvidia or amd (default: the GPU found on this node)\n"
    "  -o, --output DIR  work folder: bin/, logs/, calibrate.conf, results/,\n"
    "                    calibration.md (default: ./calibrate)\n"
    "  --compiler PATH   nvcc or hipcc to use (default: searched)\n"
    "  --arch ARCH       GPU architecture to build for (default: detected; sm_90)\n"
    "  --counters SET    counter set for the pmc stage (default: ml on NVIDIA, else the stage's)\n"
    "  --build-only      build the kernels and write calibrate.conf, run nothing\n"
    "  --progress        a line per step on stderr (default: when stderr is a terminal)\n"
    "  --check PMC_DIR   compare an existing pmc run (PMC_DIR/analysis/) only\n"
    "  --power PROF_DIR  with --check: the power run to check too\n"
    "  --check-power PROF_DIR  check a power run only (long kernel, energy phases)\n"
    "  -h, --help        this help\n"
    "\n"
    "Exit status: 0 every check passed, 1 a check missed or a stage failed, 2 usage.\n";

static int parse(int argc, char **argv, struct calib_opts *o)
{
    static const struct option longopts[] = {
        { .name = "vendor", .has_arg = required_argument, .val = 'V' },
        { .name = "output", .has_arg = required_argument, .val = 'o' },
        { .name = "compiler", .has_arg = required_argument, .val = 'c' },
        { .name = "arch", .has_arg = required_argument, .val = 'a' },
        { .name = "counters", .has_arg = required_argument, .val = 'C' },
        { .name = "check", .has_arg = required_argument, .val = 'k' },
        { .name = "power", .has_arg = required_argument, .val = 'p' },
        { .name = "check-power", .has_arg = required_argument, .val = 'q' },
        { .name = "build-only", .has_arg = no_argument, .val = 'b' },
        { .name = "progress", .has_arg = no_argument, .val = 'P' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'V': o->vendor = optarg; break;
        case 'o': o->outdir = optarg; break;
        case 'c': o->compiler = optarg; break;
        case 'a': o->arch = optarg; break;
        case 'C': o->counters = optarg; break;
        case 'k': o->check_pmc = optarg; break;
        case 'p': o->check_power = optarg; break;
        case 'q': o->check_power_only = optarg; break;
        case 'b': o->build_only = true; break;
        case 'P': o->progress = true; break;
        case 'h': fputs(usage, stdout); return 1;
        default: return cli_usage_error("calibrate", "see 'benchrun calibrate --help'");
        }
    }
    if (optind < argc)
        return cli_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);
    enum gpu_vendor v;
    if (o->vendor && (gpu_vendor_parse(o->vendor, &v) != 0 || v == GPU_VENDOR_NONE))
        return cli_usage_error("calibrate", "--vendor must be nvidia or amd, not '%s'", o->vendor);
    if (o->build_only && o->check_pmc)
        return cli_usage_error("calibrate", "--build-only and --check exclude each other");
    if (o->check_power && !o->check_pmc)
        return cli_usage_error("calibrate", "--power goes with --check");
    if (o->check_power_only && (o->check_pmc || o->build_only))
        return cli_usage_error("calibrate", "--check-power excludes --check and --build-only");
    return 0;
}

/* Vendor from the option, else the GPUs found, else nvidia (the GPU we test on). */
static enum gpu_vendor pick_vendor(const struct calib_opts *o)
{
    enum gpu_vendor v;
    if (o->vendor && gpu_vendor_parse(o->vendor, &v) == 0)
        return v;
    struct gpu_node g;
    gpu_detect(&g);
    v = g.vendor == GPU_VENDOR_AMD ? GPU_VENDOR_AMD : GPU_VENDOR_NVIDIA;
    gpu_node_release(&g);
    return v;
}

/* The power run's checks: the long kernel, the energy phases. */
static void power_checks(const struct br_calib_params *p, const char *prof,
                         struct br_calib_results *res)
{
    if (prof && (br_calib_check_power(prof, "calib_long", p->long_ms, res) != 0 ||
                 br_calib_check_energy(prof, res) != 0))
        br_calib_result_add(res, "power run", "readable", "error", prof, BR_CALIB_MISS,
                            "could not read the power run");
}

/* Analysis and power checks of existing results. */
static void check_results(const struct br_calib_params *p, const char *pmc, const char *prof,
                          struct br_calib_results *res)
{
    char *csv = xasprintf("%s/analysis/per_kernel_metrics.csv", pmc);
    struct br_calib_expect *e = NULL;
    size_t n = br_calib_expect_table(p, &e);
    if (!fs_exists(csv))
        br_calib_result_add(res, "analysis: per_kernel_metrics.csv", "present", "missing", csv,
                            BR_CALIB_MISS, "no analysis to check");
    else if (br_calib_check_analysis(csv, e, n, res) != 0)
        br_calib_result_add(res, "analysis: per_kernel_metrics.csv", "readable", "error", csv,
                            BR_CALIB_MISS, "could not read the analysis");
    else if (prof)
        br_calib_check_rates(csv, prof, res);
    power_checks(p, prof, res);
    free(e);
    free(csv);
}

static int report(const char *outdir, const struct br_calib_results *res)
{
    size_t misses = br_calib_print(stdout, res);
    char *md = fs_path_join(outdir, "calibration.md");
    FILE *fp = fs_mkdir_p(outdir) == 0 ? fopen(md, "w") : NULL;
    if (fp) {
        br_calib_print_md(fp, res);
        if (fclose(fp) != 0)
            br_error("cannot write '%s'", md);
        else
            printf("table: %s\n", md);
    }
    free(md);
    return misses == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
}

static int full_run(struct br_calib_run *r, bool build_only, struct br_calib_results *res)
{
    if (br_calib_build(r) != 0 || br_calib_write_conf(r) != 0)
        return BR_EXIT_FAIL;
    if (build_only) {
        printf("program: %s\nconf: %s\n", r->exe, r->conf);
        return BR_EXIT_OK;
    }
    if (br_calib_stages(r, res) != 0)
        return BR_EXIT_FAIL;
    if (r->pmc_dir)
        check_results(&r->params, r->pmc_dir, r->prof_dir, res);
    else
        power_checks(&r->params, r->prof_dir, res);
    return report(r->outdir, res);
}

int cmd_calibrate(int argc, char **argv)
{
    struct calib_opts o = { .outdir = "calibrate" };
    int prc = parse(argc, argv, &o);
    if (prc != 0)
        return prc == 1 ? BR_EXIT_OK : BR_EXIT_USAGE;
    enum gpu_vendor vendor = pick_vendor(&o);
    char *outdir = fs_abspath(o.outdir);
    struct br_calib_run r = { .vendor = vendor, .outdir = outdir, .compiler = o.compiler,
                              .gpu_arch = o.arch,
                              /* NVIDIA: set ml, whose 8-bit pass the FP8 and INT8 paths need */
                              .counters = o.counters ? o.counters
                                          : vendor == GPU_VENDOR_NVIDIA ? "ml" : NULL,
                              .progress = cli_show_progress(o.progress) };
    br_calib_params_default(&r.params, vendor);
    struct br_calib_results res = { 0 };
    int rc;
    if (o.check_pmc) {
        check_results(&r.params, o.check_pmc, o.check_power, &res);
        rc = report(outdir, &res);
    } else if (o.check_power_only) {
        power_checks(&r.params, o.check_power_only, &res);
        rc = report(outdir, &res);
    } else if (fs_mkdir_p(outdir) != 0) {
        rc = BR_EXIT_FAIL;
    } else {
        rc = full_run(&r, o.build_only, &res);
    }
    br_calib_results_release(&res);
    br_calib_run_release(&r);
    free(outdir);
    return rc;
}
