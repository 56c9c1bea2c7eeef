/* rpconst.h - fields of a GPU that can appear where counters are listed or
 * collected but count nothing: rocprofiler-sdk's constant "counters" (CU_NUM,
 * SE_NUM, SIMD_NUM, ...: derived counters whose expression is a number) and
 * the KFD topology properties a converted table may carry as columns
 * (processor_id_low, simd_count, ...). Their per-launch values are constants;
 * summed over launches and divided by time they would be read as rates.
 * Counter rows of such names are left out of a pass's counters
 * (rp_pass_drop_constants) and named in the pass's constants. */
#ifndef BR_READ_RPCONST_H
#define BR_READ_RPCONST_H

#include <stdbool.h>

#include "read/rocprof.h"

/* True for a constant field's name (matched ignoring case). */
bool rp_is_constant_field(const char *name);
/* Removes constant fields from ps's counter columns (names kept in
 * ps->constants). */
void rp_pass_drop_constants(struct rp_pass *ps);

#endif
