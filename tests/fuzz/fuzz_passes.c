/* fuzz_passes.c - libFuzzer target for the pass lists of counters files
 * (src/arch/passes.c arch_passes_parse) and the pass-name check
 * (arch_pass_name_problem), which decides what may become a folder and file
 * name. Input = a counters JSON text; every line of it is also
 * tried as a pass name. A name that is accepted must be a safe single path
 * component: abort() otherwise, so the fuzzer reports it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/passes.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *name)
{
    if (arch_pass_name_problem(name))
        return;
    size_t n = strlen(name);
    if (n == 0 || n > 100 || strchr(name, '/') || name[0] == '.' || name[0] == '-' ||
        strpbrk(name, " \t\n*+()$;&|<>'\"\\"))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct arch_passes p;
    if (arch_passes_parse(&p, (const char *)data, size, "fuzz_counters.json") == 0) {
        for (size_t i = 0; i < p.n; i++)
            check_name(p.v[i].name);
        if (p.n > ARCH_MAX_PASSES)
            abort();
        arch_passes_release(&p);
    }
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        check_name(line);
    free(copy);
    return 0;
}
