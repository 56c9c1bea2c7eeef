/* launchplan.c - the launch sampling plan of a counter pass (launchplan.h). */
#include "trace/launchplan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Phases are laid out on q = r - first - 1 (0-based after the census):
 * phase j starts at q = every·blocks·(2^j - 1) and has blocks of every·2^j.
 * Past PHASE_CAP the lengths would overflow: the last phase runs to the end. */
#define PHASE_CAP 40

bool lp_elapsed_counter(const char *counter)
{
    return strstr(counter, "cycles_elapsed") || !strncmp(counter, "gpu__time_duration", 18) ||
           !strcmp(counter, "GRBM_COUNT") || !strcmp(counter, "GRBM_GUI_ACTIVE");
}

void lp_plan_default(struct lp_plan *p)
{
    p->first = LP_DEFAULT_FIRST;
    p->every = LP_DEFAULT_EVERY;
    p->blocks_per_phase = LP_DEFAULT_BLOCKS;
    p->seed = LP_DEFAULT_SEED;
}

static int field(const char **s, uint64_t *v, char end)
{
    char *e;
    if (**s < '0' || **s > '9')
        return -1;
    errno = 0;
    unsigned long long x = strtoull(*s, &e, 10);
    if (*e != end || errno == ERANGE)
        return -1;
    *v = x;
    *s = end ? e + 1 : e;
    return 0;
}

int lp_plan_parse(const char *s, struct lp_plan *p)
{
    struct lp_plan n;
    if (!s || field(&s, &n.first, ':') || field(&s, &n.every, ':') ||
        field(&s, &n.blocks_per_phase, ':') || field(&s, &n.seed, '\0') || n.every == 0)
        return -1;
    *p = n;
    return 0;
}

void lp_plan_format(const struct lp_plan *p, char *buf, size_t size)
{
    snprintf(buf, size, "%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64, p->first, p->every,
             p->blocks_per_phase, p->seed);
}

/* splitmix64 (Steele, Lea, Flood 2014): a well-mixed 64-bit value per block. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Where q falls: phase j, the phase's first q, its block length. */
struct place {
    uint32_t phase;
    uint64_t start, len;   /* phase j's first q and block length */
    bool last;             /* the phase runs to the end (no doubling, or the cap) */
};

static struct place locate(const struct lp_plan *p, uint64_t q)
{
    struct place pl = { 0, 0, p->every, p->blocks_per_phase == 0 };
    while (!pl.last) {
        uint64_t span = pl.len * p->blocks_per_phase;
        if (pl.phase >= PHASE_CAP || span / p->blocks_per_phase != pl.len ||
            pl.start > UINT64_MAX - span) {
            pl.last = true;
            break;
        }
        if (q < pl.start + span)
            break;
        pl.start += span;
        pl.len *= 2;
        pl.phase++;
    }
    return pl;
}

/* The q profiled in block b of phase pl. */
static uint64_t chosen(const struct lp_plan *p, const struct place *pl, uint64_t b)
{
    uint64_t off = mix(p->seed ^ mix(((uint64_t)pl->phase << 48) ^ b)) % pl->len;
    return pl->start + b * pl->len + off;
}

bool lp_profiled(const struct lp_plan *p, uint64_t r)
{
    if (r <= p->first)
        return true;
    uint64_t q = r - p->first - 1;
    struct place pl = locate(p, q);
    return chosen(p, &pl, (q - pl.start) / pl.len) == q;
}

uint64_t lp_next(const struct lp_plan *p, uint64_t r)
{
    if (r <= p->first)
        return r;
    uint64_t q = r - p->first - 1;
    for (int step = 0; step < 3; step++) {   /* this block, the next one, the next phase's first */
        struct place pl = locate(p, q);
        uint64_t b = (q - pl.start) / pl.len, c = chosen(p, &pl, b);
        if (c >= q)
            return c > UINT64_MAX - p->first - 1 ? UINT64_MAX : c + p->first + 1;
        uint64_t next = pl.start + (b + 1) * pl.len;
        if (next <= q)   /* overflow at the end of the ranks */
            return UINT64_MAX;
        q = next;
    }
    return UINT64_MAX;
}

/* a + b + c, UINT64_MAX when it does not fit */
static uint64_t sat_add3(uint64_t a, uint64_t b, uint64_t c)
{
    if (a > UINT64_MAX - b || a + b > UINT64_MAX - c)
        return UINT64_MAX;
    return a + b + c;
}

/* The last rank of the phase at pl. */
static uint64_t phase_end(const struct lp_plan *p, const struct place *pl)
{
    return pl->last ? UINT64_MAX : sat_add3(pl->start, pl->len * p->blocks_per_phase, p->first);
}

uint32_t lp_stratum(const struct lp_plan *p, uint64_t r, uint64_t *lo, uint64_t *hi)
{
    if (r <= p->first) {
        *lo = 1, *hi = p->first;
        return 0;
    }
    struct place pl = locate(p, r - p->first - 1);
    *lo = sat_add3(pl.start, p->first, 1);
    *hi = phase_end(p, &pl);
    return pl.phase + 1;
}

uint64_t lp_stratum_size(const struct lp_plan *p, uint32_t h, uint64_t launches)
{
    if (h == 0)
        return launches < p->first ? launches : p->first;
    uint64_t q = 0;   /* first q of phase h - 1 */
    for (uint32_t j = 0; j + 1 < h; j++) {
        struct place pl = locate(p, q);
        if (pl.last)
            return 0;
        q = pl.start + pl.len * p->blocks_per_phase;
    }
    struct place pl = locate(p, q);
    if (pl.phase + 1 != h)
        return 0;
    uint64_t lo = sat_add3(pl.start, p->first, 1), hi = phase_end(p, &pl);
    if (launches < lo)
        return 0;
    return (launches < hi ? launches : hi) - lo + 1;
}
