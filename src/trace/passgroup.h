/* passgroup.h - split a counter (metric) list into groups that each fit one hardware pass.
 *
 * benchrun runs the application once per group (the rocprofv3 model) and the
 * CUPTI library collects that group with no kernel replay, so every group must
 * need exactly one pass. Whether a set fits is asked of an oracle: on NVIDIA
 * the CUPTI profiler host API (config image → cuptiProfilerHostGetNumOfPasses,
 * src/trace/cupti/host.c); in tests a fake. Grouping is greedy and keeps the
 * input order: a metric joins the current group if the group still needs one
 * pass, else it starts the next group. A metric that alone needs more than one
 * pass cannot be collected without replay and is an error.
 * Also: metric base names (the part an `ncu --query-metrics` list holds).
 * Pure logic (no CUDA): tests/unit/test_nvtrace.c (test_group).
 */
#ifndef BR_PASSGROUP_H
#define BR_PASSGROUP_H

#include <stddef.h>

/* Sets *passes to the number of hardware passes `names[0..n)` need.
 * Returns 0, or -1 when the set is invalid (unknown metric). */
typedef int (*pg_passes_fn)(void *ctx, const char *const *names, size_t n, size_t *passes);

struct pg_groups {
    size_t ngroups;
    size_t *start;   /* group g holds order[start[g] .. start[g+1]) */
    size_t *order;   /* metric indices, input order within a group */
};

/* Groups names[0..n). Returns 0, or -1 with an error naming the metric that
 * is unknown or needs several passes by itself. */
int pg_group(const char *const *names, size_t n, pg_passes_fn oracle, void *ctx,
             struct pg_groups *out);
void pg_groups_release(struct pg_groups *g);

/* Base name of a metric: the text before the first '.', e.g.
 * "dram__bytes_read.sum.per_second" → "dram__bytes_read". Returns a new string. */
char *pg_base_name(const char *metric);

#endif
