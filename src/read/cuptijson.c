/* cuptijson.c - the NVIDIA collector's companion JSON, summed per pass
 * (contract in cuptijson.h). */
#include "read/cuptijson.h"

#include "read/rocprof.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint64_t count(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
    return n > 0 ? (uint64_t)n : 0;
}

static struct cj_kernel *kernel_of(struct cj_pass *cp, const char *name)
{
    for (size_t i = 0; i < cp->nkernels; i++)
        if (!strcmp(cp->kernels[i].name, name))
            return &cp->kernels[i];
    cp->kernels = xrealloc(cp->kernels, (cp->nkernels + 1) * sizeof(*cp->kernels));
    struct cj_kernel *k = &cp->kernels[cp->nkernels++];
    memset(k, 0, sizeof(*k));
    k->name = xstrdup(name);
    return k;
}

static void add_reason(struct cj_kernel *k, const char *key, uint64_t n)
{
    for (size_t i = 0; i < k->nreasons; i++)
        if (!strcmp(k->reasons[i].key, key)) {
            k->reasons[i].n += n;
            return;
        }
    k->reasons = xrealloc(k->reasons, (k->nreasons + 1) * sizeof(*k->reasons));
    k->reasons[k->nreasons++] = (struct cj_reason){ xstrdup(key), n };
}

static void add_kernels(struct cj_pass *cp, json_t *arr)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *name = json_string_value(json_object_get(e, "kernel"));
        if (!json_is_object(e) || !name)
            continue;
        struct cj_kernel *k = kernel_of(cp, name);
        k->launches += count(e, "launches");
        k->profiled += count(e, "profiled");
        const char *key;
        json_t *v;
        json_object_foreach(e, key, v) {
            if (json_is_integer(v) && json_integer_value(v) > 0 && strcmp(key, "launches") &&
                strcmp(key, "profiled"))
                add_reason(k, key, (uint64_t)json_integer_value(v));
        }
    }
}

/* range_offset.contexts[].offset: the largest per counter. */
static void add_offsets(struct cj_pass *cp, json_t *ro)
{
    size_t i;
    json_t *ctx;
    json_array_foreach(json_object_get(ro, "contexts"), i, ctx) {
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(ctx, "offset"), key, v) {
            double x = json_is_number(v) ? json_number_value(v) : NAN;
            if (!isfinite(x) || x < 0)
                continue;
            uint32_t n = cp->offset_counters.n, id = intern_add(&cp->offset_counters, key, strlen(key));
            if (id == n) {
                cp->offset = xrealloc(cp->offset, (n + 1) * sizeof(double));
                cp->offset[id] = x;
            } else if (x > cp->offset[id]) {
                cp->offset[id] = x;
            }
        }
    }
}

double cj_offset(const struct cj_pass *cp, const char *counter)
{
    uint32_t id = intern_find(&cp->offset_counters, counter, strlen(counter));
    return id == UINT32_MAX ? 0 : cp->offset[id];
}

static void add_object(struct cj_pass *cp, json_t *o)
{
    cp->files++;
    cp->dropped += count(o, "launches_dropped");
    cp->captured += count(o, "launches_captured");
    cp->reentrant += count(o, "launches_reentrant");
    cp->failed += count(o, "launches_failed");
    cp->graph_unprofiled += count(o, "graph_launches_unprofiled");
    cp->ranges_unmatched += count(o, "ranges_unmatched");
    cp->ranges_dropped += count(o, "ranges_dropped");
    const char *err = json_string_value(json_object_get(o, "error"));
    if (err && !cp->error)
        cp->error = xstrdup(err);
    json_t *k = json_object_get(o, "kernels_without_counters");
    if (json_is_array(k))
        add_kernels(cp, k);
    json_t *ro = json_object_get(o, "range_offset");
    if (json_is_object(ro))
        add_offsets(cp, ro);
}

int cj_add_text(struct cj_pass *cp, const char *name, const char *text, size_t len)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, 0, &je);
    (void)name;
    if (!json_is_object(o)) {
        json_decref(o);
        return -1;
    }
    add_object(cp, o);
    json_decref(o);
    return 0;
}

int cj_read_pass(struct cj_pass *cp, const char *dir)
{
    char **files = rp_find_files(dir, "_cupti.json");
    int n = 0;
    for (char **f = files; *f; f++) {
        json_error_t je;
        json_t *o = fs_read_json(*f, 0, &je);
        if (!json_is_object(o)) {
            br_warn("%s: not read (%s): the collector's notes on launches without counters are "
                    "missing", *f, o ? "not a JSON object" : je.text);
            json_decref(o);
            continue;
        }
        add_object(cp, o);
        json_decref(o);
        n++;
    }
    str_array_free(files);
    return n;
}

uint64_t cj_lost(const struct cj_pass *cp)
{
    return cp->dropped + cp->captured + cp->reentrant + cp->failed + cp->graph_unprofiled;
}

void cj_release(struct cj_pass *cp)
{
    for (size_t i = 0; i < cp->nkernels; i++) {
        for (size_t r = 0; r < cp->kernels[i].nreasons; r++)
            free(cp->kernels[i].reasons[r].key);
        free(cp->kernels[i].reasons);
        free(cp->kernels[i].name);
    }
    free(cp->kernels);
    intern_release(&cp->offset_counters);
    free(cp->offset);
    free(cp->error);
    memset(cp, 0, sizeof(*cp));
}

static void part(struct strbuf *sb, bool *first, uint64_t n, const char *what)
{
    if (!n)
        return;
    sb_addf(sb, "%s%llu %s", *first ? "" : ", ", (unsigned long long)n, what);
    *first = false;
}

char *cj_describe(const struct cj_pass *cp, const char *pass)
{
    uint64_t lost = cj_lost(cp);
    if (!lost && !cp->nkernels && !cp->ranges_unmatched && !cp->ranges_dropped)
        return NULL;
    struct strbuf sb;
    sb_init(&sb);
    sb_addf(&sb, "pass %s: the collector (libbenchrun-cupti, %u process file(s)) ", pass, cp->files);
    bool first = true;
    if (lost) {
        sb_addf(&sb, "could not profile %llu launch(es): ", (unsigned long long)lost);
        part(&sb, &first, cp->dropped, "dropped (a profiler call failed)");
        part(&sb, &first, cp->captured, "launched into a capturing stream (they did not run)");
        part(&sb, &first, cp->reentrant, "launched from inside its own callback");
        part(&sb, &first, cp->failed, "failed launches");
        part(&sb, &first, cp->graph_unprofiled, "graph launches not profiled");
    } else {
        sb_adds(&sb, "reports launches without counters");
    }
    first = false;
    part(&sb, &first, cp->ranges_unmatched, "counter ranges that matched no launch");
    part(&sb, &first, cp->ranges_dropped, "counter ranges dropped");
    for (size_t i = 0; i < cp->nkernels && i < 4; i++) {
        const struct cj_kernel *k = &cp->kernels[i];
        sb_addf(&sb, "%s%s (%llu of %llu launches without counters", i ? ", " : "; kernels without "
                "counters: ", k->name, (unsigned long long)(k->launches > k->profiled ? k->launches - k->profiled : 0),
                (unsigned long long)k->launches);
        for (size_t r = 0; r < k->nreasons; r++) {
            sb_addf(&sb, "%s", r ? ", " : ": ");
            for (const char *c = k->reasons[r].key; *c; c++)
                sb_addc(&sb, *c == '_' ? ' ' : *c);
            sb_addf(&sb, " %llu", (unsigned long long)k->reasons[r].n);
        }
        sb_addc(&sb, ')');
    }
    if (cp->nkernels > 4)
        sb_addf(&sb, " and %zu more", cp->nkernels - 4);
    if (cp->error)
        sb_addf(&sb, "; first error: %s", cp->error);
    return sb_detach(&sb);
}
