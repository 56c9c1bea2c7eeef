/* strv.c - growable NULL-terminated string vector (argv arrays). */
#include "util/strv.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strv_init(struct strv *sv)
{
    sv->cap = 4;
    sv->n = 0;
    sv->v = xcalloc(sv->cap, sizeof(*sv->v));
}

void strv_release(struct strv *sv)
{
    if (sv->v)
        for (size_t i = 0; i < sv->n; i++)
            free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

static void strv_take(struct strv *sv, char *s)
{
    if (!sv->v)
        strv_init(sv);
    if (sv->n + 2 > sv->cap) {
        sv->cap *= 2;
        sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
}

void strv_push(struct strv *sv, const char *s)
{
    strv_take(sv, xstrdup(s));
}

void strv_pushva(struct strv *sv, const char *fmt, va_list ap)
{
    char *s = try_vasprintf(fmt, ap);
    if (!s)
        s = xstrdup("");   /* vasprintf fails only on OOM; xstrdup aborts then */
    strv_take(sv, s);
}

void strv_pushf(struct strv *sv, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strv_pushva(sv, fmt, ap);
    va_end(ap);
}

void strv_pushv(struct strv *sv, const char *const *v)
{
    for (size_t i = 0; v && v[i]; i++)
        strv_push(sv, v[i]);
}

void strv_extend(struct strv *sv, const struct strv *other)
{
    for (size_t i = 0; i < other->n; i++)
        strv_push(sv, other->v[i]);
}

bool strv_has(const struct strv *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return true;
    return false;
}

void strv_copy(struct strv *sv, const struct strv *other)
{
    strv_init(sv);
    strv_extend(sv, other);
}

char *strv_quoted(const struct strv *sv)
{
    struct strbuf sb;
    sb_init(&sb);
    if (sv->v)
        sh_quote_argv(&sb, (const char *const *)sv->v);
    return sb_detach(&sb);
}

void str_array_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}
