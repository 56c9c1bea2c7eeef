/* passes.c - counter passes for `benchrun pmc`: from the arch profile
 * share/benchrun/arch/<arch>.json ("passes" + "counter_sets", schema owned by
 * the analysis module, docs/arch-profile.md) or from a counters JSON file
 * with a "passes" array (the seed's counters.json shape). Read with jansson;
 * only these two keys are used here. */
#include "collect/collect.h"
#include "arch/arch.h"
#include "util/error.h"
#include "util/textesc.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static int pass_from_json(const char *file, size_t idx, json_t *o, struct br_pass *p)
{
    json_t *name = json_object_get(o, "name"), *ctrs = json_object_get(o, "counters");
    if (!json_is_string(name) || !json_is_array(ctrs))
        return br_error("%s: passes[%zu]: expected {\"name\": \"<folder name>\", \"counters\": "
                        "[...]}", file, idx);
    const char *why = arch_pass_name_problem(json_string_value(name));
    if (why)
        return br_error("%s: passes[%zu].name: pass name '%s' %s", file, idx,
                        json_string_value(name), why);
    p->name = xstrdup(json_string_value(name));
    strv_init(&p->counters);
    size_t i;
    json_t *c;
    json_array_foreach(ctrs, i, c) {
        if (!json_is_string(c))
            return br_error("%s: passes[%zu].counters[%zu]: expected a counter name", file, idx, i);
        strv_push(&p->counters, json_string_value(c));
    }
    if (p->counters.n == 0)
        return br_error("%s: passes[%zu] ('%s'): no counters", file, idx, p->name);
    return 0;
}

static json_t *find_pass(json_t *passes, const char *name)
{
    size_t i;
    json_t *o;
    json_array_foreach(passes, i, o) {
        json_t *n = json_object_get(o, "name");
        if (json_is_string(n) && strcmp(json_string_value(n), name) == 0)
            return o;
    }
    return NULL;
}

static int add_pass(struct br_passes *out, const char *file, size_t idx, json_t *o)
{
    const char *name = json_string_value(json_object_get(o, "name"));
    for (size_t i = 0; name && i < out->n; i++)
        if (!strcmp(out->v[i].name, name))
            return br_error("%s: passes[%zu].name: pass '%s' is listed twice", file, idx, name);
    if (out->n >= ARCH_MAX_PASSES)
        return br_error("%s: more than %d passes (each pass is a full run of the app)", file,
                        ARCH_MAX_PASSES);
    out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
    memset(&out->v[out->n], 0, sizeof(out->v[0]));
    return pass_from_json(file, idx, o, &out->v[out->n++]);
}

/* The passes a set names (counter_sets[set]), or all of them. */
static int select_passes(json_t *root, const char *file, const char *set, bool from_profile,
                         struct br_passes *out)
{
    json_t *passes = json_object_get(root, "passes");
    if (!json_is_array(passes))
        return br_error("%s: expected a top-level \"passes\" array", file);
    json_t *sets = json_object_get(root, "counter_sets");
    json_t *names = from_profile && json_is_object(sets) ? json_object_get(sets, set) : NULL;
    if (from_profile && !names && !(strcmp(set, "default") == 0 && !json_is_object(sets)))
        return br_error("%s: no counter set '%s' in \"counter_sets\"", file, set);
    if (!names) {
        size_t i;
        json_t *o;
        json_array_foreach(passes, i, o)
            if (add_pass(out, file, i, o) != 0)
                return -1;
        return 0;
    }
    size_t i;
    json_t *n;
    json_array_foreach(names, i, n) {
        json_t *o = json_is_string(n) ? find_pass(passes, json_string_value(n)) : NULL;
        if (!o)
            return br_error("%s: counter_sets.%s[%zu]: no pass named %s%s%s", file, set, i,
                            json_is_string(n) ? "'" : "", json_is_string(n) ? json_string_value(n) : "(not a string)",
                            json_is_string(n) ? "'" : "");
        if (add_pass(out, file, i, o) != 0)
            return -1;
    }
    return 0;
}

static bool is_file_set(const char *set)
{
    size_t n = strlen(set);
    return fs_exists(set) || (n > 5 && strcmp(set + n - 5, ".json") == 0) || strchr(set, '/');
}

static int parse_passes(const char *text, size_t len, const char *path, const char *set,
                        bool from_profile, struct br_passes *out)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root)
        return br_error_at(path, je.line, je.column, "%s", je.text);
    int rc = select_passes(root, path, set, from_profile, out);
    json_decref(root);
    return rc;
}

int br_passes_parse(const char *text, size_t len, const char *name, struct br_passes *out)
{
    memset(out, 0, sizeof(*out));
    int rc = parse_passes(text, len, name, "default", false, out);
    if (rc == 0 && out->n == 0)
        rc = br_error("%s: no passes", name);
    if (rc != 0)
        br_passes_free(out);
    return rc;
}

int br_passes_load(const char *set, const char *arch, struct br_passes *out)
{
    memset(out, 0, sizeof(*out));
    if (!set || !*set)
        set = "default";
    bool file = is_file_set(set);
    char *path = NULL;
    if (file) {
        path = fs_abspath(set);
    } else {
        path = arch_profile_path(arch ? arch : "gfx942", arch ? "ARCH of the conf or the detected GPU" : NULL);
        if (!path)
            return -1;
    }
    size_t len;
    char *text = fs_read_file(path, &len);      /* a regular file: never a FIFO */
    int rc = text ? parse_passes(text, len, path, set, !file, out) : -1;
    free(text);
    out->set = xstrdup(set);
    out->arch = !file && arch ? xstrdup(arch) : NULL;
    out->source = path;
    if (rc == 0 && out->n == 0)
        rc = br_error("%s: counter set '%s' has no passes", path, set);
    if (rc != 0)
        br_passes_free(out);
    return rc;
}

void br_passes_free(struct br_passes *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].name);
        strv_free(&p->v[i].counters);
    }
    free(p->v);
    free(p->set);
    free(p->arch);
    free(p->source);
    memset(p, 0, sizeof(*p));
}

json_t *br_passes_json(const struct br_passes *p)
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
        json_array_append_new(arr, ps);
    }
    json_object_set_new(o, "passes", arr);
    return o;
}
