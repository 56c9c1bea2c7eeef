/* run.c - releasing a pmc run's model (run.h). */
#include "model/run.h"

#include "util/strv.h"

#include <stdlib.h>
#include <string.h>

static void pass_release(struct rp_pass *p)
{
    free(p->name);
    free(p->dir);
    str_array_free(p->files);
    free(p->layout);
    str_array_free(p->counters);
    str_array_free(p->constants);
    free(p->launches);
    free(p->profiled);
    free(p->uncounted);
    free(p->dur_ns);
    free(p->csum);
    free(p->cvar);
    free(p->coffset);
    free(p->cdf);
    free(p->crows);
    free(p->bad_value_at);
    free(p->dup_row_at);
    free(p->empty_at);
}

void rp_agent_release(struct rp_agent *ag)
{
    free(ag->file);
    str_array_free(ag->keys);
    str_array_free(ag->vals);
}

void rp_run_release(struct rp_run *run)
{
    for (uint32_t i = 0; i < run->npasses; i++)
        pass_release(&run->passes[i]);
    free(run->passes);
    free(run->attr);
    intern_release(&run->names);
    rp_agent_release(&run->agent);
    memset(run, 0, sizeof(*run));
}
