/* sigsafe.h - async-signal-safe text output for crash reports (no malloc, no stdio).
 *
 * Used by libbenchrun-cupti.so's fatal-signal reporter (src/trace/cupti/inject.c),
 * which runs inside a SIGSEGV/SIGBUS handler of the profiled application: only
 * write(2) and stack buffers here (POSIX.1-2017 2.4.3 lists write as
 * async-signal-safe; snprintf is not).
 */
#ifndef BR_SIGSAFE_H
#define BR_SIGSAFE_H

#include <stddef.h>
#include <stdint.h>

/* Writes v in base 10 or 16 (lower case, no prefix) into buf, NUL-terminated;
 * returns the number of digits, or 0 when cap is too small or base unsupported
 * (buf then holds "" when cap > 0). */
size_t ss_utoa(char *buf, size_t cap, uint64_t v, unsigned base);

/* Appends s to buf (length *len, capacity cap, always NUL-terminated); text
 * that does not fit is cut. Returns the new length. */
size_t ss_append(char *buf, size_t cap, size_t *len, const char *s);
/* Appends v in the given base (see ss_utoa). */
size_t ss_append_u(char *buf, size_t cap, size_t *len, uint64_t v, unsigned base);

/* write(2) of all of s to fd, retrying on EINTR and short writes. */
void ss_write(int fd, const char *s);

#endif
