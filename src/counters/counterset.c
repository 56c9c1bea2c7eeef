/* counterset.c - load a counter set (arch profile or counters file) and check
 * it against a counter list (see counterset.h).
 *
 * Owns: the counters that metric definitions mention, and the four checks of
 * `benchrun counters check` (architecture, missing counters, per-block counts
 * over the limits, metric counters no pass collects). Messages name the file
 * and JSON path. The files are read by arch/ (arch_load, arch_passes_load).
 */
#include "counters/counterset.h"

#include "arch/arch.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void counterset_block_of(const char *counter, struct strbuf *sb)
{
    sb_reset(sb);
    sb_add(sb, counter, strcspn(counter, "_"));
}

static void add_limit(struct counterset *cs, const char *block, long max)
{
    cs->limits = xrealloc(cs->limits, (cs->nlimits + 1) * sizeof(*cs->limits));
    cs->limits[cs->nlimits++] = (struct counterset_limit){ xstrdup(block), max };
}

static void add_counters(struct counterset *cs, const struct arch_pass *v, size_t n)
{
    for (size_t p = 0; p < n; p++)
        for (size_t c = 0; c < v[p].counters.n; c++)
            if (!strv_has(&cs->profile_ctr, v[p].counters.v[c]))
                strv_push(&cs->profile_ctr, v[p].counters.v[c]);
}

static void add_metric_ref(struct counterset *cs, const char *counter, const char *metric)
{
    if (strv_has(&cs->metric_ctr, counter))
        return;
    strv_push(&cs->metric_ctr, counter);
    strv_push(&cs->metric_of, metric);
}

/* A token names a counter when some pass collects it or its prefix is a
 * limited block (SQ_..., TCC_...). */
static bool looks_like_counter(const struct counterset *cs, const char *tok)
{
    if (strv_has(&cs->profile_ctr, tok))
        return true;
    size_t b = strcspn(tok, "_");
    if (!tok[b] || !tok[b + 1])
        return false;
    for (size_t i = 0; i < cs->nlimits; i++)
        if (strlen(cs->limits[i].block) == b && strncmp(cs->limits[i].block, tok, b) == 0)
            return true;
    return false;
}

/* The names in a free-text formula of a counters file. */
static void scan_text(struct counterset *cs, const char *metric, const char *s)
{
    while (*s) {
        if (!(isalpha((unsigned char)*s) || *s == '_')) {
            s++;
            continue;
        }
        size_t n = 0;
        while (isalnum((unsigned char)s[n]) || s[n] == '_')
            n++;
        char *tok = xstrndup(s, n);
        if (looks_like_counter(cs, tok))
            add_metric_ref(cs, tok, metric);
        free(tok);
        s += n;
    }
}

struct metric_ref {
    struct counterset *cs;
    const char *metric;
};

static void profile_ref(void *ctx, const char *counter)
{
    struct metric_ref *r = ctx;
    add_metric_ref(r->cs, counter, r->metric);
}

/* What the profile adds: its limits when the file has none, its counters,
 * and its metrics' counters when the file has no formulas. */
static void from_profile(struct counterset *cs, const struct arch_profile *ap, bool formulas)
{
    for (int i = 0; cs->nlimits == 0 && i < ap->nblocks; i++)
        add_limit(cs, ap->blocks[i], ap->block_limit[i]);
    add_counters(cs, ap->passes, (size_t)ap->npasses);
    for (int m = 0; !formulas && m < ap->nmetrics; m++) {
        struct metric_ref r = { cs, ap->metrics[m].name };
        arch_metric_counters(ap, m, profile_ref, &r);
    }
}

/* A counters file, with the profile of its architecture when there is one. */
static int load_file(struct counterset *cs, const char *set, const char *arch)
{
    if (arch_passes_load_file(&cs->passes, set) != 0)
        return -1;
    const struct arch_passes *f = &cs->passes;
    cs->arch = xstrdup(arch ? arch : f->file_arch ? f->file_arch
                                  : arch_default(GPU_VENDOR_UNKNOWN));
    cs->source = xstrdup(set);
    for (int i = 0; i < f->nblocks; i++)
        add_limit(cs, f->blocks[i], f->block_limit[i]);
    add_counters(cs, f->v, f->n);
    char *path = arch_path_for(cs->arch);     /* optional next to a file */
    struct arch_profile *ap = path && fs_exists(path) ? arch_load(path, NULL, 0) : NULL;
    free(path);
    if (ap)
        from_profile(cs, ap, f->metric_texts.n > 0);
    for (size_t i = 0; i < f->metric_texts.n; i++)
        scan_text(cs, f->metric_names.v[i], f->metric_texts.v[i]);
    arch_free(ap);
    return 0;
}

/* A counter set of a profile. */
static int load_set(struct counterset *cs, const char *set, const char *arch)
{
    cs->arch = xstrdup(arch ? arch : arch_default(GPU_VENDOR_UNKNOWN));
    char *path = arch_profile_path(cs->arch, NULL);
    struct arch_profile *ap = path ? arch_load(path, NULL, 0) : NULL;
    free(path);
    int rc = ap ? arch_passes_from_profile(&cs->passes, ap, set) : -1;
    if (rc == 0) {
        cs->source = xstrdup(ap->path);
        from_profile(cs, ap, false);
    }
    arch_free(ap);
    return rc;
}

int counterset_load(struct counterset *cs, const char *set, const char *arch)
{
    memset(cs, 0, sizeof(*cs));         /* zeroed strvs and passes take pushes */
    cs->name = xstrdup(set);
    int rc = arch_set_is_file(set) ? load_file(cs, set, arch) : load_set(cs, set, arch);
    if (rc != 0)
        counterset_release(cs);
    return rc;
}

void counterset_release(struct counterset *cs)
{
    arch_passes_release(&cs->passes);
    for (size_t i = 0; i < cs->nlimits; i++)
        free(cs->limits[i].block);
    free(cs->limits);
    strv_release(&cs->metric_ctr);
    strv_release(&cs->metric_of);
    strv_release(&cs->profile_ctr);
    free(cs->name);
    free(cs->arch);
    free(cs->source);
    memset(cs, 0, sizeof(*cs));
}

/* ---- checks ---- */

static bool set_collects(const struct counterset *cs, const char *c)
{
    for (size_t p = 0; p < cs->passes.n; p++)
        if (strv_has(&cs->passes.v[p].counters, c))
            return true;
    return false;
}

static int check_arch(const struct counterset *cs, const struct counterlist *cl,
                      struct strbuf *problems, struct strbuf *notes)
{
    size_t n;
    const char **archs = counterlist_archs(cl, &n);
    int bad = 0;
    if (n == 0) {
        sb_addf(notes, "the list (layout %s) does not name the architecture: cannot confirm %s\n",
                cl->layout, cs->arch);
    } else if (n != 1 || strcmp(archs[0], cs->arch) != 0) {
        sb_adds(problems, "architectures in the list:");
        for (size_t i = 0; i < n; i++)
            sb_addf(problems, " %s", archs[i]);
        sb_addf(problems, "; the set is for %s only (a list made on a login node or another "
                          "node type shows another GPU)\n", cs->arch);
        bad = 1;
    }
    free(archs);
    return bad;
}

static int check_available(const struct counterset *cs, const struct counterlist *cl,
                           struct strbuf *problems, struct strbuf *notes)
{
    int bad = 0;
    /* Wrong GPU in the list (already a problem): still name the counters that
     * GPU lacks, rather than every counter. */
    size_t n;
    const char **archs = counterlist_archs(cl, &n);
    bool has_arch = false;
    for (size_t i = 0; i < n; i++)
        has_arch |= strcmp(archs[i], cs->arch) == 0;
    free(archs);
    const char *arch = has_arch ? cs->arch : NULL;
    for (size_t p = 0; p < cs->passes.n; p++)
        for (size_t i = 0; i < cs->passes.v[p].counters.n; i++) {
            const char *c = cs->passes.v[p].counters.v[i];
            const struct counterlist_entry *e = counterlist_find(cl, c, arch);
            if (!e) {
                sb_addf(problems, "pass %s: counter %s is not in the list%s%s\n",
                        cs->passes.v[p].name, c, arch ? " for " : "", arch ? arch : "");
                bad++;
            } else if (e->constant) {
                sb_addf(notes, "pass %s: %s is a constant, not a counter\n", cs->passes.v[p].name, c);
            }
        }
    return bad;
}

static long limit_of(const struct counterset *cs, const char *block)
{
    for (size_t i = 0; i < cs->nlimits; i++)
        if (strcmp(cs->limits[i].block, block) == 0)
            return cs->limits[i].max;
    return -1;
}

/* Counters per block in one pass against the limits; a *_sum uses one slot. */
static int check_pass_blocks(const struct counterset *cs, const struct arch_pass *ps,
                             const struct counterlist *cl, struct strbuf *problems)
{
    int bad = 0;
    struct strbuf b, b2;
    sb_init(&b);
    sb_init(&b2);
    for (size_t i = 0; i < ps->counters.n; i++) {
        counterset_block_of(ps->counters.v[i], &b);
        bool first = true;
        long count = 0;
        for (size_t j = 0; j < ps->counters.n; j++) {
            const struct counterlist_entry *e =
                cl ? counterlist_find(cl, ps->counters.v[j], cs->arch) : NULL;
            counterset_block_of(ps->counters.v[j], &b2);
            if (strcmp(b.buf, b2.buf) != 0 || (e && e->constant))
                continue;
            first &= j >= i;
            count++;
        }
        long max = limit_of(cs, b.buf);
        if (first && max >= 0 && count > max) {
            sb_addf(problems, "pass %s: block %s has %ld counters, limit %ld per pass\n", ps->name,
                    b.buf, count, max);
            bad++;
        }
    }
    sb_release(&b);
    sb_release(&b2);
    return bad;
}

static int check_metric_inputs(const struct counterset *cs, struct strbuf *problems,
                               struct strbuf *notes)
{
    int bad = 0;
    for (size_t i = 0; i < cs->metric_ctr.n; i++) {
        const char *c = cs->metric_ctr.v[i];
        if (set_collects(cs, c))
            continue;
        if (strv_has(&cs->profile_ctr, c)) {
            sb_addf(notes, "%s (metric %s) is not collected by this set: that metric stays "
                           "empty\n", c, cs->metric_of.v[i]);
        } else {
            sb_addf(problems, "metric %s uses %s, which no pass collects\n", cs->metric_of.v[i], c);
            bad++;
        }
    }
    return bad;
}

int counterset_check(const struct counterset *cs, const struct counterlist *cl,
                     struct strbuf *problems, struct strbuf *notes)
{
    int bad = check_arch(cs, cl, problems, notes);
    bad += check_available(cs, cl, problems, notes);
    for (size_t p = 0; p < cs->passes.n; p++)
        bad += check_pass_blocks(cs, &cs->passes.v[p], cl, problems);
    if (cs->nlimits == 0)
        sb_adds(notes, "no per-block pass limits known: block counts not checked\n");
    bad += check_metric_inputs(cs, problems, notes);
    return bad;
}
