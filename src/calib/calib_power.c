/* calib_power.c - power-run checks of the calibration: the long kernel's
 * duration in the kernel trace and the power rise at its start.
 *
 * Owns: finding one kernel's launch in the power run's kernel traces
 * (kernel_trace.csv files or rocpd databases)
 * (rocprofv3 7.x schema, also written by the CUPTI tracer; columns by name),
 * reading a power series from the sampler's telemetry CSV (docs/design.md §10,
 * src/read/telemetry.h) and from NVML's driver power samples
 * (<stem>_driver_power.csv: timestamp_ns,power_W,...; src/sample/sample_nvml.c),
 * and the step detection. All timestamps CLOCK_BOOTTIME ns: the trace and the
 * samples share the clock, so the rise measures their alignment.
 * Periods: NVML instant power refreshes every ~100 ms on the H200, the driver's
 * buffered samples every ~20 ms (docs/design.md §11); the
 * period used is measured from the data.
 * SPDX-License-Identifier: MIT
 */
#include "calib/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "read/csv.h"
#include "read/drvpower.h"
#include "read/rocpd.h"
#include "read/rocprof.h"
#include "read/telemetry.h"
#include "util/error.h"
#include "util/xalloc.h"

#define PRE_NS 250000000LL      /* baseline window before the kernel (idle_ms = 600) */

/* ---- step detection (pure) ---------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median of the non-NaN values with lo <= t < hi. */
static double window_median(const int64_t *t, const double *w, size_t n, int64_t lo,
                            int64_t hi, size_t *count)
{
    double *v = xmalloc((n ? n : 1) * sizeof(*v));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] >= lo && t[i] < hi && !isnan(w[i]))
            v[k++] = w[i];
    double m = median(v, k);
    free(v);
    *count = k;
    return m;
}

double br_calib_refresh_ms(const int64_t *t, const double *w, size_t n, bool every_sample)
{
    double *gaps = xmalloc((n ? n : 1) * sizeof(*gaps));
    size_t k = 0;
    int64_t last = -1;
    for (size_t i = 0; i < n; i++) {
        if (isnan(w[i]))
            continue;
        bool change = every_sample || (i > 0 && w[i] != w[i - 1]);
        if (last >= 0 && change)
            gaps[k++] = (double)(t[i] - last) / 1e6;
        if (last < 0 || change)
            last = t[i];
    }
    double m = (every_sample ? k >= 1 : k >= 2) ? median(gaps, k) : NAN;
    free(gaps);
    return m;
}

int br_calib_power_rise(const int64_t *t, const double *w, size_t n, int64_t kstart,
                        int64_t kend, int64_t pre_ns, struct br_calib_rise *out)
{
    size_t nb, np;
    *out = (struct br_calib_rise){ .rise_ns = -1, .delta_ms = NAN, .low_delta_ms = NAN };
    out->baseline_W = window_median(t, w, n, kstart - pre_ns, kstart, &nb);
    out->plateau_W = window_median(t, w, n, kstart + (kend - kstart) / 2, kend, &np);
    for (size_t i = 0; i < n; i++)
        out->samples += t[i] >= kstart - pre_ns && t[i] < kend;
    out->period_ms = br_calib_refresh_ms(t, w, n, false);
    if (nb < 2 || np < 2)
        return -1;
    double half = out->baseline_W + 0.5 * (out->plateau_W - out->baseline_W);
    /* The last low value's first sample: a polled source repeats a value
     * until it refreshes, so the crossing lies after that refresh, not after
     * the last (stale) poll. */
    size_t low = n;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < kstart - pre_ns || t[i] >= kend || isnan(w[i]))
            continue;
        if (w[i] < half) {
            if (low == n || w[i] != w[low])
                low = i;
            continue;
        }
        out->rise_ns = t[i];
        out->delta_ms = (double)(t[i] - kstart) / 1e6;
        if (low < n)
            out->low_delta_ms = (double)(t[low] - kstart) / 1e6;
        break;
    }
    return 0;
}

/* ---- the long kernel in the trace ----------------------------------------------- */

struct hdrcols { int name, start, end, ncols; };

static int trace_header(struct csv_src *s, const char *line, size_t len, struct hdrcols *h)
{
    struct csv_span f[64];
    int nf = csv_split(line, len, f, 64);
    *h = (struct hdrcols){ -1, -1, -1, nf };
    for (int i = 0; i < nf && i < 64; i++) {
        if (csv_eq(&f[i], "Kernel_Name")) h->name = i;
        if (csv_eq(&f[i], "Start_Timestamp")) h->start = i;
        if (csv_eq(&f[i], "End_Timestamp")) h->end = i;
    }
    if (h->name < 0 || h->start < 0 || h->end < 0 || nf > 64)
        return br_error_at(csv_name(s), csv_line_no(s), 0,
                           "expected a kernel trace header with Kernel_Name, Start_Timestamp, End_Timestamp");
    return 0;
}

static bool span_is_kernel(const struct csv_span *f, const char *name)
{
    size_t n = strlen(name);
    return (f->n == n || (f->n > n && f->p[n] == '(')) && memcmp(f->p, name, n) == 0;
}

/* Launches of one kernel found in kernel traces. */
struct launches {
    int64_t first_start, first_end;   /* the first launch seen */
    double ns;                        /* Σ (End - Start) */
    long n;
};

/* Adds the launches of name in one trace (s closed here) to acc; with
 * first_only, stops at the first. 0, or -1 on a bad header. */
static int trace_scan(struct csv_src *s, const char *name, bool first_only, struct launches *acc)
{
    if (!s)
        return -1;
    const char *line;
    size_t len;
    struct hdrcols h = { -1, -1, -1, 0 };
    int rc = 0, got;
    struct csv_span f[64];
    while (rc == 0 && !(first_only && acc->n) && (got = csv_next_line(s, &line, &len)) > 0) {
        if (h.ncols == 0) {
            rc = trace_header(s, line, len, &h);
            continue;
        }
        uint64_t a, b;
        if (csv_split_freetext(line, len, h.ncols, h.name, f) != h.ncols)
            continue;   /* a cut last line: the reader of the analysis reports it */
        if (!span_is_kernel(&f[h.name], name) || csv_u64(&f[h.start], &a) != 0 ||
            csv_u64(&f[h.end], &b) != 0 || b < a)
            continue;
        if (!acc->n) {
            acc->first_start = (int64_t)a;
            acc->first_end = (int64_t)b;
        }
        acc->ns += (double)(b - a);
        acc->n++;
    }
    csv_close(s);
    return rc;
}

/* The same over a rocpd database's kernels view. */
struct dbscan {
    const char *name;
    bool first_only;
    struct launches *acc;
};

static int db_launch(void *ctx, const struct rocpd_dispatch *d)
{
    struct dbscan *c = ctx;
    struct csv_span f = { d->name, (uint32_t)d->name_len, true };
    if (!span_is_kernel(&f, c->name))
        return 0;
    if (!c->acc->n) {
        c->acc->first_start = (int64_t)d->start;
        c->acc->first_end = (int64_t)d->end;
    }
    c->acc->ns += (double)(d->end - d->start);
    c->acc->n++;
    return c->first_only;     /* stop at the first when asked */
}

static int db_scan(const char *path, const char *name, bool first_only, struct launches *acc)
{
    struct rocpd_db *db;
    char *err = NULL;
    struct dbscan c = { name, first_only, acc };
    int rc = rocpd_open(&db, path, &err);
    if (rc == 0) {
        rc = rocpd_each_dispatch(db, db_launch, &c, &err);
        rocpd_close(db);
    }
    if (rc < 0)
        br_error("%s", err ? err : path);
    free(err);
    return rc < 0 ? -1 : 0;
}

/* Every kernel trace under prof_dir: *kernel_trace.csv and rocpd
 * *_results.db (first_only: until one launch). */
static int scan_traces(const char *prof_dir, const char *name, bool first_only, struct launches *acc)
{
    char **files = rp_find_traces(prof_dir);
    int rc = 0;
    *acc = (struct launches){ 0 };
    for (size_t i = 0; files[i] && rc == 0 && !(first_only && acc->n); i++) {
        size_t n = strlen(files[i]), m = strlen(RP_ROCPD_SUFFIX);
        rc = n >= m && !strcmp(files[i] + n - m, RP_ROCPD_SUFFIX)
                 ? db_scan(files[i], name, first_only, acc)
                 : trace_scan(csv_open(files[i]), name, first_only, acc);
    }
    str_array_free(files);
    return rc;
}

/* A first-only scan's result: 1 found (start, end set), 0 not, -1 error. */
static int first_launch(int scan_rc, const struct launches *l, int64_t *start, int64_t *end)
{
    if (scan_rc < 0)
        return -1;
    *start = l->first_start;
    *end = l->first_end;
    return l->n > 0;
}

static int find_long(const char *prof_dir, const char *name, int64_t *start, int64_t *end)
{
    struct launches l;
    int rc = scan_traces(prof_dir, name, true, &l);
    return first_launch(rc, &l, start, end);
}

int br_calib_trace_time(const char *prof_dir, const char *kernel, double *ns, long *launches)
{
    struct launches l;
    int rc = scan_traces(prof_dir, kernel, false, &l);
    *ns = l.ns;
    *launches = l.n;
    return rc;
}

/* ---- power series ---------------------------------------------------------------- */

struct series { int64_t *t; double *w; size_t n, cap; };

static void series_add(struct series *s, int64_t t, double w)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->t = xrealloc(s->t, s->cap * sizeof(*s->t));
        s->w = xrealloc(s->w, s->cap * sizeof(*s->w));
    }
    s->t[s->n] = t;
    s->w[s->n++] = w;
}

static void series_free(struct series *s)
{
    free(s->t);
    free(s->w);
}

/* Telemetry CSV: socket power, else inst power when the first is all NaN. */
static int read_telemetry(const char *path, struct series *s)
{
    struct br_telem *tm = br_telem_open(path);
    if (!tm)
        return -1;
    struct br_telem_row row;
    int rc;
    struct series inst = { 0 };
    bool any = false;
    while ((rc = br_telem_next(tm, &row)) > 0) {
        series_add(s, row.timestamp_ns, row.v[TELEM_SOCKET_POWER]);
        series_add(&inst, row.timestamp_ns, row.v[TELEM_INST_POWER]);
        any |= !isnan(row.v[TELEM_SOCKET_POWER]);
    }
    br_telem_close(tm);
    if (!any) {
        series_free(s);
        *s = inst;
    } else {
        series_free(&inst);
    }
    return rc < 0 ? -1 : 0;
}

/* NVML driver samples (read/drvpower.h) as a series. */
static int read_driver(const struct br_drvpower *d, int rc, struct series *s)
{
    for (size_t i = 0; rc == 0 && i < d->n; i++)
        series_add(s, d->t_ns[i], d->power_W[i]);
    return rc;
}

static int read_driver_file(const char *path, struct series *s)
{
    struct br_drvpower d;
    int rc = read_driver(&d, br_drvpower_read(path, &d), s);
    br_drvpower_free(&d);
    return rc;
}

int br_calib_trace_find_mem(const char *name, const void *data, size_t len, const char *kernel,
                            int64_t *start, int64_t *end)
{
    struct launches l = { 0 };
    int rc = trace_scan(csv_open_mem(name, data, len), kernel, true, &l);
    return first_launch(rc, &l, start, end);
}

long br_calib_driver_power_mem(const char *name, const void *data, size_t len, int64_t **t,
                               double **w)
{
    struct series s = { 0 };
    struct br_drvpower d;
    int rc = read_driver(&d, br_drvpower_read_mem(name, data, len, &d), &s);
    br_drvpower_free(&d);
    *t = s.t;
    *w = s.w;
    return rc == 0 ? (long)s.n : -1;
}

/* ---- checks ---------------------------------------------------------------------- */

static void rise_result(struct br_calib_results *res, const char *what, const char *file,
                        const struct series *s, int64_t ks, int64_t ke, bool every)
{
    struct br_calib_rise r;
    int rc = br_calib_power_rise(s->t, s->w, s->n, ks, ke, PRE_NS, &r);
    double period = every ? br_calib_refresh_ms(s->t, s->w, s->n, true) : r.period_ms;
    char *check = xasprintf("long kernel: power rise vs start (%s)", what);
    char *exp = isnan(period) ? xstrdup("crossing within a period (unknown)")
                              : xasprintf("crossing within %.1f ms (period)", period);
    /* The crossing is only known to lie in (last low refresh, rise sample];
     * a value repeated over refreshes hides them, and the last one came at
     * most a period before the rise. That interval must reach within one
     * period of the start on either side. */
    double low = fmax(r.low_delta_ms, r.delta_ms - period);
    char *meas = rc == 0 && r.rise_ns >= 0
        ? xasprintf("%+.1f ms, last low refresh %+.1f ms (%.0f -> %.0f W)", r.delta_ms, low,
                    r.baseline_W, r.plateau_W)
        : xasprintf("no step (%zu samples)", r.samples);
    bool step = rc == 0 && r.plateau_W - r.baseline_W >= 20.0;
    bool ok = step && r.rise_ns >= 0 && !isnan(period) && r.delta_ms >= -period &&
              !isnan(low) && low <= period;
    br_calib_result_add(res, check, exp, meas, file, ok ? BR_CALIB_PASS : BR_CALIB_MISS,
                        ok ? NULL : !step ? "no power step of >= 20 W at the kernel"
                                          : "rise outside one period of the kernel start");
    free(check);
    free(exp);
    free(meas);
}

static void duration_result(struct br_calib_results *res, int64_t ks, int64_t ke, long long_ms)
{
    /* The kernel spins on the GPU's globaltimer; the trace's start/end come
     * from another clock (CUPTI's, converted to boottime). On the H200 a
     * 1000 ms kernel traced as 999.999 ms: allow -0.01 % for the two clocks'
     * granularity, +1 % for launch and wake-up latency. */
    double ms = (double)(ke - ks) / 1e6;
    double lo = 0.9999 * (double)long_ms, hi = 1.01 * (double)long_ms;
    char *exp = xasprintf("%.1f .. %.1f ms", lo, hi);
    char *meas = xasprintf("%.3f ms", ms);
    bool ok = ms >= lo && ms <= hi;
    br_calib_result_add(res, "long kernel: duration in the trace", exp, meas, "kernel_trace.csv",
                        ok ? BR_CALIB_PASS : BR_CALIB_MISS, ok ? NULL : "outside -0.01..+1 %");
    free(exp);
    free(meas);
}


static int telemetry_results(const char *prof_dir, int64_t ks, int64_t ke,
                             struct br_calib_results *res)
{
    char **files = rp_find_files(prof_dir, ".csv");
    int rc = 0, seen = 0;
    for (size_t i = 0; files[i] && rc == 0; i++) {
        const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
        if (strncmp(base, TELEM_FILE_PREFIX, strlen(TELEM_FILE_PREFIX)) != 0)
            continue;
        struct series s = { 0 };
        bool drv = br_drvpower_is_file(files[i]);
        rc = drv ? read_driver_file(files[i], &s) : read_telemetry(files[i], &s);
        if (rc == 0)
            rise_result(res, drv ? "NVML driver samples" : "sampler telemetry", base, &s, ks, ke, drv);
        seen++;
        series_free(&s);
    }
    str_array_free(files);
    if (rc == 0 && seen == 0)
        br_calib_result_add(res, "long kernel: power rise vs start", "telemetry file", NULL,
                            prof_dir, BR_CALIB_MISS, "no profiling_result_*.csv in the power run");
    return rc;
}

int br_calib_check_power(const char *prof_dir, const char *long_kernel, long long_ms,
                         struct br_calib_results *res)
{
    int64_t ks = 0, ke = 0;
    int f = find_long(prof_dir, long_kernel, &ks, &ke);
    if (f < 0)
        return -1;
    if (f == 0) {
        br_calib_result_add(res, "long kernel: duration in the trace", "a launch of it", NULL,
                            prof_dir, BR_CALIB_MISS, "long kernel not in the power run's trace");
        return 0;
    }
    duration_result(res, ks, ke, long_ms);
    return telemetry_results(prof_dir, ks, ke, res);
}
