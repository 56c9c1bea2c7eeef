/* prun.h - a power run read for the energy analysis, the power timeline and
 * the Perfetto trace: per telemetry file (one GPU) its samples, energy
 * counter readings and NVML driver power samples, and the launches (and
 * copies) of the kernel trace that ran on it; then the energy module's
 * inputs (energy/energy.h).
 *
 * Matching trace GPUs to telemetry files: CLOCK_BOOTTIME is per node, so a
 * trace file under a node folder (ktrace_<tag>/<node>/, read/nodepath.h)
 * belongs to the telemetry files whose metadata says node=<node>; without
 * node folders the run is one node. Within a node, en_match (agent order, or
 * the busy/power correlation when Agent_Ids do not tell the GPUs apart).
 * The accounting window of every GPU of a node is the node's kernel window
 * [first start, last end] over all of its activity.
 *
 * Copies: those rp_power_load read with the trace (read/rpcopy.h: every
 * memory_copy_trace.csv layout and rocpd's memory_copies), each on the GPU
 * rp_power_add_copies charged it to (a peer-to-peer copy on both of its
 * GPUs, as GPU busy counts it); host-to-host copies occupy no GPU and are
 * left out with a warning.
 *
 * Telemetry columns used: timestamp_ns, gfx_clock_MHz, hotspot_temp_C (else
 * edge_temp_C), energy_J with source_timestamp_ns (amdgpu: when the driver
 * filled the table; a reading's time, else the row's), and for power x time
 * current_socket_power_W, or inst_power_W when the file has no energy_J
 * column (the seed's files: inst_power_W is the counter's power there) or no
 * socket power. Memory: ~40 bytes per sample held, ~140 at the peak of
 * reading (a 664,000-sample run: 94 MB), and 24 per launch.
 */
#ifndef BR_READ_PRUN_H
#define BR_READ_PRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "energy/energy.h"
#include "read/drvpower.h"
#include "model/intern.h"
#include "read/rocprof.h"

struct prun_gpu {
    char *path, *name;              /* telemetry file and its base name */
    char *node;                     /* metadata node=, NULL on one node */
    int index;                      /* GPU index: metadata device, else the file name */
    const char *power_col;          /* column of power x time */
    size_t n;                       /* samples */
    int64_t *t;
    double *power, *clock, *temp;
    size_t ne;                      /* energy counter readings (new values only) */
    int64_t *et;
    double *ev;
    struct br_drvpower drv;         /* driver samples (n 0: no file) */
    char *drv_path;
    bool truncated;                 /* last telemetry line cut short */
    /* filled by prun_finish */
    struct en_act *act;             /* sorted by start */
    size_t nact;
    int64_t win0, win1;             /* the node's kernel window; win1 < win0: none */
    struct en_wbuf fitw;
    enum en_src fit_src;
};

/* A GPU as the trace names it (one pw->gpu entry, same index): its trace
 * file (or copy file when it ran copies only, rp_gpu_path) and Agent_Id. */
struct prun_key {
    const char *path;               /* owned by pw */
    uint64_t agent;
    int tel;                        /* telemetry file it was matched to, -1 none */
    enum en_match_how how;
    double r;                       /* correlation when matched by it */
};

struct prun_copy {
    uint32_t key;
    int64_t start_ns, end_ns;
    uint8_t cls;                    /* enum en_copy */
};

struct prun_opts {
    enum en_src energy_from;        /* NONE: the counter when there is one, else power */
    enum en_src fit_from;           /* NONE: the source with the most windows */
    bool no_fit;
};

struct prun {
    const struct rp_power *pw;      /* the kernel trace with its launches: own, or the caller's */
    struct rp_power own;
    bool have_trace;
    size_t ngpus;
    struct prun_gpu *gpu;
    size_t nkeys;
    struct prun_key *key;           /* [nkeys] pw->gpu's order */
    size_t ncopies, copy_cap;
    struct prun_copy *copy;
    struct strv warn;
};

/* Reads the telemetry files (NULL-terminated list; NULL: every
 * profiling_result_*.csv under dir) with their driver power files, and the
 * kernel trace (ktrace: a CSV or folder; NULL: dir) into names, or uses the
 * trace the caller loaded with rp_power_load_launches (loaded, not NULL; it
 * must outlive pr). A missing trace is not an error (have_trace false, a
 * warning). 0, or -1 after printing the error. pr is always releasable. */
int prun_read(struct prun *pr, const char *dir, const char *ktrace, char *const *telemetry,
              struct intern *names, const struct rp_power *loaded);
/* The telemetry files under dir (profiling_result_*.csv, not the driver's
 * *_driver_power.csv; 4 levels deep), sorted; NULL-terminated, never NULL. */
char **prun_find_telemetry(const char *dir);

/* Matches GPUs, builds each GPU's activity, window and fit windows. */
void prun_finish(struct prun *pr, const char *dir, const struct prun_opts *o);
/* prun_read + prun_finish. */
int prun_load(struct prun *pr, const char *dir, const char *ktrace, char *const *telemetry,
              struct intern *names, const struct prun_opts *o);
void prun_release(struct prun *pr);

/* The energy module's inputs (views into pr; out has room for pr->ngpus). */
void prun_en_inputs(const struct prun *pr, const struct prun_opts *o, struct en_gpu *out);
/* en_compute over pr's GPUs. 0, or -1 after printing the module's error. */
int prun_energy(const struct prun *pr, const struct prun_opts *o, const struct en_opts *eo,
                struct en_result *res);

/* Option values: --energy-from auto|counter|power, --fit-from
 * auto|counter|driver|power|none (none: no_fit). 0, or -1 when unknown. */
int prun_parse_energy_from(const char *s, struct prun_opts *o);
int prun_parse_fit_from(const char *s, struct prun_opts *o);
/* --lag-ms auto|MS (auto: NaN, estimated); MS within ±10 s. 0, or -1. */
int prun_parse_lag(const char *s, double *lag_ms);

#endif
