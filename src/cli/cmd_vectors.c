/* cmd_vectors.c - 'benchrun vectors PROF_DIR': binned telemetry vectors of a
 * power run (docs/design.md §9), written to PROF_DIR/sampling_vectors.json (or
 * --out) atomically. The work is in src/vectors/; this file parses options,
 * runs it and prints a short summary on stdout. */
#include "cli/cli.h"
#include "util/fsutil.h"
#include "vectors/vectors.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchrun vectors PROF_DIR [--label L] [--out F] [--per-gpu] [--no-trim]\n"
    "                        [--tdp W] [--arch NAME] [--dendrogram-dir DIR]\n"
    "\n"
    "Bins the telemetry of a power run (PROF_DIR = RESULTS_DIR/prof-<jobid>) into\n"
    "the Minos dendrogram vectors inst_power, socket_power, gfx_frequency,\n"
    "hotspot_temp and edge_temp (skipped, with the reason, when the column is\n"
    "nan everywhere). Power is a fraction of the TDP in 0.1 bins from 0.5 to 2.0;\n"
    "clock in 100 MHz bins from 0 to 2200; temperatures in 5 C bins from 30 to 110.\n"
    "Samples outside the kernel window [first kernel start, last kernel end] of\n"
    "the run's kernel traces are dropped; all GPUs are pooled.\n"
    "\n"
    "  -l, --label L     display name stored in the JSON (default: the workload)\n"
    "  -o, --out F       output file (default PROF_DIR/sampling_vectors.json)\n"
    "  -g, --per-gpu     also one vector per GPU: <name>_gpu<N>\n"
    "                    (multi-node runs: <name>_<node>_gpu<N>)\n"
    "  -k, --no-trim     keep samples outside the kernel window\n"
    "  -t, --tdp W       power reference in W (default: tdp_W of the arch profile)\n"
    "  -a, --arch NAME   arch profile to take the TDP from (default: gpu_arch of\n"
    "                    run.json, else run_info.txt, else the telemetry metadata;\n"
    "                    the seed's telemetry format alone means MI300X, warned)\n"
    "  -d, --dendrogram-dir DIR\n"
    "                    also run DIR/dendrogram.py calculate_power_distribution\n"
    "                    (minos-analysis, python3) on the same samples and record\n"
    "                    whether its inst_power matches (default $DENDROGRAM_DIR)\n"
    "  -h, --help        this help\n"
    "\n"
    "Exit status: 0 written, 1 the run folder cannot be read (error names the\n"
    "file and line), 2 usage error.\n";

static int parse_args(int argc, char **argv, struct vec_opts *o, const char **out)
{
    static const struct option longopts[] = {
        { .name = "label", .has_arg = required_argument, .val = 'l' },
        { .name = "out", .has_arg = required_argument, .val = 'o' },
        { .name = "per-gpu", .has_arg = no_argument, .val = 'g' },
        { .name = "no-trim", .has_arg = no_argument, .val = 'k' },
        { .name = "tdp", .has_arg = required_argument, .val = 't' },
        { .name = "arch", .has_arg = required_argument, .val = 'a' },
        { .name = "dendrogram-dir", .has_arg = required_argument, .val = 'd' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":l:o:gkt:a:d:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': o->label = optarg; break;
        case 'o': *out = optarg; break;
        case 'g': o->per_gpu = true; break;
        case 'k': o->no_trim = true; break;
        case 'a': o->arch = optarg; break;
        case 'd': o->dendrogram_dir = optarg; break;
        case 't':
            if (cli_parse_double("vectors", "--tdp", optarg, 1, 100000, &o->tdp_W) != 0)
                return BR_EXIT_USAGE;
            break;
        case 'h': fputs(usage, stdout); return 1;
        case ':': return cli_usage_error("vectors", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("vectors", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return cli_usage_error("vectors", "expected the power run folder PROF_DIR");
    if (optind != argc - 1)
        return cli_usage_error("vectors", "expected one PROF_DIR, got %d", argc - optind);
    o->prof_dir = argv[optind];
    return 0;
}

static void print_summary(const struct vec_opts *o, const struct vec_result *r, const char *out)
{
    printf("vectors: %s\n", out);
    printf("  label %s; %zu GPU(s); %llu of %llu samples used", r->label, r->ngpus,
           (unsigned long long)r->used, (unsigned long long)r->rows);
    if (r->win.trimmed)
        printf(" (kernel window %.3f s)", (double)(r->win.end - r->win.start) / 1e9);
    printf("; TDP %g W\n", r->tdp_W);
    for (int s = 0; s < VEC_NSPECS; s++) {
        char *why = vec_skip_reason(&vec_specs[s], &r->pooled[s], r->used);
        if (why)
            printf("  %-14s skipped: %s\n", vec_specs[s].name, why);
        else
            printf("  %-14s %zu entries, %llu samples in population, %llu above the last edge\n",
                   vec_specs[s].name, r->nedges[s] - 1,
                   (unsigned long long)r->pooled[s].population,
                   (unsigned long long)r->pooled[s].above);
        free(why);
    }
    printf("  cross-check    %s\n", r->cross_check);
    if (o->per_gpu)
        printf("  + per-GPU vectors for %zu GPU(s)\n", r->ngpus);
}

int cmd_vectors(int argc, char **argv)
{
    struct vec_opts o = { .dendrogram_dir = getenv("DENDROGRAM_DIR") };
    const char *out = NULL;
    int rc = parse_args(argc, argv, &o, &out);
    if (rc != 0)
        return rc == 1 ? BR_EXIT_OK : rc;
    struct vec_result r;
    char *def = out ? NULL : fs_path_join(o.prof_dir, "sampling_vectors.json");
    rc = vec_compute(&o, &r);
    if (rc == 0)
        rc = vec_write_json(&o, &r, out ? out : def);
    if (rc == 0)
        print_summary(&o, &r, out ? out : def);
    vec_result_release(&r);
    free(def);
    return rc == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
}
