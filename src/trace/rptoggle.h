/* rptoggle.h - which CUPTI range profiler calls a counter pass makes, launch by launch.
 *
 * A sampled counter pass (BENCHRUN_CUPTI_SAMPLE) profiles a few launches and
 * lets the others run unprofiled. How the CUPTI library toggles between the
 * two is BENCHRUN_CUPTI_TOGGLE (src/trace/cupti/rangeprof.c runs the calls):
 *   full       auto range; before each stretch of profiled launches the
 *              counter image is initialized, the config set and the profiler
 *              started, after it stopped and decoded (the default with
 *              every launch profiled: measured on the H200, 53.8x six plain
 *              runs on axpy when sampled)
 *   startstop  auto range; the image initialized and the config set once per
 *              image, each stretch only started and stopped, the image
 *              decoded when it is full or at the end (CUPTI documents no
 *              restart of a one-pass config after a Stop: a Start that fails
 *              there falls back to full for the rest of the run)
 *   user       (the default of sampled passes) user ranges; the profiler
 *              started once and kept started, one
 *              pushed range per profiled launch (named by its dispatch id),
 *              the context synchronized before the push and before the pop
 *              so the range holds that kernel alone; decoded as startstop;
 *              what a range counts of its own is measured on ranges around
 *              no work and taken out (trace/rangeoffset.h)
 *   user-async the same without the two synchronizations
 * Deferred decodes (all but full) also happen on request (rpt_flush: too
 * many launch records wait for a range) and at the end.
 * Pure logic (no CUDA, no allocation): the caller runs the steps a function
 * returns, in the order of the RPT_* bits, and reports each one that
 * succeeded with rpt_apply. tests/unit/test_rptoggle.c.
 */
#ifndef BR_RPTOGGLE_H
#define BR_RPTOGGLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rpt_mode { RPT_FULL, RPT_STARTSTOP, RPT_USER, RPT_USER_ASYNC };

/* The default: user ranges in sampled passes, full (auto range) with every
 * launch profiled. Measured on the H200 (docs/validation.md §12-14): user
 * costs far less (axpy, six sampled passes of 20,001 launches: about 3x six
 * plain runs, full 53.8x); its pushed ranges hold the kernel's deterministic
 * counts (the transformer's L2 and DRAM byte totals within 0.11 % of full),
 * but some ranges come back NaN, more the longer the profiler runs between
 * decodes (300 of 2,083 with a 2,000-range image, 8 with 16): sampled
 * passes decode every BENCHRUN_CUPTI_MAX_RANGES (32) ranges and drop the
 * NaN ones, which full collection cannot afford. */
enum rpt_mode rpt_default(bool sampled);

/* Steps, run in this order (lowest bit first). */
enum {
    RPT_SYNC = 1u << 0,    /* cuCtxSynchronize before the POP or PUSH of the same call */
    RPT_POP = 1u << 1,     /* cuptiRangeProfilerPopRange */
    RPT_STOP = 1u << 2,    /* cuptiRangeProfilerStop */
    RPT_DECODE = 1u << 3,  /* cuptiRangeProfilerDecodeData, every range evaluated */
    RPT_INIT = 1u << 4,    /* counter data image initialized, cuptiRangeProfilerSetConfig */
    RPT_START = 1u << 5,   /* cuptiRangeProfilerStart */
    RPT_PUSH = 1u << 6,    /* cuptiRangeProfilerPushRange */
    RPT_BUSY = 1u << 7,    /* not a step: a user range is open, this launch cannot be profiled */
};

struct rpt_state {
    enum rpt_mode mode;    /* in use: startstop becomes full after a failed restart */
    bool configured;       /* image initialized and config set since the last decode */
    bool started;
    bool pushed;           /* a user range is open */
    size_t in_image;       /* ranges counted since the image was initialized */
    size_t stops;          /* stops since then */
    uint64_t fallbacks;    /* startstop restarts that failed */
};

void rpt_init(struct rpt_state *s, enum rpt_mode mode);
/* "full", "startstop", "user", "user-async" (NULL or "": rpt_default(sampled)).
 * 0, or -1 with *mode unchanged. */
int rpt_parse(const char *text, bool sampled, enum rpt_mode *mode);
const char *rpt_name(enum rpt_mode mode);
/* User ranges: ranges are the pushed ones, named "<dispatch>:<kernel>". */
bool rpt_user_ranges(enum rpt_mode mode);

/* A user range's name: "<dispatch>:<kernel>", the kernel cut to fit buf
 * (size >= 32); rpt_range_dispatch reads the number back (false: not such a
 * name). launches.c joins user ranges to launches by it. */
void rpt_range_name(char *buf, size_t size, uint64_t dispatch, const char *kernel);
bool rpt_range_dispatch(const char *name, uint64_t *dispatch);

/* Of `decoded` ranges of an image that holds `pushed` counted ranges, how
 * many are real: user ranges, the first `pushed` (CUPTI 13.0 on the H200
 * reported more, the extra ones NaN and named after earlier ranges:
 * docs/validation.md §14); auto ranges, all of them (kernels no callback
 * announced are ranges too). */
size_t rpt_ranges_kept(enum rpt_mode mode, size_t decoded, size_t pushed);
/* Whether a user range's value of this counter is not the kernel's: the
 * elapsed counters (lp_elapsed_counter) span the push to
 * the pop, host gaps included (NVIDIA developer forum, "Inflated Time
 * Metrics For User Range Mode", CUDA 13.0). */
bool rpt_counter_spans_range(enum rpt_mode mode, const char *counter);

/* Before a launch that is to be profiled; the image is decoded first once it
 * holds `limit` ranges. May include RPT_BUSY (then nothing else). */
unsigned rpt_profiled(const struct rpt_state *s, size_t limit);
/* Before a launch that is not. */
unsigned rpt_unprofiled(const struct rpt_state *s);
/* After a profiled launch's call returned (launch_failed: it ran nothing). */
unsigned rpt_launch_done(const struct rpt_state *s, bool launch_failed);
/* Launch records wait for ranges: decode now where decodes are deferred. */
unsigned rpt_flush(const struct rpt_state *s);
/* The end (exit, context destroyed, profiler reset at a module unload). */
unsigned rpt_finish(const struct rpt_state *s);
/* A launch seen only at its API's exit (already submitted): did it become a
 * range? (auto range while started). Counts it when it did. */
bool rpt_count_late(struct rpt_state *s);
/* A profiled launch's range: one more in the image. */
void rpt_count(struct rpt_state *s);
/* Its launch failed: with auto range it made no range (a pushed range stays). */
void rpt_uncount_failed(struct rpt_state *s);

/* The state after `step` (one RPT_* bit) succeeded. */
void rpt_apply(struct rpt_state *s, unsigned step);
/* RPT_START failed. Returns the steps to retry with (startstop restarting
 * within an image: decode what it holds, initialize, start; mode becomes
 * full), or 0 when there is no retry. */
unsigned rpt_start_failed(struct rpt_state *s);

#endif
