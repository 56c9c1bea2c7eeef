/* names.c - kernel display names (docs/design.md §6), the seed's short names so
 * that per_kernel_metrics.csv keys match (the rules are inferred
 * from the seed's outputs, tests/fixtures/seed-reference). The full name stays
 * the key; the short name is, in this order:
 *   - "rocclr:" + the rest for ROCclr's blit kernels (__amd_rocclr_*);
 *   - a LAMMPS Kokkos kernel: "reduce " / "scan " for ParallelReduce /
 *     ParallelScan, the functor (the first LAMMPS_NS:: name, without its
 *     template arguments), then "::" and the tag (the next LAMMPS_NS::Tag...
 *     name with its template arguments, blanks removed) when there is one:
 *       hip_parallel_launch_constant_memory<Kokkos::Impl::ParallelFor<
 *         LAMMPS_NS::PairReaxFFKokkos<Kokkos::HIP>, Kokkos::RangePolicy<
 *         Kokkos::HIP, LAMMPS_NS::TagPairReaxComputeLJCoulomb<1, 1>>, ...>>()
 *       -> PairReaxFFKokkos::TagPairReaxComputeLJCoulomb<1,1>
 *   - another Kokkos kernel: "Kokkos::" + its Impl class (ParallelFor, ...);
 *   - else the first 80 characters of the full name.
 * Repeated short names get " #2", " #3", ... in row order. */
#include "metrics/metrics.h"

#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { SHORT_MAX = 80 };

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static size_t ident_len(const char *s)
{
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_')
        n++;
    return n;
}

/* Length of a balanced "<...>" at s (0 when s is not '<' or it never closes). */
static size_t targs_len(const char *s)
{
    if (*s != '<')
        return 0;
    int depth = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '<')
            depth++;
        else if (s[i] == '>' && --depth == 0)
            return i + 1;
    }
    return 0;
}

static const char ns[] = "LAMMPS_NS::";

/* "reduce Functor::Tag<...>" for a LAMMPS Kokkos kernel, NULL otherwise. */
static char *lammps(const char *full)
{
    const char *f = strstr(full, ns);
    if (!f || !ident_len(f + sizeof(ns) - 1))
        return NULL;
    f += sizeof(ns) - 1;
    size_t fn = ident_len(f);
    struct strbuf sb;
    sb_init(&sb);
    if (strstr(full, "Kokkos::Impl::ParallelReduce"))
        sb_adds(&sb, "reduce ");
    else if (strstr(full, "Kokkos::Impl::ParallelScan"))
        sb_adds(&sb, "scan ");
    sb_add(&sb, f, fn);
    for (const char *t = strstr(f + fn, ns); t; t = strstr(t + 1, ns)) {
        const char *tag = t + sizeof(ns) - 1;
        if (!starts(tag, "Tag"))
            continue;
        size_t tn = ident_len(tag);
        tn += targs_len(tag + tn);
        sb_adds(&sb, "::");
        for (size_t i = 0; i < tn; i++)
            if (!isspace((unsigned char)tag[i]))
                sb_addc(&sb, tag[i]);
        break;
    }
    return sb_detach(&sb);
}

/* "Kokkos::ParallelFor" (or Reduce, Scan) for another Kokkos kernel. */
static char *kokkos(const char *full)
{
    static const char impl[] = "Kokkos::Impl::Parallel";
    const char *k = strstr(full, impl);
    if (!k)
        return NULL;
    k += sizeof("Kokkos::Impl::") - 1;
    return xasprintf("Kokkos::%.*s", (int)ident_len(k), k);
}

char *mx_display_name(const char *full)
{
    const char *s = starts(full, "void ") ? full + 5 : full;
    if (starts(s, "__amd_rocclr_"))
        return xasprintf("rocclr:%s", s + strlen("__amd_rocclr_"));
    char *n = lammps(full);
    if (!n)
        n = kokkos(full);
    size_t len = strlen(full);   /* xstrndup copies n bytes: never past the NUL */
    return n ? n : xstrndup(full, len < SHORT_MAX ? len : SHORT_MAX);
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
