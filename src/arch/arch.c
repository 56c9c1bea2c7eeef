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
        for (int c = 0; c < ap->passes[p].ncounters; c++)
            if (!strcmp(ap->passes[p].counters[c], name))
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

static int load_passes(struct ld *l, json_t *a)
{
    struct arch_profile *ap = l->ap;
    if (!json_is_array(a) || json_array_size(a) == 0)
        return lerr(l, "passes", "expected a non-empty array of {\"name\", \"counters\"}");
    ap->passes = xcalloc(json_array_size(a), sizeof(*ap->passes));
    size_t i;
    json_t *p;
    json_array_foreach(a, i, p) {
        char path[64];
        snprintf(path, sizeof(path), "passes[%zu]", i);
        const char *name = str_at(p, "name");
        if (!name || !*name)
            return lerr(l, path, "expected \"name\": a non-empty string");
        snprintf(path, sizeof(path), "passes[%zu].counters", i);
        struct arch_pass *ps = &ap->passes[ap->npasses++];
        ps->name = xstrdup(name);
        if (!(ps->counters = str_list(l, json_object_get(p, "counters"), path, &ps->ncounters)))
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
    if (!json_is_object(o))
        return lerr(l, "counter_sets", "expected an object of SET: [pass names]");
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        char path[128];
        snprintf(path, sizeof(path), "counter_sets.%s", k);
        int n = ap->nsets++;
        ap->set_names = xrealloc(ap->set_names, (size_t)ap->nsets * sizeof(char *));
        ap->set_len = xrealloc(ap->set_len, (size_t)ap->nsets * sizeof(int));
        ap->set_passes = xrealloc(ap->set_passes, (size_t)ap->nsets * sizeof(char **));
        ap->set_names[n] = xstrdup(k);
        ap->set_len[n] = 0;
        if (!(ap->set_passes[n] = str_list(l, v, path, &ap->set_len[n])))
            return -1;
        for (int i = 0; i < ap->set_len[n]; i++) {
            int p = 0;
            while (p < ap->npasses && strcmp(ap->passes[p].name, ap->set_passes[n][i]))
                p++;
            if (p == ap->npasses)
                return lerr(l, path, "unknown pass '%s'", ap->set_passes[n][i]);
        }
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

static int load_top(struct ld *l, json_t *root, const char *const *pn, int np)
{
    struct arch_profile *ap = l->ap;
    const char *arch = str_at(root, "arch");
    if (!json_is_object(root))
        return lerr(l, "(top)", "expected a JSON object");
    if (!arch)
        return lerr(l, "arch", "expected a string (e.g. \"gfx942\")");
    ap->arch = xstrdup(arch);
    ap->vendor = xstrdup(str_at(root, "vendor") ? str_at(root, "vendor") : "");
    ap->product = xstrdup(str_at(root, "product") ? str_at(root, "product") : arch);
    if (load_consts(l, json_object_get(root, "constants"), "constants") < 0 ||
        load_consts(l, json_object_get(root, "peaks"), "peaks") < 0 ||
        load_cited(l, json_object_get(root, "constant_sources")) < 0 ||
        load_agent(l, json_object_get(root, "agent_info")) < 0 ||
        load_ints(l, json_object_get(root, "block_limits")) < 0 ||
        load_passes(l, json_object_get(root, "passes")) < 0 ||
        load_instrumented(l, json_object_get(root, "instrumented_counters")) < 0 ||
        load_sets(l, json_object_get(root, "counter_sets")) < 0)
        return -1;
    if (!pn)
        np = ap->npasses;
    l->first_pass = np > 0 ? (pn ? pn[0] : ap->passes[0].name) : "";
    json_t *lc = json_object_get(root, "launch_counter");
    if (lc && !json_is_string(lc))
        return lerr(l, "launch_counter", "expected a counter name");
    ap->launch_counter = lc ? xstrdup(json_string_value(lc)) : NULL;
    return load_metrics(l, json_object_get(root, "metrics"), pn, np) < 0 ||
           load_checks(l, json_object_get(root, "checks")) < 0 ||
           load_report(l, json_object_get(root, "report_whole_run")) < 0 ? -1 : 0;
}

struct arch_profile *arch_load(const char *path, const char *const *pass_names, int npasses)
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
    struct ld l = { .ap = ap, .file = slash ? slash + 1 : path };
    int rc = load_top(&l, root, pass_names, npasses);
    json_decref(root);
    if (rc < 0) {
        arch_free(ap);
        return NULL;
    }
    return ap;
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
    return ap && ap->vendor && strcmp(ap->vendor, "nvidia") == 0;
}

const char *arch_cycle_counter(const struct arch_profile *ap)
{
    return arch_is_nvidia(ap) ? "sm__cycles_elapsed / N_SM" : "GRBM_GUI_ACTIVE / N_XCC";
}

char *arch_path_for(const char *arch)
{
    if (strchr(arch, '/') || strstr(arch, ".json"))
        return xstrdup(arch);
    arch = arch_profile_name(arch);
    char *rel = xasprintf("arch/%s.json", arch);
    char *p = fs_share_path(rel);
    free(rel);
    return p;
}

char *arch_profile_names(void)
{
    char *dir = fs_share_path("arch");
    char *pat = dir ? fs_path_join(dir, "*.json") : NULL;
    glob_t g;
    struct strbuf sb;
    sb_init(&sb);
    if (pat && glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *base = strrchr(g.gl_pathv[i], '/');
            base = base ? base + 1 : g.gl_pathv[i];
            sb_addf(&sb, "%s%.*s", i ? ", " : "", (int)(strlen(base) - 5), base);
        }
        globfree(&g);
    }
    free(pat);
    free(dir);
    if (!sb.len)
        sb_adds(&sb, "none");
    return sb_detach(&sb);
}

char *arch_profile_path(const char *arch, const char *source)
{
    char *path = arch_path_for(arch);
    if (!path || fs_exists(path))
        return path;
    if (strchr(arch, '/') || strstr(arch, ".json")) {
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
        strv_free_n(ap->passes[i].counters, ap->passes[i].ncounters);
    }
    free(ap->passes);
    free(ap->launch_counter);
    for (int i = 0; i < ap->nreport; i++) {
        free(ap->report[i].label);
        free(ap->report[i].unit);
        free(ap->report[i].fmt);
    }
    free(ap->report);
    for (int i = 0; i < ap->nsets; i++)
        strv_free_n(ap->set_passes[i], ap->set_len[i]);
    strv_free_n(ap->set_names, ap->nsets);
    strv_free_n(ap->instr_prefix, ap->ninstr);
    free(ap->set_len);
    free(ap->set_passes);
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
    free(ap->vendor);
    free(ap->product);
    free(ap);
}
