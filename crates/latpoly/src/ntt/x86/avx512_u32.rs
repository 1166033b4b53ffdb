//! AVX-512F backend, 16 x u32 lanes, `q < 2^30`.
//!
//! High halves of 32 x 32 products come from two `vpmuludq` (even and odd lanes) and a blend.

use super::{deinterleave_idx, entry_points, interleave_idx};
use crate::isa::Isa;
use crate::ntt::backend::Entry;
use crate::ntt::simd::{self, Simd, SimdTables};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX-512F.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512U32(());

impl Avx512U32 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx512f").then_some(Self(()))
    }
}

/// High 32 bits of the lane-wise 32 x 32 product. Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn mulhi32(a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: caller guarantees AVX-512F.
    unsafe {
        let even = _mm512_srli_epi64::<32>(_mm512_mul_epu32(a, b));
        let odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), _mm512_srli_epi64::<32>(b));
        _mm512_mask_blend_epi32(0xAAAA, even, odd)
    }
}

#[inline(always)]
fn idx16(t: [usize; 16]) -> __m512i {
    let mut v = [0i32; 16];
    for (d, s) in v.iter_mut().zip(t) {
        *d = s as i32;
    }
    // SAFETY: token methods only; unaligned load of 16 readable i32.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

impl Simd for Avx512U32 {
    type W = u32;
    type V = __m512i;
    const LANES: usize = 16;
    const SHOUP_BITS: u32 = 32;
    const MONT_BITS: u32 = 32;

    #[inline(always)]
    fn splat(self, x: u32) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_set1_epi32(x as i32) }
    }
    #[inline(always)]
    fn load(self, s: &[u32]) -> __m512i {
        let s = &s[..16];
        // SAFETY: token proves AVX-512F; `s` has 16 readable u32.
        unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u32], v: __m512i) {
        let s = &mut s[..16];
        // SAFETY: token proves AVX-512F; `s` has 16 writable u32.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_add_epi32(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_sub_epi32(a, b) }
    }
    #[inline(always)]
    fn csub(self, a: __m512i, m: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_min_epu32(a, _mm512_sub_epi32(a, m)) }
    }
    #[inline(always)]
    fn max(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_max_epu32(a, b) }
    }
    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe {
            let qhat = mulhi32(x, wp);
            _mm512_sub_epi32(_mm512_mullo_epi32(x, w), _mm512_mullo_epi32(qhat, q))
        }
    }
    #[inline(always)]
    fn mont_mul(self, a: __m512i, b: __m512i, q: __m512i, qinv: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe {
            let lo = _mm512_mullo_epi32(a, b);
            let hi = mulhi32(a, b);
            let m = _mm512_mullo_epi32(lo, qinv);
            let mh = mulhi32(m, q);
            let t = _mm512_sub_epi32(_mm512_add_epi32(hi, q), mh);
            _mm512_min_epu32(t, _mm512_sub_epi32(t, q))
        }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m512i, b: __m512i, t: usize) -> (__m512i, __m512i) {
        let (ix, iy) = match t {
            1 => (
                deinterleave_idx::<16>(1, false),
                deinterleave_idx::<16>(1, true),
            ),
            2 => (
                deinterleave_idx::<16>(2, false),
                deinterleave_idx::<16>(2, true),
            ),
            4 => (
                deinterleave_idx::<16>(4, false),
                deinterleave_idx::<16>(4, true),
            ),
            _ => (
                deinterleave_idx::<16>(8, false),
                deinterleave_idx::<16>(8, true),
            ),
        };
        // SAFETY: token proves AVX-512F.
        unsafe {
            (
                _mm512_permutex2var_epi32(a, idx16(ix), b),
                _mm512_permutex2var_epi32(a, idx16(iy), b),
            )
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let (ia, ib) = match t {
            1 => (
                interleave_idx::<16>(1, false),
                interleave_idx::<16>(1, true),
            ),
            2 => (
                interleave_idx::<16>(2, false),
                interleave_idx::<16>(2, true),
            ),
            4 => (
                interleave_idx::<16>(4, false),
                interleave_idx::<16>(4, true),
            ),
            _ => (
                interleave_idx::<16>(8, false),
                interleave_idx::<16>(8, true),
            ),
        };
        // SAFETY: token proves AVX-512F.
        unsafe {
            (
                _mm512_permutex2var_epi32(x, idx16(ia), y),
                _mm512_permutex2var_epi32(x, idx16(ib), y),
            )
        }
    }
}

entry_points!(Avx512U32, u32, Isa::Avx512, "avx512f");
