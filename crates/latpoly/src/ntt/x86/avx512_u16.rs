//! AVX-512BW backend, 32 x u16 lanes, `q < 2^14` (12289, 7681, 3329, ...).
//!
//! Native 16-bit high/low products (`vpmulhuw`, `vpmullw`) make a lazy Shoup product three
//! multiplications, as in fast ML-KEM code.

use super::{entry_points, perm_tables, step_tables};
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

/// The `i64` index tables of `perm_tables` / `step_tables` as permutations of 16-bit lanes
/// ([`Perm2W`]: `vpermt2d` where pairs of words move whole, i.e. at every distance but 1).
const fn perms(t: [[[i64; 32]; 2]; 5]) -> [[Perm2W; 2]; 5] {
    let mut out = [[Perm2W::new([0; 32]); 2]; 5];
    let mut k = 0;
    while k < 5 {
        out[k] = [Perm2W::from_i64(t[k][0]), Perm2W::from_i64(t[k][1])];
        k += 1;
    }
    out
}

const DEINT: [[Perm2W; 2]; 5] = perms(perm_tables::<32, 5, false, false>());
const DOWN: [[Perm2W; 2]; 5] = perms(step_tables::<32, 5, false, false>());
const UP: [[Perm2W; 2]; 5] = perms(step_tables::<32, 5, true, false>());
const INTER: [[Perm2W; 2]; 5] = perms(perm_tables::<32, 5, true, false>());

// Every layout change away from distance 1 moves pairs of words whole: `vpermt2d`.
const _: () = assert!(Perm2W::tables_by_dword(&DEINT, &INTER, &DOWN, &UP));

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
        // SAFETY: token proves the features; k < log2(LANES) because t < LANES.
        unsafe { (DEINT[k][0].apply(a, b), DEINT[k][1].apply(a, b)) }
    }
    #[inline(always)]
    fn interleave(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features; k < log2(LANES) because t < LANES.
        unsafe { (INTER[k][0].apply(x, y), INTER[k][1].apply(x, y)) }
    }
    #[inline(always)]
    fn step_down(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features; 1 <= k < log2(LANES).
        unsafe { (DOWN[k][0].apply(x, y), DOWN[k][1].apply(x, y)) }
    }
    #[inline(always)]
    fn step_up(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves the features; 2t < LANES.
        unsafe { (UP[k][0].apply(x, y), UP[k][1].apply(x, y)) }
    }
}

entry_points!(Avx512U16, u16, Isa::Avx512, "avx512f,avx512bw");
