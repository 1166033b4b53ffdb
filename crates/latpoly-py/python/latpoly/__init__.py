"""latpoly: fast, correct polynomial arithmetic for lattice cryptography.

Core objects (numpy arrays in and out):

* :func:`ntt_primes` -- NTT-friendly primes of a given size.
* :class:`NttPlan` -- negacyclic NTT and products over Z_q[x]/(x^n+1), q < 2^62.
* :class:`RnsRing` -- Z_Q[x]/(x^n+1) with Q a product of primes, exact big-integer CRT.

Every bad input (wrong length, wrong dtype, n not a power of two, q not NTT-friendly,
coefficient >= q) raises ``ValueError``. Kernels release the GIL.

>>> import numpy as np, latpoly
>>> q = latpoly.ntt_primes(50, 1024, 1)[0]
>>> plan = latpoly.NttPlan(1024, q)
>>> x = np.zeros(1024, dtype=np.uint64); x[1] = 1
>>> int(plan.multiply(x, x)[2])  # x * x = x^2
1
"""

from __future__ import annotations

import operator
from typing import Iterable, List, Optional, Sequence

import numpy as np

from . import _latpoly

__version__ = _latpoly.__version__
__all__ = ["NttPlan", "RnsRing", "ntt_primes", "is_prime", "primitive_2n_root"]

_U64_MAX = (1 << 64) - 1


def _u64_vector(a, name: str) -> np.ndarray:
    """Coerces `a` to a contiguous 1-D uint64 array or raises ValueError."""
    if isinstance(a, np.ma.MaskedArray):
        raise ValueError(f"{name} is a masked array; pass plain integer arrays")
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got {arr.ndim} dimensions")
    return _u64_array(arr, name)


def _u64_array(arr: np.ndarray, name: str) -> np.ndarray:
    kind = arr.dtype.kind
    if kind == "u":
        return np.ascontiguousarray(arr, dtype=np.uint64)
    if kind == "i":
        if arr.size and arr.min() < 0:
            raise ValueError(f"{name} has negative entries; expected residues in [0, q)")
        return np.ascontiguousarray(arr, dtype=np.uint64)
    if kind == "O":
        flat = [_as_int(x, name) for x in arr.ravel()]
        if any(x < 0 or x > _U64_MAX for x in flat):
            raise ValueError(f"{name} has entries outside [0, 2^64)")
        return np.array(flat, dtype=np.uint64).reshape(arr.shape)
    raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")


def _as_int(x, name: str) -> int:
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name} must hold integers, got a boolean")
    try:
        return operator.index(x)
    except TypeError:
        raise ValueError(f"{name} must hold integers, got {type(x).__name__}") from None


def _int_list(a: Iterable, name: str) -> List[int]:
    if isinstance(a, (str, bytes, dict, set, frozenset)) or isinstance(a, np.ma.MaskedArray):
        raise ValueError(f"{name} must be an ordered sequence of integers")
    if isinstance(a, np.ndarray):
        if a.ndim != 1:
            raise ValueError(f"{name} must be 1-dimensional")
        if a.dtype.kind not in "uiO":
            raise ValueError(f"{name} must hold integers, got dtype {a.dtype}")
        return [_as_int(x, name) for x in a.tolist()]
    try:
        return [_as_int(x, name) for x in a]
    except TypeError:
        raise ValueError(f"{name} must be a sequence of integers") from None


def _check_int(x, name: str) -> int:
    v = _as_int(x, name)
    if v < 0:
        raise ValueError(f"{name} must be non-negative, got {v}")
    return v


def ntt_primes(bits: int, n: int, count: int) -> List[int]:
    """Return `count` distinct primes of exactly `bits` bits with q = 1 (mod 2n), largest first.

    `bits` lies in 2..62 (64-bit lanes hold q < 2^62); `n` is a power of two.

    >>> ntt_primes(14, 1024, 1)
    [12289]
    """
    bits, n, count = (_check_int(v, k) for v, k in ((bits, "bits"), (n, "n"), (count, "count")))
    if bits > 64 or n > _U64_MAX or count > 1 << 32:
        raise ValueError("argument out of range")
    return _latpoly.ntt_primes(bits, n, count)


def is_prime(q: int) -> bool:
    """Deterministic primality test for 0 <= q < 2^64.

    >>> is_prime(12289), is_prime(12287 * 3)
    (True, False)
    """
    q = _check_int(q, "q")
    if q > _U64_MAX:
        raise ValueError("q must be below 2^64")
    return _latpoly.is_prime(q)


def primitive_2n_root(n: int, q: int) -> int:
    """Smallest primitive 2n-th root of unity psi modulo the prime q (psi^n = -1 mod q).

    >>> primitive_2n_root(4, 17)
    2
    """
    n, q = _check_int(n, "n"), _check_int(q, "q")
    if q > _U64_MAX or n > _U64_MAX:
        raise ValueError("argument out of range")
    return _latpoly.primitive_2n_root(n, q)


class NttPlan:
    """Negacyclic NTT over Z_q[x]/(x^n+1) with 64-bit lanes.

    `n` is a power of two in 2..2^17 and `q` a prime below 2^62 with q = 1 (mod 2n).
    The kernels run on the best backend this CPU has (see :attr:`isa`), capped by the
    environment variable ``LATPOLY_ISA``; ``isa='scalar'|'avx2'|'avx512'|'avx512ifma'`` forces
    one (ValueError if unavailable for this CPU, n or q).

    * :meth:`forward` -- natural order in, bit-reversed order out: index i holds
      a(psi^(2*brv(i)+1)).
    * :meth:`inverse` -- bit-reversed in, natural out, 1/n included.
    * :meth:`multiply` -- negacyclic product a*b mod (x^n+1, q).

    All return new uint64 arrays with entries in [0, q); inputs must be 1-D integer arrays of
    length n with entries in [0, q).

    >>> import numpy as np
    >>> plan = NttPlan(8, 17)
    >>> a = np.arange(8, dtype=np.uint64)
    >>> bool((plan.inverse(plan.forward(a)) == a).all())
    True
    """

    __slots__ = ("_inner",)

    def __init__(self, n: int, q: int, isa: Optional[str] = None):
        n, q = _check_int(n, "n"), _check_int(q, "q")
        if n > _U64_MAX or q > _U64_MAX:
            raise ValueError("n and q must fit in 64 bits")
        if isa is not None and not isinstance(isa, str):
            raise ValueError("isa must be a backend name or None")
        self._inner = _latpoly.NttPlan(n, q, isa)

    @staticmethod
    def available_isas(n: int, q: int) -> List[str]:
        """Backends this CPU can run for (n, q), best first (always ends with 'scalar')."""
        n, q = _check_int(n, "n"), _check_int(q, "q")
        if n > _U64_MAX or q > _U64_MAX:
            raise ValueError("n and q must fit in 64 bits")
        return _latpoly.NttPlan.available_isas(n, q)

    @property
    def n(self) -> int:
        """Transform size."""
        return self._inner.n

    @property
    def q(self) -> int:
        """The prime modulus."""
        return self._inner.q

    @property
    def psi(self) -> int:
        """The primitive 2n-th root of unity used by the plan."""
        return self._inner.psi

    @property
    def isa(self) -> str:
        """Instruction set the kernels run on ('scalar', ...)."""
        return self._inner.isa

    def forward(self, a) -> np.ndarray:
        """Forward NTT of `a` (entries in [0, q)); bit-reversed output in [0, q)."""
        return self._inner.forward(_u64_vector(a, "a"))

    def inverse(self, a) -> np.ndarray:
        """Inverse NTT (1/n included) of bit-reversed `a` (entries in [0, 2q)); output in [0, q)."""
        return self._inner.inverse(_u64_vector(a, "a"))

    def pointwise(self, a, b) -> np.ndarray:
        """Coefficient-wise product a[i]*b[i] mod q (NTT-domain product)."""
        return self._inner.pointwise(_u64_vector(a, "a"), _u64_vector(b, "b"))

    def multiply(self, a, b) -> np.ndarray:
        """Negacyclic product a*b mod (x^n+1, q); inputs and output in [0, q)."""
        return self._inner.multiply(_u64_vector(a, "a"), _u64_vector(b, "b"))

    def __repr__(self) -> str:
        return repr(self._inner)


class RnsRing:
    """Z_Q[x]/(x^n+1) with Q = q_1 * ... * q_L, distinct NTT-friendly primes below 2^62.

    Polynomials are given as sequences of n Python ints of any size (negative allowed); they
    are reduced mod Q. Products are computed in RNS/NTT form and reconstructed exactly by CRT.

    >>> ring = RnsRing(4, ntt_primes(60, 4, 2))
    >>> ring.multiply([0, 1, 0, 0], [0, 0, 0, 1]) == [ring.modulus - 1, 0, 0, 0]  # x * x^3 = -1
    True
    """

    __slots__ = ("_inner",)

    def __init__(self, n: int, moduli: Sequence[int]):
        n = _check_int(n, "n")
        mods = _int_list(moduli, "moduli")
        if n > _U64_MAX or any(m < 0 or m > _U64_MAX for m in mods):
            raise ValueError("n and the moduli must fit in 64 bits")
        self._inner = _latpoly.RnsRing(n, mods)

    @classmethod
    def with_prime_bits(cls, n: int, bits: int, count: int) -> "RnsRing":
        """A ring with `count` primes of exactly `bits` bits (see :func:`ntt_primes`)."""
        return cls(n, ntt_primes(bits, n, count))

    @property
    def n(self) -> int:
        """Ring degree."""
        return self._inner.n

    @property
    def moduli(self) -> List[int]:
        """The primes q_1..q_L."""
        return self._inner.moduli

    @property
    def modulus(self) -> int:
        """Q, the product of the primes."""
        return self._inner.modulus

    def _poly(self, a, name: str) -> List[int]:
        v = _int_list(a, name)
        if len(v) != self.n:
            raise ValueError(f"{name} must have length {self.n}, got {len(v)}")
        return v

    def multiply(self, a: Sequence[int], b: Sequence[int]) -> List[int]:
        """Negacyclic product a*b mod (x^n+1, Q), coefficients in [0, Q)."""
        return self._inner.multiply(self._poly(a, "a"), self._poly(b, "b"))

    def to_residues(self, a: Sequence[int]) -> np.ndarray:
        """Residues of `a` as a uint64 array of shape (L, n): row i is a mod q_i."""
        return self._inner.to_residues(self._poly(a, "a"))

    def from_residues(self, residues) -> List[int]:
        """Exact CRT reconstruction of an (L, n) residue array; coefficients in [0, Q)."""
        if isinstance(residues, np.ma.MaskedArray):
            raise ValueError("residues is a masked array; pass a plain integer array")
        arr = np.asarray(residues)
        if arr.ndim != 2:
            raise ValueError(f"residues must be 2-dimensional, got {arr.ndim} dimensions")
        return self._inner.from_residues(_u64_array(arr, "residues"))

    def __repr__(self) -> str:
        return repr(self._inner)
