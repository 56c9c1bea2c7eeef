/* runbook.h - RUNBOOK_<tag>.md, the seed's pipeline table (make_runbook.sh)
 * filled in for one workload: dry runs, counter list + check, plain, pmc
 * with a -t estimate, power, analyze, vectors, what to check after each
 * step, and the --dependency=afterok chain. Partition, -n and -N come from
 * the conf. Commands of stages that are not built yet are written as they
 * will be.
 *
 * pmc -t estimate (seed: "allow ~passes x 3 x plain wall time"): from the
 * newest successful plain run in RESULTS_DIR when there is one, else
 * passes x 3 x TIME_LIMIT (an upper bound), else 01:00:00 with a note.
 */
#ifndef BR_STAGE_RUNBOOK_H
#define BR_STAGE_RUNBOOK_H

/* Writes the runbook of the workload in conf to out (NULL:
 * RUNBOOK_<WORKLOAD>.md beside conf), atomically. 0 written and *path set
 * (free it); -1 on an error (printed), *path NULL. */
int stage_runbook(const char *conf, const char *out, char **path);

#endif
