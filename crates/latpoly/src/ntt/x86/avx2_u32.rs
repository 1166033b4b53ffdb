//! AVX2 backend, 8 x u32 lanes, `q < 2^30`.

use super::entry_points;
use crate::isa::Isa;
use crate::ntt::backend::Entry;
use crate::ntt::simd::{self, LaneTw, Simd, SimdTables};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2U32(());

impl Avx2U32 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }
}

/// High 32 bits of the lane-wise 32 x 32 product. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mulhi32(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe { mulhi32_split(a, b, _mm256_srli_epi64::<32>(b)) }
}

/// [`mulhi32`] with the odd lanes of `b` supplied already shifted into the even positions
/// (`b_odd`; for a broadcast `b` that is `b` itself). Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mulhi32_split(a: __m256i, b: __m256i, b_odd: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let even = _mm256_srli_epi64::<32>(_mm256_mul_epu32(a, b));
        let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), b_odd);
        _mm256_blend_epi32::<0b1010_1010>(even, odd)
    }
}

impl Simd for Avx2U32 {
    type W = u32;
    type V = __m256i;
    const LANES: usize = 8;
    const SHOUP_BITS: u32 = 32;
    const MONT_BITS: u32 = 32;

    #[inline(always)]
    fn splat(self, x: u32) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_set1_epi32(x as i32) }
    }
    #[inline(always)]
    fn load(self, s: &[u32]) -> __m256i {
        let s = &s[..8];
        // SAFETY: token proves AVX2; `s` has 8 readable u32.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u32], v: __m256i) {
        let s = &mut s[..8];
        // SAFETY: token proves AVX2; `s` has 8 writable u32.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_add_epi32(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_sub_epi32(a, b) }
    }
    #[inline(always)]
    fn csub(self, a: __m256i, m: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_min_epu32(a, _mm256_sub_epi32(a, m)) }
    }
    #[inline(always)]
    fn max(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_max_epu32(a, b) }
    }
    #[inline(always)]
    fn any_ge(self, v: __m256i, bound: __m256i) -> bool {
        // SAFETY: token proves AVX2. A lane is at least `bound` where the maximum equals it.
        unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_max_epu32(v, bound), v)) != 0 }
    }
    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m256i, w: __m256i, wp: __m256i, q: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let qhat = mulhi32(x, wp);
            _mm256_sub_epi32(_mm256_mullo_epi32(x, w), _mm256_mullo_epi32(qhat, q))
        }
    }
    #[inline(always)]
    fn mul_shoup_lazy_splat(self, x: __m256i, w: __m256i, wp: __m256i, q: __m256i) -> __m256i {
        // SAFETY: token proves AVX2. `wp` is a broadcast of a 32-bit value, so every 64-bit
        // lane already holds the odd lane's quotient in its low half.
        unsafe {
            let qhat = mulhi32_split(x, wp, wp);
            _mm256_sub_epi32(_mm256_mullo_epi32(x, w), _mm256_mullo_epi32(qhat, q))
        }
    }
    /// The in-register layers read the quotients' odd words from memory (one `vpsrlq` less
    /// per product).
    const ODD_TWIDDLES: bool = true;
    #[inline(always)]
    fn load_odd(self, s: &[u32]) -> __m256i {
        self.load(&s[1..])
    }
    #[inline(always)]
    fn mul_shoup_lazy_lanes(self, x: __m256i, tw: &LaneTw<__m256i>, q: __m256i) -> __m256i {
        // SAFETY: token proves AVX2. `tw.wp_odd` holds the odd lanes' quotients in the even
        // positions (`load_odd`).
        unsafe {
            let qhat = mulhi32_split(x, tw.wp, tw.wp_odd);
            _mm256_sub_epi32(_mm256_mullo_epi32(x, tw.w), _mm256_mullo_epi32(qhat, q))
        }
    }
    /// The range check of [`simd::forward_checked`] runs inside the first layer.
    const FUSED_CHECK: bool = true;
    #[inline(always)]
    fn mont_mul(self, a: __m256i, b: __m256i, q: __m256i, qinv: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let lo = _mm256_mullo_epi32(a, b);
            let hi = mulhi32(a, b);
            let m = _mm256_mullo_epi32(lo, qinv);
            let mh = mulhi32(m, q);
            let t = _mm256_sub_epi32(_mm256_add_epi32(hi, q), mh);
            _mm256_min_epu32(t, _mm256_sub_epi32(t, q))
        }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m256i, b: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: token proves AVX2.
        unsafe {
            match t {
                1 => {
                    // Per 128-bit lane: X = [a0 a2 b0 b2], Y = [a1 a3 b1 b3].
                    let (fa, fb) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
                    (
                        _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(fa, fb)),
                        _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(fa, fb)),
                    )
                }
                2 => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
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
                1 => (_mm256_unpacklo_epi32(x, y), _mm256_unpackhi_epi32(x, y)),
                2 => (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)),
                _ => (
                    _mm256_permute2x128_si256::<0x20>(x, y),
                    _mm256_permute2x128_si256::<0x31>(x, y),
                ),
            }
        }
    }
}

entry_points!(Avx2U32, u32, Isa::Avx2, "avx2");

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// The per-lane product of the in-register layers ([`Simd::ODD_TWIDDLES`]: the odd lanes'
    /// quotients read by `load_odd` from a table of twiddles then quotients, as `small_fwd`
    /// holds them) against 64-bit arithmetic for any `x < 2^32`, at the largest 30-bit NTT
    /// prime and a small one.
    #[test]
    fn lane_twiddle_product_against_u64() {
        let Some(s) = Avx2U32::try_new() else {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(34);
        for q in [
            crate::primes::ntt_primes(30, 16, 1).unwrap()[0],
            crate::primes::ntt_primes(17, 16, 1).unwrap()[0],
        ] {
            let qv = s.splat(q as u32);
            for i in 0..3000u32 {
                let mut ws: [u32; 8] = core::array::from_fn(|_| rng.gen_range(0..q as u32));
                (ws[0], ws[7]) = (q as u32 - 1, i % q as u32);
                let mut table = ws.to_vec();
                table.extend(ws.map(|w| <Avx2U32 as Simd>::enc_shoup(w as u64, q) as u32));
                table.push(rng.gen());
                let mut xs: [u32; 8] = core::array::from_fn(|_| rng.gen());
                (xs[0], xs[1], xs[2]) = (u32::MAX, 0, i);
                let tw = LaneTw {
                    w: s.load(&table),
                    wp: s.load(&table[8..]),
                    w_odd: s.load_odd(&table),
                    wp_odd: s.load_odd(&table[8..]),
                };
                let mut got = [0u32; 8];
                s.store(&mut got, s.mul_shoup_lazy_lanes(s.load(&xs), &tw, qv));
                for j in 0..8 {
                    let want = (xs[j] as u64 * ws[j] as u64 % q) as u32;
                    assert!(
                        (got[j] as u64) < 2 * q && got[j] % q as u32 == want,
                        "q={q} x={} w={}",
                        xs[j],
                        ws[j]
                    );
                }
            }
        }
    }
}
