/* launcher.c - the launcher prefix of the app (LAUNCHER, srun inside
 * Slurm, or direct exec) and the seed's layout checks (launcher.h). */
#include "stage/launcher.h"
#include "stage/jobdir.h"
#include "util/error.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The sbatch line a user should have used for this conf. */
static char *sbatch_hint(const struct br_conf *c)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_addf(&sb, "sbatch -p %s", c->partition ? c->partition : "<partition with >= NGPUS GPUs>");
    if (c->nnodes > 1)
        sb_addf(&sb, " -N %ld", c->nnodes);
    if (c->ntasks > 1)
        sb_addf(&sb, " -n %ld", c->ntasks);
    sb_adds(&sb, " run_<stage>.sbatch ");
    sh_quote(&sb, c->path);
    return sb_detach(&sb);
}

int stage_check_layout(const struct br_conf *c, const struct gpu_node *g)
{
    bool cpu_only = c->vendor == GPU_VENDOR_NONE;
    long per_node = (c->ngpus + c->nnodes - 1) / c->nnodes;
    int rc = 0;
    if (!cpu_only && g->count < per_node) {
        char *hint = sbatch_hint(c);
        rc = br_error("%s: NGPUS=%ld but this node has %d GPU%s (%s); run on a node with "
                      "%ld GPUs: %s", c->path, c->ngpus, g->count, g->count == 1 ? "" : "s",
                      g->source ? g->source : "none found", per_node, hint);
        free(hint);
        return rc;
    }
    const char *nt = getenv("SLURM_NTASKS");
    long have = nt && *nt ? strtol(nt, NULL, 10) : 0;
    if (stage_in_slurm() && have > 0 && have < c->ntasks && c->launcher.n == 0) {
        char *hint = sbatch_hint(c);
        rc = br_error("%s: NTASKS=%ld but this Slurm job has %ld task%s; submit with: %s",
                      c->path, c->ntasks, have, have == 1 ? "" : "s", hint);
        free(hint);
    }
    return rc;
}

int stage_launcher_argv(const struct br_conf *c, bool assume_slurm, struct strv *out)
{
    strv_init(out);
    if (c->launcher.n > 0) {
        if (!(c->launcher.n == 1 && strcmp(c->launcher.v[0], "none") == 0))
            strv_extend(out, &c->launcher);
        else if (c->ntasks > 1)
            return br_error("%s: LAUNCHER=none cannot start NTASKS=%ld tasks", c->path, c->ntasks);
        return 0;
    }
    if (assume_slurm || stage_in_slurm()) {
        strv_push(out, "srun");
        if (c->nnodes > 1)
            strv_pushf(out, "-N%ld", c->nnodes);
        strv_pushf(out, "-n%ld", c->ntasks);
        return 0;
    }
    if (c->ntasks > 1)
        return br_error("%s: NTASKS=%ld needs a launcher, and this is not a Slurm allocation: "
                        "submit it with sbatch -n %ld (or salloc), or set LAUNCHER in the conf "
                        "(e.g. LAUNCHER=(mpirun -np %ld))", c->path, c->ntasks, c->ntasks, c->ntasks);
    return 0;
}
