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
//! runs): `n = 509` 8.6-9.4 µs (the bit-sliced divsteps on AVX-512 registers) -> 2.9-4.1 µs,
//! 677 12.8 -> 4.1, 821 15.4 -> 5.4. The runs of squarings are now Beneš networks of masked
//! swaps ([`super::benes`], 17 or 19 stages of word operations instead of one gather per
//! bit): Zen 4, 509 3.10 -> 1.86 µs, 677 4.55 -> 2.91, 821 6.01 -> 3.65 (see [`PERM_FROM`]);
//! the coefficient <-> bit conversions at both ends in SSE2 instead of a loop over the bits
//! (a quarter of what was left): 1.54, 2.48, 3.10 (701: 4.88 -> 2.76 µs in all).
//! What limits it: each squaring is a dependent chain of carry-less products, a store and
//! reloads and shifts (~6-10 ns), and the 14-16 products of the chain.

#![allow(unsafe_code)]

use super::benes::Benes;
use core::arch::x86_64::*;
use std::sync::OnceLock;
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
    /// is not an NTRU degree (the caller then uses the divstep code).
    pub(crate) fn r2_inv(self, a: &[u16], r: &mut [u16]) -> Option<()> {
        if a.len().is_multiple_of(2) || r.len() != a.len() || a.len() < 3 {
            return None;
        }
        // SAFETY: the token proves PCLMULQDQ.
        unsafe {
            // Degrees as constants: the folds then shift by immediates.
            match a.len() {
                509 => self.tf_r2_inv::<8, 509>(a, r),
                677 => self.tf_r2_inv::<11, 677>(a, r),
                701 => self.tf_r2_inv::<11, 701>(a, r),
                821 => self.tf_r2_inv::<13, 821>(a, r),
                _ => return None,
            }
        }
        Some(())
    }

    #[target_feature(enable = "pclmulqdq")]
    fn tf_r2_inv<const W: usize, const N: usize>(self, a: &[u16], r: &mut [u16]) {
        r2_inv_pow::<W, N>(self, a, r)
    }

    /// The carry-less product of two polynomials of `W` words: `2 W` words (in a buffer of
    /// [`PROD`]), from the 128-bit products of word pairs (`PCLMULQDQ` selects the words, so
    /// nothing leaves the vector registers until the end).
    #[inline(always)]
    fn mul_words<const W: usize>(self, a: &[u64; W], b: &[u64; W]) -> [u64; PROD] {
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
                let x = pair(a, p);
                for q in 0..np {
                    let y = pair(b, q);
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
            for v in even.iter_mut().chain(odd.iter_mut()) {
                *v = z;
            }
        }
        out
    }

    /// The carry-less square of a polynomial of `W` words (the bits spread to even positions)
    /// into words `0 .. 4 ceil(W / 2)` of `out` (the rest is left as it is: zero).
    #[inline(always)]
    fn sqr_words<const W: usize>(self, a: &[u64; W], out: &mut [u64; PROD]) {
        // SAFETY: the token proves PCLMULQDQ; stores write 2 words at index 4p or 4p + 2 with
        // 4p + 3 < 4 PAIRS <= PROD.
        unsafe {
            for p in 0..W.div_ceil(2) {
                let x = pair(a, p);
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
    }
}

/// Words `2p` and `2p + 1` of `a` (zero past the end) in one vector, built from registers: a
/// 16-byte load of two words just written by separate 8-byte stores would stall (no store
/// forwarding), and the squarings are a chain of exactly such steps.
#[inline(always)]
fn pair<const W: usize>(a: &[u64; W], p: usize) -> __m128i {
    let hi = if 2 * p + 1 < W { a[2 * p + 1] } else { 0 };
    // SAFETY: SSE2 is part of x86-64.
    unsafe { _mm_set_epi64x(hi as i64, a[2 * p] as i64) }
}

/// Word pairs of the largest polynomial (`MAX_W` rounded up to even, halved).
const PAIRS: usize = MAX_W.div_ceil(2);
/// Words of a product buffer (`4 PAIRS`: every pair product of the largest size fits).
const PROD: usize = 4 * PAIRS;

/// `p mod (x^N - 1)` for a product `p` of two polynomials of degree `< N` (bits `0 .. 2N - 1`):
/// bits at and above `N` fold down by `N`. `N` odd, `W = ceil(N / 64)`.
#[inline(always)]
fn fold<const W: usize, const N: usize>(p: &[u64; PROD]) -> [u64; W] {
    let (s, b) = (N / 64, N % 64);
    let mut r = [0u64; W];
    for (k, rk) in r.iter_mut().enumerate() {
        let hi = (p[k + s] >> b) | (p[k + s + 1] << (64 - b));
        *rk = p[k] ^ hi;
    }
    r[W - 1] &= top_mask(N);
    r
}

/// Mask of the bits of the top word below `n`.
#[inline(always)]
pub(super) fn top_mask(n: usize) -> u64 {
    u64::MAX >> (64 * n.div_ceil(64) - n)
}

/// `a · b mod (x^n - 1)` over `F_2` (schoolbook on pairs of 64-bit words).
#[inline(always)]
fn mul<const W: usize, const N: usize>(t: Clmul, a: &[u64; W], b: &[u64; W]) -> [u64; W] {
    let mut p = t.mul_words::<W>(a, b);
    let r = fold::<W, N>(&p);
    p.zeroize();
    r
}

/// `a^(2^k) mod (x^n - 1)`: `k` squarings (each spreads the bits with carry-less products of a
/// word by itself, then folds), or for large `k` the permutation they amount to
/// ([`frobenius_perm`]).
#[inline(always)]
fn sqr_k<const W: usize, const N: usize>(t: Clmul, a: &[u64; W], k: usize) -> [u64; W] {
    if k >= PERM_FROM {
        return frobenius_perm::<W>(a, k, N);
    }
    let mut x = *a;
    let mut p = [0u64; PROD];
    for _ in 0..k {
        t.sqr_words::<W>(&x, &mut p);
        x = fold::<W, N>(&p);
    }
    p.zeroize();
    x
}

/// From this many squarings on, [`sqr_k`] permutes bits instead. With the Beneš networks a
/// permutation costs about as much as eight squarings. Measured on a Zen 4 host
/// (`LATPOLY_ISA=avx2 examples/ntru_bench`, µs per inversion, n = 509 / 677 / 821 / 701):
/// threshold 2 -> 1.92 / 3.07 / 3.80 / 3.33, 8 -> 1.86 / 2.91 / 3.65 / 3.20, 16 -> 1.94 / 2.92
/// / 3.72 / 3.20; with the earlier bit-by-bit permutation (~0.4 µs each) the threshold was 56
/// and the inversions took 3.10 / 4.55 / 6.01 / 4.88.
const PERM_FROM: usize = 8;

/// `a^(2^k) mod (x^n - 1)` as a bit permutation: squaring is the ring automorphism
/// `x -> x^2` in characteristic 2, so bit `i` of `a` moves to bit `i · 2^k mod n`. Applied by a
/// Beneš network ([`super::benes`]) on 512 bits (`n = 509`) or 1024, built once per `(n, k)`
/// ([`network`]); its masks depend on `n` and `k` alone (public), and every stage is the same
/// word operations whatever the data.
#[inline(always)]
fn frobenius_perm<const W: usize>(a: &[u64; W], k: usize, n: usize) -> [u64; W] {
    let owned;
    let net = match network(n, k) {
        Some(t) => t,
        None => {
            // Not a k of the chain (not reached from `r2_inv_pow`): built for this call.
            owned = build_network(n, k);
            &owned
        }
    };
    let mut x = [0u64; 16];
    x[..W].copy_from_slice(a);
    match x.first_chunk_mut::<8>() {
        Some(lo) if n <= 512 => net.apply(lo),
        _ => net.apply(&mut x),
    }
    let mut r = [0u64; W];
    r.copy_from_slice(&x[..W]);
    x.zeroize();
    r
}

/// The network of [`frobenius_perm`], cached per degree for the `k` the inversion chain uses.
fn network(n: usize, k: usize) -> Option<&'static Benes> {
    static TABLES: [OnceLock<Networks>; 4] = [const { OnceLock::new() }; 4];
    let slot = match n {
        509 => 0,
        677 => 1,
        701 => 2,
        _ => 3,
    };
    let tables = TABLES[slot].get_or_init(|| {
        chain_ks(n)
            .chain([1])
            .filter(|&k| k >= PERM_FROM)
            .map(|k| (k, build_network(n, k)))
            .collect()
    });
    tables.iter().find(|(kk, _)| *kk == k).map(|(_, t)| t)
}

/// `(k, network)` for every `k` of one degree's chain that is permuted.
type Networks = Vec<(usize, Benes)>;

/// The network moving bit `i < n` to `i · 2^k mod n` (the bits from `n` up stay), on 512
/// positions for `n <= 512`, 1024 otherwise.
fn build_network(n: usize, k: usize) -> Benes {
    let c = (0..k).fold(1usize, |c, _| 2 * c % n);
    let size = if n <= 512 { 512 } else { 1024 };
    let dest: Vec<usize> = (0..size)
        .map(|i| if i < n { i * c % n } else { i })
        .collect();
    Benes::new(&dest)
}

/// Source positions `j · 2^-k mod n` (`j < n`) of the `2^k`-th power map (bit `j` of
/// `a^(2^k)` is bit `j · 2^-k` of `a`), for the byte and bit gathers of `r2_avx512.rs`.
pub(super) fn build_perm(n: usize, k: usize) -> Vec<u16> {
    // c = 2^-k mod n by square-and-multiply ((n + 1) / 2 is the inverse of 2, n odd).
    let (mut c, mut base, mut e) = (1usize, n.div_ceil(2), k);
    while e > 0 {
        if e & 1 == 1 {
            c = c * base % n;
        }
        base = base * base % n;
        e >>= 1;
    }
    (0..n).map(|j| (j * c % n) as u16).collect()
}

/// The squaring counts `k` of the doubling steps of the chain for degree `n`.
pub(super) fn chain_ks(n: usize) -> impl Iterator<Item = usize> {
    let e = n - 2;
    let mut k = 1;
    (0..(usize::BITS - 1 - e.leading_zeros()) as usize)
        .rev()
        .map(move |bit| {
            let here = k;
            k = 2 * k + ((e >> bit) & 1);
            here
        })
}

/// `a mod (2, Phi_n)` as bits (degree <= n - 2: coefficient `i` is `(a[i] ^ a[n-1]) & 1`),
/// `n = a.len()`, into the low words of `x` (the rest left as it is). SSE2 (x86-64 baseline):
/// each bit moved to the sign of its 16-bit lane, packed to bytes, gathered by `pmovmskb`,
/// 16 coefficients per step (a loop over the bits took a quarter of the `R2` inverse).
#[inline(always)]
pub(super) fn pack_mod_phi(a: &[u16], x: &mut [u64]) {
    let n = a.len();
    let last = a[n - 1];
    for (xw, chunk) in x.iter_mut().zip(a[..n - 1].chunks(64)) {
        let mut buf = [0u16; 64];
        let c = if chunk.len() == 64 {
            chunk
        } else {
            // the partial last word: zero-padded; its padding bits are cleared below
            buf[..chunk.len()].copy_from_slice(chunk);
            &buf[..]
        };
        let mut w = 0u64;
        // SAFETY: SSE2 is part of x86-64; every load reads 8 of the 64 entries of `c`.
        unsafe {
            let l = _mm_set1_epi16(last as i16);
            for k in 0..4 {
                let ld = |j: usize| _mm_loadu_si128(c.as_ptr().add(16 * k + 8 * j).cast());
                let lo = _mm_slli_epi16::<15>(_mm_xor_si128(ld(0), l));
                let hi = _mm_slli_epi16::<15>(_mm_xor_si128(ld(1), l));
                let m = _mm_movemask_epi8(_mm_packs_epi16(lo, hi)) as u32 as u64;
                w |= m << (16 * k);
            }
        }
        *xw = w & (u64::MAX >> (64 - chunk.len()));
    }
}

/// The bits of `inv` (a polynomial mod `x^n - 1`, `n = r.len()`) reduced mod
/// `Phi_n = 1 + x + ... + x^(n-1)` (subtract `inv[n-1] · Phi_n`) into `r`, one coefficient per
/// entry, `r[n-1] = 0`. SSE2: each byte of bits broadcast to eight 16-bit lanes and tested
/// against the lane's bit.
#[inline(always)]
pub(super) fn unpack_mod_phi(inv: &[u64], r: &mut [u16]) {
    let n = r.len();
    let top = (inv[(n - 1) / 64] >> ((n - 1) % 64)) & 1;
    let whole = (n - 1) / 8 * 8;
    // SAFETY: SSE2 is part of x86-64; every store writes 8 entries of `r` below `whole`.
    unsafe {
        let bits = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
        let t = _mm_set1_epi16(top as i16);
        for (g, out) in r[..whole].chunks_exact_mut(8).enumerate() {
            let byte = (inv[g / 8] >> (8 * (g % 8))) & 0xff;
            let set = _mm_cmpeq_epi16(_mm_and_si128(_mm_set1_epi16(byte as i16), bits), bits);
            let v = _mm_xor_si128(_mm_srli_epi16::<15>(set), t);
            _mm_storeu_si128(out.as_mut_ptr().cast(), v);
        }
    }
    for (i, ri) in r[..n - 1].iter_mut().enumerate().skip(whole) {
        *ri = (((inv[i / 64] >> (i % 64)) & 1) ^ top) as u16;
    }
    r[n - 1] = 0;
}

#[inline(always)]
fn r2_inv_pow<const W: usize, const N: usize>(t: Clmul, a: &[u16], r: &mut [u16]) {
    let n = N;
    let a = &a[..N];
    let r = &mut r[..N];
    debug_assert!(n.div_ceil(64) == W && W <= MAX_W && n % 2 == 1);
    let mut x = [0u64; W];
    pack_mod_phi(a, &mut x);
    // beta_k = x^(2^k - 1) for k = e = m - 1 = n - 2, scanning e's bits from the top.
    let e = n - 2;
    let mut beta = x;
    let mut k = 1;
    for bit in (0..(usize::BITS - 1 - e.leading_zeros()) as usize).rev() {
        let mut s = sqr_k::<W, N>(t, &beta, k);
        beta = mul::<W, N>(t, &s, &beta);
        k *= 2;
        if (e >> bit) & 1 == 1 {
            s = sqr_k::<W, N>(t, &beta, 1);
            beta = mul::<W, N>(t, &s, &x);
            k += 1;
        }
        s.zeroize();
    }
    debug_assert_eq!(k, e);
    let mut inv = sqr_k::<W, N>(t, &beta, 1);
    unpack_mod_phi(&inv, r);
    x.zeroize();
    beta.zeroize();
    inv.zeroize();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This code and the AVX-512 one of `r2_avx512.rs` (where the CPU runs it) against the
    /// reference divsteps: random, zero, one, single-bit and alternating inputs, every degree.
    #[test]
    fn matches_divsteps() {
        let Some(t) = Clmul::try_new() else {
            eprintln!("skipped: no PCLMULQDQ");
            return;
        };
        let wide = super::super::r2_avx512::R2Avx512::try_new();
        let mut seed = 0x1234_5678_9abc_def1u64;
        for n in [509usize, 677, 701, 821] {
            for trial in 0..60 {
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
                            4 => u16::from(i == n - 2),
                            5 => u16::from(i % 2 == 0),
                            _ => seed as u16,
                        }
                    })
                    .collect();
                let (mut want, mut got) = (vec![0u16; n], vec![7u16; n]);
                super::super::reference::r2_inv(&a, &mut want);
                assert_eq!(t.r2_inv(&a, &mut got), Some(()));
                assert_eq!(got, want, "n={n} trial {trial}");
                if let Some(w) = wide {
                    let mut got = vec![7u16; n];
                    assert_eq!(w.r2_inv(&a, &mut got), Some(()));
                    assert_eq!(got, want, "n={n} trial {trial} (AVX-512)");
                }
            }
        }
    }
}
