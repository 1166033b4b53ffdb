//! `poly_R2_inv` by exponentiation with carry-less multiplication (x86-64 `PCLMULQDQ`).
//!
//! For the NTRU degrees `n`, 2 has order `n - 1` modulo `n`, so `Phi_n` is irreducible over
//! `F_2` and `S_2 = F_2[x]/(Phi_n)` is the field `GF(2^m)`, `m = n - 1`. The inverse of `a != 0`
//! is `a^(2^m - 2) = (a^(2^(m-1) - 1))^2`, computed by the Itoh–Tsujii chain
//! `beta_(2k) = beta_k^(2^k) · beta_k`, `beta_(k+1) = beta_k^2 · a` (with `beta_k = a^(2^k - 1)`):
//! about `log2 m + popcount(m - 1)` products (15 for `n = 509`) and `m - 1` squarings, each a
//! fixed sequence of carry-less products and shifts; the long runs of squarings (`2^k`-th
//! powers with `k >= 40`) are applied at once as the bit permutation they amount to. The arithmetic runs in
//! `F_2[x]/(x^n - 1)`, which maps onto `S_2` (`Phi_n` divides `x^n - 1`); the result is reduced
//! mod `Phi_n` at the end. For `a = 0` in `S_2` (the only non-invertible class) the result is
//! `0`, as for the reference's divstep algorithm, so both give the same output for every input.
//!
//! Constant time: the step sequence and every memory index depend only on `n`; `PCLMULQDQ`
//! runs in data-independent time (the Valgrind test `tests/ct_kem.rs` runs NTRU key generation
//! through this code with the secret poisoned). Measured (`examples/ntru_bench.rs`, Zen 5, same
//! runs): `n = 509` 8.6-9.4 µs (the bit-sliced divsteps on AVX-512 registers) -> 5.2-5.9 µs,
//! 677 12.8 -> 8.2, 821 15.4 -> 10.1. What limits it: each squaring is a dependent chain of
//! products, stores and reloads (~22 ns), and a bit permutation costs ~1 µs (a serial chain
//! through the source index per bit).

#![allow(unsafe_code)]

use core::arch::x86_64::*;
use zeroize::Zeroize;

/// Largest word count handled here (`n <= 832`).
const MAX_W: usize = 13;

/// Proof that the CPU runs `PCLMULQDQ` (and SSE2, part of x86-64).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clmul(());

impl Clmul {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("pclmulqdq").then_some(Self(()))
    }

    /// `r = a^-1 mod (2, Phi_n)` with the reference's conventions (input read as
    /// `(a[i] ^ a[n-1]) & 1`, output coefficients in `{0, 1}`, `r[n-1] = 0`); `None` when `n`
    /// needs more than 13 words or is even (the caller then uses the divstep code).
    pub(crate) fn r2_inv(self, a: &[u16], r: &mut [u16]) -> Option<()> {
        if a.len().is_multiple_of(2) || r.len() != a.len() || a.len() < 3 {
            return None;
        }
        // SAFETY: the token proves PCLMULQDQ.
        unsafe {
            match a.len().div_ceil(64) {
                8 => self.tf_r2_inv::<8>(a, r),
                11 => self.tf_r2_inv::<11>(a, r),
                13 => self.tf_r2_inv::<13>(a, r),
                _ => return None,
            }
        }
        Some(())
    }

    #[target_feature(enable = "pclmulqdq")]
    fn tf_r2_inv<const W: usize>(self, a: &[u16], r: &mut [u16]) {
        r2_inv_pow::<W>(self, a, r)
    }

    /// The carry-less product of two polynomials of `W` words: `2 W` words (in a buffer of
    /// [`PROD`]), from the 128-bit products of word pairs (`PCLMULQDQ` selects the words, so
    /// nothing leaves the vector registers until the end).
    #[inline(always)]
    fn mul_words<const W: usize>(self, a: &[u64; W], b: &[u64; W]) -> [u64; PROD] {
        let (mut ap, mut bp) = ([0u64; 2 * PAIRS], [0u64; 2 * PAIRS]);
        ap[..W].copy_from_slice(a);
        bp[..W].copy_from_slice(b);
        let np = W.div_ceil(2);
        let mut out = [0u64; PROD];
        // SAFETY: the token proves PCLMULQDQ (the rest is SSE2, x86-64 baseline); every
        // unaligned load reads 2 words at an even index below 2 PAIRS, every store writes 2 words
        // at word 2m or 2m + 1 with m < 2 np, so below 4 np <= PROD.
        unsafe {
            let z = _mm_setzero_si128();
            // even[m]: words 2m, 2m + 1; odd[m]: words 2m + 1, 2m + 2.
            let mut even = [z; 2 * PAIRS];
            let mut odd = [z; 2 * PAIRS];
            for p in 0..np {
                let x = _mm_loadu_si128(ap.as_ptr().add(2 * p).cast());
                for q in 0..np {
                    let y = _mm_loadu_si128(bp.as_ptr().add(2 * q).cast());
                    let m = p + q;
                    even[m] = _mm_xor_si128(even[m], _mm_clmulepi64_si128::<0x00>(x, y));
                    even[m + 1] = _mm_xor_si128(even[m + 1], _mm_clmulepi64_si128::<0x11>(x, y));
                    let cross = _mm_xor_si128(
                        _mm_clmulepi64_si128::<0x01>(x, y),
                        _mm_clmulepi64_si128::<0x10>(x, y),
                    );
                    odd[m] = _mm_xor_si128(odd[m], cross);
                }
            }
            for (m, &e) in even.iter().enumerate().take(2 * np) {
                _mm_storeu_si128(out.as_mut_ptr().add(2 * m).cast(), e);
            }
            for (m, &o) in odd.iter().enumerate().take(2 * np - 1) {
                let at = out.as_mut_ptr().add(2 * m + 1).cast::<__m128i>();
                _mm_storeu_si128(at, _mm_xor_si128(_mm_loadu_si128(at), o));
            }
            ap.zeroize();
            bp.zeroize();
            for v in even.iter_mut().chain(odd.iter_mut()) {
                *v = z;
            }
        }
        out
    }

    /// The carry-less square of a polynomial of `W` words (the bits spread to even positions).
    #[inline(always)]
    fn sqr_words<const W: usize>(self, a: &[u64; W]) -> [u64; PROD] {
        let mut ap = [0u64; 2 * PAIRS];
        ap[..W].copy_from_slice(a);
        let mut out = [0u64; PROD];
        // SAFETY: the token proves PCLMULQDQ; loads read 2 words at an even index below
        // 2 PAIRS, stores write 2 words at index 4p or 4p + 2 with 4p + 3 < 4 PAIRS <= PROD.
        unsafe {
            for p in 0..W.div_ceil(2) {
                let x = _mm_loadu_si128(ap.as_ptr().add(2 * p).cast());
                _mm_storeu_si128(
                    out.as_mut_ptr().add(4 * p).cast(),
                    _mm_clmulepi64_si128::<0x00>(x, x),
                );
                _mm_storeu_si128(
                    out.as_mut_ptr().add(4 * p + 2).cast(),
                    _mm_clmulepi64_si128::<0x11>(x, x),
                );
            }
        }
        ap.zeroize();
        out
    }
}

/// Word pairs of the largest polynomial (`MAX_W` rounded up to even, halved).
const PAIRS: usize = MAX_W.div_ceil(2);
/// Words of a product buffer (`4 PAIRS`: every pair product of the largest size fits).
const PROD: usize = 4 * PAIRS;

/// `p mod (x^n - 1)` for a product `p` of two polynomials of degree `< n` (bits `0 .. 2n - 1`):
/// bits at and above `n` fold down by `n`. `n` odd, `W = ceil(n / 64)`.
#[inline(always)]
fn fold<const W: usize>(p: &[u64; PROD], n: usize) -> [u64; W] {
    let (s, b) = (n / 64, n % 64);
    let mut r = [0u64; W];
    for (k, rk) in r.iter_mut().enumerate() {
        let hi = (p[k + s] >> b) | (p[k + s + 1] << (64 - b));
        *rk = p[k] ^ hi;
    }
    r[W - 1] &= top_mask(n);
    r
}

/// Mask of the bits of the top word below `n`.
#[inline(always)]
fn top_mask(n: usize) -> u64 {
    u64::MAX >> (64 * n.div_ceil(64) - n)
}

/// `a · b mod (x^n - 1)` over `F_2` (schoolbook on pairs of 64-bit words).
#[inline(always)]
fn mul<const W: usize>(t: Clmul, a: &[u64; W], b: &[u64; W], n: usize) -> [u64; W] {
    let mut p = t.mul_words::<W>(a, b);
    let r = fold::<W>(&p, n);
    p.zeroize();
    r
}

/// `a^(2^k) mod (x^n - 1)`: `k` squarings (each spreads the bits with carry-less products of a
/// word by itself, then folds), or for large `k` the permutation they amount to
/// ([`frobenius_perm`]).
#[inline(always)]
fn sqr_k<const W: usize>(t: Clmul, a: &[u64; W], k: usize, n: usize) -> [u64; W] {
    if k >= PERM_FROM {
        return frobenius_perm::<W>(a, k, n);
    }
    let mut x = *a;
    for _ in 0..k {
        let mut p = t.sqr_words::<W>(&x);
        x = fold::<W>(&p, n);
        p.zeroize();
    }
    x
}

/// From this many squarings on, [`sqr_k`] permutes bits instead (measured on Zen 5, `n = 509`:
/// 16 -> 5.5 µs per inversion, 64 -> 5.9, 128 -> 7.9, squarings only -> 12.1; a squaring is a
/// chain of dependent products, stores and reloads, ~22 ns).
const PERM_FROM: usize = 16;

/// `a^(2^k) mod (x^n - 1)` as a bit permutation: squaring is the ring automorphism
/// `x -> x^2` in characteristic 2, so bit `j` of the result is bit `j · 2^-k mod n` of `a`.
/// The source positions follow from `n` and `k` alone (public), so every memory index is
/// independent of the data.
#[inline(always)]
fn frobenius_perm<const W: usize>(a: &[u64; W], k: usize, n: usize) -> [u64; W] {
    // c = 2^-k mod n by square-and-multiply ((n + 1) / 2 is the inverse of 2, n odd).
    let (mut c, mut base, mut e) = (1usize, n.div_ceil(2), k);
    while e > 0 {
        if e & 1 == 1 {
            c = c * base % n;
        }
        base = base * base % n;
        e >>= 1;
    }
    let mut r = [0u64; W];
    for (w, rw) in r.iter_mut().enumerate() {
        // Each word starts its own chain i = j · c mod n (independent chains overlap).
        let mut i = 64 * w * c % n;
        let mut acc = 0u64;
        for b in 0..64.min(n - 64 * w) {
            acc |= ((a[i / 64] >> (i % 64)) & 1) << b;
            i += c;
            if i >= n {
                i -= n;
            }
        }
        *rw = acc;
    }
    r
}

#[inline(always)]
fn r2_inv_pow<const W: usize>(t: Clmul, a: &[u16], r: &mut [u16]) {
    let n = a.len();
    debug_assert!(n.div_ceil(64) == W && W <= MAX_W && n % 2 == 1);
    // a mod Phi_n, degree <= n - 2: coefficient i is (a[i] ^ a[n-1]) & 1.
    let mut x = [0u64; W];
    let last = a[n - 1];
    for (xw, chunk) in x.iter_mut().zip(a[..n - 1].chunks(64)) {
        *xw = chunk
            .iter()
            .enumerate()
            .fold(0, |acc, (b, &ai)| acc | u64::from((ai ^ last) & 1) << b);
    }
    // beta_k = x^(2^k - 1) for k = e = m - 1 = n - 2, scanning e's bits from the top.
    let e = n - 2;
    let mut beta = x;
    let mut k = 1;
    for bit in (0..(usize::BITS - 1 - e.leading_zeros()) as usize).rev() {
        let mut s = sqr_k::<W>(t, &beta, k, n);
        beta = mul::<W>(t, &s, &beta, n);
        k *= 2;
        if (e >> bit) & 1 == 1 {
            s = sqr_k::<W>(t, &beta, 1, n);
            beta = mul::<W>(t, &s, &x, n);
            k += 1;
        }
        s.zeroize();
    }
    debug_assert_eq!(k, e);
    let mut inv = sqr_k::<W>(t, &beta, 1, n);
    // Reduce mod Phi_n = 1 + x + ... + x^(n-1): subtract inv[n-1] · Phi_n.
    let top = (inv[(n - 1) / 64] >> ((n - 1) % 64)) & 1;
    for (i, ri) in r[..n - 1].iter_mut().enumerate() {
        *ri = (((inv[i / 64] >> (i % 64)) & 1) ^ top) as u16;
    }
    r[n - 1] = 0;
    x.zeroize();
    beta.zeroize();
    inv.zeroize();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_divsteps() {
        let Some(t) = Clmul::try_new() else {
            eprintln!("skipped: no PCLMULQDQ");
            return;
        };
        let mut seed = 0x1234_5678_9abc_def1u64;
        for n in [509usize, 677, 701, 821] {
            for trial in 0..40 {
                let a: Vec<u16> = (0..n)
                    .map(|i| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        match trial {
                            0 => 0,
                            1 => 1,
                            2 => u16::from(i == 0),
                            3 => u16::from(i == n - 1),
                            _ => seed as u16,
                        }
                    })
                    .collect();
                let (mut want, mut got) = (vec![0u16; n], vec![7u16; n]);
                super::super::reference::r2_inv(&a, &mut want);
                assert_eq!(t.r2_inv(&a, &mut got), Some(()));
                assert_eq!(got, want, "n={n} trial {trial}");
            }
        }
    }
}
