/* cmp_vectors.c - the workloads of `benchrun compare` and their vectors:
 * the vectors JSON reader (sampling_vectors.json of `benchrun vectors` or
 * the seed's build_sampling_json.py; app_vectors.json of the Minos
 * dendrogram), power-run folders (read their sampling_vectors.json, or
 * compute the vectors in memory with src/vectors/), labels and attached
 * analyses (see compare.h).
 *
 * The reader takes what it needs by key and ignores the rest: the vector
 * arrays by name, the label from description.label, bin edges from
 * description.bins.<kind>.edges (benchrun) or .bin_edges (seed), so header
 * keys that are added or renamed do not matter.
 */
#include "compare/compare.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "vectors/vectors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cmp_set_init(struct cmp_set *s, const char *kind)
{
    memset(s, 0, sizeof(*s));
    s->kind = xstrdup(kind);
}

void cmp_set_release(struct cmp_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct cmp_workload *w = &s->w[i];
        free(w->label), free(w->path), free(w->origin), free(w->v), free(w->analysis);
        json_decref(w->whole_run);
    }
    free(s->w), free(s->kind), free(s->edges), free(s->unit);
    memset(s, 0, sizeof(*s));
}

/* Appends a workload; takes v (s->dim values). */
static struct cmp_workload *add_workload(struct cmp_set *s, const char *label, const char *path,
                                         const char *origin, double *v)
{
    s->w = xrealloc(s->w, (s->n + 1) * sizeof(*s->w));
    struct cmp_workload *w = &s->w[s->n++];
    *w = (struct cmp_workload){ .label = xstrdup(label), .path = xstrdup(path),
                                .origin = xstrdup(origin), .v = v };
    return w;
}

/* The first workload fixes the length; later ones must match it. */
static int check_dim(struct cmp_set *s, size_t dim, const char *name, const char *label)
{
    if (dim == 0)
        return br_error("%s: vector '%s' of '%s' is empty", name, s->kind, label);
    if (s->n > 0 && dim != s->dim)
        return br_error("%s: vector '%s' of '%s' has %zu entries, '%s' (%s) has %zu: only "
                        "vectors of the same bins can be compared", name, s->kind, label, dim,
                        s->w[0].label, s->w[0].path, s->dim);
    s->dim = dim;
    return 0;
}

/* Values of a JSON array of finite numbers; NULL after an error. */
static double *array_values(const json_t *a, const char *name, const char *kind,
                            const char *label)
{
    size_t n = json_array_size(a);
    double *v = xcalloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(a, i);
        if (!json_is_number(e)) {
            free(v);
            br_error("%s: %s of '%s': entry %zu is %s, not a number", name, kind, label, i,
                     json_is_null(e) ? "null (a missing value)" : "not a number");
            return NULL;
        }
        v[i] = json_number_value(e);
    }
    return v;
}

static bool numeric_array(const json_t *a)
{
    if (!json_is_array(a) || json_array_size(a) == 0)
        return false;
    for (size_t i = 0; i < json_array_size(a); i++)
        if (!json_is_number(json_array_get(a, i)))
            return false;
    return true;
}

/* "inst_power, socket_power" - the members that look like vectors. */
static char *kinds_present(const json_t *root)
{
    struct strbuf sb;
    sb_init(&sb);
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)root, k, v) {
        if (numeric_array(v))
            sb_addf(&sb, "%s%s", sb.len ? ", " : "", k);
    }
    if (!sb.len)
        sb_adds(&sb, "none");
    return sb_detach(&sb);
}

/* Bin edges and unit of the first input that has them. */
static void take_bins(struct cmp_set *s, const json_t *desc, const char *name)
{
    const json_t *b = json_object_get(json_object_get(desc, "bins"), s->kind);
    const json_t *e = json_object_get(b, "edges");
    if (!e)
        e = json_object_get(b, "bin_edges");
    if (!numeric_array(e) || json_array_size(e) != s->dim + 1)
        return;
    double *v = array_values(e, name, "bin edges", s->kind);
    if (!v)
        return;
    if (!s->edges) {
        s->edges = v;
        const char *u = json_string_value(json_object_get(b, "unit"));
        s->unit = u ? xstrdup(u) : NULL;
        return;
    }
    if (memcmp(v, s->edges, (s->dim + 1) * sizeof(*v)) != 0)
        br_warn("%s: the bin edges of %s differ from the first input's; the vectors are "
                "compared entry by entry", name, s->kind);
    free(v);
}

/* Default label of a vectors file: the folder of a sampling_vectors.json,
 * else the file name without .json. */
static char *label_from_path(const char *path)
{
    char *p = xstrdup(path);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    char *b = strrchr(p, '/');
    char *base = b ? b + 1 : p;
    char *out;
    if (strcmp(base, "sampling_vectors.json") == 0 && b && b != p) {
        *b = '\0';
        char *d = strrchr(p, '/');
        out = xstrdup(d ? d + 1 : p);
    } else {
        size_t bl = strlen(base);
        bool json = bl > 5 && strcmp(base + bl - 5, ".json") == 0;
        out = json ? xstrndup(base, bl - 5) : xstrdup(base);
    }
    free(p);
    return out;
}

static int parse_sampling(const json_t *root, const char *name, const char *shown,
                          const char *label, struct cmp_set *s)
{
    const json_t *desc = json_object_get(root, "description");
    const char *dl = json_string_value(json_object_get(desc, "label"));
    char *fallback = label ? NULL : dl && *dl ? NULL : label_from_path(name);
    const char *use = label ? label : fallback ? fallback : dl;
    const json_t *a = json_object_get(root, s->kind);
    int rc = -1;
    if (!json_is_array(a)) {
        char *k = kinds_present(root);
        br_error("%s: no vector '%s' (vectors in the file: %s)", name, s->kind, k);
        free(k);
    } else if (check_dim(s, json_array_size(a), name, use) == 0) {
        double *v = array_values(a, name, s->kind, use);
        if (v) {
            add_workload(s, use, shown, "read: sampling_vectors.json layout", v);
            take_bins(s, desc, name);
            rc = 0;
        }
    }
    free(fallback);
    return rc;
}

static int parse_app_vectors(const json_t *root, const char *name, const char *shown,
                             const char *label, struct cmp_set *s)
{
    size_t n = json_object_size(root);
    if (n == 0)
        return br_error("%s: no vectors: neither a sampling_vectors.json (no \"description\") "
                        "nor an app_vectors.json ({label: [values]}) with members", name);
    if (label && n != 1)
        return br_error("%s: LABEL= names one workload, the file holds %zu", name, n);
    const char *k;
    const json_t *a;
    json_object_foreach((json_t *)root, k, a) {
        if (!json_is_array(a))
            return br_error("%s: member '%s' is not an array: neither a sampling_vectors.json "
                            "(no \"description\") nor an app_vectors.json ({label: [values]})",
                            name, k);
        const char *use = label ? label : k;
        if (check_dim(s, json_array_size(a), name, use) != 0)
            return -1;
        double *v = array_values(a, name, s->kind, use);
        if (!v)
            return -1;
        char *origin = xasprintf("read: app_vectors.json member '%s' (compared as %s)", k,
                                 s->kind);
        add_workload(s, use, shown, origin, v);
        free(origin);
    }
    return 0;
}

/* cmp_parse_vectors, with the path to record for the workloads (the input
 * as given: a run folder, not its sampling_vectors.json). */
static int parse_vectors(const char *text, size_t len, const char *name, const char *shown,
                         const char *label, struct cmp_set *s)
{
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return br_error_at(name, err.line, err.column, "%s", err.text);
    int rc;
    if (!json_is_object(root))
        rc = br_error("%s: expected a JSON object (sampling_vectors.json or app_vectors.json)",
                      name);
    else if (json_is_object(json_object_get(root, "description")))
        rc = parse_sampling(root, name, shown, label, s);
    else
        rc = parse_app_vectors(root, name, shown, label, s);
    json_decref(root);
    return rc;
}

int cmp_parse_vectors(const char *text, size_t len, const char *name, const char *label,
                      struct cmp_set *s)
{
    return parse_vectors(text, len, name, name, label, s);
}

/* ---- inputs ------------------------------------------------------------------ */

static int read_vectors_file(struct cmp_set *s, const char *path, const char *shown,
                             const char *label)
{
    size_t len;
    char *text = fs_read_file(path, &len);
    if (!text)
        return -1;
    int rc = parse_vectors(text, len, path, shown, label, s);
    free(text);
    return rc;
}

static int spec_of(const char *kind)
{
    for (int i = 0; i < VEC_NSPECS; i++)
        if (strcmp(vec_specs[i].name, kind) == 0)
            return i;
    return -1;
}

/* No sampling_vectors.json: bin the run's telemetry as `benchrun vectors DIR`
 * would, with its defaults, in memory. */
static int compute_vectors(struct cmp_set *s, const char *dir, const char *label)
{
    int sp = spec_of(s->kind);
    if (sp < 0)
        return br_error("%s: no sampling_vectors.json, and '%s' is not one of the pooled vectors "
                        "benchrun computes (inst_power, socket_power, gfx_frequency, hotspot_temp, "
                        "edge_temp): run 'benchrun vectors %s --per-gpu' first", dir, s->kind, dir);
    struct vec_opts o = { .prof_dir = dir, .label = label, .tdp_W = s->tdp_W, .arch = s->arch };
    struct vec_result r;
    int rc = vec_compute(&o, &r);
    if (rc != 0)
        br_error("%s: has no sampling_vectors.json and its vectors cannot be computed (above); "
                 "give compare --tdp W or --arch NAME, or run 'benchrun vectors %s' first", dir,
                 dir);
    char *why = rc == 0 ? vec_skip_reason(&vec_specs[sp], &r.pooled[sp], r.used) : NULL;
    if (rc == 0 && why)
        rc = br_error("%s: vector %s cannot be computed: %s", dir, s->kind, why);
    size_t dim = rc == 0 ? r.nedges[sp] - 1 : 0;
    if (rc == 0)
        rc = check_dim(s, dim, dir, r.label);
    if (rc == 0) {
        double *v = xcalloc(dim, sizeof(*v));
        for (size_t i = 0; i < dim; i++)
            v[i] = vec_fraction(&r.pooled[sp], i);
        char *origin = xasprintf("computed from the power run's telemetry (no "
                                 "sampling_vectors.json; benchrun vectors defaults, TDP %g W)",
                                 r.tdp_W);
        add_workload(s, r.label, dir, origin, v);
        free(origin);
        if (!s->edges) {
            s->edges = xcalloc(dim + 1, sizeof(*s->edges));
            memcpy(s->edges, r.edges[sp], (dim + 1) * sizeof(*s->edges));
            s->unit = xstrdup(vec_specs[sp].unit);
        }
    }
    free(why);
    vec_result_release(&r);
    return rc;
}

int cmp_add_input(struct cmp_set *s, const char *arg)
{
    char *label = NULL;
    const char *path = arg;
    const char *eq = strchr(arg, '=');
    if (!fs_exists(arg) && eq && eq != arg) {
        label = xstrndup(arg, (size_t)(eq - arg));
        path = eq + 1;
    }
    int rc;
    if (!fs_exists(path)) {
        rc = br_error("%s: no such file or folder", path);
    } else if (fs_is_dir(path)) {
        char *sv = fs_path_join(path, "sampling_vectors.json");
        rc = fs_exists(sv) ? read_vectors_file(s, sv, path, label)
                           : compute_vectors(s, path, label);
        free(sv);
    } else {
        rc = read_vectors_file(s, path, path, label);
    }
    free(label);
    return rc;
}

long cmp_find(const struct cmp_set *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->w[i].label, key) == 0)
            return (long)i;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->w[i].path, key) == 0)
            return (long)i;
    if (!fs_exists(key))
        return -1;
    char *want = fs_abspath(key);   /* the same file or folder written differently */
    long found = -1;
    for (size_t i = 0; i < s->n && found < 0; i++) {
        char *p = fs_abspath(s->w[i].path);
        if (strcmp(p, want) == 0)
            found = (long)i;
        free(p);
    }
    free(want);
    return found;
}

int cmp_check_labels(const struct cmp_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->w[i].label, s->w[j].label) == 0)
                return br_error("two workloads are labelled '%s' (%s and %s): labels must be "
                                "unique; give one with LABEL=PATH", s->w[i].label, s->w[j].path,
                                s->w[i].path);
    return 0;
}

int cmp_set_load(struct cmp_set *s, const struct strv *inputs, const char *nearest,
                 const struct strv *analyses, long *query)
{
    *query = -1;
    for (size_t i = 0; i < inputs->n; i++)
        if (cmp_add_input(s, inputs->v[i]) != 0)
            return -1;
    if (nearest) {
        *query = cmp_find(s, nearest);
        if (*query < 0) {
            if (cmp_add_input(s, nearest) != 0)
                return -1;
            *query = (long)s->n - 1;
        }
    }
    if (cmp_check_labels(s) != 0)
        return -1;
    if (s->n < 2)
        return br_error("compare: %zu workload: at least two are needed", s->n);
    for (size_t i = 0; i < analyses->n; i++)
        if (cmp_attach_analysis(s, analyses->v[i]) != 0)
            return -1;
    return 0;
}
