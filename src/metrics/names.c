/* names.c - kernel display names (METRICS.md §2): the full name stays the
 * key; the short name drops "void ", the parameter list and ".kd", and
 * reduces the Kokkos launch wrapper
 *   hip_parallel_launch_constant_memory<Kokkos::Impl::ParallelFor<F, Kokkos::RangePolicy<..., Tag>, Kokkos::HIP>>
 * to "F [Tag]" (CombinedFunctorReducer<F, R> gives F). Short names are made
 * unique with " #2", " #3", ... */
#include "metrics/metrics.h"

#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Top-level template arguments of s[open..] where s[open] == '<': up to max
 * spans (start, length), trimmed. Returns the count, -1 if unbalanced. */
static int targs(const char *s, size_t open, size_t *st, size_t *ln, int max)
{
    int depth = 0, n = 0;
    size_t a = open + 1;
    for (size_t i = open; s[i]; i++) {
        char c = s[i];
        if (c == '<' || c == '(')
            depth++;
        else if (c == '>' || c == ')')
            depth--;
        if ((c == ',' && depth == 1) || depth == 0) {
            size_t b = i;
            while (a < b && isspace((unsigned char)s[a]))
                a++;
            while (b > a && isspace((unsigned char)s[b - 1]))
                b--;
            if (n < max) {
                st[n] = a;
                ln[n] = b - a;
            }
            n++;
            a = i + 1;
            if (depth == 0)
                return n < max ? n : max;
        }
    }
    return -1;
}

static char *span(const char *s, size_t st, size_t ln)
{
    return xstrndup(s + st, ln);
}

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* First argument of X<...> when s starts with prefix X<, else NULL. */
static char *first_arg(const char *s, const char *prefix)
{
    size_t st[2], ln[2];
    if (!starts(s, prefix) || targs(s, strlen(prefix) - 1, st, ln, 2) < 1)
        return NULL;
    return span(s, st[0], ln[0]);
}

/* Kokkos: "F [Tag]" or NULL when s is not the wrapper. */
static char *kokkos(const char *s)
{
    if (!starts(s, "hip_parallel_launch_") && !starts(s, "cuda_parallel_launch_"))
        return NULL;
    const char *lt = strchr(s, '<');
    size_t st[4], ln[4];
    if (!lt || targs(s, (size_t)(lt - s), st, ln, 1) < 1)
        return NULL;
    char *inner = span(s, st[0], ln[0]);
    const char *q = strchr(inner, '<');
    int n = starts(inner, "Kokkos::Impl::Parallel") && q ? targs(inner, (size_t)(q - inner), st, ln, 4) : -1;
    if (n < 1) {
        free(inner);
        return NULL;
    }
    char *f = span(inner, st[0], ln[0]);
    char *g = first_arg(f, "Kokkos::Impl::CombinedFunctorReducer<");
    if (g) {
        free(f);
        f = g;
    }
    char *tag = NULL;
    if (n >= 2) {
        char *pol = span(inner, st[1], ln[1]);
        const char *pl = strchr(pol, '<');
        size_t ps[8], pn[8];
        int m = pl ? targs(pol, (size_t)(pl - pol), ps, pn, 8) : 0;
        for (int i = m - 1; i >= 0 && !tag; i--)
            if (!starts(pol + ps[i], "Kokkos::") && !isdigit((unsigned char)pol[ps[i]]))
                tag = span(pol, ps[i], pn[i]);
        free(pol);
    }
    free(inner);
    char *out = tag ? xasprintf("%s [%s]", f, tag) : xstrdup(f);
    free(f);
    free(tag);
    return out;
}

/* Drops "void ", the parameter list (first '(' outside <>) and ".kd". */
static char *plain(const char *s)
{
    if (starts(s, "void "))
        s += 5;
    size_t n = strlen(s), cut = n;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<')
            depth++;
        else if (s[i] == '>' && depth > 0)
            depth--;
        else if (s[i] == '(' && depth == 0 && i > 0) {
            cut = i;
            break;
        }
    }
    while (cut > 0 && isspace((unsigned char)s[cut - 1]))
        cut--;
    if (cut > 3 && !strncmp(s + cut - 3, ".kd", 3))
        cut -= 3;
    return cut ? xstrndup(s, cut) : xstrdup(s);
}

char *mx_display_name(const char *full)
{
    char *p = plain(full);
    char *k = kokkos(p);
    if (k) {
        free(p);
        return k;
    }
    return p;
}

void mx_unique_names(char **names, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int dup = 1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(names[i], names[j]))
                dup++;
        if (dup == 1)
            continue;
        for (int tries = dup;; tries++) {
            char *cand = xasprintf("%s #%d", names[i], tries);
            bool clash = false;
            for (size_t j = 0; j < n && !clash; j++)
                clash = j != i && !strcmp(names[j], cand);
            if (!clash) {
                free(names[i]);
                names[i] = cand;
                break;
            }
            free(cand);
        }
    }
}
