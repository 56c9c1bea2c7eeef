"""jax_gemm.py - a JAX bf16 GEMM of known FLOPs for the NVIDIA collector tests.

usage: python3 jax_gemm.py [N] [ITERS] [gemm|mlp]
Runs a jitted bf16 x bf16 -> f32-accumulated matmul of N x N matrices ITERS
times after one warm-up (compile, autotune) call and prints
`jax_gemm: n=N iters=ITERS flop_per_call=2*N^3 ...` and a checksum. The
operands are random (seed 0): a wrong or missing product changes the sum.
XLA's own flags (autotuning, command buffers) come from XLA_FLAGS. Mode mlp
instead runs ITERS training steps (jax.grad, bf16) of a 3-layer MLP of width N
on a batch of N: many fusions, reductions and GEMMs (no FLOP claim).
"""
import sys
import time

import jax
import jax.numpy as jnp


def mlp(n, iters):
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    ws = [jax.random.normal(k, (n, n), dtype=jnp.bfloat16) * 0.02 for k in keys[:3]]
    x = jax.random.normal(keys[3], (n, n), dtype=jnp.bfloat16)

    def loss(ws, x):
        h = x
        for w in ws:
            h = jax.nn.gelu(h @ w)
        return jnp.mean(jax.nn.logsumexp(h.astype(jnp.float32), axis=-1))

    @jax.jit
    def step(ws, x):
        l, g = jax.value_and_grad(loss)(ws, x)
        return [w - 1e-3 * gw for w, gw in zip(ws, g)], l

    for _ in range(iters):
        ws, l = step(ws, x)
    print(f"jax_gemm: mode=mlp n={n} steps={iters} loss={float(l):.5f}")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if len(sys.argv) > 3 and sys.argv[3] == "mlp":
        return mlp(n, iters)
    ka, kb = jax.random.split(jax.random.PRNGKey(0))
    a = jax.random.normal(ka, (n, n), dtype=jnp.bfloat16)
    b = jax.random.normal(kb, (n, n), dtype=jnp.bfloat16)
    mm = jax.jit(lambda x, y: jnp.matmul(x, y, preferred_element_type=jnp.float32))
    mm(a, b).block_until_ready()          # compile (and autotune) outside the count
    t0 = time.time()
    s = 0.0
    for _ in range(iters):
        c = mm(a, b)
        c.block_until_ready()
    s = float(jnp.sum(c[:64, :64]))
    dt = time.time() - t0
    print(f"jax_gemm: n={n} iters={iters} warmup=1 flop_per_call={2 * n ** 3} "
          f"flop_counted={2 * n ** 3 * (iters + 1)} time_s={dt:.3f} checksum={s:.4f} "
          f"devices={jax.devices()}")


if __name__ == "__main__":
    main()
