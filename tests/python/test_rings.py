"""PQC ring arithmetic from Python against plain-Python schoolbook references."""

import numpy as np
import pytest

from latpoly import rings

Q = 3457


def trinomial_schoolbook(a, b, n):
    """a*b mod (x^n - x^(n/2) + 1, q): x^n = x^(n/2) - 1."""
    prod = [0] * (2 * n)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                prod[i + j] += int(x) * int(y)
    h = n // 2
    for k in range(2 * n - 1, n - 1, -1):
        c = prod[k]
        prod[k] = 0
        prod[k - n + h] += c
        prod[k - n] -= c
    return [v % Q for v in prod[:n]]


@pytest.mark.parametrize("n", [576, 768, 864, 1152])
def test_ntruplus_mul_matches_schoolbook(n):
    rng = np.random.default_rng(n)
    for trial in range(2):
        a = rng.integers(0, Q, n, dtype=np.uint16)
        b = np.zeros(n, dtype=np.uint16)
        idx = rng.integers(0, n, 24)
        b[idx] = rng.integers(0, Q, 24, dtype=np.uint16)  # sparse b keeps the reference fast
        assert [int(v) for v in rings.ntruplus_mul(a, b, n)] == trinomial_schoolbook(a, b, n)
    ones = np.full(n, Q - 1, dtype=np.uint16)
    e = np.zeros(n, dtype=np.uint16)
    e[0] = 1
    assert [int(v) for v in rings.ntruplus_mul(ones, e, n)] == [Q - 1] * n


@pytest.mark.parametrize("n", [576, 768, 864, 1152])
def test_ntruplus_ntt_scalings(n):
    rng = np.random.default_rng(n + 1)
    f = rng.integers(-(Q - 1), Q, n).astype(np.int16)
    g = rng.integers(-(Q - 1), Q, n).astype(np.int16)
    fh, gh = rings.ntruplus_ntt(f, n), rings.ntruplus_ntt(g, n)
    assert fh.dtype == np.int16 and int(np.abs(fh).max()) < Q
    back = rings.ntruplus_invntt(fh, n).astype(np.int64)
    assert (back % Q == (f.astype(np.int64) * 2**16) % Q).all()  # invntt(ntt(f)) = 2^16 f
    # basemul gives a b 2^-16, invntt multiplies by 2^16: together the plain product.
    prod = rings.ntruplus_invntt(rings.ntruplus_basemul(fh, gh, n), n).astype(np.int64) % Q
    want = trinomial_schoolbook([int(x) % Q for x in f], [int(x) % Q for x in g], n) if n == 576 else None
    if want is not None:
        assert [int(v) for v in prod] == want
    for seed in range(50):  # a component vanishes with probability ~ d/q, so retry
        fh = rings.ntruplus_ntt(np.random.default_rng(seed).integers(-(Q - 1), Q, n).astype(np.int16), n)
        inv, ok = rings.ntruplus_baseinv(fh, n)
        if ok:
            break
    assert ok
    one = (rings.ntruplus_basemul(fh, inv, n).astype(np.int64) % Q).reshape(-1, 3 if n == 864 else 4)
    # Each base-ring component is the constant R = 2^16 mod q (Montgomery one).
    assert (one[:, 0] == 2**16 % Q).all() and (one[:, 1:] == 0).all()


@pytest.mark.parametrize(
    "call",
    [
        lambda: rings.ntruplus_mul(np.zeros(576, np.uint16), np.zeros(575, np.uint16), 576),
        lambda: rings.ntruplus_mul(np.zeros(576, np.uint16), np.zeros(576, np.uint16), 512),
        lambda: rings.ntruplus_mul(np.full(576, Q, np.uint16), np.zeros(576, np.uint16), 576),
        lambda: rings.ntruplus_mul(np.zeros(576), np.zeros(576), 576),
        lambda: rings.ntruplus_ntt(np.zeros((2, 288), np.int16), 576),
        lambda: rings.ntruplus_ntt(np.full(576, -Q, np.int64), 576),
        lambda: rings.ntruplus_basemul(np.zeros(576, np.int16), np.zeros(576, np.int16), "576"),
        lambda: rings.ntruplus_baseinv(np.zeros(577, np.int16), 576),
    ],
)
def test_ntruplus_bad_input(call):
    with pytest.raises(ValueError):
        call()


def ntruprime_schoolbook(a, b, q=4591, p=761):
    prod = [0] * (2 * p - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                prod[i + j] += int(x) * int(y)
    for k in range(2 * p - 2, p - 1, -1):  # x^p = x + 1
        c = prod[k]
        prod[k] = 0
        prod[k - p] += c
        prod[k - p + 1] += c
    out = []
    for v in prod[:p]:
        r = v % q
        out.append(r - q if r > q // 2 else r)
    return out


def test_ntruprime_mul_matches_schoolbook():
    rng = np.random.default_rng(761)
    for _ in range(2):
        a = rng.integers(-2295, 2296, 761).astype(np.int16)
        b = np.zeros(761, dtype=np.int16)
        idx = rng.integers(0, 761, 30)
        b[idx] = rng.integers(-2295, 2296, 30).astype(np.int16)
        assert [int(v) for v in rings.ntruprime_mul(a, b)] == ntruprime_schoolbook(a, b)
        s = rng.integers(-1, 2, 761).astype(np.int8)
        s[np.arange(761) % 7 != 0] = 0
        assert [int(v) for v in rings.ntruprime_mul_small(a, s)] == ntruprime_schoolbook(a, s)


@pytest.mark.parametrize(
    "call",
    [
        lambda: rings.ntruprime_mul(np.zeros(760, np.int16), np.zeros(761, np.int16)),
        lambda: rings.ntruprime_mul(np.zeros(761), np.zeros(761)),
        lambda: rings.ntruprime_mul_small(np.zeros(761, np.int16), np.full(761, 2, np.int8)),
        lambda: rings.ntruprime_mul_small(np.zeros(761, np.int16), np.zeros((761, 1), np.int8)),
    ],
)
def test_ntruprime_bad_input(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("n", [509, 677, 701, 821])
def test_ntru_rq_mul_matches_schoolbook(n):
    rng = np.random.default_rng(n)
    a = rng.integers(0, 1 << 16, n, dtype=np.uint16)
    b = np.zeros(n, dtype=np.uint16)
    idx = rng.integers(0, n, 20)
    b[idx] = rng.integers(0, 1 << 16, 20, dtype=np.uint16)
    want = [0] * n
    for i in np.nonzero(a)[0]:
        for j in np.nonzero(b)[0]:
            want[(i + j) % n] = (want[(i + j) % n] + int(a[i]) * int(b[j])) % (1 << 16)
    assert [int(v) for v in rings.ntru_rq_mul(a, b)] == want
    for bad in (np.zeros(n - 1, np.uint16), np.zeros(n, np.float64)):
        with pytest.raises(ValueError):
            rings.ntru_rq_mul(bad, bad)
    with pytest.raises(ValueError):
        rings.ntru_rq_mul(np.zeros(512, np.uint16), np.zeros(512, np.uint16))


@pytest.mark.parametrize("n,q", [(509, 2048), (677, 2048), (701, 8192), (821, 4096)])
def test_ntru_rq_mul_modq_matches_schoolbook(n, q):
    rng = np.random.default_rng(n + 1)
    for _ in range(3):
        a = rng.integers(0, 1 << 16, n, dtype=np.uint16)
        b = rng.integers(0, 1 << 16, n, dtype=np.uint16)
        # the schoolbook as a cyclic convolution with Python integers
        ai, bi = [int(x) for x in a], [int(x) for x in b]
        want = [sum(ai[j] * bi[(k - j) % n] for j in range(n)) % q for k in range(n)]
        got = rings.ntru_rq_mul_modq(a, b)
        assert got.dtype == np.uint16 and [int(v) for v in got] == want
        assert [int(v) % q for v in rings.ntru_rq_mul(a, b)] == want
    for bad in (np.zeros(n - 1, np.uint16), np.zeros(n, np.float64), np.zeros((n, 1), np.uint16)):
        with pytest.raises(ValueError):
            rings.ntru_rq_mul_modq(bad, bad)
    with pytest.raises(ValueError):
        rings.ntru_rq_mul_modq(np.zeros(n, np.uint16), np.zeros(n + 1, np.uint16))
