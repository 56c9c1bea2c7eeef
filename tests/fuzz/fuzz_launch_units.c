/* fuzz_launch_units.c - libFuzzer target for launch sampling's units: the
 * launch_units.csv reader (src/read/launchunits.c) and the parameter key
 * (src/trace/paramkey.c) over the same bytes. Any bytes: a read that
 * succeeds reports rows only from lines that hold two numbers; a key is
 * never 0, and a block's key is the key of the same block with its address
 * words zeroed (addresses, like zeros, are left out). */
#include <stdlib.h>
#include <string.h>

#include "read/csv.h"
#include "read/launchunits.h"
#include "trace/paramkey.h"
#include "fuzz_quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_row(void *ud, uint64_t dispatch, uint32_t unit)
{
    (void)dispatch, (void)unit;
    ++*(size_t *)ud;
}

/* The fuzz address space: the top 24 of 64 bits 0x00007f. */
static bool is_address(uint64_t v, void *ud)
{
    (void)ud;
    return v >> 40 == 0x7f;
}

static void check_key(const uint8_t *data, size_t size)
{
    struct pk_func f, g;
    pk_func_init(&f, size);
    uint64_t k = pk_key(&f, data, size, is_address, NULL);
    if (k == 0)
        abort();
    uint8_t *z = malloc(size ? size : 1);
    if (!z)
        abort();
    memcpy(z, data, size);
    for (size_t w = 0; w < f.nwords; w++)
        if (f.addr[w])
            memset(z + 8 * w, 0, size - 8 * w < 8 ? size - 8 * w : 8);
    pk_func_init(&g, size);
    if (pk_key(&g, z, size, is_address, NULL) != k || pk_key(&f, data, size, is_address, NULL) != k)
        abort();
    pk_func_release(&f);
    pk_func_release(&g);
    free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_silence();
    struct csv_src *s = csv_open_mem("fuzz_launch_units.csv", data, size);
    size_t rows = 0, lines = 1;
    long line = 0;
    const char *what = NULL;
    if (s && lu_read(s, count_row, &rows, &line, &what) == 0) {
        for (size_t i = 0; i < size; i++)
            lines += data[i] == '\n';
        if (rows >= lines)   /* the header is no row */
            abort();
    } else if (s && (!what || line < 0)) {
        abort();
    }
    csv_close(s);
    check_key(data, size);
    return 0;
}
