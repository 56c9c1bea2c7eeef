/* psumread.c - the power stage's run folder read back (psumread.h). */
#include "read/psumread.h"

#include "model/intern.h"
#include "read/rocprof.h"
#include "read/telread.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"

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

static void read_trace(const char *ktrace, struct psum_trace *t)
{
    *t = (struct psum_trace){ .first_ns = -1 };
    struct rp_power pw;
    struct intern names;
    memset(&pw, 0, sizeof(pw));
    intern_init(&names);
    if (fs_is_dir(ktrace) && rp_power_load(&pw, &names, ktrace) == 0) {
        t->kernels = pw.dispatches;
        t->files = pw.nfiles;
        t->first_ns = pw.dispatches ? pw.first_start : -1;
        rp_power_release(&pw);
    }
    intern_release(&names);
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

/* clock_ref_<node>.txt: one node each. */
static void read_nodes(struct psum_run *out, const char *rundir, const char *ktrace)
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
        read_trace(kt, &n->trace);
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
    read_trace(ktrace, &out->trace);
    read_nodes(out, rundir, ktrace);
}
