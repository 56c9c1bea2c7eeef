/* archdoc.c - Markdown reference of an arch profile (contract in archdoc.h).
 *
 * The profile is loaded twice: by arch_load (validation, and the names of its
 * constants, passes and metrics) and as plain JSON (the formulas exactly as
 * written). The names an expression uses come from the expression parser
 * itself (ex_parse with a recording bind callback), so what this page says a
 * metric needs is what the engine binds. A name resolves as in arch.c's bind:
 * an earlier (non-label) metric, a constant or peak, an engine variable, a
 * kernel attribute, else a counter.
 */
#include "arch/archdoc.h"

#include "arch/arch.h"
#include "arch/expr.h"
#include "util/error.h"
#include "util/strv.h"
#include "util/xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* What a metric needs, transitively: passes (or "A or B", "any pass") and
 * other inputs (clock, power run, kernel attributes). */
struct mdeps {
    struct strv passes, inputs;
};

struct doc {
    struct arch_profile *ap;
    json_t *metrics;        /* the profile's "metrics" array */
    struct mdeps *deps;     /* one per element of metrics, filled in order */
    size_t ndone;
};

static void add_unique(struct strv *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (!strcmp(sv->v[i], s))
            return;
    strv_push(sv, s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A table cell: '|' escaped, newlines as blanks; empty cells get a dash. */
static void cell(struct strbuf *out, const char *s)
{
    if (!s || !*s) {
        sb_adds(out, "–");
        return;
    }
    for (; *s; s++) {
        if (*s == '|')
            sb_adds(out, "\\|");
        else
            sb_addc(out, *s == '\n' ? ' ' : *s);
    }
}

static void code_cell(struct strbuf *out, const char *s)
{
    sb_addc(out, '`');
    cell(out, s);
    sb_addc(out, '`');
}

static void joined(struct strbuf *out, struct strv *sv, const char *sep)
{
    if (sv->n > 1)
        qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
    for (size_t i = 0; i < sv->n; i++) {
        if (i)
            sb_adds(out, sep);
        cell(out, sv->v[i]);
    }
    if (!sv->n)
        sb_adds(out, "–");
}

/* ---- names an expression uses -------------------------------------------- */

static int record(void *ctx, enum ex_bind_kind kind, const char *name, const char *pass, char **why)
{
    (void)kind;
    (void)why;
    struct strv *names = ctx;
    if (pass)
        strv_pushf(names, "%s@%s", name, pass);
    else
        strv_push(names, name);
    return (int)names->n - 1;
}

static int expr_names(const char *src, struct strv *names)
{
    char *err = NULL;
    long col = 0;
    struct ex_node *e = ex_parse(src, record, names, &err, &col);
    if (!e) {
        br_error("column %ld: %s in \"%s\"", col, err ? err : "parse error", src);
        free(err);
        return -1;
    }
    ex_free(e);
    return 0;
}

/* ---- what a name needs ---------------------------------------------------- */

static const char *json_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Index of an earlier non-label metric called name, or -1. */
static long earlier_metric(const struct doc *d, const char *name)
{
    for (size_t i = d->ndone; i-- > 0;) {
        json_t *m = json_array_get(d->metrics, i);
        const char *n = json_str(m, "name");
        if (n && !strcmp(n, name))
            return json_str(m, "label") ? -1 : (long)i;
    }
    return -1;
}

/* "P", "P or Q", "any pass", or "any pass but P" (a counter in most passes). */
static void counter_passes(const struct arch_profile *ap, const char *name, struct mdeps *out)
{
    struct strbuf in, notin;
    sb_init(&in);
    sb_init(&notin);
    int n = 0;
    for (int p = 0; p < ap->npasses; p++) {
        bool has = false;
        for (size_t c = 0; c < ap->passes[p].counters.n && !has; c++)
            has = !strcmp(ap->passes[p].counters.v[c], name);
        struct strbuf *sb = has ? &in : &notin;
        sb_addf(sb, "%s%s", sb->len ? (has ? " or " : ", ") : "", ap->passes[p].name);
        n += has;
    }
    if (n == 0)
        sb_addf(&in, "%s: in no pass", name);
    if (n > 1 && n == ap->npasses) {
        add_unique(&out->passes, "any pass");
    } else if (n > 2 && n >= ap->npasses - 2) {
        char *s = xasprintf("any pass but %s", notin.buf);
        add_unique(&out->passes, s);
        free(s);
    } else {
        add_unique(&out->passes, in.buf);
    }
    sb_release(&in);
    sb_release(&notin);
}

static const char *var_input(const char *name)
{
    static const char *const map[][2] = {
        { "clock_MHz", "clock (power-run telemetry, --clock-mhz, else the counter fallback)" },
        { "time_share_pct", "kernel time of the passes" },
        { "top_share_pct", "time share (power-run trace, else passes)" },
        { "cum_share_pct", "time share (power-run trace, else passes)" },
        { "launches", "launches of the launch_counter pass" },
        { "launch_time_ns", "kernel time of the launch_counter pass" },
        { "unprof_time_ns", "power-run trace" },
        { "unprof_time_share_pct", "power-run trace" },
        { "GPU_busy_pct", "power-run trace" },
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(map[i][0], name))
            return map[i][1];
    return NULL;
}

static bool is_name_in(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return true;
    return false;
}

static void merge(struct mdeps *to, const struct mdeps *from)
{
    for (size_t i = 0; i < from->passes.n; i++)
        add_unique(&to->passes, from->passes.v[i]);
    for (size_t i = 0; i < from->inputs.n; i++)
        add_unique(&to->inputs, from->inputs.v[i]);
}

static void classify(struct doc *d, const char *ref, struct mdeps *out)
{
    const char *at = strchr(ref, '@');
    if (at) {   /* COUNTER@PASS: that pass only */
        add_unique(&out->passes, at + 1);
        return;
    }
    long m = earlier_metric(d, ref);
    if (m >= 0) {
        merge(out, &d->deps[m]);
        return;
    }
    if (arch_const_index(d->ap, ref) >= 0)
        return;
    if (is_name_in(arch_var_names, AV_COUNT, ref)) {
        if (var_input(ref))
            add_unique(&out->inputs, var_input(ref));
        return;
    }
    if (is_name_in(arch_attr_names, AA_COUNT, ref)) {
        add_unique(&out->inputs, "kernel attributes (trace)");
        return;
    }
    counter_passes(d->ap, ref, out);
}

static int expr_deps(struct doc *d, const char *src, struct mdeps *out)
{
    struct strv names;
    strv_init(&names);
    int rc = expr_names(src, &names);
    for (size_t i = 0; rc == 0 && i < names.n; i++)
        classify(d, names.v[i], out);
    strv_release(&names);
    return rc;
}

/* ---- one metric row -------------------------------------------------------- */

/* The formula as written; label metrics as bound(...) / argmax(...). For a
 * per-pass metric, src_for_deps gets {pass} replaced by the first pass. */
static void formula(json_t *m, struct strbuf *f, struct strv *srcs)
{
    const char *lab = json_str(m, "label");
    if (!lab) {
        sb_adds(f, json_str(m, "expr") ? json_str(m, "expr") : "");
        strv_push(srcs, f->buf);
        return;
    }
    if (!strcmp(lab, "bound")) {
        static const char *const k[] = { "compute_pct", "mem_pct", "flops" };
        sb_adds(f, "bound(");
        for (int i = 0; i < 3; i++) {
            const char *e = json_str(m, k[i]) ? json_str(m, k[i]) : "";
            sb_addf(f, "%s%s = %s", i ? ", " : "", k[i], e);
            strv_push(srcs, e);
        }
        sb_addc(f, ')');
        return;
    }
    const char *key;
    json_t *v;
    int i = 0;
    sb_addf(f, "%s(", lab);
    json_object_foreach(json_object_get(m, "choices"), key, v) {
        sb_addf(f, "%s%s: %s", i++ ? ", " : "", key, json_string_value(v) ? json_string_value(v) : "");
        strv_push(srcs, json_string_value(v) ? json_string_value(v) : "");
    }
    sb_addc(f, ')');
}

static int metric_deps(struct doc *d, json_t *m, struct strv *srcs, struct mdeps *out)
{
    bool per_pass = json_is_true(json_object_get(m, "per_pass"));
    for (size_t i = 0; i < srcs->n; i++) {
        char *src = per_pass ? arch_subst_pass(srcs->v[i], d->ap->passes[0].name) : xstrdup(srcs->v[i]);
        char *src1 = arch_subst_first_pass(src, d->ap->passes[0].name);
        int rc = expr_deps(d, src1, out);
        free(src1);
        free(src);
        if (rc < 0)
            return -1;
    }
    if (per_pass) {   /* one column per pass: every pass, not the first */
        strv_release(&out->passes);
        strv_push(&out->passes, "each pass (one column per pass)");
    }
    return 0;
}

static int metric_row(struct doc *d, json_t *m, struct strbuf *out)
{
    struct strbuf f;
    struct strv srcs;
    sb_init(&f);
    strv_init(&srcs);
    formula(m, &f, &srcs);
    struct mdeps *dp = &d->deps[d->ndone];
    int rc = metric_deps(d, m, &srcs, dp);
    if (rc == 0) {
        const char *total = json_str(m, "total");
        sb_adds(out, "| ");
        code_cell(out, json_str(m, "name"));
        if (json_is_true(json_object_get(m, "hidden")))
            sb_adds(out, " (hidden)");
        sb_adds(out, " | ");
        cell(out, json_str(m, "unit"));
        sb_adds(out, " | ");
        code_cell(out, f.buf);
        sb_adds(out, " | ");
        cell(out, json_str(m, "description"));
        sb_adds(out, " | ");
        joined(out, &dp->passes, "; ");
        sb_adds(out, " | ");
        joined(out, &dp->inputs, "; ");
        sb_addf(out, " | %s |\n", total ? total : json_str(m, "label") ? "label" : "rates");
    }
    sb_release(&f);
    strv_release(&srcs);
    return rc;
}

/* ---- sections -------------------------------------------------------------- */

static void consts_section(const struct arch_profile *ap, json_t *root, struct strbuf *out)
{
    bool cited = ap->nconsts && ap->consts[0].cited;   /* all or none (arch.c) */
    sb_addf(out, "### Constants and peaks\n\n| name | value | defined as |%s\n|---|---|---|%s\n",
            cited ? " source |" : "", cited ? "---|" : "");
    for (int i = 0; i < ap->nconsts; i++) {
        const char *name = ap->consts[i].name, *def = json_str(json_object_get(root, "constants"), name);
        if (!def)
            def = json_str(json_object_get(root, "peaks"), name);
        sb_adds(out, "| ");
        code_cell(out, name);
        sb_addf(out, " | %.10g | ", ap->consts[i].value);
        if (def)
            code_cell(out, def);
        else
            sb_adds(out, "–");
        if (cited) {
            sb_adds(out, " | ");
            cell(out, ap->consts[i].cited);
        }
        sb_adds(out, " |\n");
    }
    if (ap->nagent) {
        sb_adds(out, "\nOverridden from rocprofv3 `agent_info.csv` when present:");
        for (int i = 0; i < ap->nagent; i++)
            sb_addf(out, "%s `%s` → `%s`", i ? "," : "", ap->agent_cols[i], ap->agent_consts[i]);
        sb_adds(out, ".\n");
    }
    sb_adds(out, "\n");
}

static void passes_section(const struct arch_profile *ap, struct strbuf *out)
{
    sb_adds(out, "### Counter passes\n\nOne full application run each.");
    if (ap->nblocks) {
        sb_adds(out, " Counters per block per pass at most:");
        for (int i = 0; i < ap->nblocks; i++)
            sb_addf(out, "%s %s %d", i ? "," : "", ap->blocks[i], ap->block_limit[i]);
        sb_adds(out, " (a `*_sum` counter uses one slot of its block).");
    }
    sb_adds(out, "\n\n| pass | counters | in sets |\n|---|---|---|\n");
    for (int p = 0; p < ap->npasses; p++) {
        sb_addf(out, "| `%s` | ", ap->passes[p].name);
        for (size_t c = 0; c < ap->passes[p].counters.n; c++)
            sb_addf(out, "%s`%s`", c ? ", " : "", ap->passes[p].counters.v[c]);
        sb_adds(out, " | ");
        int n = 0;
        for (int s = 0; s < ap->nsets; s++)
            for (size_t k = 0; k < ap->sets[s].passes.n; k++)
                if (!strcmp(ap->sets[s].passes.v[k], ap->passes[p].name))
                    sb_addf(out, "%s`%s`", n++ ? ", " : "", ap->sets[s].name);
        sb_adds(out, n ? " |\n" : "– |\n");
    }
    sb_adds(out, "\n");
}

static int metrics_section(struct doc *d, struct strbuf *out)
{
    sb_adds(out, "### Metrics\n\nIn output order (`per_kernel_metrics.csv` columns after "
                 "`kernel`, `kernel_full_name`); hidden ones are intermediates, not written.\n\n"
                 "| metric | unit | formula | description | passes needed | other inputs | TOTAL |\n"
                 "|---|---|---|---|---|---|---|\n");
    size_t n = json_array_size(d->metrics);
    d->deps = xcalloc(n ? n : 1, sizeof(*d->deps));
    for (d->ndone = 0; d->ndone < n; d->ndone++) {
        strv_init(&d->deps[d->ndone].passes);
        strv_init(&d->deps[d->ndone].inputs);
        if (metric_row(d, json_array_get(d->metrics, d->ndone), out) < 0)
            return -1;
    }
    sb_adds(out, "\n");
    return 0;
}

static void checks_section(json_t *root, struct strbuf *out)
{
    json_t *a = json_object_get(root, "checks");
    if (!json_array_size(a))
        return;
    sb_adds(out, "### Checks (warnings per kernel)\n\n| check | fine when | value reported |\n"
                 "|---|---|---|\n");
    size_t i;
    json_t *c;
    json_array_foreach(a, i, c) {
        sb_adds(out, "| ");
        cell(out, json_str(c, "name"));
        sb_adds(out, " | ");
        code_cell(out, json_str(c, "ok"));
        sb_adds(out, " | ");
        code_cell(out, json_str(c, "value"));
        sb_adds(out, " |\n");
    }
    sb_adds(out, "\n");
}

static void title_section(const struct arch_profile *ap, json_t *root, const char *shown,
                          struct strbuf *out)
{
    sb_addf(out, "## %s: %s (%s)\n\nProfile: `%s`.", ap->arch, ap->product ? ap->product : "",
            ap->vendor_name, shown);
    json_t *src = json_object_get(root, "sources");
    if (json_array_size(src)) {
        sb_adds(out, " Sources:\n\n");
        size_t i;
        json_t *s;
        json_array_foreach(src, i, s)
            sb_addf(out, "- %s\n", json_is_string(s) ? json_string_value(s) : "");
    } else {
        sb_adds(out, "\n");
    }
    sb_adds(out, "\n");
}

static void doc_free(struct doc *d)
{
    for (size_t i = 0; d->deps && i < json_array_size(d->metrics); i++) {
        strv_release(&d->deps[i].passes);
        strv_release(&d->deps[i].inputs);
    }
    free(d->deps);
}

int archdoc_profile(const char *path, const char *shown, struct strbuf *out)
{
    struct arch_profile *ap = arch_load(path, NULL, 0);
    if (!ap)
        return -1;
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        arch_free(ap);
        return br_error_at(path, jerr.line, jerr.column, "%s", jerr.text);
    }
    struct doc d = { .ap = ap, .metrics = json_object_get(root, "metrics") };
    title_section(ap, root, shown, out);
    consts_section(ap, root, out);
    passes_section(ap, out);
    int rc = ap->npasses > 0 ? metrics_section(&d, out)
                             : br_error("%s: no passes: cannot document the metrics", path);
    if (rc == 0)
        checks_section(root, out);
    doc_free(&d);
    json_decref(root);
    arch_free(ap);
    return rc;
}

void archdoc_header(struct strbuf *out)
{
    sb_adds(out,
        "<!-- GENERATED by `benchrun doc metrics -o docs/metrics.md` from share/benchrun/arch/*.json;\n"
        "     do not edit: change the profile and regenerate (tests/cli/0820 fails when stale). -->\n"
        "# Metric reference\n\n"
        "Every metric `benchrun analyze` computes, per arch profile, generated from the profile\n"
        "itself (schema: [arch-profile.md](arch-profile.md); the rules behind the formulas:\n"
        "docs/design.md §6-§8 and §14).\n\n"
        "How to read a formula: a bare counter name is a **rate**, Σ value / Σ kernel time (per ns)\n"
        "over the passes that collected it, so passes combine only through rates and never by\n"
        "launch; `sum(C)` is the raw count and `dur(C)` the kernel time (ns) of C's pass;\n"
        "`C@PASS` is C in that pass only; `clock_MHz` is the gfx clock used for cycles\n"
        "(cycles per ns = clock_MHz / 1000); `VGPR`, `AGPR`, `LDS`, `WG_SIZE` ... are kernel\n"
        "attributes from the trace. A missing counter makes the value empty (NaN), never 0;\n"
        "`x / 0` is empty too. *passes needed*: the passes whose counters the metric uses,\n"
        "directly or through the metrics it is built from (`A or B`: either pass has the\n"
        "counter; `any pass`: every pass has it). *TOTAL*: how the whole-run row is computed:\n"
        "`rates` the same formula over whole-run sums, `sum` Σ of the per-kernel values,\n"
        "`none` empty, `only` whole run only, `label` a text label.\n\n"
        "Launch-sampled passes (`benchrun pmc --launches sampled`): a pass's counters come\n"
        "from a sample of each kernel's launches and its kernel trace has every launch; the\n"
        "reader scales the sample to every launch before any formula sees it, so Σ value,\n"
        "`sum(C)` and the launch counts above are estimates over all launches: per sampling\n"
        "unit (AMD: the kernel; NVIDIA: kernel, grid and block, and for driver launches\n"
        "the parameter key, so that launches of one kernel doing other work, such as\n"
        "GEMMs of other shapes, are scaled apart) the stratified mean per launch times the\n"
        "launches (the first launches are a census, later ones one per block), or, for\n"
        "elapsed-cycle and duration counters where the trace times the kernels\n"
        "(rocprofv3), the ratio to the traced time. Each\n"
        "estimate's 95 % interval is in the analysis folder's launch_sampling.csv, and the\n"
        "profile's `CHECK_SAMPLING_PCT` data check flags intervals wider than that share\n"
        "(README \"Launch sampling\", src/read/extrapolate.h). NVIDIA's sampled passes\n"
        "collect in CUPTI user ranges, whose elapsed counters (`gpu__time_duration.sum`,\n"
        "`sm__cycles_elapsed.sum`) span the range, not the kernel, and are not written:\n"
        "there `eff_clock_MHz` and `clock_MHz_{pass}` are empty and the clock comes from\n"
        "the power run or `--clock-mhz`. What a user range counts of its own (measured on\n"
        "empty ranges at the pass's start: ~40 KB of `lts__t_bytes` on the H200) is taken\n"
        "out of every launch's values (`range_offset` in the pass's `*_cupti.json`); what\n"
        "it cannot see, a launch's own traffic outside its kernel (0.26-0.65 x the offset\n"
        "on the H200), is bounded by launch_sampling.csv's `offset_bound` (launches x\n"
        "offset): the full-collection total lies within value +- (ci95_half + offset_bound).\n"
        "`benchrun analyze --resample PLAN` reads a run\n"
        "with every launch profiled through the same scaling, from the plan's launches\n"
        "only: the estimates a sampled pass would give, beside the run's own totals.\n\n");
}
