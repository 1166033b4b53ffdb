//! AVX-512F backend, 16 x u32 lanes, `q < 2^30`.
//!
//! High halves of 32 x 32 products come from two `vpmuludq` (even and odd lanes) and one merge
//! (a masked `vpshufd`).
//!
//! The in-register layers move lanes with the cheap shuffles of AMD Zen 5 (measured there,
//! twelve independent `zmm` instructions beside twelve `vpaddd`): `vpunpck{l,h}dq`,
//! `vshufps` and `vpshufd` issue four a cycle on every vector pipe, `vshufi64x2` two, while a
//! two-source `vpermt2d` takes a shuffle pipe and about one more slot (six of them beside six
//! `vpaddd` take 5.0 cycles, against 3.0 for `vpermd` or `vshufi64x2`). The butterfly layouts
//! are chosen so that each step between layers is one such shuffle per vector
//! ([`LAYOUTS`]): distance 8 from the pair `(a, b)` by 128-bit lane selects, 8 -> 4 by
//! `vshufi64x2`, 4 -> 2 by `vpunpck{l,h}qdq` and 2 -> 1 by `vshufps` (the way back: 1 -> 2 by
//! `vpunpck{l,h}dq`, 2 -> 4 by `vpunpck{l,h}qdq`); only the forward's way out of distance 1,
//! the inverse's way in, and its step 4 -> 8 take two-source permutations (`vpermt2d`,
//! `vpermt2q`). From distance 2 up, both words of every 64-bit lane belong to one butterfly
//! group, so the per-lane Shoup quotients of those layers need no shuffle of the twiddle's
//! quotients ([`SHARED_FROM`], `Simd::odd_words`).

use super::{entry_points, model_natural, model_shufi, SHUFI_UP};
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
    unsafe { mulhi32_split(a, b, _mm512_shuffle_epi32::<0xF5>(b)) }
}

/// [`mulhi32`] with the odd lanes of `b` supplied already moved into the even positions
/// (`b_odd`; for a broadcast `b` that is `b` itself). Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn mulhi32_split(a: __m512i, b: __m512i, b_odd: __m512i) -> __m512i {
    // SAFETY: caller guarantees AVX-512F.
    unsafe {
        let even = _mm512_mul_epu32(a, b);
        let odd = _mm512_mul_epu32(_mm512_shuffle_epi32::<0xF5>(a), b_odd);
        merge_high(odd, even)
    }
}

/// `odd` with its even lanes replaced by the high halves of `even`'s 64-bit lanes: one masked
/// `vpshufd` (four a cycle on Zen 5). Written in assembly: from the intrinsic with its
/// constant mask LLVM builds a two-source `vpermt2d`, and before that a shift and a
/// `vpternlogq` took two operations.
#[target_feature(enable = "avx512f")]
#[inline]
fn merge_high(odd: __m512i, even: __m512i) -> __m512i {
    let mut r = odd;
    // SAFETY: one register-only instruction of this function's target feature: no memory
    // access, no stack use, flags untouched; the result depends only on the inputs.
    unsafe {
        core::arch::asm!(
            "vpshufd {r}{{{k}}}, {e}, 0xF5",
            r = inout(zmm_reg) r,
            e = in(zmm_reg) even,
            k = in(kreg) 0x5555u16,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    r
}

/// Lane model of `vpunpcklqdq` (`HI = false`) / `vpunpckhqdq` (`HI = true`) on 32-bit lanes:
/// per 128-bit lane the low (high) quadword of `x`, then that of `y`.
const fn model_unpack64<const HI: bool>(x: [u8; 16], y: [u8; 16]) -> [u8; 16] {
    let h = if HI { 2 } else { 0 };
    let mut o = [0u8; 16];
    let mut c = 0;
    while c < 4 {
        o[4 * c] = x[4 * c + h];
        o[4 * c + 1] = x[4 * c + h + 1];
        o[4 * c + 2] = y[4 * c + h];
        o[4 * c + 3] = y[4 * c + h + 1];
        c += 1;
    }
    o
}

/// Lane model of `vshufps imm` with the same selector for both halves (`0x88`: words 0 and 2,
/// `0xDD`: words 1 and 3): per 128-bit lane two words of `x`, then the same two of `y`.
const fn model_shufps(x: [u8; 16], y: [u8; 16], imm: usize) -> [u8; 16] {
    let mut o = [0u8; 16];
    let mut c = 0;
    while c < 4 {
        o[4 * c] = x[4 * c + (imm & 3)];
        o[4 * c + 1] = x[4 * c + ((imm >> 2) & 3)];
        o[4 * c + 2] = y[4 * c + ((imm >> 4) & 3)];
        o[4 * c + 3] = y[4 * c + ((imm >> 6) & 3)];
        c += 1;
    }
    o
}

/// The butterfly layouts of the in-register layers: `LAYOUTS[k] = [x, y]` holds, per lane, the
/// index (0..32, `a` then `b`) of the pair element in that lane of `x` and `y` at distance
/// `t = 2^k`. Distance 8: `x = (a_0..a_7, b_0..b_7)`, `y` the elements 8 further; each smaller
/// distance follows from the one above by [`Avx512U32`]'s `step_down`. Partners share a lane
/// (`y = x + t`, checked at compile time).
const LAYOUTS: [[[u8; 16]; 2]; 4] = {
    let [a, b] = model_natural::<16>();
    let (x8, y8) = (model_shufi(a, b, 0x44), model_shufi(a, b, 0xEE));
    let (x4, y4) = (model_shufi(x8, y8, 0x88), model_shufi(x8, y8, 0xDD));
    // 4 -> 2 by quadword unpacks, so that both words of a 64-bit lane stay in one group of
    // distance 2 ([`SHARED_FROM`]); 2 -> 1 by `vshufps`.
    let (x2, y2) = (
        model_unpack64::<false>(x4, y4),
        model_unpack64::<true>(x4, y4),
    );
    let (x1, y1) = (model_shufps(x2, y2, 0x88), model_shufps(x2, y2, 0xDD));
    let out = [[x1, y1], [x2, y2], [x4, y4], [x8, y8]];
    let mut k = 0;
    while k < 4 {
        let mut l = 0;
        while l < 16 {
            assert!(out[k][1][l] == out[k][0][l] + (1 << k));
            l += 1;
        }
        k += 1;
    }
    out
};

/// The smallest `log2` distance of the in-register layers from which [`LAYOUTS`] puts the two
/// 32-bit words of every 64-bit lane in the same butterfly group (the pair's element `i` at
/// distance `t` is in group `i / 2t`), so that they share a twiddle (checked at compile time).
const SHARED_FROM: u32 = {
    let mut k = 0;
    let mut from = 0;
    while k < 4 {
        let x = LAYOUTS[k][0];
        let mut shared = true;
        let mut m = 0;
        while m < 8 {
            if x[2 * m] >> (k + 1) != x[2 * m + 1] >> (k + 1) {
                shared = false;
            }
            m += 1;
        }
        if !shared {
            from = k as u32 + 1;
        }
        k += 1;
    }
    assert!(
        from == 1,
        "the layouts of distance 2, 4 and 8 share twiddles within 64-bit lanes"
    );
    from
};

/// `vpermt2d` indices `[log2 t][x, y]` from the pair `(a, b)` into the layout of distance `t`
/// (`INTER = false`), or from the layout back to `(a, b)` (`INTER = true`).
const fn layout_perms<const INTER: bool>() -> [[[i32; 16]; 2]; 4] {
    let mut out = [[[0i32; 16]; 2]; 4];
    let mut k = 0;
    while k < 4 {
        let [x, y] = LAYOUTS[k];
        let mut l = 0;
        while l < 16 {
            if INTER {
                // element l (of a) and 16 + l (of b): find their lanes in (x, y)
                let mut m = 0;
                while m < 16 {
                    if x[m] as usize == l {
                        out[k][0][l] = m as i32;
                    }
                    if y[m] as usize == l {
                        out[k][0][l] = 16 + m as i32;
                    }
                    if x[m] as usize == 16 + l {
                        out[k][1][l] = m as i32;
                    }
                    if y[m] as usize == 16 + l {
                        out[k][1][l] = 16 + m as i32;
                    }
                    m += 1;
                }
            } else {
                out[k][0][l] = x[l] as i32;
                out[k][1][l] = y[l] as i32;
            }
            l += 1;
        }
        k += 1;
    }
    out
}

const DEINT: [[[i32; 16]; 2]; 4] = layout_perms::<false>();
const INTER: [[[i32; 16]; 2]; 4] = layout_perms::<true>();

/// Loads a constant 64-bit index vector. Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn idx64(t: &[i64; 8]) -> __m512i {
    // SAFETY: caller guarantees AVX-512F; `t` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

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
    // Blocks of 16 vectors (256 values) in registers: the last eight forward layers (first
    // eight inverse) of any size with one load and one store per value, and eight pairs side by
    // side in the in-register layers. `examples/ntt_bench`, against blocks-off on Zen 5: n =
    // 256 forward 0.122 -> 0.092 µs, 512 0.222 -> 0.190, 1024 0.496 -> 0.407, 4096 2.18 ->
    // 1.95 (with the cheaper layout steps and product merge of this module).
    const REG_BLOCKS: bool = true;
    const REG_V: usize = 16;

    #[inline(always)]
    fn fence8(self, v: &mut [__m512i; 8]) {
        // SAFETY: token proves AVX-512F.
        unsafe { super::fence8_zmm(v) }
    }
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
    fn any_ge(self, v: __m512i, bound: __m512i) -> bool {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_cmpge_epu32_mask(v, bound) != 0 }
    }
    // The range check rides on the forward's first layer (`simd::forward_checked`).
    const FUSED_CHECK: bool = true;
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
    // The in-register layers of distance 2, 4 and 8 give both 32-bit words of every 64-bit
    // lane the same twiddle ([`SHARED_FROM`]), so their products take the quotients as they
    // are; distance 1 moves the odd words down once per twiddle vector.
    #[inline(always)]
    fn odd_words(self, wp: __m512i, log_t: u32) -> __m512i {
        if log_t >= SHARED_FROM {
            wp
        } else {
            // SAFETY: token proves AVX-512F.
            unsafe { _mm512_shuffle_epi32::<0xF5>(wp) }
        }
    }
    #[inline(always)]
    fn mul_shoup_lazy_lanes(self, x: __m512i, tw: &simd::LaneTw<__m512i>, q: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F; `tw.wp_odd` holds the odd lanes' quotients in the
        // even positions (`odd_words`).
        unsafe {
            let qhat = mulhi32_split(x, tw.wp, tw.wp_odd);
            _mm512_sub_epi32(_mm512_mullo_epi32(x, tw.w), _mm512_mullo_epi32(qhat, q))
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
        // SAFETY: token proves AVX-512F; k < 4 because t < LANES.
        unsafe {
            if t == 8 {
                (
                    _mm512_shuffle_i64x2::<0x44>(a, b),
                    _mm512_shuffle_i64x2::<0xEE>(a, b),
                )
            } else {
                (
                    _mm512_permutex2var_epi32(a, idx(&DEINT[k][0]), b),
                    _mm512_permutex2var_epi32(a, idx(&DEINT[k][1]), b),
                )
            }
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        let k = t.trailing_zeros() as usize;
        // SAFETY: token proves AVX-512F; k < 4 because t < LANES.
        unsafe {
            if t == 8 {
                // the distance-8 selects are their own inverse
                (
                    _mm512_shuffle_i64x2::<0x44>(x, y),
                    _mm512_shuffle_i64x2::<0xEE>(x, y),
                )
            } else {
                (
                    _mm512_permutex2var_epi32(x, idx(&INTER[k][0]), y),
                    _mm512_permutex2var_epi32(x, idx(&INTER[k][1]), y),
                )
            }
        }
    }
    #[inline(always)]
    fn step_down(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        // SAFETY: token proves AVX-512F; t is 8, 4 or 2 ([`LAYOUTS`]).
        unsafe {
            if t == 8 {
                (
                    _mm512_shuffle_i64x2::<0x88>(x, y),
                    _mm512_shuffle_i64x2::<0xDD>(x, y),
                )
            } else if t == 4 {
                (_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y))
            } else {
                let (xf, yf) = (_mm512_castsi512_ps(x), _mm512_castsi512_ps(y));
                (
                    _mm512_castps_si512(_mm512_shuffle_ps::<0x88>(xf, yf)),
                    _mm512_castps_si512(_mm512_shuffle_ps::<0xDD>(xf, yf)),
                )
            }
        }
    }
    #[inline(always)]
    fn step_up(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        // SAFETY: token proves AVX-512F; t is 1, 2 or 4 ([`LAYOUTS`]); `SHUFI_UP` rows are 64
        // bytes.
        unsafe {
            if t == 4 {
                (
                    _mm512_permutex2var_epi64(x, idx64(&SHUFI_UP[0]), y),
                    _mm512_permutex2var_epi64(x, idx64(&SHUFI_UP[1]), y),
                )
            } else if t == 2 {
                // undoes the quadword unpacks of `step_down`
                (_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y))
            } else {
                // undoes the `vshufps` of `step_down`
                (_mm512_unpacklo_epi32(x, y), _mm512_unpackhi_epi32(x, y))
            }
        }
    }
}

entry_points!(Avx512U32, u32, Isa::Avx512, "avx512f");

#[cfg(test)]
mod tests {
    use super::*;

    /// [`LAYOUTS`] against the shuffles ([`super::super::check_layout_steps`]).
    #[test]
    fn layout_steps_agree() {
        let Some(s) = Avx512U32::try_new() else {
            println!("skipped: no AVX-512F");
            return;
        };
        super::super::check_layout_steps(s, &LAYOUTS);
    }
}
