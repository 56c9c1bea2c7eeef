/* fuzz_csv.c - libFuzzer target for the CSV line source and splitters
 * (src/read/csv.c): every line through csv_split, csv_split_freetext (free
 * column and width from the first two bytes) and the number parsers on each
 * field. Checks the contract: spans lie inside the line; the prefix number
 * scanners agree with the whole-span ones. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/csv.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_spans(const char *line, size_t len, const struct csv_span *f, int n)
{
    for (int i = 0; i < n; i++) {
        if (f[i].p < line || f[i].p + f[i].n > line + len)
            abort();
        uint64_t u, su;
        double d, sd;
        int ru = csv_u64(&f[i], &u), rd = csv_double(&f[i], &d);
        (void)csv_agent_id(&f[i], &u);
        /* the prefix forms stop inside the span, and the whole-span forms
         * succeed exactly when they stop at its end, with the same value */
        const char *end = f[i].p + f[i].n;
        const char *stop = csv_scan_u64(f[i].p, end, &su);
        if ((stop && (stop <= f[i].p || stop > end)) || (ru == 0) != (stop == end) ||
            (ru == 0 && su != u))
            abort();
        stop = csv_scan_double(f[i].p, end, &sd);
        if ((stop && (stop <= f[i].p || stop > end)) || (rd == 0) != (stop == end) ||
            (rd == 0 && memcmp(&sd, &d, sizeof(d)) != 0))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    fuzz_silence();
    int ncols = 1 + data[0] % 24, free_col = data[1] % ncols;
    struct csv_src *s = csv_open_mem("fuzz.csv", data + 2, size - 2);
    if (!s)
        return 0;
    struct csv_span f[32];
    const char *line;
    size_t len;
    while (csv_next_line(s, &line, &len) > 0) {
        int n = csv_split(line, len, f, 32);
        check_spans(line, len, f, n < 0 ? 0 : n > 32 ? 32 : n);
        n = csv_split_freetext(line, len, ncols, free_col, f);
        check_spans(line, len, f, n < 0 ? 0 : n);
    }
    csv_close(s);
    return 0;
}
