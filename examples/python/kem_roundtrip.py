"""Every KEM of latpoly.kem: keypair / encapsulate / decapsulate, then a tampered ciphertext.

An honest ciphertext must give both sides the same shared secret. A ciphertext with one bit
flipped must not, and must be rejected the way its scheme specifies:

* NTRU+KEM (explicit rejection): decapsulation returns the all-zero shared secret.
* sntrup761 / ntrulpr761 and any other scheme (implicit rejection): decapsulation returns a
  pseudorandom key -- not the honest one, not all-zero, the same for the same ciphertext and
  different for a different tampered ciphertext.

Exits with status 1 if any check fails.

Run:  python examples/python/kem_roundtrip.py
"""

import sys
import time

from latpoly import kem


def flip(ct: bytes, index: int) -> bytes:
    return ct[:index] + bytes([ct[index] ^ 1]) + ct[index + 1:]


def check(name: str) -> list:
    k = kem.new(name)
    problems = []
    t0 = time.perf_counter()
    pk, sk = k.keypair()
    t1 = time.perf_counter()
    ct, ss = k.encapsulate(pk)
    t2 = time.perf_counter()
    ss2 = k.decapsulate(sk, ct)
    t3 = time.perf_counter()
    sizes = (len(pk), len(sk), len(ct), len(ss))
    if sizes != (k.public_key_bytes, k.secret_key_bytes, k.ciphertext_bytes, k.shared_secret_bytes):
        problems.append(f"sizes {sizes}")
    if ss2 != ss:
        problems.append("shared secrets differ")

    zero = bytes(len(ss))
    bad_a, bad_b = flip(ct, 0), flip(ct, len(ct) - 1)
    ka, kb = k.decapsulate(sk, bad_a), k.decapsulate(sk, bad_b)
    if ka == ss or kb == ss:
        problems.append("tampered ciphertext gave the honest secret")
    if name.startswith("NTRU+KEM"):
        rejection = "explicit (all-zero secret)"
        if ka != zero or kb != zero:
            problems.append("explicit rejection did not return the all-zero secret")
    else:
        rejection = "implicit (pseudorandom secret)"
        if ka == zero or kb == zero or ka == kb or k.decapsulate(sk, bad_a) != ka:
            problems.append("implicit rejection key is not a fixed pseudorandom function of ct")

    print(f"{name:13} pk {sizes[0]:5} B  sk {sizes[1]:5} B  ct {sizes[2]:5} B  ss {ss.hex()[:16]}..."
          f"  keypair {1e3 * (t1 - t0):6.2f} ms  enc {1e3 * (t2 - t1):5.2f} ms"
          f"  dec {1e3 * (t3 - t2):5.2f} ms  tampered: {rejection}"
          f"  {'OK' if not problems else 'FAILED: ' + '; '.join(problems)}")
    return problems


def main() -> int:
    names = kem.names()
    failed = [n for n in names if check(n)]
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"all {len(names)} KEMs OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
