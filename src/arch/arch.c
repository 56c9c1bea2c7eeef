/* arch.c - arch profile loader: JSON (jansson) → validated constants, passes,
 * sets and metric trees bound to one symbol table (contract in arch.h,
 * schema in docs/arch-profile.md). */
#include "arch/arch.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const arch_var_names[AV_COUNT] = {
    "clock_MHz", "time_ns", "launches", "time_share_pct", "unprof_time_ns",
    "unprof_time_share_pct", "GPU_busy_pct", "top_share_pct", "is_total",
    "launch_time_ns", "cum_share_pct",
};
const char *const arch_attr_names[AA_COUNT] = {
    "VGPR", "AGPR", "SGPR", "LDS", "SCRATCH", "WG_SIZE", "GRID_SIZE",
};

struct ld {
    struct arch_profile *ap;
    const char *file;
    int metrics_done;     /* metrics visible to expressions */
    int consts_done;      /* constants visible to constant expressions */
    bool in_consts;
    const char *first_pass;   /* the run's first pass, for @{first_pass} */
    const char *cur_pass;     /* the pass a per-pass metric is being expanded for: @{pass} */
    bool lenient;             /* arch_open: a missing section is empty */
};

static int lerr(struct ld *l, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int lerr(struct ld *l, const char *path, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return br_error("%s: %s: %s", l->file, path, msg);
}

const char *arch_pass_name_problem(const char *name)
{
    static const char rule[] = "may hold only letters, digits, '_', '-' and '.' (1 to 100, the "
                               "first a letter, digit or '_'): it names a folder and files";
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 100 || !(isalnum((unsigned char)name[0]) || name[0] == '_'))
        return rule;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("_-.", name[i]))
            return rule;
    return NULL;
}

int arch_const_index(const struct arch_profile *ap, const char *name)
{
    for (int i = 0; i < ap->nconsts; i++)
        if (!strcmp(ap->consts[i].name, name))
            return i;
    return -1;
}

double arch_const(const struct arch_profile *ap, const char *name)
{
    int i = arch_const_index(ap, name);
    return i < 0 ? NAN : ap->consts[i].value;
}

static int sym(struct arch_profile *ap, enum arch_sym_kind k, const char *name, const char *pass,
               int index)
{
    for (int i = 0; i < ap->nsyms; i++) {
        struct arch_sym *s = &ap->syms[i];
        if (s->kind == k && !strcmp(s->name, name) &&
            ((!s->pass && !pass) || (s->pass && pass && !strcmp(s->pass, pass))))
            return i;
    }
    ap->syms = xrealloc(ap->syms, (size_t)(ap->nsyms + 1) * sizeof(*ap->syms));
    ap->syms[ap->nsyms] = (struct arch_sym){ k, xstrdup(name), pass ? xstrdup(pass) : NULL, index };
    return ap->nsyms++;
}

static bool is_counter(const struct arch_profile *ap, const char *name)
{
    for (int p = 0; p < ap->npasses; p++)
        if (strv_has(&ap->passes[p].counters, name))
            return true;
    return arch_block_limit(ap, name) > 0;
}

static int bind(void *ctx, enum ex_bind_kind kind, const char *name, const char *pass, char **why)
{
    struct ld *l = ctx;
    struct arch_profile *ap = l->ap;
    if (pass && pass[0] == '{') {       /* a template: the pass is data, never formula text */
        if (!strcmp(pass, "{pass}") && !l->cur_pass) {
            *why = xstrdup("'@{pass}' is only allowed in a \"per_pass\" metric");
            return -1;
        }
        if (strcmp(pass, "{pass}") && strcmp(pass, "{first_pass}")) {
            *why = xasprintf("unknown pass template '@%s' (@{pass} or @{first_pass})", pass);
            return -1;
        }
        pass = !strcmp(pass, "{pass}") ? l->cur_pass : l->first_pass;
    }
    if (kind == EX_BIND_VALUE && !pass) {
        for (int i = l->metrics_done - 1; i >= 0; i--)
            if (!strcmp(ap->metrics[i].name, name)) {
                if (ap->metrics[i].label != AL_NONE)
                    break;
                return sym(ap, AS_METRIC, name, NULL, i);
            }
        int c = arch_const_index(ap, name);
        if (c >= 0 && (!l->in_consts || c < l->consts_done))
            return sym(ap, AS_CONST, name, NULL, c);
        if (l->in_consts) {
            *why = xasprintf("unknown name '%s' (constants may use only constants defined before them)", name);
            return -1;
        }
        for (int i = 0; i < AV_COUNT; i++)
            if (!strcmp(arch_var_names[i], name))
                return sym(ap, AS_VAR, name, NULL, i);
        for (int i = 0; i < AA_COUNT; i++)
            if (!strcmp(arch_attr_names[i], name))
                return sym(ap, AS_ATTR, name, NULL, i);
    }
    if (!l->in_consts && is_counter(ap, name))
        return sym(ap, kind == EX_BIND_SUM ? AS_SUM : kind == EX_BIND_DUR ? AS_DUR : AS_RATE, name,
                   pass, -1);
    *why = xasprintf("unknown name '%s' (not an earlier metric, constant, peak, variable, kernel "
                     "attribute, or counter of a block in block_limits)", name);
    return -1;
}

static struct ex_node *parse_expr(struct ld *l, const char *path, const char *src)
{
    char *err;
    long col;
    struct ex_node *e = ex_parse(src, bind, l, &err, &col);
    if (!e) {
        lerr(l, path, "column %ld: %s in \"%s\"", col, err, src);
        free(err);
    }
    return e;
}

static const char *str_at(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- sections --------------------------------------------------------------- */

static int eval_consts(struct arch_profile *ap)
{
    double *none = xcalloc((size_t)ap->nsyms + 1, sizeof(*none));
    for (int i = 0; i < ap->nsyms; i++)
        none[i] = ap->syms[i].kind == AS_CONST ? ap->consts[ap->syms[i].index].value : NAN;
    for (int i = 0; i < ap->nconsts; i++)
        if (ap->consts[i].expr) {
            ap->consts[i].value = ex_eval(ap->consts[i].expr, none);
            for (int s = 0; s < ap->nsyms; s++)
                if (ap->syms[s].kind == AS_CONST && ap->syms[s].index == i)
                    none[s] = ap->consts[i].value;
        }
    free(none);
    return 0;
}

static int load_consts(struct ld *l, json_t *obj, const char *sect)
{
    struct arch_profile *ap = l->ap;
    if (!json_is_object(obj))
        return lerr(l, sect, "expected an object of NAME: number or expression");
    const char *k;
    json_t *v;
    l->in_consts = true;
    json_object_foreach(obj, k, v) {
        char path[256];
        snprintf(path, sizeof(path), "%s.%s", sect, k);
        if (arch_const_index(ap, k) >= 0)
            return lerr(l, path, "constant defined twice");
        ap->consts = xrealloc(ap->consts, (size_t)(ap->nconsts + 1) * sizeof(*ap->consts));
        struct arch_const *c = &ap->consts[ap->nconsts];
        memset(c, 0, sizeof(*c));
        c->name = xstrdup(k);
        c->source = xstrdup("profile");
        ap->nconsts++;
        if (json_is_number(v)) {
            c->value = json_number_value(v);
        } else if (json_is_string(v)) {
            if (!(c->expr = parse_expr(l, path, json_string_value(v))))
                return -1;
        } else {
            return lerr(l, path, "expected a number or an expression string");
        }
        l->consts_done = ap->nconsts;
    }
    l->in_consts = false;
    return eval_consts(ap);
}

/* constant_sources: {NAME: "where the value comes from"}. Optional; when
 * present, every constant and peak needs one, and only those. */
static int load_cited(struct ld *l, json_t *o)
{
    struct arch_profile *ap = l->ap;
    if (!o)
        return 0;
    if (!json_is_object(o))
        return lerr(l, "constant_sources", "expected an object of NAME: source text");
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        int c = arch_const_index(ap, k);
        if (c < 0)
            return lerr(l, "constant_sources", "%s: no such constant or peak", k);
        if (!json_is_string(v) || !*json_string_value(v))
            return lerr(l, "constant_sources", "%s: expected a non-empty string", k);
        ap->consts[c].cited = xstrdup(json_string_value(v));
    }
    for (int c = 0; c < ap->nconsts; c++)
        if (!ap->consts[c].cited)
            return lerr(l, "constant_sources", "no source for %s", ap->consts[c].name);
    return 0;
}

static char **str_list(struct ld *l, json_t *a, const char *path, int *n)
{
    if (!json_is_array(a)) {
        lerr(l, path, "expected an array of strings");
        return NULL;
    }
    char **v = xcalloc(json_array_size(a) + 1, sizeof(*v));
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e) {
        if (!json_is_string(e)) {
            lerr(l, path, "item %zu: expected a string", i);
            for (size_t j = 0; j < i; j++)
                free(v[j]);
            free(v);
            return NULL;
        }
        v[i] = xstrdup(json_string_value(e));
    }
    *n = (int)json_array_size(a);
    return v;
}

/* An array of strings into out (initialized here). */
static int str_vec(struct ld *l, json_t *a, const char *path, struct strv *out)
{
    strv_init(out);
    int n;
    char **v = str_list(l, a, path, &n);
    if (!v)
        return -1;
    for (int i = 0; i < n; i++) {
        strv_push(out, v[i]);
        free(v[i]);
    }
    free(v);
    return 0;
}

static int load_passes(struct ld *l, json_t *a)
{
    struct arch_profile *ap = l->ap;
    if (!a && l->lenient)
        return 0;
    if (!json_is_array(a) || json_array_size(a) == 0)
        return lerr(l, "passes", "expected a non-empty array of {\"name\", \"counters\"}");
    if (json_array_size(a) > ARCH_MAX_PASSES)
        return lerr(l, "passes", "%zu passes; at most %d (each pass is a full run of the app)",
                    json_array_size(a), ARCH_MAX_PASSES);
    ap->passes = xcalloc(json_array_size(a), sizeof(*ap->passes));
    size_t i;
    json_t *p;
    json_array_foreach(a, i, p) {
        char path[64];
        snprintf(path, sizeof(path), "passes[%zu].name", i);
        const char *name = str_at(p, "name"), *why = arch_pass_name_problem(name);
        if (why)
            return lerr(l, path, "pass name '%s' %s", name ? name : "", why);
        if (arch_pass_find(ap, name))
            return lerr(l, path, "pass '%s' is listed twice", name);
        snprintf(path, sizeof(path), "passes[%zu].counters", i);
        struct arch_pass *ps = &ap->passes[ap->npasses++];
        ps->name = xstrdup(name);
        if (str_vec(l, json_object_get(p, "counters"), path, &ps->counters) < 0)
            return -1;
    }
    return 0;
}

static int load_instrumented(struct ld *l, json_t *a)
{
    if (!a)
        return 0;
    struct arch_profile *ap = l->ap;
    return (ap->instr_prefix = str_list(l, a, "instrumented_counters", &ap->ninstr)) ? 0 : -1;
}

bool arch_counter_instrumented(const struct arch_profile *ap, const char *counter)
{
    for (int i = 0; i < ap->ninstr; i++)
        if (!strncmp(counter, ap->instr_prefix[i], strlen(ap->instr_prefix[i])))
            return true;
    return false;
}

static int load_sets(struct ld *l, json_t *o)
{
    struct arch_profile *ap = l->ap;
    if (!o)
        return 0;           /* no sets: "default" is every pass (arch/passes.h) */
    if (!json_is_object(o))
        return lerr(l, "counter_sets", "expected an object of SET: [pass names]");
    ap->sets = xcalloc(json_object_size(o) + 1, sizeof(*ap->sets));
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        char path[128];
        snprintf(path, sizeof(path), "counter_sets.%s", k);
        struct arch_set *set = &ap->sets[ap->nsets++];
        set->name = xstrdup(k);
        if (str_vec(l, v, path, &set->passes) < 0)
            return -1;
        for (size_t i = 0; i < set->passes.n; i++)
            if (!arch_pass_find(ap, set->passes.v[i]))
                return lerr(l, path, "unknown pass '%s'", set->passes.v[i]);
    }
    return 0;
}

static int load_ints(struct ld *l, json_t *o)
{
    struct arch_profile *ap = l->ap;
    if (!json_is_object(o))
        return lerr(l, "block_limits", "expected an object of BLOCK: integer");
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return lerr(l, "block_limits", "%s: expected a positive integer", k);
        ap->blocks = xrealloc(ap->blocks, (size_t)(ap->nblocks + 1) * sizeof(char *));
        ap->block_limit = xrealloc(ap->block_limit, (size_t)(ap->nblocks + 1) * sizeof(int));
        ap->blocks[ap->nblocks] = xstrdup(k);
        ap->block_limit[ap->nblocks++] = (int)json_integer_value(v);
    }
    return 0;
}

static int load_agent(struct ld *l, json_t *o)
{
    struct arch_profile *ap = l->ap;
    if (!o)
        return 0;
    if (!json_is_object(o))
        return lerr(l, "agent_info", "expected an object of agent_info column: constant name");
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        int c = json_is_string(v) ? arch_const_index(ap, json_string_value(v)) : -1;
        if (c < 0)
            return lerr(l, "agent_info", "%s: expected the name of a constant", k);
        if (ap->consts[c].expr)
            return lerr(l, "agent_info", "%s: constant %s is an expression, not overridable", k,
                        ap->consts[c].name);
        ap->agent_cols = xrealloc(ap->agent_cols, (size_t)(ap->nagent + 1) * sizeof(char *));
        ap->agent_consts = xrealloc(ap->agent_consts, (size_t)(ap->nagent + 1) * sizeof(char *));
        ap->agent_cols[ap->nagent] = xstrdup(k);
        ap->agent_consts[ap->nagent++] = xstrdup(ap->consts[c].name);
    }
    return 0;
}

static int opt_expr(struct ld *l, json_t *m, const char *key, const char *path,
                    struct ex_node **out)
{
    const char *s = str_at(m, key);
    char p[320];
    snprintf(p, sizeof(p), "%s.%s", path, key);
    if (!s)
        return lerr(l, p, "expected an expression string");
    return (*out = parse_expr(l, p, s)) ? 0 : -1;
}

static int load_label(struct ld *l, struct arch_metric *am, json_t *m, const char *lab,
                      const char *path)
{
    if (!strcmp(lab, "bound")) {
        am->label = AL_BOUND;
        json_t *lat = json_object_get(m, "latency");
        if (lat && !json_is_boolean(lat))
            return lerr(l, path, "latency: expected true or false");
        am->no_latency = json_is_false(lat);
        return opt_expr(l, m, "compute_pct", path, &am->compute_pct) ||
               opt_expr(l, m, "mem_pct", path, &am->mem_pct) ||
               opt_expr(l, m, "flops", path, &am->flops) ? -1 : 0;
    }
    if (strcmp(lab, "argmax"))
        return lerr(l, path, "label: expected \"bound\" or \"argmax\", got \"%s\"", lab);
    am->label = AL_ARGMAX;
    json_t *ch = json_object_get(m, "choices");
    if (!json_is_object(ch) || !json_object_size(ch))
        return lerr(l, path, "choices: expected an object of NAME: expression");
    const char *k;
    json_t *v;
    json_object_foreach(ch, k, v) {
        char p[320];
        snprintf(p, sizeof(p), "%s.choices.%s", path, k);
        if (!json_is_string(v))
            return lerr(l, p, "expected an expression string");
        am->choice_names = xrealloc(am->choice_names, (size_t)(am->nchoices + 1) * sizeof(char *));
        am->choices = xrealloc(am->choices, (size_t)(am->nchoices + 1) * sizeof(*am->choices));
        am->choice_names[am->nchoices] = xstrdup(k);
        if (!(am->choices[am->nchoices++] = parse_expr(l, p, json_string_value(v))))
            return -1;
    }
    return 0;
}

/* A copy of s with every key (e.g. "{pass}") replaced by val. */
static char *subst(const char *s, const char *key, const char *val)
{
    struct strbuf sb;
    size_t kn = strlen(key);
    sb_init(&sb);
    for (const char *p = s; *p;) {
        if (!strncmp(p, key, kn)) {
            sb_adds(&sb, val);
            p += kn;
        } else {
            sb_addc(&sb, *p++);
        }
    }
    return sb_detach(&sb);
}

char *arch_subst_pass(const char *s, const char *pass)
{
    return subst(s, "{pass}", pass);
}

char *arch_subst_first_pass(const char *s, const char *pass)
{
    return subst(s, "{first_pass}", pass);
}

static int load_nodata(struct ld *l, struct arch_metric *am, json_t *m, const char *path)
{
    const char *nd = str_at(m, "when_no_data");
    am->nodata = !nd || !strcmp(nd, "nan") ? AN_NAN : !strcmp(nd, "empty") ? AN_EMPTY
               : !strcmp(nd, "0") ? AN_ZERO : -1;
    if ((int)am->nodata < 0)
        return lerr(l, path, "when_no_data: expected \"nan\", \"empty\" or \"0\"");
    json_t *in = json_object_get(m, "int");
    if (in && !json_is_boolean(in))
        return lerr(l, path, "int: expected true or false");
    am->integer = json_is_true(in);
    return 0;
}

static int load_metric(struct ld *l, json_t *m, const char *path, const char *pass)
{
    struct arch_profile *ap = l->ap;
    const char *name = str_at(m, "name"), *total = str_at(m, "total"), *lab = str_at(m, "label");
    if (!name || !*name)
        return lerr(l, path, "expected \"name\": a non-empty string");
    ap->metrics = xrealloc(ap->metrics, (size_t)(ap->nmetrics + 1) * sizeof(*ap->metrics));
    struct arch_metric *am = &ap->metrics[ap->nmetrics++];
    memset(am, 0, sizeof(*am));
    am->name = pass ? arch_subst_pass(name, pass) : xstrdup(name);
    am->unit = xstrdup(str_at(m, "unit") ? str_at(m, "unit") : "");
    am->desc = xstrdup(str_at(m, "description") ? str_at(m, "description") : "");
    am->hidden = json_is_true(json_object_get(m, "hidden"));
    for (int i = 0; i < ap->nmetrics - 1; i++)
        if (!strcmp(ap->metrics[i].name, am->name))
            return lerr(l, path, "metric '%s' defined twice", am->name);
    am->total = !total || !strcmp(total, "rates") ? AT_RATES : !strcmp(total, "sum") ? AT_SUM
              : !strcmp(total, "none") ? AT_NONE : !strcmp(total, "only") ? AT_ONLY
              : !strcmp(total, "weighted") ? AT_WEIGHTED : -1;
    if ((int)am->total < 0)
        return lerr(l, path, "total: expected \"rates\", \"sum\", \"none\", \"only\" or "
                    "\"weighted\"");
    if (load_nodata(l, am, m, path) < 0)
        return -1;
    int rc;
    if (lab) {
        rc = load_label(l, am, m, lab, path);
    } else {
        const char *e = str_at(m, "expr");
        char p[320];
        snprintf(p, sizeof(p), "%s.expr", path);
        if (!e)
            return lerr(l, p, "expected an expression string");
        am->expr = parse_expr(l, p, e);     /* @{pass}, @{first_pass}: bind() */
        rc = am->expr ? 0 : -1;
    }
    l->metrics_done = ap->nmetrics;
    return rc;
}

static int load_metrics(struct ld *l, json_t *a, const char *const *pn, int np)
{
    if (!json_is_array(a) || !json_array_size(a))
        return lerr(l, "metrics", "expected a non-empty array of metric objects");
    size_t i;
    json_t *m;
    json_array_foreach(a, i, m) {
        char path[64];
        snprintf(path, sizeof(path), "metrics[%zu]", i);
        if (!json_is_object(m))
            return lerr(l, path, "expected an object");
        if (!json_is_true(json_object_get(m, "per_pass"))) {
            if (load_metric(l, m, path, NULL) < 0)
                return -1;
            continue;
        }
        for (int p = 0; p < np; p++) {
            l->cur_pass = pn ? pn[p] : l->ap->passes[p].name;
            int rc = load_metric(l, m, path, l->cur_pass);
            l->cur_pass = NULL;
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

static int load_checks(struct ld *l, json_t *a)
{
    if (!a)
        return 0;
    if (!json_is_array(a))
        return lerr(l, "checks", "expected an array of {\"name\", \"ok\", \"value\"}");
    struct arch_profile *ap = l->ap;
    ap->checks = xcalloc(json_array_size(a) + 1, sizeof(*ap->checks));
    size_t i;
    json_t *c;
    json_array_foreach(a, i, c) {
        char path[64];
        snprintf(path, sizeof(path), "checks[%zu]", i);
        struct arch_check *ck = &ap->checks[ap->nchecks++];
        const char *name = str_at(c, "name");
        if (!name)
            return lerr(l, path, "expected \"name\": a string");
        ck->name = xstrdup(name);
        if (opt_expr(l, c, "ok", path, &ck->ok) < 0 || opt_expr(l, c, "value", path, &ck->value) < 0)
            return -1;
    }
    return 0;
}

bool arch_double_format(const char *f)
{
    if (*f++ != '%')
        return false;
    if (*f == '.')
        f++;
    while (*f >= '0' && *f <= '9')
        f++;
    return (*f == 'f' || *f == 'e' || *f == 'g') && f[1] == '\0';
}

static int load_report(struct ld *l, json_t *a)
{
    struct arch_profile *ap = l->ap;
    if (!a)
        return 0;
    if (!json_is_array(a))
        return lerr(l, "report_whole_run", "expected an array of {label, metric, unit, format}");
    ap->report = xcalloc(json_array_size(a) + 1, sizeof(*ap->report));
    size_t i;
    json_t *r;
    json_array_foreach(a, i, r) {
        char path[64];
        snprintf(path, sizeof(path), "report_whole_run[%zu]", i);
        const char *label = str_at(r, "label"), *metric = str_at(r, "metric");
        const char *unit = str_at(r, "unit"), *fmt = str_at(r, "format");
        int m = -1;
        for (int k = 0; metric && k < ap->nmetrics && m < 0; k++)
            if (!strcmp(ap->metrics[k].name, metric))
                m = k;
        if (!label || m < 0)
            return lerr(l, path, "expected \"label\" and \"metric\" (a metric of this profile)");
        if (ap->metrics[m].label == AL_NONE && (!fmt || !arch_double_format(fmt)))
            return lerr(l, path, "format: expected a printf conversion of one number (%%.1f, "
                        "%%.3e, %%g)");
        ap->report[ap->nreport++] = (struct arch_report_row){ xstrdup(label),
            xstrdup(unit ? unit : ""), xstrdup(fmt ? fmt : "%g"), m };
    }
    return 0;
}

static int load_vendor(struct ld *l, json_t *root)
{
    json_t *v = json_object_get(root, "vendor");
    struct arch_profile *ap = l->ap;
    if (v && !json_is_string(v))
        return lerr(l, "vendor", "expected a string (\"amd\", \"nvidia\")");
    ap->vendor_name = xstrdup(v ? json_string_value(v) : "");
    if (gpu_vendor_parse(ap->vendor_name, &ap->vendor) != 0 || ap->vendor == GPU_VENDOR_NONE)
        ap->vendor = GPU_VENDOR_UNKNOWN;
    return 0;
}

/* What arch_open gives: everything but the expressions of metrics, checks
 * and report rows. */
/* A section; for arch_open a missing one is empty (NULL: skip it). */
static json_t *section(struct ld *l, json_t *root, const char *key, json_t *empty)
{
    json_t *v = json_object_get(root, key);
    return v || !l->lenient ? v : empty;
}

static int load_tdp(struct ld *l, json_t *root)
{
    json_t *t = json_object_get(root, "tdp_W");
    if (t && !json_is_number(t))
        return lerr(l, "tdp_W", "expected a number (W)");
    l->ap->tdp_W = t ? json_number_value(t) : NAN;
    return 0;
}

static int load_head(struct ld *l, json_t *root)
{
    struct arch_profile *ap = l->ap;
    if (!json_is_object(root))
        return lerr(l, "(top)", "expected a JSON object");
    const char *arch = str_at(root, "arch");
    if (!arch && !l->lenient)
        return lerr(l, "arch", "expected a string (e.g. \"gfx942\")");
    /* arch_open: a profile without "arch" is named after its file */
    ap->arch = arch ? xstrdup(arch) : xstrndup(l->file, strcspn(l->file, "."));
    ap->product = xstrdup(str_at(root, "product") ? str_at(root, "product") : ap->arch);
    json_t *none = json_object();
    int rc = load_vendor(l, root) < 0 || load_tdp(l, root) < 0 ||
        load_consts(l, section(l, root, "constants", none), "constants") < 0 ||
        load_consts(l, section(l, root, "peaks", none), "peaks") < 0 ||
        load_cited(l, json_object_get(root, "constant_sources")) < 0 ||
        load_agent(l, json_object_get(root, "agent_info")) < 0 ||
        load_ints(l, section(l, root, "block_limits", none)) < 0 ||
        load_passes(l, section(l, root, "passes", NULL)) < 0 ||
        load_instrumented(l, json_object_get(root, "instrumented_counters")) < 0 ||
        load_sets(l, json_object_get(root, "counter_sets")) < 0 ? -1 : 0;
    json_decref(none);
    if (rc < 0)
        return -1;
    json_t *lc = json_object_get(root, "launch_counter");
    if (lc && !json_is_string(lc))
        return lerr(l, "launch_counter", "expected a counter name");
    ap->launch_counter = lc ? xstrdup(json_string_value(lc)) : NULL;
    return 0;
}

static int load_body(struct ld *l, json_t *root, const char *const *pn, int np)
{
    struct arch_profile *ap = l->ap;
    if (!pn)
        np = ap->npasses;
    l->first_pass = np > 0 ? (pn ? pn[0] : ap->passes[0].name) : "";
    return load_metrics(l, json_object_get(root, "metrics"), pn, np) < 0 ||
           load_checks(l, json_object_get(root, "checks")) < 0 ||
           load_report(l, json_object_get(root, "report_whole_run")) < 0 ? -1 : 0;
}

/* Reads path; with body, metrics, checks and report rows too. */
static struct arch_profile *read_profile(const char *path, bool body, const char *const *pn,
                                         int np)
{
    json_error_t je;
    json_t *root = fs_read_json(path, 0, &je);
    if (!root) {
        br_error_at(path, je.line, je.column, "invalid JSON: %s", je.text);
        return NULL;
    }
    struct arch_profile *ap = xcalloc(1, sizeof(*ap));
    ap->path = xstrdup(path);
    const char *slash = strrchr(path, '/');
    struct ld l = { .ap = ap, .file = slash ? slash + 1 : path, .lenient = !body };
    int rc = load_head(&l, root);
    if (rc == 0 && body)
        rc = load_body(&l, root, pn, np);
    json_decref(root);
    if (rc < 0) {
        arch_free(ap);
        return NULL;
    }
    return ap;
}

struct arch_profile *arch_open(const char *arch, const char *source)
{
    char *path = arch_profile_path(arch, source);
    struct arch_profile *ap = path ? read_profile(path, false, NULL, 0) : NULL;
    free(path);
    return ap;
}

struct arch_profile *arch_load(const char *path, const char *const *pass_names, int npasses)
{
    return read_profile(path, true, pass_names, npasses);
}

const char *arch_profile_name(const char *arch)
{
    if (arch && (strcmp(arch, "sm_90") == 0 || strcmp(arch, "sm_90a") == 0))
        return "gh100";
    return arch;
}

const char *arch_default(enum gpu_vendor vendor)
{
    return vendor == GPU_VENDOR_NVIDIA ? "gh100" : "gfx942";
}

bool arch_is_nvidia(const struct arch_profile *ap)
{
    return ap && ap->vendor == GPU_VENDOR_NVIDIA;
}

const char *arch_cycle_counter(const struct arch_profile *ap)
{
    return arch_is_nvidia(ap) ? "sm__cycles_elapsed / N_SM" : "GRBM_GUI_ACTIVE / N_XCC";
}

bool arch_names_file(const char *arch)
{
    size_t n = strlen(arch);
    return strchr(arch, '/') || (n > 5 && strcmp(arch + n - 5, ".json") == 0);
}

char *arch_path_for(const char *arch)
{
    if (arch_names_file(arch))
        return xstrdup(arch);
    arch = arch_profile_name(arch);
    char *rel = xasprintf("arch/%s.json", arch);
    char *p = fs_share_path(rel);
    free(rel);
    return p;
}

int arch_profile_files(struct strv *out)
{
    char *dir = fs_share_path("arch");
    char *pat = dir ? fs_path_join(dir, "*.json") : NULL;
    glob_t g;
    int rc = pat ? glob(pat, 0, NULL, &g) : GLOB_NOMATCH;
    for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
        strv_push(out, g.gl_pathv[i]);
    if (pat && (rc == 0 || rc == GLOB_NOMATCH))
        globfree(&g);
    free(pat);
    free(dir);
    return rc == 0 ? 0 : -1;
}

char *arch_profile_names(void)
{
    struct strv files;
    strv_init(&files);
    arch_profile_files(&files);
    struct strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < files.n; i++) {
        const char *base = strrchr(files.v[i], '/');
        base = base ? base + 1 : files.v[i];
        sb_addf(&sb, "%s%.*s", i ? ", " : "", (int)(strlen(base) - 5), base);
    }
    strv_release(&files);
    if (!sb.len)
        sb_adds(&sb, "none");
    return sb_detach(&sb);
}

char *arch_profile_path(const char *arch, const char *source)
{
    char *path = arch_path_for(arch);
    if (!path || fs_exists(path))
        return path;
    if (arch_names_file(arch)) {
        br_error("arch profile '%s' not found", arch);
    } else {
        char *names = arch_profile_names(), *dir = fs_share_path("arch");
        br_error("no arch profile for '%s'%s%s%s: the profiles are %s (%s); to add one, write "
                 "%s (schema: docs/arch-profile.md) or pass --arch FILE",
                 arch, source ? " (from " : "", source ? source : "", source ? ")" : "", names,
                 dir ? dir : "share/benchrun/arch", path);
        free(names);
        free(dir);
    }
    free(path);
    return NULL;
}

double arch_tdp_w(const struct arch_profile *ap)
{
    return !isnan(ap->tdp_W) ? ap->tdp_W : arch_const(ap, "TDP_W");
}

const struct arch_pass *arch_pass_find(const struct arch_profile *ap, const char *name)
{
    for (int i = 0; name && i < ap->npasses; i++)
        if (!strcmp(ap->passes[i].name, name))
            return &ap->passes[i];
    return NULL;
}

const struct arch_set *arch_set_find(const struct arch_profile *ap, const char *name)
{
    for (int i = 0; name && i < ap->nsets; i++)
        if (!strcmp(ap->sets[i].name, name))
            return &ap->sets[i];
    return NULL;
}

char *arch_set_names(const struct arch_profile *ap)
{
    struct strbuf sb;
    sb_init(&sb);
    for (int i = 0; i < ap->nsets; i++)
        sb_addf(&sb, "%s%s", i ? ", " : "", ap->sets[i].name);
    if (!sb.len)
        sb_adds(&sb, "none");
    return sb_detach(&sb);
}

struct counter_visit {
    const struct arch_profile *ap;
    void (*fn)(void *ctx, const char *counter);
    void *ctx;
};

static void visit_slot(void *ctx, int slot)
{
    struct counter_visit *v = ctx;
    const struct arch_sym *s = &v->ap->syms[slot];
    if (s->kind == AS_RATE || s->kind == AS_SUM || s->kind == AS_DUR)
        v->fn(v->ctx, s->name);
}

void arch_metric_counters(const struct arch_profile *ap, int metric,
                          void (*fn)(void *ctx, const char *counter), void *ctx)
{
    const struct arch_metric *m = &ap->metrics[metric];
    struct counter_visit v = { ap, fn, ctx };
    const struct ex_node *trees[] = { m->expr, m->compute_pct, m->mem_pct, m->flops };
    for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
        ex_slots(trees[i], visit_slot, &v);
    for (int i = 0; i < m->nchoices; i++)
        ex_slots(m->choices[i], visit_slot, &v);
}

int arch_set_const(struct arch_profile *ap, const char *name, double v, const char *source)
{
    int i = arch_const_index(ap, name);
    if (i < 0 || ap->consts[i].expr)
        return -1;
    ap->consts[i].value = v;
    free(ap->consts[i].source);
    ap->consts[i].source = xstrdup(source);
    return eval_consts(ap);
}

int arch_block_limit(const struct arch_profile *ap, const char *counter)
{
    const char *us = strchr(counter, '_');
    if (!us)
        return -1;
    size_t n = (size_t)(us - counter);
    for (int i = 0; i < ap->nblocks; i++)
        if (strlen(ap->blocks[i]) == n && !strncmp(ap->blocks[i], counter, n))
            return ap->block_limit[i];
    return -1;
}

static void strv_free_n(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void metric_free(struct arch_metric *m)
{
    free(m->name);
    free(m->unit);
    free(m->desc);
    ex_free(m->expr);
    ex_free(m->compute_pct);
    ex_free(m->mem_pct);
    ex_free(m->flops);
    for (int i = 0; i < m->nchoices; i++)
        ex_free(m->choices[i]);
    free(m->choices);
    strv_free_n(m->choice_names, m->nchoices);
}

void arch_free(struct arch_profile *ap)
{
    if (!ap)
        return;
    for (int i = 0; i < ap->nconsts; i++) {
        free(ap->consts[i].name);
        free(ap->consts[i].source);
        free(ap->consts[i].cited);
        ex_free(ap->consts[i].expr);
    }
    free(ap->consts);
    strv_free_n(ap->agent_cols, ap->nagent);
    strv_free_n(ap->agent_consts, ap->nagent);
    strv_free_n(ap->blocks, ap->nblocks);
    free(ap->block_limit);
    for (int i = 0; i < ap->npasses; i++) {
        free(ap->passes[i].name);
        free(ap->passes[i].label);
        strv_release(&ap->passes[i].counters);
    }
    free(ap->passes);
    free(ap->launch_counter);
    for (int i = 0; i < ap->nreport; i++) {
        free(ap->report[i].label);
        free(ap->report[i].unit);
        free(ap->report[i].fmt);
    }
    free(ap->report);
    for (int i = 0; i < ap->nsets; i++) {
        free(ap->sets[i].name);
        strv_release(&ap->sets[i].passes);
    }
    free(ap->sets);
    strv_free_n(ap->instr_prefix, ap->ninstr);
    for (int i = 0; i < ap->nmetrics; i++)
        metric_free(&ap->metrics[i]);
    free(ap->metrics);
    for (int i = 0; i < ap->nchecks; i++) {
        free(ap->checks[i].name);
        ex_free(ap->checks[i].ok);
        ex_free(ap->checks[i].value);
    }
    free(ap->checks);
    for (int i = 0; i < ap->nsyms; i++) {
        free(ap->syms[i].name);
        free(ap->syms[i].pass);
    }
    free(ap->syms);
    free(ap->path);
    free(ap->arch);
    free(ap->vendor_name);
    free(ap->product);
    free(ap);
}
