/* psum.c - releasing the power stage's summary inputs (psum.h). */
#include "model/psum.h"

#include <stdlib.h>
#include <string.h>

void psum_run_release(struct psum_run *r)
{
    free(r->tag);
    telem_run_release(&r->tel);
    for (size_t i = 0; i < r->nnodes; i++)
        free(r->nodes[i].node);
    free(r->nodes);
    memset(r, 0, sizeof(*r));
}
