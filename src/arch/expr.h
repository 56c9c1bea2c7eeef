/* expr.h - metric expressions of the arch profiles: parsed once into a tree
 * whose names are bound to value slots, then evaluated per kernel row.
 *
 * Grammar (C-like precedence, all values double):
 *   expr    := or ; or := and ('||' and)* ; and := cmp ('&&' cmp)*
 *   cmp     := add (('<'|'<='|'>'|'>='|'=='|'!=') add)?
 *   add     := mul (('+'|'-') mul)* ; mul := unary (('*'|'/') unary)*
 *   unary   := ('-'|'!') unary | primary
 *   primary := NUMBER | NAME ['@' PASS] | FUNC '(' expr {',' expr} ')' | '(' expr ')'
 *   NAME    := [A-Za-z_][A-Za-z0-9_.]*      PASS := [A-Za-z0-9_.-]+ | '{' [A-Za-z0-9_]+ '}'
 * A PASS in braces ("{pass}", "{first_pass}") is a template handed to the
 * bind callback as it is: the caller picks the pass (the one a per-pass
 * metric is expanded for, the run's first), so a pass name never becomes
 * formula text. Nesting (parentheses, calls, unary
 * operators) deeper than 100 levels is a parse error; a run of operators of
 * one precedence level is not nesting, however long.
 * Functions: min, max, floor, ceil, abs, ceilto(x, m) (x rounded up to a
 * multiple of m), if(c, a, b), nansum(a, ...) (sum ignoring NaN; NaN when all
 * are NaN). Special forms sum(NAME[@PASS]) and dur(NAME[@PASS]) bind the raw
 * counter sum / the kernel time of the counter's pass (EX_BIND_SUM/_DUR).
 * NaN propagates through everything (comparisons included: a NaN condition is
 * NaN), and x/0 is NaN.
 */
#ifndef BR_ARCH_EXPR_H
#define BR_ARCH_EXPR_H

#include <stddef.h>

enum ex_bind_kind { EX_BIND_VALUE, EX_BIND_SUM, EX_BIND_DUR };

/* Resolves a name to a slot index (>= 0), or returns -1 with *why set to an
 * allocated reason. pass is NULL without '@'. */
typedef int (*ex_bind_fn)(void *ctx, enum ex_bind_kind kind, const char *name, const char *pass,
                          char **why);

struct ex_node;

/* Parses src. NULL on error with *err (allocated) and *col (1-based column). */
struct ex_node *ex_parse(const char *src, ex_bind_fn bind, void *ctx, char **err, long *col);
double ex_eval(const struct ex_node *e, const double *slots);
void ex_free(struct ex_node *e);
/* Calls fn for every slot e reads (a slot read twice, twice); e may be NULL. */
void ex_slots(const struct ex_node *e, void (*fn)(void *ctx, int slot), void *ctx);

#endif
