"""Arithmetic of the NTT-unfriendly post-quantum rings (numpy arrays in and out).

* NTRU: ``ntru_rq_mul`` -- the cyclic product mod x^n - 1 computed mod 2^16 (the reference's
  ``poly_Rq_mul``), uint16 arrays of length n in {509, 677, 701, 821}; ``ntru_rq_mul_modq`` --
  the same product reduced mod q (q = 2048, 2048, 8192, 4096 for those n), by the faster
  Toom-4 multiplier the KEMs use.
* NTRU Prime: Z_4591[x]/(x^761 - x - 1) -- ``ntruprime_mul`` (general x general) and
  ``ntruprime_mul_small`` (general x {-1, 0, 1}), centred int16 coefficients in [-2295, 2295].
* NTRU+: Z_3457[x]/(x^n - x^(n/2) + 1), n in {576, 768, 864, 1152} -- ``ntruplus_mul``,
  ``ntruplus_ntt``, ``ntruplus_invntt``, ``ntruplus_basemul``, ``ntruplus_baseinv`` in the
  spec's NTT order and Montgomery conventions (R = 2^16: ``invntt(ntt(f)) = 2^16 f``,
  ``basemul`` gives ``a b 2^-16``).

Wrong lengths, dtypes or values raise ValueError.

>>> import numpy as np
>>> from latpoly import rings
>>> a = np.zeros(576, dtype=np.uint16); a[1] = 1          # x
>>> b = np.zeros(576, dtype=np.uint16); b[575] = 1        # x^575
>>> c = rings.ntruplus_mul(a, b, 576)                     # x^576 = x^288 - 1
>>> int(c[0]), int(c[288])
(3456, 1)
"""

from __future__ import annotations

import numpy as np

from . import _latpoly

__all__ = ["ntru_rq_mul", "ntru_rq_mul_modq", "ntruprime_mul", "ntruprime_mul_small", "ntruplus_mul", "ntruplus_ntt", "ntruplus_invntt", "ntruplus_basemul", "ntruplus_baseinv"]

Q_PLUS = 3457
Q_PRIME, P_PRIME = 4591, 761


def ntru_rq_mul(a, b) -> np.ndarray:
    """Cyclic product mod (x^n - 1, 2^16), n in {509, 677, 701, 821} (uint16 in and out)."""
    a_arr = np.asarray(a)
    n = a_arr.shape[0] if a_arr.ndim == 1 else -1
    if n not in (509, 677, 701, 821):
        raise ValueError(f"NTRU n must be 509, 677, 701 or 821, got length {n}")
    return _latpoly.ntru_rq_mul(_array(a, np.uint16, "a", n, 0, 1 << 16), _array(b, np.uint16, "b", n, 0, 1 << 16))


def ntru_rq_mul_modq(a, b) -> np.ndarray:
    """Cyclic product mod (x^n - 1, q), coefficients in [0, q): ``ntru_rq_mul`` masked with q - 1."""
    a_arr = np.asarray(a)
    n = a_arr.shape[0] if a_arr.ndim == 1 else -1
    if n not in (509, 677, 701, 821):
        raise ValueError(f"NTRU n must be 509, 677, 701 or 821, got length {n}")
    return _latpoly.ntru_rq_mul_modq(_array(a, np.uint16, "a", n, 0, 1 << 16),
                                     _array(b, np.uint16, "b", n, 0, 1 << 16))


def ntruprime_mul(a, b) -> np.ndarray:
    """Product in Z_4591[x]/(x^761 - x - 1); inputs of 761 int16 values, output centred."""
    return _latpoly.ntruprime_mul(_array(a, np.int16, "a", P_PRIME, -32768, 32768),
                                  _array(b, np.int16, "b", P_PRIME, -32768, 32768))


def ntruprime_mul_small(a, s) -> np.ndarray:
    """Product of a general polynomial by a small one (values in {-1, 0, 1})."""
    return _latpoly.ntruprime_mul_small(_array(a, np.int16, "a", P_PRIME, -32768, 32768),
                                        _array(s, np.int8, "s", P_PRIME, -1, 2))


def _array(a, dtype, name: str, n: int, lo: int, hi: int) -> np.ndarray:
    if isinstance(a, np.ma.MaskedArray):
        raise ValueError(f"{name} is a masked array")
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional")
    if arr.dtype.kind not in "ui":
        raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} must have length {n}, got {arr.shape[0]}")
    if arr.size and (int(arr.min()) < lo or int(arr.max()) >= hi):
        raise ValueError(f"{name} has values outside [{lo}, {hi})")
    return np.ascontiguousarray(arr, dtype=dtype)


def _n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError("n must be an integer")
    n = int(n)
    if n not in (576, 768, 864, 1152):
        raise ValueError(f"NTRU+ n must be 576, 768, 864 or 1152, got {n}")
    return n


def ntruplus_mul(a, b, n: int) -> np.ndarray:
    """Product mod (x^n - x^(n/2) + 1, 3457); inputs and output in [0, q) (uint16)."""
    n = _n(n)
    return _latpoly.ntruplus_mul(_array(a, np.uint16, "a", n, 0, Q_PLUS), _array(b, np.uint16, "b", n, 0, Q_PLUS), n)


def ntruplus_ntt(a, n: int) -> np.ndarray:
    """Forward NTT in the spec's component order; int16 values in (-q, q)."""
    n = _n(n)
    return _latpoly.ntruplus_ntt(_array(a, np.int16, "a", n, -Q_PLUS + 1, Q_PLUS), n)


def ntruplus_invntt(a, n: int) -> np.ndarray:
    """Inverse NTT (reference scaling: invntt(ntt(f)) = 2^16 f mod q)."""
    n = _n(n)
    return _latpoly.ntruplus_invntt(_array(a, np.int16, "a", n, -Q_PLUS + 1, Q_PLUS), n)


def ntruplus_basemul(a, b, n: int) -> np.ndarray:
    """Componentwise product in the base rings (a b 2^-16), NTT form."""
    n = _n(n)
    return _latpoly.ntruplus_basemul(
        _array(a, np.int16, "a", n, -Q_PLUS + 1, Q_PLUS), _array(b, np.int16, "b", n, -Q_PLUS + 1, Q_PLUS), n)


def ntruplus_baseinv(a, n: int):
    """Componentwise inverse (Montgomery batch inversion): (inverse, all_components_invertible)."""
    n = _n(n)
    return _latpoly.ntruplus_baseinv(_array(a, np.int16, "a", n, -Q_PLUS + 1, Q_PLUS), n)
