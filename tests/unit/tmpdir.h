/* tmpdir.h - unit-test helpers: a fresh folder /tmp/br_<tag>.XXXXXX (the
 * caller frees the name) and its removal. Header-only; include it after
 * cmocka.h. */
#ifndef BR_TEST_TMPDIR_H
#define BR_TEST_TMPDIR_H

#include "util/xalloc.h"

#include <stdlib.h>

static inline char *tmpdir_new(const char *tag)
{
    char *d = xasprintf("/tmp/br_%s.XXXXXX", tag);
    assert_non_null(mkdtemp(d));
    return d;
}

/* rm -rf of a test folder: 0, or -1. */
static inline int tmpdir_remove(const char *d)
{
    char *cmd = xasprintf("rm -rf '%s'", d);
    int rc = system(cmd);
    free(cmd);
    return rc == 0 ? 0 : -1;
}

#endif
