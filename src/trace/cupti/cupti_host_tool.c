/* cupti_host_tool.c - benchrun-cupti-host: the CUPTI profiler host API on the command line.
 *
 *   benchrun-cupti-host passes CHIP METRIC...        hardware passes the set needs
 *   benchrun-cupti-host group CHIP METRIC...         single-pass groups, one per line
 *   benchrun-cupti-host list CHIP                    base metrics: name<TAB>type
 *   benchrun-cupti-host check-profile CHIP PROFILE   every "passes"[i].counters of an
 *                                                    arch profile needs one pass
 * CHIP is the CUPTI chip name (GH100 for H100/H200). Needs libcupti, no GPU.
 * Exit 0 on success, 1 when a check fails, 2 on usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "trace/cupti/brcupti.h"
#include "trace/passgroup.h"

static int oracle(void *ctx, const char *const *names, size_t n, size_t *passes)
{
    return brc_host_passes(ctx, NULL, names, n, passes);
}

static int cmd_passes(const char *chip, char **names, size_t n)
{
    size_t passes = 0;
    if (brc_host_passes(chip, NULL, (const char *const *)names, n, &passes) != 0) {
        fprintf(stderr, "benchrun-cupti-host: %s: a metric is not known for this chip\n", chip);
        return 1;
    }
    printf("%zu\n", passes);
    return 0;
}

static int cmd_group(const char *chip, char **names, size_t n)
{
    struct pg_groups g;
    if (pg_group((const char *const *)names, n, oracle, (void *)chip, &g) != 0)
        return 1;
    for (size_t i = 0; i < g.ngroups; i++) {
        for (size_t j = g.start[i]; j < g.start[i + 1]; j++)
            printf("%s%s", j > g.start[i] ? " " : "", names[g.order[j]]);
        printf("\n");
    }
    pg_groups_release(&g);
    return 0;
}

static void print_metric(void *ctx, const char *name, const char *type)
{
    (void)ctx;
    printf("%s\t%s\n", name, type);
}

static int check_pass(const char *chip, const struct arch_pass *p)
{
    size_t passes = 0;
    int rc = brc_host_passes(chip, NULL, (const char *const *)p->counters.v, p->counters.n,
                             &passes);
    if (rc != 0 || passes != 1) {
        fprintf(stderr, "pass '%s': %s (%zu passes)\n", p->name,
                rc ? "unknown metric" : "needs more than one hardware pass", passes);
        return 1;
    }
    printf("pass %-28s %2zu counters: 1 hardware pass\n", p->name, p->counters.n);
    return 0;
}

static int cmd_check_profile(const char *chip, const char *path)
{
    struct arch_profile *ap = arch_open(path, NULL);
    if (!ap)
        return 1;
    int bad = ap->npasses == 0;
    for (int i = 0; i < ap->npasses; i++)
        bad |= check_pass(chip, &ap->passes[i]);
    arch_free(ap);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "passes") == 0)
        return cmd_passes(argv[2], argv + 3, (size_t)(argc - 3));
    if (argc >= 4 && strcmp(argv[1], "group") == 0)
        return cmd_group(argv[2], argv + 3, (size_t)(argc - 3));
    if (argc == 3 && strcmp(argv[1], "list") == 0) {
        return br_cupti_host_list(argv[2], print_metric, NULL) == 0 ? 0 : 1;
    }
    if (argc == 4 && strcmp(argv[1], "check-profile") == 0)
        return cmd_check_profile(argv[2], argv[3]);
    fprintf(stderr, "usage: benchrun-cupti-host passes|group CHIP METRIC...\n"
                    "       benchrun-cupti-host list CHIP\n"
                    "       benchrun-cupti-host check-profile CHIP PROFILE.json\n");
    return 2;
}
