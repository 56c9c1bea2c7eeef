/* fuzz_analysis_csv.c - libFuzzer target for the RFC 4180 table reader
 * (src/read/csvtab.c) as `benchrun compare --baseline` uses it on
 * per_kernel_metrics.csv (src/compare/cmp_baseline.c): any bytes as the file,
 * then every row's key, number parsing of every cell and the whole-run row. */
#include <stddef.h>
#include <stdint.h>

#include "compare/baseline.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double g_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct cmp_analysis a = { 0 };
    if (cmp_analysis_load_csv(&a, (const char *)data, size, "fuzz.csv") == 0) {
        double v;
        for (size_t r = 0; r < a.t.nrows; r++) {
            (void)cmp_analysis_key(&a, r);
            for (size_t c = 0; c < a.t.ncols; c++)
                if (cmp_parse_num(csvtab_cell(&a.t, r, c), &v))
                    g_sink += cmp_change_pct(v, g_sink);
        }
        json_decref(cmp_analysis_whole(&a));
    }
    cmp_analysis_release(&a);
    return 0;
}
