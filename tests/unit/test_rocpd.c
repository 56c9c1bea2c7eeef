/* test_rocpd.c - the rocpd (SQLite) reader: a database built from
 * rocprofv3's own schema SQL (rocpdfix.h) read through its views, known
 * answers for dispatches, counters (summed over instances), agents, memory
 * copies, the per-process aggregate, pass folders, the power run and
 * calibrate's kernel timing; opened
 * read-only (no side files, the file unchanged, a -wal read); the same from
 * memory; malformed databases give clear errors (not SQLite, empty, no
 * views, missing column, wrong type, reversed times, NULL value, bad JSON,
 * a truncated file, a view that never ends). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "calib/calib.h"
#include "read/rocpd.h"
#include "read/rocprof.h"
#include "read/rpagg.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "rocpdfix.h"
#include "tmpdir.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *GEMM = "void gemm<double>(double const*, double*, int)";
static const char *COPY = "copy_kernel(int*, int)";

static char *g_dir;

/* The reference database: 3 dispatches (1, 3: gemm; 2: copy), counters on
 * 1 and 2 only (SQ_WAVES of dispatch 1 in two instances: 100 + 28), one
 * host-to-device copy. */
static char *make_db(const char *name)
{
    char *path = fs_path_join(g_dir, name);
    char *dir = xstrdup(path);
    *strrchr(dir, '/') = '\0';
    assert_int_equal(fs_mkdir_p(dir), 0);
    free(dir);
    sqlite3 *db = rpf_create(path);
    rpf_symbol(db, 1, GEMM, 128, 4, 96);
    rpf_symbol(db, 2, COPY, 16, 0, 24);
    rpf_dispatch(db, 1, 1, 1000, 1500, 8192, 16, 16, 65536);
    rpf_dispatch(db, 2, 2, 2000, 2100, 0, 64, 1, 1024);
    rpf_dispatch(db, 3, 1, 3000, 3700, 8192, 16, 16, 65536);
    rpf_pmc(db, 1, "SQ_WAVES");
    rpf_pmc(db, 2, "GRBM_GUI_ACTIVE");
    rpf_pmc(db, 3, "SQ_WAVES");        /* a second instance of the same counter */
    rpf_value(db, 1, 1, 100);
    rpf_value(db, 1, 3, 28);
    rpf_value(db, 1, 2, 4000);
    rpf_value(db, 2, 1, 16);
    rpf_value(db, 2, 2, 800);
    rpf_memcopy(db, 100, 500, 900, 4096);
    sqlite3_close(db);
    return path;
}

static int setup(void **st)
{
    (void)st;
    g_dir = tmpdir_new("rocpd");
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    assert_int_equal(tmpdir_remove(g_dir), 0);
    free(g_dir);
    return 0;
}

/* ---- walks ----------------------------------------------------------------------- */

struct seen {
    int n;
    struct rocpd_dispatch d[8];
    char names[8][96];
    double wave[4], grbm[4];          /* by dispatch id */
};

static int on_dispatch(void *ctx, const struct rocpd_dispatch *d)
{
    struct seen *s = ctx;
    assert_true(s->n < 8);
    s->d[s->n] = *d;
    snprintf(s->names[s->n], sizeof(s->names[0]), "%.*s", (int)d->name_len, d->name);
    s->n++;
    return 0;
}

static int on_counter(void *ctx, const struct rocpd_dispatch *d, const char *c, size_t n, double v)
{
    struct seen *s = ctx;
    assert_true(d->dispatch_id < 4);
    if (n == 8 && !memcmp(c, "SQ_WAVES", 8))
        s->wave[d->dispatch_id] += v;
    else if (n == 15 && !memcmp(c, "GRBM_GUI_ACTIVE", 15))
        s->grbm[d->dispatch_id] += v;
    else
        fail_msg("counter %.*s", (int)n, c);
    s->n++;
    return 0;
}

static int on_copy(void *ctx, const struct rocpd_memcopy *m)
{
    struct rocpd_memcopy *out = ctx;
    *out = *m;
    out->name = NULL;
    assert_int_equal(m->name_len, strlen("MEMORY_COPY_HOST_TO_DEVICE"));
    assert_memory_equal(m->name, "MEMORY_COPY_HOST_TO_DEVICE", m->name_len);
    return 0;
}

static void check_reads(struct rocpd_db *db)
{
    char *err = NULL;
    struct seen s;
    memset(&s, 0, sizeof(s));
    assert_int_equal(rocpd_each_dispatch(db, on_dispatch, &s, &err), 0);
    assert_int_equal(s.n, 3);
    const struct rocpd_dispatch *d1 = NULL;
    for (int i = 0; i < 3; i++)
        if (s.d[i].dispatch_id == 1)
            d1 = &s.d[i], assert_string_equal(s.names[i], GEMM);
    assert_non_null(d1);
    assert_int_equal(d1->start, 1000);
    assert_int_equal(d1->end, 1500);
    assert_int_equal(d1->agent, 2);
    assert_int_equal(d1->corr_id, 1);
    assert_int_equal(d1->attr.vgpr, 128);
    assert_int_equal(d1->attr.agpr, 4);
    assert_int_equal(d1->attr.sgpr, 96);
    assert_int_equal(d1->attr.lds, 8192);
    assert_int_equal(d1->attr.wg_x, 16);
    assert_int_equal(d1->attr.wg_y, 16);
    assert_int_equal(d1->attr.wg_size, 256);
    assert_int_equal(d1->attr.grid_size, 65536);
    assert_true(d1->attr.has_agpr);

    memset(&s, 0, sizeof(s));
    assert_int_equal(rocpd_each_counter(db, on_counter, &s, &err), 0);
    assert_int_equal(s.n, 4);          /* (dispatch, counter) rows: instances summed */
    assert_true(s.wave[1] == 128 && s.grbm[1] == 4000 && s.wave[2] == 16 && s.grbm[2] == 800);
    assert_true(s.wave[3] == 0);

    struct rocpd_memcopy m;
    memset(&m, 0, sizeof(m));
    assert_int_equal(rocpd_each_memcopy(db, on_copy, &m, &err), 0);
    assert_true(m.start == 500 && m.end == 900 && m.size == 4096);
    assert_true(m.src_agent == 0 && m.dst_agent == 2);

    struct rp_agent ag;
    assert_int_equal(rocpd_agent(db, &ag, &err), 0);
    assert_true(ag.present);
    assert_string_equal(rp_agent_get(&ag, "Name"), "gfx942");
    assert_string_equal(rp_agent_get(&ag, "Product_Name"), "AMD Instinct MI300X");
    double v;
    assert_int_equal(rp_agent_num(&ag, "Cu_Count", &v), 0);
    assert_true(v == 304);
    assert_int_equal(rp_agent_num(&ag, "Num_Xcc", &v), 0);   /* agent 2, not 3 */
    assert_true(v == 8);
    assert_int_equal(rp_agent_num(&ag, "Max_Engine_Clk_Fcompute", &v), 0);
    assert_true(v == 2100);
    assert_null(rp_agent_get(&ag, "mem_banks"));             /* arrays are not fields */
    assert_string_equal(ag.file, rocpd_name(db));
    free(ag.file);
    str_array_free(ag.keys);
    str_array_free(ag.vals);
}

static void test_views(void **st)
{
    (void)st;
    char *path = make_db("a/4242_results.db");
    struct stat before, after;
    assert_int_equal(stat(path, &before), 0);
    struct rocpd_db *db;
    char *err = NULL;
    assert_int_equal(rocpd_open(&db, path, &err), 0);
    check_reads(db);
    rocpd_close(db);
    /* read-only: nothing written beside it, the file unchanged */
    char *dir = fs_path_join(g_dir, "a");
    DIR *d = opendir(dir);
    int entries = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        entries += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(entries, 1);
    assert_int_equal(stat(path, &after), 0);
    assert_true(before.st_size == after.st_size && before.st_mtime == after.st_mtime);
    /* the same bytes from memory */
    size_t len;
    char *bytes = fs_read_file(path, &len);
    assert_int_equal(rocpd_open_mem(&db, "mem.db", bytes, len, &err), 0);
    free(bytes);
    check_reads(db);
    rocpd_close(db);
    free(dir);
    free(path);
}

/* A writer that has not checkpointed: its rows are in the -wal file, so
 * the reader must not open the database immutable. */
static void test_wal(void **st)
{
    (void)st;
    char *path = make_db("w/9_results.db");
    sqlite3 *w;
    assert_int_equal(sqlite3_open(path, &w), SQLITE_OK);
    rpf_exec(w, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;");
    rpf_dispatch(w, 4, 2, 5000, 5050, 0, 64, 1, 64);
    char *wal = xasprintf("%s-wal", path);
    assert_true(fs_exists(wal));
    struct rocpd_db *db;
    char *err = NULL;
    assert_int_equal(rocpd_open(&db, path, &err), 0);
    struct seen s;
    memset(&s, 0, sizeof(s));
    assert_int_equal(rocpd_each_dispatch(db, on_dispatch, &s, &err), 0);
    assert_int_equal(s.n, 4);
    rocpd_close(db);
    sqlite3_close(w);
    free(wal);
    free(path);
}

/* ---- the readers on top --------------------------------------------------------- */

static void test_aggregate(void **st)
{
    (void)st;
    char *path = make_db("01_x/01_x_4242_results.db");
    struct rp_agg a;
    assert_int_equal(rp_agg_read_db(&a, path, NULL), 0);
    uint32_t kg = intern_find(&a.kn, GEMM, strlen(GEMM)), kc = intern_find(&a.kn, COPY, strlen(COPY));
    uint32_t cw = intern_find(&a.cn, "SQ_WAVES", 8);
    assert_int_equal(a.kn.n, 2);
    assert_int_equal(a.launches[kg], 1);
    assert_int_equal(a.launches[kc], 1);
    assert_true(a.dur[kg] == 500 && a.dur[kc] == 100);
    assert_true(a.csum[kg * a.ccap + cw] == 128 && a.csum[kc * a.ccap + cw] == 16);
    assert_int_equal(a.trace_launches, 3);
    assert_int_equal(a.uncounted_launches, 1);       /* dispatch 3 */
    assert_true(a.uncounted_ns == 700);
    assert_int_equal(a.attr[kg].vgpr, 128);
    assert_int_equal(a.attr[kg].lds, 8192);
    assert_int_equal(a.attr[kg].wg_size, 256);
    assert_string_equal(a.cc_layout, "rocpd (counters_collection view)");
    rp_agg_release(&a);

    const char *passes[] = { "01_x" };
    struct rp_run run;
    assert_int_equal(rp_run_load(&run, g_dir, passes, 1, 1), 0);
    struct rp_pass *p = &run.passes[0];
    assert_true(p->present);
    assert_int_equal(p->nsets, 1);
    assert_int_equal(p->nfiles, 1);
    assert_string_equal(p->files[0], path);
    assert_string_equal(p->layout, "counter_collection rocpd (counters_collection view), "
                                   "kernel_trace rocpd (kernels view)");
    assert_true(run.agent.present);
    assert_string_equal(rp_agent_get(&run.agent, "Name"), "gfx942");
    rp_run_release(&run);
    char **found = rp_find_passes(g_dir);
    assert_string_equal(found[0], "01_x");
    str_array_free(found);

    /* power run: kernels [1000,1500] [2000,2100] [3000,3700] on agent 2 and the
     * host-to-device copy [500,900] to agent 2: busy 400 + 1300 of 500..3700 */
    struct intern names;
    intern_init(&names);
    struct rp_power pw;
    char *pdir = fs_path_join(g_dir, "01_x");
    assert_int_equal(rp_power_load(&pw, &names, pdir), 0);
    assert_int_equal(pw.dispatches, 3);
    assert_int_equal(pw.ngpus, 1);
    assert_int_equal(pw.gpu[0].agent, 2);
    assert_true(fabs(rp_power_busy_pct(&pw) - 100.0 * 1700 / 3200) < 1e-12);
    assert_true(fabs(rp_power_kernel_busy_pct(&pw) - 100.0 * 1300 / 3200) < 1e-12);
    assert_int_equal(pw.copies.n, 1);
    assert_int_equal(pw.copies.v[0].c.dir, CT_H2D);
    assert_int_equal(pw.copies.v[0].c.bytes, 4096);
    assert_int_equal(pw.gpu[0].copies, 1);
    assert_true(pw.gpu[0].copy_busy_ns == 400 && pw.gpu[0].first_start == 1000);
    assert_int_equal(pw.vgpr[intern_find(&names, GEMM, strlen(GEMM))], 128);
    rp_power_release(&pw);
    intern_release(&names);
    /* calibrate's kernel timing reads the database too: gemm 500 + 700 ns */
    double ns;
    long n;
    assert_int_equal(br_calib_trace_time(pdir, "void gemm<double>", &ns, &n), 0);
    assert_int_equal(n, 2);
    assert_true(ns == 1200);
    free(pdir);
    free(path);
}

/* ---- malformed ------------------------------------------------------------------- */

static struct strbuf g_msgs;
static void sink(void *ctx, int w, const char *m)
{
    (void)ctx;
    sb_addf(&g_msgs, "%s%s\n", w ? "W:" : "E:", m);
}

/* Reads path as a pass's database; the error must contain want. */
static void expect_db_error(const char *path, const char *want)
{
    struct rp_agg a;
    assert_int_equal(rp_agg_read_db(&a, path, NULL), -1);
    if (!a.err || !strstr(a.err, want))
        fail_msg("expected '%s' in: %s", want, a.err ? a.err : "(none)");
    assert_non_null(strstr(a.err, path));
    rp_agg_release(&a);
}

/* A database holding only the SQL given (own views named like rocpd's). */
static char *db_with(const char *name, const char *sql)
{
    char *path = fs_path_join(g_dir, name);
    remove(path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    rpf_exec(db, sql);
    sqlite3_close(db);
    return path;
}

static void test_malformed(void **st)
{
    (void)st;
    char *p = fs_path_join(g_dir, "text.db");
    assert_int_equal(fs_write_atomic(p, "\"Kind\",\"Agent_Id\"\n", 18), 0);
    expect_db_error(p, "not an SQLite database");
    free(p);
    p = fs_path_join(g_dir, "empty.db");
    assert_int_equal(fs_write_atomic(p, "", 0), 0);
    expect_db_error(p, "empty file (not a rocpd database)");
    free(p);
    p = fs_path_join(g_dir, "missing.db");
    expect_db_error(p, "cannot open file");
    free(p);
    p = db_with("plain.db", "CREATE TABLE t (x);");
    expect_db_error(p, "not a rocpd database: no view 'counters_collection'");
    free(p);
    static const char CC[] = "CREATE VIEW counters_collection AS SELECT 'k' AS kernel_name, "
                             "1 AS dispatch_id, 10 AS start, 20 AS end, 'SQ_WAVES' AS counter_name, ";
    p = db_with("noend.db", "CREATE VIEW counters_collection AS SELECT 'k' AS kernel_name, "
                            "1 AS dispatch_id, 10 AS start, 'SQ_WAVES' AS counter_name, 1.0 AS value;");
    expect_db_error(p, "view counters_collection: no column end");
    free(p);
    char *sql = xasprintf("%s NULL AS value;", CC);
    p = db_with("nullvalue.db", sql);
    expect_db_error(p, "view counters_collection, row 1: column value: expected a number, got NULL");
    free(p);
    free(sql);
    sql = xasprintf("%s 2.5 AS value, 'many' AS vgpr_count;", CC);
    p = db_with("textvgpr.db", sql);
    expect_db_error(p, "row 1: column vgpr_count: expected a non-negative integer, got TEXT 'many'");
    free(p);
    free(sql);
    sql = xasprintf("%s 1 AS value, -3 AS lds_block_size;", CC);
    p = db_with("negative.db", sql);
    expect_db_error(p, "column lds_block_size: -3 is out of range");
    free(p);
    free(sql);
    p = db_with("reversed.db", "CREATE VIEW counters_collection AS SELECT 'k' AS kernel_name, "
                               "1 AS dispatch_id, 9 AS start, 5 AS end, 'X' AS counter_name, 1 AS value;");
    expect_db_error(p, "column end: end 5 is before start 9");
    free(p);
    sql = xasprintf("%s 1 AS value; CREATE VIEW kernels AS SELECT 'k' AS name, 'x1' AS dispatch_id, "
                    "10 AS start, 20 AS end;", CC);
    p = db_with("textid.db", sql);
    expect_db_error(p, "view kernels, row 1: column dispatch_id: expected a non-negative integer, "
                       "got TEXT 'x1'");
    free(p);
    free(sql);
    /* a truncated copy of a real database */
    char *good = make_db("cut/good_results.db");
    size_t len;
    char *bytes = fs_read_file(good, &len);
    p = fs_path_join(g_dir, "cut/cut_results.db");
    assert_int_equal(fs_write_atomic(p, bytes, 8192), 0);
    struct rp_agg a;
    assert_int_equal(rp_agg_read_db(&a, p, NULL), -1);
    assert_non_null(a.err);
    assert_non_null(strstr(a.err, p));
    rp_agg_release(&a);
    free(p);
    free(bytes);
    free(good);
    /* the agent record is not JSON */
    p = db_with("agentjson.db", "CREATE VIEW rocpd_info_agent AS SELECT 'GPU' AS type, "
                                "1 AS absolute_index, 'gfx942' AS name, '{bad' AS extdata;");
    struct rocpd_db *db;
    char *err = NULL;
    assert_int_equal(rocpd_open(&db, p, &err), 0);
    struct rp_agent ag;
    assert_int_equal(rocpd_agent(db, &ag, &err), -1);
    assert_non_null(strstr(err, "view rocpd_info_agent, row 1: column extdata: expected a JSON object"));
    free(err);
    rocpd_close(db);
    free(p);
    /* a view that never ends stops at the step limit */
    p = db_with("forever.db", "CREATE VIEW counters_collection AS WITH RECURSIVE n(i) AS "
                              "(SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT 'k' AS kernel_name, "
                              "i AS dispatch_id, 1 AS start, 2 AS end, 'X' AS counter_name, "
                              "1 AS value FROM n WHERE i < 0;");
    rocpd_set_step_limit(200000);
    expect_db_error(p, "stopped (step limit)");
    rocpd_set_step_limit(0);
    free(p);
}

static void test_empty_pass(void **st)
{
    (void)st;
    char *dir = fs_path_join(g_dir, "03_z");
    assert_int_equal(fs_mkdir_p(dir), 0);
    free(dir);
    char *path = fs_path_join(g_dir, "03_z/03_z_7_results.db");
    sqlite3 *db = rpf_create(path);           /* a process that launched no kernel */
    sqlite3_close(db);
    const char *passes[] = { "03_z" };
    struct rp_run run;
    sb_init(&g_msgs);
    br_error_set_sink(sink, NULL);
    assert_int_equal(rp_run_load(&run, g_dir, passes, 1, 1), -1);
    br_error_set_sink(NULL, NULL);
    char *want = xasprintf("E:%s: no counter rows (in every counter file of pass 03_z)", path);
    if (!strstr(g_msgs.buf, want))
        fail_msg("expected '%s' in: %s", want, g_msgs.buf);
    free(want);
    rp_run_release(&run);
    sb_release(&g_msgs);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_wal),
        cmocka_unit_test(test_aggregate),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_empty_pass),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
