/* nodesamp.c - one `benchrun sample` per node for multi-node power runs.
 *
 * Owns: the sampler step's srun argv, starting it (own process group, log
 * file), waiting for every node's clock_ref_<node>.txt, and stopping it with
 * a stop file (see nodesamp.h for why not a signal). Units: seconds.
 * Slurm facts (slurm-wlm 22.05, measured on tests/slurm/cluster.sh): a step
 * started with --overlap runs beside the app step in the same allocation;
 * `-N N --ntasks-per-node=1` alone is ignored inside an allocation with more
 * tasks ("can't honor --ntasks-per-node"), so -n N is given too.
 * SPDX-License-Identifier: MIT
 */
#include "stage/nodesamp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

/* Per task: run benchrun sample with this node's name. $0 = benchrun. */
static const char k_sampler_sh[] =
    "exec \"$0\" sample --node \"${SLURMD_NODENAME:-$(hostname -s)}\" \"$@\"";
/* The sampled command: waits until the stop file exists. $1 = stop file. */
static const char k_wait_sh[] = "while [ ! -e \"$1\" ]; do sleep 0.1; done";

bool stage_node_samplers_wanted(const struct br_conf *c)
{
    return c->nnodes > 1;
}

void stage_node_samplers_argv(const struct stage *st, const char *self, struct strv *out)
{
    const struct br_conf *c = &st->conf;
    strv_init(out);
    strv_push(out, "srun");
    strv_push(out, "--overlap");
    strv_pushf(out, "--nodes=%ld", c->nnodes);
    strv_pushf(out, "--ntasks=%ld", c->nnodes);
    strv_push(out, "--ntasks-per-node=1");
    strv_push(out, "--kill-on-bad-exit=0");
    strv_push(out, "bash");
    strv_push(out, "-c");
    strv_push(out, k_sampler_sh);
    strv_push(out, self);
    strv_push(out, "--gpus");
    strv_push(out, c->sample_gpus);
    strv_push(out, "--interval-ms");
    strv_pushf(out, "%ld", c->sample_ms);
    if (c->sample_backend && strcmp(c->sample_backend, "auto") != 0) {
        strv_push(out, "--backend");
        strv_push(out, c->sample_backend);
    }
    strv_push(out, "--prefix");
    strv_push(out, c->workload);
    strv_push(out, "-o");
    strv_push(out, st->rundir);
    strv_push(out, "--");
    strv_push(out, "bash");
    strv_push(out, "-c");
    strv_push(out, k_wait_sh);
    strv_push(out, "benchrun-samplers-wait");
    strv_pushf(out, "%s/%s", st->rundir, STAGE_SAMPLERS_STOP);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap(void)
{
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    nanosleep(&ts, NULL);
}

/* clock_ref_<node>.txt files in dir (each node writes one before sampling). */
static long count_clock_refs(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "clock_ref_", 10) == 0 && len > 14 &&
            strcmp(e->d_name + len - 4, ".txt") == 0)
            n++;
    }
    closedir(d);
    return n;
}

static pid_t spawn_logged(const struct strv *argv, const char *log)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        br_error("cannot open '%s': %s", log, strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);                    /* terminal signals are not for it */
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        int dn = open("/dev/null", O_RDONLY);
        if (dn >= 0)
            dup2(dn, STDIN_FILENO);
        execvp(argv->v[0], argv->v);
        fprintf(stderr, "benchrun: cannot run '%s': %s\n", argv->v[0], strerror(errno));
        _exit(127);
    }
    close(fd);
    if (pid < 0)
        br_error("cannot start the sampler step: fork: %s", strerror(errno));
    return pid;
}

/* Waits for the child up to timeout_s; its exit status (128+signal), or -1
 * when it is still running. */
static int wait_for(pid_t pid, double timeout_s)
{
    double end = now_s() + timeout_s;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (r < 0 && errno != EINTR)
            return 255;                   /* not our child any more */
        if (now_s() >= end)
            return -1;
        nap();
    }
}

int stage_node_samplers_start(struct stage_node_samplers *ns, const struct stage *st,
                              const struct strv *argv, const char *log, double timeout_s)
{
    memset(ns, 0, sizeof(*ns));
    ns->rundir = xstrdup(st->rundir);
    ns->nnodes = st->conf.nnodes;
    ns->stop_path = fs_path_join(st->rundir, STAGE_SAMPLERS_STOP);
    unlink(ns->stop_path);
    ns->pid = spawn_logged(argv, log);
    if (ns->pid < 0) {
        ns->pid = 0;
        stage_node_samplers_stop(ns, 0);
        return -1;
    }
    double end = now_s() + timeout_s;
    long have = 0;
    while ((have = count_clock_refs(st->rundir)) < ns->nnodes) {
        int rc = wait_for(ns->pid, 0);
        if (rc >= 0 || now_s() >= end) {
            if (rc >= 0)
                ns->pid = 0;
            br_error("the per-node samplers did not start: %ld of %ld nodes wrote "
                     "clock_ref_<node>.txt %s (see '%s')", have, ns->nnodes,
                     rc >= 0 ? "before the sampler step ended" : "in time", log);
            stage_node_samplers_stop(ns, 5);
            return -1;
        }
        nap();
    }
    return 0;
}

int stage_node_samplers_stop(struct stage_node_samplers *ns, double timeout_s)
{
    int rc = -1;
    if (ns->pid > 0) {
        int fd = open(ns->stop_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
        rc = wait_for(ns->pid, timeout_s);
        if (rc < 0) {
            br_warn("the sampler step did not end %.0f s after the app: stopping it", timeout_s);
            kill(-ns->pid, SIGTERM);
            rc = wait_for(ns->pid, timeout_s < 10 ? timeout_s : 10);
        }
        if (rc < 0) {
            kill(-ns->pid, SIGKILL);
            rc = wait_for(ns->pid, 5);
        }
    }
    if (ns->stop_path)
        unlink(ns->stop_path);
    free(ns->stop_path);
    free(ns->rundir);
    memset(ns, 0, sizeof(*ns));
    return rc;
}
