/* rocpdfix.h - unit-test helper: a rocpd database built from rocprofv3's own
 * schema SQL (tests/fixtures/amd/rocpd/schema/, README there), with the
 * sqlite3 C API, filled as rocprofv3's writer fills it (generateRocpd.cpp):
 * node, process, thread, queue, stream, code object, kernel symbols,
 * agents (id = absolute_index, agent record as JSON in extdata), one event
 * and one rocpd_kernel_dispatch row per dispatch, counter descriptions
 * (rocpd_info_pmc) and one rocpd_pmc_event per value. Header-only; include
 * after cmocka.h. */
#ifndef BR_TEST_ROCPDFIX_H
#define BR_TEST_ROCPDFIX_H

#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define RPF_GUID "00000450-565d-765d-bc41-19a2073d19ee"
#define RPF_UUID "_00000450_565d_765d_bc41_19a2073d19ee"

static void rpf_exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("sql: %s\nin: %.200s", err ? err : "?", sql);
}

/* Executes a schema file with {{uuid}} and {{guid}} substituted. */
static void rpf_schema(sqlite3 *db, const char *file)
{
    char *path = xasprintf("%s/tests/fixtures/amd/rocpd/schema/%s", BR_SOURCE_DIR, file);
    size_t len;
    char *text = fs_read_file(path, &len);
    assert_non_null(text);
    struct strbuf sb;
    sb_init(&sb);
    for (const char *p = text; *p;) {
        if (!strncmp(p, "{{uuid}}", 8)) {
            sb_adds(&sb, RPF_UUID);
            p += 8;
        } else if (!strncmp(p, "{{guid}}", 8)) {
            sb_adds(&sb, RPF_GUID);
            p += 8;
        } else {
            sb_addc(&sb, *p++);
        }
    }
    rpf_exec(db, sb.buf);
    sb_release(&sb);
    free(text);
    free(path);
}

/* A new database at path with the tables and views and the rows every
 * dispatch refers to (process 4242, thread 4243, queue 1, stream 0,
 * agents: CPU 0 and GPU 2 (gfx942, 304 CUs), GPU 3). */
static sqlite3 *rpf_create(const char *path)
{
    remove(path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    rpf_schema(db, "rocpd_tables.sql");
    rpf_schema(db, "rocpd_views.sql");
    rpf_schema(db, "data_views.sql");
    rpf_exec(db,
        "INSERT INTO rocpd_info_node" RPF_UUID " (id, hash, machine_id, hostname) VALUES (1, 7, 'm', 'h');"
        "INSERT INTO rocpd_info_process" RPF_UUID " (id, nid, ppid, pid) VALUES (4242, 1, 1, 4242);"
        "INSERT INTO rocpd_info_thread" RPF_UUID " (id, nid, ppid, pid, tid) VALUES (4243, 1, 1, 4242, 4243);"
        "INSERT INTO rocpd_info_queue" RPF_UUID " (id, nid, pid, name) VALUES (1, 1, 4242, 'q');"
        "INSERT INTO rocpd_info_stream" RPF_UUID " (id, nid, pid, name) VALUES (0, 1, 4242, 's');"
        "INSERT INTO rocpd_info_code_object" RPF_UUID " (id, nid, pid, uri) VALUES (1, 1, 4242, 'x');"
        "INSERT INTO rocpd_string" RPF_UUID " (id, string) VALUES (1, 'KERNEL_DISPATCH');"
        "INSERT INTO rocpd_string" RPF_UUID " (id, string) VALUES (2, 'MEMORY_COPY_HOST_TO_DEVICE');"
        "INSERT INTO rocpd_info_agent" RPF_UUID " (id, nid, pid, type, absolute_index, logical_index,"
        " type_index, name, product_name, extdata) VALUES"
        " (0, 1, 4242, 'CPU', 0, 0, 0, 'AMD EPYC', 'AMD EPYC', '{\"cu_count\": 96}'),"
        " (3, 1, 4242, 'GPU', 3, 3, 1, 'gfx942', 'AMD Instinct MI300X', '{\"cu_count\": 304}'),"
        " (2, 1, 4242, 'GPU', 2, 2, 0, 'gfx942', 'AMD Instinct MI300X',"
        " '{\"cu_count\": 304, \"num_xcc\": 8, \"max_engine_clk_fcompute\": 2100, \"name\": \"gfx942\","
        " \"mem_banks\": [1, 2], \"wave_front_size\": 64}');");
    return db;
}

/* Kernel symbol id with its registers. */
static void rpf_symbol(sqlite3 *db, int id, const char *name, int vgpr, int agpr, int sgpr)
{
    char *sql = sqlite3_mprintf("INSERT INTO rocpd_info_kernel_symbol" RPF_UUID " (id, nid, pid,"
                                " code_object_id, kernel_name, display_name, sgpr_count,"
                                " arch_vgpr_count, accum_vgpr_count) VALUES (%d, 1, 4242, 1, %Q, %Q,"
                                " %d, %d, %d); INSERT INTO rocpd_string" RPF_UUID " (string) VALUES (%Q);",
                                id, name, name, sgpr, vgpr, agpr, name);
    rpf_exec(db, sql);
    sqlite3_free(sql);
}

/* Dispatch id of kernel symbol sym on agent 2: event id = dispatch id. */
static void rpf_dispatch(sqlite3 *db, int id, int sym, long long start, long long end, int lds,
                         int wgx, int wgy, int gridx)
{
    char *sql = sqlite3_mprintf(
        "INSERT INTO rocpd_event" RPF_UUID " (id, category_id, stack_id, correlation_id) VALUES"
        " (%d, 1, %d, %d);"
        "INSERT INTO rocpd_kernel_dispatch" RPF_UUID " (id, nid, pid, tid, agent_id, kernel_id,"
        " dispatch_id, queue_id, stream_id, start, end, private_segment_size, group_segment_size,"
        " workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y,"
        " grid_size_z, region_name_id, event_id) VALUES (%d, 1, 4242, 4243, 2, %d, %d, 1, 0, %lld,"
        " %lld, 0, %d, %d, %d, 1, %d, 1, 1, (SELECT S.id FROM rocpd_string" RPF_UUID " S,"
        " rocpd_info_kernel_symbol" RPF_UUID " K WHERE K.id = %d AND S.string = K.display_name), %d);",
        id, id, id, id, sym, id, start, end, lds, wgx, wgy, gridx, sym, id);
    rpf_exec(db, sql);
    sqlite3_free(sql);
}

/* Counter description id (pmc_id) and one value of it for a dispatch. */
static void rpf_pmc(sqlite3 *db, int id, const char *name)
{
    char *sql = sqlite3_mprintf("INSERT INTO rocpd_info_pmc" RPF_UUID " (id, nid, pid, agent_id,"
                                " name, symbol, block) VALUES (%d, 1, 4242, 2, %Q, %Q, 'SQ');",
                                id, name, name);
    rpf_exec(db, sql);
    sqlite3_free(sql);
}

static void rpf_value(sqlite3 *db, int dispatch, int pmc, double v)
{
    char *sql = sqlite3_mprintf("INSERT INTO rocpd_pmc_event" RPF_UUID " (event_id, pmc_id, value)"
                                " VALUES (%d, %d, %.17g);", dispatch, pmc, v);
    rpf_exec(db, sql);
    sqlite3_free(sql);
}

/* A host-to-device copy (agent 0 -> 2) with its event (id ev). */
static void rpf_memcopy(sqlite3 *db, int ev, long long start, long long end, long long size)
{
    char *sql = sqlite3_mprintf(
        "INSERT INTO rocpd_event" RPF_UUID " (id, category_id, correlation_id) VALUES (%d, 2, %d);"
        "INSERT INTO rocpd_memory_copy" RPF_UUID " (nid, pid, tid, start, end, name_id, dst_agent_id,"
        " src_agent_id, size, queue_id, stream_id, event_id) VALUES (1, 4242, 4243, %lld, %lld, 2,"
        " 2, 0, %lld, 1, 0, %d);", ev, ev, start, end, size, ev);
    rpf_exec(db, sql);
    sqlite3_free(sql);
}

#endif
