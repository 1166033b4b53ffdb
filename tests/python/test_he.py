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
                   dict(n=256, eta=0), dict(n=256, sigma=3.0, eta=2), dict(n=4), dict(n=256, seed=b"x"),
                   # noise that would wrap mod q (2 B + 1 >= q)
                   dict(n=256, sigma=3000.0), dict(n=8, q=17, sigma=3.19), dict(n=8, q=17, eta=8)):
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


def _secret_coefficients(blob: bytes, n: int, count: int):
    """An independent reader of the secret-key format: 10-byte header, the primes, two-bit
    codes (0 -> 0, 1 -> 1, 2 -> -1)."""
    assert blob[:6] == b"LPLY\x01\x05" and blob[6] == 0 and 1 << blob[7] == n
    assert int.from_bytes(blob[8:10], "little") == count
    payload = blob[10 + 8 * count:]
    assert len(payload) == (2 * n + 7) // 8
    codes = [(payload[j // 4] >> (2 * (j % 4))) & 3 for j in range(n)]
    assert 3 not in codes
    return [{0: 0, 1: 1, 2: -1}[c] for c in codes]


def test_bfv_keys_and_ciphertexts_through_bytes():
    """Every key and ciphertext through bytes: partial key sets (a server without the secret
    key), decryption by hand with the secret key's decoded coefficients, and ValueError for
    malformed bytes, other parameters and missing keys."""
    n, t = 16, 257
    bfv = Bfv.with_prime_bits(n, 30, 3, t=t, seed=4)
    keys = bfv.keygen()
    assert (keys.has_secret, keys.has_public, keys.has_relin) == (True, True, True)
    sk, pk, rlk = keys.secret_bytes(), keys.public_bytes(), keys.relin_bytes()
    assert all(isinstance(b, bytes) for b in (sk, pk, rlk))
    assert len(sk) == 10 + 3 * 8 + n // 4
    # compact keys: the seed of the uniform parts in place of those polynomials
    assert pk[:8] == b"LPLY\x01\x08\x01\x00" and rlk[:8] == b"LPLY\x01\x09\x03\x00"
    poly_q, poly_qs = 10 + 3 * 8 + n * 3 * 30 // 8, 10 + 4 * 8 + n * 4 * 30 // 8
    assert len(pk) == 8 + 32 + poly_q and len(rlk) == 8 + 32 + 3 * poly_qs

    server = bfv.keys_from_bytes(public=pk, relin=rlk)
    assert (server.has_secret, server.has_public, server.has_relin) == (False, True, True)
    assert server.public_bytes() == pk and server.relin_bytes() == rlk
    client = bfv.keys_from_bytes(secret=bytearray(sk))
    assert client.secret_bytes() == sk
    assert keys.without_secret().has_secret is False

    rng = np.random.default_rng(4)
    a = rng.integers(0, t, n, dtype=np.uint64)
    b = rng.integers(0, t, n, dtype=np.uint64)
    ca, cb = bfv.encrypt(server, a), bfv.encrypt(keys, b)
    prod = bfv.multiply_relin(server, ca, cb)
    blob = prod.to_bytes()
    assert isinstance(prod, latpoly.BfvCiphertext) and isinstance(keys, latpoly.BfvKeySet)
    back = bfv.ciphertext_from_bytes(memoryview(blob))
    assert back.to_bytes() == blob
    want = bfv.decrypt(keys, bfv.multiply_relin(keys, ca, cb)).tolist()
    assert bfv.decrypt(client, back).tolist() == want

    # decryption by hand: m = round(t (c0 + c1 s) / Q) mod t, negacyclic schoolbook in Python
    s = _secret_coefficients(sk, n, 3)
    q = 1
    for p in bfv.moduli:
        q *= p
    c0, c1 = (p.to_centered_ints() for p in bfv.parts(ca))
    phase = list(c0)
    for i in range(n):
        for j in range(n):
            k, sign = (i + j, 1) if i + j < n else (i + j - n, -1)
            phase[k] += sign * c1[i] * s[j]
    manual = [((t * (x % q) + q // 2) // q) % t for x in phase]
    assert manual == a.tolist()

    # missing keys
    for call in (
        lambda: bfv.decrypt(server, ca),
        lambda: bfv.noise_budget(server, ca),
        lambda: bfv.encrypt(client, a),
        lambda: bfv.relinearize(client, bfv.multiply(ca, cb)),
        lambda: bfv.multiply_relin(client, ca, cb),
        lambda: server.secret_bytes(),
        lambda: client.public_bytes(),
        lambda: client.relin_bytes(),
        lambda: bfv.keys_from_bytes(),
    ):
        with pytest.raises(ValueError):
            call()
    # malformed bytes, wrong kinds, other parameters
    other = Bfv.with_prime_bits(n, 31, 3, t=t, seed=4)
    bad_sk = bytearray(sk)
    bad_sk[-1] |= 0xC0  # the invalid code 3
    for call in (
        lambda: bfv.keys_from_bytes(secret=bytes(bad_sk)),
        lambda: bfv.keys_from_bytes(secret=sk[:-1]),
        lambda: bfv.keys_from_bytes(public=pk + b"\x00"),
        lambda: bfv.keys_from_bytes(public=rlk),
        lambda: bfv.keys_from_bytes(relin=pk),
        lambda: bfv.keys_from_bytes(secret="not bytes"),
        lambda: bfv.ciphertext_from_bytes(blob[:-3]),
        lambda: bfv.ciphertext_from_bytes(pk),
        lambda: bfv.ciphertext_from_bytes(42),
        lambda: other.keys_from_bytes(secret=sk),
        lambda: other.keys_from_bytes(public=pk),
        lambda: other.ciphertext_from_bytes(blob),
    ):
        with pytest.raises(ValueError):
            call()


def slots_of(bfv, keys, c):
    return bfv.decode_slots(bfv.decrypt(keys, c)).tolist()


def test_bfv_slots_and_rotations():
    """Batching: slots are the evaluations at psi^(+-3^j) (checked by Horner in Python),
    slot-wise products, rotations both ways, the row swap, Galois keys through bytes, and
    ValueError for what is not allowed."""
    n, t = 64, 257  # 257 = 1 + 2 * 128: batching for n <= 128
    bfv = Bfv.with_prime_bits(n, 40, 3, t=t, seed=6)
    assert bfv.batching
    rng = np.random.default_rng(6)
    x = rng.integers(0, t, n, dtype=np.uint64)
    y = rng.integers(0, t, n, dtype=np.uint64)
    x[0], y[1] = t - 1, 0
    m = bfv.encode_slots(x)
    assert m.dtype == np.uint64 and bfv.decode_slots(m).tolist() == x.tolist()
    # psi: a primitive 2n-th root mod t, the one the NTT of (n, t) uses
    psi = latpoly.primitive_2n_root(n, t)
    half = n // 2
    for j in range(half):
        e = pow(3, j, 2 * n)
        for r, ex in ((0, e), (1, 2 * n - e)):
            point = pow(psi, ex, t)
            value = 0
            for c in reversed(m.tolist()):
                value = (value * point + c) % t
            assert value == int(x[r * half + j])

    keys = bfv.with_rotation_keys(bfv.keygen(), [1, 3, -5])
    assert keys.has_galois and keys.galois_elements == sorted(
        {bfv.rotation_element(k) for k in (1, 3, -5)} | {2 * n - 1})
    cx = bfv.encrypt(keys, bfv.encode_slots(x))
    cy = bfv.encrypt(keys, bfv.encode_slots(y))

    def slots(c):
        return bfv.decode_slots(bfv.decrypt(keys, c)).tolist()

    def rot(v, k):
        v = list(v)
        return [v[(i // half) * half + (i % half + k) % half] for i in range(n)]

    assert slots(bfv.multiply_relin(keys, cx, cy)) == [int(a) * int(b) % t for a, b in zip(x, y)]
    for k in (1, 3, -5, 0, half):
        assert slots(bfv.rotate_rows(keys, cx, k)) == rot(x, k)
    assert slots(bfv.swap_rows(keys, cx)) == x[half:].tolist() + x[:half].tolist()
    # the Galois keys through bytes, on a server without the secret key
    server = bfv.keys_from_bytes(public=keys.public_bytes(), relin=keys.relin_bytes(),
                                 galois=keys.galois_bytes())
    assert server.galois_elements == keys.galois_elements and not server.has_secret
    assert keys.without_secret().galois_elements == keys.galois_elements
    r = bfv.rotate_rows(server, bfv.ciphertext_from_bytes(cx.to_bytes()), 3)
    assert slots(r) == rot(x, 3)
    # x -> x^g on any ciphertext, with a key for g
    k5 = bfv.with_galois_keys(keys, [5])
    assert k5.galois_elements == [5]
    g5 = bfv.decrypt(keys, bfv.apply_galois(k5, bfv.encrypt(keys, m), 5)).tolist()
    want = [0] * n
    for i, c in enumerate(m.tolist()):
        e = 5 * i % (2 * n)
        if e < n:
            want[e] = c
        else:
            want[e - n] = (t - c) % t
    assert g5 == want

    for call in (
        lambda: bfv.rotate_rows(keys, cx, 2),            # no key for 2 steps
        lambda: bfv.rotate_rows(bfv.keygen(), cx, 1),    # no Galois keys at all
        lambda: bfv.rotate_rows(keys, bfv.multiply(cx, cy), 1),  # 3 polynomials
        lambda: bfv.apply_galois(keys, cx, 4),           # even
        lambda: bfv.apply_galois(keys, cx, 2 * n + 1),   # not below 2n
        lambda: bfv.apply_galois(keys, cx, -3),
        lambda: bfv.apply_galois(keys, cx, 1 << 70),
        lambda: bfv.with_galois_keys(keys, [2]),
        lambda: bfv.with_galois_keys(keys, [-3]),
        lambda: bfv.with_galois_keys(server, [3]),       # needs the secret key
        lambda: bfv.with_rotation_keys(keys, [1], swap="yes"),
        lambda: bfv.rotation_element(1 << 64),
        lambda: bfv.keys_from_bytes(galois=keys.relin_bytes()),
        lambda: bfv.encode_slots(np.zeros(n - 1, dtype=np.uint64)),
        lambda: bfv.encode_slots(np.full(n, t, dtype=np.uint64)),
        lambda: bfv.decode_slots([t] + [0] * (n - 1)),
        lambda: bfv.keygen().galois_bytes(),            # a fresh set has no Galois keys
    ):
        with pytest.raises(ValueError):
            call()
    # the identity (g = 1, a rotation by 0 or by n/2) needs no Galois keys
    bare = bfv.keygen()
    c0 = bfv.encrypt(bare, bfv.encode_slots(x))
    assert slots_of(bfv, bare, bfv.rotate_rows(bare, c0, 0)) == x.tolist()
    assert slots_of(bfv, bare, bfv.apply_galois(bare, c0, 1)) == x.tolist()
    # objects of the wrong type are ValueError, not TypeError
    for call in (
        lambda: bfv.rotate_rows(cx, keys, 1),
        lambda: bfv.encrypt(cx, m),
        lambda: bfv.decrypt(keys, keys),
        lambda: bfv.add(cx, 3),
        lambda: bfv.multiply_relin(keys, cx, None),
        lambda: bfv.with_galois_keys("keys", [3]),
        lambda: bfv.parts([cx]),
    ):
        with pytest.raises(ValueError):
            call()
    # plaintext sums and products, slot-wise
    w = rng.integers(0, t, n, dtype=np.uint64)
    assert slots_of(bfv, keys, bfv.multiply_plain(cx, bfv.encode_slots(w))) == \
        [int(a) * int(b) % t for a, b in zip(x, w)]
    assert slots_of(bfv, keys, bfv.add_plain(cx, bfv.encode_slots(w))) == \
        [(int(a) + int(b)) % t for a, b in zip(x, w)]
    assert slots_of(bfv, keys, bfv.sub_plain(cx, bfv.encode_slots(w))) == \
        [(int(a) - int(b)) % t for a, b in zip(x, w)]
    assert slots_of(bfv, keys, bfv.negate(cx)) == [(-int(a)) % t for a in x]
    # the negation of a 3-polynomial product, and c + (-c) = 0
    sq = bfv.negate(bfv.multiply(cx, cx))
    assert len(bfv.parts(sq)) == 3
    assert slots_of(bfv, keys, sq) == [(-int(a) * int(a)) % t for a in x]
    assert not bfv.decrypt(keys, bfv.add(cx, bfv.negate(cx))).any()
    # a constant: the same ciphertext as the constant plaintext polynomial
    for k in (0, 1, t - 1, t // 2, t // 2 + 1, 123):
        ck = bfv.multiply_scalar(cx, k)
        assert slots_of(bfv, keys, ck) == [int(a) * k % t for a in x]
        constant = np.zeros(n, dtype=np.uint64)
        constant[0] = k
        assert ck.to_bytes() == bfv.multiply_plain(cx, constant).to_bytes()
    other = Bfv.with_prime_bits(n, 40, 2, t=t, seed=7)  # another basis
    foreign = other.encrypt(other.keygen(), x)
    for call in (
        lambda: bfv.sub_plain(foreign, w),
        lambda: bfv.negate(foreign),
        lambda: bfv.multiply_scalar(foreign, 1),
        lambda: bfv.sub_plain(cx, w[:-1]),
        lambda: bfv.sub_plain(cx, np.full(n, t, dtype=np.uint64)),
        lambda: bfv.negate(w),
        lambda: bfv.negate(keys),
        lambda: bfv.multiply_scalar(cx, t),
        lambda: bfv.multiply_scalar(cx, -1),
        lambda: bfv.multiply_scalar(cx, 1 << 64),
        lambda: bfv.multiply_scalar(w, 1),
        lambda: bfv.multiply_scalar(cx, 1.5),
        lambda: bfv.multiply_scalar(cx, "3"),
        lambda: bfv.multiply_plain(cx, w[:-1]),
        lambda: bfv.multiply_plain(cx, np.full(n, t, dtype=np.uint64)),
        lambda: bfv.add_plain(cx, [-1] * n),
        lambda: bfv.multiply_plain(w, w),
    ):
        with pytest.raises(ValueError):
            call()
    plain = Bfv.with_prime_bits(n, 40, 3, t=256, seed=6)
    assert not plain.batching
    with pytest.raises(ValueError):
        plain.encode_slots(x % 256)


def test_bfv_symmetric_encryption_and_seeded_bytes():
    """Secret-key encryption decrypts at the edges of [0, t), computes with public-key
    ciphertexts, has less fresh noise; its compact bytes (c_0 and a 32-byte seed) are read back
    by an independent parse and by the reader, and nothing else is accepted."""
    t = 65537
    bfv = Bfv.with_prime_bits(1024, 50, 3, t=t, seed=21)
    keys = bfv.keygen()
    rng = np.random.default_rng(21)
    for m in (np.zeros(1024, np.uint64), np.full(1024, t - 1, np.uint64),
              rng.integers(0, t, 1024, dtype=np.uint64)):
        c = bfv.encrypt_symmetric(keys, m)
        assert (bfv.decrypt(keys, c) == m).all()
        data = bfv.encrypt_symmetric_bytes(keys, m)
        # container header, count 1, the seed, then c_0 as an RnsPoly encoding in Q
        assert data[:8] == b"LPLY\x01\x07\x01\x00"
        c0 = latpoly.RnsPoly.from_bytes(data[40:])
        assert c0.ring.moduli == bfv.moduli and not c0.is_ntt
        back = bfv.ciphertext_from_seeded_bytes(data)
        assert (bfv.decrypt(keys, back) == m).all()
        assert bfv.parts(back)[0].to_bytes() == data[40:]
        assert len(data) < 0.51 * len(back.to_bytes())
    a = rng.integers(0, t, 1024, dtype=np.uint64)
    b = rng.integers(0, t, 1024, dtype=np.uint64)
    ca = bfv.ciphertext_from_seeded_bytes(bfv.encrypt_symmetric_bytes(keys, a))
    prod = bfv.multiply_relin(keys, ca, bfv.encrypt(keys, b))
    assert bfv.decrypt(keys, prod).tolist() == negacyclic_mod(a, b, t).tolist()
    assert bfv.noise_budget(keys, bfv.encrypt_symmetric(keys, a)) > \
        bfv.noise_budget(keys, bfv.encrypt(keys, a))
    # errors
    data = bfv.encrypt_symmetric_bytes(keys, a)
    for bad in (data[:39], data[:-1], data + b"\0", bfv.encrypt(keys, a).to_bytes()):
        with pytest.raises(ValueError):
            bfv.ciphertext_from_seeded_bytes(bad)
    with pytest.raises(ValueError):
        bfv.ciphertext_from_bytes(data)
    with pytest.raises(ValueError):
        Bfv.with_prime_bits(1024, 49, 3, t=t).ciphertext_from_seeded_bytes(data)
    with pytest.raises(ValueError):
        bfv.ciphertext_from_seeded_bytes("text")
    for bad in (np.ones(1023, np.uint64), np.full(1024, t, np.uint64), np.ones((2, 512))):
        with pytest.raises(ValueError):
            bfv.encrypt_symmetric(keys, bad)
        with pytest.raises(ValueError):
            bfv.encrypt_symmetric_bytes(keys, bad)
    with pytest.raises(ValueError):
        bfv.encrypt_symmetric(keys.without_secret(), a)
    with pytest.raises(ValueError):
        bfv.encrypt_symmetric_bytes("keys", a)


def test_bfv_modulus_switching():
    """mod_switch rounds each polynomial exactly (a Python big-integer reference, one dropped
    prime at a time), keeps the plaintext at every lower modulus, shortens the bytes; the lower
    instance computes, relinearizes and rotates with the full instance's keys (no secret) or
    with keys for the same secret, and refuses what is not its own."""
    t = 65537
    bfv = Bfv.with_prime_bits(1024, 50, 3, t=t, seed=31)
    keys = bfv.keygen()
    rng = np.random.default_rng(31)
    a = rng.integers(0, t, 1024, dtype=np.uint64)
    b = rng.integers(0, t, 1024, dtype=np.uint64)
    ca, cb = bfv.encrypt(keys, a), bfv.encrypt(keys, b)
    prod = bfv.multiply(ca, cb)  # three polynomials
    want = negacyclic_mod(a, b, t).tolist()
    rotations = bfv.with_rotation_keys(keys, [1], swap=False)
    want_rot = bfv.decode_slots(bfv.decrypt(keys, bfv.rotate_rows(rotations, ca, 1))).tolist()
    q = bfv.moduli
    for k in (3, 2, 1):
        low = bfv.lower(k)
        assert low.moduli == q[:k] and low.t == t and low.n == 1024
        sk = bfv.secret_key_for(keys, low)
        assert sk.has_secret and not sk.has_public
        for c, m in ((ca, a.tolist()), (prod, want)):
            s = bfv.mod_switch(c, low)
            assert len(s) == len(c)
            for p, lp in zip(bfv.parts(c), low.parts(s)):
                v = p.to_ints()
                for last in range(len(q) - 1, k - 1, -1):
                    qk = 1
                    for x in q[:last]:
                        qk *= x
                    v = [((2 * x + q[last]) // (2 * q[last])) % qk for x in v]
                assert lp.to_ints() == v
            assert low.decrypt(sk, s).tolist() == m
            if k < 3:
                assert len(s.to_bytes()) < len(c.to_bytes())
                with pytest.raises(ValueError):
                    bfv.decrypt(keys, s)
                with pytest.raises(ValueError):
                    low.mod_switch(s, bfv)  # not upwards
        s = bfv.mod_switch(prod, low)
        low_keys = low.keygen_with_secret(sk)
        r = low.relinearize(low_keys, s)
        assert len(r) == 2 and low.decrypt(sk, r).tolist() == want
        # the full instance's keys serve at every lower level, without the secret
        server = keys.without_secret()
        r_full = low.relinearize(server, s)
        assert len(r_full) == 2 and low.decrypt(sk, r_full).tolist() == want
        assert abs(low.noise_budget(sk, r_full) - low.noise_budget(sk, r)) <= 1
        sa = bfv.mod_switch(ca, low)
        rot = low.rotate_rows(rotations.without_secret(), sa, 1)
        assert low.decode_slots(low.decrypt(sk, rot)).tolist() == want_rot
        if k >= 2:
            sb = bfv.mod_switch(cb, low)
            assert low.decrypt(sk, low.multiply_relin(server, sa, sb)).tolist() == want
        assert low.decrypt(sk, low.add(r, low.ciphertext_from_bytes(r.to_bytes()))).tolist() == \
            [2 * x % t for x in want]
        assert low.noise_budget(sk, bfv.mod_switch(ca, low)) > 0
    # reproducible: a seeded instance's lower instance encrypts the same way
    b1 = Bfv.with_prime_bits(256, 40, 2, t=257, seed=5)
    b2 = Bfv.with_prime_bits(256, 40, 2, t=257, seed=5)
    l1, l2 = b1.lower(1), b2.lower(1)
    assert l1.keygen().secret_bytes() == l2.keygen().secret_bytes()
    # errors
    for bad in (0, 4, -1, 1.5, "1"):
        with pytest.raises(ValueError):
            bfv.lower(bad)
    other = Bfv.with_prime_bits(1024, 50, 3, t=257, seed=1).lower(2)
    for target in (other, "low", Bfv(1024, q[1:], t)):
        with pytest.raises(ValueError):
            bfv.mod_switch(ca, target)
        with pytest.raises(ValueError):
            bfv.secret_key_for(keys, target)
    with pytest.raises(ValueError):
        bfv.mod_switch("ct", bfv.lower(1))
    with pytest.raises(ValueError):
        bfv.secret_key_for(keys.without_secret(), bfv.lower(1))
    with pytest.raises(ValueError):
        bfv.keygen_with_secret(bfv.secret_key_for(keys, bfv.lower(1)))  # another instance's key
    # keys serve downwards only, and only instances made by lower(): a fresh instance over the
    # same primes refuses the full instance's keys, the full instance a lower one's
    fresh = Bfv(1024, q[:2], t)
    with pytest.raises(ValueError, match="another parameter set"):
        fresh.relinearize(keys, bfv.mod_switch(prod, fresh))
    low = bfv.lower(2)
    low_keys = low.keygen_with_secret(bfv.secret_key_for(keys, low))
    with pytest.raises(ValueError, match="another parameter set"):
        bfv.relinearize(low_keys, prod)


def test_shared_instances_across_threads():
    """Threads sharing one Sampler, Lpr or Bfv (whose methods lock a sampler and release the GIL)
    finish; before, a thread waiting for the lock with the GIL held kept the holder from
    getting the GIL back."""
    import threading

    s = latpoly.Sampler(seed=1)
    lpr = Lpr(256, seed=2)
    pk, sk = lpr.keygen()
    bfv = Bfv.with_prime_bits(256, 40, 2, t=257, seed=3)
    keys = bfv.keygen()
    bits = np.ones(256, dtype=np.uint8)
    m = np.arange(256, dtype=np.uint64)
    errors = []

    def work():
        try:
            for _ in range(40):
                s.uniform(1 << 12, 12289)
                assert (lpr.decrypt(sk, lpr.encrypt(pk, bits)) == bits).all()
                assert (bfv.decrypt(keys, bfv.encrypt_symmetric(keys, m)) == m).all()
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    # daemon threads: a deadlock fails the assertion below instead of hanging the interpreter
    threads = [threading.Thread(target=work, daemon=True) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "threads sharing an instance hung"
    assert not errors, errors


def test_lpr_and_constructor_inputs_raise_value_error():
    a = Lpr(256, seed=1)
    pk, sk = a.keygen()
    ct = a.encrypt(pk, np.ones(256, dtype=np.uint8))
    # keys and ciphertexts of an instance with the same n and another q
    b = Lpr(256, q=7681, seed=1)
    pk2, sk2 = b.keygen()
    for call in (lambda: b.decrypt(sk, ct), lambda: a.decrypt(sk2, ct),
                 lambda: a.encrypt(pk2, np.ones(256, dtype=np.uint8)),
                 lambda: b.decrypt_batch(sk, [ct])):
        with pytest.raises(ValueError):
            call()
    # wrong types
    for call in (lambda: a.decrypt(pk, ct), lambda: a.decrypt(sk, pk),
                 lambda: a.decrypt_batch(sk, [1, 2]), lambda: a.decrypt_batch(sk, 5),
                 lambda: a.encrypt(sk, np.ones(256, dtype=np.uint8))):
        with pytest.raises(ValueError):
            call()
    # sigma beyond a float's range
    for call in (lambda: latpoly.Sampler(seed=1).gaussian(4, 10**400),
                 lambda: Lpr(256, sigma=10**400),
                 lambda: Bfv(256, latpoly.ntt_primes(40, 256, 2), 257, sigma=10**400)):
        with pytest.raises(ValueError):
            call()
    # more primes than a basis holds: refused before searching for them
    with pytest.raises(ValueError, match="at most 4096"):
        latpoly.RnsRing.with_prime_bits(2, 62, 10**9)
    with pytest.raises(ValueError, match="at most 4096"):
        Bfv.with_prime_bits(1024, 62, 10**9, t=257)
    with pytest.raises(ValueError):
        Bfv(256, latpoly.ntt_primes(40, 256, 2), 257).ciphertext_from_parts(5)
