/* cmd_doc.c - 'benchrun doc metrics [--arch A]... [-o FILE]': the metric
 * reference (docs/metrics.md) generated from the arch profiles, so the
 * documentation cannot drift from the formulas (src/arch/archdoc.c writes it;
 * tests/cli/0820-doc-metrics-current.sh fails when the committed file is not
 * what this command prints).
 */
#include "arch/arch.h"
#include "arch/archdoc.h"
#include "cli/cli.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "util/xalloc.h"
#include "write/wr_energy.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchrun doc metrics [--arch NAME|FILE]... [-o FILE]\n"
    "\n"
    "Prints the metric reference generated from the arch profiles\n"
    "(share/benchrun/arch/*.json, or the --arch ones): constants and peaks,\n"
    "counter passes and sets, and every metric with its unit, formula,\n"
    "description, the passes it needs and its other inputs, then the checks.\n"
    "docs/metrics.md is this output: regenerate it with\n"
    "  benchrun doc metrics -o docs/metrics.md\n"
    "\n"
    "  -a, --arch NAME|FILE  document this profile only (repeatable; default: all)\n"
    "  -o, --output FILE     write FILE (atomically) instead of stdout\n"
    "  -h, --help            this help\n"
    "\n"
    "Exit status: 0 written, 1 a profile does not load, 2 usage error.\n";

/* Every profile of the share folder, sorted by file name. */
static int share_profiles(struct strv *paths)
{
    if (arch_profile_files(paths) == 0)
        return 0;
    char *dir = fs_share_path("arch");
    br_error("%s: no arch profile found", dir ? dir : "share/benchrun/arch");
    free(dir);
    return -1;
}

/* The path shown in the page: share profiles by their place in the source
 * tree (independent of the install prefix), others as given. */
static char *shown_path(const char *path, bool from_share)
{
    if (!from_share)
        return xstrdup(path);
    const char *base = strrchr(path, '/');
    return xasprintf("share/benchrun/arch/%s", base ? base + 1 : path);
}

static int generate(struct strv *paths, bool from_share, struct strbuf *out)
{
    archdoc_header(out);
    for (size_t i = 0; i < paths->n; i++) {
        char *shown = shown_path(paths->v[i], from_share);
        int rc = archdoc_profile(paths->v[i], shown, out);
        free(shown);
        if (rc < 0)
            return -1;
    }
    wr_energy_doc(out);
    return 0;
}

static int write_out(const char *file, const struct strbuf *out)
{
    if (file)
        return fs_write_atomic(file, out->buf, out->len);
    return fwrite(out->buf, 1, out->len, stdout) == out->len ? 0 : -1;
}

static int doc_metrics(struct strv *arches, const char *file)
{
    struct strv paths;
    struct strbuf out;
    strv_init(&paths);
    sb_init(&out);
    bool from_share = arches->n == 0;
    int rc = 0;
    if (from_share)
        rc = share_profiles(&paths);
    for (size_t i = 0; rc == 0 && i < arches->n; i++) {
        char *p = arch_path_for(arches->v[i]);
        if (!p)
            rc = -1;
        else
            strv_push(&paths, p);
        free(p);
    }
    if (rc == 0)
        rc = generate(&paths, from_share, &out);
    if (rc == 0)
        rc = write_out(file, &out);
    strv_release(&paths);
    sb_release(&out);
    return rc < 0 ? BR_EXIT_FAIL : BR_EXIT_OK;
}

int cmd_doc(int argc, char **argv)
{
    static const struct option opts[] = {
        { .name = "arch", .has_arg = required_argument, .val = 'a' },
        { .name = "output", .has_arg = required_argument, .val = 'o' },
        { .name = "help", .has_arg = no_argument, .val = 'h' },
        { 0 },
    };
    struct strv arches;
    const char *file = NULL;
    int c, rc;
    strv_init(&arches);
    optind = 1;
    while ((c = getopt_long(argc, argv, "a:o:h", opts, NULL)) != -1) {
        if (c == 'a') {
            strv_push(&arches, optarg);
        } else if (c == 'o') {
            file = optarg;
        } else if (c == 'h') {
            strv_release(&arches);
            fputs(usage, stdout);
            return BR_EXIT_OK;
        } else {
            strv_release(&arches);
            return cli_usage_error("doc", "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc)
        rc = cli_usage_error("doc", "expected a topic (topics: metrics)");
    else if (strcmp(argv[optind], "metrics") != 0)
        rc = cli_usage_error("doc", "unknown topic '%s' (topics: metrics)", argv[optind]);
    else if (optind + 1 != argc)
        rc = cli_usage_error("doc", "unexpected argument '%s'", argv[optind + 1]);
    else
        rc = doc_metrics(&arches, file);
    strv_release(&arches);
    return rc;
}
