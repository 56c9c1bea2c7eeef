/* cmd_compare.c - 'benchrun compare': which known workload is this one like.
 * Clusters the telemetry vectors of many workloads by the Minos method
 * (scipy pdist cosine + Ward linkage, src/compare/) and writes
 * app_vectors.json, the distance matrix, the linkage, the dendrogram and a
 * report (src/write/wr_compare*.c); with --baseline, compares two pmc
 * analyses kernel by kernel. This file parses the options and chains them. */
#include "cli/cli.h"

#include "compare/baseline.h"
#include "compare/compare.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"
#include "write/wr_compare.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchrun compare INPUT... [--out-dir DIR] [--vector KIND] [--metric M]\n"
    "                        [--method M] [--analysis LABEL=DIR]... [--nearest INPUT]\n"
    "                        [--top K] [--tdp W] [--arch NAME]\n"
    "       benchrun compare --baseline A B [--out-dir DIR] [--metrics LIST]\n"
    "\n"
    "Clusters workloads by their telemetry vectors as minos-analysis' dendrogram.py\n"
    "does (scipy pdist 'cosine' distances, scipy linkage 'ward', dendrogram colour\n"
    "threshold 0.7 x the largest merge height), with scipy's exact merge order and\n"
    "heights. INPUT is [LABEL=]PATH: a power run folder (its sampling_vectors.json,\n"
    "or vectors computed from its telemetry when there is none), a\n"
    "sampling_vectors.json, or an app_vectors.json ({label: [values]}, one\n"
    "workload per member). Labels default to the vectors' label. Writes\n"
    "app_vectors.json, distances.csv, linkage.csv, dendrogram.svg, compare.html,\n"
    "compare.md and compare.json into the output folder.\n"
    "\n"
    "  -o, --out-dir DIR      output folder (default ./compare)\n"
    "  -v, --vector KIND      vector to compare (default inst_power; any array of\n"
    "                         the vectors files, e.g. gfx_frequency)\n"
    "  -m, --metric M         cosine (default), correlation, euclidean, cityblock\n"
    "  -M, --method M         ward (default), single, complete, average, weighted\n"
    "  -a, --analysis L=DIR   attach the pmc analysis DIR (or PMC_DIR) to the\n"
    "                         workload labelled L: its whole-run values are shown\n"
    "                         (repeatable)\n"
    "  -n, --nearest INPUT    list the workloads nearest to INPUT (a label, an\n"
    "                         input's path, or one more input to add)\n"
    "  -k, --top K            how many nearest (default 5)\n"
    "  -t, --tdp W            TDP for vectors computed from a power run that has no\n"
    "                         sampling_vectors.json (as benchrun vectors --tdp)\n"
    "  -A, --arch NAME        arch profile giving that TDP (as benchrun vectors --arch)\n"
    "  -b, --baseline         compare two pmc analyses A (the baseline) and B: per\n"
    "                         kernel (by kernel_full_name) every metric of B beside\n"
    "                         A with the change in %, kernels of one only, whole-run\n"
    "                         deltas: baseline.md, baseline.html, baseline.csv\n"
    "  -e, --metrics LIST     with --baseline: only these metrics (comma-separated)\n"
    "  -h, --help             this help\n"
    "\n"
    "Exit status: 0 written, 1 an input cannot be used (the error names it: not\n"
    "readable, no such vector, a zero vector under cosine, ...), 2 usage error.\n";

struct compare_opts {
    const char *out_dir, *kind, *nearest, *metrics, *arch;
    double tdp_W;
    enum cmp_metric metric;
    enum cmp_method method;
    long top;
    bool baseline;
    struct strv inputs, analyses;
};

static int parse_choice(const char *opt, const char *arg, int (*parse)(const char *), int *out)
{
    int v = parse(arg);
    if (v < 0)
        return cli_usage_error("compare", "%s: unknown value '%s'", opt, arg);
    *out = v;
    return 0;
}

static int parse_opt(int c, struct compare_opts *o, char **argv)
{
    int v = 0;
    switch (c) {
    case 'o': o->out_dir = optarg; return 0;
    case 'v': o->kind = optarg; return 0;
    case 'm':
        if (parse_choice("--metric", optarg, cmp_metric_parse, &v) != 0)
            return BR_EXIT_USAGE;
        o->metric = (enum cmp_metric)v;
        return 0;
    case 'M':
        if (parse_choice("--method", optarg, cmp_method_parse, &v) != 0)
            return BR_EXIT_USAGE;
        o->method = (enum cmp_method)v;
        return 0;
    case 'a': strv_push(&o->analyses, optarg); return 0;
    case 'n': o->nearest = optarg; return 0;
    case 'k':
        return cli_parse_long("compare", "--top", optarg, 1, 1000000, &o->top) ? BR_EXIT_USAGE : 0;
    case 't':
        return cli_parse_double("compare", "--tdp", optarg, 1, 100000, &o->tdp_W) ? BR_EXIT_USAGE
                                                                                 : 0;
    case 'A': o->arch = optarg; return 0;
    case 'b': o->baseline = true; return 0;
    case 'e': o->metrics = optarg; return 0;
    case 'h': fputs(usage, stdout); return 1;
    case ':': return cli_usage_error("compare", "option '%s' needs a value", argv[optind - 1]);
    default: return cli_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
    }
}

static int check_args(const struct compare_opts *o)
{
    size_t n = o->inputs.n;
    if (o->baseline) {
        if (n != 2)
            return cli_usage_error("compare", "--baseline needs two analyses A and B, got %zu", n);
        if (o->nearest || o->analyses.n || o->tdp_W > 0 || o->arch)
            return cli_usage_error("compare", "--nearest, --analysis, --tdp and --arch do not "
                                              "apply to --baseline");
        return 0;
    }
    if (o->metrics)
        return cli_usage_error("compare", "--metrics applies to --baseline only");
    if (n == 0)
        return cli_usage_error("compare", "expected the workloads to compare (INPUT...)");
    return 0;
}

static int parse_args(int argc, char **argv, struct compare_opts *o)
{
    static const struct option longopts[] = {
        { .name = "out-dir", .has_arg = required_argument, .val = 'o' },
        { .name = "vector", .has_arg = required_argument, .val = 'v' },
        { .name = "metric", .has_arg = required_argument, .val = 'm' },
        { .name = "method", .has_arg = required_argument, .val = 'M' },
        { .name = "analysis", .has_arg = required_argument, .val = 'a' },
        { .name = "nearest", .has_arg = required_argument, .val = 'n' },
        { .name = "top", .has_arg = required_argument, .val = 'k' },
        { .name = "tdp", .has_arg = required_argument, .val = 't' },
        { .name = "arch", .has_arg = required_argument, .val = 'A' },
        { .name = "baseline", .has_arg = no_argument, .val = 'b' },
        { .name = "metrics", .has_arg = required_argument, .val = 'e' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:v:m:M:a:n:k:t:A:be:h", longopts, NULL)) != -1) {
        int rc = parse_opt(c, o, argv);
        if (rc != 0)
            return rc;
    }
    for (int i = optind; i < argc; i++)
        strv_push(&o->inputs, argv[i]);
    return check_args(o);
}

/* ---- clustering ------------------------------------------------------------ */

static void print_summary(const struct wr_compare *c, const struct compare_opts *o)
{
    enum { LIST_MAX = 20 };
    const struct cmp_set *s = c->s;
    printf("compare: %zu workloads, %s (%zu entries), %s distance, %s linkage\n", s->n, s->kind,
           s->dim, cmp_metric_name(c->metric), cmp_method_name(c->method));
    for (size_t p = 0; p < s->n && p < LIST_MAX; p++) {
        size_t i = c->d->leaves[p];
        printf("  cluster %-3zu %-30s %s\n", c->d->cluster[i], s->w[i].label, s->w[i].origin);
    }
    if (s->n > LIST_MAX)
        printf("  ... %zu more (compare.md)\n", s->n - LIST_MAX);
    printf("  %zu cluster(s) at the colour threshold %.4g (0.7 x the largest merge height)\n",
           c->d->nclusters, c->d->threshold);
    if (c->query >= 0) {
        printf("nearest to %s:\n", s->w[c->query].label);
        for (size_t i = 0; i < c->nnear; i++)
            printf("  %zu. %-30s %.6g\n", i + 1, s->w[c->near[i]].label,
                   wr_cmp_dist(c, (size_t)c->query, c->near[i]));
    }
    printf("output: %s (app_vectors.json distances.csv linkage.csv dendrogram.svg compare.html "
           "compare.md compare.json)\n", o->out_dir);
}

static int run_compare(const struct compare_opts *o)
{
    struct cmp_set s;
    struct cmp_dendro d = { 0 };
    long query = -1;
    cmp_set_init(&s, o->kind);
    s.tdp_W = o->tdp_W;
    s.arch = o->arch;
    int rc = cmp_set_load(&s, &o->inputs, o->nearest, &o->analyses, &query);
    double *y = rc == 0 ? cmp_pdist(&s, o->metric) : NULL;
    double(*Z)[4] = y ? xcalloc(s.n - 1, sizeof(*Z)) : NULL;
    rc = y && cmp_linkage(y, s.n, o->method, Z) == 0 ? 0 : -1;
    if (rc == 0)
        rc = cmp_dendrogram(Z, s.n, -1, &d);
    size_t *near = xcalloc((size_t)o->top, sizeof(*near)), nnear = 0;
    if (rc == 0 && query >= 0)
        nnear = cmp_nearest(y, s.n, (size_t)query, (size_t)o->top, near);
    struct wr_compare c = { .s = &s, .metric = o->metric, .method = o->method, .y = y, .Z = Z,
                            .d = &d, .query = query, .near = near, .nnear = nnear,
                            .out_dir = o->out_dir };
    if (rc == 0)
        rc = wr_compare(&c);
    if (rc == 0)
        print_summary(&c, o);
    free(near);
    free(Z);
    free(y);
    cmp_dendro_release(&d);
    cmp_set_release(&s);
    return rc;
}

/* ---- baseline -------------------------------------------------------------------- */

static int run_baseline(const struct compare_opts *o)
{
    struct cmp_baseline bl;
    int rc = cmp_baseline_build(o->inputs.v[0], o->inputs.v[1], o->metrics, &bl);
    if (rc == 0)
        rc = wr_baseline(&bl, o->out_dir);
    if (rc == 0) {
        printf("baseline: A %s\n          B %s\n", bl.a.dir, bl.b.dir);
        printf("  %zu kernel(s) in both, %zu only in A, %zu only in B; %zu metric(s), %zu "
               "whole-run value(s)\n", bl.nboth, bl.nonly_a, bl.nonly_b, bl.nmetrics, bl.nwhole);
        printf("output: %s (baseline.md baseline.html baseline.csv)\n", o->out_dir);
    }
    cmp_baseline_release(&bl);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_opts o = { .out_dir = "compare", .kind = "inst_power", .metric = CMP_COSINE,
                              .method = CMP_WARD, .top = 5 };
    strv_init(&o.inputs);
    strv_init(&o.analyses);
    int rc = parse_args(argc, argv, &o);
    if (rc == 0)
        rc = (o.baseline ? run_baseline(&o) : run_compare(&o)) == 0 ? BR_EXIT_OK : BR_EXIT_FAIL;
    else if (rc == 1)
        rc = BR_EXIT_OK;
    strv_release(&o.inputs);
    strv_release(&o.analyses);
    return rc;
}
