/* ncu_convert.h - Nsight Compute raw CSV → rocprofv3 7.x counter_collection.csv.
 *
 * The `ncu` collector of `benchrun pmc --collector ncu` (the cross-check path,
 * small runs only) leaves ncu's raw-page CSV; this turns it into the same
 * counter_collection.csv the CUPTI collector writes, so `benchrun analyze`
 * reads both. One row per (launch, metric). ncu gives no timestamps: launches
 * are laid end to end from 0 using gpu__time_duration.sum (ns), so End − Start
 * is each launch's GPU duration (add that metric to the pass; without it both
 * are 0). Kernel attributes from "Block Size", "Grid Size", "Device", "Stream",
 * launch__registers_per_thread and launch__shared_mem_per_block_{static,dynamic}
 * when present.
 */
#ifndef BR_COLLECT_NCU_CONVERT_H
#define BR_COLLECT_NCU_CONVERT_H

#include <stdio.h>

#include "read/ncu_csv.h"

/* Writes header + rows for metrics[0..] (NULL-terminated; NULL: every column
 * whose name has a '.' and a "__", i.e. every metric). A requested metric
 * missing from the table is an error naming it. Returns rows written, or -1. */
long ncu_write_counter_collection(const struct ncu_table *t, const char *const *metrics,
                                  const char *file, FILE *out);

#endif
