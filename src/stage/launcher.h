/* launcher.h - how the app's tasks are started, and the seed's layout checks.
 *
 * The launcher is LAUNCHER from the conf ("none" = direct exec), else
 * `srun -n NTASKS [-N NNODES]` inside a Slurm allocation, else nothing
 * (direct exec, NTASKS must be 1).
 */
#ifndef BR_STAGE_LAUNCHER_H
#define BR_STAGE_LAUNCHER_H

#include <stdbool.h>

#include "conf/conf.h"
#include "gpu/gpu.h"
#include "util/strv.h"

/* Seed layout checks for a real run: GPUs seen < NGPUS, or Slurm tasks
 * ($SLURM_NTASKS) < NTASKS, is an error that prints the sbatch line to use
 * instead. VENDOR=none skips the GPU check. 0 or -1 (printed). */
int stage_check_layout(const struct br_conf *c, const struct gpu_node *g);

/* Fills out (initialized by the callee) with the launcher prefix above;
 * assume_slurm: as inside an allocation (a dry run showing what the sbatch
 * job will run). NTASKS > 1 without a launcher is an error naming the fix.
 * 0 or -1 (printed; out released). */
int stage_launcher_argv(const struct br_conf *c, bool assume_slurm, struct strv *out);

#endif
