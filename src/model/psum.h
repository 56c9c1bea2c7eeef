/* psum.h - what `benchrun power` reads back from its run folder for the
 * summary it prints and keeps in run.json (read/psumread.h fills it,
 * metrics/powersum.h sums it up). CLOCK_BOOTTIME is per node: a multi-node
 * run has a clock_ref_<node>.txt and a trace folder per node.
 */
#ifndef BR_MODEL_PSUM_H
#define BR_MODEL_PSUM_H

#include <stddef.h>
#include <stdint.h>

#include "model/telemetry.h"

/* A kernel trace folder: dispatches, files, first kernel start (-1: none). */
struct psum_trace {
    uint64_t kernels;
    uint32_t files;
    int64_t first_ns;
};

struct psum_node {
    char *node;
    int64_t clock_ref_ns;       /* its clock_ref_<node>.txt boottime_ns, -1 unknown */
    struct psum_trace trace;    /* under ktrace/<node>/ */
};

struct psum_run {
    char *tag;                  /* WORKLOAD: profiling_result_<tag>_... */
    struct telem_run tel;       /* the run's telemetry files (unreadable ones left out) */
    int64_t clock_ref_ns;       /* clock_ref.txt boottime_ns, -1 unknown */
    struct psum_trace trace;    /* the kernel trace folder */
    size_t nnodes;
    struct psum_node *nodes;    /* one per clock_ref_<node>.txt, in name order */
};

void psum_run_release(struct psum_run *r);

#endif
