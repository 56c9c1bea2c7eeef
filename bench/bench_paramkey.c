/* bench_paramkey.c - what the parameter key (src/trace/paramkey.h) costs per
 * launch, against copying the same parameter block (pk_gather's memcpy, the
 * least a key could cost) in the same run: parameter blocks of a GEMM-like
 * layout (3 addresses, then sizes and strides) of 48 bytes, 512 bytes and
 * 4 KiB, with the addresses changing at every launch (other buffers, the same
 * shape: the key must not change) and every 8th launch another shape. The
 * address question (cuPointerGetAttribute in the CUPTI library) is a counter
 * here: its count per launch is printed, not its cost (a driver call, timed
 * on the GPU by tests/gpu/final18.sh as part of each launch's cost).
 *
 * usage: bench_paramkey [--launches N]
 */
#include "trace/paramkey.h"

#include "bench_util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long asked;
static volatile uint64_t sink;   /* keeps the baseline's copy from being optimized away */

/* The bench's address space: [2^46, 2^47) (the sizes below stay under it). */
static bool is_address(uint64_t v, void *ud)
{
    (void)ud;
    asked++;
    return v >= (1ull << 46) && v < (1ull << 47);
}

static void fill(uint64_t *w, size_t nw, uint64_t *rng, int shape)
{
    for (size_t i = 0; i < nw; i++)
        w[i] = i < 3 ? (1ull << 46) + (bench_xorshift(rng) & 0xffffffff000ull)   /* buffers */
                     : (uint64_t)(1024 + i) << 32 | (uint64_t)(4096 + 64 * shape);   /* N | M */
}

int main(int argc, char **argv)
{
    long launches = 2000000;
    static const struct option opts[] = { { "launches", 1, NULL, 'n' }, { NULL, 0, NULL, 0 } };
    for (int o; (o = getopt_long(argc, argv, "n:", opts, NULL)) != -1;)
        if (o == 'n')
            launches = atol(optarg);
        else
            return 2;
    static const size_t sizes[] = { 48, 512, 4096 };
    uint64_t rng = 88172645463325252ull;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
        size_t nw = sizes[s] / 8;
        uint64_t *blk = malloc(sizes[s]), *copy = malloc(sizes[s]);
        struct pk_func f;
        pk_func_init(&f, sizes[s]);
        asked = 0;
        double t0 = bench_now_s();
        for (long i = 0; i < launches; i++) {   /* the baseline: the block copied */
            fill(blk, nw, &rng, (int)(i % 8 == 0));
            memcpy(copy, blk, sizes[s]);
            sink = copy[nw - 1];
        }
        double t1 = bench_now_s();
        uint64_t keys[2] = { 0, 0 };
        for (long i = 0; i < launches; i++) {   /* the key */
            int shape = i % 8 == 0;
            fill(blk, nw, &rng, shape);
            uint64_t k = pk_key(&f, (const uint8_t *)blk, sizes[s], is_address, NULL);
            if (keys[shape] && keys[shape] != k) {
                fprintf(stderr, "bench_paramkey: the key of one shape changed\n");
                return 1;
            }
            keys[shape] = k;
        }
        double t2 = bench_now_s();
        double base = (t1 - t0) / (double)launches * 1e9, key = (t2 - t1) / (double)launches * 1e9;
        printf("block %4zu B: copy %.1f ns, key %.1f ns per launch (key/copy %.2f, fill included in "
               "both), %.3f address questions per launch, 2 shapes -> %s keys\n",
               sizes[s], base, key, key / base, (double)asked / (double)launches,
               keys[0] != keys[1] ? "2" : "1 (WRONG)");
        pk_func_release(&f);
        free(blk);
        free(copy);
    }
    return 0;
}
