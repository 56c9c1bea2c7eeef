/* paramkey.h - what a kernel launch's parameters say about its work, as a key.
 *
 * Launch sampling (trace/launchplan.h) profiles a few launches of each
 * sampling unit and scales them up to every launch of the unit, which is
 * right when a unit's launches do the same work. Kernel, grid and block do
 * not say that for every kernel: on the H200 one cuBLAS kernel
 * (nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT, a persistent GEMM whose
 * grid is the SM count) ran GEMMs of several shapes under one name, grid and
 * block in a PyTorch transformer step, and 13 profiled launches of 125 put
 * its instructions at 55 % of the truth (docs/validation.md §12). The shapes
 * are in the kernel's parameters. The key hashes a launch's parameter bytes
 * with the addresses left out: two launches differ in key when a size, stride
 * or flag differs, not when only their buffers do (PyTorch's caching
 * allocator hands each GEMM of a step other buffers).
 *
 * The parameter block is read as 8-byte words (the tail zero-padded); a word
 * is left out when it holds an address (the caller's is_address: on CUDA,
 * cuPointerGetAttribute) and so is a word that is 0 (a null pointer today
 * may be an address tomorrow). A word once seen holding an address is an
 * address word of the function for good; other words are asked about only
 * when their value is neither of the last two it held, so a launch costs
 * the hash and, at most, one question per such word that could be an
 * address (at least 2^16, below 2^57: user-space virtual addresses);
 * launches alternating between two shapes ask nothing after their first. Pointers are 8-byte aligned in a
 * parameter block (the CUDA ABI aligns each parameter to its own alignment),
 * so no address straddles two words.
 * Pure: no CUDA, no I/O; tests/unit/test_paramkey.c, tests/fuzz/fuzz_paramkey.c.
 */
#ifndef BR_TRACE_PARAMKEY_H
#define BR_TRACE_PARAMKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one function's launches have taught about its parameter words. */
struct pk_func {
    size_t nwords;             /* words of the parameter block */
    uint64_t *last;            /* [2 nwords] the last two values seen per word (not addresses) */
    uint8_t *addr;             /* [nwords] 1: an address word */
};

/* Whether value v is an address the launch passes (ud: the caller's). */
typedef bool (*pk_is_address)(uint64_t v, void *ud);

/* A function whose parameter block is `bytes` long (0: no parameters). */
void pk_func_init(struct pk_func *f, size_t bytes);
void pk_func_release(struct pk_func *f);

/* The key of one launch's parameter block buf[0, bytes) (bytes as at init;
 * a shorter block is padded with zeros, a longer one cut). Never 0: 0 is
 * the key of "no parameters known". */
uint64_t pk_key(struct pk_func *f, const uint8_t *buf, size_t bytes, pk_is_address is_address,
                void *ud);

/* Copies parameter i (params[i], size[i] bytes) to offset[i] of block (bytes
 * long, zeroed first); false when one does not fit (then the block is not a
 * layout to trust). */
bool pk_gather(uint8_t *block, size_t bytes, const void *const *params, const size_t *offset,
               const size_t *size, size_t n);

#endif
