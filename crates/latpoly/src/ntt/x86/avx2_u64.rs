//! AVX2 backend, 4 x u64 lanes, any `q < 2^62`.
//!
//! AVX2 has neither 64-bit multiplies nor unsigned 64-bit compares: products are built from
//! `vpmuludq` (32 x 32 -> 64) and unsigned compares flip the sign bit before `vpcmpgtq`.

use super::{convert_entry, entry_points};
use crate::isa::Isa;
use crate::ntt::backend::Entry;
use crate::ntt::simd::{self, Simd, SimdTables};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2U64(());

impl Avx2U64 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }
}

/// High 64 bits of the lane-wise product. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mulhi64(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let a_hi = _mm256_srli_epi64::<32>(a);
        let b_hi = _mm256_srli_epi64::<32>(b);
        let ll = _mm256_mul_epu32(a, b);
        let lh = _mm256_mul_epu32(a, b_hi);
        let hl = _mm256_mul_epu32(a_hi, b);
        let hh = _mm256_mul_epu32(a_hi, b_hi);
        let t = _mm256_add_epi64(hl, _mm256_srli_epi64::<32>(ll));
        let u = _mm256_add_epi64(lh, _mm256_and_si256(t, _mm256_set1_epi64x(0xffff_ffff)));
        _mm256_add_epi64(
            _mm256_add_epi64(hh, _mm256_srli_epi64::<32>(t)),
            _mm256_srli_epi64::<32>(u),
        )
    }
}

/// Low 64 bits of the lane-wise product. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mullo64(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let ll = _mm256_mul_epu32(a, b);
        let lh = _mm256_mul_epu32(a, _mm256_srli_epi64::<32>(b));
        let hl = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), b);
        _mm256_add_epi64(ll, _mm256_slli_epi64::<32>(_mm256_add_epi64(lh, hl)))
    }
}

/// `a >= m ? a - m : a` for unsigned 64-bit lanes. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn csub64(a: __m256i, m: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let sign = _mm256_set1_epi64x(i64::MIN);
        // m > a (unsigned)  <=>  (m ^ sign) > (a ^ sign) (signed)
        let lt = _mm256_cmpgt_epi64(_mm256_xor_si256(m, sign), _mm256_xor_si256(a, sign));
        _mm256_sub_epi64(a, _mm256_andnot_si256(lt, m))
    }
}

impl Simd for Avx2U64 {
    type W = u64;
    type V = __m256i;
    const LANES: usize = 4;
    const SHOUP_BITS: u32 = 64;
    const MONT_BITS: u32 = 64;
    // Emulated 64-bit products make each butterfly a long dependency chain: independent
    // radix-2 butterflies measured faster than radix-4 pairs of dependent ones.
    const RADIX4: bool = false;

    #[inline(always)]
    fn splat(self, x: u64) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    fn load(self, s: &[u64]) -> __m256i {
        let s = &s[..4];
        // SAFETY: token proves AVX2; `s` has 4 readable u64.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u64], v: __m256i) {
        let s = &mut s[..4];
        // SAFETY: token proves AVX2; `s` has 4 writable u64.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_add_epi64(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_sub_epi64(a, b) }
    }
    #[inline(always)]
    fn csub(self, a: __m256i, m: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { csub64(a, m) }
    }
    #[inline(always)]
    fn max(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2. Unsigned compare via sign flip, then blend.
        unsafe {
            let sign = _mm256_set1_epi64x(i64::MIN);
            let gt = _mm256_cmpgt_epi64(_mm256_xor_si256(b, sign), _mm256_xor_si256(a, sign));
            _mm256_blendv_epi8(a, b, gt)
        }
    }
    #[inline(always)]
    fn any_ge(self, v: __m256i, bound: __m256i) -> bool {
        // SAFETY: token proves AVX2. Unsigned compare via sign flip: every lane below `bound`
        // sets all 32 bytes of the mask.
        unsafe {
            let sign = _mm256_set1_epi64x(i64::MIN);
            let lt = _mm256_cmpgt_epi64(_mm256_xor_si256(bound, sign), _mm256_xor_si256(v, sign));
            _mm256_movemask_epi8(lt) != -1
        }
    }
    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m256i, w: __m256i, wp: __m256i, q: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let qhat = mulhi64(x, wp);
            _mm256_sub_epi64(mullo64(x, w), mullo64(qhat, q))
        }
    }
    #[inline(always)]
    fn mont_mul(self, a: __m256i, b: __m256i, q: __m256i, qinv: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let lo = mullo64(a, b);
            let hi = mulhi64(a, b);
            let m = mullo64(lo, qinv);
            let mh = mulhi64(m, q);
            let t = _mm256_sub_epi64(_mm256_add_epi64(hi, q), mh);
            csub64(t, q)
        }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m256i, b: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: token proves AVX2.
        unsafe {
            if t == 1 {
                // X = [a0 b0 a2 b2], Y = [a1 b1 a3 b3]
                (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b))
            } else {
                // X = [a0 a1 b0 b1], Y = [a2 a3 b2 b3]
                (
                    _mm256_permute2x128_si256::<0x20>(a, b),
                    _mm256_permute2x128_si256::<0x31>(a, b),
                )
            }
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m256i, y: __m256i, t: usize) -> (__m256i, __m256i) {
        // Both permutations are involutions on the (a, b) <-> (X, Y) pair.
        self.deinterleave(x, y, t)
    }
}

entry_points!(Avx2U64, u64, Isa::Avx2, "avx2");
convert_entry!(Avx2U64, "avx2");
