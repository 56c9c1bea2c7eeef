/* test_telemetry.c - the telemetry CSV reader (src/read/telemetry.c):
 * layout, columns by name, nan, CRLF, truncation, malformed input with
 * file:line, exact number conversion, block boundaries in file mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/telemetry.h"
#include "msgcap.h"
#include "util/error.h"
#include "util/strbuf.h"

static struct br_telem *open_str(const char *s)
{
    return br_telem_open_mem("t.csv", s, strlen(s));
}

#define HDR "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C," \
            "hotspot_temp_C"

static void test_basic(void **state)
{
    (void)state;
    struct br_telem *t = open_str(
        "# device=0 interval_ms=1 backend=sim clock=CLOCK_BOOTTIME name=\"AMD MI300X\"\n"
        HDR ",energy_J,mem_clock_MHz\n"
        "1000,500.5,612.25,2100,nan,55,0.5,1300\n"
        "2000,501,,1900,NaN,56,1.25,1300\r\n"
        "\n"
        "3000,-0.0,1e3,2.1E3,-nan,5.5e1,2,nan\n");
    assert_non_null(t);
    assert_int_equal(br_telem_meta_count(t), 5);
    assert_string_equal(br_telem_meta(t, "interval_ms"), "1");
    assert_string_equal(br_telem_meta(t, "backend"), "sim");
    assert_string_equal(br_telem_meta(t, "name"), "AMD MI300X");
    assert_null(br_telem_meta(t, "nothere"));
    assert_int_equal(br_telem_ncols(t), 8);
    assert_string_equal(br_telem_colname(t, 6), "energy_J");
    assert_int_equal(br_telem_col(t, "mem_clock_MHz"), 7);
    assert_int_equal(br_telem_want(t, "energy_J"), 0);
    assert_int_equal(br_telem_want(t, "nope"), -1);
    assert_int_equal(br_telem_want(t, "gfx_clock_MHz"), 1);
    assert_int_equal(br_telem_want(t, "energy_J"), 0);

    struct br_telem_row r;
    assert_int_equal(br_telem_next(t, &r), 1);
    assert_int_equal(r.line, 3);
    assert_int_equal(r.timestamp_ns, 1000);
    assert_true(r.v[TELEM_SOCKET_POWER] == 500.5);
    assert_true(r.v[TELEM_INST_POWER] == 612.25);
    assert_true(r.v[TELEM_GFX_CLOCK] == 2100);
    assert_true(isnan(r.v[TELEM_EDGE_TEMP]));
    assert_true(r.v[TELEM_HOTSPOT_TEMP] == 55);
    assert_true(r.extra[0] == 0.5);
    assert_true(r.extra[1] == 2100);
    assert_int_equal(br_telem_next(t, &r), 1);
    assert_int_equal(r.line, 4);
    assert_true(isnan(r.v[TELEM_INST_POWER]));      /* empty field */
    assert_true(r.extra[0] == 1.25);
    assert_int_equal(br_telem_next(t, &r), 1);      /* blank line skipped */
    assert_int_equal(r.line, 6);
    assert_true(r.v[TELEM_SOCKET_POWER] == 0 && signbit(r.v[TELEM_SOCKET_POWER]));
    assert_true(r.v[TELEM_INST_POWER] == 1000);
    assert_true(r.v[TELEM_GFX_CLOCK] == 2100);
    assert_true(isnan(r.v[TELEM_EDGE_TEMP]));
    assert_true(r.v[TELEM_HOTSPOT_TEMP] == 55);
    assert_int_equal(br_telem_next(t, &r), 0);
    assert_int_equal(br_telem_next(t, &r), 0);
    assert_int_equal(br_telem_rows(t), 3);
    assert_false(br_telem_truncated(t));
    br_telem_close(t);
    assert_string_equal(g_msgs.buf, "");
}

/* The metadata line `benchrun sample` writes (src/sample/sampler.c). */
static void test_sampler_metadata(void **state)
{
    (void)state;
    struct br_telem *t = open_str(
        "benchrun_telemetry=1 device=3 backend=sim interval_ms=1.000000 "
        "energy_resolution_J=1.52587890625e-05 clock=CLOCK_BOOTTIME source=sim pci=unknown "
        "detail=x prefix=lammps node=none caps=socket_power,energy,gfx_clock gfx_clock=mean "
        "inst_power=energy_delta_over_source_time missing=nan\n" HDR "\n");
    assert_non_null(t);
    assert_string_equal(br_telem_meta(t, "device"), "3");
    assert_string_equal(br_telem_meta(t, "interval_ms"), "1.000000");
    assert_string_equal(br_telem_meta(t, "caps"), "socket_power,energy,gfx_clock");
    assert_string_equal(br_telem_meta(t, "gfx_clock"), "mean");
    assert_string_equal(br_telem_meta(t, "missing"), "nan");
    assert_int_equal(br_telem_meta_count(t), 15);
    br_telem_close(t);
    t = open_str("a=1,b=2;c=3 d=\"x y\" =z w e=\n" HDR "\n");
    assert_non_null(t);
    assert_string_equal(br_telem_meta(t, "a"), "1");
    assert_string_equal(br_telem_meta(t, "b"), "2");
    assert_string_equal(br_telem_meta(t, "c"), "3");
    assert_string_equal(br_telem_meta(t, "d"), "x y");
    assert_string_equal(br_telem_meta(t, "e"), "");
    assert_int_equal(br_telem_meta_count(t), 5);
    br_telem_close(t);
}

static void test_no_metadata_reordered(void **state)
{
    (void)state;
    struct br_telem *t = open_str(
        "hotspot_temp_C,edge_temp_C,gfx_clock_MHz,inst_power_W,current_socket_power_W,"
        "timestamp_ns\n"
        "60,nan,1500,700,650,42\n");
    assert_non_null(t);
    assert_int_equal(br_telem_meta_count(t), 0);
    struct br_telem_row r;
    assert_int_equal(br_telem_next(t, &r), 1);
    assert_int_equal(r.line, 2);
    assert_int_equal(r.timestamp_ns, 42);
    assert_true(r.v[TELEM_HOTSPOT_TEMP] == 60);
    assert_true(r.v[TELEM_INST_POWER] == 700);
    assert_true(r.v[TELEM_SOCKET_POWER] == 650);
    assert_int_equal(br_telem_next(t, &r), 0);
    br_telem_close(t);
}

static void test_truncated_last_line(void **state)
{
    (void)state;
    struct br_telem *t = open_str("m=1\n" HDR "\n1,2,3,4,5,6\n7,8,9,1");
    assert_non_null(t);
    struct br_telem_row r;
    assert_int_equal(br_telem_next(t, &r), 1);
    assert_int_equal(br_telem_next(t, &r), 0);
    assert_true(br_telem_truncated(t));
    assert_int_equal(br_telem_rows(t), 1);
    assert_non_null(strstr(g_msgs.buf, "warning: t.csv:4: last line has no end"));
    br_telem_close(t);
}

/* Opens s and reads to the end; returns what the last call returned and
 * leaves the messages in g_msgs. -2 when open failed. */
static int read_all(const char *s)
{
    sb_reset(&g_msgs);
    struct br_telem *t = open_str(s);
    if (!t)
        return -2;
    struct br_telem_row r;
    int rc;
    while ((rc = br_telem_next(t, &r)) > 0)
        ;
    br_telem_close(t);
    return rc;
}

static void test_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int rc;
        const char *msg;
    } cases[] = {
        { "", -2, "t.csv: empty file" },
        { "device=0\n", -2, "t.csv:2: expected the header line" },
        { "device=0\ntimestamp_ns,inst_power_W\n", -2,
          "t.csv:2: missing column 'current_socket_power_W'" },
        { "device=0\n" HDR ",x,x\n", -2, "t.csv:2: duplicate column 'x'" },
        { "d=0\n" HDR "\n1,2,3,4,5,6\n1,2,3,4,5\n", -1,
          "t.csv:4: expected 6 fields as in the header, found 5" },
        { "d=0\n" HDR "\n1,2,3,4,5,6,7\n", -1, "t.csv:3: expected 6 fields" },
        { "d=0\n" HDR "\n1,2,abc,4,5,6\n", -1,
          "t.csv:3: column 'inst_power_W': expected a number or nan, found 'abc'" },
        { "d=0\n" HDR "\n1,2,3,4,5,1.5x\n", -1, "column 'hotspot_temp_C'" },
        { "d=0\n" HDR "\n1,2,3,0x10,5,6\n", -1, "column 'gfx_clock_MHz'" },
        { "d=0\n" HDR "\n1,2,3,1e,5,6\n", -1, "found '1e'" },
        { "d=0\n" HDR "\n1,2,3,.,5,6\n", -1, "found '.'" },
        { "d=0\n" HDR "\n1,2,3,-,5,6\n", -1, "found '-'" },
        { "d=0\n" HDR "\n-5,2,3,4,5,6\n", -1,
          "t.csv:3: column 'timestamp_ns': expected a non-negative integer (ns), found '-5'" },
        { "d=0\n" HDR "\n1.5,2,3,4,5,6\n", -1, "found '1.5'" },
        { "d=0\n" HDR "\nnan,2,3,4,5,6\n", -1, "found 'nan'" },
        { "d=0\n" HDR "\n99999999999999999999,2,3,4,5,6\n", -1, "timestamp_ns" },
        { "d=0\n" HDR "\n9223372036854775808,2,3,4,5,6\n", -1, "timestamp_ns" },
        { "d=0\n" HDR "\n9223372036854775807,2,3,4,5,6\n", 0, "" },
        { "d=0\n" HDR "\n1,2,3,4,5,6,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,x,\n", -1,
          "t.csv:3: expected 6 fields as in the header, found 42" },
        { "d=0\n" HDR ",a,b,c,d,e,f,g,h,i,j\n1,2,3,4,5,6,aaaaaaaaaaaaa,b,,c,d,e,f,g,h\n", -1,
          "t.csv:3: expected 16 fields as in the header, found 15" },
        { "d=0\n" HDR "\n 1 , 2 ,3,4, nan ,\n", 0, "" },
        { "d=0\n" HDR "\n1,2,3,4,5,6 7\n", -1, "found '6 7'" },
        { "d=0\n" HDR "\n1,2,3,4,infinity,inf\n", 0, "" },
        { "d=0\n" HDR "\n1,2,3,4,infin,6\n", -1, "found 'infin'" },
        { "d=0\n" HDR "\n1,2,3,4,5,1e+\n", -1, "found '1e+'" },
        { "d=0\n" HDR "\n1,2,3,4,5,6\"\n", -1, "found '6\"'" },
        { "d=0\n" HDR "\n1,2,3,4,5, \"6\"\n", -1, "found '\"6\"'" },
        { "d=0\n" HDR "\n1,2,3,\"4,5,6\n", -1, "expected 6 fields as in the header, found 0" },
        { "d=0\n" HDR "\n 000000000000000000001,2,3,4,5,6\n", -1, "timestamp_ns" },
        { "d=0\n" HDR "\n,2,3,4,5,6\n", -1, "timestamp_ns" },
        { "d=0\n" HDR "\n1,2,3,4,5,6\n", 0, "" },
        { "d=0\n" HDR "\n", 0, "" },
        { "d=0\n" HDR, 0, "" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = read_all(cases[i].text);
        if (rc != cases[i].rc || !strstr(g_msgs.buf, cases[i].msg))
            fail_msg("case %zu: rc %d (want %d), messages '%s' (want '%s')", i, rc,
                     cases[i].rc, g_msgs.buf, cases[i].msg);
        if (cases[i].rc == 0 && g_msgs.len)
            fail_msg("case %zu: unexpected message '%s'", i, g_msgs.buf);
    }
}

/* Rows the one-pass conversion leaves to the field splitter (a quoted
 * field, a quoted comma past the parsed columns) read as csv_split reads
 * them; a plain row next to them is unaffected. Values by hand. */
static void test_quoted_fields(void **state)
{
    (void)state;
    struct br_telem *t = open_str(
        "d=0\n" HDR ",note,energy_J\n"
        "10,\"1.5\",2,3,4,5,\"a,b\",7.25\n"
        "20,1,2,3,4,5,plain,\t-8e-1 \n"
        "30,1,2,3,4,5,\"x,y,z\",\"9\"\n");
    assert_non_null(t);
    assert_int_equal(br_telem_want(t, "energy_J"), 0);
    struct br_telem_row r;
    assert_int_equal(br_telem_next(t, &r), 1);
    assert_int_equal(r.timestamp_ns, 10);
    assert_true(r.v[TELEM_SOCKET_POWER] == 1.5);
    assert_true(r.v[TELEM_HOTSPOT_TEMP] == 5);
    assert_true(r.extra[0] == 7.25);
    assert_int_equal(br_telem_next(t, &r), 1);
    assert_int_equal(r.timestamp_ns, 20);
    assert_true(r.v[TELEM_SOCKET_POWER] == 1);
    assert_true(r.extra[0] == -0.8);
    assert_int_equal(br_telem_next(t, &r), 1);
    assert_int_equal(r.timestamp_ns, 30);
    assert_true(r.extra[0] == 9);
    assert_int_equal(br_telem_next(t, &r), 0);
    br_telem_close(t);
    assert_string_equal(g_msgs.buf, "");
}

/* Random decimals in the shapes a sampler writes and harder ones: the
 * result must equal strtod bit for bit. */
static void test_numbers_exact(void **state)
{
    (void)state;
    struct strbuf sb, want;
    sb_init(&sb);
    sb_init(&want);
    sb_adds(&sb, "x=1\n" HDR "\n");
    srand(12345);
    const int n = 20000;
    double *ref = malloc(n * sizeof(*ref));
    assert_non_null(ref);
    for (int i = 0; i < n; i++) {
        char num[64];
        int shape = i % 5;
        long a = rand(), b = rand() % 100000;
        if (shape == 0)
            snprintf(num, sizeof(num), "%ld.%03ld", a % 2000, b % 1000);
        else if (shape == 1)
            snprintf(num, sizeof(num), "%.17g", (double)a / (double)(b + 1));
        else if (shape == 2)
            snprintf(num, sizeof(num), "%ld%ld.%ld%lde%d", a, b, b, a, (int)(b % 40) - 20);
        else if (shape == 3)
            snprintf(num, sizeof(num), "0.%05ld%ld", b, a);
        else
            snprintf(num, sizeof(num), "%ld.%ld", a, b);
        ref[i] = strtod(num, NULL);
        sb_addf(&sb, "%d,1,%s,1,1,1\n", i, num);
    }
    struct br_telem *t = br_telem_open_mem("num.csv", sb.buf, sb.len);
    assert_non_null(t);
    struct br_telem_row r;
    for (int i = 0; i < n; i++) {
        assert_int_equal(br_telem_next(t, &r), 1);
        if (memcmp(&r.v[TELEM_INST_POWER], &ref[i], sizeof(double)) != 0)
            fail_msg("row %d: %.17g != strtod %.17g", i, r.v[TELEM_INST_POWER], ref[i]);
    }
    br_telem_close(t);
    free(ref);
    sb_release(&sb);
    sb_release(&want);
}

/* File mode: rows cross 1 MiB read blocks and one line is longer than the
 * initial buffer; results equal memory mode. */
static void test_file_blocks(void **state)
{
    (void)state;
    char path[] = "/tmp/test_telemetry.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    struct strbuf sb;
    sb_init(&sb);
    sb_adds(&sb, "backend=sim\n" HDR ",note\n");
    const int n = 120000;
    for (int i = 0; i < n; i++) {
        sb_addf(&sb, "%d,%d.5,%d.25,%d,nan,%d,", 1000 * i, i % 900, i % 1100, i % 2300, i % 90);
        if (i == n / 2)
            for (int k = 0; k < 5000000; k++)
                sb_addc(&sb, 'z');
        sb_adds(&sb, "\n");
    }
    assert_int_equal(write(fd, sb.buf, sb.len), (ssize_t)sb.len);
    close(fd);
    struct br_telem *t = br_telem_open(path);
    assert_non_null(t);
    struct br_telem_row r;
    for (int i = 0; i < n; i++) {
        assert_int_equal(br_telem_next(t, &r), 1);
        assert_int_equal(r.timestamp_ns, 1000LL * i);
        assert_true(r.v[TELEM_SOCKET_POWER] == (i % 900) + 0.5);
        assert_true(r.v[TELEM_INST_POWER] == (i % 1100) + 0.25);
        assert_int_equal(r.line, i + 3);
    }
    assert_int_equal(br_telem_next(t, &r), 0);
    br_telem_close(t);
    unlink(path);
    sb_release(&sb);
    assert_null(br_telem_open("/nonexistent/telemetry.csv"));
    assert_non_null(strstr(g_msgs.buf, "cannot open '/nonexistent/telemetry.csv'"));
}

static void test_sample_file_names(void **state)
{
    (void)state;
    assert_true(telem_is_sample_file("profiling_result_lmp_0.csv"));
    assert_true(telem_is_sample_file("/a/b/profiling_result_lmp_node1_7.csv"));
    assert_false(telem_is_sample_file("profiling_result_lmp_0_driver_power.csv"));
    assert_false(telem_is_sample_file("/x/profiling_result_lmp_0_driver_power.csv"));
    assert_false(telem_is_sample_file("profiling_result_lmp_0.json"));
    assert_false(telem_is_sample_file("sampler_lmp.json"));
    assert_false(telem_is_sample_file("x_profiling_result_lmp_0.csv"));
    assert_false(telem_is_sample_file(".csv"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_file_names),
        cmocka_unit_test_setup_teardown(test_basic, msgcap_setup, msgcap_teardown),
        cmocka_unit_test_setup_teardown(test_sampler_metadata, msgcap_setup, msgcap_teardown),
        cmocka_unit_test_setup_teardown(test_no_metadata_reordered, msgcap_setup, msgcap_teardown),
        cmocka_unit_test_setup_teardown(test_truncated_last_line, msgcap_setup, msgcap_teardown),
        cmocka_unit_test_setup_teardown(test_malformed, msgcap_setup, msgcap_teardown),
        cmocka_unit_test_setup_teardown(test_quoted_fields, msgcap_setup, msgcap_teardown),
        cmocka_unit_test_setup_teardown(test_numbers_exact, msgcap_setup, msgcap_teardown),
        cmocka_unit_test_setup_teardown(test_file_blocks, msgcap_setup, msgcap_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
