/* xalloc.h - checked allocation helpers.
 *
 * benchrun is a command-line tool: running out of memory is not recoverable
 * in any useful way, so these print one message and abort instead of
 * threading NULL checks through every caller. Library code that must survive
 * (none today) uses plain malloc.
 */
#ifndef BR_XALLOC_H
#define BR_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows *p (an array of elem-size items, capacity *cap) to hold need items. */
void xgrow(void **p, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* vprintf into a new string, or NULL when out of memory: the one helper here
 * that does not abort, for error paths that still say something without it. */
char *try_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
