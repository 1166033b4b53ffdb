"""LPR and BFV from Python: round trips, homomorphic operations against plain arithmetic,
determinism and bad input."""

import numpy as np
import pytest

import latpoly
from latpoly import Bfv, Lpr


@pytest.mark.parametrize("n", [256, 512, 1024])
def test_lpr_round_trip_and_batch(n):
    lpr = Lpr(n, seed=n)
    pk, sk = lpr.keygen()
    rng = np.random.default_rng(n)
    msgs = rng.integers(0, 2, size=(20, n))
    cts = [lpr.encrypt(pk, m) for m in msgs]
    for m, c in zip(msgs, cts):
        assert (lpr.decrypt(sk, c) == m).all()
    for threads in (None, 1, 2):
        assert (lpr.decrypt_batch(sk, cts, threads=threads) == msgs).all()
    u, v = cts[0].parts()
    assert u.dtype == np.uint16 and len(v) == n and int(u.max()) < lpr.q


def test_lpr_determinism_and_errors():
    a, b = Lpr(256, seed=5), Lpr(256, seed=5)
    (pa, _), (pb, _) = a.keygen(), b.keygen()
    bits = np.ones(256, dtype=np.uint8)
    assert (a.encrypt(pa, bits).parts()[0] == b.encrypt(pb, bits).parts()[0]).all()
    pk, sk = a.keygen()
    for bad in (np.ones(255), np.full(256, 2), np.full(256, -1), np.ones((2, 128)), np.ones(256) * 0.5):
        with pytest.raises(ValueError):
            a.encrypt(pk, bad)
    for kwargs in (dict(n=300), dict(n=256, q=12288), dict(n=256, q=40961), dict(n=256, sigma=0.0),
                   dict(n=256, eta=0), dict(n=256, sigma=3.0, eta=2), dict(n=4), dict(n=256, seed=b"x")):
        with pytest.raises(ValueError):
            Lpr(**kwargs)
    with pytest.raises(ValueError):
        Lpr(512).decrypt(sk, a.encrypt(pk, bits))
    with pytest.raises(ValueError):
        a.decrypt_batch(sk, [], threads=0)


def negacyclic_mod(a, b, t):
    n = len(a)
    out = [0] * n
    for i in np.nonzero(a)[0]:
        for j in np.nonzero(b)[0]:
            p = int(a[i]) * int(b[j])
            k = i + j
            if k < n:
                out[k] += p
            else:
                out[k - n] -= p
    return np.array([v % t for v in out], dtype=np.uint64)


@pytest.mark.parametrize("t", [2, 257, 65537])
def test_bfv_add_multiply(t):
    bfv = Bfv.with_prime_bits(1024, 40, 3, t=t, seed=t)
    keys = bfv.keygen()
    rng = np.random.default_rng(t)
    a = np.zeros(1024, dtype=np.uint64)
    b = np.zeros(1024, dtype=np.uint64)
    a[rng.integers(0, 1024, 12)] = rng.integers(0, t, 12, dtype=np.uint64)
    b[rng.integers(0, 1024, 12)] = rng.integers(0, t, 12, dtype=np.uint64)
    ca, cb = bfv.encrypt(keys, a), bfv.encrypt(keys, b)
    assert (bfv.decrypt(keys, ca) == a).all()
    assert (bfv.decrypt(keys, bfv.add(ca, cb)) == (a + b) % t).all()
    assert (bfv.decrypt(keys, bfv.sub(ca, cb)) == (a + t - b) % t).all()
    prod = bfv.multiply(ca, cb)
    assert len(prod) == 3
    want = negacyclic_mod(a, b, t)
    assert (bfv.decrypt(keys, prod) == want).all()
    r = bfv.relinearize(keys, prod)
    assert len(r) == 2 and (bfv.decrypt(keys, r) == want).all()
    assert 0 < bfv.noise_budget(keys, r) < bfv.noise_budget(keys, ca)


def test_bfv_bad_input():
    bfv = Bfv.with_prime_bits(1024, 40, 2, t=257, seed=1)
    keys = bfv.keygen()
    with pytest.raises(ValueError):
        bfv.encrypt(keys, np.zeros(1023, dtype=np.uint64))
    with pytest.raises(ValueError):
        bfv.encrypt(keys, np.full(1024, 257, dtype=np.uint64))
    with pytest.raises(ValueError):
        bfv.encrypt(keys, np.full(1024, -1))
    other = Bfv.with_prime_bits(1024, 41, 2, t=257, seed=1)
    okeys = other.keygen()
    c = bfv.encrypt(keys, np.zeros(1024, dtype=np.uint64))
    with pytest.raises(ValueError):
        other.decrypt(okeys, c)
    with pytest.raises(ValueError):
        bfv.multiply(bfv.multiply(c, c), c)
    for args in ((1024, latpoly.ntt_primes(40, 1024, 2), 1), (1000, [12289], 3), (1024, [], 257)):
        with pytest.raises(ValueError):
            Bfv(*args)


def test_bfv_ciphertexts_through_bytes():
    """A ciphertext's parts through RnsPoly bytes rebuild it (2 and 3 parts, NTT-form parts
    converted); other counts, other bases and non-polynomials are refused."""
    bfv = Bfv.with_prime_bits(1024, 40, 3, t=65537, seed=9)
    keys = bfv.keygen()
    rng = np.random.default_rng(9)
    a = rng.integers(0, 65537, 1024, dtype=np.uint64)
    b = rng.integers(0, 65537, 1024, dtype=np.uint64)
    ca, cb = bfv.encrypt(keys, a), bfv.encrypt(keys, b)
    prod3 = bfv.multiply(ca, cb)
    for ct in (ca, prod3):
        parts = bfv.parts(ct)
        assert len(parts) == len(ct) and all(not p.is_ntt for p in parts)
        back = bfv.ciphertext_from_parts(latpoly.RnsPoly.from_bytes(p.to_bytes()) for p in parts)
        assert bfv.decrypt(keys, back).tolist() == bfv.decrypt(keys, ct).tolist()
    # NTT-form parts are accepted and converted
    back = bfv.ciphertext_from_parts([p.to_ntt() for p in bfv.parts(ca)])
    assert bfv.decrypt(keys, back).tolist() == a.tolist()
    assert bfv.decrypt(keys, bfv.relinearize(keys, bfv.ciphertext_from_parts(bfv.parts(prod3)))).tolist() == \
        bfv.decrypt(keys, bfv.multiply_relin(keys, ca, cb)).tolist()
    with pytest.raises(ValueError):
        bfv.ciphertext_from_parts(bfv.parts(ca)[:1])
    with pytest.raises(ValueError):
        bfv.ciphertext_from_parts(bfv.parts(prod3) + bfv.parts(ca))
    with pytest.raises(ValueError):
        bfv.ciphertext_from_parts([b"not a polynomial", b"x"])
    other = Bfv.with_prime_bits(1024, 41, 3, t=65537, seed=9)
    with pytest.raises(ValueError):
        other.ciphertext_from_parts(bfv.parts(ca))
