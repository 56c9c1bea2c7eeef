/* counterlist.c - parser of rocprofv3 --list-avail / -L text (see counterlist.h).
 *
 * A small line state machine: each line is split at its first ':' into a key
 * and a value (both trimmed); the key decides. Facts on the layouts come from
 * docs/design.md §11 (rocprofiler-sdk 6.2 / 6.4 staging /
 * 7.x sources); fixtures in tests/fixtures/amd/<version>/.
 */
#include "counters/counterlist.h"

#include "read/rpconst.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum cl_state { ST_NONE, ST_AFTER_GPU, ST_AFTER_AGENT };

struct cl_parser {
    struct counterlist *cl;
    size_t ecap, gcap;
    enum cl_state st;
    long gpu;
    bool saw62, saw64, saw7x;
};

/* Hardware constants listed among the counters (rocprofiler-sdk derived
 * counter definitions): not collectable counters (read/rpconst.h). */
static bool is_constant_name(const char *s)
{
    return rp_is_constant_field(s);
}

static bool is_number(const char *s)
{
    char *end;
    if (!*s)
        return false;
    (void)strtod(s, &end);
    return *end == '\0';
}

static struct counterlist_gpu *gpu_get(struct cl_parser *p, long id)
{
    struct counterlist *cl = p->cl;
    for (size_t i = 0; i < cl->ngpus; i++)
        if (cl->gpus[i].id == id)
            return &cl->gpus[i];
    xgrow((void **)&cl->gpus, &p->gcap, cl->ngpus + 1, sizeof(*cl->gpus));
    cl->gpus[cl->ngpus] = (struct counterlist_gpu){ .id = id, .arch = NULL };
    return &cl->gpus[cl->ngpus++];
}

static void entry_add(struct cl_parser *p, const char *name)
{
    struct counterlist *cl = p->cl;
    if (!*name)
        return;
    gpu_get(p, p->gpu);
    xgrow((void **)&cl->entries, &p->ecap, cl->nentries + 1, sizeof(*cl->entries));
    cl->entries[cl->nentries++] = (struct counterlist_entry){
        .name = xstrdup(name), .gpu = p->gpu, .constant = is_constant_name(name) };
}

static struct counterlist_entry *last_entry(struct cl_parser *p)
{
    return p->cl->nentries ? &p->cl->entries[p->cl->nentries - 1] : NULL;
}

/* First blank-free token of v (in place). */
static char *token(char *v)
{
    size_t n = strcspn(v, " \t");
    v[n] = '\0';
    return v;
}

/* "gpu-agent" followed by digits only: the 6.2 form. *id gets the digits. */
static bool agent_key(const char *key, bool *with_id, long *id)
{
    if (strncasecmp(key, "gpu-agent", 9) != 0)
        return false;
    const char *d = key + 9;
    if (!*d) {
        *with_id = false;
        return true;
    }
    for (const char *q = d; *q; q++)
        if (!isdigit((unsigned char)*q))
            return false;
    *with_id = true;
    *id = atol(d);
    return true;
}

static void on_name(struct cl_parser *p, char *v)
{
    if (p->st == ST_AFTER_AGENT) {
        entry_add(p, token(v));
    } else if (p->st == ST_AFTER_GPU || strncasecmp(v, "gfx", 3) == 0) {
        struct counterlist_gpu *g = gpu_get(p, p->gpu);
        if (!g->arch)
            g->arch = xstrdup(token(v));
    }
    p->st = ST_NONE;
}

static void on_key(struct cl_parser *p, const char *key, char *v)
{
    bool with_id = false;
    long id = 0;
    struct counterlist_entry *e;
    if (agent_key(key, &with_id, &id)) {
        if (with_id) {                      /* 6.2: gpu-agent<N>: <counter> */
            p->saw62 = true;
            p->gpu = id;
            entry_add(p, token(v));
            p->st = ST_NONE;
        } else {                            /* 6.4 staging: gpu-agent:<id> */
            p->saw64 = true;
            p->gpu = atol(v);
            gpu_get(p, p->gpu);
            p->st = ST_AFTER_AGENT;
        }
    } else if (strcasecmp(key, "gpu") == 0) {
        p->gpu = atol(v);
        gpu_get(p, p->gpu);
        p->st = ST_AFTER_GPU;
    } else if (strcasecmp(key, "name") == 0) {
        on_name(p, v);
    } else if (strcasecmp(key, "counter_name") == 0) {
        p->saw7x = true;
        entry_add(p, token(v));
    } else if (strcasecmp(key, "block") == 0 && (e = last_entry(p)) && !e->block) {
        e->block = xstrdup(token(v));
    } else if (strcasecmp(key, "expression") == 0 && (e = last_entry(p))) {
        e->derived = true;
        if (is_number(v))
            e->constant = true;
    }
}

static char *trim(char *s, char *end)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    return s;
}

static void on_line(struct cl_parser *p, char *line, size_t n)
{
    char *colon = memchr(line, ':', n);
    if (!colon)
        return;
    char *key = trim(line, colon);
    char *val = trim(colon + 1, line + n);
    on_key(p, key, val);
}

int counterlist_parse(struct counterlist *cl, const char *name, const char *text, size_t len)
{
    memset(cl, 0, sizeof(*cl));
    if (counterlist_parse_nvidia(cl, text, len)) {   /* NVIDIA layouts: counterlist_nv.c */
        if (cl->nentries > 0)
            return 0;
        counterlist_release(cl);
        return br_error("%s: no metrics found after the 'Chip' line", name);
    }
    struct cl_parser p = { .cl = cl, .gpu = -1 };
    char *buf = xmalloc(len + 1);
    memcpy(buf, text, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len;) {
        char *nl = memchr(buf + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - buf) : len;
        on_line(&p, buf + i, end - i);
        i = end + 1;
    }
    free(buf);
    cl->layout = p.saw7x ? "7.x" : p.saw64 ? "6.4" : p.saw62 ? "6.2" : "unknown";
    if (cl->nentries == 0) {
        counterlist_release(cl);
        return br_error("%s: no counters found (expected rocprofv3 --list-avail or -L output)",
                        name);
    }
    return 0;
}

int counterlist_load(struct counterlist *cl, const char *path)
{
    size_t len;
    char *text = fs_read_file(path, &len);
    if (!text)
        return -1;
    int rc = counterlist_parse(cl, path, text, len);
    free(text);
    return rc;
}

void counterlist_release(struct counterlist *cl)
{
    for (size_t i = 0; i < cl->nentries; i++) {
        free(cl->entries[i].name);
        free(cl->entries[i].block);
    }
    for (size_t i = 0; i < cl->ngpus; i++)
        free(cl->gpus[i].arch);
    free(cl->entries);
    free(cl->gpus);
    memset(cl, 0, sizeof(*cl));
}

const char *counterlist_gpu_arch(const struct counterlist *cl, long gpu)
{
    for (size_t i = 0; i < cl->ngpus; i++)
        if (cl->gpus[i].id == gpu)
            return cl->gpus[i].arch;
    return NULL;
}

const struct counterlist_entry *counterlist_find(const struct counterlist *cl, const char *counter,
                               const char *arch)
{
    for (size_t i = 0; i < cl->nentries; i++) {
        const struct counterlist_entry *e = &cl->entries[i];
        if (strcmp(e->name, counter) != 0)
            continue;
        const char *a = counterlist_gpu_arch(cl, e->gpu);
        if (!arch || !a || strcmp(a, arch) == 0)
            return e;
    }
    /* NVIDIA lists hold base names: dram__bytes_read.sum -> dram__bytes_read */
    const char *dot = strchr(counter, '.');
    if (dot && cl->layout && strcmp(cl->layout, "nvidia") == 0) {
        char *base = xstrndup(counter, (size_t)(dot - counter));
        const struct counterlist_entry *e = counterlist_find(cl, base, arch);
        free(base);
        return e;
    }
    return NULL;
}

const char **counterlist_archs(const struct counterlist *cl, size_t *n)
{
    const char **out = xcalloc(cl->ngpus + 1, sizeof(char *));
    *n = 0;
    for (size_t i = 0; i < cl->ngpus; i++) {
        const char *a = cl->gpus[i].arch;
        bool dup = false;
        for (size_t j = 0; a && j < *n; j++)
            dup |= strcmp(out[j], a) == 0;
        if (a && !dup)
            out[(*n)++] = a;
    }
    return out;
}
