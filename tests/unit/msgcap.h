/* msgcap.h - unit-test helper: capture benchrun's errors and warnings.
 *
 * msgcap_start() routes br_error/br_warn into g_msgs (one line per message,
 * warnings prefixed "warning: "); msgcap_stop() restores stderr and frees
 * it. Header-only: each test program includes it once. */
#ifndef BR_TEST_MSGCAP_H
#define BR_TEST_MSGCAP_H

#include "util/error.h"
#include "util/strbuf.h"

static struct strbuf g_msgs;

static void msgcap_sink(void *ctx, int is_warning, const char *msg)
{
    (void)ctx;
    sb_addf(&g_msgs, "%s%s\n", is_warning ? "warning: " : "", msg);
}

static inline void msgcap_start(void)
{
    sb_init(&g_msgs);
    br_error_set_sink(msgcap_sink, NULL);
}

static inline void msgcap_stop(void)
{
    br_error_set_sink(NULL, NULL);
    sb_release(&g_msgs);
}

/* The same as cmocka fixtures around a test or a group. */
static inline int msgcap_setup(void **state)
{
    (void)state;
    msgcap_start();
    return 0;
}

static inline int msgcap_teardown(void **state)
{
    (void)state;
    msgcap_stop();
    return 0;
}

#endif
