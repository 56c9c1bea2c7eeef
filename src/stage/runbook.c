/* runbook.c - the runbook of a workload (contract in runbook.h). */
#include "stage/runbook.h"

#include "arch/arch.h"
#include "arch/passes.h"
#include "conf/conf.h"
#include "stage/submit.h"
#include "util/fsutil.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct rb {
    struct br_conf c;
    struct strbuf md;
    char *exe, *scripts, *arch, *set, *pmc_t, *pmc_note;
    long passes;
};

static void q(struct strbuf *sb, const char *s)
{
    sh_quote(sb, s);
}

/* "sbatch -p P [-N n] [-n n] -J tag-stage [-t T] " */
static void sbatch_head(struct rb *r, const char *stage, const char *t, bool parsable)
{
    bool layout = strcmp(stage, "counters") != 0;   /* the lister needs one task */
    struct strbuf *m = &r->md;
    sb_adds(m, "sbatch ");
    if (parsable)
        sb_adds(m, "--parsable ");
    sb_adds(m, "-p ");
    if (r->c.partition)
        q(m, r->c.partition);
    else
        sb_adds(m, "PARTITION");     /* placeholder, left for the reader to replace */
    sb_adds(m, " ");
    if (layout && r->c.nnodes > 1)
        sb_addf(m, "-N %ld ", r->c.nnodes);
    if (layout && r->c.ntasks > 1)
        sb_addf(m, "-n %ld ", r->c.ntasks);
    char *name = xasprintf("%s-%s", r->c.workload, stage);
    sb_adds(m, "-J ");
    q(m, name);
    sb_adds(m, " ");
    free(name);
    if (t) {
        sb_adds(m, "-t ");
        q(m, t);
        sb_adds(m, " ");
    }
}

static void sbatch_stage(struct rb *r, const char *stage, const char *t, const char *dep)
{
    sbatch_head(r, stage, t, dep != NULL);
    if (dep && *dep)
        sb_addf(&r->md, "--dependency=afterok:%s ", dep);
    char *script = xasprintf("%s/run_%s.sbatch", r->scripts, stage);
    q(&r->md, script);
    sb_adds(&r->md, " ");
    free(script);
    q(&r->md, r->c.path);
}

static void pmc_estimate(struct rb *r)
{
    struct submit_plain_run plain;
    long secs = -1, limit;
    if (r->passes > 0 && submit_find_plain(r->c.results_dir, &plain) == 0) {
        secs = submit_pmc_seconds(r->passes, plain.wall_s);
        r->pmc_note = xasprintf("%ld passes x 3 x %.0f s (plain run %s)", r->passes, plain.wall_s,
                                plain.run);
        submit_plain_run_release(&plain);
    } else if (r->passes > 0 && r->c.time_limit &&
               submit_slurm_time_parse(r->c.time_limit, &limit) == 0 && limit > 0) {
        secs = submit_pmc_seconds(r->passes, (double)limit);
        r->pmc_note = xasprintf("%ld passes x 3 x TIME_LIMIT %s (an upper bound; run `benchrun "
                                "runbook` again after the plain run for a tighter one)",
                                r->passes, r->c.time_limit);
    }
    if (secs > 0) {
        r->pmc_t = submit_slurm_time_format(secs);
    } else {
        r->pmc_t = xstrdup("01:00:00");
        r->pmc_note = xstrdup("a guess: allow ~passes x 3 x the plain run's wall time, and run "
                              "`benchrun runbook` again after the plain run");
    }
}

static void section_header(struct rb *r)
{
    struct strbuf *m = &r->md;
    sb_addf(m, "# Runbook: %s\n\n%s\n\n", r->c.workload, r->c.workload_desc);
    sb_addf(m, "Written by `benchrun runbook` from `%s`. Every command is filled in for this\n"
               "workload; run them from any folder. Submit each job yourself and check its\n"
               "result before the next step.\n\n", r->c.path);
    sb_adds(m, "| | |\n|---|---|\n");
    sb_addf(m, "| conf | `%s` |\n| results | `%s` |\n", r->c.path, r->c.results_dir);
    sb_addf(m, "| partition | %s |\n", r->c.partition ? r->c.partition :
            "**not set**: PARTITION in the conf (replace `PARTITION` below)");
    sb_addf(m, "| layout | NGPUS=%ld NTASKS=%ld NNODES=%ld BIND_GPU_PER_TASK=%d |\n", r->c.ngpus,
            r->c.ntasks, r->c.nnodes, r->c.bind_gpu_per_task ? 1 : 0);
    sb_addf(m, "| counter set | %s for %s: %ld passes |\n", r->set, r->arch, r->passes);
    sb_addf(m, "| sbatch wrappers | `%s` |\n\n", r->scripts);
}

/* What the dry run's app line starts with (stage_dry_run_print of the app argv:
 * LAUNCHER, srun -N.. -n.. for several tasks, nothing for one task on a login
 * node), as step 0's check. */
static char *dry_run_launcher(const struct br_conf *c)
{
    struct strbuf sb;
    sb_init(&sb);
    if (c->launcher.n && !(c->launcher.n == 1 && !strcmp(c->launcher.v[0], "none"))) {
        sb_adds(&sb, "the app line starts with `");
        for (size_t i = 0; i < c->launcher.n; i++)
            sb_addf(&sb, "%s%s", i ? " " : "", c->launcher.v[i]);
        sb_adds(&sb, "`");
    } else if (c->ntasks > 1) {
        sb_adds(&sb, "the app line starts with `srun ");
        if (c->nnodes > 1)
            sb_addf(&sb, "-N%ld ", c->nnodes);
        sb_addf(&sb, "-n%ld`", c->ntasks);
    } else {
        sb_adds(&sb, "the app line starts with `bash` (one task: no srun on the login node; the "
                     "job runs it under `srun -n1`)");
    }
    return sb_detach(&sb);
}

static void section_table(struct rb *r)
{
    char *launcher = dry_run_launcher(&r->c);
    sb_addf(&r->md,
        "## Pipeline\n\n"
        "| # | Step | Command | Check before moving on |\n|---|---|---|---|\n"
        "| 0 | Dry run (login node) | `benchrun {plain,pmc,power} CONF --dry-run` | Right binary "
        "and arguments, %s, no error lines |\n"
        "| 1 | Build (if needed) | your build job, for %s | Every path in REQUIRED_FILES exists |\n"
        "| 2 | Counter list | list_counters.sbatch, `benchrun counters check` | The list shows only "
        "%s; the check prints OK |\n"
        "| 3 | Plain run | run_plain.sbatch | Exit 0, correct output, the app's timing line "
        "(PERF_GREP); note the wall time |\n"
        "| 4 | PMC run | run_pmc.sbatch | Every pass reports rc=0 with counter CSVs; app timing "
        "consistent across passes |\n"
        "| 5 | Power run | run_power.sbatch | Exit 0; kernels traced; first sample and first "
        "kernel both just after clock_ref |\n"
        "| 6 | Analyze (login node) | `benchrun analyze` | The warnings list in report.md says "
        "none |\n"
        "| 7 | Vectors (login node) | `benchrun vectors` | Every vector present or skipped with "
        "a reason |\n\n"
        "Step 4 depends on step 2. Steps 3 and 5 depend on nothing; run step 3 first to\n"
        "confirm the app works before queueing the long PMC job.\n\n",
        launcher, r->arch, r->arch);
    free(launcher);
}

static void code_open(struct rb *r, const char *title)
{
    sb_addf(&r->md, "## %s\n\n```sh\n", title);
}

static void code_close(struct rb *r, const char *check)
{
    sb_addf(&r->md, "```\n\nCheck: %s\n\n", check);
}

static void section_steps_0_2(struct rb *r)
{
    struct strbuf *m = &r->md;
    code_open(r, "0. Dry runs (login node)");
    const char *stages[] = { "plain", "pmc", "power" };
    for (int i = 0; i < 3; i++) {
        q(m, r->exe);
        sb_addf(m, " %s ", stages[i]);
        q(m, r->c.path);
        sb_adds(m, " --dry-run\n");
    }
    code_close(r, "each prints `[dry-run]` lines and exits 0; the APP_CMD line shows the right "
                  "binary and arguments.");
    sb_adds(m, "## 1. Build (if needed)\n\nREQUIRED_FILES, checked before every run:\n\n");
    for (size_t i = 0; i < r->c.required_files.n; i++)
        sb_addf(m, "- `%s`%s\n", r->c.required_files.v[i],
                fs_exists(r->c.required_files.v[i]) ? "" : " (**missing now**)");
    if (r->c.required_files.n == 0)
        sb_adds(m, "- (none listed)\n");
    sb_adds(m, "\n");
    code_open(r, "2. Counter list (on a compute node) and check");
    char *list = xasprintf("%s/counters_list_%s.txt", r->c.results_dir, r->arch);
    sbatch_head(r, "counters", NULL, false);
    char *lister = xasprintf("%s/list_counters.sbatch", r->scripts);
    q(m, lister);
    sb_adds(m, " ");
    free(lister);
    q(m, list);
    sb_adds(m, "\n");
    q(m, r->exe);
    sb_adds(m, " counters check ");
    q(m, r->set);
    sb_adds(m, " ");
    q(m, list);
    sb_adds(m, "\n");
    free(list);
    code_close(r, "the list names only the compute node's GPU (a login node may show another, "
                  "e.g. gfx90a); the check prints OK.");
}

static void section_steps_3_7(struct rb *r)
{
    struct strbuf *m = &r->md;
    code_open(r, "3. Plain run");
    sbatch_stage(r, "plain", r->c.time_limit, NULL);
    sb_adds(m, "\n");
    code_close(r, "exit 0 in the job log, `RESULTS_DIR/plain-<jobid>/app.txt` is correct and "
                  "the PERF_GREP line is printed; note the wall time.");
    code_open(r, "4. PMC run");
    sbatch_stage(r, "pmc", r->pmc_t, NULL);
    sb_adds(m, "\n");
    sb_addf(m, "```\n\n-t %s: %s.\n\nCheck: every pass prints `rc=0` with a counter file; "
               "`pmc-<jobid>/run.json` lists no failed pass.\n\n", r->pmc_t, r->pmc_note);
    code_open(r, "5. Power run");
    sbatch_stage(r, "power", r->c.time_limit, NULL);
    sb_adds(m, "\n");
    code_close(r, "exit 0; the summary shows samples and kernels traced; first sample and "
                  "first kernel both a few seconds at most after clock_ref.");
    code_open(r, "6. Analyze (login node, no GPU needed)");
    q(m, r->exe);
    sb_adds(m, " analyze ");     /* the <...-jobid> placeholders stay outside the quotes */
    q(m, r->c.results_dir);
    sb_adds(m, "/pmc-<pmc-jobid> --power ");
    q(m, r->c.results_dir);
    sb_adds(m, "/prof-<power-jobid>\n");
    code_close(r, "`pmc-<jobid>/analysis/report.md` lists no warnings.");
    code_open(r, "7. Telemetry vectors (login node)");
    q(m, r->exe);
    sb_adds(m, " vectors ");
    q(m, r->c.results_dir);
    sb_adds(m, "/prof-<power-jobid> --label ");
    q(m, r->c.workload);
    sb_adds(m, "\n");
    code_close(r, "`prof-<jobid>/sampling_vectors.json` has inst_power, socket_power, "
                  "gfx_frequency and hotspot_temp, or says why one was skipped.");
}

/* Steps 3-5 through `benchrun submit`, then what it runs by hand. */
static void section_chain(struct rb *r)
{
    struct strbuf *m = &r->md;
    code_open(r, "Steps 3-5 in one go: benchrun submit (--dependency=afterok chain)");
    q(m, r->exe);
    sb_adds(m, " submit ");
    q(m, r->c.path);
    sb_adds(m, " --dry-run    # the sbatch commands as a shell script; submits nothing\n");
    q(m, r->exe);
    sb_adds(m, " submit ");
    q(m, r->c.path);
    sb_adds(m, "              # plain -> pmc -> power, each afterok on the previous\n");
    sb_adds(m, "```\n\n`benchrun submit` prints one line per job (stage, job id, sbatch command) "
               "and records the job ids in RESULTS_DIR/submitted.json; if Slurm rejects a "
               "stage it shows sbatch's error and says exactly which jobs are already queued. "
               "For the tight pmc `-t` (passes x 3 x the plain wall time), submit the later "
               "stages once the plain run has finished: `benchrun submit ");
    sb_adds(m, r->c.path);
    sb_adds(m, " pmc power`. By hand, as the seed's runbook chains them (pmc and power both "
               "wait for plain only, so they can run at the same time):\n\n```sh\n");
    sb_adds(m, "plain=$(");
    sbatch_stage(r, "plain", r->c.time_limit, "");
    sb_adds(m, ")\npmc=$(");
    sbatch_stage(r, "pmc", r->pmc_t, "$plain");
    sb_adds(m, ")\npower=$(");
    sbatch_stage(r, "power", r->c.time_limit, "$plain");
    sb_adds(m, ")\necho \"plain=$plain pmc=$pmc power=$power\"\n");
    sb_adds(m, "```\n\nA failed job keeps the later ones from starting (they stay pending with "
               "DependencyNeverSatisfied unless the cluster cancels them; scancel them).\n");
}

static int build(struct rb *r)
{
    r->exe = fs_self_exe();
    if (!r->exe)
        r->exe = xstrdup("benchrun");
    r->scripts = submit_scripts_dir();
    if (!r->scripts)
        return -1;
    r->arch = xstrdup(r->c.arch ? r->c.arch : arch_default(r->c.vendor));
    r->set = xstrdup(r->c.counters ? r->c.counters : "default");
    struct arch_passes p;
    if (arch_passes_load(&p, r->set, r->arch) == 0) {
        r->passes = (long)p.n;
        arch_passes_release(&p);
    }
    pmc_estimate(r);
    sb_init(&r->md);
    section_header(r);
    section_table(r);
    section_steps_0_2(r);
    section_steps_3_7(r);
    section_chain(r);
    return 0;
}

static void rb_release(struct rb *r)
{
    br_conf_release(&r->c);
    sb_release(&r->md);
    free(r->exe); free(r->scripts); free(r->arch); free(r->set);
    free(r->pmc_t); free(r->pmc_note);
}

int stage_runbook(const char *conf, const char *out, char **path)
{
    *path = NULL;
    struct rb r;
    memset(&r, 0, sizeof(r));
    if (br_conf_load(conf, NULL, 0, &r.c) != 0)
        return -1;
    int rc = build(&r);
    if (rc == 0) {
        char *leaf = xasprintf("RUNBOOK_%s.md", r.c.workload);
        *path = out ? xstrdup(out) : fs_path_join(r.c.dir, leaf);
        free(leaf);
        rc = fs_write_atomic(*path, r.md.buf, r.md.len);
    }
    if (rc != 0) {
        free(*path);
        *path = NULL;
    }
    rb_release(&r);
    return rc == 0 ? 0 : -1;
}
