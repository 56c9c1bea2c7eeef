/* psumread.c - the power stage's run folder read back (psumread.h). */
#include "read/psumread.h"

#include "model/intern.h"
#include "read/nodepath.h"
#include "read/rocprof.h"
#include "read/telread.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* boottime_ns= of a clock_ref file (sample/clockref.h), -1 when absent. */
static int64_t clock_ref_boottime(const char *rundir, const char *file)
{
    char *p = fs_path_join(rundir, file);
    char *text = fs_exists(p) ? fs_read_file(p, NULL) : NULL;
    free(p);
    const char *k = text ? strstr(text, "boottime_ns=") : NULL;
    int64_t v = k ? strtoll(k + 12, NULL, 10) : -1;
    free(text);
    return v;
}

/* The trace under ktrace: its totals into t; true when it was read (pw then
 * holds it). pw is releasable either way. */
static bool read_trace(const char *ktrace, struct psum_trace *t, struct rp_power *pw,
                       struct intern *names)
{
    *t = (struct psum_trace){ .first_ns = -1 };
    memset(pw, 0, sizeof(*pw));
    if (!fs_is_dir(ktrace) || rp_power_load(pw, names, ktrace) != 0)
        return false;
    t->kernels = pw->dispatches;
    t->files = pw->nfiles;
    t->first_ns = pw->dispatches ? pw->first_start : -1;
    return true;
}

/* A node's part of the trace already loaded: its GPUs whose files lie under
 * ktrace/<node>/ (read/nodepath.h), instead of reading those files again. */
static void node_trace(const struct rp_power *pw, const char *ktrace, const char *node,
                       struct psum_trace *t)
{
    *t = (struct psum_trace){ .first_ns = -1 };
    for (uint32_t f = 0; f < pw->nfiles; f++)
        t->files += rp_path_in_node(ktrace, pw->files[f], node);
    for (uint32_t g = 0; g < pw->ngpus; g++) {
        const struct rp_gpu_busy *b = &pw->gpu[g];
        if (!b->dispatches || !rp_path_in_node(ktrace, rp_gpu_path(pw, b), node))
            continue;
        t->kernels += b->dispatches;
        t->first_ns = t->first_ns < 0 || b->first_start < t->first_ns ? b->first_start
                                                                       : t->first_ns;
    }
}

static void read_telemetry(struct psum_run *out, const char *rundir, const char *tag)
{
    struct strv files, mine;
    strv_init(&files);
    strv_init(&mine);
    fs_list_suffix(rundir, ".csv", &files);
    char *pre = xasprintf("%s/" TELEM_FILE_PREFIX "%s_", rundir, tag);
    for (size_t i = 0; i < files.n; i++)
        if (strncmp(files.v[i], pre, strlen(pre)) == 0 && telem_is_sample_file(files.v[i]))
            strv_push(&mine, files.v[i]);
    struct telem_read_opts o = { .skip_bad = true };
    telem_read_run(&out->tel, mine.v, mine.n, &o);
    free(pre);
    strv_release(&files);
    strv_release(&mine);
}

/* clock_ref_<node>.txt: one node each; its trace from pw (loaded: the whole
 * trace read), else read from ktrace/<node>/ (the whole could not be: a
 * node's own files may still be). */
static void read_nodes(struct psum_run *out, const char *rundir, const char *ktrace,
                       const struct rp_power *pw, bool loaded)
{
    struct strv refs;
    strv_init(&refs);
    fs_list_suffix(rundir, ".txt", &refs);
    char *pre = xasprintf("%s/clock_ref_", rundir);
    out->nodes = xcalloc(refs.n + 1, sizeof(*out->nodes));
    for (size_t i = 0; i < refs.n; i++) {
        if (strncmp(refs.v[i], pre, strlen(pre)) != 0 || strchr(refs.v[i] + strlen(pre), '/'))
            continue;
        struct psum_node *n = &out->nodes[out->nnodes++];
        n->node = xstrdup(refs.v[i] + strlen(pre));
        n->node[strlen(n->node) - 4] = '\0';                  /* ".txt" */
        char *file = xasprintf("clock_ref_%s.txt", n->node), *kt = fs_path_join(ktrace, n->node);
        n->clock_ref_ns = clock_ref_boottime(rundir, file);
        if (loaded) {
            node_trace(pw, ktrace, n->node, &n->trace);
        } else {
            struct rp_power own;
            struct intern names;
            intern_init(&names);
            read_trace(kt, &n->trace, &own, &names);
            rp_power_release(&own);
            intern_release(&names);
        }
        free(file);
        free(kt);
    }
    free(pre);
    strv_release(&refs);
}

void psum_read(struct psum_run *out, const char *rundir, const char *tag, const char *ktrace)
{
    memset(out, 0, sizeof(*out));
    out->tag = xstrdup(tag);
    out->clock_ref_ns = clock_ref_boottime(rundir, "clock_ref.txt");
    read_telemetry(out, rundir, tag);
    struct rp_power pw;
    struct intern names;
    intern_init(&names);
    bool loaded = read_trace(ktrace, &out->trace, &pw, &names);
    read_nodes(out, rundir, ktrace, &pw, loaded);
    rp_power_release(&pw);
    intern_release(&names);
}
