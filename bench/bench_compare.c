/* bench_compare.c - `benchrun compare` on many workloads against a baseline
 * measured in the same run on the same files (page cache warm):
 *   read      cmp_add_input() of every workload's sampling_vectors.json
 *             (read + JSON parse): what any compare must do
 *   compare   the same read, then pdist (cosine), linkage (--method, ward by
 *             default), dendrogram, nearest and every output file
 * Prints each step's time (best of --reps), the ratio compare / read and the
 * share of the distance matrix CSV, whose size grows as n^2.
 *
 * usage: bench_compare [--workloads N] [--reps R] [--method M] [--dir DIR] [--keep]
 * Data: N power-run folders DIR/prof-<i>/sampling_vectors.json (default 2000,
 * a temp folder removed afterwards unless --keep; reused when it holds the
 * same count), 15-entry inst_power vectors from four families of random
 * power traces, written like `benchrun vectors` writes them (a description
 * header and five vectors).
 */
#include "compare/compare.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "write/wr_compare.h"

#include "bench_util.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static double rnd(void)   /* uniform in [0, 1) */
{
    return (double)(bench_xorshift(&rng_state) >> 11) / 9007199254740992.0;
}

/* A 15-bin histogram of a random trace around one of four power levels. */
static void vector(int family, double *v)
{
    int count[15] = { 0 }, n = 500;
    double mean = 0.7 + 0.3 * family + 0.1 * (rnd() - 0.5);
    for (int s = 0; s < n; s++) {
        double x = mean + 0.15 * (rnd() + rnd() + rnd() - 1.5);
        int i = (int)floor((x - 0.5) / 0.1);
        if (i >= 0 && i < 15)
            count[i]++;
    }
    for (int i = 0; i < 15; i++)
        v[i] = round(count[i] * 10000.0 / n) / 10000;
}

static int write_workload(const char *dir, long i)
{
    char *d = xasprintf("%s/prof-%06ld", dir, i);
    char *p = xasprintf("%s/sampling_vectors.json", d);
    int rc = fs_mkdir_p(d);
    FILE *f = rc == 0 ? fopen(p, "w") : NULL;
    if (f) {
        double v[15];
        fprintf(f, "{\n  \"description\": {\n    \"label\": \"bench workload %ld\",\n"
                   "    \"gpu\": { \"arch\": \"gfx942\" }\n  }", i);
        static const char *const kinds[] = { "inst_power", "socket_power", "gfx_frequency",
                                             "hotspot_temp", "edge_temp" };
        for (int k = 0; k < 5; k++) {
            vector((int)(i % 4), v);
            fprintf(f, ",\n  \"%s\": [", kinds[k]);
            for (int e = 0; e < 15; e++)
                fprintf(f, "%s%.4g", e ? ", " : "", v[e]);
            fputc(']', f);
        }
        fputs("\n}\n", f);
        rc = fclose(f) == 0 ? 0 : br_error("cannot write '%s'", p);
    } else {
        rc = br_error("cannot create '%s'", p);
    }
    free(p);
    free(d);
    return rc;
}

static int prepare(const char *dir, long n)
{
    char *stamp = xasprintf("%s/.bench_%ld", dir, n);
    int rc = 0;
    if (!fs_exists(stamp)) {
        fprintf(stderr, "bench_compare: writing %ld workloads to %s ...\n", n, dir);
        rc = fs_mkdir_p(dir);
        for (long i = 0; rc == 0 && i < n; i++)
            rc = write_workload(dir, i);
        if (rc == 0)
            rc = fs_write_atomic(stamp, "", 0);
    }
    free(stamp);
    return rc;
}

static int load(const char *dir, long n, struct cmp_set *s)
{
    cmp_set_init(s, "inst_power");
    for (long i = 0; i < n; i++) {
        char *p = xasprintf("%s/prof-%06ld", dir, i);
        int rc = cmp_add_input(s, p);
        free(p);
        if (rc != 0)
            return -1;
    }
    return cmp_check_labels(s);
}

struct times {
    double read, pdist, linkage, dendro, write, csv;
};

static int run(const char *dir, long n, enum cmp_method m, struct times *t)
{
    struct cmp_set s;
    struct cmp_dendro d = { 0 };
    double t0 = bench_now_s();
    if (load(dir, n, &s) != 0)
        return -1;
    double t1 = bench_now_s();
    double *y = cmp_pdist(&s, CMP_COSINE);
    double t2 = bench_now_s();
    double(*Z)[4] = xcalloc((size_t)n - 1, sizeof(*Z));
    int rc = y ? cmp_linkage(y, s.n, m, Z) : -1;
    double t3 = bench_now_s();
    if (rc == 0)
        rc = cmp_dendrogram(Z, s.n, -1, &d);
    size_t near[5];
    size_t nn = rc == 0 ? cmp_nearest(y, s.n, 0, 5, near) : 0;
    double t4 = bench_now_s();
    char *out = fs_path_join(dir, "out");
    struct wr_compare c = { .s = &s, .metric = CMP_COSINE, .method = m, .y = y, .Z = Z, .d = &d,
                            .query = 0, .near = near, .nnear = nn, .out_dir = out };
    if (rc == 0)
        rc = wr_compare(&c);
    double t5 = bench_now_s();
    *t = (struct times){ t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, 0 };
    free(out);
    free(Z);
    free(y);
    cmp_dendro_release(&d);
    cmp_set_release(&s);
    return rc;
}

static void keep_best(struct times *best, const struct times *t)
{
    double *b = &best->read;
    const double *x = &t->read;
    for (int i = 0; i < 5; i++)
        b[i] = x[i] < b[i] ? x[i] : b[i];
}

int main(int argc, char **argv)
{
    long n = 2000;
    int reps = 3, keep = 0;
    char *dir = NULL;
    enum cmp_method method = CMP_WARD;
    static const struct option lo[] = {
        { "workloads", required_argument, NULL, 'n' }, { "reps", required_argument, NULL, 'r' },
        { "method", required_argument, NULL, 'm' }, { "dir", required_argument, NULL, 'd' },
        { "keep", no_argument, NULL, 'k' }, { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "n:r:m:d:k", lo, NULL)) != -1) {
        switch (c) {
        case 'n': n = atol(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 'm': method = (enum cmp_method)cmp_method_parse(optarg); break;
        case 'd': dir = xstrdup(optarg); keep = 1; break;
        case 'k': keep = 1; break;
        default: fprintf(stderr, "usage: bench_compare [--workloads N] [--reps R] [--method M] "
                                 "[--dir DIR] [--keep]\n"); return 2;
        }
    }
    if (n < 2 || reps < 1 || (int)method < 0)
        return fprintf(stderr, "bench_compare: bad arguments\n"), 2;
    char tmpl[] = "/tmp/bench_compare.XXXXXX";
    if (!dir) {
        if (!mkdtemp(tmpl))
            return perror("mkdtemp"), 1;
        dir = xstrdup(tmpl);
    }
    if (prepare(dir, n) != 0)
        return 1;
    struct times best = { 1e9, 1e9, 1e9, 1e9, 1e9, 0 }, t;
    struct cmp_set warm;
    if (load(dir, n, &warm) != 0)                       /* warm the page cache */
        return 1;
    cmp_set_release(&warm);
    for (int i = 0; i < reps; i++) {
        if (run(dir, n, method, &t) != 0)
            return 1;
        keep_best(&best, &t);
    }
    char *csv = xasprintf("%s/out/distances.csv", dir);
    size_t csv_len = 0;
    free(fs_read_file(csv, &csv_len));
    double total = best.read + best.pdist + best.linkage + best.dendro + best.write;
    printf("bench_compare: %ld workloads (15-entry vectors), cosine + %s; best of %d\n", n,
           cmp_method_name(method), reps);
    printf("  read inputs (baseline) %8.3f s\n", best.read);
    printf("  pdist                  %8.3f s\n", best.pdist);
    printf("  linkage                %8.3f s\n", best.linkage);
    printf("  dendrogram + nearest   %8.3f s\n", best.dendro);
    printf("  write outputs          %8.3f s  (distances.csv %.1f MB)\n", best.write,
           (double)csv_len / 1e6);
    printf("  compare in all         %8.3f s\n", total);
    printf("  ratio compare / read   %8.2f\n", total / best.read);
    if (!keep) {
        char *cmd = xasprintf("rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_compare: cannot remove %s\n", dir);
        free(cmd);
    }
    free(csv);
    free(dir);
    return 0;
}
