/* cmd_counters.c - 'benchrun counters list|check': what this GPU exposes, and
 * whether a counter set fits it.
 *
 *   list [-o FILE]           runs the vendor lister on this node and saves its
 *                            text (AMD: rocprofv3 --list-avail, or -L on older
 *                            releases); prints the layout, GPUs and count found
 *   check [--arch A] SET LIST  SET: a counter-set name of the arch profile or a
 *                            counters JSON file; LIST: the saved text. Prints
 *                            OK or the problems (exit 1 on problems).
 * The listers are a table (below) so the NVIDIA one (CUPTI host API) is a
 * new row, not new control flow. Parsing: counters/counterlist.h; checks:
 * counters/counterset.h.
 */
#include "cli/cli.h"

#include "counters/counterlist.h"
#include "counters/counterset.h"
#include "trace/cupti_list.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* ---- listers ----
 * Adding a lister (e.g. NVIDIA/CUPTI): write `static int list_<x>(struct
 * strbuf *out)` that fills out with the text (return 0, or -1 after printing
 * why), and `static bool have_<x>(void)`; add a row. The first row whose
 * probe succeeds runs. */
struct lister {
    const char *name;
    bool (*probe)(void);
    int (*list)(struct strbuf *out);
};

static const char *rocprofv3_path(void)
{
    const char *p = getenv("BENCHRUN_ROCPROFV3");
    return p && *p ? p : "rocprofv3";
}

static bool have_rocprofv3(void)
{
    return proc_which(rocprofv3_path(), NULL);
}

/* --list-avail (6.4+), falling back to -L (6.2/6.3: -L/--list-metrics). */
static int list_rocprofv3(struct strbuf *out)
{
    static const char *const flags[] = { "--list-avail", "-L" };
    struct strbuf err;
    sb_init(&err);
    int status = -1;
    for (size_t i = 0; i < 2 && status != 0; i++) {
        const char *argv[] = { rocprofv3_path(), flags[i], NULL };
        sb_reset(out);
        sb_reset(&err);
        if (proc_capture(argv, out, &err, &status) != 0)
            break;
    }
    if (status != 0)
        br_error("counters list: %s --list-avail and -L failed (status %d): %s", rocprofv3_path(),
                 status, err.len ? err.buf : "no message");
    sb_release(&err);
    return status == 0 ? 0 : -1;
}

static const struct lister listers[] = {
    { "rocprofv3", have_rocprofv3, list_rocprofv3 },
    { "cupti", cupti_list_available, cupti_list },   /* NVIDIA: trace/cupti_list.h */
    { NULL, NULL, NULL },
};

static void summarize(FILE *fp, const struct counterlist *cl)
{
    size_t n, counters = 0;
    const char **archs = counterlist_archs(cl, &n);
    for (size_t i = 0; i < cl->nentries; i++)
        counters += !cl->entries[i].constant;
    fprintf(fp, "layout %s, %zu GPU(s), architecture(s):", cl->layout, cl->ngpus);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, " %s", archs[i]);
    fprintf(fp, "%s, %zu counter entries\n", n ? "" : " not named in this layout", counters);
    free(archs);
}

static int save_list(const char *out, const struct lister *l, const struct strbuf *text)
{
    struct counterlist cl;
    if (fs_write_atomic(out, text->buf, text->len) != 0)
        return BR_EXIT_FAIL;
    printf("%s: %s output saved\n", out, l->name);
    if (counterlist_parse(&cl, out, text->buf, text->len) != 0)
        return BR_EXIT_FAIL;
    summarize(stdout, &cl);
    counterlist_release(&cl);
    return BR_EXIT_OK;
}

static int counters_list(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 } };
    const char *out = "counters_list.txt";
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        if (o == 'o')
            out = optarg;
        else if (o == 'h')
            return printf("usage: benchrun counters list [-o FILE]\n"), BR_EXIT_OK;
        else
            return cli_usage_error("counters list", "unknown option");
    }
    if (optind < argc)
        out = argv[optind++];
    if (optind < argc)
        return cli_usage_error("counters list", "unexpected argument '%s'", argv[optind]);
    for (const struct lister *l = listers; l->name; l++) {
        if (!l->probe())
            continue;
        struct strbuf text;
        sb_init(&text);
        int rc = l->list(&text) == 0 ? save_list(out, l, &text) : BR_EXIT_FAIL;
        sb_release(&text);
        return rc;
    }
    br_error("counters list: no counter lister on this node (rocprofv3 not in PATH; set "
             "BENCHRUN_ROCPROFV3 or load the ROCm module)");
    return BR_EXIT_FAIL;
}

static void print_lines(const char *prefix, const struct strbuf *sb)
{
    for (const char *p = sb->buf; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        printf("%s%.*s\n", prefix, (int)n, p);
        p += n + (nl ? 1 : 0);
    }
}

static int run_check(const char *set, const char *list, const char *arch)
{
    struct counterset cs;
    struct counterlist cl;
    if (counterset_load(&cs, set, arch) != 0)
        return BR_EXIT_FAIL;
    if (counterlist_load(&cl, list) != 0) {
        counterset_release(&cs);
        return BR_EXIT_FAIL;
    }
    struct strbuf problems, notes;
    sb_init(&problems);
    sb_init(&notes);
    int bad = counterset_check(&cs, &cl, &problems, &notes);
    size_t nctr = 0;
    for (size_t p = 0; p < cs.passes.n; p++)
        nctr += cs.passes.v[p].counters.n;
    printf("set: %s for %s, %zu passes, %zu counters (%s)\n", cs.name, cs.arch, cs.passes.n,
           nctr, cs.source);
    printf("list: %s: ", list);
    summarize(stdout, &cl);
    print_lines("note: ", &notes);
    print_lines("problem: ", &problems);
    printf(bad ? "%d problem(s)\n" : "OK\n", bad);
    sb_release(&problems);
    sb_release(&notes);
    counterlist_release(&cl);
    counterset_release(&cs);
    return bad ? BR_EXIT_FAIL : BR_EXIT_OK;
}

static int counters_check(int argc, char **argv)
{
    static const struct option opts[] = {
        { "arch", required_argument, NULL, 'a' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 } };
    const char *arch = NULL;
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (o == 'a')
            arch = optarg;
        else if (o == 'h')
            return printf("usage: benchrun counters check [--arch ARCH] SET LIST\n"), BR_EXIT_OK;
        else
            return cli_usage_error("counters check", "unknown option");
    }
    if (argc - optind != 2)
        return cli_usage_error("counters check", "expected SET and LIST");
    return run_check(argv[optind], argv[optind + 1], arch);
}

static void usage(FILE *fp)
{
    fprintf(fp,
        "usage: benchrun counters list [-o FILE]\n"
        "       benchrun counters check [--arch ARCH] SET LIST\n\n"
        "list   run the counter lister of this node (rocprofv3 --list-avail, or -L on\n"
        "       ROCm 6.2/6.3) and save its text to FILE (default counters_list.txt).\n"
        "       Run it on a compute node: a login node shows another GPU.\n"
        "check  check counter set SET (a counter-set name of the arch profile, e.g.\n"
        "       default or ml, or a counters JSON file with \"passes\") against LIST:\n"
        "       the architectures in the list (must be exactly the set's), every\n"
        "       counter missing, per-block counts over the pass limits (a *_sum\n"
        "       counter uses one slot of its block), and counters that metrics use\n"
        "       but no pass collects. Prints OK, or the problems and exits 1.\n"
        "  --arch ARCH   architecture of the set (default: the file's \"arch\", else gfx942)\n\n"
        "Environment: BENCHRUN_ROCPROFV3 = rocprofv3 to run (default: from PATH).\n");
}

int cmd_counters(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("counters", "expected 'list' or 'check'");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return BR_EXIT_OK;
    }
    if (strcmp(argv[1], "list") == 0)
        return counters_list(argc - 1, argv + 1);
    if (strcmp(argv[1], "check") == 0)
        return counters_check(argc - 1, argv + 1);
    return cli_usage_error("counters", "unknown subcommand '%s' (expected list or check)", argv[1]);
}
