"""Shared helpers for the latpoly Python test-suite.

Everything here is an *independent* reference: plain Python integers, python-flint
(``flint.nmod_poly`` / ``flint.fmpz_poly`` / ``flint.fmpz.is_prime``) -- never latpoly itself --
so that the tests compare latpoly against code that shares none of its implementation.

The helpers are exposed through the session-scoped ``ref`` fixture (a namespace), which also
works inside Hypothesis tests.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import types

import flint
import pytest
from hypothesis import HealthCheck, settings

import latpoly

# No example database: the suite must not write a .hypothesis/ directory next to the caller.
settings.register_profile(
    "latpoly",
    deadline=None,
    max_examples=50,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("latpoly")

#: Powers of two exercised by the exhaustive differential grid.
NS = [1 << k for k in range(1, 13)]  # 2 .. 4096
#: Prime sizes at the lane edges (largest prime of each size is used).
EDGE_BITS = [62, 50, 30, 14]
#: Backend names, worst to best, as accepted by LATPOLY_ISA.
ISAS = ["scalar", "avx2", "avx512", "avx512ifma"]


# ---------------------------------------------------------------------------------------------
# Reference arithmetic
# ---------------------------------------------------------------------------------------------


def is_prime_flint(x: int) -> bool:
    """Primality according to FLINT (deterministic below 2^64)."""
    return bool(flint.fmpz(int(x)).is_prime())


def negacyclic_schoolbook(a, b, modulus: int):
    """a*b mod (x^n + 1, modulus) by the O(n^2) definition, with Python big integers."""
    a = [int(v) for v in a]
    b = [int(v) for v in b]
    n = len(a)
    assert len(b) == n
    c = [0] * n
    for i, ai in enumerate(a):
        if ai == 0:
            continue
        for j, bj in enumerate(b):
            k = i + j
            if k < n:
                c[k] += ai * bj
            else:
                c[k - n] -= ai * bj
    return [v % modulus for v in c]


def _fold(coeffs, n: int, modulus: int):
    """Reduce a full product (degree <= 2n-2) modulo x^n + 1: x^(n+k) = -x^k."""
    full = list(coeffs) + [0] * (2 * n - len(coeffs))
    return [(full[k] - full[k + n]) % modulus for k in range(n)]


def negacyclic_flint(a, b, q: int):
    """a*b mod (x^n + 1, q) for a word-size modulus q, via flint.nmod_poly."""
    n = len(a)
    pa = flint.nmod_poly([int(v) for v in a], q)
    pb = flint.nmod_poly([int(v) for v in b], q)
    prod = [int(c) for c in (pa * pb).coeffs()]
    return _fold(prod, n, q)


def negacyclic_fmpz(a, b, modulus: int):
    """a*b mod (x^n + 1, modulus) for an arbitrary (big) modulus, via flint.fmpz_poly."""
    n = len(a)
    pa = flint.fmpz_poly([int(v) % modulus for v in a])
    pb = flint.fmpz_poly([int(v) % modulus for v in b])
    prod = [int(c) for c in (pa * pb).coeffs()]
    return _fold(prod, n, modulus)


def brv(i: int, logn: int) -> int:
    """Reverse the low `logn` bits of i."""
    r = 0
    for _ in range(logn):
        r = (r << 1) | (i & 1)
        i >>= 1
    return r


def horner(a, x: int, q: int) -> int:
    """Evaluate the polynomial with coefficients a (low degree first) at x, mod q."""
    acc = 0
    for c in reversed([int(v) for v in a]):
        acc = (acc * x + c) % q
    return acc


@functools.lru_cache(maxsize=None)
def largest_ntt_prime(bits: int, n: int):
    """latpoly.ntt_primes(bits, n, 1)[0], or None if latpoly says there is none (cached)."""
    try:
        (q,) = latpoly.ntt_primes(bits, n, 1)
    except ValueError:
        return None
    return q


@functools.lru_cache(maxsize=None)
def ntt_primes_cached(bits: int, n: int, count: int):
    return tuple(latpoly.ntt_primes(bits, n, count))


def run_python(code: str, timeout: float, limit_address_space: int | None = None):
    """Run `code` in a fresh interpreter (for crashes/hangs that would take pytest down).

    Returns the CompletedProcess, or None on timeout (the child is killed).
    """
    preexec = None
    if limit_address_space is not None:
        def preexec():  # pragma: no cover - runs in the child
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limit_address_space, limit_address_space))

    env = dict(os.environ)
    env["RUST_BACKTRACE"] = "0"
    env["OPENBLAS_NUM_THREADS"] = "1"  # keep numpy's import small under an address-space cap
    try:
        return subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=preexec,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return None


@pytest.fixture(scope="session")
def ref():
    return types.SimpleNamespace(
        is_prime=is_prime_flint,
        schoolbook=negacyclic_schoolbook,
        flint_mul=negacyclic_flint,
        fmpz_mul=negacyclic_fmpz,
        brv=brv,
        horner=horner,
        largest_ntt_prime=largest_ntt_prime,
        ntt_primes=ntt_primes_cached,
        run_python=run_python,
        NS=NS,
        EDGE_BITS=EDGE_BITS,
        ISAS=ISAS,
    )
