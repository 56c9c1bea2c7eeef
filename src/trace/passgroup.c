/* passgroup.c - split a metric list into single-pass groups (see passgroup.h). */
#include "trace/passgroup.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

/* Does current group + names[idx] still need one pass? */
static int fits(const char *const *names, const size_t *grp, size_t len, size_t idx,
                pg_passes_fn oracle, void *ctx, size_t *passes)
{
    const char **set = xcalloc(len + 1, sizeof(*set));
    for (size_t i = 0; i < len; i++)
        set[i] = names[grp[i]];
    set[len] = names[idx];
    int rc = oracle(ctx, set, len + 1, passes);
    free(set);
    return rc;
}

static int check_alone(const char *const *names, size_t idx, pg_passes_fn oracle, void *ctx)
{
    size_t passes = 0;
    if (oracle(ctx, &names[idx], 1, &passes) != 0)
        return br_error("counter '%s' is not known to the profiler for this chip", names[idx]);
    if (passes != 1)
        return br_error("counter '%s' alone needs %zu hardware passes; benchrun collects "
                        "without replay, so it cannot be used", names[idx], passes);
    return 0;
}

int pg_group(const char *const *names, size_t n, pg_passes_fn oracle, void *ctx,
             struct pg_groups *out)
{
    out->ngroups = 0;
    out->start = xcalloc(n + 1, sizeof(*out->start));
    out->order = xcalloc(n ? n : 1, sizeof(*out->order));
    size_t used = 0, gstart = 0;
    for (size_t i = 0; i < n; i++) {
        if (check_alone(names, i, oracle, ctx) != 0) {
            pg_groups_release(out);
            return -1;
        }
        size_t passes = 1;
        if (used > gstart &&
            (fits(names, out->order + gstart, used - gstart, i, oracle, ctx, &passes) != 0 ||
             passes != 1)) {
            out->start[out->ngroups++] = gstart;   /* close the current group */
            gstart = used;
        }
        out->order[used++] = i;
    }
    if (used > gstart)
        out->start[out->ngroups++] = gstart;
    out->start[out->ngroups] = used;
    return 0;
}

void pg_groups_release(struct pg_groups *g)
{
    free(g->start);
    free(g->order);
    g->start = g->order = NULL;
    g->ngroups = 0;
}

char *pg_base_name(const char *metric)
{
    const char *dot = strchr(metric, '.');
    return dot ? xstrndup(metric, (size_t)(dot - metric)) : xstrdup(metric);
}
