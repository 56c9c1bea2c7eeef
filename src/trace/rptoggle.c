/* rptoggle.c - the range profiler's calls per launch, per toggle mode (rptoggle.h). */
#include "trace/rptoggle.h"

#include "trace/launchplan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "full", "startstop", "user", "user-async" };

void rpt_init(struct rpt_state *s, enum rpt_mode mode)
{
    memset(s, 0, sizeof(*s));
    s->mode = mode;
}

enum rpt_mode rpt_default(bool sampled)
{
    return sampled ? RPT_USER : RPT_FULL;
}

int rpt_parse(const char *text, bool sampled, enum rpt_mode *mode)
{
    if (!text || !*text) {
        *mode = rpt_default(sampled);
        return 0;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        if (!strcmp(text, names[i])) {
            *mode = (enum rpt_mode)i;
            return 0;
        }
    return -1;
}

const char *rpt_name(enum rpt_mode mode)
{
    return (unsigned)mode < sizeof(names) / sizeof(*names) ? names[mode] : "?";
}

bool rpt_user_ranges(enum rpt_mode mode)
{
    return mode == RPT_USER || mode == RPT_USER_ASYNC;
}

void rpt_range_name(char *buf, size_t size, uint64_t dispatch, const char *kernel)
{
    snprintf(buf, size, "%" PRIu64 ":%s", dispatch, kernel ? kernel : "?");
}

bool rpt_range_dispatch(const char *name, uint64_t *dispatch)
{
    if (!name || *name < '0' || *name > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long d = strtoull(name, &end, 10);
    if (*end != ':' || errno == ERANGE)
        return false;
    *dispatch = (uint64_t)d;
    return true;
}

size_t rpt_ranges_kept(enum rpt_mode mode, size_t decoded, size_t pushed)
{
    return rpt_user_ranges(mode) && decoded > pushed ? pushed : decoded;
}

bool rpt_counter_spans_range(enum rpt_mode mode, const char *counter)
{
    return rpt_user_ranges(mode) && counter && lp_elapsed_counter(counter);
}

unsigned rpt_profiled(const struct rpt_state *s, size_t limit)
{
    bool user = rpt_user_ranges(s->mode);
    if (user && s->pushed)
        return RPT_BUSY;   /* one level of ranges: a nested push would not be a range */
    unsigned steps = 0;
    if (s->configured && s->in_image > 0 && s->in_image >= limit)
        steps = (s->started ? RPT_STOP : 0) | RPT_DECODE | RPT_INIT | RPT_START;
    else if (!s->configured)
        steps = RPT_INIT | RPT_START;
    else if (!s->started)
        steps = RPT_START;
    if (user)
        steps |= RPT_PUSH | (s->mode == RPT_USER ? RPT_SYNC : 0);
    return steps;
}

unsigned rpt_unprofiled(const struct rpt_state *s)
{
    if (!s->started || rpt_user_ranges(s->mode))
        return 0;   /* user ranges: unprofiled launches run outside any range */
    return s->mode == RPT_FULL ? RPT_STOP | RPT_DECODE : RPT_STOP;
}

unsigned rpt_launch_done(const struct rpt_state *s, bool launch_failed)
{
    if (!rpt_user_ranges(s->mode) || !s->pushed)
        return 0;
    return RPT_POP | (s->mode == RPT_USER && !launch_failed ? RPT_SYNC : 0);
}

unsigned rpt_flush(const struct rpt_state *s)
{
    if (s->mode == RPT_FULL || !s->configured || s->in_image == 0 || s->pushed)
        return 0;   /* full decodes at every stop; an open range cannot be cut */
    return (s->started ? RPT_STOP : 0) | RPT_DECODE;
}

unsigned rpt_finish(const struct rpt_state *s)
{
    return (s->pushed ? RPT_POP : 0) | (s->started ? RPT_STOP : 0) |
           (s->configured ? RPT_DECODE : 0);
}

bool rpt_count_late(struct rpt_state *s)
{
    if (rpt_user_ranges(s->mode) || !s->started)
        return false;
    s->in_image++;
    return true;
}

void rpt_count(struct rpt_state *s)
{
    s->in_image++;
}

void rpt_uncount_failed(struct rpt_state *s)
{
    if (!rpt_user_ranges(s->mode) && s->in_image > 0)
        s->in_image--;
}

void rpt_apply(struct rpt_state *s, unsigned step)
{
    switch (step) {
    case RPT_POP:
        s->pushed = false;
        break;
    case RPT_STOP:
        s->started = false;
        s->stops++;
        break;
    case RPT_DECODE:
        s->configured = false;
        s->in_image = 0;
        s->stops = 0;
        break;
    case RPT_INIT:
        s->configured = true;
        s->in_image = 0;
        s->stops = 0;
        break;
    case RPT_START:
        s->started = true;
        break;
    case RPT_PUSH:
        s->pushed = true;
        break;
    default:   /* RPT_SYNC changes nothing */
        break;
    }
}

unsigned rpt_start_failed(struct rpt_state *s)
{
    if (s->mode != RPT_STARTSTOP || !s->configured || s->stops == 0)
        return 0;
    s->mode = RPT_FULL;
    s->fallbacks++;
    return RPT_DECODE | RPT_INIT | RPT_START;
}
