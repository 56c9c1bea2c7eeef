/* test_compare.c - `benchrun compare` (src/compare/): known answers computed
 * by hand for small cases (cosine distances of (1,0), (0,1), (1,1); every
 * linkage method on them; Ward on 1-D points; the tie-breaking of the
 * nearest-neighbour chain on equidistant unit vectors; the minimum spanning
 * tree's order and the stable sort; dendrogram leaf order, colours and their
 * cycling; flat clusters; nearest neighbours), the vectors JSON reader and
 * its malformed inputs, the RFC 4180 table reader, and the baseline
 * comparison of two small analyses. The comparison with scipy itself is
 * tests/cli/0661-compare-scipy.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/baseline.h"
#include "compare/compare.h"
#include "msgcap.h"
#include "read/csvtab.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

static void set_of(struct cmp_set *s, const double *rows, size_t n, size_t dim)
{
    cmp_set_init(s, "inst_power");
    s->dim = dim;
    s->n = n;
    s->w = xcalloc(n, sizeof(*s->w));
    for (size_t i = 0; i < n; i++) {
        s->w[i].label = xasprintf("w%zu", i);
        s->w[i].path = xasprintf("in%zu.json", i);
        s->w[i].origin = xstrdup("test");
        s->w[i].v = xcalloc(dim, sizeof(double));
        memcpy(s->w[i].v, rows + i * dim, dim * sizeof(double));
    }
}

static void assert_close(double got, double want)
{
    if (!(fabs(got - want) <= 1e-15 * fmax(1, fabs(want))))
        fail_msg("got %.17g, want %.17g", got, want);
}

static void assert_row(const double *z, double a, double b, double h, double size)
{
    assert_true(z[0] == a);
    assert_true(z[1] == b);
    assert_close(z[2], h);
    assert_true(z[3] == size);
}

/* (1,0), (0,1), (1,1): cos = 0, 1/sqrt2, 1/sqrt2. */
static const double tri[] = { 1, 0, 0, 1, 1, 1 };
#define H (1 - 1 / sqrt(2.0))

static void test_cosine_by_hand(void **state)
{
    (void)state;
    struct cmp_set s;
    set_of(&s, tri, 3, 2);
    double *y = cmp_pdist(&s, CMP_COSINE);
    assert_non_null(y);
    assert_close(y[0], 1);       /* (0,1) */
    assert_close(y[1], H);       /* (0,2) */
    assert_close(y[2], H);       /* (1,2) */
    assert_int_equal(cmp_condensed_index(3, 2, 1), 2);
    assert_int_equal(cmp_condensed_index(4, 1, 3), 4);
    free(y);
    /* euclidean and cityblock of the same points */
    y = cmp_pdist(&s, CMP_EUCLIDEAN);
    assert_close(y[0], sqrt(2.0)), assert_close(y[1], 1), assert_close(y[2], 1);
    free(y);
    y = cmp_pdist(&s, CMP_CITYBLOCK);
    assert_close(y[0], 2), assert_close(y[1], 1), assert_close(y[2], 1);
    free(y);
    cmp_set_release(&s);
}

static void test_correlation_by_hand(void **state)
{
    (void)state;
    /* (1,2,3) and (3,2,1) are perfectly anti-correlated: distance 2;
     * (1,2,3) and (2,4,6): 0; (1,2,3) and (1,3,2): centred (-1,0,1) and
     * (-1,1,0): cos = 1 / 2, distance 0.5. */
    static const double r[] = { 1, 2, 3, 3, 2, 1, 2, 4, 6, 1, 3, 2 };
    struct cmp_set s;
    set_of(&s, r, 4, 3);
    double *y = cmp_pdist(&s, CMP_CORRELATION);
    assert_non_null(y);
    assert_close(y[cmp_condensed_index(4, 0, 1)], 2);
    assert_close(y[cmp_condensed_index(4, 0, 2)], 0);
    assert_close(y[cmp_condensed_index(4, 0, 3)], 0.5);
    free(y);
    cmp_set_release(&s);
}

static void test_zero_vector_refused(void **state)
{
    (void)state;
    static const double r[] = { 0.5, 0.5, 0, 0, 1, 0 };
    struct cmp_set s;
    set_of(&s, r, 3, 2);
    msgcap_start();
    assert_null(cmp_pdist(&s, CMP_COSINE));
    assert_non_null(strstr(g_msgs.buf, "in1.json: inst_power of 'w1' is all zeros"));
    assert_non_null(strstr(g_msgs.buf, "--metric euclidean"));
    msgcap_stop();
    double *y = cmp_pdist(&s, CMP_EUCLIDEAN);   /* defined there */
    assert_non_null(y);
    assert_close(y[0], sqrt(0.5));
    free(y);
    msgcap_start();
    assert_null(cmp_pdist(&s, CMP_CORRELATION));   /* (0.5, 0.5) is constant */
    assert_non_null(strstr(g_msgs.buf, "'w0' is constant"));
    msgcap_stop();
    cmp_set_release(&s);
}

static void test_linkage_methods_by_hand(void **state)
{
    (void)state;
    const double y[3] = { 1, H, H };
    double Z[2][4];
    /* single: MST from 0 reaches 2 (H), then 1 from 2 (H); equal heights keep
     * that order; relabelled (0,2) -> 3, (1,3). */
    assert_int_equal(cmp_linkage(y, 3, CMP_SINGLE, Z), 0);
    assert_row(Z[0], 0, 2, H, 2), assert_row(Z[1], 1, 3, H, 3);
    assert_int_equal(cmp_linkage(y, 3, CMP_COMPLETE, Z), 0);
    assert_row(Z[0], 0, 2, H, 2), assert_row(Z[1], 1, 3, 1, 3);
    assert_int_equal(cmp_linkage(y, 3, CMP_AVERAGE, Z), 0);
    assert_row(Z[0], 0, 2, H, 2), assert_row(Z[1], 1, 3, (1 + H) / 2, 3);
    assert_int_equal(cmp_linkage(y, 3, CMP_WEIGHTED, Z), 0);
    assert_row(Z[1], 1, 3, (1 + H) / 2, 3);
    /* ward: d(1, {0,2}) = sqrt((2 d01^2 + 2 d12^2 - d02^2) / 3) */
    assert_int_equal(cmp_linkage(y, 3, CMP_WARD, Z), 0);
    assert_row(Z[0], 0, 2, H, 2), assert_row(Z[1], 1, 3, sqrt((2 + 2 * H * H - H * H) / 3), 3);
}

static void test_ward_euclidean_1d(void **state)
{
    (void)state;
    /* points 0, 1, 3: d = 1, 3, 2; {0,1} at 1, then
     * sqrt((2*9 + 2*4 - 1) / 3) = sqrt(25/3) */
    const double y[3] = { 1, 3, 2 };
    double Z[2][4];
    assert_int_equal(cmp_linkage(y, 3, CMP_WARD, Z), 0);
    assert_row(Z[0], 0, 1, 1, 2), assert_row(Z[1], 2, 3, sqrt(25.0 / 3), 3);
}

static void test_chain_ties_equidistant(void **state)
{
    (void)state;
    /* four unit basis vectors: every cosine distance is 1. The chain from 0
     * takes the first nearest (1); 1 prefers its predecessor 0 on the tie:
     * merge (0,1). Ward's update gives sqrt(2/3 + 2/3 - 1/3) = 1 again, so the
     * chain restarts at slot 1 ({0,1}), takes 2 first, merges, then 3. */
    static const double e[] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    struct cmp_set s;
    set_of(&s, e, 4, 4);
    double *y = cmp_pdist(&s, CMP_COSINE), Z[3][4];
    for (int i = 0; i < 6; i++)
        assert_true(y[i] == 1);
    assert_int_equal(cmp_linkage(y, 4, CMP_WARD, Z), 0);
    assert_row(Z[0], 0, 1, 1, 2), assert_row(Z[1], 2, 4, 1, 3), assert_row(Z[2], 3, 5, 1, 4);
    free(y);
    cmp_set_release(&s);
}

static void test_sort_and_relabel(void **state)
{
    (void)state;
    /* points 0, 1, 10, 11 (single): the MST merges (0,1) at 1, (1,2) at 9,
     * (2,3) at 1; the stable sort puts (2,3) second, so it becomes cluster 5
     * and the last merge joins 4 and 5. */
    const double y[6] = { 1, 10, 11, 9, 10, 1 };
    double Z[3][4];
    assert_int_equal(cmp_linkage(y, 4, CMP_SINGLE, Z), 0);
    assert_row(Z[0], 0, 1, 1, 2), assert_row(Z[1], 2, 3, 1, 2), assert_row(Z[2], 4, 5, 9, 4);
    /* complete on the same: (0,1) at 1, (2,3) at 1, then max distance 11 */
    assert_int_equal(cmp_linkage(y, 4, CMP_COMPLETE, Z), 0);
    assert_row(Z[0], 0, 1, 1, 2), assert_row(Z[1], 2, 3, 1, 2), assert_row(Z[2], 4, 5, 11, 4);

    struct cmp_dendro d;
    assert_int_equal(cmp_linkage(y, 4, CMP_SINGLE, Z), 0);
    assert_int_equal(cmp_dendrogram(Z, 4, -1, &d), 0);
    assert_close(d.threshold, 0.7 * 9);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(d.leaves[i], i);
    /* two groups below the threshold: C1, then C2 after the C0 root */
    assert_int_equal(d.link_color[0], 1);
    assert_int_equal(d.link_color[1], 2);
    assert_int_equal(d.link_color[2], 0);
    assert_int_equal(d.leaf_color[3], 2);
    assert_int_equal(d.nclusters, 2);
    assert_int_equal(d.cluster[0], 1), assert_int_equal(d.cluster[1], 1);
    assert_int_equal(d.cluster[2], 2), assert_int_equal(d.cluster[3], 2);
    assert_int_equal(d.cluster_color[2], 2);
    assert_string_equal(cmp_color_name(2), "C2");
    assert_string_equal(cmp_color_hex(0), "#1f77b4");
    cmp_dendro_release(&d);
}

static void test_dendrogram_by_hand(void **state)
{
    (void)state;
    /* complete on (1,0), (0,1), (1,1): Z = (0,2,H), (1,3,1). The root draws
     * leaf 1 left, cluster 3 = (0, 2) right: leaves 1, 0, 2. Threshold 0.7:
     * the root is C0, (0,2) below: C1; leaf 1 alone. */
    double Z[2][4] = { { 0, 2, H, 2 }, { 1, 3, 1, 3 } };
    struct cmp_dendro d;
    assert_int_equal(cmp_dendrogram(Z, 3, -1, &d), 0);
    assert_close(d.threshold, 0.7);
    assert_int_equal(d.leaves[0], 1), assert_int_equal(d.leaves[1], 0);
    assert_int_equal(d.leaves[2], 2);
    assert_int_equal(d.pos[2], 2);
    assert_int_equal(d.link_color[0], 1), assert_int_equal(d.link_color[1], 0);
    assert_int_equal(d.leaf_color[1], 0), assert_int_equal(d.leaf_color[0], 1);
    assert_int_equal(d.nclusters, 2);
    assert_int_equal(d.cluster[1], 1), assert_int_equal(d.cluster[0], 2);
    assert_int_equal(d.cluster_color[1], 0);
    cmp_dendro_release(&d);
    /* all heights 0 (identical vectors): threshold 0, every link C0 */
    double Z0[2][4] = { { 0, 1, 0, 2 }, { 2, 3, 0, 3 } };
    assert_int_equal(cmp_dendrogram(Z0, 3, -1, &d), 0);
    assert_int_equal(d.link_color[0], 0), assert_int_equal(d.link_color[1], 0);
    assert_int_equal(d.nclusters, 3);
    cmp_dendro_release(&d);
}

static void test_nearest(void **state)
{
    (void)state;
    /* 4 points: d(0,1)=3 d(0,2)=1 d(0,3)=3 d(1,2)=5 d(1,3)=2 d(2,3)=4 */
    const double y[6] = { 3, 1, 3, 5, 2, 4 };
    size_t idx[5];
    assert_int_equal(cmp_nearest(y, 4, 0, 5, idx), 3);
    assert_int_equal(idx[0], 2), assert_int_equal(idx[1], 1), assert_int_equal(idx[2], 3);
    assert_int_equal(cmp_nearest(y, 4, 0, 2, idx), 2);   /* equal 3s: input order */
    assert_int_equal(idx[0], 2), assert_int_equal(idx[1], 1);
    assert_int_equal(cmp_nearest(y, 4, 3, 1, idx), 1);
    assert_int_equal(idx[0], 1);
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(cmp_metric_parse("cosine"), CMP_COSINE);
    assert_int_equal(cmp_metric_parse("correlation"), CMP_CORRELATION);
    assert_int_equal(cmp_metric_parse("manhattan"), -1);
    assert_int_equal(cmp_method_parse("ward"), CMP_WARD);
    assert_int_equal(cmp_method_parse("centroid"), -1);
    assert_string_equal(cmp_method_name(CMP_AVERAGE), "average");
    assert_string_equal(cmp_metric_name(CMP_CITYBLOCK), "cityblock");
    msgcap_start();
    const double y[1] = { NAN };
    double Z[1][4];
    assert_int_equal(cmp_linkage(y, 2, CMP_WARD, Z), -1);
    assert_int_equal(cmp_linkage(y, 1, CMP_WARD, Z), -1);
    msgcap_stop();
}

/* ---- the vectors reader -------------------------------------------------- */

static int parse(struct cmp_set *s, const char *text, const char *name, const char *label)
{
    return cmp_parse_vectors(text, strlen(text), name, label, s);
}

static void test_parse_layouts(void **state)
{
    (void)state;
    struct cmp_set s;
    cmp_set_init(&s, "inst_power");
    /* benchrun layout, extra and renamed keys, objects beside the vectors */
    assert_int_equal(parse(&s, "{\"description\": {\"label\": \"LAMMPS\", \"new_key\": [1],"
                               " \"bins\": {\"inst_power\": {\"edges\": [0.5, 0.6, 0.7],"
                               " \"unit\": \"fraction of TDP\"}}},"
                               " \"inst_power\": [0.25, 0.75], \"inst_power_gpu0\": [1, 0],"
                               " \"extra\": {\"x\": 1}}",
                           "a/prof-1/sampling_vectors.json", NULL), 0);
    /* seed layout: bin_edges, gpu as a string; no label: the folder name */
    assert_int_equal(parse(&s, "{\"description\": {\"gpu\": \"MI300X\", \"bins\": {\"inst_power\":"
                               " {\"bin_edges\": [0.5, 0.6, 0.7]}}}, \"inst_power\": [1, 0]}",
                           "b/prof-2/sampling_vectors.json", NULL), 0);
    /* app_vectors layout: one workload per member */
    assert_int_equal(parse(&s, "{\"x\": [0.5, 0.5], \"y\": [0, 1]}", "known.json", NULL), 0);
    /* LABEL= overrides a one-workload file */
    assert_int_equal(parse(&s, "{\"description\": {\"label\": \"L\"}, \"inst_power\": [0, 1]}",
                           "c.json", "mine"), 0);
    assert_int_equal(s.n, 5);
    assert_int_equal(s.dim, 2);
    assert_string_equal(s.w[0].label, "LAMMPS");
    assert_true(s.w[0].v[1] == 0.75);
    assert_string_equal(s.w[1].label, "prof-2");
    assert_string_equal(s.w[2].label, "x");
    assert_string_equal(s.w[3].label, "y");
    assert_non_null(strstr(s.w[3].origin, "app_vectors.json member 'y'"));
    assert_string_equal(s.w[4].label, "mine");
    assert_non_null(s.edges);
    assert_true(s.edges[2] == 0.7);
    assert_string_equal(s.unit, "fraction of TDP");
    assert_int_equal(cmp_find(&s, "y"), 3);
    assert_int_equal(cmp_find(&s, "known.json"), 2);   /* by path: the first from it */
    assert_int_equal(cmp_find(&s, "nope"), -1);
    assert_int_equal(cmp_check_labels(&s), 0);
    cmp_set_release(&s);
}

/* Each malformed input fails with a message naming the file and the fault. */
static void test_parse_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *text, *label, *msg;
    } cases[] = {
        { "{\"description\": {}, \"inst_power\": [0.5,", NULL, "bad.json:1:" },
        { "[1, 2]", NULL, "expected a JSON object" },
        { "{\"description\": {}, \"gfx_frequency\": [1, 2]}", NULL,
          "no vector 'inst_power' (vectors in the file: gfx_frequency)" },
        { "{\"description\": {}, \"inst_power\": [0.5, null]}", NULL, "entry 1 is null" },
        { "{\"description\": {}, \"inst_power\": [0.5, \"x\"]}", NULL, "entry 1 is not a number" },
        { "{\"description\": {}, \"inst_power\": []}", NULL, "is empty" },
        { "{\"description\": {}, \"inst_power\": {\"a\": 1}}", NULL, "no vector 'inst_power'" },
        { "{\"description\": {}, \"inst_power\": [1, 2, 3]}", NULL, "has 3 entries" },
        { "{\"a\": [1, 2], \"b\": 3}", NULL, "member 'b' is not an array" },
        { "{\"a\": [1, 2], \"b\": [3, 4]}", "L", "LABEL= names one workload, the file holds 2" },
        { "{\"a\": [1, 2], \"a\": [3, 4]}", NULL, "duplicate object key" },
        { "{}", NULL, "no vectors" },
        { "", NULL, "bad.json" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cmp_set s;
        cmp_set_init(&s, "inst_power");
        assert_int_equal(parse(&s, "{\"first\": [0.1, 0.9]}", "first.json", NULL), 0);
        msgcap_start();
        if (parse(&s, cases[i].text, "bad.json", cases[i].label) != -1)
            fail_msg("case %zu accepted", i);
        if (!strstr(g_msgs.buf, cases[i].msg) || !strstr(g_msgs.buf, "bad.json"))
            fail_msg("case %zu: '%s' not in '%s'", i, cases[i].msg, g_msgs.buf);
        msgcap_stop();
        cmp_set_release(&s);
    }
}

static void test_duplicate_labels(void **state)
{
    (void)state;
    struct cmp_set s;
    cmp_set_init(&s, "inst_power");
    assert_int_equal(parse(&s, "{\"a\": [1, 2]}", "one.json", NULL), 0);
    assert_int_equal(parse(&s, "{\"a\": [3, 4]}", "two.json", NULL), 0);
    msgcap_start();
    assert_int_equal(cmp_check_labels(&s), -1);
    assert_non_null(strstr(g_msgs.buf, "two workloads are labelled 'a' (one.json and two.json)"));
    msgcap_stop();
    cmp_set_release(&s);
}

static char *write_file(const char *dir, const char *name, const char *text)
{
    char *p = fs_path_join(dir, name);
    assert_int_equal(fs_write_atomic(p, text, strlen(text)), 0);
    return p;
}

static void test_inputs(void **state)
{
    (void)state;
    char *d = tmpdir_new("cmpin");
    char *prof = fs_path_join(d, "prof-7");
    assert_int_equal(fs_mkdir_p(prof), 0);
    free(write_file(prof, "sampling_vectors.json",
                    "{\"description\": {\"label\": \"seven\"}, \"inst_power\": [0.5, 0.5]}"));
    char *file = write_file(d, "w.json", "{\"description\": {}, \"inst_power\": [1, 0]}");
    struct cmp_set s;
    cmp_set_init(&s, "inst_power");
    assert_int_equal(cmp_add_input(&s, prof), 0);
    char *arg = xasprintf("renamed=%s", file);
    assert_int_equal(cmp_add_input(&s, arg), 0);
    assert_string_equal(s.w[0].label, "seven");
    assert_string_equal(s.w[0].path, prof);        /* the folder, as given */
    assert_string_equal(s.w[1].label, "renamed");
    assert_string_equal(s.w[1].path, file);
    msgcap_start();
    char *missing = fs_path_join(d, "nothing");
    assert_int_equal(cmp_add_input(&s, missing), -1);
    assert_non_null(strstr(g_msgs.buf, "no such file or folder"));
    msgcap_stop();
    cmp_set_release(&s);
    free(arg), free(missing), free(file), free(prof);
    assert_int_equal(tmpdir_remove(d), 0);
    free(d);
}

/* ---- CSV tables --------------------------------------------------------- */

static void test_csvtab(void **state)
{
    (void)state;
    const char *text = "kernel,kernel_full_name,time_ms\r\n"
                       "\"a \"\"q\"\", b\",\"line\none\",1.5\r\n"
                       "\n"
                       "plain,,\n"
                       "last,x,2";
    struct csvtab t;
    assert_int_equal(csvtab_parse(text, strlen(text), "t.csv", &t), 0);
    assert_int_equal(t.ncols, 3);
    assert_int_equal(t.nrows, 3);
    assert_string_equal(csvtab_cell(&t, 0, 0), "a \"q\", b");
    assert_string_equal(csvtab_cell(&t, 0, 1), "line\none");
    assert_string_equal(csvtab_cell(&t, 0, 2), "1.5");
    assert_string_equal(csvtab_cell(&t, 1, 1), "");
    assert_string_equal(csvtab_cell(&t, 2, 2), "2");
    assert_int_equal(t.line[0], 2);
    assert_int_equal(t.line[1], 5);    /* after a quoted line end and a blank line */
    assert_int_equal(csvtab_col(&t, "time_ms"), 2);
    assert_int_equal(csvtab_col(&t, "x"), -1);
    assert_string_equal(csvtab_cell(&t, 9, 9), "");
    csvtab_release(&t);

    static const struct {
        const char *text, *msg;
    } bad[] = {
        { "a,b\n1,2,3\n", "t.csv:2: expected 2 fields as in the header, found 3" },
        { "a,b\n\"1,2\n", "t.csv:2: malformed CSV field" },
        { "a,b\n\"1\"x,2\n", "t.csv:2: malformed CSV field" },
        { "", "empty CSV file" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        msgcap_start();
        assert_int_equal(csvtab_parse(bad[i].text, strlen(bad[i].text), "t.csv", &t), -1);
        if (!strstr(g_msgs.buf, bad[i].msg))
            fail_msg("case %zu: '%s' not in '%s'", i, bad[i].msg, g_msgs.buf);
        msgcap_stop();
    }
}

/* ---- baseline ------------------------------------------------------------ */

static void test_change_pct(void **state)
{
    (void)state;
    assert_close(cmp_change_pct(2, 3), 50);
    assert_close(cmp_change_pct(-2, -3), -50);
    assert_close(cmp_change_pct(4, 1), -75);
    assert_true(cmp_change_pct(0, 0) == 0);
    assert_true(isnan(cmp_change_pct(0, 1)));
    assert_true(isnan(cmp_change_pct(NAN, 1)));
    double v;
    assert_true(cmp_parse_num("1.5e3", &v) && v == 1500);
    assert_false(cmp_parse_num("", &v));
    assert_false(cmp_parse_num("1.5x", &v));
    assert_false(cmp_parse_num("nan", &v));
    assert_false(cmp_parse_num("memory", &v));
}

static void test_analysis_csv_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } bad[] = {
        { "name,time_ms\nk,1\n", "a.csv:1: no 'kernel' column" },
        { "kernel,kernel_full_name,t\nk,f(int),1\nj,g,2\nk2,f(int),3\n",
          "a.csv:4: kernel 'f(int)' appears twice (also on line 2)" },
        { "kernel,kernel_full_name\n\"k,1\n", "a.csv:2: malformed CSV field" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cmp_analysis a = { 0 };
        msgcap_start();
        assert_int_equal(cmp_analysis_load_csv(&a, bad[i].text, strlen(bad[i].text), "a.csv"), -1);
        if (!strstr(g_msgs.buf, bad[i].msg))
            fail_msg("case %zu: '%s' not in '%s'", i, bad[i].msg, g_msgs.buf);
        msgcap_stop();
        cmp_analysis_release(&a);
    }
    /* TOTAL first with an empty full name (the seed's layout) */
    const char *seed = "kernel,kernel_full_name,t\nTOTAL,,3\nk,,1\nj,j(),2\n";
    struct cmp_analysis a = { 0 };
    assert_int_equal(cmp_analysis_load_csv(&a, seed, strlen(seed), "s.csv"), 0);
    assert_int_equal(a.total, 0);
    assert_string_equal(cmp_analysis_key(&a, 1), "k");    /* kernel when no full name */
    assert_string_equal(cmp_analysis_key(&a, 2), "j()");
    json_t *w = cmp_analysis_whole(&a);                  /* no summary: the TOTAL row */
    assert_true(json_number_value(json_object_get(w, "t")) == 3);
    json_decref(w);
    cmp_analysis_release(&a);
}

static char *analysis_dir(const char *root, const char *name, const char *csv, const char *summary)
{
    char *d = fs_path_join(root, name);
    char *an = fs_path_join(d, "analysis");
    assert_int_equal(fs_mkdir_p(an), 0);
    free(write_file(an, "per_kernel_metrics.csv", csv));
    if (summary)
        free(write_file(an, "summary.json", summary));
    free(an);
    return d;
}

static void test_baseline(void **state)
{
    (void)state;
    char *root = tmpdir_new("cmpbl");
    char *a = analysis_dir(root, "pmc-a",
                           "kernel,kernel_full_name,time_ms,bound,only_a\n"
                           "gemm,\"gemm<64>(double*, int)\",10,compute,1\n"
                           "copy,copy(float*),4,memory,2\n"
                           "old,old(),1,latency,3\n"
                           "TOTAL,TOTAL,15,compute,6\n",
                           "{\"whole_run\": {\"time_ms\": 15, \"bound\": \"compute\"},"
                           " \"power_run\": {\"GPU_busy_pct\": 80}}");
    char *b = analysis_dir(root, "pmc-b",
                           "kernel,kernel_full_name,time_ms,bound,only_b\n"
                           "TOTAL,,13,memory,0\n"
                           "copy,copy(float*),5,memory,0\n"
                           "gemm,\"gemm<64>(double*, int)\",7.5,memory,0\n"
                           "new,new(),0.5,latency,0\n",
                           NULL);
    struct cmp_baseline bl;
    msgcap_start();   /* B has no summary.json: a warning */
    assert_int_equal(cmp_baseline_build(a, b, NULL, &bl), 0);
    assert_non_null(strstr(g_msgs.buf, "no summary.json"));
    msgcap_stop();
    assert_int_equal(bl.nmetrics, 2);
    assert_string_equal(bl.metric[0], "time_ms");
    assert_string_equal(bl.metric[1], "bound");
    assert_string_equal(json_string_value(json_array_get(bl.cols_only_a, 0)), "only_a");
    assert_string_equal(json_string_value(json_array_get(bl.cols_only_b, 0)), "only_b");
    assert_int_equal(bl.nboth, 2);
    assert_int_equal(bl.both[0][0], 0), assert_int_equal(bl.both[0][1], 2);   /* gemm */
    assert_int_equal(bl.both[1][0], 1), assert_int_equal(bl.both[1][1], 1);   /* copy */
    assert_int_equal(bl.nonly_a, 1), assert_int_equal(bl.only_a[0], 2);
    assert_int_equal(bl.nonly_b, 1), assert_int_equal(bl.only_b[0], 3);
    /* whole run: A from summary.json (+ GPU_busy_pct), B from its TOTAL row */
    assert_int_equal(bl.nwhole, 2);
    assert_string_equal(bl.whole_key[0], "time_ms");
    assert_true(json_number_value(json_object_get(bl.whole_a, "GPU_busy_pct")) == 80);
    assert_true(json_number_value(json_object_get(bl.whole_b, "time_ms")) == 13);
    assert_close(cmp_change_pct(10, 7.5), -25);
    cmp_baseline_release(&bl);

    assert_int_equal(cmp_baseline_build(a, b, "time_ms", &bl), 0);
    assert_int_equal(bl.nmetrics, 1);
    assert_int_equal(bl.nwhole, 1);
    cmp_baseline_release(&bl);
    msgcap_start();
    assert_int_equal(cmp_baseline_build(a, b, "time_ms,nope", &bl), -1);
    assert_non_null(strstr(g_msgs.buf, "'nope' is a metric of neither"));
    cmp_baseline_release(&bl);
    assert_int_equal(cmp_baseline_build(a, root, NULL, &bl), -1);
    assert_non_null(strstr(g_msgs.buf, "no per_kernel_metrics.csv"));
    msgcap_stop();
    cmp_baseline_release(&bl);
    free(a), free(b);
    assert_int_equal(tmpdir_remove(root), 0);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cosine_by_hand),
        cmocka_unit_test(test_correlation_by_hand),
        cmocka_unit_test(test_zero_vector_refused),
        cmocka_unit_test(test_linkage_methods_by_hand),
        cmocka_unit_test(test_ward_euclidean_1d),
        cmocka_unit_test(test_chain_ties_equidistant),
        cmocka_unit_test(test_sort_and_relabel),
        cmocka_unit_test(test_dendrogram_by_hand),
        cmocka_unit_test(test_nearest),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_parse_layouts),
        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_duplicate_labels),
        cmocka_unit_test(test_inputs),
        cmocka_unit_test(test_csvtab),
        cmocka_unit_test(test_change_pct),
        cmocka_unit_test(test_analysis_csv_malformed),
        cmocka_unit_test(test_baseline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
