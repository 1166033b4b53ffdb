"""LPR Ring-LWE public-key encryption round trip (latpoly.Lpr, NFLlib paper §5.1).

Encrypts a text message bit by bit for each preset ring (n = 256, 512, 1024; q = 12289),
decrypts it one ciphertext at a time and in a batch, and checks that a wrong secret key does
not decrypt. Exits with status 1 on any mismatch.

Run:  python examples/python/rlwe.py
"""

import sys
import time

import numpy as np

import latpoly

MESSAGE = b"latpoly: Ring-LWE round trip via the negacyclic NTT".ljust(128, b".")  # 1024 bits


def to_bits(data: bytes, n: int) -> np.ndarray:
    """The first n bits of data (little-endian within each byte), one 0/1 value per slot."""
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
    return bits[:n].astype(np.uint8)


def from_bits(bits: np.ndarray) -> bytes:
    return np.packbits(bits.astype(np.uint8), bitorder="little").tobytes()


def main() -> int:
    failures = 0
    for n in (256, 512, 1024):
        lpr = latpoly.Lpr(n, seed=2024 + n)              # seeded: same keys and ciphertexts every run
        pk, sk = lpr.keygen()
        chunks = [to_bits(MESSAGE[i:i + n // 8], n) for i in range(0, len(MESSAGE), n // 8)]  # n bits each
        cts = [lpr.encrypt(pk, m) for m in chunks]

        one_by_one = [lpr.decrypt(sk, ct) for ct in cts]
        t0 = time.perf_counter()
        batch = lpr.decrypt_batch(sk, cts)               # shape (len(cts), n), all cores
        dt = time.perf_counter() - t0
        ok = all((d == m).all() for d, m in zip(one_by_one, chunks)) and (batch == np.array(chunks)).all()
        text = b"".join(from_bits(d) for d in one_by_one)

        _, wrong_sk = latpoly.Lpr(n, seed=1).keygen()    # a different key pair of the same ring
        wrong = lpr.decrypt(wrong_sk, cts[0])
        wrong_fraction = float((wrong != chunks[0]).mean())
        ok = ok and text == MESSAGE[: len(text)] and wrong_fraction > 0.25

        print(f"n={n:5} q={lpr.q}: {len(cts)} ciphertext(s), decrypted {'OK' if ok else 'MISMATCH'}"
              f" ({text[:24]!r}...), batch {dt * 1e6:.0f} us,"
              f" wrong key flips {wrong_fraction:.0%} of the bits")
        failures += not ok
    if failures:
        print(f"FAILED: {failures} ring(s) did not round-trip", file=sys.stderr)
        return 1
    print("all LPR round trips OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
