/* counterset.c - load a counter set (arch profile or counters JSON) and check
 * it against a rocprofv3 counter list (see counterset.h).
 *
 * Owns: the JSON walking for passes, counter_sets, per-block limits and the
 * counter names that metric definitions mention; the four checks of issue 3
 * (architecture, missing counters, per-block counts over the limits, metric
 * counters no pass collects). Messages name the file and JSON path.
 */
#include "read/counterset.h"

#include "arch/arch.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool arr_has(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

static void arr_push(char ***v, size_t *n, const char *s)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(char *));
    (*v)[(*n)++] = xstrdup(s);
}

static void arr_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void cs_block_of(const char *counter, struct strbuf *sb)
{
    sb_reset(sb);
    sb_add(sb, counter, strcspn(counter, "_"));
}

static json_t *load_json(const char *path)
{
    json_error_t e;
    json_t *root = fs_read_json(path, 0, &e);
    if (!root)
        br_error_at(path, e.line, e.column, "%s", e.text);
    else if (!json_is_object(root)) {
        br_error("%s: expected a JSON object at the top level", path);
        json_decref(root);
        root = NULL;
    }
    return root;
}

/* One {"name", "counters"} object of "passes" into cs. */
static int add_pass(struct counterset *cs, const char *file, size_t idx, json_t *p)
{
    const char *name = json_string_value(json_object_get(p, "name"));
    json_t *ctr = json_object_get(p, "counters"), *c;
    if (!name || !json_is_array(ctr))
        return br_error("%s: passes[%zu]: expected {\"name\": string, \"counters\": [...]}", file,
                        idx);
    cs->passes = xrealloc(cs->passes, (cs->npasses + 1) * sizeof(*cs->passes));
    struct cs_pass *ps = &cs->passes[cs->npasses++];
    *ps = (struct cs_pass){ .name = xstrdup(name) };
    size_t i;
    json_array_foreach(ctr, i, c) {
        if (!json_is_string(c))
            return br_error("%s: passes[%zu].counters[%zu]: expected a counter name", file, idx, i);
        arr_push(&ps->counters, &ps->n, json_string_value(c));
    }
    return 0;
}

static json_t *find_pass(json_t *root, const char *name)
{
    json_t *p;
    size_t i;
    json_array_foreach(json_object_get(root, "passes"), i, p) {
        const char *n = json_string_value(json_object_get(p, "name"));
        if (n && strcmp(n, name) == 0)
            return p;
    }
    return NULL;
}

/* Passes of counter set `set` of a profile: counter_sets.<set> lists names. */
static int load_named_set(struct counterset *cs, const char *file, json_t *root, const char *set)
{
    json_t *names = json_object_get(json_object_get(root, "counter_sets"), set), *n;
    if (!json_is_array(names))
        return br_error("%s: counter_sets.%s: no such counter set (and no file of that name)",
                        file, set);
    size_t i;
    json_array_foreach(names, i, n) {
        json_t *p = json_is_string(n) ? find_pass(root, json_string_value(n)) : NULL;
        if (!p)
            return br_error("%s: counter_sets.%s[%zu]: expected the name of an entry of \"passes\"",
                            file, set, i);
        if (add_pass(cs, file, i, p) != 0)
            return -1;
    }
    return 0;
}

static int load_all_passes(struct counterset *cs, const char *file, json_t *root)
{
    json_t *ps = json_object_get(root, "passes"), *p;
    if (!json_is_array(ps) || json_array_size(ps) == 0)
        return br_error("%s: passes: expected a non-empty array of passes", file);
    size_t i;
    json_array_foreach(ps, i, p)
        if (add_pass(cs, file, i, p) != 0)
            return -1;
    return 0;
}

static int load_limits(struct counterset *cs, const char *file, json_t *root)
{
    static const char *const keys[] = { "pass_limits", "block_limits", "limits", NULL };
    json_t *lim = NULL, *v;
    for (int i = 0; keys[i] && !json_is_object(lim); i++)
        lim = json_object_get(root, keys[i]);
    if (!json_is_object(lim))
        return 0;
    const char *k;
    json_object_foreach(lim, k, v) {
        if (!json_is_integer(v))
            return br_error("%s: limits.%s: expected an integer (counters per pass)", file, k);
        cs->limits = xrealloc(cs->limits, (cs->nlimits + 1) * sizeof(*cs->limits));
        cs->limits[cs->nlimits++] = (struct cs_limit){ xstrdup(k), (long)json_integer_value(v) };
    }
    return 0;
}

static void collect_profile_counters(struct counterset *cs, json_t *root)
{
    json_t *p, *c;
    size_t i, j;
    json_array_foreach(json_object_get(root, "passes"), i, p)
        json_array_foreach(json_object_get(p, "counters"), j, c)
            if (json_is_string(c) && !arr_has(cs->profile_ctr, cs->nprofile_ctr,
                                              json_string_value(c)))
                arr_push(&cs->profile_ctr, &cs->nprofile_ctr, json_string_value(c));
}

/* A token names a counter when some pass collects it or its prefix is a
 * limited block (SQ_..., TCC_...). */
static bool looks_like_counter(const struct counterset *cs, const char *tok)
{
    if (arr_has(cs->profile_ctr, cs->nprofile_ctr, tok))
        return true;
    size_t b = strcspn(tok, "_");
    if (!tok[b] || !tok[b + 1])
        return false;
    for (size_t i = 0; i < cs->nlimits; i++)
        if (strlen(cs->limits[i].block) == b && strncmp(cs->limits[i].block, tok, b) == 0)
            return true;
    return false;
}

static void scan_string(struct counterset *cs, const char *metric, const char *s)
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
        if (looks_like_counter(cs, tok) && !arr_has(cs->metric_ctr, cs->nmetric_ctr, tok)) {
            size_t m = cs->nmetric_ctr;
            arr_push(&cs->metric_ctr, &cs->nmetric_ctr, tok);
            arr_push(&cs->metric_of, &m, metric);
        }
        free(tok);
        s += n;
    }
}

/* Walks any JSON value, scanning every string; metric = top-level name. */
static void scan_value(struct counterset *cs, const char *metric, json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_string(v))
        scan_string(cs, metric, json_string_value(v));
    else if (json_is_object(v))
        json_object_foreach(v, k, x)
            scan_value(cs, metric, x);
    else if (json_is_array(v))
        json_array_foreach(v, i, x)
            scan_value(cs, metric, x);
}

static void scan_metrics(struct counterset *cs, json_t *root)
{
    json_t *m = json_object_get(root, "metrics"), *x;
    const char *k;
    size_t i;
    if (json_is_object(m))
        json_object_foreach(m, k, x)
            scan_value(cs, k, x);
    else if (json_is_array(m))
        json_array_foreach(m, i, x) {
            const char *n = json_string_value(json_object_get(x, "name"));
            scan_value(cs, n ? n : "?", x);
        }
}

static const char *file_arch(json_t *file)
{
    return file ? json_string_value(json_object_get(file, "arch")) : NULL;
}

static int load_sources(struct counterset *cs, const char *set, json_t *file, json_t *prof,
                        const char *prof_path)
{
    if (file) {
        if (load_all_passes(cs, set, file) != 0 || load_limits(cs, set, file) != 0)
            return -1;
        collect_profile_counters(cs, file);
    } else if (load_named_set(cs, prof_path, prof, set) != 0) {
        return -1;
    }
    if (prof) {
        if (cs->nlimits == 0 && load_limits(cs, prof_path, prof) != 0)
            return -1;
        collect_profile_counters(cs, prof);
    }
    bool file_metrics = file && json_object_get(file, "metrics");
    scan_metrics(cs, file_metrics ? file : prof);
    return 0;
}

int cs_load(struct counterset *cs, const char *set, const char *arch)
{
    memset(cs, 0, sizeof(*cs));
    bool is_file = fs_exists(set) && !fs_is_dir(set);
    json_t *file = is_file ? load_json(set) : NULL;
    if (is_file && !file)
        return -1;
    const char *a = arch ? arch : file_arch(file) ? file_arch(file) : "gfx942";
    char *rel = xasprintf("arch/%s.json", arch_profile_name(a));
    char *prof_path = is_file ? NULL : fs_share_path(rel);
    if (is_file) {                     /* the profile is optional next to a file */
        char *dir = fs_share_dir();
        prof_path = dir ? fs_path_join(dir, rel) : NULL;
        free(dir);
    }
    json_t *prof = prof_path && fs_exists(prof_path) ? load_json(prof_path) : NULL;
    int rc = (!is_file && !prof) ? br_error("no arch profile for '%s' (looked for %s)", a, rel) : 0;
    *cs = (struct counterset){ .name = xstrdup(set), .arch = xstrdup(a),
                               .source = xstrdup(is_file ? set : prof_path ? prof_path : rel) };
    if (rc == 0)
        rc = load_sources(cs, set, file, prof, prof_path);
    json_decref(file);
    json_decref(prof);
    free(rel);
    free(prof_path);
    if (rc != 0)
        cs_release(cs);
    return rc;
}

void cs_release(struct counterset *cs)
{
    for (size_t i = 0; i < cs->npasses; i++) {
        free(cs->passes[i].name);
        arr_free(cs->passes[i].counters, cs->passes[i].n);
    }
    for (size_t i = 0; i < cs->nlimits; i++)
        free(cs->limits[i].block);
    free(cs->passes);
    free(cs->limits);
    arr_free(cs->metric_ctr, cs->nmetric_ctr);
    arr_free(cs->metric_of, cs->nmetric_ctr);
    arr_free(cs->profile_ctr, cs->nprofile_ctr);
    free(cs->name);
    free(cs->arch);
    free(cs->source);
    memset(cs, 0, sizeof(*cs));
}

/* ---- checks ---- */

static bool set_collects(const struct counterset *cs, const char *c)
{
    for (size_t p = 0; p < cs->npasses; p++)
        if (arr_has(cs->passes[p].counters, cs->passes[p].n, c))
            return true;
    return false;
}

static int check_arch(const struct counterset *cs, const struct counterlist *cl,
                      struct strbuf *problems, struct strbuf *notes)
{
    size_t n;
    const char **archs = cl_archs(cl, &n);
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
    const char **archs = cl_archs(cl, &n);
    bool has_arch = false;
    for (size_t i = 0; i < n; i++)
        has_arch |= strcmp(archs[i], cs->arch) == 0;
    free(archs);
    const char *arch = has_arch ? cs->arch : NULL;
    for (size_t p = 0; p < cs->npasses; p++)
        for (size_t i = 0; i < cs->passes[p].n; i++) {
            const char *c = cs->passes[p].counters[i];
            const struct cl_entry *e = cl_find(cl, c, arch);
            if (!e) {
                sb_addf(problems, "pass %s: counter %s is not in the list%s%s\n",
                        cs->passes[p].name, c, arch ? " for " : "", arch ? arch : "");
                bad++;
            } else if (e->constant) {
                sb_addf(notes, "pass %s: %s is a constant, not a counter\n", cs->passes[p].name, c);
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
static int check_pass_blocks(const struct counterset *cs, const struct cs_pass *ps,
                             const struct counterlist *cl, struct strbuf *problems)
{
    int bad = 0;
    struct strbuf b, b2;
    sb_init(&b);
    sb_init(&b2);
    for (size_t i = 0; i < ps->n; i++) {
        cs_block_of(ps->counters[i], &b);
        bool first = true;
        long count = 0;
        for (size_t j = 0; j < ps->n; j++) {
            const struct cl_entry *e = cl ? cl_find(cl, ps->counters[j], cs->arch) : NULL;
            cs_block_of(ps->counters[j], &b2);
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
    for (size_t i = 0; i < cs->nmetric_ctr; i++) {
        const char *c = cs->metric_ctr[i];
        if (set_collects(cs, c))
            continue;
        if (arr_has(cs->profile_ctr, cs->nprofile_ctr, c)) {
            sb_addf(notes, "%s (metric %s) is not collected by this set: that metric stays "
                           "empty\n", c, cs->metric_of[i]);
        } else {
            sb_addf(problems, "metric %s uses %s, which no pass collects\n", cs->metric_of[i], c);
            bad++;
        }
    }
    return bad;
}

int cs_check(const struct counterset *cs, const struct counterlist *cl, struct strbuf *problems,
             struct strbuf *notes)
{
    int bad = check_arch(cs, cl, problems, notes);
    bad += check_available(cs, cl, problems, notes);
    for (size_t p = 0; p < cs->npasses; p++)
        bad += check_pass_blocks(cs, &cs->passes[p], cl, problems);
    if (cs->nlimits == 0)
        sb_adds(notes, "no per-block pass limits known: block counts not checked\n");
    bad += check_metric_inputs(cs, problems, notes);
    return bad;
}
