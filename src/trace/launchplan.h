/* launchplan.h - which launches of a kernel a sampled counter pass profiles.
 *
 * Shared by the writers of a sampled pass (the CUPTI library decides launch
 * by launch; the rocprofv3 collector lists the iterations for
 * --kernel-iteration-range) and by its reader (read/extrapolate.c), which
 * needs the same strata to scale the profiled launches up to every launch.
 * Pure arithmetic: no allocation, no I/O, no CUDA (linked into
 * libbenchrun-cupti.so too).
 *
 * A launch's rank r is its 1-based position among the launches of its
 * sampling unit (NVIDIA: kernel name, grid and block; AMD: the kernel, as
 * rocprofv3 counts iterations per kernel). The plan profiles
 *   - every launch with r <= first (stratum 0: a census, no sampling error),
 *   - then, phase j = 0, 1, 2, ...: blocks_per_phase blocks of every·2^j
 *     launches each, one launch per block at a pseudo-random offset
 *     (stratum 1 + j). The blocks double in length from phase to phase, so a
 *     unit with L launches has about first + blocks_per_phase·log2(L/(every·
 *     blocks_per_phase)) profiled launches: bounded cost on any run length,
 *     spread over the whole run. blocks_per_phase 0: one phase, blocks of
 *     `every` launches to the end (a fixed 1-in-every sample).
 * Inside a stratum every launch has the same chance to be profiled, which is
 * what the per-stratum mean of read/extrapolate.c needs; a random offset per
 * block (not a fixed stride) keeps periodic programs (training steps) from
 * always hitting the same launch of a period. The offset depends only on the
 * seed, the phase and the block, so the same launches are profiled in every
 * pass of a deterministic program.
 */
#ifndef BR_TRACE_LAUNCHPLAN_H
#define BR_TRACE_LAUNCHPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_plan {
    uint64_t first;             /* ranks 1..first: all profiled */
    uint64_t every;             /* block length of phase 0 (>= 1) */
    uint64_t blocks_per_phase;  /* blocks per phase before the length doubles; 0: never */
    uint64_t seed;
};

/* The defaults of benchrun pmc --launches sampled (README "Launch sampling"). */
#define LP_DEFAULT_FIRST 10
#define LP_DEFAULT_EVERY 50
#define LP_DEFAULT_BLOCKS 20
#define LP_DEFAULT_SEED 1

void lp_plan_default(struct lp_plan *p);

/* "FIRST:EVERY:BLOCKS:SEED" (e.g. "10:50:20:1"; the libbenchrun-cupti
 * BENCHRUN_CUPTI_SAMPLE value) into *p. 0, or -1 when malformed (every 0,
 * a missing field, trailing text) with *p unchanged. */
int lp_plan_parse(const char *s, struct lp_plan *p);
/* The same text into buf (>= 96 bytes). */
void lp_plan_format(const struct lp_plan *p, char *buf, size_t size);

/* Counters that measure elapsed time rather than work: names holding
 * "cycles_elapsed" (sm__cycles_elapsed.sum, ...), gpu__time_duration.*,
 * and AMD's GRBM_COUNT and GRBM_GUI_ACTIVE. The reader scales them by the
 * traced time where the trace times the kernels (read/extrapolate.h); in a
 * CUPTI user range they span the range, not the kernel (trace/rptoggle.h). */
bool lp_elapsed_counter(const char *counter);

/* Whether the launch of rank r (>= 1) is profiled. */
bool lp_profiled(const struct lp_plan *p, uint64_t r);
/* The smallest profiled rank >= r (r >= 1); UINT64_MAX past the last phase
 * that fits in 64 bits. */
uint64_t lp_next(const struct lp_plan *p, uint64_t r);

/* Stratum of rank r (0: the census) and its rank interval [*lo, *hi]. */
uint32_t lp_stratum(const struct lp_plan *p, uint64_t r, uint64_t *lo, uint64_t *hi);
/* Ranks of stratum h among 1..launches (0 when it starts later). */
uint64_t lp_stratum_size(const struct lp_plan *p, uint32_t h, uint64_t launches);

#endif
