/* rpcopy.h - memory copies and sets of a run: rocprofv3's
 * memory_copy_trace.csv in every layout it has written, rocpd2csv's, the
 * NVIDIA collector's (with Bytes), and rocpd's memory_copies view, read into
 * one list of copy intervals (the model GPU busy %, the report.html timeline,
 * analyze's copy report and the energy attribution use).
 *
 * Layouts (header names matched ignoring case, any order, extra columns
 * ignored; read/rplayout.h labels them):
 *   6.x (7 cols)  Kind, Direction, Source_Agent_Id, Destination_Agent_Id,
 *                 Correlation_Id, Start_Timestamp, End_Timestamp; agents bare
 *                 node ids; Direction "HOST_TO_DEVICE" in the first docs
 *                 (rocprofiler-sdk source/docs/data/memory_copy_trace.csv at
 *                 785cc39), "MEMORY_COPY_HOST_TO_DEVICE" from 81e93a6 on
 *   7.x (8 cols)  + Stream_Id after Direction; agents "Agent N" (029ff02a,
 *                 source/lib/output/generateCSV.cpp of ROCm/rocm-systems)
 *   rocpd2csv (9) + a leading Guid (rocpd source/csv.cpp)
 *   benchrun (9)  7.x + Bytes (trace/copytrace.h: CUPTI copies and sets)
 *   rocpd         the memory_copies view: name (the direction), start, end,
 *                 size (bytes), src/dst_agent_abs_index
 * rocprofv3's CSV has no byte count: those copies have CT_BYTES_UNKNOWN.
 *
 * Semantics: Source/Destination are the agents the data moves from and to
 * (rocprofiler-sdk tests/rocprofv3/tracing/validate.py: host-to-device has a
 * CPU source and a GPU destination). Host agents are stored as CT_HOST (the
 * direction says which side is the host); a device-to-device copy between
 * two different GPUs is CT_P2P. Timestamps CLOCK_BOOTTIME ns, as the kernel
 * trace's, so copies and kernels share one time axis.
 *
 * Errors name file and line ("file:line: what was expected"): a missing
 * column, a row with another field count, a time or agent that is not a
 * number, end before start. A Direction this reader does not know (a newer
 * release) is left out and counted (unknown, first at unknown_at), never
 * guessed; a malformed last line without a newline (killed job) is dropped
 * with a warning and counted in truncated.
 */
#ifndef BR_READ_RPCOPY_H
#define BR_READ_RPCOPY_H

#include <stddef.h>
#include <stdint.h>

#include "model/power.h"
#include "trace/copytrace.h"

/* Reads every file of the list (CSV by name, else a rocpd database); the
 * copies are appended to cp (initialize it with memset 0). 0, or -1 after
 * printing the error. */
int rp_copies_load_files(struct rp_copies *cp, char *const *files);
/* rp_find_copies(path) then rp_copies_load_files. */
int rp_copies_load(struct rp_copies *cp, const char *path);
/* One CSV held in memory (tests, fuzz targets). */
int rp_copies_read_mem(struct rp_copies *cp, const char *name, const void *data, size_t len);

/* Memory copy files under path (4 levels): every *memory_copy_trace.csv and
 * every *_results.db without a PREFIX_memory_copy_trace.csv beside it,
 * sorted. path a file: a copy trace or database is itself; a
 * PREFIX_kernel_trace.csv gives its PREFIX_memory_copy_trace.csv when there
 * is one. NULL-terminated, never NULL. */
char **rp_find_copies(const char *path);
/* True when two files are one process's file set: the same path up to
 * their "kernel_trace.csv" / "memory_copy_trace.csv" ending, or the same
 * database. */
int rp_same_file_set(const char *a, const char *b);

/* The GPUs a copy occupies, by agent id as the kernel trace's Agent_Id:
 * host-to-device its destination, device-to-host its source, a copy within
 * one device and a set that device, peer-to-peer both (source first),
 * host-to-host none. Returns how many (0-2). */
int rp_copy_gpus(const struct ct_copy *c, int32_t gpu[2]);


/* Direction from a Direction cell or a rocpd name ("MEMORY_COPY_HOST_TO_DEVICE",
 * "HOST_TO_DEVICE", "MEMORY_SET_DEVICE", any case). 0, or -1 when unknown. */
int rp_copy_dir_parse(const char *s, size_t n, enum ct_dir *d);

#endif
