"""An RNS ("double-CRT") product with big-integer coefficients, checked with plain Python ints.

Builds an RnsRing Z_Q[x]/(x^n+1) with Q the product of several 62-bit NTT primes, multiplies
two polynomials whose coefficients are signed integers of hundreds of bits -- once with
RnsRing.multiply and once step by step (residues, NTT form, pointwise product, inverse NTT,
exact CRT) -- and compares both with the schoolbook product mod (x^n + 1, Q) computed with
Python integers only. Exits with status 1 on any mismatch.

Run:  python examples/python/rns_bigint.py
"""

import random
import sys
import time

import latpoly


def schoolbook(a, b, modulus):
    """a*b mod (x^n + 1, modulus) by the definition: x^n = -1."""
    n = len(a)
    c = [0] * n
    for i, ai in enumerate(a):
        for j, bj in enumerate(b):
            if i + j < n:
                c[i + j] += ai * bj
            else:
                c[i + j - n] -= ai * bj
    return [v % modulus for v in c]


def check(n: int, primes: int, coeff_bits: int, rng: random.Random) -> bool:
    ring = latpoly.RnsRing(n, latpoly.ntt_primes(62, n, primes))
    Q = ring.modulus
    a = [rng.randrange(-(1 << coeff_bits), 1 << coeff_bits) for _ in range(n)]
    b = [rng.randrange(-(1 << coeff_bits), 1 << coeff_bits) for _ in range(n)]

    t0 = time.perf_counter()
    c = ring.multiply(a, b)                                   # one call: RNS + NTT + CRT
    t1 = time.perf_counter()
    pa, pb = ring.poly(a).to_ntt(), ring.poly(b).to_ntt()     # residues mod each q_i, NTT form
    c_steps = (pa * pb).to_coeff().to_ints()                  # pointwise, inverse NTT, exact CRT
    residues = ring.to_residues(a)                            # uint64 array (primes, n)
    crt_ok = ring.from_residues(residues) == [v % Q for v in a]
    t2 = time.perf_counter()
    expected = schoolbook(a, b, Q)
    t3 = time.perf_counter()

    ok = c == expected and c_steps == expected and crt_ok
    print(f"n={n:4}, {primes:2} primes of 62 bits (Q: {Q.bit_length()} bits), {coeff_bits}-bit"
          f" coefficients: latpoly {1e3 * (t1 - t0):7.2f} ms, schoolbook {1e3 * (t3 - t2):8.1f} ms,"
          f" residues {residues.shape}, c[0] has {c[0].bit_length()} bits"
          f"  {'OK' if ok else 'MISMATCH'}")
    return ok


def main() -> int:
    rng = random.Random(8)
    results = [check(n, primes, bits, rng) for n, primes, bits in
               ((16, 2, 100), (128, 5, 300), (256, 12, 700), (512, 20, 600))]
    if not all(results):
        print("FAILED: RNS product differs from the schoolbook product", file=sys.stderr)
        return 1
    print("all RNS products equal the schoolbook products")
    return 0


if __name__ == "__main__":
    sys.exit(main())
