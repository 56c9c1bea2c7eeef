/* error.h - error reporting for benchrun: one format, one place.
 *
 * Library code reports with br_error()/br_error_at() and returns -1 (or NULL);
 * only src/cli decides the exit status. Messages follow
 *   benchrun: <what>: <why>
 * and name file and line where there is one (GNU "file:line:col:" order).
 */
#ifndef BR_ERROR_H
#define BR_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* Exit statuses of the command line (docs/design.md §13). */
enum br_exit { BR_EXIT_OK = 0, BR_EXIT_FAIL = 1, BR_EXIT_USAGE = 2 };

/* Prints "benchrun: <msg>\n" to stderr; always returns -1. */
int br_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "benchrun: <file>:<line>[:<col>]: <msg>\n"; line/col 0 are omitted.
 * Always returns -1. */
int br_error_at(const char *file, long line, long col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints "benchrun: warning: <msg>\n" to stderr. */
void br_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Capture mode for tests and for code that must collect messages (e.g. the
 * analysis warnings list): when a sink is set, messages go to it instead of
 * stderr. The sink gets the formatted message without prefix or newline. */
typedef void (*br_error_sink)(void *ctx, int is_warning, const char *msg);
void br_error_set_sink(br_error_sink sink, void *ctx);
/* The sink set now (NULL: stderr), to put it back after a capture. */
void br_error_get_sink(br_error_sink *sink, void **ctx);

#endif
