"""Key encapsulation mechanisms (bytes in, bytes out; randomness from the OS).

>>> from latpoly import kem
>>> "NTRU+KEM576" in kem.names()
True
>>> k = kem.new("NTRU+KEM576")
>>> pk, sk = k.keypair()
>>> ct, ss = k.encapsulate(pk)
>>> k.decapsulate(sk, ct) == ss, len(pk) == k.public_key_bytes
(True, True)
"""

from __future__ import annotations

from typing import Dict, List

from . import _latpoly

__all__ = ["names", "new", "kat_entry"]


def names() -> List[str]:
    """Names of every implemented KEM (as in their KAT files)."""
    return list(_latpoly.kem_names())


def _bytes(x, what: str) -> bytes:
    # A bytearray or memoryview is copied into an immutable bytes object, which Python frees
    # without wiping: a secret key kept in a bytearray (to wipe it later) leaves this copy
    # behind, as the returned shared secrets and keys (bytes) do. The Rust side wipes its own
    # copies.
    if not isinstance(x, (bytes, bytearray, memoryview)):
        raise ValueError(f"{what} must be bytes")
    return bytes(x)


class _Kem:
    __slots__ = ("_inner",)

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise ValueError("KEM name must be a string")
        self._inner = _latpoly.Kem(name)

    name = property(lambda self: self._inner.name)
    public_key_bytes = property(lambda self: self._inner.public_key_bytes)
    secret_key_bytes = property(lambda self: self._inner.secret_key_bytes)
    ciphertext_bytes = property(lambda self: self._inner.ciphertext_bytes)
    shared_secret_bytes = property(lambda self: self._inner.shared_secret_bytes)

    def keypair(self):
        """(public key, secret key) as bytes."""
        return self._inner.keypair()

    def encapsulate(self, pk: bytes):
        """(ciphertext, shared secret) as bytes; ValueError on a wrong-length key."""
        return self._inner.encapsulate(_bytes(pk, "pk"))

    def decapsulate(self, sk: bytes, ct: bytes) -> bytes:
        """The shared secret; ValueError on wrong lengths; invalid ciphertexts follow the scheme."""
        return self._inner.decapsulate(_bytes(sk, "sk"), _bytes(ct, "ct"))

    def __repr__(self) -> str:
        return f"latpoly.kem.new({self.name!r})"


def new(name: str) -> _Kem:
    """The KEM called `name` (see :func:`names`)."""
    return _Kem(name)


def kat_entry(name: str, seed48: bytes) -> Dict[str, bytes]:
    """One NIST KAT record: keypair, encapsulate and decapsulate driven by the KAT DRBG seeded
    with `seed48`. Returns {'pk', 'sk', 'ct', 'ss'}."""
    if not isinstance(name, str):
        raise ValueError("KEM name must be a string")
    return dict(_latpoly.kem_kat_entry(name, _bytes(seed48, "seed48")))
