/* analyze.c - the analysis of a counter run (analyze.h): the inputs read
 * once, the sampled clock, the engine, the --perf-regex lines, the energy,
 * the collector's notes, then the writers into a new output set. */
#include "analysis/an_int.h"

#include "energy/energy.h"
#include "metrics/metrics.h"
#include "read/cuptijson.h"
#include "read/prun.h"
#include "read/rocprof.h"
#include "read/telemetry.h"
#include "read/telread.h"
#include "vectors/vectors.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strv.h"
#include "util/xalloc.h"
#include "write/analysis.h"
#include "write/wr_energy.h"
#include "write/wr_html.h"
#include "write/wr_set.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct an_state {
    struct an_passes passes;
    struct rp_run run;
    struct rp_power power;
    bool have_power;
    struct prun pr;                 /* the power run's telemetry, for the energy */
    struct en_result en;
    struct wr_energy we;
    bool have_energy;
    struct arch_profile *ap;
    char *arch_source, *out_dir, *pmc_abs, *power_path;
    char **tel;
    struct telem_run telem;     /* the telemetry files, read once */
    json_t *vectors;            /* the power run's sampling_vectors.json, or NULL */
    struct strv input_warn;     /* found while reading, before the engine runs */
    char *tmp_dir;              /* where the outputs are written before they replace out_dir */
    struct mx_result res;
    struct rp_copies *pcopies;      /* [npcopies] per pass */
    uint32_t npcopies;
};

static void progress(const struct an_opts *o, const char *what)
{
    if (o->progress)
        fprintf(stderr, "analyze: %s\n", what);
}

/* Each pass folder's memory copy traces (pmc asks rocprofv3 for them too). */
static int load_pass_copies(struct an_state *s)
{
    s->npcopies = s->run.npasses;
    s->pcopies = xcalloc(s->npcopies + 1, sizeof(*s->pcopies));
    for (uint32_t p = 0; p < s->run.npasses; p++) {
        const char *dir = s->run.passes[p].dir;
        if (dir && fs_is_dir(dir) && rp_copies_load(&s->pcopies[p], dir) < 0)
            return -1;
    }
    return 0;
}

static int load_inputs(const struct an_opts *o, struct an_state *s)
{
    progress(o, "reading the counter passes");
    if (an_passes_load(&s->passes, o) < 0 ||
        rp_run_load_resampled(&s->run, o->pmc_dir, s->passes.names, s->passes.set.n, 0,
                              o->resample ? &o->resample_plan : NULL) < 0)
        return -1;
    if (load_pass_copies(s) < 0 || !(s->ap = an_arch_load(o, &s->run, &s->passes, &s->arch_source)))
        return -1;
    an_passes_from_profile(&s->passes, s->ap);
    an_agent_overrides(s->ap, &s->run.agent, &s->input_warn);
    const char *kt = o->ktrace ? o->ktrace : o->power;
    if (kt && !o->ktrace && !an_has_trace(kt)) {
        br_warn("%s: no *kernel_trace.csv, *memory_copy_trace.csv or *" RP_ROCPD_SUFFIX ": time "
                "shares from the passes, no GPU busy %%", kt);
        kt = NULL;
    }
    if (kt) {
        progress(o, "reading the power-run kernel trace");
        s->power_path = fs_abspath(kt);   /* as the seed's summary.json and report.md show it */
        s->have_power = true;   /* released even after a failed load */
        if (rp_power_load_launches(&s->power, &s->run.names, s->power_path) < 0)
            return -1;
    }
    progress(o, "reading the telemetry for the sampled clock");
    s->tel = an_telemetry_files(o);
    return 0;
}

/* The telemetry read once (read/telread.h): the sampled clock's samples
 * and the timeline's lines. */
static int pick_clock(const struct an_opts *o, const struct rp_power *pw, char **tel,
                      struct telem_run *run, struct mx_opts *mo, struct wr_info *wi,
                      struct strv *warn)
{
    wi->clock.mean = NAN;
    if (tel[0] && pw) {
        size_t n = 0;
        while (tel[n])
            n++;
        struct telem_read_opts ro = { .pw = pw, .root = wi->power_path,
                                      .line_buckets = WR_TIMELINE_COLUMNS };
        if (telem_read_run(run, tel, n, &ro) < 0)
            return -1;
        wi->telem = run;
        mx_clock_stats(run, &wi->clock);
        wi->sampled = true;
        if (wi->clock.samples_no_clock)
            strv_pushf(warn, "telemetry: %llu in-kernel sample(s) with gfx_clock_MHz 0 or below "
                       "left out of the sampled clock (no clock reading)",
                       (unsigned long long)wi->clock.samples_no_clock);
    } else if (tel[0]) {
        br_warn("--telemetry without a power-run kernel trace: the in-kernel samples cannot be "
                "selected; the sampled clock is not used");
    }
    if (o->clock_mhz > 0) {
        mo->clock_src = MX_CLOCK_OVERRIDE;
        mo->clock_mhz = o->clock_mhz;
    } else if (isfinite(wi->clock.mean)) {
        mo->clock_src = MX_CLOCK_SAMPLED;
        mo->clock_mhz = wi->clock.mean;
    } else {
        mo->clock_src = MX_CLOCK_FALLBACK;
        mo->clock_mhz = NAN;
    }
    return 0;
}

/* What the NVIDIA collector's companion files say about launches without
 * counters, one warning per pass, and the range offsets a sampled pass's
 * intervals are widened by (read/cuptijson.h). */
static void collector_notes(struct an_state *s)
{
    for (uint32_t p = 0; p < s->run.npasses; p++) {
        struct rp_pass *ps = &s->run.passes[p];
        struct cj_pass cj;
        memset(&cj, 0, sizeof(cj));
        if (ps->dir && fs_is_dir(ps->dir) && cj_read_pass(&cj, ps->dir) > 0) {
            char *msg = cj_describe(&cj, ps->name);
            if (msg)
                mx_warn(&s->res, "%s", msg);
            free(msg);
            if (ps->sampled && cj.offset_counters.n && ps->ncounters) {
                ps->coffset = xcalloc(ps->ncounters, sizeof(double));
                for (uint32_t c = 0; c < ps->ncounters; c++)
                    ps->coffset[c] = cj_offset(&cj, ps->counters[c]);
            }
        }
        cj_release(&cj);
    }
}

/* The energy of the power run (src/energy, as `benchrun energy`): needs its
 * kernel trace and telemetry. No telemetry file: a warning, no energy. */
static int energy(const struct an_opts *o, struct an_state *s, struct wr_info *wi)
{
    const char *dir = o->power ? o->power : s->power_path;
    if (!s->have_power || (!o->ntelemetry && (!s->tel || !s->tel[0]))) {
        if (s->have_power)
            br_warn("energy: the power run has no telemetry file (profiling_result_*.csv): "
                    "no energy per kernel");
        return 0;
    }
    progress(o, "energy");
    s->have_energy = true;         /* released even after a failure */
    if (prun_read(&s->pr, dir, s->power_path, s->tel, &s->run.names, &s->power) != 0)
        return -1;
    prun_finish(&s->pr, dir, &o->energy);
    if (prun_energy(&s->pr, &o->energy, &o->fit, &s->en) != 0)
        return -1;
    /* Not the seed's data checks: in summary.json energy.warnings, report.md Energy. */
    for (size_t i = 0; i < s->pr.warn.n; i++)
        br_warn("energy: %s", s->pr.warn.v[i]);
    for (size_t i = 0; i < s->en.warn.n; i++)
        br_warn("energy: %s", s->en.warn.v[i]);
    char *abs = fs_abspath(dir);
    wr_energy_init(&s->we, &s->en, &s->pr, abs, &s->run.names, &s->res);
    s->we.prof_dir_owned = abs;
    wi->energy = &s->we;
    return 0;
}

static int run_analysis(const struct an_opts *o, struct an_state *s)
{
    if (load_inputs(o, s) < 0)
        return -1;
    struct mx_opts mo = { .time_pct = o->time_pct, .top_n = (int)o->top_n,
                          .latency_pct = o->latency_pct };
    struct wr_info wi = { .pmc_dir = s->pmc_abs,
                          .arch_source = s->arch_source, .counters_file = s->passes.file,
                          .run = &s->run, .power = s->have_power ? &s->power : NULL,
                          .power_path = s->power_path, .telemetry = s->tel,
                          .top_rows = (int)o->top, .time_pct = o->time_pct,
                          .latency_pct = o->latency_pct, .top_n = (int)o->top_n,
                          .perf_regex = o->perf_regex, .pass_copies = s->pcopies,
                          .npass_copies = s->npcopies };
    progress(o, "sampled clock");
    if (pick_clock(o, wi.power, s->tel, &s->telem, &mo, &wi, &s->input_warn) < 0)
        return -1;
    if (o->power)
        s->vectors = vec_json_read(o->power, &s->input_warn);
    wi.vectors = s->vectors;
    mo.input_warn = s->input_warn.v;
    mo.ninput_warn = s->input_warn.n;
    progress(o, "metrics");
    if (mx_compute(&s->res, s->ap, &s->run, wi.power, s->passes.set.v, (int)s->passes.set.n,
                   &mo) < 0 ||
        an_perf_lines(o, &s->res) < 0 || energy(o, s, &wi) < 0)
        return -1;
    collector_notes(s);
    progress(o, "writing");
    if (wr_set_begin(s->out_dir, &s->tmp_dir) < 0)
        return -1;
    wi.out_dir = s->tmp_dir;
    char *html = fs_path_join(s->tmp_dir, "report.html");
    int rc = wr_analysis(&s->res, &wi) < 0 ? -1 : wr_report_html(&s->res, &wi, html);
    free(html);
    if (rc == 0 && wi.energy) {         /* part of the set: in the folder being written */
        char *trace = fs_path_join(s->tmp_dir, "power_trace.json");
        rc = wr_power_trace(wi.energy, trace);
        free(trace);
    }
    return rc == 0 ? wr_set_commit(s->out_dir, &s->tmp_dir) : -1;
}

static void state_release(struct an_state *s)
{
    wr_set_abort(&s->tmp_dir);  /* not committed: a failed write leaves the old set whole */
    strv_release(&s->input_warn);
    if (s->we.en)
        wr_energy_release(&s->we);
    en_release(&s->en);
    if (s->have_energy)
        prun_release(&s->pr);
    mx_release(&s->res);
    arch_free(s->ap);
    if (s->have_power)
        rp_power_release(&s->power);
    for (uint32_t p = 0; p < s->npcopies; p++)
        rp_copies_release(&s->pcopies[p]);
    free(s->pcopies);
    rp_run_release(&s->run);
    an_passes_release(&s->passes);
    str_array_free(s->tel);
    telem_run_release(&s->telem);
    json_decref(s->vectors);
    free(s->arch_source);
    free(s->out_dir);
    free(s->pmc_abs);
    free(s->power_path);
}

void an_opts_init(struct an_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->time_pct = 90;
    o->latency_pct = 10;
    o->top = 20;
    o->perf_regex = AN_DEFAULT_PERF_REGEX;
    en_opts_default(&o->fit);
}

int an_run(const struct an_opts *o, struct an_result *out)
{
    memset(out, 0, sizeof(*out));
    strv_init(&out->warnings);
    struct an_state s;
    memset(&s, 0, sizeof(s));
    strv_init(&s.input_warn);
    s.pmc_abs = fs_abspath(o->pmc_dir);
    s.out_dir = o->out_dir ? xstrdup(o->out_dir) : fs_path_join(o->pmc_dir, "analysis");
    int rc = fs_is_dir(o->pmc_dir) ? run_analysis(o, &s)
                                   : br_error("analyze: '%s' is not a folder", o->pmc_dir);
    if (rc == 0) {
        out->nkernels = s.res.nk;
        out->ntop = s.res.ntop;
        for (size_t i = 0; i < s.res.nwarn; i++)
            strv_push(&out->warnings, s.res.warn[i]);
        out->out_dir = xstrdup(s.out_dir);
    }
    state_release(&s);
    return rc;
}

void an_result_release(struct an_result *r)
{
    strv_release(&r->warnings);
    free(r->out_dir);
    r->out_dir = NULL;
}
