"""RnsPoly objects, automorphisms, rescaling, base extension, serialization, batches and
samplers from Python, against plain big-integer references."""

import random

import numpy as np
import pytest

import latpoly
from latpoly import BaseExtender, RnsPoly, RnsRing, Sampler


def ring(n, bits, count):
    return RnsRing(n, latpoly.ntt_primes(bits, n, count))


def rand_ints(n, Q, seed):
    r = random.Random(seed)
    return [r.randrange(Q) for _ in range(n)]


def automorphism_ref(a, k, Q):
    n = len(a)
    out = [0] * n
    for i, c in enumerate(a):
        m = (i * k) % (2 * n)
        if m < n:
            out[m] = (out[m] + c) % Q
        else:
            out[m - n] = (out[m - n] - c) % Q
    return out


def negacyclic(a, b, Q):
    n = len(a)
    out = [0] * n
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            if i + j < n:
                out[i + j] += x * y
            else:
                out[i + j - n] -= x * y
    return [v % Q for v in out]


@pytest.mark.parametrize("n,bits,count", [(4, 30, 1), (16, 50, 3), (64, 62, 2)])
def test_poly_arithmetic_and_representations(n, bits, count):
    R = ring(n, bits, count)
    Q = R.modulus
    a_int, b_int = rand_ints(n, Q, 1), rand_ints(n, Q, 2)
    a, b = R.poly(a_int), R.poly(b_int)
    assert not a.is_ntt and a.to_ntt().is_ntt
    assert a.residues.shape == (count, n) and a.residues.dtype == np.uint64
    assert (a + b).to_ints() == [(x + y) % Q for x, y in zip(a_int, b_int)]
    assert (a - b).to_ints() == [(x - y) % Q for x, y in zip(a_int, b_int)]
    assert (-a).to_ints() == [(-x) % Q for x in a_int]
    want = negacyclic(a_int, b_int, Q)
    assert (a * b).to_ints() == want
    prod_ntt = a.to_ntt() * b.to_ntt()
    assert prod_ntt.is_ntt and prod_ntt.to_ints() == want
    assert a.scalar_mul(-(2**100)).to_ints() == [(-(2**100) * x) % Q for x in a_int]
    c = a.to_centered_ints()
    assert all(-Q // 2 <= v <= Q // 2 and v % Q == x for v, x in zip(c, a_int))
    assert R.poly_from_residues(a.residues).to_ints() == a_int
    assert R.poly_from_residues(a.to_ntt().residues, ntt=True).to_ints() == a_int
    assert a.ring == R


@pytest.mark.parametrize("n", [2, 8, 128])
def test_automorphism_and_monomial(n):
    R = ring(n, 40, 2)
    Q = R.modulus
    a_int = rand_ints(n, Q, n)
    a = R.poly(a_int)
    for k in [1, 3, 5, 2 * n - 1, -1, 7 * n + 3]:
        want = automorphism_ref(a_int, k % (2 * n), Q)
        assert a.automorphism(k).to_ints() == want
        assert a.to_ntt().automorphism(k).to_ints() == want
    for j in [0, 1, n - 1, n, 3 * n + 1, -2]:
        mono = [0] * n
        jj = j % (2 * n)
        if jj < n:
            mono[jj] = 1
        else:
            mono[jj - n] = Q - 1
        want = negacyclic(a_int, mono, Q)
        assert a.mul_monomial(j).to_ints() == want
        assert a.to_ntt().mul_monomial(j).to_ints() == want
    with pytest.raises(ValueError):
        a.automorphism(2)
    with pytest.raises(ValueError):
        a.automorphism(1.5)


def test_rescale_and_drop():
    n = 32
    R = ring(n, 50, 3)
    Q = R.modulus
    ql = R.moduli[-1]
    small = R.drop_last()
    Qs = small.modulus
    a_int = rand_ints(n, Q, 9)
    for a in (R.poly(a_int), R.poly(a_int).to_ntt()):
        r = a.rescale()
        assert r.ring == small and r.is_ntt == a.is_ntt
        assert r.to_ints() == [((2 * x + ql) // (2 * ql)) % Qs for x in a_int]
        assert a.drop_last_modulus().to_ints() == [x % Qs for x in a_int]
    one = ring(8, 30, 1)
    with pytest.raises(ValueError):
        one.poly([0] * 8).rescale()
    with pytest.raises(ValueError):
        one.drop_last()


def test_base_extension():
    n = 16
    q, p = ring(n, 60, 3), ring(n, 45, 4)
    Q, P = q.modulus, p.modulus
    a_int = rand_ints(n, Q, 5)
    a_int[:3] = [0, Q - 1, (Q - 1) // 2]
    ext = BaseExtender(q, p)
    assert ext.isa in ("scalar", "avx2", "avx512")
    a = q.poly(a_int)
    assert ext.extend_exact(a).to_ints() == [x % P for x in a_int]
    centred = [x - Q if 2 * x > Q else x for x in a_int]
    assert ext.extend_exact(a, centered=True).to_ints() == [x % P for x in centred]
    fast = ext.extend_fast(a).to_ints()
    assert all(any((x + u * Q) % P == f for u in range(3)) for x, f in zip(a_int, fast))
    with pytest.raises(ValueError):
        ext.extend_exact(p.poly([0] * n))
    with pytest.raises(ValueError):
        BaseExtender(q, ring(32, 45, 2))
    with pytest.raises(ValueError):
        BaseExtender(q, "ring")


def test_base_extension_backends_agree(monkeypatch):
    """The conversion kernel capped at each level (LATPOLY_ISA is read when an extender is
    built) gives the same residues as the scalar one."""
    n = 64
    q, p = ring(n, 55, 4), ring(n, 61, 5)
    a = q.poly(rand_ints(n, q.modulus, 9))
    monkeypatch.setenv("LATPOLY_ISA", "scalar")
    ref = BaseExtender(q, p)
    assert ref.isa == "scalar"
    want = (ref.extend_exact(a).to_ints(), ref.extend_exact(a, centered=True).to_ints())
    for cap in ("avx2", "avx512"):
        monkeypatch.setenv("LATPOLY_ISA", cap)
        ext = BaseExtender(q, p)
        got = (ext.extend_exact(a).to_ints(), ext.extend_exact(a, centered=True).to_ints())
        assert got == want, ext.isa


def test_serialization_round_trip_and_errors():
    R = ring(64, 50, 3)
    a = R.poly(rand_ints(64, R.modulus, 3))
    for p in (a, a.to_ntt()):
        data = p.to_bytes()
        assert isinstance(data, bytes)
        b = RnsPoly.from_bytes(data)
        assert b.to_ints() == p.to_ints() and b.is_ntt == p.is_ntt
        assert R.poly_from_bytes(data).residues.tolist() == p.residues.tolist()
    data = a.to_bytes()
    for bad in (b"", data[:-1], data + b"\x00", b"XXXX" + data[4:], bytes(len(data))):
        with pytest.raises(ValueError):
            RnsPoly.from_bytes(bad)
    with pytest.raises(ValueError):
        ring(64, 40, 3).poly_from_bytes(data)
    with pytest.raises(ValueError):
        RnsPoly.from_bytes("not bytes")


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_transform_batch(threads):
    R = ring(512, 50, 4)
    polys = [R.poly(rand_ints(512, R.modulus, s)) for s in range(6)]
    out = latpoly.transform_batch(polys, ntt=True, threads=threads)
    assert all(p.is_ntt for p in out)
    assert [p.residues.tolist() for p in out] == [p.to_ntt().residues.tolist() for p in polys]
    back = latpoly.transform_batch(out, ntt=False, threads=threads)
    assert [p.to_ints() for p in back] == [p.to_ints() for p in polys]
    with pytest.raises(ValueError):
        latpoly.transform_batch(polys, ntt=True, threads=0)
    with pytest.raises(ValueError):
        latpoly.transform_batch([1, 2], ntt=True)


def test_bad_poly_inputs():
    R = ring(8, 40, 2)
    with pytest.raises(ValueError):
        R.poly([1] * 7)
    with pytest.raises(ValueError):
        R.poly(["x"] * 8)
    with pytest.raises(ValueError):
        R.poly_from_residues(np.zeros((3, 8), dtype=np.uint64))
    with pytest.raises(ValueError):
        R.poly_from_residues(np.full((2, 8), R.moduli[0], dtype=np.uint64))
    with pytest.raises(ValueError):
        R.poly([0] * 8) + ring(8, 41, 2).poly([0] * 8)
    with pytest.raises(ValueError):
        R.poly([0] * 8) + 3
    with pytest.raises(ValueError):
        RnsPoly()
    # byte strings and buffers are not coefficient lists (bytearray and memoryview were read
    # as their bytes)
    for raw in (b"\x01" * 8, bytearray(8), memoryview(bytes(8))):
        with pytest.raises(ValueError):
            R.poly(raw)
    with pytest.raises(ValueError):
        RnsRing(2, bytearray([5, 13]))


def test_flags_must_be_booleans():
    # bool("False") is True: a string, number or None given for a flag used to pick the other
    # representation or lift silently
    R = ring(8, 40, 2)
    res = np.zeros((2, 8), dtype=np.uint64)
    assert not R.poly_from_residues(res, ntt=np.bool_(False)).is_ntt
    assert R.poly_from_residues(res, ntt=True).is_ntt
    p = R.poly([-5] * 8)
    ext = BaseExtender(R, ring(8, 41, 2))
    for bad in ("False", 0, 1, None, [True]):
        with pytest.raises(ValueError):
            R.poly_from_residues(res, ntt=bad)
        with pytest.raises(ValueError):
            Sampler(seed=1).uniform_poly(R, ntt=bad)
        with pytest.raises(ValueError):
            ext.extend_exact(p, centered=bad)
        with pytest.raises(ValueError):
            latpoly.transform_batch([p], bad)


# ---------------------------------------------------------------------------------------------
# Samplers
# ---------------------------------------------------------------------------------------------


def test_sampler_determinism_and_ranges():
    for seed in (0, 7, b"\x01" * 32, 2**255):
        a, b = Sampler(seed=seed), Sampler(seed=seed)
        for f, args in [("uniform", (100, 12289)), ("bounded", (100, 5)), ("cbd", (100, 3)),
                        ("gaussian", (100, 3.19)), ("ternary", (100,)), ("ternary_fixed", (100, 30))]:
            x, y = getattr(a, f)(*args), getattr(b, f)(*args)
            assert x.dtype == np.int64 and len(x) == 100
            assert (x == y).all(), f
    s = Sampler()
    assert ((0 <= s.uniform(1000, 17)) & (s.uniform(1000, 17) < 17)).all()
    assert (np.abs(s.bounded(1000, 4)) <= 4).all()
    assert (np.abs(s.cbd(1000, 2)) <= 2).all()
    assert set(np.unique(s.ternary(1000))) <= {-1, 0, 1}
    t = s.ternary_fixed(1000, 64)
    assert int((t != 0).sum()) == 64 and set(np.unique(t)) <= {-1, 0, 1}
    g = s.gaussian(20000, 3.19)
    assert abs(g.mean()) < 0.2 and abs(g.std() - 3.19) < 0.15
    assert not (Sampler(seed=1).uniform(64, 2**62) == Sampler(seed=2).uniform(64, 2**62)).all()
    # sizes the allocator cannot hold are ValueErrors (ternary used to panic, poisoning the
    # sampler); integers of 2^64 and more are ValueErrors too (not OverflowError)
    t = Sampler(seed=9)
    for call in (lambda: t.ternary(2**61), lambda: t.uniform(2**64, 5), lambda: t.bounded(8, 2**64)):
        with pytest.raises(ValueError):
            call()
    assert len(t.ternary(8)) == 8  # still usable
    # the widest q the int64 results hold: every value in [0, 2^63)
    w = s.uniform(4000, 2**63)
    assert w.dtype == np.int64 and (w >= 0).all() and int(w.max()) > 2**62
    R = ring(16, 50, 3)
    p = Sampler(seed=3).uniform_poly(R)
    assert p.ring == R and not p.is_ntt and all(0 <= v < R.modulus for v in p.to_ints())
    assert Sampler(seed=3).uniform_poly(R, ntt=True).is_ntt


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.uniform(8, 0),
        lambda s: s.uniform(8, 2**63 + 1),  # int64 results (values above 2^63 came out negative)
        lambda s: s.uniform(8, 2**64 - 1),
        lambda s: s.cbd(8, 0),
        lambda s: s.cbd(8, 1000),
        lambda s: s.gaussian(8, 0.0),
        lambda s: s.gaussian(8, float("nan")),
        lambda s: s.gaussian(8, float("inf")),
        lambda s: s.gaussian(8, -1),
        lambda s: s.gaussian(8, "3"),
        lambda s: s.ternary_fixed(8, 9),
        lambda s: s.uniform(-1, 5),
        lambda s: s.bounded(8, -1),
        lambda s: s.uniform_poly("ring"),
        lambda s: s.cbd(4, 2**32),  # was OverflowError
        lambda s: s.cbd(4, 2**40),
    ],
)
def test_sampler_bad_input(call):
    with pytest.raises(ValueError):
        call(Sampler(seed=0))


@pytest.mark.parametrize("seed", [b"short", b"\x00" * 33, -1, 2**256, 1.5, "seed"])
def test_sampler_bad_seed(seed):
    with pytest.raises(ValueError):
        Sampler(seed=seed)
