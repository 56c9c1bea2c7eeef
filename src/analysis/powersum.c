/* powersum.c - the power stage's summary of its run folder (analyze.h). */
#include "analysis/analyze.h"

#include "metrics/powersum.h"
#include "read/psumread.h"

json_t *an_power_summary(const char *rundir, const char *workload, const char *ktrace)
{
    struct psum_run r;
    psum_read(&r, rundir, workload, ktrace);
    json_t *sum = mx_power_summary(&r);
    psum_run_release(&r);
    return sum;
}
