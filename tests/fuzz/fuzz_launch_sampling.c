/* fuzz_launch_sampling.c - libFuzzer target for the launch-sampling parsers:
 * launch_sampling.json (src/read/sampfile.c) and the FIRST:EVERY:BLOCKS:SEED
 * plan text (src/trace/launchplan.c). Any bytes; a parsed plan must round-trip
 * through lp_plan_format, and its strata and next ranks must agree. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/launchplan.h"
#include "read/sampfile.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_plan(const struct lp_plan *p)
{
    char buf[96];
    struct lp_plan q;
    lp_plan_format(p, buf, sizeof(buf));
    if (lp_plan_parse(buf, &q) != 0 || memcmp(p, &q, sizeof(q)) != 0)
        abort();
    for (uint64_t r = 1; r < 300; r++) {   /* lp_next is the next profiled rank */
        uint64_t n = lp_next(p, r), lo, hi;
        if (n < r || (n < 300 && !lp_profiled(p, n)))
            abort();
        uint32_t h = lp_stratum(p, r, &lo, &hi);
        if (r < lo || r > hi || lp_stratum_size(p, h, r) == 0)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    bool sampled = false;
    struct xp_sampling s;
    if (sf_parse("fuzz.json", (const char *)data, size, &sampled, &s) == 0 && sampled)
        check_plan(&s.plan);
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct lp_plan p;
    if (lp_plan_parse(text, &p) == 0)
        check_plan(&p);
    free(text);
    return 0;
}
