//! AVX-512 twins of [`super::Trits`] and [`super::Bits`]: the planes in zmm registers, 8 words
//! per register (word `k` in lane `k % 8` of register `k / 8`).
//!
//! A [`Avx512Bits`] token can only be built by `try_new`, which checks the CPU at run time;
//! polynomials are loaded with one, and that proof covers every `unsafe` intrinsic call of their
//! methods.

#![allow(unsafe_code)]

use super::{BitOps, Bits, TritOps, Trits};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX-512F.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Bits(());

impl Avx512Bits {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx512f").then_some(Self(()))
    }
}

/// A bit-sliced GF(3) polynomial (as [`Trits`]) in AVX-512 registers: word `k` of a plane in lane
/// `k % 8` of register `k / 8`; words past the polynomial's stay zero. The token it was loaded
/// with proves AVX-512F for the intrinsics of its methods.
#[derive(Clone, Copy)]
pub(crate) struct VTrits<const K: usize> {
    p: [__m512i; K],
    m: [__m512i; K],
    /// All-ones for the words of the polynomial (`top` on the last one), zero past it.
    keep: [__m512i; K],
}

impl<const K: usize> VTrits<K> {
    #[inline(always)]
    pub(crate) fn load<const W: usize>(_t: Avx512Bits, x: &Trits<W>) -> Self {
        debug_assert!(W <= 8 * K);
        let (mut p, mut m) = ([0u64; 16], [0u64; 16]);
        p[..W].copy_from_slice(&x.p);
        m[..W].copy_from_slice(&x.m);
        let mut keep = [0u64; 16];
        keep[..W].fill(u64::MAX);
        // SAFETY: the token proves AVX-512F; every load reads 8 u64 inside a 16-word array.
        unsafe {
            let ld = |a: &[u64; 16], j: usize| _mm512_loadu_si512(a[8 * j..].as_ptr().cast());
            Self {
                p: core::array::from_fn(|j| ld(&p, j)),
                m: core::array::from_fn(|j| ld(&m, j)),
                keep: core::array::from_fn(|j| ld(&keep, j)),
            }
        }
    }

    #[inline(always)]
    pub(crate) fn store<const W: usize>(&self) -> Trits<W> {
        let (mut p, mut m) = ([0u64; 16], [0u64; 16]);
        // SAFETY: AVX-512F (proved when `self` was loaded); every store writes 8 u64 inside a
        // 16-word array.
        unsafe {
            for j in 0..K {
                _mm512_storeu_si512(p[8 * j..].as_mut_ptr().cast(), self.p[j]);
                _mm512_storeu_si512(m[8 * j..].as_mut_ptr().cast(), self.m[j]);
            }
        }
        let mut out = Trits::<W>::ZERO;
        out.p.copy_from_slice(&p[..W]);
        out.m.copy_from_slice(&m[..W]);
        out
    }
}

impl<const K: usize> TritOps for VTrits<K> {
    #[inline(always)]
    fn c0(&self) -> u8 {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        let (p, m) = unsafe {
            (
                _mm_cvtsi128_si64(_mm512_castsi512_si128(self.p[0])),
                _mm_cvtsi128_si64(_mm512_castsi512_si128(self.m[0])),
            )
        };
        ((p & 1) | ((m & 1) << 1)) as u8
    }

    #[inline(always)]
    fn cswap(&mut self, o: &mut Self, mask: u64) {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        unsafe {
            let mk = _mm512_set1_epi64(mask as i64);
            for j in 0..K {
                let t = _mm512_and_si512(mk, _mm512_xor_si512(self.p[j], o.p[j]));
                self.p[j] = _mm512_xor_si512(self.p[j], t);
                o.p[j] = _mm512_xor_si512(o.p[j], t);
                let t = _mm512_and_si512(mk, _mm512_xor_si512(self.m[j], o.m[j]));
                self.m[j] = _mm512_xor_si512(self.m[j], t);
                o.m[j] = _mm512_xor_si512(o.m[j], t);
            }
        }
    }

    #[inline(always)]
    fn add_scaled(&mut self, o: &Self, s1: u64, s2: u64) {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        unsafe {
            let (m1, m2) = (_mm512_set1_epi64(s1 as i64), _mm512_set1_epi64(s2 as i64));
            let or = |a, b| _mm512_or_si512(a, b);
            let and = |a, b| _mm512_and_si512(a, b);
            for j in 0..K {
                let yp = or(and(m1, o.p[j]), and(m2, o.m[j]));
                let ym = or(and(m1, o.m[j]), and(m2, o.p[j]));
                let (xp, xm) = (self.p[j], self.m[j]);
                // x0 = !(xp | xm), y0 = !(yp | ym), via andnot against all-ones
                let ones = _mm512_set1_epi64(-1);
                let x0 = _mm512_andnot_si512(or(xp, xm), ones);
                let y0 = _mm512_andnot_si512(or(yp, ym), ones);
                self.p[j] = or(or(and(xp, y0), and(yp, x0)), and(xm, ym));
                self.m[j] = or(or(and(xm, y0), and(ym, x0)), and(xp, yp));
            }
        }
    }

    #[inline(always)]
    fn shl1(&mut self, top_mask: u64) {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        unsafe {
            // The last word of the polynomial keeps `top_mask` bits (`keep` has all-ones there).
            let top = _mm512_set1_epi64(top_mask as i64);
            let zero = _mm512_setzero_si512();
            for plane in [&mut self.p, &mut self.m] {
                for j in (0..K).rev() {
                    let lower = if j > 0 { plane[j - 1] } else { zero };
                    // lane i: word i - 1 (lane 0: the last word of the register below)
                    let prev = _mm512_alignr_epi64::<7>(plane[j], lower);
                    plane[j] = _mm512_or_si512(
                        _mm512_slli_epi64::<1>(plane[j]),
                        _mm512_srli_epi64::<63>(prev),
                    );
                }
            }
            for j in 0..K {
                // keep & (top where the next word is past the polynomial, else all-ones)
                let last = _mm512_andnot_si512(
                    _mm512_alignr_epi64::<1>(
                        if j + 1 < K { self.keep[j + 1] } else { zero },
                        self.keep[j],
                    ),
                    self.keep[j],
                );
                let mask = _mm512_or_si512(
                    _mm512_andnot_si512(last, self.keep[j]),
                    _mm512_and_si512(last, top),
                );
                self.p[j] = _mm512_and_si512(self.p[j], mask);
                self.m[j] = _mm512_and_si512(self.m[j], mask);
            }
        }
    }

    #[inline(always)]
    fn shr1(&mut self) {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        unsafe {
            let zero = _mm512_setzero_si512();
            for plane in [&mut self.p, &mut self.m] {
                for j in 0..K {
                    let upper = if j + 1 < K { plane[j + 1] } else { zero };
                    // lane i: word i + 1 (lane 7: the first word of the register above)
                    let next = _mm512_alignr_epi64::<1>(upper, plane[j]);
                    plane[j] = _mm512_or_si512(
                        _mm512_srli_epi64::<1>(plane[j]),
                        _mm512_slli_epi64::<63>(next),
                    );
                }
            }
        }
    }
}

/// A bit-sliced GF(2) polynomial (as [`Bits`]) in AVX-512 registers, laid out as [`VTrits`]'s
/// planes; the token it was loaded with proves AVX-512F for the intrinsics of its methods.
#[derive(Clone, Copy)]
pub(crate) struct VBits<const K: usize> {
    b: [__m512i; K],
    /// All-ones for the words of the polynomial, zero past it.
    keep: [__m512i; K],
}

impl<const K: usize> VBits<K> {
    #[inline(always)]
    pub(crate) fn load<const W: usize>(_t: Avx512Bits, x: &Bits<W>) -> Self {
        debug_assert!(W <= 8 * K);
        let mut b = [0u64; 16];
        b[..W].copy_from_slice(&x.0);
        let mut keep = [0u64; 16];
        keep[..W].fill(u64::MAX);
        // SAFETY: the token proves AVX-512F; every load reads 8 u64 inside a 16-word array.
        unsafe {
            let ld = |a: &[u64; 16], j: usize| _mm512_loadu_si512(a[8 * j..].as_ptr().cast());
            Self {
                b: core::array::from_fn(|j| ld(&b, j)),
                keep: core::array::from_fn(|j| ld(&keep, j)),
            }
        }
    }

    #[inline(always)]
    pub(crate) fn store<const W: usize>(&self) -> Bits<W> {
        let mut b = [0u64; 16];
        // SAFETY: AVX-512F (proved when `self` was loaded); every store writes 8 u64 inside a
        // 16-word array.
        unsafe {
            for j in 0..K {
                _mm512_storeu_si512(b[8 * j..].as_mut_ptr().cast(), self.b[j]);
            }
        }
        let mut out = Bits([0u64; W]);
        out.0.copy_from_slice(&b[..W]);
        out
    }
}

impl<const K: usize> BitOps for VBits<K> {
    #[inline(always)]
    fn c0(&self) -> u64 {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        (unsafe { _mm_cvtsi128_si64(_mm512_castsi512_si128(self.b[0])) } & 1) as u64
    }

    #[inline(always)]
    fn cswap(&mut self, o: &mut Self, mask: u64) {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        unsafe {
            let mk = _mm512_set1_epi64(mask as i64);
            for j in 0..K {
                let t = _mm512_and_si512(mk, _mm512_xor_si512(self.b[j], o.b[j]));
                self.b[j] = _mm512_xor_si512(self.b[j], t);
                o.b[j] = _mm512_xor_si512(o.b[j], t);
            }
        }
    }

    #[inline(always)]
    fn xor_masked(&mut self, o: &Self, mask: u64) {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        unsafe {
            let mk = _mm512_set1_epi64(mask as i64);
            for j in 0..K {
                self.b[j] = _mm512_xor_si512(self.b[j], _mm512_and_si512(mk, o.b[j]));
            }
        }
    }

    #[inline(always)]
    fn shl1(&mut self, top_mask: u64) {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        unsafe {
            let zero = _mm512_setzero_si512();
            for j in (0..K).rev() {
                let lower = if j > 0 { self.b[j - 1] } else { zero };
                let prev = _mm512_alignr_epi64::<7>(self.b[j], lower);
                self.b[j] = _mm512_or_si512(
                    _mm512_slli_epi64::<1>(self.b[j]),
                    _mm512_srli_epi64::<63>(prev),
                );
            }
            let top = _mm512_set1_epi64(top_mask as i64);
            for j in 0..K {
                let next_keep = if j + 1 < K { self.keep[j + 1] } else { zero };
                let last = _mm512_andnot_si512(
                    _mm512_alignr_epi64::<1>(next_keep, self.keep[j]),
                    self.keep[j],
                );
                let mask = _mm512_or_si512(
                    _mm512_andnot_si512(last, self.keep[j]),
                    _mm512_and_si512(last, top),
                );
                self.b[j] = _mm512_and_si512(self.b[j], mask);
            }
        }
    }

    #[inline(always)]
    fn shr1(&mut self) {
        // SAFETY: AVX-512F (proved when `self` was loaded); register-only.
        unsafe {
            let zero = _mm512_setzero_si512();
            for j in 0..K {
                let upper = if j + 1 < K { self.b[j + 1] } else { zero };
                let next = _mm512_alignr_epi64::<1>(upper, self.b[j]);
                self.b[j] = _mm512_or_si512(
                    _mm512_srli_epi64::<1>(self.b[j]),
                    _mm512_slli_epi64::<63>(next),
                );
            }
        }
    }
}
