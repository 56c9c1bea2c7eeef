/* nodepath.h - which node a multi-node power run's trace file belongs to.
 *
 * CLOCK_BOOTTIME is per node (time since THAT node booted), so a multi-node
 * run's telemetry samples may only be compared with the kernel trace of the
 * same node. The power stage writes traces under ktrace_<tag>/<node>/ (node =
 * $SLURMD_NODENAME or `hostname -s`, the name the per-node sampler writes as
 * node=<node> in its telemetry metadata and in profiling_result_<tag>_<node>_
 * <gpu>.csv; src/stage/nodesamp.h).
 */
#ifndef BR_READ_NODEPATH_H
#define BR_READ_NODEPATH_H

#include <stdbool.h>

/* True when a folder component of path below root (root itself excluded; a
 * path not under root is taken whole) equals node. The file name itself
 * never counts. */
bool rp_path_in_node(const char *root, const char *path, const char *node);

/* Node name of a telemetry file: its metadata "node" (the sampler writes
 * node=none on one node: NULL then). Allocated; NULL when none or unreadable. */
char *rp_telem_node(const char *path);

#endif
