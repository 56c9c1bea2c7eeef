/* tmpdir.h - unit-test helper: a fresh folder /tmp/br_<tag>.XXXXXX (the
 * caller frees the name and removes the folder). Header-only; include it
 * after cmocka.h. */
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

#endif
