//! Products in `R/q` (`q = 4591`) on AVX-512 VNNI: Toom-Cook 4-way modulo `q`, whose seven
//! point products are schoolbook convolutions on `vpdpwssd` ([`crate::rings::vnni_conv`]), the
//! same kernel as NTRU's `ntru/toom_vnni.rs`.
//!
//! The NTT of `fast.rs` needs two primes for a product by a small polynomial (six transforms
//! of 1536 points) and three for a general product (nine). Here, with limbs of `N = 192`
//! coefficients (`4 N = 768 >= 761`, `G = N / 16 = 12`):
//!
//! 1. **Evaluation** at `0, 1, -1, 2, -2, 1/2` (as `8 A(1/2)`) and `inf`, in 16-bit lanes
//!    ([`eval`]). A general operand is first reduced to `|a| <= 2304` (Barrett), and the
//!    partial sums `2 a1 + 8 a3` and `8 a0 + 2 a2` are reduced again (the points `A(±2)` and
//!    `8 A(1/2)` built from them would otherwise reach `15 · 2304`, outside `i16`), so its
//!    points stay within `13,824`; a small operand (`{-1, 0, 1}`) needs no reduction (its
//!    points stay within 15). For a product of two general operands every point is reduced to
//!    `|x| <= 2304`.
//! 2. **Point products**: seven linear convolutions of `N x N` coefficients, `8 G (G + 1) =
//!    1,248` `vpdpwssd` each (8,736 in all, against `761^2 / 32 = 18,097` for a schoolbook of
//!    the whole product). The 32-bit sums are exact (below `192 · 13,824 · 15 < 2^26` with a
//!    small operand, `192 · 2304^2 < 2^30` without) and each is brought back to 16 bits by a
//!    signed Montgomery reduction (`w = s · 2^-16 mod q`, `|w| < 2^15`), stored as pairs of
//!    points `(w_2k, w_2k+1)` in 32-bit lanes ([`Pairs`]), the operands of the interpolation.
//! 3. **Interpolation** by the integer matrix `K = 360 V^-1` (`V` the evaluation matrix of the
//!    seven points; entries below 2^11), applied with `vpdpwssd` to pairs of points
//!    interleaved in 32-bit lanes: the two limbs `c_j` that meet in a block of the full
//!    product are summed exactly in 32 bits and reduced once. Then the fold modulo
//!    `x^761 - x - 1` in 16-bit lanes, one Montgomery product by `360^-1 · 2^48 mod q` (the
//!    factor 360 of `K` and the three `2^-16` of the reductions) and the centred
//!    representative.
//!
//! Every step is a fixed sequence of vector operations on addresses that depend on nothing
//! but loop counters, so the product is constant time. (Valgrind cannot execute AVX-512; the
//! constant-time tests of the KEMs run the NTT under `LATPOLY_ISA=avx2`.)

#![allow(unsafe_code)]

use super::fast::{barrett_v, centre, inv_2_16, pow_mod};
use super::{P, PADDED, Q};
use crate::arith::mulhi_x86::mulhi_epi16_512;
use crate::rings::unroll;
use crate::rings::vnni_conv::{dpwssd, full_rate_vnni, lanes16, pairs, point, Sink};
use core::arch::x86_64::*;

/// Limb length `N` (`4 N = 768 >= P`).
const N: usize = 192;
/// `N / 16` and `G + 1`, the shape parameters of [`point`].
const G: usize = 12;
const D: usize = 13;
/// The two chunks of each point product's groups (`2 C + D <= 32` registers). Of different
/// sizes: with equal ones the compiler no longer inlines the chunk's function, called twice,
/// and its sums go through memory (the product then took 1.5 times as long).
const C1: usize = 7;
const C2: usize = 5;
/// Middle sums of each chunk with a second register for the odd `j` ([`point`]): none, as
/// with 13 windows the chains of dependent `vpdpwssd` do not bound the chunks (an asm probe
/// of the loop with three such sums: no gain).
const EX: usize = 0;
/// Points of Toom-4.
const PTS: usize = 7;
/// Stride of an evaluated point: 16 zeros, the `N` values, 48 zeros (what [`pairs`] reads).
const BS: usize = N + 64;
/// Length of a point product (`2 N - 1` coefficients and a zero).
const PL: usize = 2 * N;
/// Blocks of 32 coefficients of a point product and of the full product (`8 N`).
const UB: usize = PL / 32;
const VB: usize = 8 * N / 32;
/// Full product buffer: `8 N` coefficients, then zeros read by the fold's last loads.
const FULL: usize = 8 * N + 64;

/// Workspace regions (`u16`, multiples of 32, so each starts on a 64-byte boundary): the
/// evaluated operands, the pair array of one point, and the point products as pairs of points
/// in 32-bit lanes ([`Pairs`]: four arrays of `2 N` lanes, the last pairing point 6 with
/// zero). The full product reuses the operands' region.
const B_OFF: usize = PTS * BS;
const WIN_OFF: usize = 2 * PTS * BS;
const WIN_LEN: usize = 32 * (G + 2);
const PV_OFF: usize = WIN_OFF + WIN_LEN;
/// Length of one array of pairs (`2 N` 32-bit lanes).
const PV_STRIDE: usize = 2 * PL;
const TOTAL: usize = PV_OFF + 4 * PV_STRIDE;
const _: () = assert!(FULL <= WIN_OFF);

/// `q^-1 mod 2^16`.
const QINV: i16 = inv_2_16(Q as i16);
/// `round(2^27 / q)`: the Barrett multiplier.
const BARRETT_V: i16 = barrett_v(Q as i16);
/// `360 V^-1`: row `j` gives `360 c_j` from the point products at `0, 1, -1, 2, -2, 1/2`
/// (`64 C(1/2)`) and `inf` (checked against the evaluation matrix in the tests).
const K: [[i16; PTS]; PTS] = [
    [360, 0, 0, 0, 0, 0, 0],
    [-720, -240, -80, 10, 6, 16, -720],
    [-450, 240, 240, -15, -15, 0, 1440],
    [900, 540, -140, -20, 0, -20, 900],
    [90, -60, -60, 15, 15, 0, -1800],
    [-180, -120, 40, 10, -6, 4, -180],
    [0, 0, 0, 0, 0, 0, 360],
];
/// The scale of [`K`].
const K_SCALE: i64 = 360;

/// The final factor: `360^-1 · 2^48 mod q` (the fold's values carry `360 · 2^-32`, and the
/// Montgomery product by this constant one more `2^-16`).
const FINAL: i16 = {
    let q = Q as i64;
    centre(pow_mod(K_SCALE, q - 2, q) * pow_mod(2, 48, q), q) as i16
};
/// `FINAL · q^-1 mod 2^16`.
const FINAL_QINV: i16 = FINAL.wrapping_mul(QINV);

/// Proof that the CPU runs AVX-512F, BW and VNNI at full rate
/// ([`crate::rings::vnni_conv::full_rate_vnni`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrimeVnni(());

/// The memory of one product (14 KB, 64-byte aligned). Every product writes each region before
/// reading it; the KEMs wipe it after each operation (`ScratchWipe`).
#[repr(C, align(64))]
pub(crate) struct Workspace([u16; TOTAL]);

impl Workspace {
    pub(crate) fn new() -> Box<Self> {
        Box::new(Workspace([0; TOTAL]))
    }

    /// Zeroes the workspace.
    pub(crate) fn wipe(&mut self) {
        crate::secret::wipe(&mut self.0);
    }

    /// Whether every entry is zero (for tests).
    #[cfg(test)]
    pub(crate) fn is_zero(&self) -> bool {
        self.0.iter().all(|&x| x == 0)
    }
}

/// The second operand of a product.
#[derive(Clone, Copy)]
enum Rhs<'a> {
    /// Coefficients in `{-1, 0, 1}`.
    Small(&'a [i8]),
    /// Any `i16`.
    General(&'a [i16]),
}

impl PrimeVnni {
    /// The token, where [`full_rate_vnni`] holds.
    pub(crate) fn try_new() -> Option<Self> {
        full_rate_vnni().then_some(Self(()))
    }

    /// The token where [`PrimeVnni::mul_rq_small`] is also faster than the AVX-512 transforms
    /// of `fast.rs`: not on AMD Zen 5, where the transforms take 1.25 µs for `R/q × small`
    /// against 1.33 µs for this product (minima of 200 batches of 100 in one process; in
    /// sntrup761 decapsulation, two such products, 6.95-7.06 -> 6.82-6.88 µs). The general
    /// product is the faster one there too (1.34 µs against 1.92).
    pub(crate) fn for_small() -> Option<Self> {
        Self::try_new().filter(|_| !crate::cpu::is_zen5())
    }

    /// `out[..P] = a · s` in `R/q`, centred, for any `i16` coefficients `a` and `s` in
    /// `{-1, 0, 1}` (the caller checks; other values of `s` may give wrong results, never
    /// undefined behaviour). `out` has at least [`PADDED`] entries; those past `P` are
    /// overwritten with unspecified values.
    ///
    /// # Panics
    /// When `a` or `s` has fewer than `P` entries or `out` fewer than [`PADDED`].
    pub(crate) fn mul_rq_small(self, ws: &mut Workspace, a: &[i16], s: &[i8], out: &mut [i16]) {
        assert!(a.len() >= P && s.len() >= P && out.len() >= PADDED);
        // SAFETY: the token proves AVX-512F, BW and VNNI, the features of the entry point.
        unsafe { tf_mul(ws, a, Rhs::Small(s), out) }
    }

    /// `out[..P] = a · b` in `R/q`, centred, for any `i16` coefficients (see
    /// [`PrimeVnni::mul_rq_small`]).
    ///
    /// # Panics
    /// When `a` or `b` has fewer than `P` entries or `out` fewer than [`PADDED`].
    pub(crate) fn mul_rq(self, ws: &mut Workspace, a: &[i16], b: &[i16], out: &mut [i16]) {
        assert!(a.len() >= P && b.len() >= P && out.len() >= PADDED);
        // SAFETY: as above.
        unsafe { tf_mul(ws, a, Rhs::General(b), out) }
    }
}

/// Barrett reduction: `a - round(a / q) q`, within `(q + 1) / 2 + 8 = 2304` of zero for any
/// `i16` (exhaustive test). The quotient is `round(mulhi(a, round(2^27 / q)) / 2^11)`, the
/// rounding shift a `vpmulhrsw` by `2^4`, as in `fast.rs`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn barrett(a: __m512i) -> __m512i {
    let t = _mm512_mulhrs_epi16(
        mulhi_epi16_512(a, _mm512_set1_epi16(BARRETT_V)),
        _mm512_set1_epi16(16),
    );
    _mm512_sub_epi16(a, _mm512_mullo_epi16(t, _mm512_set1_epi16(Q as i16)))
}

/// Signed Montgomery reduction of the 32-bit lanes `s` (`|s| < 2^31 - 2^16 q`): `s · 2^-16 mod
/// q` in the low 16 bits of each lane, of magnitude at most `|s| / 2^16 + q / 2` (the high
/// bits are zero). With `t = s · q^-1 mod 2^16`, `s - t q` is a multiple of `2^16`, and its
/// high half is `s_hi - mulhi(t, q)`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn redc_low(s: __m512i) -> __m512i {
    let t = _mm512_mullo_epi16(s, _mm512_set1_epi32(i32::from(QINV as u16)));
    let u = mulhi_epi16_512(t, _mm512_set1_epi32(i32::from(Q)));
    _mm512_sub_epi16(_mm512_srli_epi32(s, 16), u)
}

/// [`redc_low`] sign-extended to 32 bits.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn redc_wide(s: __m512i) -> __m512i {
    let t = _mm512_mullo_epi16(s, _mm512_set1_epi32(i32::from(QINV as u16)));
    let u = mulhi_epi16_512(t, _mm512_set1_epi32(i32::from(Q)));
    _mm512_srai_epi32(_mm512_sub_epi32(s, _mm512_slli_epi32(u, 16)), 16)
}

/// [`redc_low`] in the high 16 bits of each lane (the low bits are garbage): `s - mulhi(t, q)
/// 2^16`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn redc_high(s: __m512i) -> __m512i {
    let t = _mm512_mullo_epi16(s, _mm512_set1_epi32(i32::from(QINV as u16)));
    let u = mulhi_epi16_512(t, _mm512_set1_epi32(i32::from(Q)));
    _mm512_sub_epi32(s, _mm512_slli_epi32(u, 16))
}

/// The point products' sink: block `k` of point `p`, Montgomery-reduced, into the low (even
/// `p`) or high (odd `p`) halves of the 32-bit lanes `32 k ..` of the array of pairs
/// `(w_2m, w_2m+1)`, `m = p / 2`. The even point runs first and zeroes the high halves (point
/// 6 has no partner).
struct Pairs<'a> {
    dst: &'a mut [u16],
    odd: bool,
}

impl Sink for Pairs<'_> {
    #[inline(always)]
    fn put(&mut self, k: usize, sums: __m512i) {
        let dst = &mut self.dst[32 * k..32 * k + 32];
        // SAFETY: 32 readable and writable words; `point`, the only caller, runs with AVX-512F,
        // BW and VNNI.
        unsafe {
            let v = if self.odd {
                let even = _mm512_loadu_si512(dst.as_ptr().cast());
                _mm512_mask_blend_epi16(0xaaaa_aaaa, even, redc_high(sums))
            } else {
                redc_low(sums)
            };
            _mm512_storeu_si512(dst.as_mut_ptr().cast(), v);
        }
    }
}

/// Toom-4 evaluation of four limbs (lane-wise) at `0, 1, -1, 2, -2, 1/2` (as `8 A(1/2)`) and
/// `inf`. `RED = 0`: no reduction (limbs in `{-1, 0, 1}`: points within 15); `1`: the limbs
/// within 2304 of zero, `2 a1 + 8 a3` and `8 a0 + 2 a2` reduced (points within 13,824); `2`:
/// as `1`, then every point reduced (within 2304).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn eval<const RED: u8>([a0, a1, a2, a3]: [__m512i; 4]) -> [__m512i; PTS] {
    let (e0, e1) = (_mm512_add_epi16(a0, a2), _mm512_add_epi16(a1, a3));
    let f0 = _mm512_add_epi16(a0, _mm512_slli_epi16(a2, 2));
    let mut f1 = _mm512_add_epi16(_mm512_slli_epi16(a1, 1), _mm512_slli_epi16(a3, 3));
    let mut g0 = _mm512_add_epi16(_mm512_slli_epi16(a0, 3), _mm512_slli_epi16(a2, 1));
    let g1 = _mm512_add_epi16(_mm512_slli_epi16(a1, 2), a3);
    if RED >= 1 {
        f1 = barrett(f1);
        g0 = barrett(g0);
    }
    let mut p = [
        a0,
        _mm512_add_epi16(e0, e1),
        _mm512_sub_epi16(e0, e1),
        _mm512_add_epi16(f0, f1),
        _mm512_sub_epi16(f0, f1),
        _mm512_add_epi16(g0, g1),
        a3,
    ];
    if RED == 2 {
        for x in p.iter_mut().take(PTS - 1).skip(1) {
            *x = barrett(*x);
        }
    }
    p
}

/// Coefficients `start .. start + 32` of a polynomial of `P` coefficients (zero past `P`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_i16(x: &[i16], start: usize) -> __m512i {
    assert!(x.len() >= P);
    if start >= P {
        return _mm512_setzero_si512();
    }
    // SAFETY: the masked load reads only x[start..min(start + 32, P)] (AVX-512BW enabled).
    unsafe { _mm512_maskz_loadu_epi16(lanes16(P - start), x.as_ptr().add(start).cast()) }
}

/// As [`load_i16`] for `i8` coefficients, sign-extended.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_i8(x: &[i8], start: usize) -> __m512i {
    assert!(x.len() >= P);
    if start >= P {
        return _mm512_setzero_si512();
    }
    // SAFETY: the masked load reads only x[start..min(start + 32, P)] (AVX-512BW enabled).
    let v = unsafe {
        _mm512_maskz_loadu_epi8(u64::from(lanes16(P - start)), x.as_ptr().add(start).cast())
    };
    _mm512_cvtepi8_epi16(_mm512_castsi512_si256(v))
}

/// Evaluates the operand whose 32 coefficients at `c` of limb `i` [`load_i16`] or
/// [`load_i8`] gives (`RED` as in [`eval`]; the limbs of a general operand are reduced first,
/// whatever `RED`) into `dst` (`PTS` strides of [`BS`]: 16 zeros, the `N` values, zeros).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn stage<const RED: u8>(x: Rhs<'_>, dst: &mut [u16]) {
    assert!(dst.len() == PTS * BS);
    for p in 0..PTS {
        dst[p * BS..p * BS + 16].fill(0);
        dst[p * BS + 16 + N..(p + 1) * BS].fill(0);
    }
    for c in (0..N).step_by(32) {
        let mut limbs = [_mm512_setzero_si512(); 4];
        for (i, limb) in limbs.iter_mut().enumerate() {
            *limb = match x {
                Rhs::Small(s) => load_i8(s, i * N + c),
                Rhs::General(g) => barrett(load_i16(g, i * N + c)),
            };
        }
        for (p, v) in eval::<RED>(limbs).into_iter().enumerate() {
            let at = p * BS + 16 + c;
            let d = &mut dst[at..at + 32];
            // SAFETY: 32 writable words (AVX-512F enabled).
            unsafe { _mm512_storeu_si512(d.as_mut_ptr().cast(), v) };
        }
    }
}

/// The product (see the module documentation).
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn tf_mul(ws: &mut Workspace, a: &[i16], b: Rhs<'_>, out: &mut [i16]) {
    let ws = &mut ws.0[..];
    let (abuf, rest) = ws.split_at_mut(B_OFF);
    let (bbuf, rest) = rest.split_at_mut(WIN_OFF - B_OFF);
    let (win, pv) = rest.split_at_mut(WIN_LEN);
    match b {
        Rhs::Small(_) => {
            stage::<1>(Rhs::General(a), abuf);
            stage::<0>(b, bbuf);
        }
        Rhs::General(_) => {
            stage::<2>(Rhs::General(a), abuf);
            stage::<2>(b, bbuf);
        }
    }
    // in order of p, each product handing over all its blocks: an odd point's sink blends
    // into what the even point before it stored ([`Pairs`])
    for p in 0..PTS {
        pairs::<D>(&bbuf[p * BS..(p + 1) * BS], win);
        point::<G, D, C1, C2, EX, _>(
            &abuf[p * BS + 16..p * BS + 16 + N],
            win,
            &mut Pairs {
                dst: &mut pv[(p / 2) * PV_STRIDE..(p / 2 + 1) * PV_STRIDE],
                odd: p % 2 == 1,
            },
        );
    }
    interpolate(ws, out);
}

/// `K` as `vpdpwssd` operands: entry `k` of row `j` pairs the factors of points `2 k` (low
/// word) and `2 k + 1` (high word; zero for `k = 3`).
const K_PAIRS: [[i32; 4]; PTS] = {
    let mut r = [[0i32; 4]; PTS];
    let mut j = 0;
    while j < PTS {
        let mut k = 0;
        while k < 4 {
            let lo = K[j][2 * k] as u16 as u32;
            let hi = if 2 * k + 1 < PTS {
                K[j][2 * k + 1] as u16 as u32
            } else {
                0
            };
            r[j][k] = (lo | (hi << 16)) as i32;
            k += 1;
        }
        j += 1;
    }
    r
};

/// 32 words of `s` from `at`.
#[inline]
#[target_feature(enable = "avx512f")]
fn ld(s: &[u16], at: usize) -> __m512i {
    let s = &s[at..at + 32];
    // SAFETY: 32 readable words (AVX-512F enabled).
    unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
}

/// Stores 32 words at `s[at..]`.
#[inline]
#[target_feature(enable = "avx512f")]
fn st(s: &mut [u16], at: usize, v: __m512i) {
    let s = &mut s[at..at + 32];
    // SAFETY: 32 writable words (AVX-512F enabled).
    unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
}

/// Interpolation, fold and final reduction from the pairs of points (at [`PV_OFF`] of `ws`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn interpolate(ws: &mut [u16], out: &mut [i16]) {
    let (full, rest) = ws.split_at_mut(WIN_OFF);
    let (full, pv) = (&mut full[..FULL], &rest[PV_OFF - WIN_OFF..]);
    // The 32-bit sums of vpackssdw's two inputs come out interleaved by four per 128-bit lane:
    // this puts them back in order.
    let order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    // Blocks 2 v and 2 v + 1 (16 coefficients each) of the full product: c_j lands at j N =
    // 192 j, so blocks 2 u and 2 u + 1 of c_j meet there for u = v - 6 j (at most two j).
    for v in 0..VB {
        let (mut lo, mut hi) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        // unrolled, so that the zero entries of K drop out at compile time
        unroll!(j in [0, 1, 2, 3, 4, 5, 6] {
            if v >= 6 * j && v - 6 * j < UB {
                let u = v - 6 * j;
                unroll!(k in [0, 1, 2, 3] {
                    if K_PAIRS[j][k] != 0 {
                        let c = _mm512_set1_epi32(K_PAIRS[j][k]);
                        let at = k * PV_STRIDE + 64 * u;
                        lo = dpwssd(lo, c, ld(pv, at));
                        hi = dpwssd(hi, c, ld(pv, at + 32));
                    }
                });
            }
        });
        let y = _mm512_packs_epi32(redc_wide(lo), redc_wide(hi));
        st(full, 32 * v, _mm512_permutexvar_epi64(order, y));
    }
    full[8 * N..].fill(0);
    // Fold mod x^761 - x - 1: r_i = c_i + c_(i + 761) + c_(i + 760) (the last for i >= 1),
    // then the Montgomery product by FINAL and the centred representative.
    let (fin, finq, q) = (
        _mm512_set1_epi16(FINAL),
        _mm512_set1_epi16(FINAL_QINV),
        _mm512_set1_epi16(Q as i16),
    );
    let (half, neg_half) = (
        _mm512_set1_epi16((Q / 2) as i16),
        _mm512_set1_epi16(-((Q / 2) as i16)),
    );
    assert!(out.len() >= PADDED);
    for i in (0..PADDED).step_by(32) {
        let x2 = if i == 0 {
            // SAFETY: reads full[761..792] (AVX-512BW enabled): lane 0 (c_760) is masked off.
            unsafe { _mm512_maskz_loadu_epi16(!1, full.as_ptr().add(P - 1).cast()) }
        } else {
            ld(full, i + P - 1)
        };
        let z = _mm512_add_epi16(_mm512_add_epi16(ld(full, i), ld(full, i + P)), x2);
        let r = _mm512_sub_epi16(
            mulhi_epi16_512(z, fin),
            mulhi_epi16_512(_mm512_mullo_epi16(z, finq), q),
        );
        // |r| <= (|z| (q - 1) / 2 + 2^15 q) / 2^16 < q: one correction each way
        let r = _mm512_mask_sub_epi16(r, _mm512_cmpgt_epi16_mask(r, half), r, q);
        let r = _mm512_mask_add_epi16(r, _mm512_cmplt_epi16_mask(r, neg_half), r, q);
        let o = &mut out[i..i + 32];
        // SAFETY: 32 writable entries (AVX-512F enabled).
        unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), r) };
    }
}

#[cfg(test)]
mod tests {
    use super::super::scalar;
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The token, or `None` with a note that the test is skipped.
    fn token() -> Option<PrimeVnni> {
        let v = PrimeVnni::try_new();
        if v.is_none() {
            eprintln!("skipped: this CPU lacks AVX-512 VNNI (or is an AMD Zen 4)");
        }
        v
    }

    /// `K` is `360` times the inverse of the evaluation matrix, and the constants are what
    /// their documentation says.
    #[test]
    fn constants() {
        let pts: [(i64, i64); PTS] = [(0, 1), (1, 1), (-1, 1), (2, 1), (-2, 1), (1, 2), (1, 0)];
        // row p of V: the point (x : y) applied to c_0 .. c_6 (homogeneous, degree 6)
        let v: Vec<Vec<i64>> = pts
            .iter()
            .map(|&(x, y)| (0..7u32).map(|j| x.pow(j) * y.pow(6 - j)).collect())
            .collect();
        for (j, row) in K.iter().enumerate() {
            for i in 0..PTS {
                let s: i64 = row
                    .iter()
                    .zip(&v)
                    .map(|(&k, vp)| i64::from(k) * vp[i])
                    .sum();
                assert_eq!(s, if i == j { K_SCALE } else { 0 }, "row {j}, column {i}");
            }
        }
        let q = i64::from(Q);
        assert_eq!((i64::from(QINV) * q).rem_euclid(1 << 16), 1);
        assert_eq!(
            (i64::from(FINAL) * K_SCALE).rem_euclid(q),
            pow_mod(2, 48, q)
        );
        assert_eq!(
            i64::from(FINAL_QINV).rem_euclid(1 << 16),
            (i64::from(FINAL) * i64::from(QINV)).rem_euclid(1 << 16)
        );
    }

    /// Barrett's bound over every `i16`, and the Montgomery reductions on extreme sums.
    #[test]
    fn reductions() {
        if token().is_none() {
            return;
        }
        let q = i32::from(Q);
        let all: Vec<i16> = (i16::MIN..=i16::MAX).collect();
        for c in all.chunks(32) {
            let mut x = [0i16; 32];
            x[..c.len()].copy_from_slice(c);
            let mut r = [0i16; 32];
            // SAFETY: the token proves AVX-512F and BW; 32 entries each.
            unsafe {
                let v = barrett(_mm512_loadu_si512(x.as_ptr().cast()));
                _mm512_storeu_si512(r.as_mut_ptr().cast(), v);
            }
            for (&a, &b) in x.iter().zip(&r) {
                assert!(i32::from(b).abs() <= 2304, "barrett({a}) = {b}");
                assert_eq!((i32::from(a) - i32::from(b)).rem_euclid(q), 0);
            }
        }
        let limit = (1i64 << 31) - (1 << 16) * i64::from(Q) - 1;
        let mut rng = ChaCha8Rng::seed_from_u64(4591);
        let mut sums: Vec<i32> = vec![0, 1, -1, limit as i32, -limit as i32, 4591, -4591];
        sums.extend((0..4096).map(|_| rng.gen_range(-limit..=limit) as i32));
        for c in sums.chunks(16) {
            let mut x = [0i32; 16];
            x[..c.len()].copy_from_slice(c);
            let (mut lo, mut high, mut wide) = ([0u32; 16], [0u32; 16], [0i32; 16]);
            // SAFETY: as above; 16 entries each.
            unsafe {
                let v = _mm512_loadu_si512(x.as_ptr().cast());
                _mm512_storeu_si512(lo.as_mut_ptr().cast(), redc_low(v));
                _mm512_storeu_si512(high.as_mut_ptr().cast(), redc_high(v));
                _mm512_storeu_si512(wide.as_mut_ptr().cast(), redc_wide(v));
            }
            for i in 0..16 {
                let s = i64::from(x[i]);
                let w = i64::from(wide[i]);
                assert_eq!(lo[i] >> 16, 0);
                assert_eq!(lo[i] as u16 as i16 as i64, w);
                assert_eq!((high[i] >> 16) as u16 as i16 as i64, w);
                assert_eq!((w * (1 << 16) - s).rem_euclid(i64::from(Q)), 0, "redc({s})");
                assert!(
                    w.abs() <= s.abs() / (1 << 16) + i64::from(Q) / 2 + 1,
                    "redc({s})"
                );
            }
        }
    }

    /// Operand pairs: zero, extremes (`a` all `i16::MAX`, all `i16::MIN`, all `q - 1`, all
    /// `-(q - 1) / 2`, `s` all 1 or all -1), random ones, and monomials at every limb boundary
    /// and both ends.
    fn cases(rng: &mut ChaCha8Rng) -> Vec<(Vec<i16>, Vec<i8>)> {
        let mut cases = vec![(vec![0i16; P], vec![0i8; P])];
        for a in [i16::MAX, i16::MIN, Q as i16 - 1, -(Q as i16 - 1) / 2, 1] {
            for s in [1i8, -1] {
                cases.push((vec![a; P], vec![s; P]));
            }
        }
        for _ in 0..40 {
            let a = (0..P).map(|_| rng.gen()).collect();
            let s = (0..P).map(|_| rng.gen_range(-1..=1)).collect();
            cases.push((a, s));
        }
        for _ in 0..10 {
            let a = (0..P).map(|_| rng.gen_range(-2295..=2295)).collect();
            let s = (0..P).map(|_| rng.gen_range(-1..=1)).collect();
            cases.push((a, s));
        }
        let spots = [
            0,
            1,
            N - 1,
            N,
            2 * N - 1,
            2 * N,
            3 * N - 1,
            3 * N,
            P - 2,
            P - 1,
        ];
        for &i in &spots {
            for &j in &spots {
                let (mut a, mut s) = (vec![0i16; P], vec![0i8; P]);
                a[i] = -2295;
                s[j] = -1;
                cases.push((a, s));
            }
        }
        cases
    }

    /// Both products against the schoolbook reference.
    #[test]
    fn matches_reference() {
        let Some(v) = token() else { return };
        let mut ws = Workspace::new();
        // every region must be written before it is read: start from garbage
        ws.0.fill(0xffff);
        let mut rng = ChaCha8Rng::seed_from_u64(761);
        for (a, s) in cases(&mut rng) {
            let want = scalar::mul_rq_small(&a, &s);
            let mut out = vec![0x5555i16; PADDED];
            v.mul_rq_small(&mut ws, &a, &s, &mut out);
            assert_eq!(&out[..P], &want[..]);
            // the general product, with s and with a second general operand
            let sg: Vec<i16> = s.iter().map(|&x| i16::from(x)).collect();
            let mut out = vec![0x5555i16; PADDED];
            v.mul_rq(&mut ws, &a, &sg, &mut out);
            assert_eq!(&out[..P], &want[..]);
            let b: Vec<i16> = (0..P).map(|_| rng.gen()).collect();
            let mut out = vec![0x5555i16; PADDED];
            v.mul_rq(&mut ws, &a, &b, &mut out);
            assert_eq!(&out[..P], &scalar::mul_rq(&a, &b)[..]);
        }
        for x in [i16::MAX, i16::MIN, 2295, -2295] {
            for y in [i16::MAX, i16::MIN, 2295, -2295] {
                let (a, b) = (vec![x; P], vec![y; P]);
                let mut out = vec![0i16; PADDED];
                v.mul_rq(&mut ws, &a, &b, &mut out);
                assert_eq!(&out[..P], &scalar::mul_rq(&a, &b)[..], "{x} x {y}");
            }
        }
    }
}
