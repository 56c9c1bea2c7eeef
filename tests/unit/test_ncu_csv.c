/* test_ncu_csv.c - the ncu raw-CSV reader and converter on recorded ncu 2025.3.1 output
 * (tests/fixtures/nvidia/ncu-2025.3.1/, cut from recordings on an H200) and malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/ncu_csv.h"
#include "collect/ncu_convert.h"
#include "util/error.h"

#define FIXTURE BR_SOURCE_DIR "/tests/fixtures/nvidia/ncu-2025.3.1/axpy-raw-3launches.csv"

static char last_msg[512];
static void sink(void *ctx, int warn, const char *msg)
{
    (void)ctx, (void)warn;
    snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static double cell_num(const struct ncu_table *t, size_t row, const char *col)
{
    long c = ncu_table_col(t, col);
    assert_true(c >= 0);
    double v;
    assert_int_equal(ncu_parse_number(ncu_table_cell(t, row, (size_t)c), &v), 0);
    return v;
}

static void test_recorded(void **state)
{
    (void)state;
    struct ncu_table t;
    assert_int_equal(ncu_csv_read_file(FIXTURE, &t), 0);
    assert_int_equal(t.nrows, 3);
    assert_int_equal(t.skipped, 2);   /* the two ==PROF== lines */
    /* Known answers from the recording (data/h200/README.md). */
    assert_true(cell_num(&t, 0, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum") == 1048576.0);
    assert_true(cell_num(&t, 0, "dram__bytes_read.sum") == 8391424.0);
    assert_true(cell_num(&t, 0, "dram__bytes_write.sum") == 0.0);
    assert_true(cell_num(&t, 1, "smsp__thread_inst_executed.sum") == 19922944.0);
    assert_true(cell_num(&t, 1, "smsp__inst_executed.sum") == 622592.0);
    assert_true(cell_num(&t, 0, "sm__cycles_active.avg") == 6951.20);
    assert_string_equal(t.units[ncu_table_col(&t, "dram__bytes_read.sum")], "byte");
    assert_string_equal(ncu_table_cell(&t, 0, (size_t)ncu_table_col(&t, "Kernel Name")),
                        "axpy(int, float, const float *, float *)");
    unsigned long d[3];
    assert_int_equal(ncu_parse_dim3(ncu_table_cell(&t, 0, (size_t)ncu_table_col(&t, "Grid Size")), d), 0);
    assert_true(d[0] == 4096 && d[1] == 1 && d[2] == 1);
    ncu_table_release(&t);
}

static void test_convert(void **state)
{
    (void)state;
    struct ncu_table t;
    assert_int_equal(ncu_csv_read_file(FIXTURE, &t), 0);
    const char *m[] = { "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "dram__bytes_read.sum",
                        NULL };
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(ncu_write_counter_collection(&t, m, "fx", fp), 6);
    fclose(fp);
    /* Launch 0: 5,344 ns long from 0; launch 1 follows (5,248 ns). */
    assert_non_null(strstr(buf, "1,1,\"Agent 0\",7,6627,0,1048576,0,\"axpy(int, float, const float *, "
                                "float *)\",256,0,0,16,0,0,"
                                "\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\","
                                "1048576.000000,0,5344\n"));
    assert_non_null(strstr(buf, "\"dram__bytes_read.sum\",8391424.000000,0,5344\n"));
    assert_non_null(strstr(buf, ",5344,10592\n"));
    free(buf);
    const char *missing[] = { "lts__t_bytes.sum", NULL };
    br_error_set_sink(sink, NULL);
    fp = fopen("/dev/null", "w");
    assert_int_equal(ncu_write_counter_collection(&t, missing, "fx", fp), -1);
    fclose(fp);
    assert_non_null(strstr(last_msg, "'lts__t_bytes.sum' is not in the ncu output"));
    br_error_set_sink(NULL, NULL);
    ncu_table_release(&t);
}

/* Found by fuzz_ncu_csv: cells far outside an integer column's range
 * (ID 1e125, a negative size, a duration of -5, Process ID 6.6e99) fall back
 * to the defaults instead of an undefined float-to-integer conversion. */
static void test_out_of_range(void **state)
{
    (void)state;
    static const char csv[] =
        "\"ID\",\"Kernel Name\",\"Stream\",\"Device\",\"launch__registers_per_thread\","
        "\"launch__shared_mem_per_block_static\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\","
        "\"Process ID\"\n"
        "\"\",\"\",\"\",\"\",\"register/thread\",\"byte/block\",\"ns\",\"byte\",\"\"\n"
        "\"1e125\",\"k\",\"-1e300\",\"5e9\",\"1e40\",\"-8\",\"-5\",\"7\",\"6.6e99\"\n";
    struct ncu_table t;
    assert_int_equal(ncu_csv_parse(csv, sizeof(csv) - 1, "fx", &t), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(ncu_write_counter_collection(&t, NULL, "fx", fp), 2);   /* two metrics */
    fclose(fp);
    /* dispatch id = row 0 + 1, agent/stream/VGPR/LDS 0, duration 0, process 0 */
    assert_non_null(strstr(buf, "\n1,1,\"Agent 0\",0,0,"));
    assert_non_null(strstr(buf, ",\"dram__bytes_read.sum\",7.000000,0,0\n"));
    free(buf);
    ncu_table_release(&t);
}

static void test_numbers(void **state)
{
    (void)state;
    double v;
    unsigned long d[3];
    assert_int_equal(ncu_parse_number("1,048,576", &v), 0);
    assert_true(v == 1048576.0);
    assert_int_equal(ncu_parse_number("174,821.33", &v), 0);
    assert_true(fabs(v - 174821.33) < 1e-9);
    assert_int_equal(ncu_parse_number("-3.5", &v), 0);
    assert_true(v == -3.5);
    assert_int_equal(ncu_parse_number("n/a", &v), 1);
    assert_true(isnan(v));
    assert_int_equal(ncu_parse_number("", &v), 1);
    assert_int_equal(ncu_parse_number("1,,0", &v), -1);
    assert_int_equal(ncu_parse_number(",1", &v), -1);
    assert_int_equal(ncu_parse_number("all", &v), -1);
    assert_int_equal(ncu_parse_number("12abc", &v), -1);
    assert_int_equal(ncu_parse_dim3("(1, 2, 3)", d), 0);
    assert_int_equal(ncu_parse_dim3("(1, 2)", d), -1);
    assert_int_equal(ncu_parse_dim3("(1, -2, 3)", d), -1);
    assert_int_equal(ncu_parse_dim3("(1, 2, 3) x", d), -1);
}

static int parse_str(const char *s, struct ncu_table *t)
{
    return ncu_csv_parse(s, strlen(s), "m.csv", t);
}

static void test_malformed(void **state)
{
    (void)state;
    struct ncu_table t;
    br_error_set_sink(sink, NULL);
    assert_int_equal(parse_str("", &t), -1);
    assert_non_null(strstr(last_msg, "no ncu CSV header"));
    assert_int_equal(parse_str("==PROF== only\nhello\n", &t), -1);
    assert_int_equal(parse_str("\"ID\",\"a\"\n\"\",\"u\"\n\"1\"\n", &t), -1);
    assert_non_null(strstr(last_msg, "m.csv:3: expected 2 fields as in the header, found 1"));
    assert_int_equal(parse_str("\"ID\",\"a\"\n\"1\",\"unterminated\n", &t), -1);
    assert_non_null(strstr(last_msg, "m.csv:2: malformed CSV field"));
    assert_int_equal(parse_str("\"ID\",\"a\"\n\"1\",\"x\"junk\n", &t), -1);
    br_error_set_sink(NULL, NULL);
    /* No units row, CRLF, a quoted "" inside a name, app output between rows. */
    assert_int_equal(parse_str("app says hi\r\n\"ID\",\"Kernel Name\"\r\n\"0\",\"k(\"\"q\"\")\"\r\n"
                               "app output\r\n\"1\",\"k2\"", &t), 0);
    assert_int_equal(t.nrows, 2);
    assert_string_equal(ncu_table_cell(&t, 0, 1), "k(\"q\")");
    assert_string_equal(ncu_table_cell(&t, 1, 1), "k2");
    assert_string_equal(t.units[1], "");
    assert_string_equal(ncu_table_cell(&t, 5, 9), "");
    ncu_table_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded), cmocka_unit_test(test_convert),
        cmocka_unit_test(test_numbers),  cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
