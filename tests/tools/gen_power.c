/* gen_power.c - test-data generator: a power run whose energy per kernel is
 * known, for the energy analysis (benchrun energy, analyze --power).
 *
 * Writes what `benchrun power` leaves on disk:
 *   PROF_DIR/profiling_result_<tag>[_<node>]_<gpu>.csv      sampler telemetry
 *   PROF_DIR/profiling_result_<tag>[_<node>]_<gpu>_driver_power.csv  (--driver-ms)
 *   PROF_DIR/ktrace_<tag>[/<node>]/<tag>_<pid>_kernel_trace.csv      (rocprofv3 7.x)
 *   PROF_DIR/expected_energy.json                            the answers (below)
 *
 * The hidden model: the GPU draws P_idle with nothing running and P_k while
 * kernel k runs (copies: --copy-W); launches never overlap on one GPU. The
 * sensors: an energy counter that is the exact integral of that power, read
 * every --counter-ms (amdgpu style: its reading time in source_timestamp_ns;
 * --no-counter writes nan); a power sensor that reads, every --refresh-ms, the
 * mean power over the preceding --refresh-ms, --lag-ms late, plus Gaussian
 * noise of --noise-W, held in between; NVML-style driver samples every
 * --driver-ms, the mean over the preceding --driver-ms (same lag and noise).
 * Values are printed with 9 (energy) and 6 (power) decimals.
 *
 * expected_energy.json, computed here from the model and from the values as
 * printed, never by benchrun:
 *   kernels.<name> / copies.<class> / idle:
 *     true_J, true_W      the model's energy and power
 *     time_ns, launches
 *     attr_J, attr_tol_J  the attribution of the printed sensor values, split
 *                         by overlap time (an independent brute-force sum per
 *                         segment), and its rounding tolerance
 *     attr_bound_J        |attributed - true| can be at most this: in each
 *                         sensor segment the split gives a class the segment's
 *                         mean power instead of its own, an error of at most
 *                         its time there x (max - min power in the segment),
 *                         plus the printing rounding; null when the sensor is
 *                         not exact (refresh longer than a sample, lag, noise)
 *     clock_MHz           time-weighted gfx clock of the rows over its time
 *     fit_tol_W           noiseless fit error bound from the printing rounding
 *                         q of each window: an identifiable column (VIF <= 100)
 *                         moves by at most q sqrt(VIF) span / T_k = 10 q span / T_k
 *   total: true_J, attr_J, attr_tol_J; gpus: per GPU true_J and its file.
 *
 * Deterministic: xorshift64 from --seed.
 */
#include "trace/copytrace.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
#define T0 5000000000000LL           /* CLOCK_BOOTTIME-like origin */
#define NODE_STEP 259200000000000LL  /* nodes booted 3 days apart */
#define MAXK 16

struct kdef {
    char name[64];
    double W, dur_ms;
};

struct gen {
    const char *out, *tag;
    double period_ms, refresh_ms, counter_ms, driver_ms, lag_ms, noise_W, idle_W, copy_W;
    double gap_ms, copy_frac, lead_ms, driver_scale;
    struct kdef first;               /* a first launch (name empty: none) */
    bool counter, bind_per_task;
    int gpus, nodes, agent_base;
    long launches;
    uint64_t seed;
    int nk;
    struct kdef k[MAXK];
};

/* One activity: kernel k >= 0, or a copy (k = -1). */
struct act {
    int64_t s, e;
    int k;
};

/* ---- random numbers ---- */

static uint64_t rs;
static double urand(void)
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return (double)(rs >> 11) / 9007199254740992.0;
}
static double gauss(void)
{
    double u = urand(), v = urand();
    return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* ---- the model ---- */

static double power_of(const struct gen *g, int k)
{
    return k < 0 ? g->copy_W : k == g->nk ? g->first.W : g->k[k].W;
}

static const char *name_of(const struct gen *g, int k)
{
    return k == g->nk ? g->first.name : g->k[k].name;
}

/* Launches of one GPU from t0: kernels chosen at random, durations 0.5-1.5 x
 * the kernel's, gaps 0 (30 %) or up to gap_ms; copies with copy_frac. */
static size_t schedule(const struct gen *g, int64_t t0, struct act **out)
{
    struct act *a = xmalloc(((size_t)g->launches + 2) * sizeof(*a));
    int64_t t = t0;
    size_t n = 0;
    if (g->first.name[0]) {          /* kernel id nk: the extra kernel */
        int64_t d = (int64_t)llround(g->first.dur_ms * MS);
        a[n++] = (struct act){ t, t + d, g->nk };
        t += d;
    }
    for (long i = 0; i < g->launches; i++) {
        bool copy = urand() < g->copy_frac;
        int k = copy ? -1 : (int)(urand() * g->nk) % g->nk;
        double ms = copy ? 0.8 : g->k[k].dur_ms;
        int64_t d = (int64_t)llround(ms * (0.5 + urand()) * MS);
        d = d < 1000 ? 1000 : d;
        a[n++] = (struct act){ t, t + d, k };
        t += d + (urand() < 0.3 ? 0 : (int64_t)llround(g->gap_ms * urand() * MS));
    }
    *out = a;
    return n;
}

/* Energy (J) of [a, b) under the model; *first is a search hint. */
static double energy(const struct gen *g, const struct act *v, size_t n, int64_t a, int64_t b,
                     size_t *first)
{
    while (*first < n && v[*first].e <= a)
        (*first)++;
    while (*first > 0 && v[*first - 1].e > a)
        (*first)--;
    double e = 0, busy = 0;
    for (size_t i = *first; i < n && v[i].s < b; i++) {
        int64_t s = v[i].s > a ? v[i].s : a, t = v[i].e < b ? v[i].e : b;
        if (t > s) {
            e += power_of(g, v[i].k) * (double)(t - s) * 1e-9;
            busy += (double)(t - s);
        }
    }
    return e + g->idle_W * ((double)(b - a) - busy) * 1e-9;
}

static double mean_W(const struct gen *g, const struct act *v, size_t n, int64_t a, int64_t b,
                     size_t *hint)
{
    return energy(g, v, n, a, b, hint) / ((double)(b - a) * 1e-9);
}

/* The value as printed with d decimals, read back. */
static double printed(double v, int d)
{
    char b[64];
    snprintf(b, sizeof(b), "%.*f", d, v);
    return strtod(b, NULL);
}

/* ---- expected values ---- */

#define NCLS (MAXK + 2)              /* kernels, copy (MAXK), idle (MAXK + 1) */
#define C_COPY MAXK
#define C_IDLE (MAXK + 1)

struct expect {
    double true_J[NCLS], time_ns[NCLS], attr_J[NCLS], attr_tol[NCLS], bound[NCLS];
    double clock_int[NCLS], clock_ns[NCLS];
    long launches[NCLS];
    bool exact;                      /* the sensor of the attribution is exact */
    double span_ns;                  /* fit windows' total time */
    double q_W;                      /* fit window rounding */
};

static int cls_of(int k)
{
    return k >= 0 ? k : C_COPY;      /* the --first kernel is class nk */
}

/* One sensor segment [a, b) of printed energy e (J): the split by overlap
 * time, the error bound and the rounding tolerance, by brute force. */
static void segment(const struct gen *g, const struct act *v, size_t n, int64_t a, int64_t b,
                    double e, double round_J, size_t *hint, struct expect *x)
{
    double t[NCLS] = { 0 }, len = (double)(b - a), busy = 0;
    while (*hint < n && v[*hint].e <= a)
        (*hint)++;
    for (size_t i = *hint; i < n && v[i].s < b; i++) {
        int64_t s = v[i].s > a ? v[i].s : a, u = v[i].e < b ? v[i].e : b;
        if (u > s)
            t[cls_of(v[i].k)] += (double)(u - s), busy += (double)(u - s);
    }
    t[C_IDLE] = len - busy;
    double pmax = -INFINITY, pmin = INFINITY;
    for (int c = 0; c < NCLS; c++) {
        if (t[c] <= 0)
            continue;
        double p = c == C_IDLE ? g->idle_W : c == C_COPY ? g->copy_W : power_of(g, c);
        pmax = fmax(pmax, p), pmin = fmin(pmin, p);
    }
    for (int c = 0; c < NCLS; c++) {
        if (t[c] <= 0)
            continue;
        x->attr_J[c] += e * t[c] / len;
        x->attr_tol[c] += 1e-9 * fabs(e * t[c] / len) + round_J * t[c] / len;
        x->bound[c] += (pmax - pmin) * t[c] * 1e-9 + round_J;
    }
}

/* Truth of one GPU's window. */
static void truth(const struct gen *g, const struct act *v, size_t n, int64_t w0, int64_t w1,
                  struct expect *x)
{
    double busy = 0;
    for (size_t i = 0; i < n; i++) {
        int c = cls_of(v[i].k);
        double d = (double)(v[i].e - v[i].s);
        x->true_J[c] += power_of(g, v[i].k) * d * 1e-9;
        x->time_ns[c] += d;
        x->launches[c]++;
        busy += d;
    }
    x->time_ns[C_IDLE] += (double)(w1 - w0) - busy;
    x->true_J[C_IDLE] += g->idle_W * ((double)(w1 - w0) - busy) * 1e-9;
}

/* ---- files ---- */

static FILE *open_out(const char *path)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        br_error("cannot create '%s': %m", path);
    return fp;
}

static int close_out(FILE *fp, const char *path)
{
    if (ferror(fp) | fclose(fp))
        return br_error("cannot write '%s': %m", path);
    return 0;
}

static const char trace_header[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

/* Kernels only: copies are not in a kernel trace (they are the caller's
 * memory_copy_trace, written by gen_power only as truth). */
static int write_trace(const struct gen *g, const char *path, int agent, int pid,
                       const struct act *v, size_t n)
{
    FILE *fp = open_out(path);
    if (!fp)
        return -1;
    fputs(trace_header, fp);
    long id = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].k < 0)
            continue;
        id++;
        fprintf(fp, "\"KERNEL_DISPATCH\",\"Agent %d\",1,1,%d,%ld,%d,\"%s\",%ld,%lld,%lld,0,0,32,0,"
                    "16,256,1,1,65536,1,1\n", agent, pid, id, v[i].k + 1, name_of(g, v[i].k), id,
                (long long)v[i].s, (long long)v[i].e);
    }
    return close_out(fp, path);
}

/* Copies as memory_copy_trace.csv rows (trace/copytrace.h), host to device. */
static int write_copies(const char *path, int agent, const struct act *v, size_t n)
{
    FILE *fp = open_out(path);
    if (!fp)
        return -1;
    fputs(ct_header, fp);
    uint64_t id = 0;
    for (size_t i = 0; i < n; i++) {
        struct ct_copy c = { CT_H2D, CT_HOST, agent, 0, ++id, (uint64_t)v[i].s, (uint64_t)v[i].e,
                             1048576 };
        if (v[i].k < 0)
            ct_write_row(fp, &c);
    }
    return close_out(fp, path);
}

static double clock_of(const struct gen *g, const struct act *v, size_t n, int64_t t, size_t *hint)
{
    while (*hint < n && v[*hint].e <= t)
        (*hint)++;
    if (*hint < n && v[*hint].s <= t && t < v[*hint].e)
        return v[*hint].k >= 0 ? 1200 + 50 * v[*hint].k : 1100;
    return 800;
}

/* The telemetry rows from w0 - 50 ms to w1 + 50 ms, with the expected
 * attribution of the counter (or of the power when --no-counter). */
static int write_telemetry(const struct gen *g, const char *path, const char *node, int gpu,
                           const struct act *v, size_t n, int64_t w0, int64_t w1,
                           struct expect *x)
{
    FILE *fp = open_out(path);
    if (!fp)
        return -1;
    fprintf(fp, "device=%d backend=generated interval_ms=%g energy_resolution_J=1e-09 "
                "clock=CLOCK_BOOTTIME source=gen_power prefix=%s node=%s caps=socket_power,energy\n",
            gpu, g->period_ms, g->tag, node ? node : "none");
    fputs("timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,"
          "hotspot_temp_C,energy_J,mem_clock_MHz,source_timestamp_ns,refreshed,mem_temp_C,"
          "gfx_clock_max_MHz\n", fp);
    int64_t per = (int64_t)llround(g->period_ms * MS);
    int64_t t0 = w0 - 50 * MS - (int64_t)llround(g->lead_ms * MS);
    long rstep = lround(g->refresh_ms / g->period_ms), cstep = lround(g->counter_ms / g->period_ms);
    int64_t lag = (int64_t)llround(g->lag_ms * MS), rlen = rstep * per;
    double P = NAN, E = 0, Eprint = 0, prevEprint = 0, prevP = NAN;
    int64_t prev_t = 0, prev_r = 0;
    size_t h1 = 0, h2 = 0, h3 = 0, h4 = 0, hc = 0;
    bool first = true;
    for (long i = 0; t0 + i * per <= w1 + 50 * MS; i++) {
        int64_t t = t0 + i * per;
        if (i % rstep == 0)
            P = printed(mean_W(g, v, n, t - lag - rlen, t - lag, &h1) + g->noise_W * gauss(), 6);
        if (!first)
            E += energy(g, v, n, prev_t, t, &h2);
        bool reading = i % cstep == 0;
        if (reading) {
            prevEprint = Eprint;
            Eprint = printed(E, 9);
        }
        /* Expected attribution over [prev, t) clipped to the window. */
        if (!first && g->counter && reading) {
            int64_t a = prev_r > w0 ? prev_r : w0, b = t < w1 ? t : w1;
            double e = (Eprint - prevEprint) * (double)(b - a) / (double)(t - prev_r);
            if (b > a)
                segment(g, v, n, a, b, e, 1e-9, &h3, x);
        } else if (!first && !g->counter) {
            int64_t a = prev_t > w0 ? prev_t : w0, b = t < w1 ? t : w1;
            if (b > a)
                segment(g, v, n, a, b, P * (double)(b - a) * 1e-9,
                        5e-7 * (double)(b - a) * 1e-9, &h3, x);
        }
        double clk = clock_of(g, v, n, t, &hc);
        if (!first) {                /* the clock of row i holds over [prev, t) */
            int64_t a = prev_t > w0 ? prev_t : w0, b = t < w1 ? t : w1;
            for (size_t j = h4; b > a && j < n && v[j].s < b; j++) {
                int64_t s = v[j].s > a ? v[j].s : a, u = v[j].e < b ? v[j].e : b;
                if (u > s)
                    x->clock_int[cls_of(v[j].k)] += clk * (double)(u - s),
                    x->clock_ns[cls_of(v[j].k)] += (double)(u - s);
            }
            while (h4 < n && v[h4].e <= t)
                h4++;
        }
        bool fresh = first || P != prevP || reading;
        if (g->counter)
            fprintf(fp, "%lld,%.6f,nan,%.1f,nan,%.2f,%.9f,1300.0,%lld,%d,50.00,%.1f\n",
                    (long long)t, P, clk, 40 + P / 20, Eprint, (long long)(reading ? t : prev_r),
                    fresh, clk);
        else
            fprintf(fp, "%lld,%.6f,nan,%.1f,nan,%.2f,nan,1300.0,nan,%d,50.00,%.1f\n",
                    (long long)t, P, clk, 40 + P / 20, fresh, clk);
        if (reading)
            prev_r = t;
        prev_t = t, prevP = P, first = false;
    }
    x->exact = g->counter ? true : rstep == 1 && g->lag_ms == 0 && g->noise_W == 0;
    return close_out(fp, path);
}

static int write_driver(const struct gen *g, const char *path, int gpu, const struct act *v,
                        size_t n, int64_t w0, int64_t w1)
{
    FILE *fp = open_out(path);
    if (!fp)
        return -1;
    fprintf(fp, "device=%d backend=generated kind=driver_power_samples clock=CLOCK_BOOTTIME unit=W\n"
                "timestamp_ns,power_W,nvml_timestamp_us,gap_before\n", gpu);
    int64_t d = (int64_t)llround(g->driver_ms * MS), lag = (int64_t)llround(g->lag_ms * MS);
    size_t h = 0;
    for (int64_t t = w0 - 50 * MS - (int64_t)llround(g->lead_ms * MS) + 370000; t <= w1 + 50 * MS;
         t += d)
        fprintf(fp, "%lld,%.6f,%lld,0\n", (long long)t,
                g->driver_scale * mean_W(g, v, n, t - lag - d, t - lag, &h) + g->noise_W * gauss(),
                (long long)(t / 1000));
    return close_out(fp, path);
}

/* ---- expected_energy.json ---- */

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *cls_json(const struct gen *g, const struct expect *x, int c, double W)
{
    double q = x->q_W, T = x->time_ns[c];
    return json_pack("{s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o}",
        "true_J", jnum(x->true_J[c]), "true_W", jnum(W), "time_ns", jnum(T),
        "launches", (json_int_t)x->launches[c], "attr_J", jnum(x->attr_J[c]),
        "attr_tol_J", jnum(x->attr_tol[c] + 1e-12), "attr_bound_J", x->exact ? jnum(x->bound[c]) : json_null(),
        "clock_MHz", jnum(x->clock_ns[c] > 0 ? x->clock_int[c] / x->clock_ns[c] : NAN),
        "fit_tol_W", jnum(T > 0 ? 10 * q * x->span_ns / T + 1e-9 * W : NAN));
}

static int write_expected(const struct gen *g, const struct expect *x, json_t *gpus)
{
    json_t *k = json_object(), *root = json_object();
    for (int i = 0; i <= g->nk; i++)
        if (x->launches[i])
            json_object_set_new(k, name_of(g, i), cls_json(g, x, i, power_of(g, i)));
    json_object_set_new(root, "kernels", k);
    json_t *cp = json_object();
    if (x->launches[C_COPY])
        json_object_set_new(cp, "H2D", cls_json(g, x, C_COPY, g->copy_W));
    json_object_set_new(root, "copies", cp);
    json_object_set_new(root, "idle", cls_json(g, x, C_IDLE, g->idle_W));
    double tj = 0, ta = 0, tt = 0;
    for (int c = 0; c < NCLS; c++)
        tj += x->true_J[c], ta += x->attr_J[c], tt += x->attr_tol[c];
    json_object_set_new(root, "total", json_pack("{s:o, s:o, s:o}", "true_J", jnum(tj),
                        "attr_J", jnum(ta), "attr_tol_J", jnum(tt + 1e-12)));
    json_object_set_new(root, "gpus", gpus);
    json_object_set_new(root, "model", json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:b}",
        "period_ms", g->period_ms, "refresh_ms", g->refresh_ms, "counter_ms", g->counter_ms,
        "driver_ms", g->driver_ms, "lag_ms", g->lag_ms, "noise_W", g->noise_W,
        "counter", g->counter, "attribution_exact", x->exact));
    char *p = fs_path_join(g->out, "expected_energy.json");
    int rc = json_dump_file(root, p, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) == 0
             ? 0 : br_error("cannot write '%s'", p);
    free(p);
    json_decref(root);
    return rc;
}

static int generate(struct gen *g)
{
    struct expect x = { 0 };
    json_t *gpus = json_array();
    int rc = fs_mkdir_p(g->out);
    rs = g->seed ? g->seed : 88172645463325252ULL;
    x.q_W = g->driver_ms > 0 ? 5e-7 : g->counter ? 1e-9 / (g->counter_ms * 1e-3) : 5e-7;
    for (int node = 0; rc == 0 && node < g->nodes; node++) {
        char nname[32];
        snprintf(nname, sizeof(nname), "node%d", node + 1);
        const char *nd = g->nodes > 1 ? nname : NULL;
        char *kdir = nd ? xasprintf("%s/ktrace_%s/%s", g->out, g->tag, nd)
                        : xasprintf("%s/ktrace_%s", g->out, g->tag);
        rc = fs_mkdir_p(kdir);
        struct act **v = xcalloc((size_t)g->gpus, sizeof(*v));
        size_t *n = xcalloc((size_t)g->gpus, sizeof(*n));
        int64_t base = T0 + node * NODE_STEP, w0 = INT64_MAX, w1 = INT64_MIN;
        for (int i = 0; i < g->gpus; i++) {
            n[i] = schedule(g, base + 3 * MS * i, &v[i]);
            w0 = v[i][0].s < w0 ? v[i][0].s : w0;
            w1 = v[i][n[i] - 1].e > w1 ? v[i][n[i] - 1].e : w1;
        }
        for (int i = 0; rc == 0 && i < g->gpus; i++) {
            int pid = 1000 + 100 * node + i, agent = g->bind_per_task ? 0 : g->agent_base + i;
            char *tp = xasprintf("%s/%s_%d_kernel_trace.csv", kdir, g->tag, pid);
            char *cp = xasprintf("%s/%s_%d_memory_copy_trace.csv", kdir, g->tag, pid);
            char *stem = nd ? xasprintf("%s/profiling_result_%s_%s_%d", g->out, g->tag, nd, i)
                            : xasprintf("%s/profiling_result_%s_%d", g->out, g->tag, i);
            char *tel = xasprintf("%s.csv", stem), *drv = xasprintf("%s_driver_power.csv", stem);
            struct expect gx = { 0 };
            rc = write_trace(g, tp, agent, pid, v[i], n[i]);
            if (rc == 0 && g->copy_frac > 0)
                rc = write_copies(cp, agent, v[i], n[i]);
            if (rc == 0)
                rc = write_telemetry(g, tel, nd, i, v[i], n[i], w0, w1, &gx);
            if (rc == 0 && g->driver_ms > 0)
                rc = write_driver(g, drv, i, v[i], n[i], w0, w1);
            truth(g, v[i], n[i], w0, w1, &gx);
            double gt = 0;
            for (int c = 0; c < NCLS; c++) {
                gt += gx.true_J[c];
                x.true_J[c] += gx.true_J[c], x.time_ns[c] += gx.time_ns[c];
                x.attr_J[c] += gx.attr_J[c], x.attr_tol[c] += gx.attr_tol[c];
                x.bound[c] += gx.bound[c], x.launches[c] += gx.launches[c];
                x.clock_int[c] += gx.clock_int[c], x.clock_ns[c] += gx.clock_ns[c];
            }
            x.exact = gx.exact;
            x.span_ns += (double)(w1 - w0);
            const char *b = strrchr(tel, '/');
            json_array_append_new(gpus, json_pack("{s:s, s:o, s:I, s:I}", "file", b + 1,
                                  "true_J", jnum(gt), "window_start_ns", (json_int_t)w0,
                                  "window_end_ns", (json_int_t)w1));
            free(tp), free(cp), free(stem), free(tel), free(drv);
        }
        for (int i = 0; i < g->gpus; i++)
            free(v[i]);
        free(v), free(n), free(kdir);
    }
    if (rc == 0)
        rc = write_expected(g, &x, gpus);
    else
        json_decref(gpus);
    return rc;
}

/* ---- options ---- */

static const char usage[] =
    "usage: gen_power [options] PROF_DIR\n"
    "  --kernel NAME:W:MS     a kernel, its power and mean launch length (repeatable)\n"
    "  --launches N           launches per GPU (default 400)\n"
    "  --idle-W W             idle power (default 90)\n"
    "  --period-ms P          telemetry sample period (default 1)\n"
    "  --refresh-ms R         power sensor refresh (default: the period)\n"
    "  --counter-ms C         energy counter reading period (default: the period)\n"
    "  --no-counter           energy_J nan (power x time)\n"
    "  --driver-ms D          also NVML-style driver power samples every D ms\n"
    "  --lag-ms L             power sensor delay (default 0)\n"
    "  --noise-W S            power sensor noise sd (default 0)\n"
    "  --gap-ms G             idle gaps up to G ms (default 3)\n"
    "  --copies F             fraction of launches that are H2D copies (default 0)\n"
    "  --copy-W W             copy power (default 150)\n"
    "  --gpus N --nodes M     GPUs per node, nodes (default 1, 1)\n"
    "  --agent-base A         Agent_Id of GPU 0 (default 1)\n"
    "  --bind-per-task        every trace names its GPU Agent 0\n"
    "  --lead-ms L            idle before the first launch, sampled (default 0)\n"
    "  --first NAME:W:MS      a first launch of exactly MS ms\n"
    "  --driver-scale F       driver samples read F x the power (default 1)\n"
    "  --tag T --seed S\n";

static int parse_kernel(struct kdef *k, const char *spec)
{
    char name[64];
    double w, ms;
    if (sscanf(spec, "%63[^:]:%lf:%lf", name, &w, &ms) != 3 || !(ms > 0))
        return br_error("gen_power: NAME:W:MS, got '%s'", spec);
    snprintf(k->name, sizeof(k->name), "%s", name);
    k->W = w, k->dur_ms = ms;
    return 0;
}

static int add_kernel(struct gen *g, const char *spec)
{
    char name[64];
    double w, ms;
    if (g->nk >= MAXK - 1 || sscanf(spec, "%63[^:]:%lf:%lf", name, &w, &ms) != 3 || !(ms > 0))
        return br_error("gen_power: --kernel NAME:W:MS, got '%s'", spec);
    struct kdef *k = &g->k[g->nk++];
    snprintf(k->name, sizeof(k->name), "%s", name);
    k->W = w, k->dur_ms = ms;
    return 0;
}

int main(int argc, char **argv)
{
    struct gen g = { .tag = "gen", .period_ms = 1, .refresh_ms = NAN, .counter_ms = NAN,
                     .idle_W = 90, .copy_W = 150, .gap_ms = 3, .counter = true, .gpus = 1,
                     .nodes = 1, .agent_base = 1, .launches = 400, .driver_scale = 1 };
    static const struct option lo[] = {
        { "kernel", 1, NULL, 'k' }, { "launches", 1, NULL, 'n' }, { "idle-W", 1, NULL, 'i' },
        { "period-ms", 1, NULL, 'p' }, { "refresh-ms", 1, NULL, 'r' }, { "counter-ms", 1, NULL, 'c' },
        { "no-counter", 0, NULL, 'C' }, { "driver-ms", 1, NULL, 'd' }, { "lag-ms", 1, NULL, 'l' },
        { "noise-W", 1, NULL, 'N' }, { "gap-ms", 1, NULL, 'g' }, { "copies", 1, NULL, 'y' },
        { "copy-W", 1, NULL, 'Y' }, { "gpus", 1, NULL, 'G' }, { "nodes", 1, NULL, 'M' },
        { "agent-base", 1, NULL, 'a' }, { "bind-per-task", 0, NULL, 'b' }, { "tag", 1, NULL, 't' },
        { "seed", 1, NULL, 's' }, { "lead-ms", 1, NULL, 'L' }, { "first", 1, NULL, 'F' },
        { "driver-scale", 1, NULL, 'D' }, { "help", 0, NULL, 'h' }, { 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'k': if (add_kernel(&g, optarg) != 0) return 2; break;
        case 'n': g.launches = atol(optarg); break;
        case 'i': g.idle_W = atof(optarg); break;
        case 'p': g.period_ms = atof(optarg); break;
        case 'r': g.refresh_ms = atof(optarg); break;
        case 'c': g.counter_ms = atof(optarg); break;
        case 'C': g.counter = false; break;
        case 'd': g.driver_ms = atof(optarg); break;
        case 'l': g.lag_ms = atof(optarg); break;
        case 'N': g.noise_W = atof(optarg); break;
        case 'g': g.gap_ms = atof(optarg); break;
        case 'y': g.copy_frac = atof(optarg); break;
        case 'Y': g.copy_W = atof(optarg); break;
        case 'G': g.gpus = atoi(optarg); break;
        case 'M': g.nodes = atoi(optarg); break;
        case 'a': g.agent_base = atoi(optarg); break;
        case 'b': g.bind_per_task = true; break;
        case 't': g.tag = optarg; break;
        case 's': g.seed = strtoull(optarg, NULL, 10); break;
        case 'L': g.lead_ms = atof(optarg); break;
        case 'F': if (parse_kernel(&g.first, optarg) != 0) return 2; break;
        case 'D': g.driver_scale = atof(optarg); break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind != argc - 1 || g.launches < 1 || g.gpus < 1 || g.nodes < 1 || !(g.period_ms > 0)) {
        fputs(usage, stderr);
        return 2;
    }
    g.out = argv[optind];
    if (isnan(g.refresh_ms))
        g.refresh_ms = g.period_ms;
    if (isnan(g.counter_ms))
        g.counter_ms = g.period_ms;
    if (g.nk == 0) {
        add_kernel(&g, "gemm:620:6");
        add_kernel(&g, "stream:380:0.4");
        add_kernel(&g, "spin:160:30");
    }
    return generate(&g) == 0 ? 0 : 1;
}
