/* passes.c - counter sets: a profile's "counter_sets" entry or a counters
 * file, read into struct arch_passes (format and rules in passes.h). The
 * counters-file format is read here and nowhere else; profiles through
 * arch_open. */
#include "arch/passes.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/textesc.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

bool arch_set_is_file(const char *set)
{
    return arch_names_file(set) || (fs_exists(set) && !fs_is_dir(set));
}

struct arch_pass *arch_passes_add(struct arch_passes *out, const char *name)
{
    out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
    struct arch_pass *p = &out->v[out->n++];
    memset(p, 0, sizeof(*p));
    p->name = xstrdup(name);
    /* counters zeroed: pushes and strv_copy fill it */
    return p;
}

/* passes[idx] of a counters file: a safe name, not listed before. */
static int check_name(const struct arch_passes *out, const char *file, size_t idx, json_t *name)
{
    const char *n = json_string_value(name), *why = arch_pass_name_problem(n);
    if (!json_is_string(name))
        return br_error("%s: passes[%zu]: expected {\"name\": \"<folder name>\", \"counters\": "
                        "[...]}", file, idx);
    if (why)
        return br_error("%s: passes[%zu].name: pass name '%s' %s", file, idx, n, why);
    for (size_t j = 0; j < out->n; j++)
        if (!strcmp(out->v[j].name, n))
            return br_error("%s: passes[%zu].name: pass '%s' is listed twice (passes[%zu] too)",
                            file, idx, n, j);
    return 0;
}

static int file_pass(struct arch_passes *out, const char *file, size_t idx, json_t *o)
{
    json_t *ctrs = json_object_get(o, "counters"), *label = json_object_get(o, "label"), *c;
    if (check_name(out, file, idx, json_object_get(o, "name")) != 0)
        return -1;
    if (ctrs && !json_is_array(ctrs))
        return br_error("%s: passes[%zu].counters: expected an array of counter names", file, idx);
    if (label && !json_is_string(label))
        return br_error("%s: passes[%zu].label: expected a string", file, idx);
    struct arch_pass *p = arch_passes_add(out, json_string_value(json_object_get(o, "name")));
    p->label = label ? xstrdup(json_string_value(label)) : NULL;
    size_t i;
    json_array_foreach(ctrs, i, c) {
        if (!json_is_string(c))
            return br_error("%s: passes[%zu].counters[%zu]: expected a counter name", file, idx, i);
        strv_push(&p->counters, json_string_value(c));
    }
    return 0;
}

/* The block limits of a counters file: "block_limits", else the seed's
 * "pass_limits" or "limits". */
static int file_limits(struct arch_passes *out, const char *file, json_t *root)
{
    static const char *const keys[] = { "block_limits", "pass_limits", "limits" };
    json_t *lim = NULL, *v;
    const char *key = NULL, *k;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && !lim; i++)
        if ((lim = json_object_get(root, keys[i])))
            key = keys[i];
    if (!lim)
        return 0;
    if (!json_is_object(lim))
        return br_error("%s: %s: expected an object of BLOCK: counters per pass", file, key);
    out->blocks = xcalloc(json_object_size(lim) + 1, sizeof(*out->blocks));
    out->block_limit = xcalloc(json_object_size(lim) + 1, sizeof(*out->block_limit));
    json_object_foreach(lim, k, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1 << 20)
            return br_error("%s: %s.%s: expected an integer (counters per pass)", file, key, k);
        out->blocks[out->nblocks] = xstrdup(k);
        out->block_limit[out->nblocks++] = (int)json_integer_value(v);
    }
    return 0;
}

/* Every string under v, with the name of the metric it belongs to. */
static void metric_strings(struct arch_passes *out, const char *metric, json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_string(v)) {
        strv_push(&out->metric_names, metric);
        strv_push(&out->metric_texts, json_string_value(v));
    } else if (json_is_object(v)) {
        json_object_foreach(v, k, x)
            metric_strings(out, metric, x);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x)
            metric_strings(out, metric, x);
    }
}

/* "metrics": an object of NAME: anything, or an array of {"name", ...}. */
static void file_metrics(struct arch_passes *out, json_t *m)
{
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_object(m)) {
        json_object_foreach(m, k, x)
            metric_strings(out, k, x);
    } else if (json_is_array(m)) {
        json_array_foreach(m, i, x) {
            const char *n = json_string_value(json_object_get(x, "name"));
            metric_strings(out, n ? n : "?", x);
        }
    }
}

static int file_root(struct arch_passes *out, const char *file, json_t *root)
{
    json_t *a = json_object_get(root, "passes"), *it, *arch = json_object_get(root, "arch");
    if (!json_is_array(a) || json_array_size(a) == 0)
        return br_error("%s: expected \"passes\": a non-empty array of {\"name\", \"counters\"}",
                        file);
    if (json_array_size(a) > ARCH_MAX_PASSES)
        return br_error("%s: %zu passes; at most %d (each pass is a full run of the app)", file,
                        json_array_size(a), ARCH_MAX_PASSES);
    if (json_is_null(arch))         /* a pmc run's counters.json of a counters file */
        arch = NULL;
    if (arch && (!json_is_string(arch) || !*json_string_value(arch)))
        return br_error("%s: arch: expected an architecture name", file);
    out->file_arch = arch ? xstrdup(json_string_value(arch)) : NULL;
    size_t i;
    json_array_foreach(a, i, it)
        if (file_pass(out, file, i, it) != 0)
            return -1;
    file_metrics(out, json_object_get(root, "metrics"));
    return file_limits(out, file, root);
}

void arch_passes_init(struct arch_passes *out)
{
    memset(out, 0, sizeof(*out));       /* a zeroed strv takes pushes: nothing to allocate */
}

static int parse_text(struct arch_passes *out, const char *text, size_t len, const char *name)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root)
        return br_error_at(name, je.line, je.column, "invalid JSON: %s", je.text);
    int rc = json_is_object(root) ? file_root(out, name, root)
           : br_error("%s: expected a JSON object at the top level", name);
    json_decref(root);
    return rc;
}

int arch_passes_parse(struct arch_passes *out, const char *text, size_t len, const char *name)
{
    arch_passes_init(out);
    out->set = xstrdup(name);
    out->source = xstrdup(name);
    int rc = parse_text(out, text, len, name);
    if (rc != 0)
        arch_passes_release(out);
    return rc;
}

int arch_passes_from_profile(struct arch_passes *out, const struct arch_profile *ap,
                             const char *set)
{
    arch_passes_init(out);
    out->set = xstrdup(set);
    out->arch = xstrdup(ap->arch);
    out->source = xstrdup(ap->path);
    const struct arch_set *s = arch_set_find(ap, set);
    if (!s && !(ap->nsets == 0 && !strcmp(set, "default"))) {
        char *names = arch_set_names(ap);
        br_error("%s: counter_sets.%s: no counter set '%s' in this profile (its sets: %s)",
                 ap->path, set, set, names);
        free(names);
        arch_passes_release(out);
        return -1;
    }
    size_t n = s ? s->passes.n : (size_t)ap->npasses;
    for (size_t i = 0; i < n; i++) {
        const struct arch_pass *p = s ? arch_pass_find(ap, s->passes.v[i]) : &ap->passes[i];
        strv_copy(&arch_passes_add(out, p->name)->counters, &p->counters);
    }
    return 0;
}

int arch_passes_load(struct arch_passes *out, const char *set, const char *arch)
{
    if (!set || !*set)
        set = "default";
    if (!arch_set_is_file(set)) {
        struct arch_profile *ap = arch_open(arch ? arch : arch_default(GPU_VENDOR_UNKNOWN),
                                            arch ? "ARCH of the conf or the detected GPU" : NULL);
        int rc = ap ? arch_passes_from_profile(out, ap, set) : -1;
        if (rc == 0) {              /* the name asked for (sm_90), not the profile's (gh100) */
            free(out->arch);
            out->arch = arch ? xstrdup(arch) : NULL;
        }
        arch_free(ap);
        if (rc != 0)
            arch_passes_init(out);      /* released by arch_passes_from_profile */
        return rc;
    }
    return arch_passes_load_file(out, set);
}

int arch_passes_load_file(struct arch_passes *out, const char *set)
{
    char *path = fs_abspath(set);
    size_t len;
    char *text = fs_read_file(path, &len);      /* a regular file: never a FIFO */
    arch_passes_init(out);
    out->set = xstrdup(set);
    out->source = path;
    int rc = text ? parse_text(out, text, len, path) : -1;
    free(text);
    if (rc != 0)
        arch_passes_release(out);
    return rc;
}

void arch_passes_release(struct arch_passes *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].name);
        free(p->v[i].label);
        strv_release(&p->v[i].counters);
    }
    free(p->v);
    for (int i = 0; i < p->nblocks; i++)
        free(p->blocks[i]);
    free(p->blocks);
    free(p->block_limit);
    strv_release(&p->metric_names);
    strv_release(&p->metric_texts);
    free(p->set);
    free(p->arch);
    free(p->source);
    free(p->file_arch);
    memset(p, 0, sizeof(*p));
}

json_t *arch_passes_json(const struct arch_passes *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "set", esc_json_string(p->set));
    json_object_set_new(o, "arch", p->arch ? esc_json_string(p->arch) : json_null());
    json_object_set_new(o, "source", esc_json_string(p->source));
    json_t *arr = json_array();
    for (size_t i = 0; i < p->n; i++) {
        json_t *ps = json_object(), *cs = json_array();
        json_object_set_new(ps, "name", esc_json_string(p->v[i].name));
        for (size_t j = 0; j < p->v[i].counters.n; j++)
            json_array_append_new(cs, esc_json_string(p->v[i].counters.v[j]));
        json_object_set_new(ps, "counters", cs);
        if (p->v[i].label)
            json_object_set_new(ps, "label", esc_json_string(p->v[i].label));
        json_array_append_new(arr, ps);
    }
    json_object_set_new(o, "passes", arr);
    return o;
}
