/* bench_analyze.c - speed and memory of `benchrun analyze` against `cat` of the
 * same files, measured in one run.
 *
 * Generates (tests/tools/gen_rocprof) the benchmark run: 7.x layout, the
 * six seed passes, 68,000 launches per pass, ~1.4 GB of CSV, into a temporary
 * folder; warms the page cache; then times `cat FILES > /dev/null` and
 * `benchrun analyze` (median of --reps runs each, wall clock, peak RSS of the
 * child from wait4). Prints the throughput ratio analyze/cat, the wall time,
 * the peak RSS as % of the input, and with --scale10 the same at 10x the
 * launches (when /tmp has the room; checked with statvfs first). Removes what it
 * generated unless --keep. Targets: < 1 s end to end, >= 1/3 of cat's
 * throughput, peak memory < 10% of the input, linear to 10x.
 *
 * usage: bench_analyze [--benchrun PATH] [--gen PATH] [--dir DIR] [--reps N]
 *                      [--scale10] [--keep] [--name-len N]
 */
#include "util/xalloc.h"

#include "bench_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct opts {
    const char *benchrun, *gen, *dir;
    int reps, name_len;
    bool scale10, keep;
};

struct res {
    double wall_s;
    long maxrss_kb;
    int status;
};

/* Runs argv with stdout to out_path (NULL: inherited) and stderr to err_path
 * (NULL: inherited); wall time and the child's peak RSS. */
static int run(char *const *argv, const char *out_path, const char *err_path, struct res *r)
{
    double t0 = bench_now_s();
    pid_t pid = fork();
    if (pid < 0)
        return perror("fork"), -1;
    if (pid == 0) {
        if (out_path) {
            int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0)
                _exit(127);
        }
        if (err_path) {
            int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, 2) < 0)
                _exit(127);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return perror("wait4"), -1;
    r->wall_s = bench_now_s() - t0;
    r->maxrss_kb = ru.ru_maxrss;
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return 0;
}

/* Every *.csv under dir (two levels: pass folders), appended to argv. */
static void list_csv(const char *dir, char ***v, size_t *n, long long *bytes)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "analysis") == 0)
            continue;
        char *p = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        size_t l = strlen(p);
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            list_csv(p, v, n, bytes);
            free(p);
        } else if (l > 4 && strcmp(p + l - 4, ".csv") == 0) {
            *v = xrealloc(*v, (*n + 2) * sizeof(char *));
            (*v)[(*n)++] = p;
            (*v)[*n] = NULL;
            *bytes += st.st_size;
        } else {
            free(p);
        }
    }
    if (d)
        closedir(d);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median wall time of reps runs; *rss gets the largest peak RSS. */
static int median_of(char *const *argv, const char *out, const char *err, int reps, double *med,
                     long *rss)
{
    double *t = xcalloc((size_t)reps, sizeof(double));
    *rss = 0;
    for (int i = 0; i < reps; i++) {
        struct res r;
        if (run(argv, out, err, &r) != 0 || r.status != 0) {
            fprintf(stderr, "bench_analyze: %s failed (status %d)\n", argv[0], r.status);
            if (err) {
                char *head[] = { "head", "-20", (char *)err, NULL };
                struct res h;
                run(head, NULL, NULL, &h);
            }
            free(t);
            return -1;
        }
        t[i] = r.wall_s;
        if (r.maxrss_kb > *rss)
            *rss = r.maxrss_kb;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    *med = t[reps / 2];
    free(t);
    return 0;
}

struct point {
    long long bytes;
    double cat_s, an_s;
    long an_rss_kb;
};

static int generate(const struct opts *o, const char *pmc, long launches)
{
    char l[32], n[32];
    snprintf(l, sizeof(l), "%ld", launches);
    snprintf(n, sizeof(n), "%d", o->name_len);
    char *argv[] = { (char *)o->gen, "--layout", "7.x", "--launches", l, "--kernels", "40",
                     "--min-name-len", n, "--expected", "/dev/null", (char *)pmc, NULL };
    struct res r;
    fprintf(stderr, "bench_analyze: generating %s (%ld launches per pass)...\n", pmc, launches);
    if (run(argv, NULL, NULL, &r) != 0 || r.status != 0)
        return fprintf(stderr, "bench_analyze: generator failed\n"), -1;
    fprintf(stderr, "bench_analyze: generated in %.1f s\n", r.wall_s);
    return 0;
}

static int measure(const struct opts *o, const char *pmc, struct point *pt)
{
    char **cat = xcalloc(2, sizeof(char *));
    size_t n = 1;
    cat[0] = xstrdup("cat");
    pt->bytes = 0;
    list_csv(pmc, &cat, &n, &pt->bytes);
    char *out = xasprintf("%s/analysis", pmc), *err = xasprintf("%s.analyze.err", pmc);
    char *an[] = { (char *)o->benchrun, "analyze", (char *)pmc, "--out-dir", out, NULL };
    long rss;
    struct res warm;
    int rc = run(cat, "/dev/null", NULL, &warm);          /* page cache warm-up */
    if (rc == 0)
        rc = median_of(cat, "/dev/null", NULL, o->reps, &pt->cat_s, &rss);
    if (rc == 0)
        rc = median_of(an, "/dev/null", err, o->reps, &pt->an_s, &pt->an_rss_kb);
    for (size_t i = 0; i < n; i++)
        free(cat[i]);
    free(cat);
    free(out);
    free(err);
    return rc;
}

/* One run's figures; the < 1 s target applies to the 1x run only. */
static void report(const char *label, const struct point *p, bool one_second)
{
    double gb = (double)p->bytes / 1e9;
    double ratio = (gb / p->an_s) / (gb / p->cat_s);
    double rss_pct = 100.0 * (double)p->an_rss_kb * 1024.0 / (double)p->bytes;
    printf("%s: input %.3f GB (%lld B)\n", label, gb, p->bytes);
    printf("  cat > /dev/null (warm cache)  %7.3f s  %6.2f GB/s  (median of runs)\n", p->cat_s,
           gb / p->cat_s);
    printf("  benchrun analyze              %7.3f s  %6.2f GB/s  peak RSS %.1f MB\n", p->an_s,
           gb / p->an_s, (double)p->an_rss_kb / 1024.0);
    printf("  throughput analyze/cat        %7.3f    target >= 0.333  %s\n", ratio,
           ratio >= 1.0 / 3 ? "ok" : "MISSED");
    if (one_second)
        printf("  end to end                    %7.3f s  target < 1 s      %s\n", p->an_s,
               p->an_s < 1.0 ? "ok" : "MISSED");
    printf("  peak RSS / input              %7.2f %%  target < 10 %%     %s\n", rss_pct,
           rss_pct < 10 ? "ok" : "MISSED");
}

static long long free_bytes(const char *dir)
{
    struct statvfs s;
    return statvfs(dir, &s) == 0 ? (long long)s.f_bavail * (long long)s.f_frsize : 0;
}

static void cleanup(const struct opts *o, const char *path)
{
    if (o->keep)
        return;
    char *err = xasprintf("%s.analyze.err", path);
    char *argv[] = { "rm", "-rf", (char *)path, err, NULL };
    struct res r;
    run(argv, NULL, NULL, &r);
    free(err);
}

static int scale10(const struct opts *o, const struct point *p1)
{
    long long need = p1->bytes * 10 + p1->bytes / 2;
    if (free_bytes(o->dir) < need) {
        printf("10x: skipped: %s has %.1f GB free, needs %.1f GB\n", o->dir,
               (double)free_bytes(o->dir) / 1e9, (double)need / 1e9);
        return 0;
    }
    char *pmc = xasprintf("%s/pmc10", o->dir);
    struct point p10;
    int rc = generate(o, pmc, 680000);
    if (rc == 0)
        rc = measure(o, pmc, &p10);
    if (rc == 0) {
        report("10x run", &p10, false);
        double tr = p10.an_s / p1->an_s, br = (double)p10.bytes / (double)p1->bytes;
        printf("  scaling: %.2fx input -> %.2fx analyze time (linear: ~%.1fx; %s), peak RSS %.2fx\n",
               br, tr, br, tr <= 1.1 * br ? "ok" : "MISSED",
               (double)p10.an_rss_kb / (double)p1->an_rss_kb);
    }
    cleanup(o, pmc);
    free(pmc);
    return rc;
}

static int parse(struct opts *o, int argc, char **argv)
{
    static const struct option lo[] = {
        { "benchrun", 1, NULL, 'b' }, { "gen", 1, NULL, 'g' }, { "dir", 1, NULL, 'd' },
        { "reps", 1, NULL, 'r' }, { "scale10", 0, NULL, 's' }, { "keep", 0, NULL, 'k' },
        { "name-len", 1, NULL, 'n' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 } };
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'b': o->benchrun = optarg; break;
        case 'g': o->gen = optarg; break;
        case 'd': o->dir = optarg; break;
        case 'r': o->reps = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
        case 's': o->scale10 = true; break;
        case 'k': o->keep = true; break;
        case 'n': o->name_len = atoi(optarg); break;
        default:
            printf("usage: bench_analyze [--benchrun PATH] [--gen PATH] [--dir DIR] [--reps N]\n"
                   "                     [--scale10] [--keep] [--name-len N]\n");
            return c == 'h' ? 1 : -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = { .benchrun = BR_BINARY_DIR "/benchrun", .gen = BR_BINARY_DIR "/tests/gen_rocprof",
                      .reps = 3, .name_len = 480 };
    int p = parse(&o, argc, argv);
    if (p != 0)
        return p > 0 ? 0 : 2;
    char *tmpdir = NULL;
    if (!o.dir) {
        tmpdir = xasprintf("/tmp/benchrun-bench-%d", (int)getpid());
        o.dir = tmpdir;
    }
    mkdir(o.dir, 0755);
    char *pmc = xasprintf("%s/pmc", o.dir);
    struct point p1;
    int rc = generate(&o, pmc, 68000);
    if (rc == 0)
        rc = measure(&o, pmc, &p1);
    if (rc == 0) {
        printf("bench_analyze: 7.x layout, 6 passes x 68,000 launches, 40 kernels "
               "(generated by gen_rocprof)\n");
        report("1x run", &p1, true);
    }
    cleanup(&o, pmc);
    if (rc == 0 && o.scale10)
        rc = scale10(&o, &p1);
    if (!o.keep && tmpdir)
        rmdir(o.dir);
    free(pmc);
    free(tmpdir);
    return rc == 0 ? 0 : 1;
}
