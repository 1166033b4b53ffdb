"""latpoly.NttPlan: differential tests against python-flint and plain Python, transform
identities, Hypothesis properties, input coercion and input validation."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import latpoly

NS = [1 << k for k in range(1, 13)]  # 2 .. 4096
EDGE_BITS = [62, 50, 30, 14]
ISAS = ["scalar", "avx2", "avx512", "avx512ifma"]
GRID = [(n, bits) for n in NS for bits in EDGE_BITS]
HYP = settings(deadline=None, max_examples=50, database=None)
SCHOOLBOOK_MAX_N = 64


def plan_or_skip(ref, n, bits):
    q = ref.largest_ntt_prime(bits, n)
    if q is None:
        assert (n, bits) == (4096, 14), f"no {bits}-bit prime for n={n}?"
        with pytest.raises(ValueError):
            latpoly.ntt_primes(bits, n, 1)
        pytest.skip("no 14-bit prime = 1 mod 8192 (ValueError checked)")
    assert ref.is_prime(q), f"flint: {q} is composite"
    plan = latpoly.NttPlan(n, q)
    assert plan.n == n and plan.q == q
    return plan, q


def as_ints(arr):
    return [int(v) for v in arr]


def check_out(arr, n, q):
    assert isinstance(arr, np.ndarray)
    assert arr.dtype == np.uint64
    assert arr.shape == (n,)
    assert int(arr.max(initial=0)) < q


def rand_poly(rng, n, q):
    return rng.integers(0, q, size=n, dtype=np.uint64)


def seed_of(*xs):
    """Deterministic across runs (unlike hash() of strings)."""
    return zlib.crc32(repr(xs).encode())


# ---------------------------------------------------------------------------------------------
# The references themselves (a broken oracle must not hide a bug)
# ---------------------------------------------------------------------------------------------


def test_reference_multipliers_agree(ref):
    rnd = random.Random(1234)
    for n in (1, 2, 4, 8, 16, 32):
        for q in (17, 12289, (1 << 61) - 1):
            a = [rnd.randrange(q) for _ in range(n)]
            b = [rnd.randrange(q) for _ in range(n)]
            s = ref.schoolbook(a, b, q)
            assert ref.flint_mul(a, b, q) == s
            assert ref.fmpz_mul(a, b, q) == s
    for n in (2, 8):  # x^(n-1) * x = x^n = -1: the negacyclic sign, by hand
        a, x = [0] * n, [0] * n
        a[n - 1], x[1] = 1, 1
        expected = [16] + [0] * (n - 1)
        assert ref.schoolbook(a, x, 17) == ref.flint_mul(a, x, 17) == expected


def test_reference_brv_and_horner(ref):
    assert [ref.brv(i, 3) for i in range(8)] == [0, 4, 2, 6, 1, 5, 3, 7]
    assert ref.brv(1, 12) == 2048
    assert ref.horner([1, 2, 3], 2, 1000) == 17
    assert ref.horner([5], 7, 3) == 2


# ---------------------------------------------------------------------------------------------
# 1. multiply vs independent implementations on the whole (n, lane-edge prime) grid
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("isa_cap", [None, "scalar", "avx2", "avx512"])
@pytest.mark.parametrize("n,bits", GRID)
def test_multiply_differential(ref, monkeypatch, n, bits, isa_cap):
    """NttPlan.multiply == flint.nmod_poly product folded mod x^n+1 (and schoolbook, small n).

    LATPOLY_ISA caps the backend picked at plan construction, so each SIMD backend the CPU and
    the build support is exercised; the reported isa must respect the cap.
    """
    if isa_cap is None:
        monkeypatch.delenv("LATPOLY_ISA", raising=False)
    else:
        monkeypatch.setenv("LATPOLY_ISA", isa_cap)
    plan, q = plan_or_skip(ref, n, bits)
    assert plan.isa in ISAS
    if isa_cap is not None:
        assert ISAS.index(plan.isa) <= ISAS.index(isa_cap)

    rng = np.random.default_rng(seed_of(n, bits, "mul"))
    zeros = np.zeros(n, dtype=np.uint64)
    top = np.full(n, q - 1, dtype=np.uint64)
    r1, r2 = rand_poly(rng, n, q), rand_poly(rng, n, q)
    cases = [(r1, r2), (zeros, r1), (r2, zeros), (zeros, zeros), (top, top), (top, r1), (r2, top)]
    for a, b in cases:
        got = plan.multiply(a, b)
        check_out(got, n, q)
        expected = ref.flint_mul(a, b, q)
        assert as_ints(got) == expected
        if n <= SCHOOLBOOK_MAX_N:
            assert ref.schoolbook(a, b, q) == expected

    # all (q-1) squared, in closed form: c_k = (k+1) - (n-1-k) = 2k + 2 - n (mod q)
    got = plan.multiply(top, top)
    assert as_ints(got) == [(2 * k + 2 - n) % q for k in range(n)]


@pytest.mark.parametrize("bits", [62, 50, 30])
def test_multiply_max_degree(ref, bits):
    """n = 2^17, the largest supported size."""
    n = 1 << 17
    q = latpoly.ntt_primes(bits, n, 1)[0]
    plan = latpoly.NttPlan(n, q)
    rng = np.random.default_rng(bits)
    a, b = rand_poly(rng, n, q), rand_poly(rng, n, q)
    got = plan.multiply(a, b)
    check_out(got, n, q)
    assert as_ints(got) == ref.flint_mul(a, b, q)
    assert np.array_equal(plan.inverse(plan.forward(a)), a)


@pytest.mark.parametrize("n,bits", [(8, 62), (64, 14), (1024, 50), (4096, 30)])
def test_multiply_monomials(ref, n, bits):
    """x^i * x^j = x^(i+j) if i+j < n else -x^(i+j-n)."""
    plan, q = plan_or_skip(ref, n, bits)
    rnd = random.Random(n * bits)
    pairs = [(0, 0), (0, n - 1), (n - 1, 1), (n - 1, n - 1), (1, n - 2)]
    pairs += [(rnd.randrange(n), rnd.randrange(n)) for _ in range(10)]
    for i, j in pairs:
        a = np.zeros(n, dtype=np.uint64)
        b = np.zeros(n, dtype=np.uint64)
        a[i] = 1
        b[j] = 1
        c = plan.multiply(a, b)
        expected = np.zeros(n, dtype=np.uint64)
        k = i + j
        expected[k % n] = 1 if k < n else q - 1
        assert np.array_equal(c, expected), (i, j)


# ---------------------------------------------------------------------------------------------
# 2. forward / inverse / pointwise identities
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,bits", GRID)
def test_forward_is_bit_reversed_evaluation(ref, n, bits):
    plan, q = plan_or_skip(ref, n, bits)
    psi = plan.psi
    assert type(psi) is int and 0 < psi < q
    assert pow(psi, n, q) == q - 1, "psi is not a primitive 2n-th root of unity"
    logn = n.bit_length() - 1
    rng = np.random.default_rng(seed_of(n, bits, "fwd"))
    rnd = random.Random(seed_of(n, bits, "idx"))
    delta = np.zeros(n, dtype=np.uint64)
    delta[0] = 1
    xlast = np.zeros(n, dtype=np.uint64)
    xlast[n - 1] = 1
    inputs = [rand_poly(rng, n, q), np.full(n, q - 1, dtype=np.uint64), delta, xlast,
              np.zeros(n, dtype=np.uint64)]
    for a in inputs:
        a_before = a.copy()
        f = plan.forward(a)
        assert np.array_equal(a, a_before), "forward mutated its input"
        check_out(f, n, q)
        idx = range(n) if n <= 64 else sorted(rnd.sample(range(n), 24) + [0, n - 1])
        for i in idx:
            x = pow(psi, 2 * ref.brv(i, logn) + 1, q)
            assert int(f[i]) == ref.horner(a, x, q), f"index {i}"
        back = plan.inverse(f)
        check_out(back, n, q)
        assert np.array_equal(back, a)
    # The transform of 1 is all ones, of 0 all zeros.
    assert np.array_equal(plan.forward(delta), np.ones(n, dtype=np.uint64))
    assert not plan.forward(np.zeros(n, dtype=np.uint64)).any()


@pytest.mark.parametrize("n,bits", GRID)
def test_inverse_forward_pointwise(ref, n, bits):
    plan, q = plan_or_skip(ref, n, bits)
    rng = np.random.default_rng(seed_of(n, bits, "inv"))
    b = rand_poly(rng, n, q)
    b[0] = q - 1
    b_before = b.copy()
    ib = plan.inverse(b)
    assert np.array_equal(b, b_before), "inverse mutated its input"
    check_out(ib, n, q)
    assert np.array_equal(plan.forward(ib), b)
    # inverse accepts lazily reduced input in [0, 2q): adding q anywhere changes nothing.
    mask = rng.integers(0, 2, size=n).astype(bool)
    lazy = b.copy()
    lazy[mask] += np.uint64(q)
    lazy[-1] = b[-1] + np.uint64(q)
    assert int(lazy.max()) < 2 * q
    assert np.array_equal(plan.inverse(lazy), ib)
    # 2q - 1 is the largest accepted inverse input
    edge = np.full(n, 2 * q - 1, dtype=np.uint64)
    assert np.array_equal(plan.inverse(edge), plan.inverse(np.full(n, q - 1, dtype=np.uint64)))

    # pointwise == elementwise a*b mod q (Python ints)
    a, c = rand_poly(rng, n, q), rand_poly(rng, n, q)
    a[0], c[0] = q - 1, q - 1
    pw = plan.pointwise(a, c)
    check_out(pw, n, q)
    assert as_ints(pw) == [(int(x) * int(y)) % q for x, y in zip(a, c)]
    # convolution theorem: multiply == inverse(forward(a) . forward(b))
    assert np.array_equal(plan.inverse(plan.pointwise(plan.forward(a), plan.forward(c))),
                          plan.multiply(a, c))


def test_psi_matches_primitive_root_definition(ref):
    for n in NS:
        for bits in EDGE_BITS:
            q = ref.largest_ntt_prime(bits, n)
            if q is None:
                continue
            psi = latpoly.NttPlan(n, q).psi
            assert pow(psi, n, q) == q - 1
            assert pow(psi, 2 * n, q) == 1


def test_plan_properties_and_repr():
    plan = latpoly.NttPlan(8, 17)
    assert (plan.n, plan.q) == (8, 17)
    assert type(plan.n) is int and type(plan.q) is int
    assert plan.isa in ISAS
    r = repr(plan)
    assert "8" in r and "17" in r
    # Documented example
    a = np.arange(8, dtype=np.uint64)
    assert np.array_equal(plan.inverse(plan.forward(a)), a)
    q = latpoly.ntt_primes(50, 1024, 1)[0]
    p2 = latpoly.NttPlan(1024, q)
    x = np.zeros(1024, dtype=np.uint64)
    x[1] = 1
    assert int(p2.multiply(x, x)[2]) == 1


def test_scalar_cap_is_honoured(monkeypatch):
    monkeypatch.setenv("LATPOLY_ISA", "scalar")
    q = latpoly.ntt_primes(50, 1024, 1)[0]
    assert latpoly.NttPlan(1024, q).isa == "scalar"


# ---------------------------------------------------------------------------------------------
# 3. Hypothesis properties
# ---------------------------------------------------------------------------------------------

EDGE_BIT_CHOICES = [14, 15, 16, 17, 20, 29, 30, 31, 32, 33, 48, 49, 50, 51, 52, 60, 61, 62]


@st.composite
def plan_and_polys(draw, count=2):
    logn = draw(st.integers(1, 12))
    n = 1 << logn
    bits = draw(st.sampled_from(EDGE_BIT_CHOICES) | st.integers(2, 62))
    k = draw(st.integers(0, 2))
    try:
        ps = latpoly.ntt_primes(bits, n, k + 1)
    except ValueError:
        ps = None
    assume(ps is not None)
    q = ps[k]
    edges = [0, 1, 2, q - 1, q - 2, q // 2, (q + 1) // 2]
    polys = []
    for _ in range(count):
        if n <= 16:
            coeff = st.sampled_from(edges) | st.integers(0, q - 1)
            polys.append(np.array(draw(st.lists(coeff, min_size=n, max_size=n)), dtype=np.uint64))
            continue
        mode = draw(st.sampled_from(["random", "zeros", "max", "edges", "sparse", "small"]))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        if mode == "random":
            a = rng.integers(0, q, size=n, dtype=np.uint64)
        elif mode == "zeros":
            a = np.zeros(n, dtype=np.uint64)
        elif mode == "max":
            a = np.full(n, q - 1, dtype=np.uint64)
        elif mode == "edges":
            a = np.array(edges, dtype=np.uint64)[rng.integers(0, len(edges), size=n)]
        elif mode == "sparse":
            a = np.zeros(n, dtype=np.uint64)
            pos = rng.integers(0, n, size=3)
            a[pos] = rng.integers(0, q, size=3, dtype=np.uint64)
        else:
            a = rng.integers(0, min(q, 4), size=n, dtype=np.uint64)
        polys.append(a)
    return latpoly.NttPlan(n, q), polys


@HYP
@given(plan_and_polys())
def test_hyp_multiply_matches_flint(ref, case):
    plan, (a, b) = case
    got = plan.multiply(a, b)
    check_out(got, plan.n, plan.q)
    assert as_ints(got) == ref.flint_mul(a, b, plan.q)
    assert np.array_equal(plan.multiply(b, a), got)


@HYP
@given(plan_and_polys())
def test_hyp_roundtrips(ref, case):
    plan, (a, b) = case
    fa = plan.forward(a)
    check_out(fa, plan.n, plan.q)
    assert np.array_equal(plan.inverse(fa), a)
    ib = plan.inverse(b)
    check_out(ib, plan.n, plan.q)
    assert np.array_equal(plan.forward(ib), b)


@HYP
@given(plan_and_polys(count=3))
def test_hyp_linearity_and_convolution(ref, case):
    plan, (a, b, c) = case
    q = plan.q
    qq = np.uint64(q)
    s = (a + b) % qq  # no overflow: q < 2^62
    assert np.array_equal(plan.forward(s), (plan.forward(a) + plan.forward(b)) % qq)
    # a*(b+c) = a*b + a*c
    bc = (b + c) % qq
    assert np.array_equal(plan.multiply(a, bc), (plan.multiply(a, b) + plan.multiply(a, c)) % qq)
    assert np.array_equal(plan.inverse(plan.pointwise(plan.forward(a), plan.forward(b))),
                          plan.multiply(a, b))


@HYP
@given(plan_and_polys(count=1), st.data())
def test_hyp_forward_point_evaluation(ref, case, data):
    plan, (a,) = case
    n, q, psi = plan.n, plan.q, plan.psi
    assert pow(psi, n, q) == q - 1
    f = plan.forward(a)
    i = data.draw(st.integers(0, n - 1))
    logn = n.bit_length() - 1
    assert int(f[i]) == ref.horner(a, pow(psi, 2 * ref.brv(i, logn) + 1, q), q)


# ---------------------------------------------------------------------------------------------
# 7. Input coercion: other integer dtypes and Python sequences
# ---------------------------------------------------------------------------------------------


def _coercions(a):
    vals = [int(v) for v in a]
    yield "list", vals
    yield "tuple", tuple(vals)
    yield "list-np-ints", [np.uint64(v) for v in vals]
    yield "object-array", np.array(vals, dtype=object)
    yield "int64", np.array(vals, dtype=np.int64)
    yield "big-endian-u64", np.array(vals, dtype=">u8")
    strided = np.zeros(2 * len(vals), dtype=np.uint64)
    strided[::2] = vals
    yield "strided-view", strided[::2]
    ro = np.array(vals, dtype=np.uint64)
    ro.setflags(write=False)
    yield "read-only", ro
    if max(vals) < 1 << 32:
        yield "uint32", np.array(vals, dtype=np.uint32)
        yield "int32", np.array(vals, dtype=np.int32)
    if max(vals) < 1 << 16:
        yield "uint16", np.array(vals, dtype=np.uint16)
    if max(vals) < 1 << 8:
        yield "uint8", np.array(vals, dtype=np.uint8)


@pytest.mark.parametrize("n,bits", [(8, 62), (16, 14), (256, 30), (1024, 62)])
def test_coercion_of_inputs(ref, n, bits):
    plan, q = plan_or_skip(ref, n, bits)
    rng = np.random.default_rng(n + bits)
    hi = min(q, 1 << 31) if bits <= 30 else q
    a = rng.integers(0, hi, size=n, dtype=np.uint64)
    b = rng.integers(0, hi, size=n, dtype=np.uint64)
    small = rng.integers(0, min(q, 256), size=n, dtype=np.uint64)
    exp_mul = plan.multiply(a, b)
    assert as_ints(exp_mul) == ref.flint_mul(a, b, q)
    for base in (a, small):
        exp_f, exp_i = plan.forward(base), plan.inverse(base)
        exp_pw, exp_m = plan.pointwise(base, b), plan.multiply(base, b)
        for label, conv in _coercions(base):
            for name, got, exp in [
                ("forward", plan.forward(conv), exp_f),
                ("inverse", plan.inverse(conv), exp_i),
                ("pointwise", plan.pointwise(conv, b), exp_pw),
                ("multiply-a", plan.multiply(conv, b), exp_m),
                ("multiply-b", plan.multiply(b, conv), plan.multiply(b, base)),
            ]:
                assert isinstance(got, np.ndarray), (label, name)
                assert got.dtype == np.uint64 and got.shape == (n,), (label, name)
                assert np.array_equal(got, exp), (label, name)


def test_int64_and_uint32_documented_coercion():
    q = latpoly.ntt_primes(30, 8, 1)[0]
    plan = latpoly.NttPlan(8, q)
    a64 = np.arange(1, 9, dtype=np.int64)
    a32 = np.arange(1, 9, dtype=np.uint32)
    out64, out32, outl = plan.forward(a64), plan.forward(a32), plan.forward(list(range(1, 9)))
    for out in (out64, out32, outl):
        assert type(out) is np.ndarray and out.dtype == np.uint64 and out.shape == (8,)
    assert np.array_equal(out64, out32) and np.array_equal(out32, outl)
    assert np.array_equal(plan.inverse(out64), np.arange(1, 9, dtype=np.uint64))


# ---------------------------------------------------------------------------------------------
# 5. Bad input -> ValueError
# ---------------------------------------------------------------------------------------------


def _prime_above_2_62():
    import flint

    c = (1 << 62) + 1
    while not (c % 16 == 1 and flint.fmpz(c).is_prime()):
        c += 16
    return c


BAD_PLANS = [
    (0, 17), (1, 17), (1, 3), (3, 17), (6, 17), (12, 97), (1000, 12289), (1 << 18, 786433),
    (1 << 18, latpoly.ntt_primes(62, 1 << 18, 1)[0]), (1 << 19, latpoly.ntt_primes(62, 1 << 19, 1)[0]),
    (1 << 18, 0), (1 << 20, 17), (-8, 17), (-1, 17),  # bad n
    (8, 16), (8, 2), (8, 0), (8, 1), (8, 18), (8, 1 << 62),  # even / too small q
    (8, 255), (8, 97 * 193), (8, 561), (8, 3215031751), (8, 12289 * 12289),  # composite q
    (8, 19), (8, 41), (1024, 7681), (4096, 12289), (2, 7), (8, (1 << 62) - 57),  # q != 1 mod 2n
    (8, _prime_above_2_62()), (8, (1 << 64) - 59), (8, 1 << 64), (8, (1 << 64) + 17),  # q >= 2^62
    (8, -17), (-8, -17),  # negative
    (8.0, 17), (8, 17.0), ("8", 17), (8, "17"), (None, 17), (8, None), (True, 17),
]


@pytest.mark.parametrize("n,q", BAD_PLANS)
def test_nttplan_rejects(n, q):
    with pytest.raises(ValueError):
        latpoly.NttPlan(n, q)


def test_nttplan_accepts_boundaries():
    latpoly.NttPlan(2, 5)
    latpoly.NttPlan(1 << 17, latpoly.ntt_primes(62, 1 << 17, 1)[0])
    latpoly.NttPlan(8, latpoly.ntt_primes(62, 8, 1)[0])  # largest 62-bit: just below 2^62
    latpoly.NttPlan(np.int64(8), np.uint64(17))


Q8 = 17
N8 = 8


def _bad_vectors(limit):
    """(label, value) pairs that must be rejected by a method whose inputs must be < limit."""
    z = [0] * N8
    return [
        ("short", np.zeros(N8 - 1, dtype=np.uint64)),
        ("long", np.zeros(N8 + 1, dtype=np.uint64)),
        ("empty", np.zeros(0, dtype=np.uint64)),
        ("empty-list", []),
        ("2d", np.zeros((2, N8 // 2), dtype=np.uint64)),
        ("2d-row", np.zeros((1, N8), dtype=np.uint64)),
        ("2d-list", [z]),
        ("0d", np.uint64(3)),
        ("scalar", 3),
        ("None", None),
        ("float", np.zeros(N8)),
        ("float32", np.ones(N8, dtype=np.float32)),
        ("float-list", [1.0] * N8),
        ("complex", np.zeros(N8, dtype=complex)),
        ("bool", np.zeros(N8, dtype=bool)),
        ("str", "abcdefgh"),
        ("str-list", ["1"] * N8),
        ("object-float", np.array([1.0] * N8, dtype=object)),
        ("object-none", np.array([None] * N8, dtype=object)),
        ("negative-int64", np.array([0] * (N8 - 1) + [-1], dtype=np.int64)),
        ("negative-list", [-1] + [0] * (N8 - 1)),
        ("huge-negative-list", [-(1 << 70)] + [0] * (N8 - 1)),
        ("2^64-list", [1 << 64] + [0] * (N8 - 1)),
        ("at-limit", np.array([0] * (N8 - 1) + [limit], dtype=np.uint64)),
        ("above-limit", np.array([limit + 1] + [0] * (N8 - 1), dtype=np.uint64)),
        ("u64-max", np.array([(1 << 64) - 1] * N8, dtype=np.uint64)),
        ("limit-int64", np.array([limit] * N8, dtype=np.int64)),
        ("ragged", [[1], [1, 2]]),
    ]


@pytest.mark.parametrize("label,bad", _bad_vectors(Q8), ids=lambda x: x if isinstance(x, str) else "")
@pytest.mark.parametrize("method", ["forward", "multiply_a", "multiply_b", "pointwise_a",
                                    "pointwise_b"])
def test_methods_reject_bad_vectors(method, label, bad):
    plan = latpoly.NttPlan(N8, Q8)
    ok = np.arange(N8, dtype=np.uint64)
    with pytest.raises(ValueError):
        if method == "forward":
            plan.forward(bad)
        elif method == "multiply_a":
            plan.multiply(bad, ok)
        elif method == "multiply_b":
            plan.multiply(ok, bad)
        elif method == "pointwise_a":
            plan.pointwise(bad, ok)
        else:
            plan.pointwise(ok, bad)


@pytest.mark.parametrize("label,bad", _bad_vectors(2 * Q8),
                         ids=lambda x: x if isinstance(x, str) else "")
def test_inverse_rejects_bad_vectors(label, bad):
    plan = latpoly.NttPlan(N8, Q8)
    with pytest.raises(ValueError):
        plan.inverse(bad)


def test_range_limits_are_exact():
    """forward/multiply: q-1 accepted, q rejected; inverse: 2q-1 accepted, 2q rejected."""
    q = latpoly.ntt_primes(62, 16, 1)[0]
    plan = latpoly.NttPlan(16, q)
    ok = np.zeros(16, dtype=np.uint64)
    for pos in (0, 7, 15):
        a = ok.copy()
        a[pos] = q - 1
        plan.forward(a)
        plan.multiply(a, ok)
        plan.multiply(ok, a)
        a[pos] = q
        for f in (plan.forward, lambda v: plan.multiply(v, ok), lambda v: plan.multiply(ok, v)):
            with pytest.raises(ValueError):
                f(a)
        a[pos] = 2 * q - 1
        plan.inverse(a)
        a[pos] = 2 * q
        with pytest.raises(ValueError):
            plan.inverse(a)


def test_multiply_mismatched_lengths():
    plan = latpoly.NttPlan(N8, Q8)
    for m in (plan.multiply, plan.pointwise):
        with pytest.raises(ValueError):
            m(np.zeros(4, dtype=np.uint64), np.zeros(4, dtype=np.uint64))
        with pytest.raises(ValueError):
            m(np.zeros(8, dtype=np.uint64), np.zeros(16, dtype=np.uint64))


# ---------------------------------------------------------------------------------------------
# Forcing a backend from Python
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [62, 50, 30])
def test_every_available_backend_matches_schoolbook(ref, bits):
    n = 256
    q = latpoly.ntt_primes(bits, n, 1)[0]
    isas = latpoly.NttPlan.available_isas(n, q)
    assert isas[-1] == "scalar"
    rng = np.random.default_rng(bits)
    a = rng.integers(0, q, n, dtype=np.uint64)
    b = rng.integers(0, q, n, dtype=np.uint64)
    want = ref.schoolbook([int(x) for x in a], [int(x) for x in b], q)
    for isa in isas:
        plan = latpoly.NttPlan(n, q, isa=isa)
        assert plan.isa == isa
        assert [int(x) for x in plan.multiply(a, b)] == want, isa
    print(f"q<2^{bits}: ran backends {isas}")


@pytest.mark.parametrize("isa", ["neon", "", 3])
def test_unknown_isa_rejected(isa):
    with pytest.raises(ValueError):
        latpoly.NttPlan(256, 12289, isa=isa)


def test_unavailable_isa_rejected():
    # IFMA never applies to q >= 2^50; no SIMD backend runs n = 2.
    q = latpoly.ntt_primes(60, 256, 1)[0]
    with pytest.raises(ValueError):
        latpoly.NttPlan(256, q, isa="avx512ifma")
    with pytest.raises(ValueError):
        latpoly.NttPlan(2, 17, isa="avx2")


def test_plan_equality_and_hash():
    from latpoly import NttPlan

    a, b = NttPlan(16, 97), NttPlan(16, 97, isa="scalar")
    assert a == b and hash(a) == hash(b)
    assert a != NttPlan(16, 193) and a != "plan"
    assert len({a, b, NttPlan(16, 193)}) == 2


@pytest.mark.parametrize("n,bits", [(8, 5), (1024, 62), (8192, 60), (2048, 50)])
def test_multiply_into_out(ref, n, bits):
    """multiply(a, b, out=...) writes the flint product into `out` and returns it; bad `out`
    arrays raise ValueError and leave `out` unwritten; an input coefficient >= q raises
    ValueError and leaves `out` zero (the transforms check the inputs as they read them)."""
    plan, q = plan_or_skip(ref, n, bits)
    rng = np.random.default_rng(seed_of(n, bits, "into"))
    a, b = rand_poly(rng, n, q), rand_poly(rng, n, q)
    out = np.full(n, 7, dtype=np.uint64)
    got = plan.multiply(a, b, out=out)
    assert got is out
    assert as_ints(out) == ref.flint_mul(a, b, q)
    # Python ints / lists as inputs are coerced; out must be an exact uint64 array.
    assert as_ints(plan.multiply(list(map(int, a)), b, out=out)) == ref.flint_mul(a, b, q)
    sentinel = np.full(n, 5, dtype=np.uint64)
    bad_outs = [
        np.zeros(n, dtype=np.int64),  # wrong dtype
        np.zeros(n + 1, dtype=np.uint64),  # wrong length
        np.zeros((2, n), dtype=np.uint64),  # not 1-D
        np.zeros(2 * n, dtype=np.uint64)[::2],  # not contiguous
        [0] * n,  # not an array
    ]
    for bad in bad_outs:
        with pytest.raises(ValueError):
            plan.multiply(a, b, out=bad)
    frozen = np.zeros(n, dtype=np.uint64)
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        plan.multiply(a, b, out=frozen)
    for shared in (a, b):
        with pytest.raises(ValueError, match="share memory"):
            plan.multiply(a, b, out=shared)
    high = a.copy()
    high[-1] = q
    for x, y in ((high, b), (a, high)):
        sentinel = np.full(n, 5, dtype=np.uint64)
        with pytest.raises(ValueError, match="out of range"):
            plan.multiply(x, y, out=sentinel)
        assert (sentinel == 0).all()
