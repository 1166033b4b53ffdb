//! AVX-512F backend, 16 x u32 lanes, `q < 2^30`.
//!
//! High halves of 32 x 32 products come from two `vpmuludq` (even and odd lanes) and a blend.

use super::{entry_points, perm_tables, step_tables};
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
    unsafe { mulhi32_split(a, b, _mm512_srli_epi64::<32>(b)) }
}

/// [`mulhi32`] with the odd lanes of `b` supplied already shifted into the even positions
/// (`b_odd`; for a broadcast `b` that is `b` itself). Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn mulhi32_split(a: __m512i, b: __m512i, b_odd: __m512i) -> __m512i {
    // SAFETY: caller guarantees AVX-512F.
    unsafe {
        let even = _mm512_srli_epi64::<32>(_mm512_mul_epu32(a, b));
        let odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), b_odd);
        // even | (odd & high halves): one vpternlogq against a hoisted constant, where a
        // mask blend rematerialized its mask register for every product.
        _mm512_ternarylogic_epi64::<0xF8>(even, odd, _mm512_set1_epi64(-1i64 << 32))
    }
}

const fn narrow(t: [[[i64; 16]; 2]; 4]) -> [[[i32; 16]; 2]; 4] {
    let mut out = [[[0i32; 16]; 2]; 4];
    let mut k = 0;
    while k < 4 {
        let mut l = 0;
        while l < 16 {
            out[k][0][l] = t[k][0][l] as i32;
            out[k][1][l] = t[k][1][l] as i32;
            l += 1;
        }
        k += 1;
    }
    out
}

const DEINT: [[[i32; 16]; 2]; 4] = narrow(perm_tables::<16, 4, false, false>());
const DOWN: [[[i32; 16]; 2]; 4] = narrow(step_tables::<16, 4, false, false>());
const UP: [[[i32; 16]; 2]; 4] = narrow(step_tables::<16, 4, true, false>());
const INTER: [[[i32; 16]; 2]; 4] = narrow(perm_tables::<16, 4, true, false>());

/// Loads a constant index vector. Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn idx(t: &[i32; 16]) -> __m512i {
    // SAFETY: caller guarantees AVX-512F; `t` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
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
    fn hmax(self, v: __m512i) -> u32 {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_reduce_max_epu32(v) }
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
    fn mul_shoup_lazy_splat(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F. `wp` is a broadcast of a 32-bit value, so every 64-bit
        // lane already holds the odd lane's quotient in its low half.
        unsafe {
            let qhat = mulhi32_split(x, wp, wp);
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
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features; k < log2(LANES) because t < LANES.
        unsafe {
            (
                _mm512_permutex2var_epi32(a, idx(&DEINT[k][0]), b),
                _mm512_permutex2var_epi32(a, idx(&DEINT[k][1]), b),
            )
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features; k < log2(LANES) because t < LANES.
        unsafe {
            (
                _mm512_permutex2var_epi32(x, idx(&INTER[k][0]), y),
                _mm512_permutex2var_epi32(x, idx(&INTER[k][1]), y),
            )
        }
    }
    #[inline(always)]
    fn step_down(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features; 1 <= k < log2(LANES).
        unsafe {
            (
                _mm512_permutex2var_epi32(x, idx(&DOWN[k][0]), y),
                _mm512_permutex2var_epi32(x, idx(&DOWN[k][1]), y),
            )
        }
    }
    #[inline(always)]
    fn step_up(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features; 2t < LANES.
        unsafe {
            (
                _mm512_permutex2var_epi32(x, idx(&UP[k][0]), y),
                _mm512_permutex2var_epi32(x, idx(&UP[k][1]), y),
            )
        }
    }
}

entry_points!(Avx512U32, u32, Isa::Avx512, "avx512f");
