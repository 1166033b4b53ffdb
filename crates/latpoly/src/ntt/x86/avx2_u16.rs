//! AVX2 backend, 16 x u16 lanes, `q < 2^14`.

use super::entry_points;
use crate::isa::Isa;
use crate::ntt::backend::Entry;
use crate::ntt::simd::{self, Simd, SimdTables};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2U16(());

impl Avx2U16 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }
}

impl Simd for Avx2U16 {
    type W = u16;
    type V = __m256i;
    const LANES: usize = 16;
    const SHOUP_BITS: u32 = 16;
    const MONT_BITS: u32 = 16;
    const REG_BLOCKS: bool = true;

    #[inline(always)]
    fn splat(self, x: u16) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_set1_epi16(x as i16) }
    }
    #[inline(always)]
    fn load(self, s: &[u16]) -> __m256i {
        let s = &s[..16];
        // SAFETY: token proves AVX2; `s` has 16 readable u16.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u16], v: __m256i) {
        let s = &mut s[..16];
        // SAFETY: token proves AVX2; `s` has 16 writable u16.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_add_epi16(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_sub_epi16(a, b) }
    }
    #[inline(always)]
    fn csub(self, a: __m256i, m: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_min_epu16(a, _mm256_sub_epi16(a, m)) }
    }
    #[inline(always)]
    fn max(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_max_epu16(a, b) }
    }
    #[inline(always)]
    fn any_ge(self, v: __m256i, bound: __m256i) -> bool {
        // SAFETY: token proves AVX2. A lane is at least `bound` where the maximum equals it.
        unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_max_epu16(v, bound), v)) != 0 }
    }
    #[inline(always)]
    fn parity_mask(self, v: __m256i, half: u16) -> u64 {
        // SAFETY: token proves AVX2.
        unsafe {
            let lsb = _mm256_slli_epi16::<15>(_mm256_and_si256(v, _mm256_set1_epi16(1)));
            let t = _mm256_xor_si256(lsb, _mm256_sub_epi16(_mm256_set1_epi16(half as i16), v));
            // Sign of each 16-bit lane -> bytes (per 128-bit half: 8 bytes then 8 zeros).
            let packed = _mm256_packs_epi16(_mm256_srai_epi16::<15>(t), _mm256_setzero_si256());
            let m = _mm256_movemask_epi8(packed) as u32 as u64;
            (m & 0xff) | ((m >> 8) & 0xff00)
        }
    }
    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m256i, w: __m256i, wp: __m256i, q: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let qhat = crate::arith::mulhi_x86::mulhi_epu16_256(x, wp);
            _mm256_sub_epi16(_mm256_mullo_epi16(x, w), _mm256_mullo_epi16(qhat, q))
        }
    }
    #[inline(always)]
    fn mont_mul(self, a: __m256i, b: __m256i, q: __m256i, qinv: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let lo = _mm256_mullo_epi16(a, b);
            let hi = crate::arith::mulhi_x86::mulhi_epu16_256(a, b);
            let m = _mm256_mullo_epi16(lo, qinv);
            let mh = crate::arith::mulhi_x86::mulhi_epu16_256(m, q);
            let t = _mm256_sub_epi16(_mm256_add_epi16(hi, q), mh);
            _mm256_min_epu16(t, _mm256_sub_epi16(t, q))
        }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m256i, b: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: token proves AVX2.
        unsafe {
            match t {
                1 => (
                    // X = [a0 b0 a2 b2 ...], Y = [a1 b1 a3 b3 ...]
                    _mm256_blend_epi16::<0xAA>(a, _mm256_slli_epi32::<16>(b)),
                    _mm256_blend_epi16::<0xAA>(_mm256_srli_epi32::<16>(a), b),
                ),
                2 => {
                    let (fa, fb) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
                    (
                        _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(fa, fb)),
                        _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(fa, fb)),
                    )
                }
                4 => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
                _ => (
                    _mm256_permute2x128_si256::<0x20>(a, b),
                    _mm256_permute2x128_si256::<0x31>(a, b),
                ),
            }
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m256i, y: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: token proves AVX2.
        unsafe {
            match t {
                1 => (
                    _mm256_blend_epi16::<0xAA>(x, _mm256_slli_epi32::<16>(y)),
                    _mm256_blend_epi16::<0xAA>(_mm256_srli_epi32::<16>(x), y),
                ),
                2 => (_mm256_unpacklo_epi32(x, y), _mm256_unpackhi_epi32(x, y)),
                4 => (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)),
                _ => (
                    _mm256_permute2x128_si256::<0x20>(x, y),
                    _mm256_permute2x128_si256::<0x31>(x, y),
                ),
            }
        }
    }
}

entry_points!(Avx2U16, u16, Isa::Avx2, "avx2");
