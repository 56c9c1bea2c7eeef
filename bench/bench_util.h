/* bench_util.h - shared by the bench/ programs: a monotonic clock in seconds
 * and a small deterministic random generator (xorshift64: shifts 13, 7, 17),
 * so the generated data is the same on every run. Header-only. */
#ifndef BR_BENCH_UTIL_H
#define BR_BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Next value of the generator whose state is *s (never 0). */
static inline uint64_t bench_xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#endif
