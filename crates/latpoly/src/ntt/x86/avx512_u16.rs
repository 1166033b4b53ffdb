//! AVX-512BW backend, 32 x u16 lanes, `q < 2^14` (12289, 7681, 3329, ...).
//!
//! Native 16-bit high/low products (`vpmulhuw`, `vpmullw`) make a lazy Shoup product three
//! multiplications, as in fast ML-KEM code.
//!
//! The in-register layers (distances 16 .. 1) step between butterfly layouts with one cheap
//! shuffle per vector ([`LAYOUTS`]): 16 -> 8 by `vshufi64x2`, 8 -> 4 -> 2 -> 1 by
//! `vpunpck{l,h}wd`, and back up by three unpacks (or a `vpermt2q` for 8 -> 16); word
//! permutations (`vpermt2w`) remain only on the forward's way out of distance 1 and the
//! inverse's way in. Against the canonical layouts, whose every step was a two-source
//! permutation (`examples/ntt_bench`, q = 12289, Zen 5, alternating binaries): forward
//! n = 256 0.059 -> 0.045 µs, 512 0.090 -> 0.080, 1024 0.18 -> 0.16; inverse n = 256
//! 0.055 -> 0.051, 1024 0.19 -> 0.18. The forward's range check rides on its first layer
//! above one register block (`simd::forward_checked`), as on the 32- and 64-bit backends.

use super::{entry_points, model_natural, model_shufi, model_unpack, SHUFI_UP};
use crate::arith::perm_x86::Perm2W;
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

/// Lanes of a vector: the index (0..64, `a` then `b`) of the element in each lane.
type Lanes = [u8; 32];

/// The butterfly layouts of the in-register layers: `LAYOUTS[k] = [x, y]` at distance
/// `t = 2^k`. Distance 16: `x = (a_0..a_15, b_0..b_15)`, `y` the elements 16 further; each
/// smaller distance follows from the one above by one cheap shuffle per vector
/// ([`Avx512U16`]'s `step_down`): 16 -> 8 by `vshufi64x2`, 8 -> 4 -> 2 -> 1 by
/// `vpunpck{l,h}wd` (on the 16 words of a 128-bit lane pair, `(vector, word)`, an unpack
/// rotates the four index bits by one, so three of them walk the in-lane distances down).
/// Partners share a lane (`y = x + t`, checked at compile time).
const LAYOUTS: [[Lanes; 2]; 5] = {
    let [a, b] = model_natural::<32>();
    let (x16, y16) = (model_shufi(a, b, 0x44), model_shufi(a, b, 0xEE));
    let (x8, y8) = (model_shufi(x16, y16, 0x88), model_shufi(x16, y16, 0xDD));
    let (x4, y4) = (
        model_unpack::<32, false>(x8, y8),
        model_unpack::<32, true>(x8, y8),
    );
    let (x2, y2) = (
        model_unpack::<32, false>(x4, y4),
        model_unpack::<32, true>(x4, y4),
    );
    let (x1, y1) = (
        model_unpack::<32, false>(x2, y2),
        model_unpack::<32, true>(x2, y2),
    );
    let out = [[x1, y1], [x2, y2], [x4, y4], [x8, y8], [x16, y16]];
    let mut k = 0;
    while k < 5 {
        let mut l = 0;
        while l < 32 {
            assert!(out[k][1][l] == out[k][0][l] + (1 << k));
            l += 1;
        }
        k += 1;
    }
    out
};

/// The `vpermt2w` permutations from the pair layout `from` to `to` (both hold the same 64
/// elements): output lane `l` of `to[j]` is the lane of `from` (`x` then `y`) holding it.
const fn moves(from: [Lanes; 2], to: [Lanes; 2]) -> [Perm2W; 2] {
    let mut w = [[0i16; 32]; 2];
    let mut j = 0;
    while j < 2 {
        let mut l = 0;
        while l < 32 {
            let e = to[j][l];
            let mut found = false;
            let mut m = 0;
            while m < 64 {
                if from[m / 32][m % 32] == e {
                    w[j][l] = m as i16;
                    found = true;
                }
                m += 1;
            }
            assert!(found, "layouts of different elements");
            l += 1;
        }
        j += 1;
    }
    [Perm2W::new(w[0]), Perm2W::new(w[1])]
}

/// `[log2 t]` for `t < 16` (distance 16 is a pair of `vshufi64x2`): from `(a, b)` into the
/// layout of distance `t` (`DEINT`), and back (`INTER`). The transforms use them at `t = 1`
/// only (the forward's way out, the inverse's way in); the table builder at every `t`.
const DEINT: [[Perm2W; 2]; 4] = {
    let mut o = [[Perm2W::new([0; 32]); 2]; 4];
    let mut k = 0;
    while k < 4 {
        o[k] = moves(model_natural::<32>(), LAYOUTS[k]);
        k += 1;
    }
    o
};
const INTER: [[Perm2W; 2]; 4] = {
    let mut o = [[Perm2W::new([0; 32]); 2]; 4];
    let mut k = 0;
    while k < 4 {
        o[k] = moves(LAYOUTS[k], model_natural::<32>());
        k += 1;
    }
    o
};

impl Simd for Avx512U16 {
    type W = u16;
    type V = __m512i;
    const LANES: usize = 32;
    const SHOUP_BITS: u32 = 16;
    const MONT_BITS: u32 = 16;
    const REG_BLOCKS: bool = true;

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
    fn any_ge(self, v: __m512i, bound: __m512i) -> bool {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_cmpge_epu16_mask(v, bound) != 0 }
    }
    #[inline(always)]
    fn parity_mask(self, v: __m512i, half: u16) -> u64 {
        // SAFETY: token proves AVX-512BW.
        unsafe {
            let lsb = _mm512_slli_epi16::<15>(_mm512_and_si512(v, _mm512_set1_epi16(1)));
            let t = _mm512_xor_si512(lsb, _mm512_sub_epi16(_mm512_set1_epi16(half as i16), v));
            _mm512_movepi16_mask(t) as u64
        }
    }
    // The range check rides on the forward's first layer (`simd::forward_checked`).
    const FUSED_CHECK: bool = true;
    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe {
            let qhat = crate::arith::mulhi_x86::mulhi_epu16_512(x, wp);
            _mm512_sub_epi16(_mm512_mullo_epi16(x, w), _mm512_mullo_epi16(qhat, q))
        }
    }
    #[inline(always)]
    fn mont_mul(self, a: __m512i, b: __m512i, q: __m512i, qinv: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe {
            let lo = _mm512_mullo_epi16(a, b);
            let hi = crate::arith::mulhi_x86::mulhi_epu16_512(a, b);
            let m = _mm512_mullo_epi16(lo, qinv);
            let mh = crate::arith::mulhi_x86::mulhi_epu16_512(m, q);
            let t = _mm512_sub_epi16(_mm512_add_epi16(hi, q), mh);
            _mm512_min_epu16(t, _mm512_sub_epi16(t, q))
        }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m512i, b: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features (the table index k < 4: t < 16 off the first
        // branch).
        unsafe {
            if t == 16 {
                (
                    _mm512_shuffle_i64x2::<0x44>(a, b),
                    _mm512_shuffle_i64x2::<0xEE>(a, b),
                )
            } else {
                (DEINT[k][0].apply(a, b), DEINT[k][1].apply(a, b))
            }
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features (the table index k < 4: t < 16 off the first
        // branch).
        unsafe {
            if t == 16 {
                // the distance-16 selects are their own inverse
                (
                    _mm512_shuffle_i64x2::<0x44>(x, y),
                    _mm512_shuffle_i64x2::<0xEE>(x, y),
                )
            } else {
                (INTER[k][0].apply(x, y), INTER[k][1].apply(x, y))
            }
        }
    }
    #[inline(always)]
    fn step_down(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        debug_assert!(matches!(t, 2 | 4 | 8 | 16));
        // SAFETY: token proves the features; t is 16, 8, 4 or 2 ([`LAYOUTS`]).
        unsafe {
            if t == 16 {
                (
                    _mm512_shuffle_i64x2::<0x88>(x, y),
                    _mm512_shuffle_i64x2::<0xDD>(x, y),
                )
            } else {
                (_mm512_unpacklo_epi16(x, y), _mm512_unpackhi_epi16(x, y))
            }
        }
    }
    #[inline(always)]
    fn step_up(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        debug_assert!(matches!(t, 1 | 2 | 4 | 8));
        // SAFETY: token proves the features; t is 1, 2, 4 or 8 ([`LAYOUTS`]); `SHUFI_UP` rows
        // are 64 bytes.
        unsafe {
            if t == 8 {
                let (i0, i1) = (
                    _mm512_loadu_si512(SHUFI_UP[0].as_ptr().cast()),
                    _mm512_loadu_si512(SHUFI_UP[1].as_ptr().cast()),
                );
                (
                    _mm512_permutex2var_epi64(x, i0, y),
                    _mm512_permutex2var_epi64(x, i1, y),
                )
            } else {
                // an unpack rotates the four index bits of a 128-bit lane pair by one (see
                // [`LAYOUTS`]): three more undo the one of `step_down`, at one cheap shuffle
                // each, where a word permutation (`vpermt2w`) measured slower on small
                // transforms (inverse n = 256: 0.055 -> 0.051 µs, 1024: 0.186 -> 0.174)
                let (x, y) = (_mm512_unpacklo_epi16(x, y), _mm512_unpackhi_epi16(x, y));
                let (x, y) = (_mm512_unpacklo_epi16(x, y), _mm512_unpackhi_epi16(x, y));
                (_mm512_unpacklo_epi16(x, y), _mm512_unpackhi_epi16(x, y))
            }
        }
    }
}

entry_points!(Avx512U16, u16, Isa::Avx512, "avx512f,avx512bw");

#[cfg(test)]
mod tests {
    use super::*;

    /// [`LAYOUTS`] against the shuffles ([`super::super::check_layout_steps`]).
    #[test]
    fn layout_steps_agree() {
        let Some(s) = Avx512U16::try_new() else {
            println!("skipped: no AVX-512F/BW");
            return;
        };
        super::super::check_layout_steps(s, &LAYOUTS);
    }
}
