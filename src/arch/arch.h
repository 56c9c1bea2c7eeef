/* arch.h - GPU architecture profiles (share/benchrun/arch/<arch>.json):
 * constants, peaks, per-block pass limits, counter passes and sets, and every
 * metric as an expression (schema: docs/arch-profile.md).
 *
 * A profile is parsed and validated once: every expression becomes a tree
 * whose names are bound to slots of one symbol table (arch_profile.syms). The
 * metric engine fills a double per slot for each row (kernel or TOTAL) and
 * evaluates the metrics in file order. Errors name the file, the JSON path
 * and what is wrong: "gfx942.json: metrics[12].expr: column 5: unknown name
 * 'SQ_X'". No architecture number lives in C code.
 */
#ifndef BR_ARCH_ARCH_H
#define BR_ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "arch/expr.h"
#include "gpu/gpu.h"
#include "util/strv.h"

/* What a slot holds for a row. */
enum arch_sym_kind {
    AS_CONST,   /* profile constant or peak (index: arch_profile.consts) */
    AS_VAR,     /* engine variable (index: enum arch_var) */
    AS_ATTR,    /* kernel attribute (index: enum arch_attr) */
    AS_METRIC,  /* an earlier metric (index: arch_profile.metrics) */
    AS_RATE,    /* counter: Σ value / Σ kernel time (per ns) over the passes collecting it */
    AS_SUM,     /* sum(X): Σ value over those passes */
    AS_DUR,     /* dur(X): Σ kernel time (ns) of those passes */
};

/* Engine variables usable in expressions (docs/arch-profile.md). */
enum arch_var {
    AV_CLOCK_MHZ, AV_TIME_NS, AV_LAUNCHES, AV_TIME_SHARE_PCT, AV_UNPROF_TIME_NS,
    AV_UNPROF_TIME_SHARE_PCT, AV_GPU_BUSY_PCT, AV_TOP_SHARE_PCT, AV_IS_TOTAL,
    AV_LAUNCH_TIME_NS, AV_CUM_SHARE_PCT, AV_COUNT
};
extern const char *const arch_var_names[AV_COUNT];

/* Kernel attributes: VGPR, AGPR, SGPR (per lane), LDS (B/workgroup),
 * SCRATCH (B/work-item), WG_SIZE, GRID_SIZE (work-items). NaN for TOTAL. */
enum arch_attr { AA_VGPR, AA_AGPR, AA_SGPR, AA_LDS, AA_SCRATCH, AA_WG_SIZE, AA_GRID_SIZE, AA_COUNT };
extern const char *const arch_attr_names[AA_COUNT];

struct arch_sym {
    enum arch_sym_kind kind;
    char *name;     /* constant, variable, attribute, metric or counter name */
    char *pass;     /* counter restricted to one pass (X@pass), or NULL */
    int index;
};

struct arch_const {
    char *name;
    double value;
    struct ex_node *expr;   /* NULL for a plain number */
    char *source;           /* "profile" or "agent_info <column> (<file>)" */
    char *cited;            /* where the profile's value comes from (constant_sources), or NULL */
};

/* TOTAL row: rates over whole-run sums, Σ of the kernels, none, TOTAL only,
 * or the kernels' values weighted by their launch-pass time (launch_time_ns). */
enum arch_total { AT_RATES, AT_SUM, AT_NONE, AT_ONLY, AT_WEIGHTED };
/* A NaN value is written as "nan" (the seed's missing counter or 0/0), as an
 * empty cell (does not apply: power-run metrics without a power run, the top
 * share of a kernel that is not a top kernel), or as the integer 0 (the
 * seed's empty sum: TFLOPs_lowp_MFMA without a low-precision pass). */
enum arch_nodata { AN_NAN, AN_EMPTY, AN_ZERO };
enum arch_label { AL_NONE, AL_BOUND, AL_ARGMAX };

struct arch_metric {
    char *name, *unit, *desc;
    bool hidden;
    bool integer;               /* written as an integer (launches, waves limit) */
    enum arch_nodata nodata;    /* how a NaN value is written */
    enum arch_total total;      /* how the TOTAL row gets its value */
    struct ex_node *expr;       /* numeric metrics */
    enum arch_label label;      /* label metrics: value is a string */
    struct ex_node *compute_pct, *mem_pct, *flops;   /* AL_BOUND */
    bool no_latency;            /* AL_BOUND without the latency label (the seed's FP64 bound) */
    int nchoices; char **choice_names; struct ex_node **choices;  /* AL_ARGMAX */
};

/* One counter pass: the counters one run of the app collects. The one pass
 * type: a profile's "passes" entry, a counters file's, a pmc run's. */
struct arch_pass {
    char *name;                 /* folder and file stem: arch_pass_name_problem() is NULL */
    char *label;                /* what it measures (a counters file's "label"), or NULL */
    struct strv counters;
};

/* A profile's named list of passes ("counter_sets"). */
struct arch_set {
    char *name;
    struct strv passes;         /* names of entries of arch_profile.passes */
};

struct arch_check {
    char *name;
    struct ex_node *ok, *value;
};

/* One row of report.md's whole-run table (the seed's labels and units).
 * label and unit may hold {NAME} or {NAME:%.1f}: a constant, a metric's
 * TOTAL value, or launch_pass (report writer). fmt: a printf conversion of
 * one double ("%.1f", "%.3e", "%g"); a label metric is written as text. */
struct arch_report_row {
    char *label, *unit, *fmt;
    int metric;                 /* index in metrics */
};

struct arch_profile {
    char *path, *arch, *product;
    char *vendor_name;          /* "vendor" as written ("" when absent), for the docs */
    enum gpu_vendor vendor;     /* the same; UNKNOWN unless "amd" or "nvidia" */
    int nconsts; struct arch_const *consts;
    int nagent; char **agent_cols, **agent_consts;   /* agent_info column -> constant */
    int nblocks; char **blocks; int *block_limit;
    int npasses; struct arch_pass *passes;
    /* Counter-name prefixes collected by patching the kernel's code (CUPTI's
     * SASS metrics): a pass with one runs its kernels slower, so the engine
     * times its launches from the other passes (docs/arch-profile.md). */
    int ninstr; char **instr_prefix;
    int nsets; struct arch_set *sets;
    int nmetrics; struct arch_metric *metrics;
    int nchecks; struct arch_check *checks;
    int nsyms; struct arch_sym *syms;
    /* launch_counter: launches and launch_time_ns come from the first pass
     * that collects it (the seed: SQ_WAVE_CYCLES, pass 04_cu_util); NULL or
     * not collected: the first pass with data. */
    char *launch_counter;
    /* report_whole_run: report.md's whole-run rows; 0 = every visible metric */
    int nreport; struct arch_report_row *report;
    double tdp_W;               /* top-level "tdp_W"; NaN when absent (see arch_tdp_w) */
};

/* Pass names name folders (<pmc run>/<pass>/) and files (<pass>_<pid>_...):
 * 1-100 of [A-Za-z0-9_.-], the first a letter, digit or '_', so ".", "..",
 * "-rf" or "a*0+1" are refused where counters files are read. NULL when
 * name is fine, else a static reason. At most ARCH_MAX_PASSES passes (each
 * is a full run of the app). */
#define ARCH_MAX_PASSES 256
const char *arch_pass_name_problem(const char *name);

/* True when counter is collected by code patching (instrumented_counters). */
bool arch_counter_instrumented(const struct arch_profile *ap, const char *counter);

/* Opens a profile for callers that need its data but no expressions: the
 * constants and peaks, block limits, passes and counter sets, vendor and
 * product (not metrics, checks or report rows). Every section is optional
 * here (a missing one is empty; "arch" defaults to the file name); what is
 * there is validated as arch_load does. arch: a profile name
 * ("gfx942"; a detected GPU name such as "sm_90" maps to its profile, see
 * arch_profile_name), or a file (it has a '/' or ends in .json); source says
 * where the name came from (for the message when there is no such profile;
 * may be NULL). NULL after printing the error. Free with arch_free. */
struct arch_profile *arch_open(const char *arch, const char *source);
/* Loads and validates the whole profile at path, metrics included.
 * pass_names (NULL: the profile's passes) are the passes per-pass metrics
 * ("per_pass": true) are expanded over. NULL after printing the error. */
struct arch_profile *arch_load(const char *path, const char *const *pass_names, int npasses);
/* share/benchrun/arch/<arch>.json, or arch itself when it names a file:
 * the one place a profile's file name is made. NULL without a share folder. */
char *arch_path_for(const char *arch);
/* The same, checked: NULL after printing, when arch names no file and the
 * share folder has no profile for it, "no arch profile for 'gfx1100' (from
 * <source>): the profiles are gfx942, gh100 (<dir>); to add one, write
 * <dir>/gfx1100.json (docs/arch-profile.md) or pass --arch FILE". source
 * (where the name came from, e.g. "agent_info Name (file)") may be NULL. */
char *arch_profile_path(const char *arch, const char *source);
/* True when arch names a file rather than a profile: it has a '/' or ends
 * in ".json". */
bool arch_names_file(const char *arch);
/* The profile files of the share folder (share/benchrun/arch/<arch>.json),
 * sorted, appended to out. 0, or -1 when there are none (no message). */
int arch_profile_files(struct strv *out);
/* Profile names in the share folder (file names without .json), sorted,
 * joined with ", "; "none" when there are none. Caller frees. */
char *arch_profile_names(void);
/* The profile name of a detected architecture: NVIDIA GPUs are detected as
 * sm_<compute capability> (gpu/gpu.c); sm_90 (H100/H200) -> "gh100". Other
 * names are returned unchanged. Static or arch itself. */
const char *arch_profile_name(const char *arch);
/* The profile used when nothing names the GPU (no ARCH, no GPU on this
 * node, no architecture in the run's files): gh100 for NVIDIA, else gfx942
 * (the seed flow's MI300X). Static. */
const char *arch_default(enum gpu_vendor vendor);
/* The vendor's own counter behind the fallback clock (cycles over kernel
 * time), for messages: "sm__cycles_elapsed / N_SM" on NVIDIA,
 * "GRBM_GUI_ACTIVE / N_XCC" otherwise. */
const char *arch_cycle_counter(const struct arch_profile *ap);
bool arch_is_nvidia(const struct arch_profile *ap);

/* The power reference of the profile in W: top-level "tdp_W", else the
 * constant TDP_W; NaN when neither is there. */
double arch_tdp_w(const struct arch_profile *ap);
/* The pass or counter set of that name, or NULL. */
const struct arch_pass *arch_pass_find(const struct arch_profile *ap, const char *name);
const struct arch_set *arch_set_find(const struct arch_profile *ap, const char *name);
/* The set names, joined with ", " ("none" without sets). Caller frees. */
char *arch_set_names(const struct arch_profile *ap);
/* Calls fn once per counter a metric reads directly (COUNTER, sum(),
 * dur(), in any pass), in slot order (arch_load profiles only). */
void arch_metric_counters(const struct arch_profile *ap, int metric,
                          void (*fn)(void *ctx, const char *counter), void *ctx);

/* A copy of s with every "{pass}" replaced by pass (per-pass metric
 * templates, e.g. clock_MHz_{pass}). */
char *arch_subst_pass(const char *s, const char *pass);
/* A copy of s with every "{first_pass}" replaced by pass: expressions of
 * every metric get the run's first pass at load (eff_clock_MHz, as the seed
 * takes it from pass 1). */
char *arch_subst_first_pass(const char *s, const char *pass);
void arch_free(struct arch_profile *ap);

/* Constant lookup: index or -1. */
int arch_const_index(const struct arch_profile *ap, const char *name);
double arch_const(const struct arch_profile *ap, const char *name);
/* Overrides a plain constant (e.g. from agent_info) and re-evaluates the
 * constants defined by expressions. source is kept for the report. */
int arch_set_const(struct arch_profile *ap, const char *name, double v, const char *source);
/* True for a printf conversion of one double: %[.digits](f|e|g). */
bool arch_double_format(const char *f);
/* Block of a counter name: the text before the first '_' (NULL if none). */
int arch_block_limit(const struct arch_profile *ap, const char *counter);

#endif
