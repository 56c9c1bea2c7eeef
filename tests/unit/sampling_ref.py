#!/usr/bin/env python3
"""sampling_ref.py - independent reference for tests/unit/test_sampling.c.

Recomputes the known answers of the launch-sampling estimators (read/
extrapolate.h) from the textbook formulas (Cochran, Sampling Techniques,
1977: stratified mean per unit, section 5.3; ratio estimator, section 6.3;
finite-population correction, section 2.4: none inside the one-per-block
strata, see read/extrapolate.h), with its own strata (the plan's
phases laid out by enumerating ranks, not by the C arithmetic). Run it to see
the numbers the C test hard-codes: python3 tests/unit/sampling_ref.py
"""
import math


def strata(first, every, blocks, L):
    """Stratum index of every rank 1..L, by walking the phases."""
    out = []
    r, h, length, left = 1, 1, every, blocks
    for rank in range(1, L + 1):
        if rank <= first:
            out.append(0)
            continue
        out.append(h)
        # advance the position inside the phase
        r += 1
        if blocks and r > length * blocks:   # phase done
            r, h, length = 1, h + 1, length * 2
    return out


def stratified(first, every, blocks, L, ranks, x):
    st = strata(first, every, blocks, L)
    n = len(x)
    mean = sum(x) / n
    pooled = sum((v - mean) ** 2 for v in x) / (n - 1) if n > 1 else float("nan")
    total = var = df = 0.0
    for h in sorted(set(st)):
        Lh = st.count(h)
        xs = [v for r, v in zip(ranks, x) if st[r - 1] == h]
        if not xs:
            total += Lh * mean
            var += Lh * Lh * pooled / n
            continue
        m = sum(xs) / len(xs)
        total += Lh * m
        if len(xs) >= Lh:
            continue
        s2 = sum((v - m) ** 2 for v in xs) / (len(xs) - 1) if len(xs) > 1 else pooled
        var += Lh * Lh * s2 / len(xs)   # one per block: no SRS correction
        if len(xs) > 1:
            df += len(xs) - 1
    if var > 0 and df < 1:
        df = n - 1
    return total, var, df


def ratio(first, D, ranks, d, x):
    census = [(dv, xv) for r, dv, xv in zip(ranks, d, x) if r <= first]
    rest = [(dv, xv) for r, dv, xv in zip(ranks, d, x) if r > first]
    cx, cd = sum(v for _, v in census), sum(v for v, _ in census)
    sx, sd = sum(v for _, v in rest), sum(v for v, _ in rest)
    R = sx / sd
    restD = D - cd
    total = cx + restD * R
    e = [xv - R * dv for dv, xv in rest]
    s2 = sum(v * v for v in e) / (len(rest) - 1)
    dbar = sd / len(rest)
    var = restD ** 2 * s2 / (len(rest) * dbar ** 2)
    return total, var, len(rest) - 1


if __name__ == "__main__":
    print("B1 stratified", stratified(2, 3, 0, 11, [1, 2, 4, 8, 9], [10, 12, 20, 26, 23]))
    print("B2 ratio", ratio(2, 30.0, [1, 2, 4, 8, 9], [1, 1, 2, 3, 2.5], [10, 12, 21, 30, 24]))
    print("B3 empty stratum", stratified(1, 2, 1, 5, [1, 3], [4, 8]))
    print("strata K=3 N=4 C=2, L=50:", [strata(3, 4, 2, 50).count(h) for h in range(5)])
    print("t(2) x sqrt(243) =", 4.303 * math.sqrt(243))
