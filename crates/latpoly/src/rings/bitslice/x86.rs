//! SIMD twins of [`super::Trits`] and [`super::Bits`]: the planes in AVX-512 (8 words per
//! register) or AVX2 (4 words per register) registers, word `k` in lane `k % WORDS` of register
//! `k / WORDS`, written once over the [`Reg`] trait.
//!
//! A token ([`Avx512Bits`], [`Avx2Bits`]) can only be built by `try_new`, which checks the CPU at
//! run time. Register values exist only after a polynomial was loaded with a token
//! ([`VTrits::load`], [`VBits::load`]), so the token's proof covers every `unsafe` intrinsic
//! call of the [`Reg`] methods, which are called on such values only.

#![allow(unsafe_code)]

use super::{mod3_small, scalar_masks, swap_step, BitOps, Bits, TritOps, Trits};
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
        divsteps3_avx512(f, g, v, w, steps)
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
///   read `f_0`, `v`, `w` and `delta`): coefficient `i` at the start of step `s` reaches it
///   after `i` more steps, so register `j` is dead once `256 j > steps - s`. A dead register
///   keeps stale bits; the one-bit shift of `g` moves them to position `256 j - 1` of the
///   register below, which is dead from the next step on as well.
///
/// Same `delta`, `v`, `w` and `f_0` as the generic loop (the word version is the test oracle);
/// the phases depend only on `steps` and `K`, which are public.
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
        let vw = K.min((s + 1) / bits + 1);
        let fg = K.min((steps - s) / bits + 1);
        let next_vw = if vw < K { bits * vw - 1 } else { steps };
        let next_fg = if fg > 1 {
            steps - bits * (fg - 1) + 1
        } else {
            steps
        };
        let end = next_vw.min(next_fg).min(steps);
        debug_assert!(end > s);
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

/// `n` steps of [`divsteps3_live`] with `VW` live registers of `v`, `w` and `FG` of `f`, `g`.
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
    // Coefficient 0 of `f` and `g`, carried in general-purpose registers: `f` is only swapped
    // (so its next `f_0` is a select), and the next `g_0` is bit 1 of the updated low word,
    // read before the shift, which thereby leaves the step-to-step dependency chain.
    let (mut f0, mut g0) = (f.c0(), g.c0());
    for _ in 0..n {
        // v = x v (the top mask matters only once the last register is live)
        for plane in [&mut v.p, &mut v.m] {
            plane_shl1(plane, VW);
            if VW == K {
                plane[K - 1] = plane[K - 1].and(v.mask[K - 1]);
            }
        }
        let sign = mod3_small(2 * g0 * f0);
        let swap_mask = swap_step(delta, g0 != 0);
        let swap = R::splat(swap_mask);
        f0 ^= (f0 ^ g0) & swap_mask as u8;
        plane_cswap(&mut f.p, &mut g.p, swap, FG);
        plane_cswap(&mut f.m, &mut g.m, swap, FG);
        plane_cswap(&mut v.p, &mut w.p, swap, VW);
        plane_cswap(&mut v.m, &mut w.m, swap, VW);
        let (s1, s2) = scalar_masks(sign);
        let (m1, m2) = (R::splat(s1), R::splat(s2));
        for j in 0..FG {
            (g.p[j], g.m[j]) = add_scaled_reg(g.p[j], g.m[j], f.p[j], f.m[j], m1, m2);
        }
        g0 = (((g.p[0].word0() >> 1) & 1) | (g.m[0].word0() & 2)) as u8;
        for j in 0..VW {
            (w.p[j], w.m[j]) = add_scaled_reg(w.p[j], w.m[j], v.p[j], v.m[j], m1, m2);
        }
        // g = g / x on the live registers (a dead register above feeds only dead positions)
        plane_shr1(&mut g.p, FG);
        plane_shr1(&mut g.m, FG);
    }
}

/// `x += s · y` on one register of each plane (`m1`, `m2`: the masks of `s = 1`, `s = 2`), in
/// seven logic operations (see [`VTrits::add_scaled`]).
#[inline(always)]
fn add_scaled_reg<R: Reg>(xp: R, xm: R, op: R, om: R, m1: R, m2: R) -> (R, R) {
    let yp = m1.and(op).or(m2.and(om));
    let ym = m1.and(om).or(m2.and(op));
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
        R::divsteps3::<K>(f, g, v, w, steps, top_mask)
    }
}

/// `a ? b : c`, bit by bit.
#[inline(always)]
fn mux(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    // SAFETY: AVX-512F (module invariant: `__m512i` values exist only after an AVX-512 token
    // loaded them).
    unsafe { _mm512_ternarylogic_epi64::<0xCA>(a, b, c) }
}

/// `(x + y)` in GF(3) on one register of each plane (`0 = (0, 0)`, `1 = (1, 0)`, `2 = (0, 1)`):
/// `r.p = y_m ? x_m : (y_p ? !(x_p | x_m) : x_p)`,
/// `r.m = y_p ? x_p : (y_m ? !(x_p | x_m) : x_m)`; four ternary-logic operations.
#[inline(always)]
fn gf3_add(xp: __m512i, xm: __m512i, yp: __m512i, ym: __m512i) -> (__m512i, __m512i) {
    // SAFETY: as in `mux`.
    let (t1, t2) = unsafe {
        (
            _mm512_ternarylogic_epi64::<0x1C>(yp, xp, xm),
            _mm512_ternarylogic_epi64::<0x1A>(ym, xp, xm),
        )
    };
    (mux(ym, xm, t1), mux(yp, xp, t2))
}

/// `x + s·y` on `K` registers per plane, where the scalar `s` is 1 on `k1`, 2 on `k2` and 0
/// where neither mask is set (the masks select all lanes or none); `s2` is the `k2` decision
/// as a vector (all ones or zero), so that `s·y` is one zero-masked ternary-logic operation
/// per plane.
#[inline(always)]
fn gf3_add_scaled<const K: usize>(
    x: &mut VTrits<__m512i, K>,
    y: &VTrits<__m512i, K>,
    k12: __mmask8,
    s2: __m512i,
    regs: usize,
) {
    for j in 0..regs.min(K) {
        // SAFETY: as in `mux`. `s2 ? b : c` is truth table 0xCA; lanes outside `k12` are zero.
        let (yp, ym) = unsafe {
            (
                _mm512_maskz_ternarylogic_epi64::<0xCA>(k12, s2, y.m[j], y.p[j]),
                _mm512_maskz_ternarylogic_epi64::<0xCA>(k12, s2, y.p[j], y.m[j]),
            )
        };
        (x.p[j], x.m[j]) = gf3_add(x.p[j], x.m[j], yp, ym);
    }
}

/// Conditional swap of the first `regs` of `K` registers per plane where `k` selects all
/// lanes.
#[inline(always)]
fn cswap_k<const K: usize>(a: &mut [__m512i; K], b: &mut [__m512i; K], k: __mmask8, regs: usize) {
    for j in 0..regs.min(K) {
        // SAFETY: as in `mux`.
        (a[j], b[j]) = unsafe {
            (
                _mm512_mask_blend_epi64(k, a[j], b[j]),
                _mm512_mask_blend_epi64(k, b[j], a[j]),
            )
        };
    }
}

/// Steps per batch of [`divsteps3_avx512`]: after `j` steps on the low word alone, its bits
/// `0..64 - j` are still exact, so 64 steps can be decided from it.
const BATCH: usize = 64;

/// The decisions of one step: swap, and the factor `s` of `g += s·f` (`s != 0` and `s = 2`);
/// each all-ones or zero.
#[derive(Clone, Copy, Default)]
struct Step {
    swap: u8,
    /// `s != 0` (mask register form).
    s12: u8,
    /// `s = 2`, all ones or zero (broadcast into a vector by a load).
    s2: u64,
}

/// Runs up to [`BATCH`] divsteps on the low words `(fp, fm)`, `(gp, gm)` of `f` and `g` (64
/// coefficients each) and records their decisions; returns the updated `delta`. Word-wise the
/// same steps as [`super::divsteps3_steps`], branch-free (masks from shifts and negations).
#[inline(always)]
fn decide(words: [u64; 4], mut delta: i64, out: &mut [Step]) -> i64 {
    let [mut fp, mut fm, mut gp, mut gm] = words;
    for st in out.iter_mut() {
        // sign = -g_0 f_0: 1 where g_0 f_0 = 2, 2 where g_0 f_0 = 1
        let s1 = (((gp & fm) | (gm & fp)) & 1).wrapping_neg();
        let s2 = (((gp & fp) | (gm & fm)) & 1).wrapping_neg();
        let g0 = ((gp | gm) & 1).wrapping_neg();
        // swap where delta > 0 and g_0 != 0 (the sign bit of -delta)
        let swap = ((delta.wrapping_neg() >> 63) as u64) & g0;
        delta ^= (swap as i64) & (delta ^ delta.wrapping_neg());
        delta += 1;
        let t = swap & (fp ^ gp);
        (fp, gp) = (fp ^ t, gp ^ t);
        let t = swap & (fm ^ gm);
        (fm, gm) = (fm ^ t, gm ^ t);
        let (yp, ym) = ((s1 & fp) | (s2 & fm), (s1 & fm) | (s2 & fp));
        let (x0, y0) = (!(gp | gm), !(yp | ym));
        let np = (gp & y0) | (yp & x0) | (gm & ym);
        let nm = (gm & y0) | (ym & x0) | (gp & yp);
        (gp, gm) = (np >> 1, nm >> 1);
        *st = Step {
            swap: swap as u8,
            s12: (s1 | s2) as u8,
            s2,
        };
    }
    delta
}

/// [`super::divsteps3`] on AVX-512 registers, in batches: the decisions of up to [`BATCH`]
/// steps come from the low words alone ([`decide`], general-purpose registers), then the
/// recorded steps run on the whole polynomials with the decisions as mask registers. The
/// vector steps then form a chain of blends and ternary-logic operations with no round trip
/// through general-purpose registers (the per-step round trip made the plain loop three times
/// slower). The same steps and results as the generic loop, branch-free in the data.
///
/// On CPUs with AVX-512 VBMI2 the one-bit shifts across words are single concatenating shifts
/// (`vpshldq` / `vpshrdq` of a register and its word-shifted neighbour: two instructions per
/// register instead of four), see [`divsteps3_batched`].
#[inline(always)]
fn divsteps3_avx512<const K: usize>(
    f: &mut VTrits<__m512i, K>,
    g: &mut VTrits<__m512i, K>,
    v: &mut VTrits<__m512i, K>,
    w: &mut VTrits<__m512i, K>,
    steps: usize,
) -> i32 {
    // Two registers per plane whose second one holds at most four used words (n <= 768:
    // 677, 701, 761 + 1): that half in `ymm` registers, whose operations cost half as much.
    let narrow = K == 2 && {
        let mut words = [0u64; 16];
        f.mask[K - 1].store(&mut words[..8]);
        words[4..8].iter().all(|&x| x == 0)
    };
    #[cfg(debug_assertions)]
    for x in [&*v, &*w] {
        // the phases of `divsteps3_zy` assume v and w start below coefficient 1
        let mut words = [0u64; 16];
        for plane in [&x.p, &x.m] {
            for (j, r) in plane.iter().enumerate() {
                r.store(&mut words[..8]);
                let from = if j == 0 { 1 } else { 0 };
                debug_assert!(words[from..8].iter().all(|&w| w == 0));
            }
        }
    }
    if has_vbmi2() && has_vl() && narrow {
        let zy = |x: &VTrits<__m512i, K>| [Zy::new(x.p[0], x.p[1]), Zy::new(x.m[0], x.m[1])];
        let (mut zf, mut zg, mut zv, mut zw) = (zy(f), zy(g), zy(v), zy(w));
        // SAFETY: the CPU runs AVX-512 VBMI2 and VL (checked above) and AVX-512F (the
        // caller's `__m512i` values come from an AVX-512 token).
        let delta = unsafe { divsteps3_zy(&mut zf, &mut zg, &mut zv, &mut zw, steps) };
        for (x, z) in [(f, zf), (g, zg), (v, zv), (w, zw)] {
            (x.p[0], x.p[1]) = z[0].get();
            (x.m[0], x.m[1]) = z[1].get();
        }
        cut_to_n(v, w);
        delta
    } else if has_vbmi2() {
        // SAFETY: the CPU runs AVX-512 VBMI2 (checked just above) and AVX-512F (the caller's
        // `__m512i` values come from an AVX-512 token).
        unsafe { divsteps3_vbmi2(f, g, v, w, steps) }
    } else {
        divsteps3_batched::<K, false>(f, g, v, w, steps)
    }
}

/// Whether the CPU runs AVX-512 VBMI2 (checked once).
fn has_vbmi2() -> bool {
    static VBMI2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VBMI2.get_or_init(|| is_x86_feature_detected!("avx512vbmi2"))
}

/// Whether the CPU runs AVX-512VL (checked once): [`divsteps3_zy`] uses `ymm` forms of
/// AVX-512 instructions. Every CPU with VBMI2 has it; the token ([`Avx512Bits`]) only proves
/// AVX-512F, so the `Zy` path checks it too.
fn has_vl() -> bool {
    static VL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VL.get_or_init(|| is_x86_feature_detected!("avx512vl"))
}

/// [`divsteps3_batched`] with the VBMI2 shifts.
#[target_feature(enable = "avx512f,avx512vbmi2")]
fn divsteps3_vbmi2<const K: usize>(
    f: &mut VTrits<__m512i, K>,
    g: &mut VTrits<__m512i, K>,
    v: &mut VTrits<__m512i, K>,
    w: &mut VTrits<__m512i, K>,
    steps: usize,
) -> i32 {
    divsteps3_batched::<K, true>(f, g, v, w, steps)
}

/// One bit plane of up to 768 coefficients: words 0..8 in a `zmm` register, words 8..12 in a
/// `ymm` register.
#[derive(Clone, Copy)]
struct Zy {
    lo: __m512i,
    hi: __m256i,
}

impl Zy {
    /// From two registers whose second one has at most four used words.
    #[inline(always)]
    fn new(lo: __m512i, hi: __m512i) -> Self {
        // SAFETY: AVX-512F (module invariant: `__m512i` values exist only after a token).
        let hi = unsafe { _mm512_castsi512_si256(hi) };
        Zy { lo, hi }
    }

    /// Back to two registers (words 12..16 zero).
    #[inline(always)]
    fn get(self) -> (__m512i, __m512i) {
        // SAFETY: as in `new`.
        (self.lo, unsafe { _mm512_zextsi256_si512(self.hi) })
    }
}

/// [`divsteps3_batched`] for two registers per plane of which the second holds at most four
/// used words ([`Zy`]): the same steps, the upper words in `ymm` registers.
#[target_feature(enable = "avx512f,avx512vl,avx512vbmi2")]
fn divsteps3_zy(
    f: &mut [Zy; 2],
    g: &mut [Zy; 2],
    v: &mut [Zy; 2],
    w: &mut [Zy; 2],
    steps: usize,
) -> i32 {
    let z512 = _mm512_setzero_si512();
    let z256 = _mm256_setzero_si256();
    // Each operation with `hi`: whether the ymm half takes part (see `LO_ONLY_VW` and
    // `lo_only_fg_from`; a constant at every call, so the branches fold away).
    // x · X (bits passing word 11 fall off; the caller cuts to n afterwards)
    let shl1 = |x: Zy, hi: bool| -> Zy {
        let lo_prev = _mm512_alignr_epi64::<7>(x.lo, z512);
        let lo = _mm512_shldi_epi64::<1>(x.lo, lo_prev);
        if !hi {
            return Zy { lo, hi: x.hi };
        }
        let top = _mm512_extracti64x4_epi64::<1>(x.lo);
        let hi_prev = _mm256_alignr_epi64::<3>(x.hi, top);
        Zy {
            lo,
            hi: _mm256_shldi_epi64::<1>(x.hi, hi_prev),
        }
    };
    // x / X (zero comes in at the top; without `hi`, at bit 511)
    let shr1 = |x: Zy, hi: bool| -> Zy {
        let upper = if hi {
            _mm512_castsi256_si512(x.hi)
        } else {
            z512
        };
        let lo_next = _mm512_alignr_epi64::<1>(upper, x.lo);
        let lo = _mm512_shrdi_epi64::<1>(x.lo, lo_next);
        if !hi {
            return Zy { lo, hi: x.hi };
        }
        let hi_next = _mm256_alignr_epi64::<1>(z256, x.hi);
        Zy {
            lo,
            hi: _mm256_shrdi_epi64::<1>(x.hi, hi_next),
        }
    };
    let cswap = |a: &mut Zy, b: &mut Zy, k: __mmask8, hi: bool| {
        (a.lo, b.lo) = (
            _mm512_mask_blend_epi64(k, a.lo, b.lo),
            _mm512_mask_blend_epi64(k, b.lo, a.lo),
        );
        if hi {
            (a.hi, b.hi) = (
                _mm256_mask_blend_epi64(k, a.hi, b.hi),
                _mm256_mask_blend_epi64(k, b.hi, a.hi),
            );
        }
    };
    // x + s·y (as `gf3_add_scaled` and `gf3_add`)
    let add_scaled = |x: &mut [Zy; 2], y: &[Zy; 2], k12: __mmask8, s2: u64, hi: bool| {
        let s2z = _mm512_set1_epi64(s2 as i64);
        let [xp, xm] = x;
        let [y_p, y_m] = *y;
        let yp = _mm512_maskz_ternarylogic_epi64::<0xCA>(k12, s2z, y_m.lo, y_p.lo);
        let ym = _mm512_maskz_ternarylogic_epi64::<0xCA>(k12, s2z, y_p.lo, y_m.lo);
        let t1 = _mm512_ternarylogic_epi64::<0x1C>(yp, xp.lo, xm.lo);
        let t2 = _mm512_ternarylogic_epi64::<0x1A>(ym, xp.lo, xm.lo);
        (xp.lo, xm.lo) = (
            _mm512_ternarylogic_epi64::<0xCA>(ym, xm.lo, t1),
            _mm512_ternarylogic_epi64::<0xCA>(yp, xp.lo, t2),
        );
        if hi {
            let s2y = _mm256_set1_epi64x(s2 as i64);
            let yp = _mm256_maskz_ternarylogic_epi64::<0xCA>(k12, s2y, y_m.hi, y_p.hi);
            let ym = _mm256_maskz_ternarylogic_epi64::<0xCA>(k12, s2y, y_p.hi, y_m.hi);
            let t1 = _mm256_ternarylogic_epi64::<0x1C>(yp, xp.hi, xm.hi);
            let t2 = _mm256_ternarylogic_epi64::<0x1A>(ym, xp.hi, xm.hi);
            (xp.hi, xm.hi) = (
                _mm256_ternarylogic_epi64::<0xCA>(ym, xm.hi, t1),
                _mm256_ternarylogic_epi64::<0xCA>(yp, xp.hi, t2),
            );
        }
    };
    // One step; `vw_hi` / `fg_hi`: whether the upper halves of (v, w) / (f, g) take part.
    let step = |f: &mut [Zy; 2],
                g: &mut [Zy; 2],
                v: &mut [Zy; 2],
                w: &mut [Zy; 2],
                st: &Step,
                vw_hi: bool,
                fg_hi: bool| {
        for vk in v.iter_mut() {
            *vk = shl1(*vk, vw_hi);
        }
        for k in 0..2 {
            cswap(&mut f[k], &mut g[k], st.swap, fg_hi);
            cswap(&mut v[k], &mut w[k], st.swap, vw_hi);
        }
        add_scaled(g, f, st.s12, st.s2, fg_hi);
        add_scaled(w, v, st.s12, st.s2, vw_hi);
        for gk in g.iter_mut() {
            *gk = shr1(*gk, fg_hi);
        }
    };
    let word0 = |x: Zy| _mm_cvtsi128_si64(_mm512_castsi512_si128(x.lo)) as u64;
    let fg_lo_from = lo_only_fg_from(steps);
    let mut delta: i64 = 1;
    let mut done = 0;
    let mut rec = [Step::default(); BATCH];
    while done < steps {
        let batch = BATCH.min(steps - done);
        let words = [word0(f[0]), word0(f[1]), word0(g[0]), word0(g[1])];
        delta = decide(words, delta, &mut rec[..batch]);
        // public phase of the batch (depends on the step counts only)
        let vw_hi = done + batch > LO_ONLY_VW;
        let fg_hi = done < fg_lo_from;
        match (vw_hi, fg_hi) {
            (true, true) => rec[..batch]
                .iter()
                .for_each(|st| step(f, g, v, w, st, true, true)),
            (false, true) => rec[..batch]
                .iter()
                .for_each(|st| step(f, g, v, w, st, false, true)),
            (true, false) => rec[..batch]
                .iter()
                .for_each(|st| step(f, g, v, w, st, true, false)),
            (false, false) => rec[..batch]
                .iter()
                .for_each(|st| step(f, g, v, w, st, false, false)),
        }
        done += batch;
    }
    delta as i32
}

/// Steps during which `v` and `w` fit in the low 512 bits: they start below coefficient 1
/// (the callers' `v = 0`, `w = 1`) and move up at most one place a step, so after 448 steps
/// (seven batches) they are still below coefficient 449.
const LO_ONLY_VW: usize = 7 * BATCH;

/// The first batch start from which `f` and `g` are only needed in their low 512 bits: the
/// callers read `delta`, `v`, `w` and `f_0` after the loop, the steps read `f_0` and `g_0`, and
/// an entry moves down at most one place a step, so at step `it` (of `steps`) only indices up
/// to `steps - 1 - it` can still matter: below 512 from step `steps - 512` on (rounded up to
/// a batch boundary). Bits 511 and below then stay exact; what the low halves receive from
/// the (no longer updated) upper halves only lands beyond that bound.
fn lo_only_fg_from(steps: usize) -> usize {
    steps.saturating_sub(512).div_ceil(BATCH) * BATCH
}

/// `x = x · X` on a plane of `K` registers (the bit below comes from the previous word);
/// `VBMI2`: with `vpshldq` (the caller enables AVX-512 VBMI2).
#[inline(always)]
fn shl1_plane<const K: usize, const VBMI2: bool>(x: &mut [__m512i; K]) {
    for j in (0..K).rev() {
        let lower = if j > 0 {
            x[j - 1]
        } else {
            <__m512i as Reg>::zero()
        };
        let prev = x[j].prev(lower);
        x[j] = if VBMI2 {
            // SAFETY: VBMI2 is enabled by the caller (see the function documentation).
            unsafe { _mm512_shldi_epi64::<1>(x[j], prev) }
        } else {
            x[j].shl1().or(prev.shr63())
        };
    }
}

/// `x = x / X` on a plane of `K` registers (zero comes in at the top); `VBMI2` as in
/// [`shl1_plane`].
#[inline(always)]
fn shr1_plane<const K: usize, const VBMI2: bool>(x: &mut [__m512i; K]) {
    for j in 0..K {
        let upper = if j + 1 < K {
            x[j + 1]
        } else {
            <__m512i as Reg>::zero()
        };
        let next = x[j].next(upper);
        x[j] = if VBMI2 {
            // SAFETY: as in `shl1_plane`.
            unsafe { _mm512_shrdi_epi64::<1>(x[j], next) }
        } else {
            x[j].shr1().or(next.shl63())
        };
    }
}

/// The batched loop of [`divsteps3_avx512`]; `VBMI2` selects the shift instructions (true only
/// inside a function that enables AVX-512 VBMI2).
#[inline(always)]
fn divsteps3_batched<const K: usize, const VBMI2: bool>(
    f: &mut VTrits<__m512i, K>,
    g: &mut VTrits<__m512i, K>,
    v: &mut VTrits<__m512i, K>,
    w: &mut VTrits<__m512i, K>,
    steps: usize,
) -> i32 {
    let fg_lo_from = lo_only_fg_from(steps);
    let mut delta: i64 = 1;
    let mut done = 0;
    let mut rec = [Step::default(); BATCH];
    while done < steps {
        let batch = BATCH.min(steps - done);
        let words = [
            f.p[0].word0(),
            f.m[0].word0(),
            g.p[0].word0(),
            g.m[0].word0(),
        ];
        delta = decide(words, delta, &mut rec[..batch]);
        // public phase of the batch (step counts only); one register per plane needs none
        let all_vw = K == 1 || done + batch > LO_ONLY_VW;
        let all_fg = K == 1 || done < fg_lo_from;
        let rec = &rec[..batch];
        for st in rec {
            // dispatch on the batch's public phase; each arm is one monomorphised step
            match (all_vw, all_fg) {
                (true, true) => batched_step::<K, VBMI2, true, true>([f, g, v, w], st),
                (false, true) => batched_step::<K, VBMI2, false, true>([f, g, v, w], st),
                (true, false) => batched_step::<K, VBMI2, true, false>([f, g, v, w], st),
                (false, false) => batched_step::<K, VBMI2, false, false>([f, g, v, w], st),
            }
        }
        done += batch;
    }
    cut_to_n(v, w);
    delta as i32
}

/// One step of [`divsteps3_batched`]; `ALL_VW` / `ALL_FG`: whether the registers past the
/// first take part for (v, w) / (f, g) (see [`LO_ONLY_VW`] and [`lo_only_fg_from`]). A
/// function, not a closure, so that it inlines into the `#[target_feature]` callers.
#[inline(always)]
fn batched_step<const K: usize, const VBMI2: bool, const ALL_VW: bool, const ALL_FG: bool>(
    [f, g, v, w]: [&mut VTrits<__m512i, K>; 4],
    st: &Step,
) {
    let (kvw, kfg) = (if ALL_VW { K } else { 1 }, if ALL_FG { K } else { 1 });
    // v = v · X; the bits that pass the polynomial's n coefficients are cut once after the
    // loop: v and w only ever move up and add bit by bit, so they never flow back
    if ALL_VW {
        shl1_plane::<K, VBMI2>(&mut v.p);
        shl1_plane::<K, VBMI2>(&mut v.m);
    } else {
        shl1_plane::<1, VBMI2>(first(&mut v.p));
        shl1_plane::<1, VBMI2>(first(&mut v.m));
    }
    cswap_k(&mut f.p, &mut g.p, st.swap, kfg);
    cswap_k(&mut f.m, &mut g.m, st.swap, kfg);
    cswap_k(&mut v.p, &mut w.p, st.swap, kvw);
    cswap_k(&mut v.m, &mut w.m, st.swap, kvw);
    let s2 = <__m512i as Reg>::splat(st.s2);
    gf3_add_scaled(g, f, st.s12, s2, kfg);
    gf3_add_scaled(w, v, st.s12, s2, kvw);
    if ALL_FG {
        shr1_plane::<K, VBMI2>(&mut g.p);
        shr1_plane::<K, VBMI2>(&mut g.m);
    } else {
        shr1_plane::<1, VBMI2>(first(&mut g.p));
        shr1_plane::<1, VBMI2>(first(&mut g.m));
    }
}

/// The first register of a plane.
#[inline(always)]
fn first<const K: usize>(x: &mut [__m512i; K]) -> &mut [__m512i; 1] {
    x.first_chunk_mut::<1>().expect("K >= 1")
}

/// Clears the bits of `v` and `w` past the polynomial's `n` coefficients (the batched loops
/// shift `v` up without cutting every step: bits only move up, so they never flow back).
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

    /// The batched AVX-512 loop against the generic steps on words: every output polynomial
    /// and `delta`, for random and degenerate inputs (zero, constant, `f_0 = 0`), over step
    /// counts that end inside a batch and on its boundary.
    /// Inputs of the loop tests: `(case, [f, g, v, w], steps)` for random and degenerate
    /// polynomials (zero, constant, `f_0 = 0`, a long run of `g_0 = 0`), over step counts that
    /// end at `edges` (the ends of the loop's batches or phases) and at random places.
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
            if case == 4 {
                polys[0].p[0] &= !1; // f_0 = 0
                polys[0].m[0] &= !1;
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

    fn check<const W: usize, const K: usize>(t: Avx512Bits, n: usize) {
        let mask = top_mask(n);
        for (case, polys, steps) in cases::<W>(n, 0x2545_f491_4f6c_dd1d, [64, 65]) {
            let [mut f, mut g, mut v, mut w] = polys;
            let want = divsteps3_steps(&mut f, &mut g, &mut v, &mut w, steps, mask);
            let load = |x: &Trits<W>| VTrits::<__m512i, K>::load(t, x, n);
            let [mut vf, mut vg, mut vv, mut vw] = polys.map(|x| load(&x));
            let [mut pf, mut pg, mut pv, mut pw] = [vf, vg, vv, vw];
            let got = <VTrits<__m512i, K> as TritOps>::divsteps(
                &mut vf, &mut vg, &mut vv, &mut vw, steps, mask,
            );
            assert_eq!(got, want, "delta, n = {n}, case {case}");
            // the loop without VBMI2 shifts (the dispatch above takes the VBMI2 one where the
            // CPU has it)
            let plain = divsteps3_batched::<K, false>(&mut pf, &mut pg, &mut pv, &mut pw, steps);
            assert_eq!(plain, want, "delta (no VBMI2), n = {n}, case {case}");
            // The loops leave f and g exact only where they can still matter: compare what
            // the callers read (f_0, v, w, delta).
            for (what, [lf, _, lv, lw]) in [
                ("no VBMI2", [&pf, &pg, &pv, &pw]),
                ("dispatched", [&vf, &vg, &vv, &vw]),
            ] {
                let a: Trits<W> = lf.store();
                assert_eq!(a.get(0), f.get(0), "f_0 ({what}), n = {n}, case {case}");
                for (name, a, b) in [("v", lv, &v), ("w", lw, &w)] {
                    let a: Trits<W> = a.store();
                    assert_eq!(
                        (a.p, a.m),
                        (b.p, b.m),
                        "{name} ({what}), n = {n}, case {case}"
                    );
                }
            }
        }
    }

    /// The AVX2 loop ([`divsteps3_live`]: live registers only, `g_0` and `f_0` carried in
    /// general-purpose registers) against the generic steps on words, with the inputs of
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
            let a: Trits<W> = vf.store();
            assert_eq!(a.get(0), f.get(0), "f_0, n = {n}, case {case}");
            for (name, a, b) in [("v", vv, &v), ("w", vw, &w)] {
                let a: Trits<W> = a.store();
                assert_eq!((a.p, a.m), (b.p, b.m), "{name}, n = {n}, case {case}");
            }
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
    fn batched_divsteps_match_the_generic_steps() {
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
    }
}
