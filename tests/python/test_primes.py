"""latpoly.ntt_primes / is_prime / primitive_2n_root, checked against python-flint."""

from __future__ import annotations

import random

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import latpoly

NS = [1 << k for k in range(1, 13)]  # 2 .. 4096
EDGE_BITS = [62, 50, 30, 14]
HYP = settings(deadline=None, max_examples=50, database=None)


def fprime(x: int) -> bool:
    return bool(flint.fmpz(x).is_prime())


def all_ntt_primes_desc(bits: int, n: int):
    """Every prime of exactly `bits` bits with q = 1 mod 2n, largest first (brute force, flint)."""
    lo, hi, step = 1 << (bits - 1), 1 << bits, 2 * n
    return [c for c in range(hi - 1, lo - 1, -1) if c % step == 1 and fprime(c)]


# ---------------------------------------------------------------------------------------------
# ntt_primes: the lane-edge table used by the NTT tests, independently verified
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", EDGE_BITS)
@pytest.mark.parametrize("n", NS)
def test_largest_edge_prime_is_verified_by_flint(n, bits):
    step = 2 * n
    if bits == 14 and n == 4096:
        with pytest.raises(ValueError):
            latpoly.ntt_primes(14, 4096, 1)
        # Independently: the only candidate 8193 = 3 * 2731 is composite.
        assert [c for c in range(1 << 13, 1 << 14) if c % step == 1] == [8193]
        assert not fprime(8193)
        pytest.skip("no 14-bit prime is 1 mod 8192 (ValueError checked)")
    ps = latpoly.ntt_primes(bits, n, 1)
    assert isinstance(ps, list) and len(ps) == 1
    q = ps[0]
    assert type(q) is int
    assert q.bit_length() == bits
    assert q % step == 1
    assert fprime(q), f"latpoly returned {q}, which flint says is composite"
    assert latpoly.is_prime(q) is True
    # It is the *largest* such prime: every larger candidate below 2^bits is composite.
    for c in range(q + step, 1 << bits, step):
        assert not fprime(c), f"{c} is a larger {bits}-bit NTT prime than {q}"


@pytest.mark.parametrize(
    "bits,n,count",
    [(62, 2, 8), (62, 4096, 5), (62, 1 << 17, 3), (50, 1024, 6), (49, 64, 4), (30, 64, 10),
     (31, 2048, 5), (20, 16, 25), (16, 4, 12)],
)
def test_ntt_primes_are_the_count_largest(bits, n, count):
    ps = latpoly.ntt_primes(bits, n, count)
    assert len(ps) == count
    assert all(type(p) is int for p in ps)
    assert ps == sorted(set(ps), reverse=True), "not distinct and strictly decreasing"
    # Walk down from 2^bits: the first `count` primes = 1 mod 2n must be exactly ps.
    step = 2 * n
    c = ((1 << bits) - 2) // step * step + 1
    expected = []
    while len(expected) < count:
        assert c >= 1 << (bits - 1)
        if fprime(c):
            expected.append(c)
        c -= step
    assert ps == expected


@pytest.mark.parametrize("bits", range(2, 17))
def test_ntt_primes_exhaustive_small_sizes(bits):
    """For small sizes, enumerate *all* NTT primes with flint and compare, incl. the count limit."""
    for logn in range(0, bits + 1):
        n = 1 << logn
        expected = all_ntt_primes_desc(bits, n)
        assert latpoly.ntt_primes(bits, n, len(expected)) == expected, (bits, n)
        with pytest.raises(ValueError):
            latpoly.ntt_primes(bits, n, len(expected) + 1)


def test_doc_examples():
    assert latpoly.ntt_primes(14, 1024, 1) == [12289]
    assert latpoly.ntt_primes(3, 2, 1) == [5]
    assert latpoly.ntt_primes(2, 1, 1) == [3]
    assert latpoly.primitive_2n_root(4, 17) == 2
    assert latpoly.is_prime(12289) is True
    assert latpoly.is_prime(12287 * 3) is False


def test_too_many_14_bit_primes():
    # 12289 is the only 14-bit prime = 1 mod 2048.
    assert all_ntt_primes_desc(14, 1024) == [12289]
    for count in (2, 3, 100):
        with pytest.raises(ValueError):
            latpoly.ntt_primes(14, 1024, count)


def test_prime_counts_past_a_basis_are_refused_before_the_search():
    """More primes than an RNS basis holds (4096) is a ValueError at once (the message says
    so, not that the search ran out); the search for 10^9 primes of 62 bits would run for
    hours. 4096 is still served."""
    for f in (latpoly.ntt_primes, latpoly.fast_ntt_primes):
        for count in (4097, 10**9):
            with pytest.raises(ValueError, match="at most 4096"):
                f(62, 2, count)
    ps = latpoly.ntt_primes(40, 2, 4096)
    assert len(ps) == 4096 == len(set(ps)) and all(p % 4 == 1 and p >> 39 == 1 for p in ps)


@HYP
@given(bits=st.integers(2, 62), logn=st.integers(0, 24), count=st.integers(1, 3))
def test_hyp_ntt_primes(bits, logn, count):
    n = 1 << logn
    step = 2 * n
    lo, hi = 1 << (bits - 1), 1 << bits
    try:
        ps = latpoly.ntt_primes(bits, n, count)
    except ValueError:
        # Only legitimate if fewer than `count` such primes exist: enumerate them all.
        first = (lo - 1 + step - 1) // step * step + 1  # smallest candidate >= lo
        n_candidates = max(0, (hi - first + step - 1) // step)
        assert n_candidates <= 20000, f"ValueError although {n_candidates} candidates exist"
        found = sum(fprime(c) for c in range(first, hi, step))
        assert found < count
        return
    assert len(ps) == count
    for p in ps:
        assert lo <= p < hi and p % step == 1 and fprime(p)
    # Consecutive: no prime candidate is skipped between (or above) the returned ones.
    top = [((hi - 2) // step) * step + 1] + ps[:-1]
    for upper, p in zip(top, ps):
        for c in range(upper if upper not in ps else upper - step, p, -step):
            assert not fprime(c), f"skipped prime {c}"


# ---------------------------------------------------------------------------------------------
# is_prime vs flint
# ---------------------------------------------------------------------------------------------

SPECIAL = [
    0, 1, 2, 3, 4, 5, 9, 25, 561, 1105, 1729, 2047, 3277, 4033, 4681, 8321,  # Carmichael / spsp(2)
    1373653, 25326001, 3215031751, 2152302898747, 3474749660383, 341550071728321,
    3825123056546413051, 318665857834031151167461 % (1 << 64),
    (1 << 31) - 1, (1 << 61) - 1, (1 << 62) - 57, (1 << 62) + 135, (1 << 64) - 59, (1 << 64) - 1,
    (1 << 32) + 1, 4294967291 * 4294967279, 4294967291 ** 2, 65521 ** 4, 12289 * 12289,
    (1 << 63), (1 << 63) + 1, 18446744073709551557, 18446744073709551533,
]


def test_is_prime_special_values():
    for x in SPECIAL:
        assert latpoly.is_prime(x) is fprime(x), x


def test_is_prime_exhaustive_small():
    for x in range(0, 20000):
        assert latpoly.is_prime(x) is fprime(x), x


def test_is_prime_random_64_bit():
    rnd = random.Random(20240607)
    for bits in (16, 32, 48, 62, 63, 64):
        for _ in range(300):
            x = rnd.getrandbits(bits) | 1
            assert latpoly.is_prime(x) is fprime(x), x
    # products of two primes of ~32 bits (hard cases for weak tests)
    ps = [p for p in range((1 << 32) - 2000, 1 << 32) if fprime(p)]
    for _ in range(200):
        x = rnd.choice(ps) * rnd.choice(ps)
        assert latpoly.is_prime(x) is False


@HYP
@given(st.integers(0, (1 << 64) - 1))
def test_hyp_is_prime(x):
    assert latpoly.is_prime(x) is fprime(x)


# ---------------------------------------------------------------------------------------------
# primitive_2n_root
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n,q",
    [(1, 3), (1, 17), (2, 5), (4, 17), (8, 17), (8, 97), (256, 12289), (512, 12289),
     (1024, 12289), (2048, 12289), (2, 13), (16, 7681), (128, 7681), (256, 7681)],
)
def test_primitive_2n_root_is_smallest_bruteforce(n, q):
    psi = latpoly.primitive_2n_root(n, q)
    smallest = next(x for x in range(1, q) if pow(x, n, q) == q - 1)
    assert psi == smallest


@pytest.mark.parametrize("bits", EDGE_BITS)
@pytest.mark.parametrize("n", [2, 4, 16, 256, 2048])
def test_primitive_2n_root_large_primes(n, bits):
    q = latpoly.ntt_primes(bits, n, 1)[0]
    psi = latpoly.primitive_2n_root(n, q)
    assert 0 < psi < q
    assert pow(psi, n, q) == q - 1  # order exactly 2n, since 2n is a power of two
    # All primitive 2n-th roots are psi^k, k odd: psi must be the smallest of them.
    roots = {pow(psi, k, q) for k in range(1, 2 * n, 2)}
    assert len(roots) == n
    assert min(roots) == psi


@pytest.mark.parametrize(
    "n,q",
    [(4, 15), (4, 16), (4, 1), (4, 0), (4, 12289 * 12289), (4, 561), (8, 3215031751),
     (4, 19), (1024, 7681), (1 << 17, 12289), (1, 2),  # q - 1 not divisible by 2n
     (3, 17), (0, 17), (6, 97), (12, 97),  # n not a power of two
     (-4, 17), (4, -17), (4, 1 << 64), (1 << 64, 17), (4.0, 17), (4, 17.0), ("4", 17),
     (4, None), (True, 17)],
)
def test_primitive_2n_root_rejects(n, q):
    with pytest.raises(ValueError):
        latpoly.primitive_2n_root(n, q)


def test_primitive_2n_root_huge_n_is_refused_quickly(ref):
    # The smallest-root search is O(n); orders above 2^20 are refused instead of hanging.
    n = 1 << 40
    q = latpoly.ntt_primes(62, n, 1)[0]
    code = (
        "import latpoly\n"
        "try:\n"
        f"    latpoly.primitive_2n_root({n}, {q})\n"
        "except ValueError:\n"
        "    print('ValueError')\n"
    )
    proc = ref.run_python(code, timeout=5)
    assert proc is not None, "primitive_2n_root(2**40, q) did not return within 5 s"
    assert proc.returncode == 0
    assert proc.stdout.strip() == "ValueError"


def test_primitive_2n_root_largest_supported_order():
    n = 1 << 19  # order 2^20
    q = latpoly.ntt_primes(62, n, 1)[0]
    psi = latpoly.primitive_2n_root(n, q)
    assert pow(psi, n, q) == q - 1


# ---------------------------------------------------------------------------------------------
# ntt_primes / is_prime: bad input
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bits,n,count",
    [(63, 8, 1), (64, 8, 1), (65, 8, 1), (1, 8, 1), (0, 8, 1), (-1, 8, 1), (1000, 8, 1),
     (62, 3, 1), (62, 0, 1), (62, 6, 1), (62, 1000, 1), (62, -8, 1),  # n not a power of two
     (62, 8, -1), (14, 4096, 1), (14, 1024, 2), (20, 2, 10 ** 6), (2, 2, 1), (5, 16, 1),
     (62, 1 << 62, 1), (62, 1 << 64, 1), (62, 8, (1 << 32) + 1),
     (62.0, 8, 1), (62, 8.0, 1), (62, 8, 1.0), ("62", 8, 1), (None, 8, 1), (True, 8, 1)],
)
def test_ntt_primes_rejects(bits, n, count):
    with pytest.raises(ValueError):
        latpoly.ntt_primes(bits, n, count)


def test_ntt_primes_n_2_pow_63_raises_value_error():
    with pytest.raises(ValueError):
        latpoly.ntt_primes(62, 1 << 63, 1)


def test_ntt_primes_huge_count_does_not_crash(ref):
    # 4 GiB address-space cap makes the failed 32 GiB reservation deterministic on any machine.
    code = (
        "import latpoly\n"
        "try:\n"
        "    latpoly.ntt_primes(20, 2, 2**32)\n"
        "except ValueError:\n"
        "    print('ValueError')\n"
    )
    proc = ref.run_python(code, timeout=30, limit_address_space=4 << 30)
    assert proc is not None
    assert proc.returncode == 0, f"interpreter died (rc={proc.returncode}): {proc.stderr[-300:]}"
    assert proc.stdout.strip() == "ValueError"


@pytest.mark.parametrize("x", [-1, -(1 << 70), 1 << 64, (1 << 64) + 1, 1.0, 7.5, "7", None, True])
def test_is_prime_rejects(x):
    with pytest.raises(ValueError):
        latpoly.is_prime(x)


# ---------------------------------------------------------------------------------------------
# fast_ntt_primes: q = 1 mod 2^32, verified by flint; the plans built on them, by flint products
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [37, 38, 39, 40, 41])
def test_fast_ntt_primes_small_sizes_are_all_of_them(bits):
    # Every prime k * 2^32 + 1 of exactly `bits` bits, brute force with flint, largest first.
    want = [(k << 32) + 1 for k in range((1 << (bits - 32)) - 1, (1 << (bits - 33)) - 1, -1)
            if fprime((k << 32) + 1)]
    assert latpoly.fast_ntt_primes(bits, 1024, len(want)) == want
    with pytest.raises(ValueError):
        latpoly.fast_ntt_primes(bits, 1024, len(want) + 1)


@pytest.mark.parametrize("bits", [49, 50, 60, 61, 62])
def test_fast_ntt_primes_are_the_largest(bits):
    ps = latpoly.fast_ntt_primes(bits, 8192, 3)
    assert ps == sorted(ps, reverse=True) and len(set(ps)) == 3
    for q in ps:
        assert q.bit_length() == bits and q % (1 << 32) == 1 and fprime(q)
    assert latpoly.fast_ntt_primes(bits, 2, 3) == ps == latpoly.fast_ntt_primes(bits, 1 << 31, 3)
    # No prime k * 2^32 + 1 between the first one and 2^bits, nor between the three.
    for c in range(ps[0] + (1 << 32), 1 << bits, 1 << 32):
        assert not fprime(c)
    for hi, lo in zip(ps, ps[1:]):
        assert not any(fprime(c) for c in range(lo + (1 << 32), hi, 1 << 32))


@pytest.mark.parametrize("isa_cap", [None, "scalar"])
@pytest.mark.parametrize("n,bits", [(8, 62), (64, 60), (1024, 60), (4096, 61), (256, 38)])
def test_fast_primes_multiply_matches_flint(ref, monkeypatch, isa_cap, n, bits):
    if isa_cap is None:
        monkeypatch.delenv("LATPOLY_ISA", raising=False)
    else:
        monkeypatch.setenv("LATPOLY_ISA", isa_cap)
    import numpy as np

    rng = random.Random(n * 1000 + bits)
    for q in latpoly.fast_ntt_primes(bits, n, 2):
        plan = latpoly.NttPlan(n, q)
        top = np.full(n, q - 1, dtype=np.uint64)
        a = np.array([rng.randrange(q) for _ in range(n)], dtype=np.uint64)
        b = np.array([rng.randrange(q) for _ in range(n)], dtype=np.uint64)
        for x, y in [(a, b), (top, top), (a, top)]:
            assert [int(v) for v in plan.multiply(x, y)] == ref.flint_mul(x, y, q)


@pytest.mark.parametrize("n,bits", [(8, 62), (64, 51), (1024, 60), (4096, 61)])
def test_fast_primes_on_the_avx2_kernels_match_flint(ref, n, bits):
    # The AVX2 integer backend's own kernels for q = 1 mod 2^32 (q >= 2^50), forced.
    import numpy as np

    rng = random.Random(n * 7 + bits)
    for q in latpoly.fast_ntt_primes(bits, n, 2):
        try:
            plan = latpoly.NttPlan(n, q, isa="avx2")
        except ValueError:
            pytest.skip("the CPU or the build has no AVX2 backend")
        assert plan.isa == "avx2"
        top = np.full(n, q - 1, dtype=np.uint64)
        a = np.array([rng.randrange(q) for _ in range(n)], dtype=np.uint64)
        b = np.array([rng.randrange(q) for _ in range(n)], dtype=np.uint64)
        for x, y in [(a, b), (top, top), (a, top)]:
            assert [int(v) for v in plan.multiply(x, y)] == ref.flint_mul(x, y, q)


@pytest.mark.parametrize(
    "bits,n,count",
    [(36, 8, 1), (33, 8, 1), (2, 8, 1), (63, 8, 1), (64, 8, 1), (62, 3, 1), (62, 0, 1),
     (62, 1 << 32, 1), (62, -8, 1), (62, 8, -1), (37, 8, 2), (62.0, 8, 1), ("60", 8, 1),
     (None, 8, 1)],
)
def test_fast_ntt_primes_rejects(bits, n, count):
    with pytest.raises(ValueError):
        latpoly.fast_ntt_primes(bits, n, count)
