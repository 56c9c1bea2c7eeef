/* jobdir.h - the job id and the run folder of a stage.
 *
 * Job id: $SLURM_JOB_ID inside a Slurm allocation, else
 * local-<YYYYmmddTHHMMSSZ>-<pid> (UTC). Run folder: RESULTS_DIR/<kind>-<jobid>,
 * never reused: a requeued job gets <kind>-<jobid>.2, .3, ...
 */
#ifndef BR_STAGE_JOBDIR_H
#define BR_STAGE_JOBDIR_H

#include <stdbool.h>

/* The job id above. Caller frees. */
char *stage_job_id(void);
/* True inside a Slurm allocation ($SLURM_JOB_ID set). */
bool stage_in_slurm(void);

/* "<results_dir>/<kind>-<jobid>" (not created). Caller frees. */
char *stage_run_dir_name(const char *results_dir, const char *kind, const char *jobid);

/* Creates RESULTS_DIR (mkdir -p) and then a NEW folder <kind>-<jobid>; when
 * that exists (a requeued Slurm job), <kind>-<jobid>.2, .3, ... An existing
 * folder is never reused. *out gets the absolute path. 0 or -1 (printed). */
int stage_run_dir_create(const char *results_dir, const char *kind, const char *jobid, char **out);
/* The name stage_run_dir_create would pick now (not created). Caller frees. */
char *stage_run_dir_free_name(const char *results_dir, const char *kind, const char *jobid);
/* Creates RESULTS_DIR (mkdir -p) and exactly path in it: 0 created, 1 it
 * exists already, -1 error (printed). */
int stage_run_dir_create_at(const char *results_dir, const char *path);

#endif
