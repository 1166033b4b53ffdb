//! SIMD twins of [`super::Trits`] and [`super::Bits`]: the planes in AVX-512 (8 words per
//! register) or AVX2 (4 words per register) registers, word `k` in lane `k % WORDS` of register
//! `k / WORDS`, written once over the [`Reg`] trait.
//!
//! A token ([`Avx512Bits`], [`Avx2Bits`]) can only be built by `try_new`, which checks the CPU at
//! run time. Register values exist only after a polynomial was loaded with a token
//! ([`VTrits::load`], [`VBits::load`]), so the token's proof covers every `unsafe` intrinsic
//! call of the [`Reg`] methods, which are called on such values only.

#![allow(unsafe_code)]

use super::{BitOps, Bits, TritOps, Trits};
use crate::arith::ct::{barrier, mask_u64};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX-512F.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Bits(());

impl Avx512Bits {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx512f").then_some(Self(()))
    }
}

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Bits(());

impl Avx2Bits {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }
}

/// A token and its register type.
pub(crate) trait Token: Copy {
    type R: Reg;
}

impl Token for Avx512Bits {
    type R = __m512i;
}

impl Token for Avx2Bits {
    type R = __m256i;
}

/// One SIMD register of 64-bit words, with the operations the divsteps need.
pub(crate) trait Reg: Copy {
    /// 64-bit words per register.
    const WORDS: usize;
    fn zero() -> Self;
    fn splat(x: u64) -> Self;
    /// Loads `WORDS` words from the start of `s`.
    fn load(s: &[u64]) -> Self;
    /// Stores `WORDS` words at the start of `s`.
    fn store(self, s: &mut [u64]);
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// Each word shifted left by one bit.
    fn shl1(self) -> Self;
    /// Each word shifted right by one bit.
    fn shr1(self) -> Self;
    /// Each word's top bit moved to bit 0.
    fn shr63(self) -> Self;
    /// Each word's bit 0 moved to the top.
    fn shl63(self) -> Self;
    /// Word `i` becomes word `i - 1`; word 0 becomes the last word of `lower`.
    fn prev(self, lower: Self) -> Self;
    /// Word `i` becomes word `i + 1`; the last word becomes word 0 of `upper`.
    fn next(self, upper: Self) -> Self;
    /// Word 0.
    fn word0(self) -> u64;
    /// `o` where `mask` (all ones or zero in each word) is set, `self` elsewhere.
    #[inline(always)]
    fn blend(self, o: Self, mask: Self) -> Self {
        self.xor(mask.and(self.xor(o)))
    }
    /// [`super::divsteps3`] on polynomials of `K` registers per plane. The default runs the
    /// generic steps (each step's control through a general-purpose register); a register
    /// type may override it with a faster loop of the same result (`__m512i`: decisions in
    /// batches from the low words, applied with mask registers).
    #[inline(always)]
    fn divsteps3<const K: usize>(
        f: &mut VTrits<Self, K>,
        g: &mut VTrits<Self, K>,
        v: &mut VTrits<Self, K>,
        w: &mut VTrits<Self, K>,
        steps: usize,
        top_mask: u64,
    ) -> i32 {
        super::divsteps3_steps(f, g, v, w, steps, top_mask)
    }
}

impl Reg for __m512i {
    const WORDS: usize = 8;
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: AVX-512F (module invariant: register values come from a token's load).
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_set1_epi64(x as i64) }
    }
    #[inline(always)]
    fn load(s: &[u64]) -> Self {
        assert!(s.len() >= 8);
        // SAFETY: AVX-512F (called by `load` with a token); `s` has 8 readable words.
        unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u64]) {
        assert!(s.len() >= 8);
        // SAFETY: AVX-512F (module invariant); `s` has 8 writable words.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: AVX-512F (module invariant).
        unsafe { _mm512_and_si512(self, o) }
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: AVX-512F (module invariant).
        unsafe { _mm512_or_si512(self, o) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: AVX-512F (module invariant).
        unsafe { _mm512_xor_si512(self, o) }
    }
    #[inline(always)]
    fn shl1(self) -> Self {
        // SAFETY: AVX-512F (module invariant).
        unsafe { _mm512_slli_epi64::<1>(self) }
    }
    #[inline(always)]
    fn shr1(self) -> Self {
        // SAFETY: AVX-512F (module invariant).
        unsafe { _mm512_srli_epi64::<1>(self) }
    }
    #[inline(always)]
    fn shr63(self) -> Self {
        // SAFETY: AVX-512F (module invariant).
        unsafe { _mm512_srli_epi64::<63>(self) }
    }
    #[inline(always)]
    fn shl63(self) -> Self {
        // SAFETY: AVX-512F (module invariant).
        unsafe { _mm512_slli_epi64::<63>(self) }
    }
    #[inline(always)]
    fn prev(self, lower: Self) -> Self {
        // SAFETY: AVX-512F (module invariant). Lane i of (self:lower) >> 7 lanes is word i - 1.
        unsafe { _mm512_alignr_epi64::<7>(self, lower) }
    }
    #[inline(always)]
    fn next(self, upper: Self) -> Self {
        // SAFETY: AVX-512F (module invariant). Lane i of (upper:self) >> 1 lane is word i + 1.
        unsafe { _mm512_alignr_epi64::<1>(upper, self) }
    }
    #[inline(always)]
    fn word0(self) -> u64 {
        // SAFETY: AVX-512F (module invariant).
        unsafe { _mm_cvtsi128_si64(_mm512_castsi512_si128(self)) as u64 }
    }
    #[inline(always)]
    fn divsteps3<const K: usize>(
        f: &mut VTrits<Self, K>,
        g: &mut VTrits<Self, K>,
        v: &mut VTrits<Self, K>,
        w: &mut VTrits<Self, K>,
        steps: usize,
        _top_mask: u64,
    ) -> i32 {
        divsteps3_avx512(f, g, v, w, steps, has_vbmi2())
    }
}

impl Reg for __m256i {
    const WORDS: usize = 4;
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: AVX2 (module invariant: register values come from a token's load).
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    fn load(s: &[u64]) -> Self {
        assert!(s.len() >= 4);
        // SAFETY: AVX2 (called by `load` with a token); `s` has 4 readable words.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u64]) {
        assert!(s.len() >= 4);
        // SAFETY: AVX2 (module invariant); `s` has 4 writable words.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: AVX2 (module invariant).
        unsafe { _mm256_and_si256(self, o) }
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: AVX2 (module invariant).
        unsafe { _mm256_or_si256(self, o) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: AVX2 (module invariant).
        unsafe { _mm256_xor_si256(self, o) }
    }
    #[inline(always)]
    fn shl1(self) -> Self {
        // SAFETY: AVX2 (module invariant).
        unsafe { _mm256_slli_epi64::<1>(self) }
    }
    #[inline(always)]
    fn shr1(self) -> Self {
        // SAFETY: AVX2 (module invariant).
        unsafe { _mm256_srli_epi64::<1>(self) }
    }
    #[inline(always)]
    fn shr63(self) -> Self {
        // SAFETY: AVX2 (module invariant).
        unsafe { _mm256_srli_epi64::<63>(self) }
    }
    #[inline(always)]
    fn shl63(self) -> Self {
        // SAFETY: AVX2 (module invariant).
        unsafe { _mm256_slli_epi64::<63>(self) }
    }
    #[inline(always)]
    fn prev(self, lower: Self) -> Self {
        // SAFETY: AVX2 (module invariant). [x3 x0 x1 x2], then word 0 from lower's word 3.
        unsafe {
            let rot = _mm256_permute4x64_epi64::<0b10_01_00_11>(self);
            let low = _mm256_permute4x64_epi64::<0b11_11_11_11>(lower);
            _mm256_blend_epi32::<0b0000_0011>(rot, low)
        }
    }
    #[inline(always)]
    fn next(self, upper: Self) -> Self {
        // SAFETY: AVX2 (module invariant). [x1 x2 x3 x0], then word 3 from upper's word 0.
        unsafe {
            let rot = _mm256_permute4x64_epi64::<0b00_11_10_01>(self);
            let up = _mm256_permute4x64_epi64::<0b00_00_00_00>(upper);
            _mm256_blend_epi32::<0b1100_0000>(rot, up)
        }
    }
    #[inline(always)]
    fn word0(self) -> u64 {
        // SAFETY: AVX2 (module invariant).
        unsafe { _mm_cvtsi128_si64(_mm256_castsi256_si128(self)) as u64 }
    }
    #[inline(always)]
    fn divsteps3<const K: usize>(
        f: &mut VTrits<Self, K>,
        g: &mut VTrits<Self, K>,
        v: &mut VTrits<Self, K>,
        w: &mut VTrits<Self, K>,
        steps: usize,
        _top_mask: u64,
    ) -> i32 {
        divsteps3_live(f, g, v, w, steps)
    }
}

/// [`super::divsteps3_steps`] updating only the registers that can matter, in phases whose
/// register counts are constants:
///
/// * `v` and `w` start below coefficient 1 (the callers' contract) and grow by one coefficient
///   a step, so during step `s` (from 0) their register `j` is zero while `s + 1 < 256 j`
///   (`R::WORDS = 4`: 256 bits a register);
/// * of `f` and `g` only the coefficients that can still reach position 0 matter (the callers
///   read `f_0 · v` and `delta`): coefficient `i` at the start of step `s` reaches it
///   after `i` more steps, so register `j` is dead once `256 j > steps - s`. A dead register
///   keeps stale bits; the one-bit shift of `g` moves them to position `256 j - 1` of the
///   register below, which is dead from the next step on as well.
///
/// With the one-sided swaps of [`divsteps3_stepwise`]: the same `delta` and `f_0 · v` as the
/// generic loop (the word version is the test oracle); the phases depend only on `steps` and
/// `K`, which are public.
#[inline(always)]
fn divsteps3_live<R: Reg, const K: usize>(
    f: &mut VTrits<R, K>,
    g: &mut VTrits<R, K>,
    v: &mut VTrits<R, K>,
    w: &mut VTrits<R, K>,
    steps: usize,
) -> i32 {
    if K > 4 {
        // not an NTRU or NTRU Prime degree (at most 832 coefficients): the generic steps
        return super::divsteps3_steps(f, g, v, w, steps, 0);
    }
    let bits = 64 * R::WORDS;
    let mut delta = 1i32;
    let mut s = 0;
    while s < steps {
        let (vw, fg, end) = live_phase(s, steps, bits, K);
        macro_rules! run {
            ($($a:literal $b:literal),*) => {
                match (vw, fg) {
                    $(($a, $b) => live_steps::<R, K, $a, $b>(f, g, v, w, end - s, &mut delta),)*
                    _ => unreachable!("at most four registers a plane"),
                }
            };
        }
        run!(1 1, 1 2, 1 3, 1 4, 2 1, 2 2, 2 3, 2 4, 3 1, 3 2, 3 3, 3 4, 4 1, 4 2, 4 3, 4 4);
        s = end;
    }
    delta
}

/// The live-register phase that starts at step `s` of `steps`, for planes of `k` registers
/// of `bits` bits: `(vw, fg, end)`, the live registers of `v`, `w` (which start below
/// coefficient 1 and grow by one coefficient a step) and of `f`, `g` (only coefficients below
/// `steps - s` can still reach position 0), constant for the steps `s..end`. Depends only on
/// the public step counts.
fn live_phase(s: usize, steps: usize, bits: usize, k: usize) -> (usize, usize, usize) {
    let vw = k.min((s + 1) / bits + 1);
    let fg = k.min((steps - s) / bits + 1);
    let next_vw = if vw < k { bits * vw - 1 } else { steps };
    let next_fg = if fg > 1 {
        steps - bits * (fg - 1) + 1
    } else {
        steps
    };
    let end = next_vw.min(next_fg).min(steps);
    debug_assert!(end > s);
    (vw, fg, end)
}

/// `n` steps of [`divsteps3_live`] with `VW` live registers of `v`, `w` and `FG` of `f`, `g`.
///
/// The decisions come from the low words of `f` and `g` in general-purpose registers
/// ([`decide_step`], refreshed every [`BATCH`] steps), as in the AVX-512 loop, so they never
/// wait for the vector steps that apply them. Measured on an AMD Zen 2 (`examples/ntru_bench`,
/// `poly_S3_inv`, old and new binaries alternating): 17.8 -> 15.3 µs at n = 509, 30.0 -> 27.7
/// at 677, 31.2 -> 28.9 at 701, 44.9 -> 42.1 at 821. Selects take the three logic operations of
/// [`Reg::blend`]'s default: `vpblendvb` was no faster there (509: 15.3 against 14.9 µs, 821:
/// 42.2 against 41.4). (Before, `g_0` was read back from the vector registers every step, a
/// vector-to-GPR-to-vector round trip on the step-to-step chain.)
#[inline(always)]
fn live_steps<R: Reg, const K: usize, const VW: usize, const FG: usize>(
    f: &mut VTrits<R, K>,
    g: &mut VTrits<R, K>,
    v: &mut VTrits<R, K>,
    w: &mut VTrits<R, K>,
    n: usize,
    delta: &mut i32,
) {
    if VW > K || FG > K {
        return; // not reached: the phases never ask for more registers than there are
    }
    let mut d = i64::from(*delta);
    let mut left = n;
    while left > 0 {
        let batch = left.min(BATCH);
        let mut words = [
            f.p[0].word0(),
            f.m[0].word0(),
            g.p[0].word0(),
            g.m[0].word0(),
        ];
        for _ in 0..batch {
            // v = x v (the top mask matters only once the last register is live)
            for plane in [&mut v.p, &mut v.m] {
                plane_shl1(plane, VW);
                if VW == K {
                    plane[K - 1] = plane[K - 1].and(v.mask[K - 1]);
                }
            }
            let (swap, s12, s2) = decide_step(&mut words, &mut d);
            // Keep the four words in general-purpose registers: left alone, the compiler packed
            // them into one vector register, and the loop ran no faster than the old one.
            for x in words.iter_mut() {
                *x = barrier(*x);
            }
            let (swap, s12, s2) = (R::splat(swap), R::splat(s12), R::splat(s2));
            // one-sided swaps (see `divsteps3_stepwise`): g += s f and w += s v from the old
            // values, then f and v take the old g and w where the step swaps
            let (g_old, w_old) = ((g.p, g.m), (w.p, w.m));
            for j in 0..FG {
                (g.p[j], g.m[j]) = add_scaled_reg(g.p[j], g.m[j], f.p[j], f.m[j], s12, s2);
            }
            for j in 0..VW {
                (w.p[j], w.m[j]) = add_scaled_reg(w.p[j], w.m[j], v.p[j], v.m[j], s12, s2);
            }
            plane_select(&mut f.p, &g_old.0, swap, FG);
            plane_select(&mut f.m, &g_old.1, swap, FG);
            plane_select(&mut v.p, &w_old.0, swap, VW);
            plane_select(&mut v.m, &w_old.1, swap, VW);
            // g = g / x on the live registers (a dead register above feeds only dead positions)
            plane_shr1(&mut g.p, FG);
            plane_shr1(&mut g.m, FG);
        }
        left -= batch;
    }
    *delta = d as i32;
}

/// `x += s · y` on one register of each plane (`s12`: all ones where `s != 0`; `s2`: where
/// `s = 2`): `s · y` is `y` with its planes exchanged where `s = 2` and cleared where `s = 0`
/// (two blends, two ands), then the GF(3) addition in seven logic operations (see
/// [`VTrits::add_scaled`]).
#[inline(always)]
fn add_scaled_reg<R: Reg>(xp: R, xm: R, op: R, om: R, s12: R, s2: R) -> (R, R) {
    let yp = op.blend(om, s2).and(s12);
    let ym = om.blend(op, s2).and(s12);
    let t = xp.or(ym).xor(xm.or(yp));
    (xm.or(ym).xor(t), xp.or(yp).xor(t))
}

/// Loads `W <= 16` words into `K` registers (zero past `W`).
#[inline(always)]
fn load_plane<R: Reg, const K: usize>(words: &[u64]) -> [R; K] {
    debug_assert!(words.len() <= K * R::WORDS && K * R::WORDS <= 16);
    let mut buf = [0u64; 16];
    buf[..words.len()].copy_from_slice(words);
    // Plain loops, no closures: everything here must inline into the `#[target_feature]`
    // caller (a closure would be compiled without the features, its intrinsics out of line).
    let mut out = [R::zero(); K];
    for (j, o) in out.iter_mut().enumerate() {
        *o = R::load(&buf[j * R::WORDS..]);
    }
    out
}

/// Stores `K` registers into the first `out.len()` words.
#[inline(always)]
fn store_plane<R: Reg, const K: usize>(regs: &[R; K], out: &mut [u64]) {
    let mut buf = [0u64; 16];
    for (j, r) in regs.iter().enumerate() {
        r.store(&mut buf[j * R::WORDS..]);
    }
    let n = out.len();
    out.copy_from_slice(&buf[..n]);
}

/// `x = x · X` on the `live` low registers of a plane (`live` a constant of the caller, `K` for
/// the whole plane): shift up by one bit across words (masking happens in the caller).
#[inline(always)]
fn plane_shl1<R: Reg, const K: usize>(x: &mut [R; K], live: usize) {
    for j in (0..live).rev() {
        let lower = if j > 0 { x[j - 1] } else { R::zero() };
        x[j] = x[j].shl1().or(x[j].prev(lower).shr63());
    }
}

/// `x = x / X` on the `live` low registers of a plane: shift down by one bit across words
/// (zero comes in at the top of the last live register).
#[inline(always)]
fn plane_shr1<R: Reg, const K: usize>(x: &mut [R; K], live: usize) {
    for j in 0..live {
        let upper = if j + 1 < live { x[j + 1] } else { R::zero() };
        x[j] = x[j].shr1().or(x[j].next(upper).shl63());
    }
}

/// The registers of the mask keeping a polynomial's `n` low bits (in `W` words).
#[inline(always)]
fn bit_mask<R: Reg, const K: usize, const W: usize>(n: usize) -> [R; K] {
    debug_assert_eq!(n.div_ceil(64), W);
    let mut words = [u64::MAX; W];
    words[W - 1] = super::top_mask(n);
    load_plane(&words)
}

/// `x = y` on the `live` low registers of a plane where `mk` is all-ones.
#[inline(always)]
fn plane_select<R: Reg, const K: usize>(x: &mut [R; K], y: &[R; K], mk: R, live: usize) {
    for j in 0..live {
        x[j] = x[j].blend(y[j], mk);
    }
}

/// Conditional swap of the `live` low registers of two planes where `mk` is all-ones.
#[inline(always)]
fn plane_cswap<R: Reg, const K: usize>(x: &mut [R; K], y: &mut [R; K], mk: R, live: usize) {
    for j in 0..live {
        let t = mk.and(x[j].xor(y[j]));
        x[j] = x[j].xor(t);
        y[j] = y[j].xor(t);
    }
}

/// A bit-sliced GF(3) polynomial (as [`Trits`]) in registers of type `R`.
#[derive(Clone, Copy)]
pub(crate) struct VTrits<R: Reg, const K: usize> {
    p: [R; K],
    m: [R; K],
    /// The mask of the polynomial's `n` bits (fixed at load; `shl1` applies it).
    mask: [R; K],
}

impl<R: Reg, const K: usize> VTrits<R, K> {
    /// Loads `x`, a polynomial of `n` coefficients.
    #[inline(always)]
    pub(crate) fn load<T: Token<R = R>, const W: usize>(_t: T, x: &Trits<W>, n: usize) -> Self {
        Self {
            p: load_plane(&x.p),
            m: load_plane(&x.m),
            mask: bit_mask::<R, K, W>(n),
        }
    }

    #[inline(always)]
    pub(crate) fn store<const W: usize>(&self) -> Trits<W> {
        let mut out = Trits::<W>::ZERO;
        store_plane(&self.p, &mut out.p);
        store_plane(&self.m, &mut out.m);
        out
    }
}

impl<R: Reg, const K: usize> TritOps for VTrits<R, K> {
    #[inline(always)]
    fn c0(&self) -> u8 {
        ((self.p[0].word0() & 1) | ((self.m[0].word0() & 1) << 1)) as u8
    }

    #[inline(always)]
    fn cswap(&mut self, o: &mut Self, mask: u64) {
        let mk = R::splat(mask);
        plane_cswap(&mut self.p, &mut o.p, mk, K);
        plane_cswap(&mut self.m, &mut o.m, mk, K);
    }

    /// The GF(3) addition in seven logic operations (Kawahara, Aoki and Takagi, "Faster
    /// implementation of eta_T pairing over GF(3^m) using minimum number of logical
    /// instructions for GF(3)-addition", Pairing 2008): with `x = (p, m)`, `y = (p', m')`,
    /// `t = (p | m') ^ (m | p')`, then `p'' = (m | m') ^ t`, `m'' = (p | p') ^ t` (the
    /// word version's formula takes thirteen).
    #[inline(always)]
    fn add_scaled(&mut self, o: &Self, s1: u64, s2: u64) {
        let (m1, m2) = (R::splat(s1), R::splat(s2));
        for j in 0..K {
            (self.p[j], self.m[j]) = add_scaled_reg(self.p[j], self.m[j], o.p[j], o.m[j], m1, m2);
        }
    }

    #[inline(always)]
    fn shl1(&mut self, _top_mask: u64) {
        // the same mask, fixed at load
        plane_shl1(&mut self.p, K);
        plane_shl1(&mut self.m, K);
        for ((p, m), &k) in self.p.iter_mut().zip(self.m.iter_mut()).zip(&self.mask) {
            *p = p.and(k);
            *m = m.and(k);
        }
    }

    #[inline(always)]
    fn shr1(&mut self) {
        plane_shr1(&mut self.p, K);
        plane_shr1(&mut self.m, K);
    }

    #[inline(always)]
    fn divsteps(
        f: &mut Self,
        g: &mut Self,
        v: &mut Self,
        w: &mut Self,
        steps: usize,
        top_mask: u64,
    ) -> i32 {
        // both register loops take one-sided swaps, which rely on f_0 != 0 (the callers'
        // contract, see `TritOps::divsteps`)
        debug_assert!(f.c0() != 0);
        R::divsteps3::<K>(f, g, v, w, steps, top_mask)
    }
}

/// Steps whose decisions come from one refresh of the low words ([`decide_step`]): after `j`
/// steps on the low word alone, its bits `0..64 - j` are still exact, so 64 steps can be
/// decided from it.
const BATCH: usize = 64;

/// One divstep on the low words `[fp, fm, gp, gm]` of `f` and `g` (64 coefficients each), in
/// the one-sided form of [`divsteps3_stepwise`]: updates them and `delta` and returns the
/// step's decisions as masks (all ones or zero): swap, `s != 0`, `s = 2` for `g += s·f`.
/// Branch-free: each decision is a 0/1 bit, passed through the optimisation barrier before it
/// becomes a mask ([`mask_u64`]). After `j` steps the words' bits `0..64 - j` are still exact.
#[inline(always)]
fn decide_step(words: &mut [u64; 4], delta: &mut i64) -> (u64, u64, u64) {
    let [fp, fm, gp, gm] = *words;
    // sign = -g_0 f_0: 1 where g_0 f_0 = 2, 2 where g_0 f_0 = 1
    let s1 = mask_u64(((gp & fm) | (gm & fp)) & 1);
    let s2 = mask_u64(((gp & fp) | (gm & fm)) & 1);
    // swap where delta > 0 (the sign bit of -delta) and g_0 != 0
    let swap = mask_u64(((delta.wrapping_neg() as u64) >> 63) & (gp | gm) & 1);
    *delta ^= (swap as i64) & (*delta ^ delta.wrapping_neg());
    *delta += 1;
    // g + s f from the old f and g in seven logic operations (see `VTrits::add_scaled`), then
    // g / x; f takes the old g where the step swaps
    let (yp, ym) = ((s1 & fp) | (s2 & fm), (s1 & fm) | (s2 & fp));
    let t = (gp | ym) ^ (gm | yp);
    let (np, nm) = ((gm | ym) ^ t, (gp | yp) ^ t);
    let (fp, fm) = (fp ^ (swap & (fp ^ gp)), fm ^ (swap & (fm ^ gm)));
    *words = [fp, fm, np >> 1, nm >> 1];
    (swap, s1 | s2, s2)
}

/// [`super::divsteps3`] on AVX-512 registers for one or two registers per plane (every NTRU
/// and NTRU Prime size: at most 832 coefficients); the generic steps otherwise, and on CPUs
/// without AVX-512VL (which the `ymm` halves need). Dispatches on VBMI2 (`vpshldq` /
/// `vpshrdq`: one-bit shifts across words in two instructions instead of three) unless
/// `vbmi2` is false (the tests run both).
#[inline(always)]
fn divsteps3_avx512<const K: usize>(
    f: &mut VTrits<__m512i, K>,
    g: &mut VTrits<__m512i, K>,
    v: &mut VTrits<__m512i, K>,
    w: &mut VTrits<__m512i, K>,
    steps: usize,
    vbmi2: bool,
) -> i32 {
    if K > 2 || !has_vl() {
        return super::divsteps3_steps(f, g, v, w, steps, 0);
    }
    // Two registers per plane whose second one holds at most four used words (n <= 768:
    // 677, 701, 761 + 1): that half in `ymm` registers, whose operations cost half as much.
    let narrow = K == 2 && {
        let mut words = [0u64; 16];
        f.mask[K - 1].store(&mut words[..8]);
        words[4..8].iter().all(|&x| x == 0)
    };
    #[cfg(debug_assertions)]
    for x in [&*v, &*w] {
        // the phases of `divsteps3_stepwise` assume v and w start below coefficient 1
        let mut words = [0u64; 16];
        for plane in [&x.p, &x.m] {
            for (j, r) in plane.iter().enumerate() {
                r.store(&mut words[..8]);
                let from = if j == 0 { 1 } else { 0 };
                debug_assert!(words[from..8].iter().all(|&w| w == 0));
            }
        }
    }
    let hi = |r: &[__m512i; K]| {
        if K == 2 {
            r[K - 1]
        } else {
            <__m512i as Reg>::zero()
        }
    };
    let pl = |x: &VTrits<__m512i, K>| {
        [
            Pl {
                lo: x.p[0],
                hi: hi(&x.p),
            },
            Pl {
                lo: x.m[0],
                hi: hi(&x.m),
            },
        ]
    };
    let [mut pf, mut pg, mut pv, mut pw] = [pl(f), pl(g), pl(v), pl(w)];
    let (a, b, c, d) = (&mut pf, &mut pg, &mut pv, &mut pw);
    // SAFETY: the CPU runs AVX-512VL (checked above), VBMI2 where called with it (checked by
    // the callers: `has_vbmi2`), and AVX-512F (the `__m512i` values come from an AVX-512
    // token).
    let delta = unsafe {
        match (K, narrow, vbmi2) {
            (1, _, true) => stepwise_vbmi2::<0>(a, b, c, d, steps),
            (1, _, false) => stepwise_plain::<0>(a, b, c, d, steps),
            (_, true, true) => stepwise_vbmi2::<1>(a, b, c, d, steps),
            (_, true, false) => stepwise_plain::<1>(a, b, c, d, steps),
            (_, false, true) => stepwise_vbmi2::<2>(a, b, c, d, steps),
            (_, false, false) => stepwise_plain::<2>(a, b, c, d, steps),
        }
    };
    for (x, y) in [(f, pf), (g, pg), (v, pv), (w, pw)] {
        x.p[0] = y[0].lo;
        x.m[0] = y[1].lo;
        if K == 2 {
            // a `ymm` half leaves the upper words undefined: zero them
            let keep = |r: __m512i| {
                if narrow {
                    // SAFETY: AVX-512F (module invariant).
                    unsafe { _mm512_zextsi256_si512(_mm512_castsi512_si256(r)) }
                } else {
                    r
                }
            };
            x.p[K - 1] = keep(y[0].hi);
            x.m[K - 1] = keep(y[1].hi);
        }
    }
    // the loop shifts `v` up without cutting: bits only move up, so they never flow back
    cut_to_n(v, w);
    delta
}

/// Whether the CPU runs AVX-512 VBMI2 (checked once).
fn has_vbmi2() -> bool {
    static VBMI2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VBMI2.get_or_init(|| is_x86_feature_detected!("avx512vbmi2"))
}

/// Whether the CPU runs AVX-512VL (checked once): the loop uses `ymm` forms of AVX-512
/// instructions. The token ([`Avx512Bits`]) only proves AVX-512F.
fn has_vl() -> bool {
    static VL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VL.get_or_init(|| is_x86_feature_detected!("avx512vl"))
}

/// One bit plane of the stepwise loop ([`divsteps3_stepwise`]): words 0..8 in `lo`, words
/// 8..16 in `hi` when the plane has a second register (`H = 2`: a `zmm` register; `H = 1`: at
/// most four used words, kept in the `ymm` half, whose operations cost half as much; `H = 0`:
/// no second register).
#[derive(Clone, Copy)]
struct Pl {
    lo: __m512i,
    hi: __m512i,
}

/// The operations of the stepwise loop on planes of kind `H`; `HI`: whether `hi` takes part
/// (a constant of each phase); `VB`: with the VBMI2 shifts. Every function requires AVX-512F
/// and VL, and VBMI2 where `VB` (the callers are inlined into [`stepwise_vbmi2`] or
/// [`stepwise_plain`], which enable them).
mod pl {
    use super::Pl;
    use core::arch::x86_64::*;

    /// A one-bit funnel shift per 64-bit lane: `(x << 1) | (y >> 63)` (`shl1_*`, `y` the word
    /// below) or `(x >> 1) | (y << 63)` (`shr1_*`, `y` the word above), one VBMI2 concatenating
    /// shift where `VB`, else two shifts and an or.
    macro_rules! funnel1 {
        ($name:ident, $t:ty, $cat:ident, $sh:ident, $back:ident, $or:ident) => {
            #[inline(always)]
            fn $name<const VB: bool>(x: $t, y: $t) -> $t {
                // SAFETY: AVX-512F (and VL for the `ymm` forms), and VBMI2 where `VB` (the
                // caller's target features).
                unsafe {
                    if VB {
                        $cat::<1>(x, y)
                    } else {
                        $or($sh::<1>(x), $back::<63>(y))
                    }
                }
            }
        };
    }
    funnel1!(
        shl1_512,
        __m512i,
        _mm512_shldi_epi64,
        _mm512_slli_epi64,
        _mm512_srli_epi64,
        _mm512_or_si512
    );
    funnel1!(
        shr1_512,
        __m512i,
        _mm512_shrdi_epi64,
        _mm512_srli_epi64,
        _mm512_slli_epi64,
        _mm512_or_si512
    );
    funnel1!(
        shl1_256,
        __m256i,
        _mm256_shldi_epi64,
        _mm256_slli_epi64,
        _mm256_srli_epi64,
        _mm256_or_si256
    );
    funnel1!(
        shr1_256,
        __m256i,
        _mm256_shrdi_epi64,
        _mm256_srli_epi64,
        _mm256_slli_epi64,
        _mm256_or_si256
    );

    /// `x · X` (bits that pass `hi`, or `lo` without `hi`, fall off).
    #[inline(always)]
    pub(super) fn shl1<const H: u8, const HI: bool, const VB: bool>(x: Pl) -> Pl {
        // SAFETY: AVX-512F and VL (the caller's target features).
        unsafe {
            let lo_prev = _mm512_alignr_epi64::<7>(x.lo, _mm512_setzero_si512());
            let lo = shl1_512::<VB>(x.lo, lo_prev);
            let hi = match (H, HI) {
                (2, true) => shl1_512::<VB>(x.hi, _mm512_alignr_epi64::<7>(x.hi, x.lo)),
                (1, true) => {
                    let top = _mm512_extracti64x4_epi64::<1>(x.lo);
                    let hi = _mm512_castsi512_si256(x.hi);
                    let prev = _mm256_alignr_epi64::<3>(hi, top);
                    _mm512_castsi256_si512(shl1_256::<VB>(hi, prev))
                }
                _ => x.hi,
            };
            Pl { lo, hi }
        }
    }

    /// `x / X` (zero comes in at the top of `hi`, or of `lo` without `hi`).
    #[inline(always)]
    pub(super) fn shr1<const H: u8, const HI: bool, const VB: bool>(x: Pl) -> Pl {
        // SAFETY: as in `shl1`. Only lane 0 of the upper operand of the first `valignq` is
        // read: with a `ymm` half, that is in its defined low half.
        unsafe {
            let z = _mm512_setzero_si512();
            let upper = if H > 0 && HI { x.hi } else { z };
            let lo = shr1_512::<VB>(x.lo, _mm512_alignr_epi64::<1>(upper, x.lo));
            let hi = match (H, HI) {
                (2, true) => shr1_512::<VB>(x.hi, _mm512_alignr_epi64::<1>(z, x.hi)),
                (1, true) => {
                    let hi = _mm512_castsi512_si256(x.hi);
                    let next = _mm256_alignr_epi64::<1>(_mm256_setzero_si256(), hi);
                    _mm512_castsi256_si512(shr1_256::<VB>(hi, next))
                }
                _ => x.hi,
            };
            Pl { lo, hi }
        }
    }

    /// `a = b` where `k` selects all lanes (`a` unchanged elsewhere).
    #[inline(always)]
    pub(super) fn select<const H: u8, const HI: bool>(a: &mut Pl, b: &Pl, k: __mmask8) {
        // SAFETY: as in `shl1`.
        unsafe {
            a.lo = _mm512_mask_blend_epi64(k, a.lo, b.lo);
            match (H, HI) {
                (2, true) => a.hi = _mm512_mask_blend_epi64(k, a.hi, b.hi),
                (1, true) => {
                    let (x, y) = (_mm512_castsi512_si256(a.hi), _mm512_castsi512_si256(b.hi));
                    a.hi = _mm512_castsi256_si512(_mm256_mask_blend_epi64(k, x, y));
                }
                _ => {}
            }
        }
    }

    /// `x + s·y` in GF(3) on one register of each plane (`0 = (0, 0)`, `1 = (1, 0)`,
    /// `2 = (0, 1)`): `s` is 1 on `k12` unless `s2` (all ones or zero) says 2, and 0 where
    /// `k12` is clear, so that `s·y` is one zero-masked ternary-logic operation per plane
    /// (`s2 ? y_m : y_p`, truth table 0xCA); then, with `s·y = (y_p, y_m)`,
    /// `r_p = y_m ? x_m : (y_p ? !(x_p | x_m) : x_p)`,
    /// `r_m = y_p ? x_p : (y_m ? !(x_p | x_m) : x_m)`: four ternary-logic operations.
    macro_rules! add_scaled {
        ($xp:expr, $xm:expr, $yp:expr, $ym:expr, $k12:expr, $s2:expr,
         $maskz:ident, $tern:ident) => {{
            let yp = $maskz::<0xCA>($k12, $s2, $ym, $yp);
            let ym = $maskz::<0xCA>($k12, $s2, $yp, $ym);
            let t1 = $tern::<0x1C>(yp, $xp, $xm);
            let t2 = $tern::<0x1A>(ym, $xp, $xm);
            ($tern::<0xCA>(ym, $xm, t1), $tern::<0xCA>(yp, $xp, t2))
        }};
    }

    /// `x += s·y` for the planes `x = [p, m]`, `y = [p, m]` (`k12`, `s2` as in
    /// `add_scaled!`).
    #[inline(always)]
    pub(super) fn add_scaled<const H: u8, const HI: bool>(
        x: &mut [Pl; 2],
        y: &[Pl; 2],
        k12: __mmask8,
        s2: __m512i,
    ) {
        // SAFETY: as in `shl1`.
        unsafe {
            let [xp, xm] = x;
            (xp.lo, xm.lo) = add_scaled!(
                xp.lo,
                xm.lo,
                y[0].lo,
                y[1].lo,
                k12,
                s2,
                _mm512_maskz_ternarylogic_epi64,
                _mm512_ternarylogic_epi64
            );
            match (H, HI) {
                (2, true) => {
                    (xp.hi, xm.hi) = add_scaled!(
                        xp.hi,
                        xm.hi,
                        y[0].hi,
                        y[1].hi,
                        k12,
                        s2,
                        _mm512_maskz_ternarylogic_epi64,
                        _mm512_ternarylogic_epi64
                    )
                }
                (1, true) => {
                    let c = _mm512_castsi512_si256;
                    let (p, m) = add_scaled!(
                        c(xp.hi),
                        c(xm.hi),
                        c(y[0].hi),
                        c(y[1].hi),
                        k12,
                        c(s2),
                        _mm256_maskz_ternarylogic_epi64,
                        _mm256_ternarylogic_epi64
                    );
                    (xp.hi, xm.hi) = (_mm512_castsi256_si512(p), _mm512_castsi256_si512(m));
                }
                _ => {}
            }
        }
    }

    /// Word 0 of `x`.
    #[inline(always)]
    pub(super) fn word0(x: Pl) -> u64 {
        // SAFETY: AVX-512F (the caller's target features).
        unsafe { _mm_cvtsi128_si64(_mm512_castsi512_si128(x.lo)) as u64 }
    }
}

/// [`divsteps3_stepwise`] with the VBMI2 shifts.
#[target_feature(enable = "avx512f,avx512vl,avx512vbmi2")]
fn stepwise_vbmi2<const H: u8>(
    f: &mut [Pl; 2],
    g: &mut [Pl; 2],
    v: &mut [Pl; 2],
    w: &mut [Pl; 2],
    steps: usize,
) -> i32 {
    divsteps3_stepwise::<H, true>(f, g, v, w, steps)
}

/// [`divsteps3_stepwise`] without VBMI2.
#[target_feature(enable = "avx512f,avx512vl")]
fn stepwise_plain<const H: u8>(
    f: &mut [Pl; 2],
    g: &mut [Pl; 2],
    v: &mut [Pl; 2],
    w: &mut [Pl; 2],
    steps: usize,
) -> i32 {
    divsteps3_stepwise::<H, false>(f, g, v, w, steps)
}

/// [`super::divsteps3_steps`] on AVX-512 registers, one register or two per plane (`H`: the
/// kind of the second register, see [`Pl`]); `VB`: with the VBMI2 shifts.
///
/// * Each step's decisions come from the low words of `f` and `g` in general-purpose
///   registers ([`decide_step`]), which run the same steps on those words alone; they are
///   refreshed from the vector registers every [`BATCH`] steps. The decisions thus never wait
///   for the vector steps that apply them (as mask registers: blends and zero-masked
///   ternary-logic operations), and the two run side by side. Reading the step's inputs back
///   from the vector registers every step (about 33 cycles a step at n = 509 on Zen 4, where
///   vector-to-mask transfers take 5 to 6 cycles), or deciding a batch before applying it
///   (38), was slower (about 23 cycles a step here).
/// * Only the registers that can matter are updated, in phases whose register counts are
///   constants (as in [`divsteps3_live`]): `v` and `w` start below coefficient 1 and grow by
///   one coefficient a step, so their `hi` is zero for the first 511 steps; of `f` and `g`
///   only the coefficients that can still reach position 0 matter, so their `hi` is dead in
///   the last 511 steps.
/// * **One-sided swaps.** The generic step swaps `(f, g)` and `(v, w)`, then adds `s·f` to `g`
///   with `s = -f_0 g_0`. Here `g` becomes `g + s·f` from the old `f` and `g` in every step and
///   `f` takes the old `g` where the step swaps (one blend a register instead of two; the same
///   for `v`, `w`). In a swapping step `f_0` and `g_0` are nonzero, so `s^2 = 1` and
///   `g + s·f = s·(f + s·g)`: `g` and `w` come out as the generic ones times the unit `s`.
///   Such factors carry through every later step (the decisions test `g_0` for zero only, and
///   `s` absorbs the factors), so `(f, v)` and `(g, w)` are always the generic values times a
///   unit of GF(3), the same within each pair: `delta` and `f_0 · v`, what the callers read
///   (they return `v / f_0 = f_0 · v`), are the generic loop's.
///
/// Branch-free in the data; the phases and refreshes depend only on `steps`, which is public.
#[inline(always)]
fn divsteps3_stepwise<const H: u8, const VB: bool>(
    f: &mut [Pl; 2],
    g: &mut [Pl; 2],
    v: &mut [Pl; 2],
    w: &mut [Pl; 2],
    steps: usize,
) -> i32 {
    let regs = if H == 0 { 1 } else { 2 };
    let mut delta = 1i64;
    let mut s = 0;
    while s < steps {
        let (vw, fg, end) = live_phase(s, steps, 512, regs);
        let (n, d) = (end - s, &mut delta);
        match (vw == 2, fg == 2) {
            (true, true) => stepwise_run::<H, VB, true, true>(f, g, v, w, n, d),
            (true, false) => stepwise_run::<H, VB, true, false>(f, g, v, w, n, d),
            (false, true) => stepwise_run::<H, VB, false, true>(f, g, v, w, n, d),
            (false, false) => stepwise_run::<H, VB, false, false>(f, g, v, w, n, d),
        }
        s = end;
    }
    delta as i32
}

/// `n` steps of [`divsteps3_stepwise`] with the `hi` registers of `(v, w)` / `(f, g)` taking
/// part where `VH` / `FH`.
#[inline(always)]
fn stepwise_run<const H: u8, const VB: bool, const VH: bool, const FH: bool>(
    f: &mut [Pl; 2],
    g: &mut [Pl; 2],
    v: &mut [Pl; 2],
    w: &mut [Pl; 2],
    n: usize,
    delta: &mut i64,
) {
    let mut left = n;
    while left > 0 {
        let batch = left.min(BATCH);
        let mut words = [
            pl::word0(f[0]),
            pl::word0(f[1]),
            pl::word0(g[0]),
            pl::word0(g[1]),
        ];
        for _ in 0..batch {
            for x in v.iter_mut() {
                *x = pl::shl1::<H, VH, VB>(*x);
            }
            let (swap, s12, s2) = decide_step(&mut words, delta);
            let (k, k12) = (swap as __mmask8, s12 as __mmask8);
            let s2 = <__m512i as Reg>::splat(s2);
            let (g_old, w_old) = (*g, *w);
            pl::add_scaled::<H, FH>(g, f, k12, s2);
            pl::add_scaled::<H, VH>(w, v, k12, s2);
            for j in 0..2 {
                pl::select::<H, FH>(&mut f[j], &g_old[j], k);
                pl::select::<H, VH>(&mut v[j], &w_old[j], k);
            }
            for x in g.iter_mut() {
                *x = pl::shr1::<H, FH, VB>(*x);
            }
        }
        left -= batch;
    }
}

/// Clears the bits of `v` and `w` past the polynomial's `n` coefficients.
#[inline(always)]
fn cut_to_n<const K: usize>(v: &mut VTrits<__m512i, K>, w: &mut VTrits<__m512i, K>) {
    for x in [v, w] {
        for j in 0..K {
            x.p[j] = x.p[j].and(x.mask[j]);
            x.m[j] = x.m[j].and(x.mask[j]);
        }
    }
}

/// A bit-sliced GF(2) polynomial (as [`Bits`]) in registers of type `R`.
#[derive(Clone, Copy)]
pub(crate) struct VBits<R: Reg, const K: usize> {
    b: [R; K],
    /// The mask of the polynomial's `n` bits (fixed at load; `shl1` applies it).
    mask: [R; K],
}

impl<R: Reg, const K: usize> VBits<R, K> {
    /// Loads `x`, a polynomial of `n` coefficients.
    #[inline(always)]
    pub(crate) fn load<T: Token<R = R>, const W: usize>(_t: T, x: &Bits<W>, n: usize) -> Self {
        Self {
            b: load_plane(&x.0),
            mask: bit_mask::<R, K, W>(n),
        }
    }

    #[inline(always)]
    pub(crate) fn store<const W: usize>(&self) -> Bits<W> {
        let mut out = Bits([0u64; W]);
        store_plane(&self.b, &mut out.0);
        out
    }
}

impl<R: Reg, const K: usize> BitOps for VBits<R, K> {
    #[inline(always)]
    fn c0(&self) -> u64 {
        self.b[0].word0() & 1
    }

    #[inline(always)]
    fn cswap(&mut self, o: &mut Self, mask: u64) {
        plane_cswap(&mut self.b, &mut o.b, R::splat(mask), K);
    }

    #[inline(always)]
    fn xor_masked(&mut self, o: &Self, mask: u64) {
        let mk = R::splat(mask);
        for j in 0..K {
            self.b[j] = self.b[j].xor(mk.and(o.b[j]));
        }
    }

    #[inline(always)]
    fn shl1(&mut self, _top_mask: u64) {
        // the same mask, fixed at load
        plane_shl1(&mut self.b, K);
        for (b, &k) in self.b.iter_mut().zip(&self.mask) {
            *b = b.and(k);
        }
    }

    #[inline(always)]
    fn shr1(&mut self) {
        plane_shr1(&mut self.b, K);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{divsteps3_steps, top_mask, TritOps, Trits};
    use super::*;

    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// `s · t` for a trit `s` (2 swaps the planes).
    fn scaled<const W: usize>(t: &Trits<W>, s: u8) -> Trits<W> {
        match s {
            0 => Trits::ZERO,
            1 => *t,
            _ => Trits { p: t.m, m: t.p },
        }
    }

    /// What the callers read, `f_0 · v`, is the generic loop's; and `f_0`, `v`, `w` are each the
    /// generic value times a unit (see `divsteps3_stepwise`), `f_0` and `v` by the same one.
    fn same_result<const W: usize>(
        what: &str,
        n: usize,
        case: u8,
        [f, v, w]: [&Trits<W>; 3],
        [f_want, v_want, w_want]: [&Trits<W>; 3],
    ) {
        assert_ne!(f.get(0), 0, "f_0 ({what}), n = {n}, case {case}");
        let (got, want) = (scaled(v, f.get(0)), scaled(v_want, f_want.get(0)));
        assert_eq!(
            (got.p, got.m),
            (want.p, want.m),
            "f_0 v ({what}), n = {n}, case {case}"
        );
        let w_unit = [1, 2].into_iter().any(|u| {
            let x = scaled(w_want, u);
            (x.p, x.m) == (w.p, w.m)
        });
        assert!(w_unit, "w up to a unit ({what}), n = {n}, case {case}");
    }

    /// A polynomial of `n` trits: `kind` 0 random, 1 zero, 2 all twos, 3 all ones.
    fn trits<const W: usize>(n: usize, kind: u8, seed: &mut u64) -> Trits<W> {
        let mut t = Trits::<W>::ZERO;
        for i in 0..n {
            let v = match kind {
                0 => (xorshift(seed) % 3) as u8,
                1 => 0,
                2 => 2,
                _ => 1,
            };
            t.set(i, v);
        }
        t
    }

    /// Inputs of the loop tests: `(case, [f, g, v, w], steps)` for random and degenerate
    /// polynomials (zero apart from `f_0`, constant, `f_0 = 2`, a long run of `g_0 = 0`), over
    /// step counts that end at `edges` (the ends of the loop's batches or phases) and at random
    /// places. Every `f` has `f_0 != 0`, as the callers guarantee (the loops rely on it).
    fn cases<const W: usize>(
        n: usize,
        seed: u64,
        edges: [usize; 2],
    ) -> Vec<(u8, [Trits<W>; 4], usize)> {
        let mut seed = seed ^ n as u64;
        let mut out = Vec::new();
        for case in 0..40u8 {
            let (kf, kg) = match case {
                0 => (3, 1),
                1 => (2, 2),
                2 => (1, 0),
                3 => (0, 3),
                _ => (0, 0),
            };
            let mut polys = [
                trits::<W>(n, kf, &mut seed),
                trits::<W>(n, kg, &mut seed),
                trits::<W>(n, 1, &mut seed),
                trits::<W>(n, 1, &mut seed),
            ];
            polys[3].set(0, 1);
            if case == 4 || polys[0].get(0) == 0 {
                // f_0 = 2 (case 4: whatever it was)
                polys[0].p[0] &= !1;
                polys[0].m[0] |= 1;
            }
            if case == 8 || case == 12 {
                // f = 1, g = 1 + x^(n - 60): one swap, then g_0 = 0 for n - 60 steps while v
                // moves up one place a step (v reaches its worst-case degree)
                polys[0] = Trits::<W>::ZERO;
                polys[0].set(0, 1);
                polys[1] = Trits::<W>::ZERO;
                polys[1].set(0, 1);
                polys[1].set(n - 60, if case == 8 { 1 } else { 2 });
            }
            let steps = match case % 4 {
                0 => 2 * (n - 1) - 1,
                1 => edges[0],
                2 => edges[1],
                _ => 1 + (xorshift(&mut seed) % (2 * n as u64)) as usize,
            };
            out.push((case, polys, steps));
        }
        out
    }

    /// The AVX-512 loop ([`divsteps3_stepwise`]) with and without the VBMI2 shifts against the
    /// generic steps on words, comparing what the callers read (`delta`, `f_0 · v`; and `w` up
    /// to a unit), over step counts that end on the decision refreshes and on the register
    /// phases.
    fn check<const W: usize, const K: usize>(t: Avx512Bits, n: usize) {
        let mask = top_mask(n);
        let mut all = cases::<W>(n, 0x2545_f491_4f6c_dd1d, [64, 65]);
        all.extend(cases::<W>(n, 0x6a09_e667_f3bc_c908, [511, 512]));
        for (case, polys, steps) in all {
            let [mut f, mut g, mut v, mut w] = polys;
            let want = divsteps3_steps(&mut f, &mut g, &mut v, &mut w, steps, mask);
            let mut variants = vec![false];
            if has_vbmi2() {
                variants.push(true);
            }
            for vbmi2 in variants {
                let load = |x: &Trits<W>| VTrits::<__m512i, K>::load(t, x, n);
                let [mut vf, mut vg, mut vv, mut vw] = polys.map(|x| load(&x));
                let got = divsteps3_avx512(&mut vf, &mut vg, &mut vv, &mut vw, steps, vbmi2);
                let what = if vbmi2 { "VBMI2" } else { "no VBMI2" };
                assert_eq!(got, want, "delta ({what}), n = {n}, case {case}");
                same_result(
                    what,
                    n,
                    case,
                    [&vf.store(), &vv.store(), &vw.store()],
                    [&f, &v, &w],
                );
            }
        }
    }

    /// The AVX2 loop ([`divsteps3_live`]: live registers only, decisions from the low words in
    /// general-purpose registers, refreshed every [`BATCH`] steps) against the generic steps on words, with the inputs of
    /// [`check`].
    fn check_avx2<const W: usize, const K: usize>(t: Avx2Bits, n: usize) {
        let mask = top_mask(n);
        for (case, polys, steps) in cases::<W>(n, 0x9e37_79b9_7f4a_7c15, [255, 257]) {
            let [mut f, mut g, mut v, mut w] = polys;
            let want = divsteps3_steps(&mut f, &mut g, &mut v, &mut w, steps, mask);
            let load = |x: &Trits<W>| VTrits::<__m256i, K>::load(t, x, n);
            let [mut vf, mut vg, mut vv, mut vw] = polys.map(|x| load(&x));
            let got = <VTrits<__m256i, K> as TritOps>::divsteps(
                &mut vf, &mut vg, &mut vv, &mut vw, steps, mask,
            );
            assert_eq!(got, want, "delta, n = {n}, case {case}");
            same_result(
                "AVX2",
                n,
                case,
                [&vf.store(), &vv.store(), &vw.store()],
                [&f, &v, &w],
            );
        }
    }

    #[test]
    fn avx2_divsteps_match_the_generic_steps() {
        let Some(t) = Avx2Bits::try_new() else {
            eprintln!("skipped: this CPU has no AVX2");
            return;
        };
        check_avx2::<8, 2>(t, 509);
        check_avx2::<11, 3>(t, 677);
        check_avx2::<11, 3>(t, 701);
        check_avx2::<12, 3>(t, 762);
        check_avx2::<13, 4>(t, 821);
        check_avx2::<2, 1>(t, 100);
        check_avx2::<4, 1>(t, 256);
        check_avx2::<5, 2>(t, 257);
    }

    #[test]
    fn avx512_divsteps_match_the_generic_steps() {
        let Some(t) = Avx512Bits::try_new() else {
            eprintln!("skipped: this CPU has no AVX-512F");
            return;
        };
        check::<8, 1>(t, 509);
        check::<11, 2>(t, 677);
        check::<11, 2>(t, 701);
        check::<12, 2>(t, 762);
        check::<13, 2>(t, 821);
        check::<2, 1>(t, 100);
        check::<9, 2>(t, 520);
    }
}
