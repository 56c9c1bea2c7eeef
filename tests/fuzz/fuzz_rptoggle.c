/* fuzz_rptoggle.c - libFuzzer target for trace/rptoggle.h: the user range name
 * parser (names come back from CUPTI) and the toggle state machine. Bytes 0-1
 * pick the mode and the image limit; the rest are launch events. Every step
 * list is checked against a model of the range profiler's rules (stop only
 * when started, decode only stopped and configured, push only started and
 * with no range open, no pushes with auto ranges), and the ranges it counts
 * against the model's. The whole input, as text, goes through
 * rpt_range_dispatch, and a number it reads must round-trip. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/rptoggle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct model {
    bool configured, started, pushed;
    size_t ranges;   /* in the current image */
};

/* Runs steps in bit order against the model; aborts on a call CUPTI would refuse. */
static void run(struct rpt_state *s, struct model *m, unsigned steps, bool user)
{
    if ((steps & RPT_BUSY) && steps != RPT_BUSY)
        abort();
    if (!user && (steps & (RPT_PUSH | RPT_POP | RPT_SYNC)))
        abort();
    for (unsigned b = RPT_SYNC; b <= RPT_PUSH; b <<= 1) {
        if (!(steps & b))
            continue;
        switch (b) {
        case RPT_POP: if (!m->pushed) abort(); m->pushed = false; break;
        case RPT_STOP: if (!m->started || m->pushed) abort(); m->started = false; break;
        case RPT_DECODE: if (!m->configured || m->started) abort();
            m->configured = false, m->ranges = 0; break;
        case RPT_INIT: if (m->started) abort(); m->configured = true, m->ranges = 0; break;
        case RPT_START: if (!m->configured || m->started) abort(); m->started = true; break;
        case RPT_PUSH: if (!m->started || m->pushed) abort(); m->pushed = true; break;
        default: break;
        }
        rpt_apply(s, b);
    }
}

static void names(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), buf[64];
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    uint64_t d = 0, e = 0;
    if (rpt_range_dispatch(text, &d)) {
        rpt_range_name(buf, sizeof(buf), d, strchr(text, ':') + 1);
        if (!rpt_range_dispatch(buf, &e) || e != d)
            abort();
    }
    enum rpt_mode m;
    if (rpt_parse(text, size % 2, &m) == 0 && *text && strcmp(rpt_name(m), text) != 0)
        abort();
    for (int k = 0; k < 4; k++)   /* only user ranges have counters spanning the range */
        if (rpt_counter_spans_range((enum rpt_mode)k, text) && !rpt_user_ranges((enum rpt_mode)k))
            abort();
    if (rpt_ranges_kept(RPT_USER, size, size / 2) != size / 2 || rpt_ranges_kept(RPT_FULL, size, 1) != size)
        abort();
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    names(data, size);
    if (size < 2)
        return 0;
    struct rpt_state s;
    struct model m = { 0 };
    rpt_init(&s, (enum rpt_mode)(data[0] % 4));
    size_t limit = 1 + data[1] % 16;
    bool open_launch = false;   /* a profiled launch between arm and done */
    for (size_t i = 2; i < size; i++) {
        bool user = rpt_user_ranges(s.mode);
        unsigned steps;
        switch (data[i] % 8) {
        case 0:   /* a profiled launch (another thread's, when one is open) */
            steps = rpt_profiled(&s, limit);
            if ((steps & RPT_BUSY) != (user && m.pushed ? RPT_BUSY : 0u))
                abort();
            run(&s, &m, steps, user);
            if (steps & RPT_BUSY)
                break;
            if (!m.started || (user && !m.pushed))
                abort();
            rpt_count(&s);
            m.ranges++;
            open_launch = true;
            break;
        case 1:
            run(&s, &m, rpt_unprofiled(&s), user);
            if (!user && m.started)
                abort();
            break;
        case 2:
        case 3:   /* its call returned (3: failed) */
            if (!open_launch)
                break;
            open_launch = false;
            if (data[i] % 8 == 3) {
                rpt_uncount_failed(&s);
                if (!user && m.ranges > 0)
                    m.ranges--;
            }
            run(&s, &m, rpt_launch_done(&s, data[i] % 8 == 3), user);
            if (user && m.pushed)
                abort();
            break;
        case 4:
            run(&s, &m, rpt_flush(&s), user);
            break;
        case 5:
            if (rpt_count_late(&s))
                m.ranges++;
            break;
        case 6:   /* a restart refused by CUPTI */
            if (s.started)
                break;
            steps = rpt_start_failed(&s);
            if (steps && steps != (RPT_DECODE | RPT_INIT | RPT_START))
                abort();
            run(&s, &m, steps, rpt_user_ranges(s.mode));
            break;
        default:
            run(&s, &m, rpt_finish(&s), user);
            if (m.started || m.configured || m.pushed)
                abort();
            open_launch = false;
            break;
        }
        if (s.in_image != m.ranges || s.configured != m.configured || s.started != m.started ||
            s.pushed != m.pushed)
            abort();
    }
    return 0;
}
