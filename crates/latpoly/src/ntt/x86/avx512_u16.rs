//! AVX-512BW backend, 32 x u16 lanes, `q < 2^14` (12289, 7681, 3329, ...).
//!
//! Native 16-bit high/low products (`vpmulhuw`, `vpmullw`) make a lazy Shoup product three
//! multiplications, as in fast ML-KEM code.

use super::{deinterleave_idx, entry_points, interleave_idx};
use crate::isa::Isa;
use crate::ntt::backend::Entry;
use crate::ntt::simd::{self, Simd, SimdTables};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX-512F and AVX-512BW.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512U16(());

impl Avx512U16 {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"))
            .then_some(Self(()))
    }
}

#[inline(always)]
fn idx32(t: [usize; 32]) -> __m512i {
    let mut v = [0i16; 32];
    for (d, s) in v.iter_mut().zip(t) {
        *d = s as i16;
    }
    // SAFETY: token methods only; unaligned load of 32 readable i16.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

impl Simd for Avx512U16 {
    type W = u16;
    type V = __m512i;
    const LANES: usize = 32;
    const SHOUP_BITS: u32 = 16;
    const MONT_BITS: u32 = 16;

    #[inline(always)]
    fn splat(self, x: u16) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_set1_epi16(x as i16) }
    }
    #[inline(always)]
    fn load(self, s: &[u16]) -> __m512i {
        let s = &s[..32];
        // SAFETY: token proves AVX-512F; `s` has 32 readable u16.
        unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u16], v: __m512i) {
        let s = &mut s[..32];
        // SAFETY: token proves AVX-512F; `s` has 32 writable u16.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_add_epi16(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_sub_epi16(a, b) }
    }
    #[inline(always)]
    fn csub(self, a: __m512i, m: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_min_epu16(a, _mm512_sub_epi16(a, m)) }
    }
    #[inline(always)]
    fn max(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_max_epu16(a, b) }
    }
    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe {
            let qhat = _mm512_mulhi_epu16(x, wp);
            _mm512_sub_epi16(_mm512_mullo_epi16(x, w), _mm512_mullo_epi16(qhat, q))
        }
    }
    #[inline(always)]
    fn mont_mul(self, a: __m512i, b: __m512i, q: __m512i, qinv: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe {
            let lo = _mm512_mullo_epi16(a, b);
            let hi = _mm512_mulhi_epu16(a, b);
            let m = _mm512_mullo_epi16(lo, qinv);
            let mh = _mm512_mulhi_epu16(m, q);
            let t = _mm512_sub_epi16(_mm512_add_epi16(hi, q), mh);
            _mm512_min_epu16(t, _mm512_sub_epi16(t, q))
        }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m512i, b: __m512i, t: usize) -> (__m512i, __m512i) {
        let (ix, iy) = match t {
            1 => (
                deinterleave_idx::<32>(1, false),
                deinterleave_idx::<32>(1, true),
            ),
            2 => (
                deinterleave_idx::<32>(2, false),
                deinterleave_idx::<32>(2, true),
            ),
            4 => (
                deinterleave_idx::<32>(4, false),
                deinterleave_idx::<32>(4, true),
            ),
            8 => (
                deinterleave_idx::<32>(8, false),
                deinterleave_idx::<32>(8, true),
            ),
            _ => (
                deinterleave_idx::<32>(16, false),
                deinterleave_idx::<32>(16, true),
            ),
        };
        // SAFETY: token proves AVX-512BW.
        unsafe {
            (
                _mm512_permutex2var_epi16(a, idx32(ix), b),
                _mm512_permutex2var_epi16(a, idx32(iy), b),
            )
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let (ia, ib) = match t {
            1 => (
                interleave_idx::<32>(1, false),
                interleave_idx::<32>(1, true),
            ),
            2 => (
                interleave_idx::<32>(2, false),
                interleave_idx::<32>(2, true),
            ),
            4 => (
                interleave_idx::<32>(4, false),
                interleave_idx::<32>(4, true),
            ),
            8 => (
                interleave_idx::<32>(8, false),
                interleave_idx::<32>(8, true),
            ),
            _ => (
                interleave_idx::<32>(16, false),
                interleave_idx::<32>(16, true),
            ),
        };
        // SAFETY: token proves AVX-512BW.
        unsafe {
            (
                _mm512_permutex2var_epi16(x, idx32(ia), y),
                _mm512_permutex2var_epi16(x, idx32(ib), y),
            )
        }
    }
}

entry_points!(Avx512U16, u16, Isa::Avx512, "avx512f,avx512bw");
