/* expr.c - recursive-descent parser and tree evaluator for metric
 * expressions (grammar and NaN rules in expr.h).
 *
 * Bounded recursion (expressions come from files): the parser
 * counts nesting (parentheses, function calls, unary operators) and refuses
 * more than EX_MAX_DEPTH levels; a run of operators of one precedence level
 * (a + b - c + ..., a * b / c ...) is one OP_CHAIN node folded left to right
 * in a loop, so a flat sum of any length is two levels deep. The evaluator
 * and ex_free recurse only as deep as the tree, hence a few frames per
 * nesting level. */
#include "arch/expr.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define EX_MAX_DEPTH 100

enum ex_op {
    OP_NUM, OP_SLOT, OP_NEG, OP_NOT, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_LT, OP_LE, OP_GT,
    OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR, OP_MIN, OP_MAX, OP_FLOOR, OP_CEIL, OP_ABS,
    OP_CEILTO, OP_IF, OP_NANSUM, OP_CHAIN
};

struct ex_node {
    enum ex_op op;
    double num;
    int slot;
    int nargs, cap;
    struct ex_node **args;
    enum ex_op *ops;        /* OP_CHAIN: ops[i] combines the value so far with args[i], i >= 1 */
};

struct parser {
    const char *src, *p;
    ex_bind_fn bind;
    void *ctx;
    char *err;
    long col;
    int depth;
};

static struct ex_node *node(enum ex_op op, int nargs)
{
    struct ex_node *n = xcalloc(1, sizeof(*n));
    n->op = op;
    n->nargs = nargs;
    n->args = nargs ? xcalloc((size_t)nargs, sizeof(*n->args)) : NULL;
    return n;
}

void ex_free(struct ex_node *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->nargs; i++)
        ex_free(e->args[i]);
    free(e->args);
    free(e->ops);
    free(e);
}

void ex_slots(const struct ex_node *e, void (*fn)(void *ctx, int slot), void *ctx)
{
    if (!e)
        return;
    if (e->op == OP_SLOT)
        fn(ctx, e->slot);
    for (int i = 0; i < e->nargs; i++)
        ex_slots(e->args[i], fn, ctx);
}

static void *perr(struct parser *ps, const char *at, char *msg)
{
    if (!ps->err) {
        ps->err = msg;
        ps->col = (long)(at - ps->src) + 1;
    } else {
        free(msg);
    }
    return NULL;
}

static void skip(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static bool eat(struct parser *ps, const char *tok)
{
    skip(ps);
    size_t n = strlen(tok);
    if (strncmp(ps->p, tok, n) != 0)
        return false;
    /* '<' must not eat the first char of '<=' etc. */
    if (n == 1 && strchr("<>=!", tok[0]) && ps->p[1] == '=')
        return false;
    ps->p += n;
    return true;
}

static struct ex_node *parse_or(struct parser *ps);

/* One more nesting level at `at`; false (error set) past EX_MAX_DEPTH. */
static bool enter(struct parser *ps, const char *at)
{
    if (++ps->depth <= EX_MAX_DEPTH)
        return true;
    perr(ps, at, xasprintf("expression nested more than %d levels deep (parentheses, function "
                           "calls, unary operators)", EX_MAX_DEPTH));
    return false;
}

static void chain_push(struct ex_node *c, struct ex_node *a, enum ex_op op)
{
    if (c->nargs == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4;
        c->args = xrealloc(c->args, (size_t)c->cap * sizeof(*c->args));
        c->ops = xrealloc(c->ops, (size_t)c->cap * sizeof(*c->ops));
    }
    c->ops[c->nargs] = op;
    c->args[c->nargs++] = a;
}

struct tokop { const char *tok; enum ex_op op; };

/* next (tok next)*, left-associative, as one OP_CHAIN node (or next's own
 * node when no operator follows). */
static struct ex_node *chain(struct parser *ps, struct ex_node *(*next)(struct parser *),
                             const struct tokop *ops, size_t nops)
{
    struct ex_node *a = next(ps), *c = NULL;
    while (a) {
        size_t i = 0;
        while (i < nops && !eat(ps, ops[i].tok))
            i++;
        if (i == nops)
            break;
        struct ex_node *b = next(ps);
        if (!b) {
            ex_free(c ? c : a);
            return NULL;
        }
        if (!c) {
            c = node(OP_CHAIN, 0);
            chain_push(c, a, OP_CHAIN);
        }
        chain_push(c, b, ops[i].op);
    }
    return c ? c : a;
}

static struct ex_node *bin(struct parser *ps, struct ex_node *a, enum ex_op op,
                           struct ex_node *(*next)(struct parser *))
{
    struct ex_node *b = next(ps);
    if (!b) {
        ex_free(a);
        return NULL;
    }
    struct ex_node *n = node(op, 2);
    n->args[0] = a;
    n->args[1] = b;
    return n;
}

static const struct { const char *name; enum ex_op op; int min, max; } funcs[] = {
    { "min", OP_MIN, 1, 64 }, { "max", OP_MAX, 1, 64 }, { "floor", OP_FLOOR, 1, 1 },
    { "ceil", OP_CEIL, 1, 1 }, { "abs", OP_ABS, 1, 1 }, { "ceilto", OP_CEILTO, 2, 2 },
    { "if", OP_IF, 3, 3 }, { "nansum", OP_NANSUM, 1, 64 },
};

static char *ident(struct parser *ps, bool pass)
{
    const char *s = ps->p;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.' ||
           (pass && *ps->p == '-'))
        ps->p++;
    return ps->p > s ? xstrndup(s, (size_t)(ps->p - s)) : NULL;
}

/* "{name}" after '@': handed to the bind callback as it is (the caller
 * picks the pass; its name never becomes formula text). NULL if malformed. */
static char *pass_template(struct parser *ps)
{
    const char *s = ps->p + 1, *e = s;
    while (isalnum((unsigned char)*e) || *e == '_')
        e++;
    if (e == s || *e != '}')
        return NULL;
    ps->p = e + 1;
    return xstrndup(s - 1, (size_t)(e + 1 - (s - 1)));
}

static struct ex_node *bound(struct parser *ps, enum ex_bind_kind kind, const char *at)
{
    skip(ps);
    if (!isalpha((unsigned char)*ps->p) && *ps->p != '_')
        return perr(ps, ps->p, xstrdup("expected a name"));
    char *name = ident(ps, false), *pass = NULL;
    if (*ps->p == '@') {
        ps->p++;
        pass = *ps->p == '{' ? pass_template(ps) : ident(ps, true);
        if (!pass) {
            free(name);
            return perr(ps, ps->p, xstrdup("expected a pass name after '@'"));
        }
    }
    char *why = NULL;
    int slot = ps->bind(ps->ctx, kind, name, pass, &why);
    free(name);
    free(pass);
    if (slot < 0)
        return perr(ps, at, why ? why : xstrdup("unknown name"));
    struct ex_node *n = node(OP_SLOT, 0);
    n->slot = slot;
    return n;
}

static struct ex_node *call(struct parser *ps, const char *name, const char *at)
{
    if (!strcmp(name, "sum") || !strcmp(name, "dur")) {
        struct ex_node *n = bound(ps, name[0] == 's' ? EX_BIND_SUM : EX_BIND_DUR, ps->p);
        if (n && !eat(ps, ")")) {
            ex_free(n);
            return perr(ps, ps->p, xstrdup("expected ')'"));
        }
        return n;
    }
    size_t f = 0;
    while (f < sizeof(funcs) / sizeof(*funcs) && strcmp(funcs[f].name, name))
        f++;
    if (f == sizeof(funcs) / sizeof(*funcs))
        return perr(ps, at, xasprintf("unknown function '%s'", name));
    struct ex_node *n = node(funcs[f].op, 0);
    do {
        struct ex_node *a = parse_or(ps);
        if (!a) {
            ex_free(n);
            return NULL;
        }
        n->args = xrealloc(n->args, (size_t)(n->nargs + 1) * sizeof(*n->args));
        n->args[n->nargs++] = a;
    } while (eat(ps, ","));
    if (!eat(ps, ")")) {
        ex_free(n);
        return perr(ps, ps->p, xstrdup("expected ',' or ')'"));
    }
    if (n->nargs < funcs[f].min || n->nargs > funcs[f].max) {
        ex_free(n);
        return perr(ps, at, xasprintf("%s() takes %d to %d arguments", name, funcs[f].min,
                                      funcs[f].max));
    }
    return n;
}

static struct ex_node *primary(struct parser *ps)
{
    skip(ps);
    const char *at = ps->p;
    if (eat(ps, "(")) {
        struct ex_node *n = parse_or(ps);
        if (n && !eat(ps, ")")) {
            ex_free(n);
            return perr(ps, ps->p, xstrdup("expected ')'"));
        }
        return n;
    }
    if (isdigit((unsigned char)*at) || (*at == '.' && isdigit((unsigned char)at[1]))) {
        char *end;
        double v = strtod(at, &end);
        ps->p = end;
        struct ex_node *n = node(OP_NUM, 0);
        n->num = v;
        return n;
    }
    if (isalpha((unsigned char)*at) || *at == '_') {
        const char *save = ps->p;
        char *name = ident(ps, false);
        if (eat(ps, "(")) {
            struct ex_node *n = call(ps, name, at);
            free(name);
            return n;
        }
        free(name);
        ps->p = save;
        return bound(ps, EX_BIND_VALUE, at);
    }
    return perr(ps, at, xstrdup(*at ? "expected a number, a name or '('" : "unexpected end"));
}

static struct ex_node *unary(struct parser *ps)
{
    skip(ps);
    const char *at = ps->p;
    if (eat(ps, "-") || eat(ps, "!")) {
        enum ex_op op = ps->p[-1] == '-' ? OP_NEG : OP_NOT;
        struct ex_node *a = enter(ps, at) ? unary(ps) : NULL;
        ps->depth--;
        if (!a)
            return NULL;
        struct ex_node *n = node(op, 1);
        n->args[0] = a;
        return n;
    }
    return primary(ps);
}

static struct ex_node *mul(struct parser *ps)
{
    static const struct tokop ops[] = { { "*", OP_MUL }, { "/", OP_DIV } };
    return chain(ps, unary, ops, 2);
}

static struct ex_node *add(struct parser *ps)
{
    static const struct tokop ops[] = { { "+", OP_ADD }, { "-", OP_SUB } };
    return chain(ps, mul, ops, 2);
}

static struct ex_node *cmp(struct parser *ps)
{
    static const struct { const char *t; enum ex_op op; } ops[] = {
        { "<=", OP_LE }, { ">=", OP_GE }, { "==", OP_EQ }, { "!=", OP_NE }, { "<", OP_LT },
        { ">", OP_GT },
    };
    struct ex_node *a = add(ps);
    for (size_t i = 0; a && i < sizeof(ops) / sizeof(*ops); i++)
        if (eat(ps, ops[i].t))
            return bin(ps, a, ops[i].op, add);
    return a;
}

static struct ex_node *and_(struct parser *ps)
{
    static const struct tokop ops[] = { { "&&", OP_AND } };
    return chain(ps, cmp, ops, 1);
}

/* Every nested expression (parentheses, call arguments) starts here. */
static struct ex_node *parse_or(struct parser *ps)
{
    static const struct tokop ops[] = { { "||", OP_OR } };
    skip(ps);
    struct ex_node *n = enter(ps, ps->p) ? chain(ps, and_, ops, 1) : NULL;
    ps->depth--;
    return n;
}

struct ex_node *ex_parse(const char *src, ex_bind_fn bind, void *ctx, char **err, long *col)
{
    struct parser ps = { .src = src, .p = src, .bind = bind, .ctx = ctx, .depth = -1 };
    struct ex_node *n = parse_or(&ps);
    skip(&ps);
    if (n && *ps.p) {
        ex_free(n);
        n = perr(&ps, ps.p, xasprintf("unexpected '%c'", *ps.p));
    }
    *err = ps.err;
    *col = ps.col;
    return n;
}

/* ---- evaluation ---------------------------------------------------------- */

static double minmax(const struct ex_node *e, const double *s, bool want_max)
{
    double r = ex_eval(e->args[0], s);
    for (int i = 1; i < e->nargs; i++) {
        double v = ex_eval(e->args[i], s);
        if (isnan(v) || isnan(r))
            return NAN;
        r = want_max ? fmax(r, v) : fmin(r, v);
    }
    return r;
}

static double nansum(const struct ex_node *e, const double *s)
{
    double r = 0;
    bool any = false;
    for (int i = 0; i < e->nargs; i++) {
        double v = ex_eval(e->args[i], s);
        if (!isnan(v)) {
            r += v;
            any = true;
        }
    }
    return any ? r : NAN;
}

static double truth(double c, bool v)
{
    return isnan(c) ? NAN : v ? 1.0 : 0.0;
}

static double eval2(enum ex_op op, double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return b == 0 ? NAN : a / b;
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_AND: return a != 0 && b != 0;
    case OP_OR: return a != 0 || b != 0;
    case OP_CEILTO: return b == 0 ? NAN : ceil(a / b) * b;
    default: return NAN;
    }
}

double ex_eval(const struct ex_node *e, const double *s)
{
    switch (e->op) {
    case OP_NUM: return e->num;
    case OP_SLOT: return s[e->slot];
    case OP_NEG: return -ex_eval(e->args[0], s);
    case OP_NOT: { double c = ex_eval(e->args[0], s); return truth(c, c == 0); }
    case OP_MIN: return minmax(e, s, false);
    case OP_MAX: return minmax(e, s, true);
    case OP_FLOOR: return floor(ex_eval(e->args[0], s));
    case OP_CEIL: return ceil(ex_eval(e->args[0], s));
    case OP_ABS: return fabs(ex_eval(e->args[0], s));
    case OP_NANSUM: return nansum(e, s);
    case OP_IF: {
        double c = ex_eval(e->args[0], s);
        return isnan(c) ? NAN : ex_eval(e->args[c != 0 ? 1 : 2], s);
    }
    case OP_CHAIN: {
        double r = ex_eval(e->args[0], s);
        for (int i = 1; i < e->nargs; i++)
            r = eval2(e->ops[i], r, ex_eval(e->args[i], s));
        return r;
    }
    default: return eval2(e->op, ex_eval(e->args[0], s), ex_eval(e->args[1], s));
    }
}
