"""latpoly: fast, correct polynomial arithmetic for lattice cryptography.

Core objects (numpy arrays in and out):

* :func:`ntt_primes` -- NTT-friendly primes of a given size (:func:`fast_ntt_primes`: the
  ones the AVX2 backend multiplies fastest).
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
from . import kem, rings  # noqa: E402  (submodules)

__version__ = _latpoly.__version__
__all__ = [
    "NttPlan",
    "RnsRing",
    "RnsPoly",
    "BaseExtender",
    "Sampler",
    "ntt_primes",
    "fast_ntt_primes",
    "is_prime",
    "primitive_2n_root",
    "transform_batch",
    "Lpr",
    "Bfv",
    "BfvKeySet",
    "BfvCiphertext",
]

_U64_MAX = (1 << 64) - 1

#: A BFV key set (from ``Bfv.keygen`` or ``Bfv.keys_from_bytes``); for type annotations.
BfvKeySet = _latpoly.BfvKeySet
#: A BFV ciphertext (from ``Bfv.encrypt`` and the operations); for type annotations.
BfvCiphertext = _latpoly.BfvCiphertext


def _sigma(sigma) -> float:
    """`sigma` as a float, or ValueError (bools, non-numbers, values beyond a float's range)."""
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, np.floating, np.integer)):
        raise ValueError("sigma must be a real number")
    try:
        return float(sigma)
    except OverflowError:
        raise ValueError("sigma is out of range") from None


#: The most primes an RNS basis holds (``latpoly::rns::MAX_PRIMES``): the ``with_prime_bits``
#: constructors refuse more before searching for them.
_MAX_PRIMES = 4096


def _prime_count(count) -> int:
    count = _check_int(count, "count")
    if count > _MAX_PRIMES:
        raise ValueError(f"count = {count}: an RNS basis holds at most {_MAX_PRIMES} primes")
    return count


def _lpr_obj(x, cls, name: str):
    if not isinstance(x, cls):
        raise ValueError(f"{name} must be a {cls.__name__}, got {type(x).__name__}")
    return x


def _keys(k):
    if not isinstance(k, BfvKeySet):
        raise ValueError(f"keys must be a BfvKeySet, got {type(k).__name__}")
    return k


def _ct(c, name: str = "ct"):
    if not isinstance(c, BfvCiphertext):
        raise ValueError(f"{name} must be a BfvCiphertext, got {type(c).__name__}")
    return c


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


def _flag(x, name: str) -> bool:
    # bool(x) would read any object as a flag ("False" is true): a flag is a bool (Python's or
    # numpy's), nothing else, None included.
    if not isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {type(x).__name__}")
    return bool(x)


def _int_list(a: Iterable, name: str) -> List[int]:
    # Byte strings and buffers are refused: their elements are bytes, not coefficients.
    if isinstance(a, (str, bytes, bytearray, memoryview, dict, set, frozenset)) or isinstance(
        a, np.ma.MaskedArray
    ):
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


def _check_int(x, name: str, bits: int = 64) -> int:
    v = _as_int(x, name)
    if v < 0:
        raise ValueError(f"{name} must be non-negative, got {v}")
    if v >> bits:
        # the Rust side takes 64-bit integers; PyO3 would raise OverflowError, not ValueError
        raise ValueError(f"{name} must be below 2^{bits}, got {v}")
    return v


def _check_i64(x, name: str) -> int:
    v = _as_int(x, name)
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError(f"{name} must fit in 64 signed bits, got {v}")
    return v


def _check_u64(x, name: str) -> int:
    v = _check_int(x, name)
    if v > _U64_MAX:
        raise ValueError(f"{name} must fit in 64 bits, got {v}")
    return v


def ntt_primes(bits: int, n: int, count: int) -> List[int]:
    """Return `count` distinct primes of exactly `bits` bits with q = 1 (mod 2n), largest first.

    `bits` lies in 2..62 (64-bit lanes hold q < 2^62); `n` is a power of two; `count` is at
    most 4096, the most an RNS basis holds (more is refused before the search).

    >>> ntt_primes(14, 1024, 1)
    [12289]
    """
    bits, n, count = (_check_int(v, k) for v, k in ((bits, "bits"), (n, "n"), (count, "count")))
    if bits > 64 or n > _U64_MAX:
        raise ValueError("argument out of range")
    count = _prime_count(count)
    return _latpoly.ntt_primes(bits, n, count)


def fast_ntt_primes(bits: int, n: int, count: int) -> List[int]:
    """Return `count` distinct primes of exactly `bits` bits with q = 1 (mod 2^32), largest first.

    NTT primes for every power-of-two `n <= 2^31` that the 64-bit AVX2 integer backend (q >=
    2^50) multiplies faster: with q = k * 2^32 + 1 its products by q take one 32-bit partial
    product instead of three (about 15% faster transforms). `bits` lies in 37..62; `count` is
    at most 4096.

    >>> q = fast_ntt_primes(60, 8192, 1)[0]
    >>> q.bit_length(), q % 2**32
    (60, 1)
    """
    bits, n, count = (_check_int(v, k) for v, k in ((bits, "bits"), (n, "n"), (count, "count")))
    if bits > 64 or n > _U64_MAX:
        raise ValueError("argument out of range")
    count = _prime_count(count)
    return _latpoly.fast_ntt_primes(bits, n, count)


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
    length n with entries in [0, q) (``inverse`` also takes [0, 2q), the lazy range).

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
        """Backends this CPU offers for size n modulo q, best first (always ends with 'scalar').

        Does not check that (n, q) admits a transform at all; the constructor does.
        """
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

    def multiply(self, a, b, out=None) -> np.ndarray:
        """Negacyclic product a*b mod (x^n+1, q); inputs and output in [0, q).

        With `out` (a writable, contiguous 1-D uint64 array of n entries that shares no memory
        with `a` or `b`) the product is written there and `out` is returned: no new array.
        An input coefficient of q or more raises ValueError and leaves `out` zero.
        """
        a, b = _u64_vector(a, "a"), _u64_vector(b, "b")
        if out is None:
            return self._inner.multiply(a, b)
        if not isinstance(out, np.ndarray) or out.dtype != np.uint64 or out.ndim != 1:
            raise ValueError("out must be a 1-D numpy array of dtype uint64")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("out must be contiguous and writeable")
        if np.shares_memory(out, a) or np.shares_memory(out, b):
            raise ValueError("out must not share memory with a or b")
        self._inner.multiply_into(a, b, out)
        return out

    def __repr__(self) -> str:
        return repr(self._inner)

    def __eq__(self, other) -> bool:
        """Plans are equal when they compute the same transform: same n, q and root psi
        (the backend does not change results).

        >>> NttPlan(8, 17) == NttPlan(8, 17, isa="scalar"), NttPlan(8, 17) == NttPlan(8, 97)
        (True, False)
        """
        return isinstance(other, NttPlan) and (self.n, self.q, self.psi) == (
            other.n,
            other.q,
            other.psi,
        )

    def __hash__(self) -> int:
        return hash((self.n, self.q, self.psi))


def _seed_bytes(seed) -> Optional[bytes]:
    if seed is None:
        return None
    if isinstance(seed, (bytes, bytearray, memoryview)):
        b = bytes(seed)
        if len(b) != 32:
            raise ValueError(f"seed must be 32 bytes, got {len(b)}")
        return b
    v = _check_int(seed, "seed", bits=256)
    return v.to_bytes(32, "little")


class Sampler:
    """Seedable, constant-time samplers (ChaCha20 stream).

    ``seed`` is None (fresh seed from the OS), 32 bytes, or an integer below 2^256; the same
    seed gives the same outputs. Results are numpy int64 arrays; centred distributions are
    signed.

    >>> s = Sampler(seed=7)
    >>> bool((s.uniform(8, 17) < 17).all()) and len(Sampler(seed=7).cbd(4, 2)) == 4
    True
    >>> bool((Sampler(seed=1).gaussian(16, 3.19) == Sampler(seed=1).gaussian(16, 3.19)).all())
    True
    """

    __slots__ = ("_inner",)

    def __init__(self, seed=None):
        self._inner = _latpoly.Sampler(_seed_bytes(seed))

    def uniform(self, n: int, q: int) -> np.ndarray:
        """n values uniform in [0, q), for 1 <= q <= 2^63 (int64 results)."""
        return self._inner.uniform(_check_int(n, "n"), _check_int(q, "q"))

    def bounded(self, n: int, bound: int) -> np.ndarray:
        """n values uniform in [-bound, bound]."""
        return self._inner.bounded(_check_int(n, "n"), _check_int(bound, "bound"))

    def cbd(self, n: int, eta: int) -> np.ndarray:
        """n values from the centred binomial distribution CBD_eta (in [-eta, eta])."""
        return self._inner.cbd(_check_int(n, "n"), _check_int(eta, "eta", bits=32))

    def gaussian(self, n: int, sigma: float) -> np.ndarray:
        """n values from the discrete Gaussian with standard deviation sigma (e.g. 3.19)."""
        return self._inner.gaussian(_check_int(n, "n"), _sigma(sigma))

    def ternary(self, n: int) -> np.ndarray:
        """n values uniform in {-1, 0, 1}."""
        return self._inner.ternary(_check_int(n, "n"))

    def ternary_fixed(self, n: int, weight: int) -> np.ndarray:
        """n values in {-1, 0, 1} with exactly `weight` non-zero entries."""
        return self._inner.ternary_fixed(_check_int(n, "n"), _check_int(weight, "weight"))

    def uniform_poly(self, ring: "RnsRing", ntt: bool = False) -> "RnsPoly":
        """A polynomial uniform mod Q of `ring` (in NTT form if ntt=True)."""
        if not isinstance(ring, RnsRing):
            raise ValueError("ring must be a latpoly.RnsRing")
        return RnsPoly._wrap(self._inner.uniform_poly(ring._inner, _flag(ntt, "ntt")))


class RnsRing:
    """Z_Q[x]/(x^n+1) with Q = q_1 * ... * q_L, distinct NTT-friendly primes below 2^62.

    Polynomials are given as sequences of n Python ints of any size (negative allowed); they
    are reduced mod Q. Products are computed in RNS/NTT form and reconstructed exactly by CRT.

    >>> ring = RnsRing(4, ntt_primes(60, 4, 2))
    >>> ring.multiply([0, 1, 0, 0], [0, 0, 0, 1]) == [ring.modulus - 1, 0, 0, 0]  # x * x^3 = -1
    True
    """

    __slots__ = ("_inner",)

    @classmethod
    def _wrap(cls, inner) -> "RnsRing":
        r = cls.__new__(cls)
        r._inner = inner
        return r

    def __init__(self, n: int, moduli: Sequence[int]):
        n = _check_int(n, "n")
        mods = _int_list(moduli, "moduli")
        if n > _U64_MAX or any(m < 0 or m > _U64_MAX for m in mods):
            raise ValueError("n and the moduli must fit in 64 bits")
        self._inner = _latpoly.RnsRing(n, mods)

    @classmethod
    def with_prime_bits(cls, n: int, bits: int, count: int) -> "RnsRing":
        """A ring with `count` primes of exactly `bits` bits (see :func:`ntt_primes`)."""
        return cls(n, ntt_primes(bits, n, _prime_count(count)))

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

    def __eq__(self, other) -> bool:
        return isinstance(other, RnsRing) and self._inner == other._inner

    def __hash__(self) -> int:
        return hash((self.n, tuple(self.moduli)))


def _ring_poly(self, a: Sequence[int]) -> "RnsPoly":
    """A polynomial from n integers of any size (reduced mod Q), coefficient form."""
    return RnsPoly._wrap(self._inner.poly(self._poly(a, "a")))


def _ring_poly_from_residues(self, residues, ntt: bool = False) -> "RnsPoly":
    """A polynomial from an (L, n) residue array (row i modulo q_i), coefficient or NTT form."""
    if isinstance(residues, np.ma.MaskedArray):
        raise ValueError("residues is a masked array; pass a plain integer array")
    arr = np.asarray(residues)
    if arr.ndim != 2:
        raise ValueError(f"residues must be 2-dimensional, got {arr.ndim} dimensions")
    return RnsPoly._wrap(self._inner.poly_from_residues(_u64_array(arr, "residues"), _flag(ntt, "ntt")))


def _ring_poly_from_bytes(self, data: bytes) -> "RnsPoly":
    """Decodes RnsPoly.to_bytes() output, checking it belongs to this ring."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError("data must be bytes")
    return RnsPoly._wrap(self._inner.poly_from_bytes(bytes(data)))


def _ring_drop_last(self) -> "RnsRing":
    """The ring without its last prime (where rescaled polynomials live)."""
    return RnsRing._wrap(self._inner.drop_last())


RnsRing.poly = _ring_poly
RnsRing.poly_from_residues = _ring_poly_from_residues
RnsRing.poly_from_bytes = _ring_poly_from_bytes
RnsRing.drop_last = _ring_drop_last


class RnsPoly:
    """A polynomial of an :class:`RnsRing` in RNS form, in coefficient or NTT representation.

    Made by ``ring.poly(ints)``, ``ring.poly_from_residues(arr)``, ``Sampler.uniform_poly``
    or ``RnsPoly.from_bytes``. Operations return new polynomials.

    >>> ring = RnsRing(4, ntt_primes(40, 4, 2))
    >>> x = ring.poly([0, 1, 0, 0])
    >>> (x * x).to_centered_ints(), x.automorphism(3).to_centered_ints()
    ([0, 0, 1, 0], [0, 0, 0, 1])
    >>> RnsPoly.from_bytes(x.to_bytes()).to_ints() == x.to_ints()
    True
    """

    __slots__ = ("_inner",)

    def __init__(self):
        raise ValueError("make polynomials with RnsRing.poly / poly_from_residues / from_bytes")

    @classmethod
    def _wrap(cls, inner) -> "RnsPoly":
        p = cls.__new__(cls)
        p._inner = inner
        return p

    @property
    def ring(self) -> RnsRing:
        """The ring of this polynomial."""
        return RnsRing._wrap(self._inner.ring)

    @property
    def is_ntt(self) -> bool:
        """True in NTT (evaluation) representation."""
        return self._inner.is_ntt

    @property
    def residues(self) -> np.ndarray:
        """Residues as a uint64 array of shape (L, n)."""
        return self._inner.residues

    def to_ntt(self) -> "RnsPoly":
        """Copy in NTT representation."""
        return RnsPoly._wrap(self._inner.to_ntt())

    def to_coeff(self) -> "RnsPoly":
        """Copy in coefficient representation."""
        return RnsPoly._wrap(self._inner.to_coeff())

    def to_ints(self) -> List[int]:
        """Exact coefficients in [0, Q)."""
        return self._inner.to_ints()

    def to_centered_ints(self) -> List[int]:
        """Exact coefficients in (-Q/2, Q/2]."""
        return self._inner.to_centered_ints()

    def _other(self, other) -> "RnsPoly":
        if not isinstance(other, RnsPoly):
            raise ValueError("operand must be an RnsPoly")
        return other._inner

    def __add__(self, other) -> "RnsPoly":
        return RnsPoly._wrap(self._inner + self._other(other))

    def __sub__(self, other) -> "RnsPoly":
        return RnsPoly._wrap(self._inner - self._other(other))

    def __neg__(self) -> "RnsPoly":
        return RnsPoly._wrap(-self._inner)

    def __mul__(self, other) -> "RnsPoly":
        """Ring product (pointwise if both are in NTT form, else full product in coefficient form)."""
        return RnsPoly._wrap(self._inner * self._other(other))

    def scalar_mul(self, c: int) -> "RnsPoly":
        """Product with an integer of any size."""
        return RnsPoly._wrap(self._inner.scalar_mul(_as_int(c, "c")))

    def automorphism(self, k: int) -> "RnsPoly":
        """a(x) -> a(x^k) for odd k (either representation)."""
        return RnsPoly._wrap(self._inner.automorphism(_as_int(k, "k") % (2 * self.ring.n)))

    def mul_monomial(self, j: int) -> "RnsPoly":
        """Product with x^j (any integer j)."""
        return RnsPoly._wrap(self._inner.mul_monomial(_as_int(j, "j") % (2 * self.ring.n)))

    def rescale(self) -> "RnsPoly":
        """round(a / q_L) in the ring without the last prime."""
        return RnsPoly._wrap(self._inner.rescale())

    def drop_last_modulus(self) -> "RnsPoly":
        """a mod (Q / q_L), without division."""
        return RnsPoly._wrap(self._inner.drop_last_modulus())

    def to_bytes(self) -> bytes:
        """Compact, versioned binary encoding."""
        return self._inner.to_bytes()

    @staticmethod
    def from_bytes(data: bytes) -> "RnsPoly":
        """Decodes to_bytes() output (its own ring is rebuilt from the header)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ValueError("data must be bytes")
        return RnsPoly._wrap(_latpoly.RnsPoly.from_bytes(bytes(data)))

    def __repr__(self) -> str:
        return repr(self._inner)


class BaseExtender:
    """Converts polynomials from the ring `source` to the ring `target` (same n).

    >>> q = RnsRing(8, ntt_primes(50, 8, 2)); p = RnsRing(8, ntt_primes(40, 8, 3))
    >>> BaseExtender(q, p).extend_exact(q.poly([-5] * 8), centered=True).to_centered_ints()[0]
    -5
    """

    __slots__ = ("_inner",)

    def __init__(self, source: RnsRing, target: RnsRing):
        if not isinstance(source, RnsRing) or not isinstance(target, RnsRing):
            raise ValueError("source and target must be RnsRing objects")
        self._inner = _latpoly.BaseExtender(source._inner, target._inner)

    @property
    def isa(self) -> str:
        """Backend of the conversion kernel: "avx512", "avx2" or "scalar" (chosen when the
        extender is built, capped by LATPOLY_ISA; every backend gives the same residues)."""
        return self._inner.isa

    def extend_exact(self, poly: RnsPoly, centered: bool = False) -> RnsPoly:
        """x mod P, for x the representative in [0, Q) (or (-Q/2, Q/2) if centered)."""
        if not isinstance(poly, RnsPoly):
            raise ValueError("poly must be an RnsPoly")
        return RnsPoly._wrap(self._inner.extend_exact(poly._inner, _flag(centered, "centered")))

    def extend_fast(self, poly: RnsPoly) -> RnsPoly:
        """x + u Q mod P for some 0 <= u < L (no correction)."""
        if not isinstance(poly, RnsPoly):
            raise ValueError("poly must be an RnsPoly")
        return RnsPoly._wrap(self._inner.extend_fast(poly._inner))


def transform_batch(polys: Sequence[RnsPoly], ntt: bool, threads: Optional[int] = None) -> List[RnsPoly]:
    """Converts many polynomials to NTT (ntt=True) or coefficient form in parallel, all limbs
    of all polynomials spread over `threads` worker threads (default: all cores)."""
    ps = list(polys)
    if not all(isinstance(p, RnsPoly) for p in ps):
        raise ValueError("polys must be RnsPoly objects")
    if threads is not None:
        threads = _check_int(threads, "threads")
        if threads < 1 or threads > 1024:
            raise ValueError("threads must lie in 1..1024")
    out = _latpoly.transform_batch([p._inner for p in ps], _flag(ntt, "ntt"), threads)
    return [RnsPoly._wrap(p) for p in out]


def _bits(a, n: int) -> np.ndarray:
    if isinstance(a, np.ma.MaskedArray):
        raise ValueError("bits is a masked array")
    arr = np.asarray(a)
    if arr.ndim != 1 or arr.dtype.kind not in "uib":
        raise ValueError("message must be a 1-D array of 0/1 integers")
    if arr.shape[0] != n:
        raise ValueError(f"message must have {n} bits, got {arr.shape[0]}")
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ValueError("message bits must be 0 or 1")
    return np.ascontiguousarray(arr, dtype=np.uint8)


class Lpr:
    """LPR Ring-LWE public-key encryption (NFLlib paper, Algorithms 3 and 4): n message bits
    per ciphertext, keys and ciphertexts in NTT form, 16-bit lanes (q < 2^14).

    Presets by ``n``: 256 and 512 (q = 12289, Gaussian sigma = 3.19), 1024 (q = 12289, CBD_2);
    ``q``, ``sigma`` or ``eta`` override them. ``seed`` (32 bytes or an int) makes runs
    reproducible.

    >>> import numpy as np
    >>> lpr = Lpr(256, seed=1)
    >>> pk, sk = lpr.keygen()
    >>> bits = np.arange(256) % 2
    >>> bool((lpr.decrypt(sk, lpr.encrypt(pk, bits)) == bits).all())
    True
    """

    __slots__ = ("_inner",)

    def __init__(self, n: int = 256, q: Optional[int] = None, sigma: Optional[float] = None,
                 eta: Optional[int] = None, seed=None):
        n = _check_int(n, "n")
        q = None if q is None else _check_int(q, "q")
        eta = None if eta is None else _check_int(eta, "eta")
        sigma = None if sigma is None else _sigma(sigma)
        if n > _U64_MAX or (q is not None and q > _U64_MAX) or (eta is not None and eta > 2**31):
            raise ValueError("argument out of range")
        self._inner = _latpoly.Lpr(n, q, sigma, eta, _seed_bytes(seed))

    @property
    def n(self) -> int:
        return self._inner.n

    @property
    def q(self) -> int:
        return self._inner.q

    def keygen(self):
        """Returns (public_key, secret_key)."""
        return self._inner.keygen()

    def encrypt(self, pk, bits):
        """Encrypts n bits (an array of 0/1 values)."""
        return self._inner.encrypt(_lpr_obj(pk, _latpoly.LprPk, "pk"), _bits(bits, self.n))

    def decrypt(self, sk, ct) -> np.ndarray:
        """Decrypts to a uint8 array of n bits."""
        sk = _lpr_obj(sk, _latpoly.LprSk, "sk")
        return self._inner.decrypt(sk, _lpr_obj(ct, _latpoly.LprCt, "ct"))

    def decrypt_batch(self, sk, cts, threads: Optional[int] = None) -> np.ndarray:
        """Decrypts many ciphertexts; returns a uint8 array of shape (len(cts), n)."""
        sk = _lpr_obj(sk, _latpoly.LprSk, "sk")
        try:
            cts = list(cts)
        except TypeError:
            raise ValueError("cts must be an iterable of LPR ciphertexts") from None
        for c in cts:
            _lpr_obj(c, _latpoly.LprCt, "every ciphertext")
        if threads is not None:
            threads = _check_int(threads, "threads")
            if not 1 <= threads <= 1024:
                raise ValueError("threads must lie in 1..1024")
        flat = self._inner.decrypt_batch(sk, cts, threads)
        return flat.reshape(len(cts), self.n)


class Bfv:
    """The FV/BFV somewhat-homomorphic scheme: plaintexts are n coefficients mod t, ciphertexts
    live in RNS form modulo Q = product of ``moduli``.

    >>> import numpy as np
    >>> bfv = Bfv.with_prime_bits(1024, 30, 3, t=257, seed=2)
    >>> keys = bfv.keygen()
    >>> a = np.zeros(1024, dtype=np.uint64); a[0] = 3
    >>> b = np.zeros(1024, dtype=np.uint64); b[1] = 5
    >>> c = bfv.multiply_relin(keys, bfv.encrypt(keys, a), bfv.encrypt(keys, b))
    >>> int(bfv.decrypt(keys, c)[1]), bfv.noise_budget(keys, c) > 0
    (15, True)
    """

    __slots__ = ("_inner",)

    def __init__(self, n: int, moduli: Sequence[int], t: int, sigma: float = 3.19, seed=None):
        n, t = _check_int(n, "n"), _check_int(t, "t")
        mods = _int_list(moduli, "moduli")
        if n > _U64_MAX or t > _U64_MAX or any(m < 0 or m > _U64_MAX for m in mods):
            raise ValueError("n, t and the moduli must fit in 64 bits")
        self._inner = _latpoly.Bfv(n, mods, t, _sigma(sigma), _seed_bytes(seed))

    @classmethod
    def with_prime_bits(cls, n: int, bits: int, count: int, t: int, seed=None) -> "Bfv":
        """`count` primes of `bits` bits."""
        return cls(n, ntt_primes(bits, n, _prime_count(count)), t, seed=seed)

    @classmethod
    def n4096_q124(cls, t: int = 65537, seed=None) -> "Bfv":
        """n = 4096 with a 124-bit Q (2 primes of 62 bits)."""
        return cls.with_prime_bits(4096, 62, 2, t, seed)

    @classmethod
    def n8192_q218(cls, t: int = 65537, seed=None) -> "Bfv":
        """n = 8192 with a ~218-bit Q (4 primes of 55 bits)."""
        return cls.with_prime_bits(8192, 55, 4, t, seed)

    @property
    def n(self) -> int:
        return self._inner.n

    @property
    def t(self) -> int:
        return self._inner.t

    @property
    def moduli(self) -> List[int]:
        return self._inner.moduli

    def keygen(self):
        """Secret, public and relinearization keys (one key-set object; its
        ``secret_bytes`` / ``public_bytes`` / ``relin_bytes`` serialize them, ``without_secret``
        drops the secret key, ``keys_from_bytes`` reads them back)."""
        return self._inner.keygen()

    def encrypt(self, keys, m) -> object:
        """Encrypts n plaintext coefficients in [0, t)."""
        return self._inner.encrypt(_keys(keys), _u64_vector(m, "m"))

    def encrypt_symmetric(self, keys, m) -> object:
        """Encrypts n plaintext coefficients in [0, t) with the secret key of ``keys``:
        ``(-(a s) + e + round(Q m / t), a)``, ``a`` uniform from a fresh 32-byte seed. Less
        fresh noise than ``encrypt`` (``e`` alone); computes like any other ciphertext.

        >>> import numpy as np
        >>> bfv = Bfv.with_prime_bits(1024, 40, 3, t=257, seed=5)
        >>> keys = bfv.keygen()
        >>> m = np.arange(1024, dtype=np.uint64) % 257
        >>> c = bfv.encrypt_symmetric(keys, m)
        >>> bool((bfv.decrypt(keys, c) == m).all())
        True
        >>> bfv.noise_budget(keys, c) > bfv.noise_budget(keys, bfv.encrypt(keys, m))
        True
        """
        return self._inner.encrypt_symmetric(_keys(keys), _u64_vector(m, "m"))

    def encrypt_symmetric_bytes(self, keys, m) -> bytes:
        """``encrypt_symmetric`` in compact form, as bytes: ``c_0`` and the 32-byte seed of
        ``a``, about half the bytes of ``encrypt_symmetric(keys, m).to_bytes()``. Whoever holds
        the parameters reads it back with ``ciphertext_from_seeded_bytes``.

        >>> import numpy as np
        >>> bfv = Bfv.with_prime_bits(1024, 40, 3, t=257, seed=6)
        >>> keys = bfv.keygen()
        >>> m = np.full(1024, 7, dtype=np.uint64)
        >>> data = bfv.encrypt_symmetric_bytes(keys, m)
        >>> len(data), len(bfv.encrypt_symmetric(keys, m).to_bytes())
        (15434, 30796)
        >>> c = bfv.ciphertext_from_seeded_bytes(data)
        >>> int(bfv.decrypt(keys, bfv.add(c, c))[0])
        14
        """
        return self._inner.encrypt_symmetric_bytes(_keys(keys), _u64_vector(m, "m"))

    def ciphertext_from_seeded_bytes(self, data) -> object:
        """The full ciphertext of the bytes of ``encrypt_symmetric_bytes`` for this instance's n
        and moduli (ValueError for malformed bytes, a full ciphertext's bytes or another
        basis)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ValueError("data must be bytes")
        return self._inner.ciphertext_from_seeded_bytes(bytes(data))

    def decrypt(self, keys, ct) -> np.ndarray:
        """Decrypts to n coefficients in [0, t) (uint64)."""
        return self._inner.decrypt(_keys(keys), _ct(ct))

    def noise_budget(self, keys, ct) -> int:
        """Remaining invariant noise budget in bits (0: decryption may fail)."""
        return self._inner.noise_budget(_keys(keys), _ct(ct))

    def lower(self, primes: int) -> "Bfv":
        """The instance over the first ``primes`` primes of Q (same n, t and sigma), where
        ``mod_switch`` moves ciphertexts; ``primes`` from 1 to ``len(moduli)``. Its sampler is
        forked from this one's, so a seeded instance gives a reproducible lower one. Building
        it precomputes tables as the constructor does: keep it for reuse. The relinearization
        and Galois keys of this instance serve the lower one too (no secret needed); an
        instance built by the constructor over the same primes refuses them.

        >>> bfv = Bfv.with_prime_bits(1024, 50, 3, t=65537, seed=8)
        >>> low = bfv.lower(1)
        >>> low.moduli == bfv.moduli[:1], low.t
        (True, 65537)
        """
        primes = _check_int(primes, "primes")
        if not 1 <= primes <= len(self.moduli):
            raise ValueError(f"primes must lie in 1..{len(self.moduli)}, got {primes}")
        out = Bfv.__new__(Bfv)
        out._inner = self._inner.lower(primes)
        return out

    def mod_switch(self, ct, target: "Bfv"):
        """``ct`` switched down to the modulus of ``target`` (an instance from ``lower``): each
        polynomial scaled by Q_k / Q and rounded, one dropped prime at a time. The result
        belongs to ``target``, decrypts there with ``secret_key_for(keys, target)`` to the
        same plaintext, and is ``len(moduli) - k`` limbs shorter; it keeps its noise budget
        (relative to the modulus) up to a ceiling near log2(Q_k / t) less a few bits of
        rounding. The way a server shortens an answer.

        >>> import numpy as np
        >>> bfv = Bfv.with_prime_bits(1024, 50, 3, t=65537, seed=9)
        >>> keys = bfv.keygen()
        >>> m = np.arange(1024, dtype=np.uint64)
        >>> c = bfv.multiply_relin(keys, bfv.encrypt(keys, m), bfv.encrypt(keys, m))
        >>> low = bfv.lower(1)
        >>> short = bfv.mod_switch(c, low)
        >>> len(short.to_bytes()) * 2 < len(c.to_bytes())
        True
        >>> sk = bfv.secret_key_for(keys, low)
        >>> bool((low.decrypt(sk, short) == bfv.decrypt(keys, c)).all())
        True
        """
        return self._inner.mod_switch(_ct(ct), _lpr_obj(target, Bfv, "target")._inner)

    def secret_key_for(self, keys, target: "Bfv"):
        """A key set holding the secret key of ``keys`` (a key of this instance) as a key of
        ``target`` (an instance from ``lower``): the same secret in fewer limbs."""
        return self._inner.secret_key_for(_keys(keys), _lpr_obj(target, Bfv, "target")._inner)

    def keygen_with_secret(self, keys):
        """Secret, public and relinearization keys for the secret key of ``keys`` (a key of
        this instance), as ``keygen`` makes them for a fresh secret: for instance keys of a
        lower instance for the secret of the full one (the full instance's own keys serve
        there too)."""
        return self._inner.keygen_with_secret(_keys(keys))

    def add(self, a, b):
        return self._inner.add(_ct(a, "a"), _ct(b, "b"))

    def sub(self, a, b):
        return self._inner.sub(_ct(a, "a"), _ct(b, "b"))

    def add_plain(self, ct, m):
        """ct + m for n plaintext coefficients in [0, t) (with batching: slot-wise)."""
        return self._inner.add_plain(_ct(ct), _u64_vector(m, "m"))

    def sub_plain(self, ct, m):
        """ct - m for n plaintext coefficients in [0, t) (with batching: slot-wise)."""
        return self._inner.sub_plain(_ct(ct), _u64_vector(m, "m"))

    def negate(self, ct):
        """-ct: decrypts to -m mod t (2- or 3-polynomial ciphertexts; no noise growth)."""
        return self._inner.negate(_ct(ct))

    def multiply_scalar(self, ct, k):
        """ct * k for a constant k in [0, t) (with batching: every slot times k): the ciphertext
        ``multiply_plain`` gives for the plaintext polynomial k, without its transforms.

        >>> bfv = Bfv.with_prime_bits(16, 40, 3, t=97, seed=4)
        >>> keys = bfv.keygen()
        >>> c = bfv.multiply_scalar(bfv.encrypt(keys, list(range(16))), 95)  # 95 is -2 mod 97
        >>> bfv.decrypt(keys, c).tolist() == [x * 95 % 97 for x in range(16)]
        True
        """
        return self._inner.multiply_scalar(_ct(ct), _check_u64(k, "k"))

    def multiply_plain(self, ct, m):
        """ct * m for n plaintext coefficients in [0, t): the product in Z_t[x]/(x^n + 1), with
        batching the slot-wise product by ``decode_slots(m)`` (2- or 3-polynomial ciphertexts).

        >>> import numpy as np
        >>> bfv = Bfv.with_prime_bits(16, 40, 3, t=97, seed=4)
        >>> keys = bfv.keygen()
        >>> x, w = np.arange(16, dtype=np.uint64), np.full(16, 3, dtype=np.uint64)
        >>> c = bfv.multiply_plain(bfv.encrypt(keys, bfv.encode_slots(x)), bfv.encode_slots(w))
        >>> bfv.decode_slots(bfv.decrypt(keys, c)).tolist() == (3 * x % 97).tolist()
        True
        """
        return self._inner.multiply_plain(_ct(ct), _u64_vector(m, "m"))

    def parts(self, ct) -> List["RnsPoly"]:
        """The ciphertext's 2 or 3 polynomials (coefficient form, modulo Q), e.g. to store or
        send them with ``RnsPoly.to_bytes``.

        >>> import numpy as np
        >>> bfv = Bfv.with_prime_bits(16, 30, 3, t=257, seed=5)
        >>> keys = bfv.keygen()
        >>> ct = bfv.encrypt(keys, np.arange(16, dtype=np.uint64))
        >>> blobs = [p.to_bytes() for p in bfv.parts(ct)]
        >>> back = bfv.ciphertext_from_parts([RnsPoly.from_bytes(b) for b in blobs])
        >>> bfv.decrypt(keys, back).tolist() == list(range(16))
        True
        """
        return [RnsPoly._wrap(p) for p in self._inner.parts(_ct(ct))]

    def ciphertext_from_parts(self, parts) -> object:
        """A ciphertext from 2 or 3 polynomials modulo this instance's Q (as ``parts`` gives
        them); ValueError for another count or another basis."""
        try:
            polys = list(parts)
        except TypeError:
            raise ValueError("parts must be an iterable of RnsPoly objects") from None
        if not all(isinstance(p, RnsPoly) for p in polys):
            raise ValueError("parts must be RnsPoly objects")
        return self._inner.ciphertext_from_parts([p._inner for p in polys])

    @property
    def batching(self) -> bool:
        """True when t is a prime = 1 mod 2n: plaintexts then hold n slots (``encode_slots``)
        that rotations move (``rotate_rows``, ``swap_rows``)."""
        return self._inner.batching

    def encode_slots(self, values) -> np.ndarray:
        """The plaintext polynomial (uint64, n coefficients below t) whose slots hold the n
        ``values`` (each below t), read as a 2 x n/2 matrix row by row. Sums and products of
        plaintexts and of their encryptions act slot by slot.

        >>> import numpy as np
        >>> bfv = Bfv.with_prime_bits(16, 30, 3, t=97, seed=3)
        >>> keys = bfv.keygen()
        >>> x, y = np.arange(16, dtype=np.uint64), np.full(16, 2, dtype=np.uint64)
        >>> c = bfv.multiply_relin(keys, bfv.encrypt(keys, bfv.encode_slots(x)),
        ...                        bfv.encrypt(keys, bfv.encode_slots(y)))
        >>> bfv.decode_slots(bfv.decrypt(keys, c)).tolist() == (2 * x % 97).tolist()
        True
        """
        return self._inner.encode_slots(_u64_vector(values, "values"))

    def decode_slots(self, plain) -> np.ndarray:
        """The n slot values of a plaintext polynomial (the inverse of ``encode_slots``)."""
        return self._inner.decode_slots(_u64_vector(plain, "plain"))

    def rotation_element(self, steps: int) -> int:
        """The Galois element 3^steps mod 2n, which rotates the slot rows by ``steps``."""
        return self._inner.rotation_element(_check_i64(steps, "steps"))

    def row_swap_element(self) -> int:
        """The Galois element 2n - 1, which exchanges the two slot rows."""
        return self._inner.row_swap_element()

    def with_galois_keys(self, keys, elements: Sequence[int]):
        """A copy of ``keys`` (which must hold the secret key) with Galois keys for the given
        elements (odd, below 2n; replacing any the set had)."""
        els = [_check_u64(g, "elements") for g in _int_list(elements, "elements")]
        return self._inner.with_galois_keys(_keys(keys), els)

    def with_rotation_keys(self, keys, steps: Sequence[int], swap: bool = True):
        """A copy of ``keys`` with the Galois keys that ``rotate_rows`` needs for each of
        ``steps`` and, if ``swap``, that ``swap_rows`` needs.

        >>> import numpy as np
        >>> bfv = Bfv.with_prime_bits(16, 30, 3, t=97, seed=3)
        >>> keys = bfv.with_rotation_keys(bfv.keygen(), [1, -1])
        >>> keys.galois_elements
        [3, 11, 31]
        >>> c = bfv.encrypt(keys, bfv.encode_slots(np.arange(16, dtype=np.uint64)))
        >>> bfv.decode_slots(bfv.decrypt(keys, bfv.rotate_rows(keys, c, 1))).tolist()
        [1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8]
        >>> bfv.decode_slots(bfv.decrypt(keys, bfv.swap_rows(keys, c)))[:4].tolist()
        [8, 9, 10, 11]
        """
        els = [self.rotation_element(k) for k in _int_list(steps, "steps")]
        if _flag(swap, "swap"):
            els.append(self.row_swap_element())
        return self.with_galois_keys(keys, [g for g in els if g != 1])

    def apply_galois(self, keys, ct, g: int):
        """x -> x^g on an encrypted plaintext (``keys`` must hold the Galois key of g; 1 is the
        identity)."""
        return self._inner.apply_galois(_keys(keys), _ct(ct), _check_u64(g, "g"))

    def rotate_rows(self, keys, ct, steps: int):
        """Rotates both slot rows left by ``steps`` (negative: right)."""
        return self.apply_galois(keys, ct, self.rotation_element(steps))

    def swap_rows(self, keys, ct):
        """Exchanges the two slot rows."""
        return self.apply_galois(keys, ct, self.row_swap_element())

    def keys_from_bytes(self, *, secret=None, public=None, relin=None, galois=None):
        """A key set from the bytes of ``keys.secret_bytes()``, ``keys.public_bytes()``,
        ``keys.relin_bytes()`` and ``keys.galois_bytes()`` (any of them, at least one) made for
        this instance's n and moduli. Operations that need a key the set lacks raise ValueError, as do malformed
        bytes and keys of other parameters.

        >>> import numpy as np
        >>> bfv = Bfv.with_prime_bits(16, 30, 3, t=257, seed=5)
        >>> keys = bfv.keygen()
        >>> server = bfv.keys_from_bytes(public=keys.public_bytes(), relin=keys.relin_bytes())
        >>> server.has_secret, server.has_public, server.has_relin
        (False, True, True)
        >>> m = np.zeros(16, dtype=np.uint64); m[0], m[1] = 3, 1     # 3 + x
        >>> sq = bfv.multiply_relin(server, bfv.encrypt(server, m), bfv.encrypt(server, m))
        >>> client = bfv.keys_from_bytes(secret=keys.secret_bytes())
        >>> bfv.decrypt(client, bfv.ciphertext_from_bytes(sq.to_bytes()))[:4].tolist()
        [9, 6, 1, 0]
        >>> bfv.decrypt(server, sq)
        Traceback (most recent call last):
          ...
        ValueError: this key set has no secret key
        """
        args = {"secret": secret, "public": public, "relin": relin, "galois": galois}
        for name, v in args.items():
            if v is not None and not isinstance(v, (bytes, bytearray, memoryview)):
                raise ValueError(f"{name} must be bytes")
        return self._inner.keys_from_bytes(
            **{k: bytes(v) for k, v in args.items() if v is not None}
        )

    def ciphertext_from_bytes(self, data) -> object:
        """A ciphertext from ``ct.to_bytes()`` for this instance's n and moduli (ValueError for
        malformed bytes or another basis)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ValueError("data must be bytes")
        return self._inner.ciphertext_from_bytes(bytes(data))

    def multiply(self, a, b):
        """Product without relinearization (3-polynomial ciphertext)."""
        return self._inner.multiply(_ct(a, "a"), _ct(b, "b"))

    def relinearize(self, keys, c):
        return self._inner.relinearize(_keys(keys), _ct(c, "c"))

    def multiply_relin(self, keys, a, b):
        """Product then relinearization."""
        return self._inner.multiply_relin(_keys(keys), _ct(a, "a"), _ct(b, "b"))
