/* fuzz_expr.c - libFuzzer target for the metric expression parser and
 * evaluator (src/arch/expr.c). Input = the expression text. Every name binds
 * to one of 4 slots (sum/dur forms too, any @pass), so the fuzzer explores
 * the grammar rather than the symbol table; a parsed tree is evaluated over
 * slot values that hit the NaN, zero and overflow paths. Deep nesting must
 * end in a parse error, never a stack overflow. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int bind_any(void *ctx, enum ex_bind_kind kind, const char *name, const char *pass,
                    char **why)
{
    (void)ctx, (void)why;
    return (int)((strlen(name) + (pass ? strlen(pass) : 0) + (unsigned)kind) % 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    char *err = NULL;
    long col = 0;
    struct ex_node *e = ex_parse(src, bind_any, NULL, &err, &col);
    if (e) {
        static const double sets[3][4] = { { 1, 2, -3, 0.5 }, { 0, 0, 0, 0 },
                                           { NAN, 1e308, -1e308, INFINITY } };
        for (int i = 0; i < 3; i++)
            (void)ex_eval(e, sets[i]);
        ex_free(e);
    } else if (!err || col < 1 || (size_t)col > size + 1) {
        abort();    /* every failure names a column inside the text */
    }
    free(err);
    free(src);
    return 0;
}
