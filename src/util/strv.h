/* strv.h - growable NULL-terminated string vector (argv arrays).
 *
 * Invariant: v is never NULL after strv_init and v[n] == NULL, so v can be
 * passed to execvp directly. Strings are owned copies. Used for every command
 * benchrun runs: commands are argv arrays, never shell strings.
 */
#ifndef BR_STRV_H
#define BR_STRV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strv {
    char **v;
    size_t n;
    size_t cap;
};

void strv_init(struct strv *sv);
/* Frees the strings and the array; sv is left zeroed: pushes work again,
 * strv_init makes v a NULL-terminated argv again. */
void strv_release(struct strv *sv);
void strv_push(struct strv *sv, const char *s);
void strv_pushf(struct strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_pushva(struct strv *sv, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void strv_pushv(struct strv *sv, const char *const *v);   /* NULL-terminated */
void strv_extend(struct strv *sv, const struct strv *other);
/* Deep copy of other into sv (sv must be initialized or zeroed). */
void strv_copy(struct strv *sv, const struct strv *other);
/* Whether s is one of sv's strings (a linear scan: for short lists). */
bool strv_has(const struct strv *sv, const char *s);
/* Frees a NULL-terminated array of strings and the array (NULL: nothing). */
void str_array_free(char **v);
/* The argv as a shell-quoted line (for display only); caller frees. */
char *strv_quoted(const struct strv *sv);

#endif
