/* test_paramkey.c - launch parameter keys (trace/paramkey.h): the same sizes
 * with other buffers give one key, other sizes another; addresses are asked
 * about once per changed word; zero words and null pointers; the gather of
 * parameters into a block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "trace/paramkey.h"

/* The test's address space: [0x7f0000000000, 0x7f0100000000). */
struct asked {
    int n;
};

static bool fake_address(uint64_t v, void *ud)
{
    ((struct asked *)ud)->n++;
    return v >= 0x7f0000000000ull && v < 0x7f0100000000ull;
}

/* A GEMM's parameters: A, B, C pointers, then M and N packed in one word,
 * K and a flag in the next, alpha as a double: 48 bytes. */
struct gemm {
    uint64_t a, b, c;
    uint32_t m, n;
    uint32_t k, flags;
    double alpha;
};

static uint64_t key_of(struct pk_func *f, const struct gemm *g, struct asked *q)
{
    return pk_key(f, (const uint8_t *)g, sizeof(*g), fake_address, q);
}

static void test_buffers_do_not_matter(void **state)
{
    (void)state;
    struct pk_func f;
    pk_func_init(&f, sizeof(struct gemm));
    assert_int_equal(f.nwords, 6);
    struct asked q = { 0 };
    struct gemm g1 = { 0x7f0000001000, 0x7f0000200000, 0x7f0000400000, 4096, 1024, 512, 1, 1.0 };
    uint64_t k1 = key_of(&f, &g1, &q);
    /* first launch: the words in [2^16, 2^57) were asked about: three
     * pointers, M|N and K|flags (not alpha: 1.0's bits, 0x3ff0..., are above
     * every user address) */
    assert_int_equal(q.n, 5);
    assert_int_equal(f.addr[0] + f.addr[1] + f.addr[2], 3);
    assert_int_equal(f.addr[3] + f.addr[4] + f.addr[5], 0);
    /* other buffers, the same sizes: the same key, and no question (the
     * address words are known, the others did not change) */
    struct gemm g2 = g1;
    g2.a = 0x7f00000a0000, g2.b = 0x7f00000b0000, g2.c = 0x7f00000c0000;
    assert_int_equal(key_of(&f, &g2, &q), k1);
    assert_int_equal(q.n, 5);
    /* another N: another key; the changed word is asked about once */
    struct gemm g3 = g2;
    g3.n = 2048;
    uint64_t k3 = key_of(&f, &g3, &q);
    assert_int_not_equal(k3, k1);
    assert_int_equal(q.n, 6);
    assert_int_equal(key_of(&f, &g3, &q), k3);
    assert_int_equal(q.n, 6);
    /* and back: the first key again, asked nothing (a word keeps its last
     * two values); a third N asks again */
    assert_int_equal(key_of(&f, &g1, &q), k1);
    assert_int_equal(key_of(&f, &g3, &q), k3);
    assert_int_equal(q.n, 6);
    struct gemm g5 = g1;
    g5.n = 8192;
    assert_int_not_equal(key_of(&f, &g5, &q), k1);
    assert_int_equal(q.n, 7);
    /* another alpha is other work too (a scale the kernel may branch on) */
    struct gemm g4 = g1;
    g4.alpha = 2.0;
    assert_int_not_equal(key_of(&f, &g4, &q), k1);
    pk_func_release(&f);
}

static void test_small_values_and_zeros(void **state)
{
    (void)state;
    struct pk_func f;
    pk_func_init(&f, 20);   /* a 4-byte tail: 3 words */
    assert_int_equal(f.nwords, 3);
    struct asked q = { 0 };
    uint8_t b[20] = { 0 };
    uint64_t empty = pk_key(&f, b, sizeof(b), fake_address, &q);
    assert_int_not_equal(empty, 0);   /* never 0: 0 means "no key" */
    assert_int_equal(q.n, 0);         /* zero words are left out, never asked about */
    b[16] = 7;                         /* the tail word: n = 7 */
    uint64_t seven = pk_key(&f, b, sizeof(b), fake_address, &q);
    assert_int_not_equal(seven, empty);
    assert_int_equal(q.n, 0);         /* below 2^16: no address */
    b[16] = 8;
    assert_int_not_equal(pk_key(&f, b, sizeof(b), fake_address, &q), seven);
    /* a null pointer first, a pointer later: the same key (both left out) */
    uint8_t p[20] = { 0 };
    p[16] = 7;
    assert_int_equal(pk_key(&f, p, sizeof(p), fake_address, &q), seven);
    uint64_t ptr = 0x7f0000123400ull;
    memcpy(p, &ptr, sizeof(ptr));
    assert_int_equal(pk_key(&f, p, sizeof(p), fake_address, &q), seven);
    assert_int_equal(q.n, 1);
    assert_int_equal(f.addr[0], 1);
    /* a shorter block is padded with zeros */
    assert_int_equal(pk_key(&f, p, 8, fake_address, &q), empty);
    /* without a way to ask, nothing is an address */
    struct pk_func g;
    pk_func_init(&g, 8);
    uint64_t k = pk_key(&g, p, 8, NULL, NULL);
    ptr = 0x7f0000999900ull;
    memcpy(p, &ptr, sizeof(ptr));
    assert_int_not_equal(pk_key(&g, p, 8, NULL, NULL), k);
    pk_func_release(&g);
    pk_func_release(&f);
    /* no parameters */
    pk_func_init(&f, 0);
    assert_int_equal(f.nwords, 0);
    assert_int_not_equal(pk_key(&f, NULL, 0, fake_address, &q), 0);
    pk_func_release(&f);
}

static void test_gather(void **state)
{
    (void)state;
    uint64_t ptr = 0x7f0000001000ull;
    uint32_t n = 4096;
    uint16_t h = 0xabcd;
    const void *params[3] = { &ptr, &n, &h };
    size_t offset[3] = { 0, 8, 12 }, size[3] = { 8, 4, 2 };
    uint8_t block[16];
    memset(block, 0x55, sizeof(block));
    assert_true(pk_gather(block, 16, params, offset, size, 3));
    uint64_t w0, w1;
    memcpy(&w0, block, 8);
    memcpy(&w1, block + 8, 8);
    assert_int_equal(w0, ptr);
    assert_int_equal(w1, 4096ull | 0xabcdull << 32);   /* the gap at 14-15 zeroed */
    /* a parameter past the block, or a missing one: not a layout to trust */
    size[2] = 4;
    assert_false(pk_gather(block, 14, params, offset, size, 3));
    size[2] = 2;
    params[1] = NULL;
    assert_false(pk_gather(block, 16, params, offset, size, 3));
    offset[2] = SIZE_MAX;
    assert_false(pk_gather(block, 16, params, offset, size, 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffers_do_not_matter),
        cmocka_unit_test(test_small_values_and_zeros),
        cmocka_unit_test(test_gather),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
