"""latpoly.RnsRing: big-integer negacyclic products, residues and exact CRT, against plain Python
big integers and python-flint's fmpz_poly."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import latpoly

HYP = settings(deadline=None, max_examples=50, database=None)
SCHOOLBOOK_MAX_N = 64

# (n, number of primes, prime bits)
RING_CASES = [
    (2, 1, 62), (2, 3, 14), (4, 3, 30), (8, 2, 62), (16, 5, 50), (32, 2, 14), (64, 3, 40),
    (64, 1, 62), (128, 1, 20), (256, 4, 62), (1024, 6, 62), (4096, 2, 50), (4096, 3, 30),
]


def make_ring(n, count, bits):
    mods = latpoly.ntt_primes(bits, n, count)
    ring = latpoly.RnsRing(n, mods)
    return ring, mods


def reference(ref, a, b, Q):
    n = len(a)
    expected = ref.fmpz_mul(a, b, Q)
    if n <= SCHOOLBOOK_MAX_N:
        assert ref.schoolbook(a, b, Q) == expected
    return expected


def edge_values(Q):
    return [0, 1, -1, Q - 1, Q, Q + 1, -Q, -Q + 1, -Q - 1, 2 * Q, -2 * Q - 5, Q * Q + 3,
            1 << 64, (1 << 64) - 1, -(1 << 63), 1 << 1000, -(1 << 1000) - 7, (Q - 1) // 2]


def big_poly(rnd, n, Q):
    """Any-size, any-sign integers, mostly NOT reduced mod Q."""
    out = []
    for _ in range(n):
        kind = rnd.randrange(5)
        if kind == 0:
            out.append(rnd.randrange(Q))
        elif kind == 1:
            out.append(-rnd.randrange(Q * 5))
        elif kind == 2:
            out.append(rnd.getrandbits(rnd.randrange(1, 3 * Q.bit_length() + 70)) * rnd.choice((1, -1)))
        elif kind == 3:
            out.append(rnd.choice(edge_values(Q)))
        else:
            out.append(rnd.randrange(-1000, 1000))
    return out


def check_int_list(got, n, Q):
    assert isinstance(got, list) and len(got) == n
    assert all(type(v) is int for v in got)
    assert all(0 <= v < Q for v in got)


# ---------------------------------------------------------------------------------------------
# multiply
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,count,bits", RING_CASES)
def test_multiply_vs_bigint_reference(ref, n, count, bits):
    ring, mods = make_ring(n, count, bits)
    Q = math.prod(mods)
    assert ring.modulus == Q
    rnd = random.Random(n * 1000 + count * 100 + bits)
    reduced = [rnd.randrange(Q) for _ in range(n)]
    reduced2 = [rnd.randrange(Q) for _ in range(n)]
    top = [Q - 1] * n
    cases = [
        (reduced, reduced2),
        ([0] * n, reduced),
        (top, top),
        (top, reduced),
        (big_poly(rnd, n, Q), big_poly(rnd, n, Q)),
        ([-1] * n, reduced2),
        ([rnd.choice(edge_values(Q)) for _ in range(n)], big_poly(rnd, n, Q)),
    ]
    for a, b in cases:
        got = ring.multiply(a, b)
        check_int_list(got, n, Q)
        assert got == reference(ref, a, b, Q)
    # (Q-1)^2 = 1: closed form as for the NTT, c_k = 2k + 2 - n mod Q
    assert ring.multiply(top, top) == [(2 * k + 2 - n) % Q for k in range(n)]


def test_multiply_reduces_unreduced_inputs_mod_Q():
    """a and a + k*Q (any k, any sign) must give the same product."""
    ring, mods = make_ring(16, 3, 62)
    Q = ring.modulus
    rnd = random.Random(5)
    a = [rnd.randrange(Q) for _ in range(16)]
    b = [rnd.randrange(Q) for _ in range(16)]
    base = ring.multiply(a, b)
    shifted_a = [v + rnd.randrange(-(1 << 300), 1 << 300) * Q for v in a]
    shifted_b = [v - rnd.randrange(1 << 20) * Q for v in b]
    assert ring.multiply(shifted_a, shifted_b) == base
    # negation: (-a) * b = -(a*b)
    assert ring.multiply([-v for v in a], b) == [(-v) % Q for v in base]


def test_multiply_monomials_negacyclic():
    n = 32
    ring, _ = make_ring(n, 2, 62)
    Q = ring.modulus
    for i, j in [(0, 0), (1, n - 1), (n - 1, n - 1), (5, 30), (16, 16)]:
        a = [0] * n
        b = [0] * n
        a[i] = 1
        b[j] = 1
        expected = [0] * n
        k = i + j
        expected[k % n] = 1 if k < n else Q - 1
        assert ring.multiply(a, b) == expected
    # documented example: x * x^3 = -1 for n = 4
    ring4 = latpoly.RnsRing(4, latpoly.ntt_primes(60, 4, 2))
    assert ring4.multiply([0, 1, 0, 0], [0, 0, 0, 1]) == [ring4.modulus - 1, 0, 0, 0]


def test_multiply_accepts_numpy_and_sequences(ref):
    n = 8
    ring, mods = make_ring(n, 2, 30)
    Q = ring.modulus
    a = [3, -5, 7, 1 << 40, -(1 << 62), 0, 9, Q + 4]
    b = [1, 2, 3, 4, 5, 6, 7, 8]
    expected = ref.schoolbook(a, b, Q)
    small = [3, -5, 7, 1 << 40, -(1 << 62), 0, 9, 11]
    exp_small = ref.schoolbook(small, b, Q)
    assert ring.multiply(a, b) == expected
    assert ring.multiply(tuple(a), tuple(b)) == expected
    assert ring.multiply(np.array(a, dtype=object), np.array(b, dtype=np.uint64)) == expected
    assert ring.multiply(np.array(small, dtype=np.int64), np.array(b, dtype=np.int32)) == exp_small
    assert ring.multiply([np.int64(v) for v in small], [np.uint8(v) for v in b]) == exp_small
    assert ring.multiply(iter(a), (v for v in b)) == expected


# ---------------------------------------------------------------------------------------------
# residues / CRT
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,count,bits", RING_CASES)
def test_to_and_from_residues(n, count, bits):
    ring, mods = make_ring(n, count, bits)
    Q = ring.modulus
    rnd = random.Random(n + count + bits)
    x = big_poly(rnd, n, Q)
    x[0], x[-1] = Q - 1, -1
    res = ring.to_residues(x)
    assert isinstance(res, np.ndarray)
    assert res.dtype == np.uint64
    assert res.shape == (count, n)
    for i, q in enumerate(mods):
        assert [int(v) for v in res[i]] == [v % q for v in x], f"row {i} (q={q})"
    back = ring.from_residues(res)
    check_int_list(back, n, Q)
    assert back == [v % Q for v in x]

    # CRT from independently drawn residues: v = r_i mod q_i for every i.
    r = np.array([[rnd.randrange(q) for _ in range(n)] for q in mods], dtype=np.uint64)
    r[:, 0] = 0
    r[:, -1] = [q - 1 for q in mods]
    v = ring.from_residues(r)
    check_int_list(v, n, Q)
    assert v[0] == 0 and v[-1] == Q - 1
    for i, q in enumerate(mods):
        assert [x % q for x in v] == [int(t) for t in r[i]]


def test_moduli_order_is_preserved():
    """Rows of to_residues follow the order of the moduli as given (here: not sorted)."""
    n = 16
    mods = [latpoly.ntt_primes(30, n, 1)[0], latpoly.ntt_primes(62, n, 1)[0],
            latpoly.ntt_primes(14, n, 1)[0], latpoly.ntt_primes(50, n, 2)[1]]
    ring = latpoly.RnsRing(n, mods)
    assert ring.moduli == mods
    assert ring.modulus == math.prod(mods)
    x = [(-1) ** i * (i << 70) + i for i in range(n)]
    res = ring.to_residues(x)
    for i, q in enumerate(mods):
        assert [int(v) for v in res[i]] == [v % q for v in x]
    assert ring.from_residues(res) == [v % ring.modulus for v in x]


def test_from_residues_coerces_layouts():
    ring, mods = make_ring(8, 3, 30)
    x = list(range(-4, 4))
    res = ring.to_residues(x)
    expected = [v % ring.modulus for v in x]
    for variant in (res, res.tolist(), np.asfortranarray(res), res.astype(np.int64),
                    np.repeat(res, 2, axis=1)[:, ::2], res.astype(">u8"), res.astype(object)):
        assert ring.from_residues(variant) == expected


def test_crt_roundtrip_100_primes_62_bits(ref):
    n = 1024
    mods = latpoly.ntt_primes(62, n, 100)
    assert len(mods) == 100 and len(set(mods)) == 100
    assert all(ref.is_prime(q) and q.bit_length() == 62 and q % (2 * n) == 1 for q in mods)
    ring = latpoly.RnsRing(n, mods)
    Q = math.prod(mods)
    assert ring.modulus == Q and ring.moduli == mods and ring.n == n
    rnd = random.Random(100)
    x = [rnd.randrange(Q) for _ in range(n)]
    x[0], x[1], x[2], x[3], x[-1] = 0, Q - 1, 1, Q - 2, (Q - 1) // 2
    res = ring.to_residues(x)
    assert res.shape == (100, n) and res.dtype == np.uint64
    for i in rnd.sample(range(100), 10) + [0, 99]:
        assert [int(v) for v in res[i]] == [v % mods[i] for v in x]
    assert ring.from_residues(res) == x
    # CRT of residues drawn per prime
    r = np.array([[rnd.randrange(q) for _ in range(8)] + [0] * (n - 8) for q in mods],
                 dtype=np.uint64)
    v = ring.from_residues(r)
    check_int_list(v, n, Q)
    for i, q in enumerate(mods):
        assert [t % q for t in v[:8]] == [int(t) for t in r[i, :8]]
    assert v[8:] == [0] * (n - 8)
    # one product in the 6200-bit ring, against flint's fmpz_poly
    a = [rnd.randrange(Q) for _ in range(n)]
    b = big_poly(rnd, n, Q)
    assert ring.multiply(a, b) == ref.fmpz_mul(a, b, Q)


def test_properties_and_constructors():
    mods = latpoly.ntt_primes(40, 64, 3)
    ring = latpoly.RnsRing(64, mods)
    assert ring.n == 64 and type(ring.n) is int
    assert ring.moduli == mods and all(type(q) is int for q in ring.moduli)
    assert ring.modulus == mods[0] * mods[1] * mods[2] and type(ring.modulus) is int
    other = latpoly.RnsRing.with_prime_bits(64, 40, 3)
    assert other.moduli == mods and other.modulus == ring.modulus
    assert isinstance(other, latpoly.RnsRing)
    assert latpoly.RnsRing(64, tuple(mods)).moduli == mods
    assert latpoly.RnsRing(64, np.array(mods, dtype=np.uint64)).moduli == mods
    assert latpoly.RnsRing(np.int64(64), [np.uint64(q) for q in mods]).moduli == mods
    assert "64" in repr(ring)
    # mixed sizes incl. a 14-bit prime, single prime
    mixed = [latpoly.ntt_primes(b, 64, 1)[0] for b in (62, 14, 31)]
    assert latpoly.RnsRing(64, mixed).modulus == math.prod(mixed)
    one = latpoly.RnsRing(64, [12289])
    assert one.modulus == 12289 and one.moduli == [12289]


@HYP
@given(
    logn=st.integers(1, 6),
    count=st.integers(1, 4),
    bits=st.sampled_from([14, 20, 30, 31, 50, 61, 62]),
    data=st.data(),
)
def test_hyp_multiply_and_crt(ref, logn, count, bits, data):
    n = 1 << logn
    try:
        mods = latpoly.ntt_primes(bits, n, count)
    except ValueError:
        mods = None
    assume(mods is not None)
    ring = latpoly.RnsRing(n, mods)
    Q = ring.modulus
    coeff = st.integers() | st.integers(-(Q << 64), Q << 64) | st.sampled_from(edge_values(Q))
    a = data.draw(st.lists(coeff, min_size=n, max_size=n))
    b = data.draw(st.lists(coeff, min_size=n, max_size=n))
    assert ring.multiply(a, b) == ref.schoolbook(a, b, Q)
    res = ring.to_residues(a)
    for i, q in enumerate(mods):
        assert [int(v) for v in res[i]] == [v % q for v in a]
    assert ring.from_residues(res) == [v % Q for v in a]


# ---------------------------------------------------------------------------------------------
# Bad input -> ValueError
# ---------------------------------------------------------------------------------------------

P8 = latpoly.ntt_primes(30, 8, 3)


def _big_prime_1_mod_16():
    import flint

    c = (1 << 62) + 1
    while not (c % 16 == 1 and flint.fmpz(c).is_prime()):
        c += 16
    return c


BAD_RINGS = [
    ("empty-list", 8, []),
    ("empty-tuple", 8, ()),
    ("empty-array", 8, np.zeros(0, dtype=np.uint64)),
    ("duplicate", 8, [P8[0], P8[0]]),
    ("duplicate-later", 8, [P8[0], P8[1], P8[2], P8[1]]),
    ("not-1-mod-2n", 8, [19]),
    ("1-mod-n-only", 8, [41]),  # 41 = 1 mod 8 but 9 mod 16
    ("one-bad-among-good", 8, [P8[0], 19, P8[1]]),
    ("ntt-for-smaller-n", 4096, [12289]),
    ("composite", 8, [17 * 97]),
    ("composite-1-mod-2n", 8, [97 * 193]),
    ("even", 8, [2]),
    ("one", 8, [1]),
    ("zero", 8, [0]),
    ("negative", 8, [-P8[0]]),
    ("too-big", 8, [_big_prime_1_mod_16()]),
    ("2^64", 8, [1 << 64]),
    ("float", 8, [float(P8[0])]),
    ("float-array", 8, np.array(P8, dtype=float)),
    ("str-list", 8, [str(P8[0])]),
    ("str", 8, "12289"),
    ("bytes", 8, b"\x11"),
    ("bool", 8, [True]),
    ("None", 8, None),
    ("int", 8, 17),
    ("fraction", 8, [Fraction(17)]),
    ("2d-array", 8, np.array([P8], dtype=np.uint64)),
    ("n=0", 0, P8),
    ("n=1", 1, [3]),
    ("n=3", 3, P8),
    ("n=2^18", 1 << 18, latpoly.ntt_primes(62, 1 << 18, 1)),
    ("n<0", -8, P8),
    ("n-float", 8.0, P8),
]


@pytest.mark.parametrize("label,n,mods", BAD_RINGS, ids=[c[0] for c in BAD_RINGS])
def test_rnsring_rejects(label, n, mods):
    with pytest.raises(ValueError):
        latpoly.RnsRing(n, mods)


@pytest.mark.parametrize("args", [(8, 63, 1), (8, 1, 1), (3, 30, 1), (1024, 14, 2), (8, 14, 1000), (0, 30, 1),
                                  (8, 30, -1), (8.0, 30, 1)])
def test_with_prime_bits_rejects(args):
    with pytest.raises(ValueError):
        latpoly.RnsRing.with_prime_bits(*args)


BAD_POLYS = [
    ("short", [0] * 7),
    ("long", [0] * 9),
    ("empty", []),
    ("str", "abcdefgh"),
    ("bytes", b"abcdefgh"),
    ("str-entries", ["1"] * 8),
    ("float-entries", [1.0] * 8),
    ("one-float", [0] * 7 + [0.5]),
    ("bool-entries", [True] * 8),
    ("none-entries", [None] * 8),
    ("fraction-entries", [Fraction(1)] * 8),
    ("nested", [[0]] * 8),
    ("None", None),
    ("int", 8),
    ("float-array", np.zeros(8)),
    ("bool-array", np.zeros(8, dtype=bool)),
    ("2d-array", np.zeros((1, 8), dtype=np.int64)),
    ("2d-array-2x4", np.zeros((2, 4), dtype=np.int64)),
    ("short-array", np.zeros(7, dtype=np.uint64)),
    ("object-float-array", np.array([1.5] * 8, dtype=object)),
]


@pytest.mark.parametrize("label,bad", BAD_POLYS, ids=[c[0] for c in BAD_POLYS])
@pytest.mark.parametrize("method", ["multiply_a", "multiply_b", "to_residues"])
def test_ring_methods_reject(method, label, bad):
    ring = latpoly.RnsRing(8, P8)
    ok = list(range(8))
    with pytest.raises(ValueError):
        if method == "multiply_a":
            ring.multiply(bad, ok)
        elif method == "multiply_b":
            ring.multiply(ok, bad)
        else:
            ring.to_residues(bad)


def _bad_residues():
    ring = latpoly.RnsRing(8, P8)
    good = ring.to_residues(list(range(8)))
    out = [
        ("1d", good.ravel()),
        ("1d-row", good[0]),
        ("3d", good[None]),
        ("0d", np.uint64(1)),
        ("scalar", 5),
        ("None", None),
        ("str", "abc"),
        ("transposed", good.T),
        ("too-few-rows", good[:2]),
        ("too-many-rows", np.vstack([good, good[:1]])),
        ("short-rows", good[:, :7]),
        ("long-rows", np.hstack([good, good[:, :1]])),
        ("empty", np.zeros((0, 8), dtype=np.uint64)),
        ("float", good.astype(float)),
        ("float32", good.astype(np.float32)),
        ("bool", np.ones((3, 8), dtype=bool)),
        ("complex", good.astype(complex)),
        ("negative", -good.astype(np.int64) - 1),
        ("object-2^64", np.full((3, 8), 1 << 64, dtype=object)),
        ("object-float", np.full((3, 8), 1.0, dtype=object)),
        ("u64-max", np.full((3, 8), (1 << 64) - 1, dtype=np.uint64)),
        ("ragged", [[1] * 8, [1] * 7, [1] * 8]),
    ]
    for i, q in enumerate(P8):
        for val, tag in ((q, "=q"), (q + 1, "=q+1"), (P8[0] + P8[1], "huge")):
            bad = good.copy()
            bad[i, (3 * i + 1) % 8] = val
            out.append((f"row{i}{tag}", bad))
    # a residue that is valid for a *bigger* q_j but not for its own row
    sorted_mods = sorted(P8)
    small_row = P8.index(sorted_mods[0])
    bad = good.copy()
    bad[small_row, 0] = sorted_mods[-1] - 1
    out.append(("valid-elsewhere", bad))
    return out


BAD_RESIDUES = _bad_residues()


@pytest.mark.parametrize("label,bad", BAD_RESIDUES, ids=[c[0] for c in BAD_RESIDUES])
def test_from_residues_rejects(label, bad):
    ring = latpoly.RnsRing(8, P8)
    with pytest.raises(ValueError):
        ring.from_residues(bad)


def test_from_residues_accepts_max_residue_per_row():
    ring = latpoly.RnsRing(8, P8)
    r = np.array([[q - 1] * 8 for q in P8], dtype=np.uint64)
    assert ring.from_residues(r) == [ring.modulus - 1] * 8
