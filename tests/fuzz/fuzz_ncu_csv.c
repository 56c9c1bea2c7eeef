/* fuzz_ncu_csv.c - libFuzzer target: ncu raw CSV reader + counter_collection converter. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "read/ncu_csv.h"
#include "collect/ncu_convert.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct ncu_table t;
    if (ncu_csv_parse((const char *)data, size, "fuzz.csv", &t) == 0) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            ncu_write_counter_collection(&t, NULL, "fuzz.csv", null);
            fclose(null);
        }
        double v;
        unsigned long d[3];
        for (size_t i = 0; i < t.nrows * t.ncols && i < 64; i++) {
            ncu_parse_number(t.cells[i], &v);
            ncu_parse_dim3(t.cells[i], d);
        }
        ncu_table_release(&t);
    }
    return 0;
}
