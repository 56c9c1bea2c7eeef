/* telread.h - telemetry files read once into the model (model/telemetry.h):
 * what the sampled clock, the report's power timeline and the power stage's
 * summary need, in one pass per file with bounded memory (the lines are
 * min/max-decimated as they are read; the in-kernel clock readings are kept:
 * one double per sample inside a running kernel).
 *
 * Matching samples to kernels: CLOCK_BOOTTIME is per node, so a file whose
 * metadata says node=<node> is matched against the merged busy intervals of
 * the trace files under <root>/<node>/ (read/nodepath.h); a node with no
 * such folder has no sample in a kernel (warning). When no trace lies in any
 * telemetry node's folder (one node), every file is matched against all of
 * the trace's intervals.
 */
#ifndef BR_READ_TELREAD_H
#define BR_READ_TELREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/power.h"
#include "model/telemetry.h"

struct telem_read_opts {
    const struct rp_power *pw;  /* the power run's trace; NULL: no kernels known */
    const char *root;           /* its path: the folder of the node subfolders */
    const int64_t *iv;          /* instead of pw's: intervals [start, end] ns for every */
    size_t niv;                 /*   file (niv pairs, any order) */
    size_t line_buckets;        /* > 0: keep the report's lines, this many columns */
    bool skip_bad;              /* a file that cannot be opened is left out (its error
                                   printed), a malformed row ends its file: no failure */
};

/* Reads files[0..nfiles) into out (released first by the caller, or zeroed).
 * 0, or -1 after printing the error of a file that cannot be read. */
int telem_read_run(struct telem_run *out, char *const *files, size_t nfiles,
                   const struct telem_read_opts *o);

/* The first kernel start (ns) of the trace GPUs under <root>/<node>/, the
 * trace's first start for node NULL or no such GPU: where a node's times
 * count from in the report. */
int64_t telem_node_origin(const struct rp_power *pw, const char *root, const char *node);

#endif
