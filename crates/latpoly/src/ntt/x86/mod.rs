//! x86-64 SIMD backends: one token type per (instruction set, lane width).
//!
//! | token | lanes | needs | Shoup quotient | Montgomery radix |
//! |---|---|---|---|---|
//! | [`Avx2U64`] | 4 x u64 (`Avx2U64<true>`: `q ≡ 1 mod 2^32`) | AVX2 | 2^64 (emulated 64x64 products) | 2^64 |
//! | [`Avx2F64`] | 4 x f64, q < 2^50 (transforms only) | AVX2 + FMA | `fl(w / q)` | none |
//! | [`Avx512U64`] | 8 x u64 | AVX-512F + DQ | 2^64 (emulated high product) | 2^64 |
//! | [`IfmaU64`] | 8 x u64, q < 2^50 | AVX-512F + IFMA | 2^52 (`vpmadd52*`) | 2^52 |
//! | [`Avx2U32`] | 8 x u32 | AVX2 | 2^32 | 2^32 |
//! | [`Avx512U32`] | 16 x u32 | AVX-512F | 2^32 | 2^32 |
//! | [`Avx2U16`] | 16 x u16 | AVX2 | 2^16 | 2^16 |
//! | [`Avx512U16`] | 32 x u16 | AVX-512BW | 2^16 | 2^16 |
//!
//! A token can only be built by `try_new`, which checks the CPU at run time; holding one is the
//! proof every `unsafe` intrinsic call in its module relies on.
//!
//! Two kernel sets combine tokens for `u64` plans on AVX2: [`FpKernels`] (`avx2_f64.rs`, the
//! transforms of `q < 2^50` in `f64` lanes) and [`NarrowKernels`] (`avx2_narrow.rs`, those of
//! `q < 2^30` and `n >= 16` in the 32-bit lanes of [`Avx2U32`], on a per-thread `u32` scratch),
//! with everything else on [`Avx2U64`].

#![allow(unsafe_code)]

mod avx2_f64;
mod avx2_narrow;
mod avx2_u16;
mod avx2_u32;
mod avx2_u64;
mod avx512_u16;
mod avx512_u32;
mod avx512_u64;
mod ifma_u64;

pub(crate) use avx2_f64::{Avx2F64, FpKernels};
pub(crate) use avx2_narrow::NarrowKernels;
pub(crate) use avx2_u16::Avx2U16;
pub(crate) use avx2_u32::Avx2U32;
pub(crate) use avx2_u64::Avx2U64;
pub(crate) use avx512_u16::Avx512U16;
pub(crate) use avx512_u32::Avx512U32;
pub(crate) use avx512_u64::Avx512U64;
pub(crate) use ifma_u64::IfmaU64;

use core::cell::RefCell;

/// Eight `u64` words on a cache line of their own: the transforms' scratch arrays start on one.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

thread_local! {
    /// This thread's scratch of the transforms ([`with_scratch`]): all zero whenever no
    /// transform holds it.
    static SCRATCH: RefCell<Vec<Line>> = const { RefCell::new(Vec::new()) };
}

/// The lane words a transform scratch holds: unsigned integers of 16, 32 or 64 bits (every
/// bit pattern a value, no padding, alignment at most 8).
pub(crate) trait ScratchLane: Copy {}
impl ScratchLane for u16 {}
impl ScratchLane for u32 {}
impl ScratchLane for u64 {}

/// Runs `f` on `n` zero words of this thread's transform scratch, starting on a cache line, or
/// of a fresh buffer when the scratch is taken (a transform inside another, which none of the
/// kernels does). `f` leaves them zero
/// (the transforms that run through it zero what they used: [`crate::ntt::simd::Io::Through`]).
/// The buffer grows to the largest size the thread has asked for and is shared by every word
/// type: the checked inverses ([`crate::ntt::simd::inverse_checked`]) and the narrowed `u64`
/// transforms of AVX2 (`avx2_narrow.rs`).
pub(crate) fn with_scratch<W: ScratchLane, R>(n: usize, f: impl FnOnce(&mut [W]) -> R) -> R {
    let lines = n.div_ceil(64 / core::mem::size_of::<W>());
    /// The words of `v`, borrowed for as long as `v` is.
    fn words<W: ScratchLane>(v: &mut [Line]) -> &mut [W] {
        let per_line = 64 / core::mem::size_of::<W>();
        // SAFETY: `Line` is 64 bytes of initialised `u64` without padding (`repr(C)`, aligned
        // to 64), and `W` is `u16`, `u32` or `u64` ([`ScratchLane`]): every bit pattern is a
        // value and its alignment divides 64, so `v` is `per_line v.len()` valid, aligned `W`;
        // the view borrows `v` mutably for its whole life.
        unsafe { core::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<W>(), per_line * v.len()) }
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut v) => {
            if v.len() < lines {
                v.resize(lines, Line([0; 8]));
            }
            f(&mut words(&mut v[..lines])[..n])
        }
        Err(_) => f(&mut words(&mut vec![Line([0; 8]); lines])[..n]),
    })
}

/// Whether this thread's transform scratch is all zero (as every transform leaves it).
#[cfg(test)]
pub(crate) fn scratch_is_zero() -> bool {
    SCRATCH.with(|cell| cell.borrow().iter().all(|l| l.0 == [0; 8]))
}

/// Lane models of the one-slot shuffles that the 16- and 32-bit AVX-512 backends build their
/// butterfly layouts from (their `LAYOUTS`, checked at compile time): entries are the indices
/// of the elements the `L` lanes hold, `L / 4` lanes per 128-bit lane. `vshufi64x2 imm`:
/// 128-bit lane `k` of the result is lane `imm >> 2k & 3` of `x` (`k < 2`) or of `y`.
const fn model_shufi<const L: usize>(x: [u8; L], y: [u8; L], imm: usize) -> [u8; L] {
    let e = L / 4;
    let mut o = [0u8; L];
    let mut k = 0;
    while k < 4 {
        let src = if k < 2 { x } else { y };
        let g = (imm >> (2 * k)) & 3;
        let mut i = 0;
        while i < e {
            o[e * k + i] = src[e * g + i];
            i += 1;
        }
        k += 1;
    }
    o
}

/// Lane model of `vpunpckl{wd,dq}` (`HI = false`) or `vpunpckh{wd,dq}` (`HI = true`): the low
/// (high) halves of each 128-bit lane of `x` and `y`, interleaved.
const fn model_unpack<const L: usize, const HI: bool>(x: [u8; L], y: [u8; L]) -> [u8; L] {
    let e = L / 4;
    let h = if HI { e / 2 } else { 0 };
    let mut o = [0u8; L];
    let mut c = 0;
    while c < 4 {
        let mut i = 0;
        while i < e / 2 {
            o[e * c + 2 * i] = x[e * c + h + i];
            o[e * c + 2 * i + 1] = y[e * c + h + i];
            i += 1;
        }
        c += 1;
    }
    o
}

/// The pair `(a, b)` in element order (`0..L`, `L..2L`), the start of every layout model.
const fn model_natural<const L: usize>() -> [[u8; L]; 2] {
    let mut o = [[0u8; L]; 2];
    let mut i = 0;
    while i < L {
        o[0][i] = i as u8;
        o[1][i] = (L + i) as u8;
        i += 1;
    }
    o
}

/// `vpermt2q` indices that undo the two `vshufi64x2` with `0x88` / `0xDD` (the step down from
/// the 16- and 32-bit backends' largest in-register distance): 128-bit lane groups
/// `x0 y0 x1 y1` and `x2 y2 x3 y3`.
const SHUFI_UP: [[i64; 8]; 2] = [[0, 1, 8, 9, 2, 3, 10, 11], [4, 5, 12, 13, 6, 7, 14, 15]];

/// The check both cheap-shuffle backends run in a unit test, with their `LAYOUTS`: the layout
/// of every distance from `deinterleave` is `layouts`', partners share a lane, `interleave`
/// undoes it, and `step_down` / `step_up` move between neighbouring distances exactly (the
/// twiddle tables are built from `deinterleave`, the transforms walk with the steps).
#[cfg(test)]
pub(crate) fn check_layout_steps<S: crate::ntt::simd::Simd, const L: usize>(
    s: S,
    layouts: &[[[u8; L]; 2]],
) {
    use crate::arith::Word;
    let ws =
        |r: core::ops::Range<usize>| -> Vec<S::W> { r.map(|i| S::W::from_u64(i as u64)).collect() };
    let (a, b) = (ws(0..L), ws(L..2 * L));
    let lanes = |v: S::V| -> Vec<S::W> {
        let mut o = vec![S::W::ZERO; L];
        s.store(&mut o, v);
        o
    };
    let ids = |v: &[S::W]| -> Vec<u64> { v.iter().map(|x| x.to_u64()).collect() };
    let layout = |t: usize| {
        let (x, y) = s.deinterleave(s.load(&a), s.load(&b), t);
        (lanes(x), lanes(y))
    };
    for (k, lay) in layouts.iter().enumerate() {
        let t = 1usize << k;
        let (x, y) = layout(t);
        let want = lay.map(|v| v.map(u64::from).to_vec());
        assert_eq!([ids(&x), ids(&y)], want, "t = {t}");
        for l in 0..L {
            assert_eq!(
                y[l].to_u64(),
                x[l].to_u64() + t as u64,
                "partners at t = {t}"
            );
        }
        let (p, q) = s.interleave(s.load(&x), s.load(&y), t);
        assert_eq!(
            (ids(&lanes(p)), ids(&lanes(q))),
            (ids(&a), ids(&b)),
            "interleave {t}"
        );
        if t >= 2 {
            let (d, e) = s.step_down(s.load(&x), s.load(&y), t);
            let (d, e) = (lanes(d), lanes(e));
            let (dx, dy) = layout(t / 2);
            assert_eq!((ids(&d), ids(&e)), (ids(&dx), ids(&dy)), "step_down {t}");
            let (u, v) = s.step_up(s.load(&d), s.load(&e), t / 2);
            let back = (ids(&lanes(u)), ids(&lanes(v)));
            assert_eq!(back, (ids(&x), ids(&y)), "step_up {}", t / 2);
        }
    }
}

/// [`Simd::fence8`](crate::ntt::simd::Simd::fence8) on `zmm` registers: an empty assembly
/// block that takes the eight vectors in registers and hands them back. No work on these
/// vectors moves across it, so a register block runs (nearly) layer by layer: two fences of
/// eight still let one half of a block of 16 start its next layer while the other half ends
/// the current one. Without it LLVM ordered the 16-vector blocks butterfly chain by butterfly
/// chain and spilled about 60 vectors at n = 512 (see `Simd::fence8` for the measurements).
#[target_feature(enable = "avx512f")]
#[inline]
fn fence8_zmm(v: &mut [core::arch::x86_64::__m512i; 8]) {
    // SAFETY: an empty assembly block: no instruction runs, no memory, stack or flags touched.
    unsafe {
        core::arch::asm!(
            "/* {0} {1} {2} {3} {4} {5} {6} {7} */",
            inout(zmm_reg) v[0], inout(zmm_reg) v[1], inout(zmm_reg) v[2],
            inout(zmm_reg) v[3], inout(zmm_reg) v[4], inout(zmm_reg) v[5],
            inout(zmm_reg) v[6], inout(zmm_reg) v[7],
            options(pure, nomem, nostack, preserves_flags)
        );
    }
}

/// Index vector for `permutex2var` that gathers the `X` (`y = false`) or `Y` (`y = true`)
/// inputs of the butterflies at distance `t` from a pair of `L`-lane vectors, in the
/// broadcast-friendly layout of the 64-bit AVX-512 backends: butterfly group `g` of the
/// `G = L / t` groups of `2t` consecutive values in the pair sits in the lanes `l` with
/// `l mod G = g` (element `m` of the group in lane `m G + g`), so the per-lane twiddles of a
/// layer are the `G` consecutive entries of the bit-reversed table repeated across the vector:
/// one broadcast load ([`crate::ntt::simd::Simd::load_bcast`]) instead of a per-lane table
/// expanded in the plan. (The 16- and 32-bit AVX-512 backends use layouts reached by cheaper
/// shuffles, each in its own `LAYOUTS`.)
pub(crate) const fn deinterleave_idx<const L: usize>(t: usize, y: bool) -> [usize; L] {
    let g_count = L / t;
    let mut out = [0usize; L];
    let mut l = 0;
    while l < L {
        let (g, m) = (l % g_count, l / g_count);
        out[l] = g * 2 * t + m + if y { t } else { 0 };
        l += 1;
    }
    out
}

/// Index vector for `permutex2var` that scatters `(X, Y)` back to the first (`hi = false`) or
/// second (`hi = true`) vector of consecutive values: the inverse of [`deinterleave_idx`].
pub(crate) const fn interleave_idx<const L: usize>(t: usize, hi: bool) -> [usize; L] {
    let g_count = L / t;
    let mut out = [0usize; L];
    let mut l = 0;
    while l < L {
        let k = l + if hi { L } else { 0 };
        let g = k / (2 * t);
        let o = k % (2 * t);
        let (m, half) = if o < t { (o, 0) } else { (o - t, L) };
        out[l] = half + m * g_count + g;
        l += 1;
    }
    out
}

/// Index tables `[log2 t][0 = first, 1 = second]` of [`deinterleave_idx`] (`INTER = false`) or
/// [`interleave_idx`] (`INTER = true`) for every `t < L`, as the `i64` lanes of
/// `permutex2var_epi64`.
pub(crate) const fn perm_tables<const L: usize, const K: usize, const INTER: bool>(
) -> [[[i64; L]; 2]; K] {
    let mut out = [[[0i64; L]; 2]; K];
    let mut k = 0;
    while k < K {
        let t = 1usize << k;
        let (a, b) = if INTER {
            (interleave_idx::<L>(t, false), interleave_idx::<L>(t, true))
        } else {
            (
                deinterleave_idx::<L>(t, false),
                deinterleave_idx::<L>(t, true),
            )
        };
        let mut l = 0;
        while l < L {
            out[k][0][l] = a[l] as i64;
            out[k][1][l] = b[l] as i64;
            l += 1;
        }
        k += 1;
    }
    out
}

/// Fused layout changes `[log2 t][first/second]`: from the butterfly layout of distance `t` to
/// that of `t / 2` (`UP = false`, entries for `t >= 2`) or `2 t` (`UP = true`, `2t < L`), i.e.
/// `deinterleave(interleave(x, y, t), t')` as a single pair of `permutex2var` indices into `(x, y)`.
pub(crate) const fn step_tables<const L: usize, const K: usize, const UP: bool>(
) -> [[[i64; L]; 2]; K] {
    let mut out = [[[0i64; L]; 2]; K];
    let mut k = 0;
    while k < K {
        let t = 1usize << k;
        let valid = t < L && if UP { 2 * t < L } else { t >= 2 };
        if valid {
            let t2 = if UP { 2 * t } else { t / 2 };
            let (ia, ib) = (interleave_idx::<L>(t, false), interleave_idx::<L>(t, true));
            let (dx, dy) = (
                deinterleave_idx::<L>(t2, false),
                deinterleave_idx::<L>(t2, true),
            );
            let mut l = 0;
            while l < L {
                // pair position p -> source in (x, y): concat(ia, ib)[p]
                let px = dx[l];
                let py = dy[l];
                out[k][0][l] = (if px < L { ia[px] } else { ib[px - L] }) as i64;
                out[k][1][l] = (if py < L { ia[py] } else { ib[py - L] }) as i64;
                l += 1;
            }
        }
        k += 1;
    }
    out
}

/// Generates the `#[target_feature]` entry point of the SIMD base-conversion kernel for a u64
/// token (see `rns::convert_simd`).
macro_rules! convert_entry {
    ($tok:ty, $feat:literal) => {
        impl crate::rns::convert_simd::ConvertEntry for $tok {
            fn convert_entry(
                self,
                tb: &crate::rns::convert_simd::ConvTables,
                w: &[(u64, u64)],
                src: &[u64],
                out: &mut [u64],
                lift: Option<bool>,
                eps: f64,
                fallback: &mut Vec<usize>,
            ) {
                #[target_feature(enable = $feat)]
                #[allow(clippy::too_many_arguments)]
                fn inner(
                    s: $tok,
                    tb: &crate::rns::convert_simd::ConvTables,
                    w: &[(u64, u64)],
                    src: &[u64],
                    out: &mut [u64],
                    lift: Option<bool>,
                    eps: f64,
                    fallback: &mut Vec<usize>,
                ) {
                    crate::rns::convert_simd::convert(s, tb, w, src, out, lift, eps, fallback)
                }
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { inner(self, tb, w, src, out, lift, eps, fallback) }
            }
            fn mul_sub_mul_entry(self, p: u64, w: [(u64, u64); 2], x: &[u64], r: &mut [u64]) {
                #[target_feature(enable = $feat)]
                fn inner(s: $tok, p: u64, w: [(u64, u64); 2], x: &[u64], r: &mut [u64]) {
                    crate::rns::convert_simd::mul_sub_mul(s, p, w, x, r)
                }
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { inner(self, p, w, x, r) }
            }
            fn centred_digit_entry(
                self,
                d: &crate::rns::convert_simd::DigitTables,
                x: &[u64],
                out: &mut [u64],
            ) {
                #[target_feature(enable = $feat)]
                fn inner(
                    s: $tok,
                    d: &crate::rns::convert_simd::DigitTables,
                    x: &[u64],
                    out: &mut [u64],
                ) {
                    crate::rns::convert_simd::centred_digit(s, d, x, out)
                }
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { inner(self, d, x, out) }
            }
        }
    };
}
pub(crate) use convert_entry;

/// Generates the `#[target_feature]` entry point of BFV decryption's SIMD scale-and-round for
/// a u64 token (see `he::bfv::round`).
macro_rules! round_entry {
    ($tok:ty, $feat:literal) => {
        impl crate::he::bfv::round::RoundEntry for $tok {
            fn round_entry(
                self,
                tb: &crate::he::bfv::round::RoundTables,
                x: &[u64],
                out: &mut [u64],
            ) {
                #[target_feature(enable = $feat)]
                fn inner(
                    s: $tok,
                    tb: &crate::he::bfv::round::RoundTables,
                    x: &[u64],
                    out: &mut [u64],
                ) {
                    crate::he::bfv::round::simd(s, tb, x, out)
                }
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { inner(self, tb, x, out) }
            }
        }
    };
}
pub(crate) use round_entry;

/// Generates the `#[target_feature]` entry points of a token (see `backend::Entry`).
macro_rules! entry_points {
    ($tok:ty, $w:ty, $isa:expr, $feat:literal) => {
        impl $tok {
            #[target_feature(enable = $feat)]
            fn tf_forward<const STRICT: bool>(self, tb: &SimdTables<$w>, q: $w, a: &mut [$w]) {
                simd::forward::<Self, STRICT>(self, tb, q, None, a)
            }
            #[target_feature(enable = $feat)]
            fn tf_forward_checked(self, tb: &SimdTables<$w>, q: $w, a: &mut [$w]) -> bool {
                simd::forward_checked::<Self, true>(self, tb, q, a)
            }
            #[target_feature(enable = $feat)]
            fn tf_inverse<const STRICT: bool>(self, tb: &SimdTables<$w>, q: $w, a: &mut [$w]) {
                simd::inverse::<Self, STRICT>(self, tb, q, None, a)
            }
            #[target_feature(enable = $feat)]
            fn tf_inverse_checked<const STRICT: bool>(
                self,
                tb: &SimdTables<$w>,
                q: $w,
                bound: $w,
                a: &mut [$w],
                scratch: &mut [$w],
            ) -> bool {
                simd::inverse_checked::<Self, STRICT>(self, tb, q, bound, a, scratch)
            }
            #[target_feature(enable = $feat)]
            fn tf_product<const CHECK: bool>(
                self,
                tb: &SimdTables<$w>,
                q: $w,
                a: &[$w],
                b: &[$w],
                out: &mut [$w],
                scratch: &mut [$w],
            ) -> bool {
                simd::product::<Self, CHECK>(self, tb, q, a, b, out, scratch)
            }
            #[target_feature(enable = $feat)]
            fn tf_below(self, a: &[$w], bound: $w) -> bool {
                simd::all_below(self, a, bound)
            }
            #[target_feature(enable = $feat)]
            fn tf_parity(self, half: $w, w: &[$w], out: &mut [u8]) {
                simd::parity_decode(self, half, w, out)
            }
            #[target_feature(enable = $feat)]
            fn tf_add(self, q: $w, a: &[$w], b: &[$w], out: &mut [$w]) {
                simd::add_mod(self, q, a, b, out)
            }
            #[target_feature(enable = $feat)]
            fn tf_sum_extend<const SUB: bool>(self, q: $w, a: &[$w], b: &[$w], out: &mut Vec<$w>) {
                let len = a.len();
                assert!(b.len() == len && len % <Self as Simd>::LANES == 0);
                out.reserve(len);
                let start = out.len();
                simd::sum_uninit::<Self, SUB>(self, q, a, b, &mut out.spare_capacity_mut()[..len]);
                // SAFETY: `sum_uninit` wrote all `len` words after `start` (a whole number of
                // vectors, asserted above), within the capacity reserved.
                unsafe { out.set_len(start + len) }
            }
            #[target_feature(enable = $feat)]
            fn tf_sub(self, q: $w, a: &[$w], b: &[$w], out: &mut [$w]) {
                simd::sub_mod(self, q, a, b, out)
            }
            #[target_feature(enable = $feat)]
            fn tf_add_assign(self, q: $w, a: &mut [$w], b: &[$w]) {
                simd::add_mod_assign(self, q, a, b)
            }
            #[target_feature(enable = $feat)]
            fn tf_sub_assign(self, q: $w, a: &mut [$w], b: &[$w]) {
                simd::sub_mod_assign(self, q, a, b)
            }
            #[target_feature(enable = $feat)]
            fn tf_pointwise(self, tb: &SimdTables<$w>, q: $w, a: &[$w], b: &[$w], out: &mut [$w]) {
                simd::pointwise(self, tb, q, a, b, out)
            }
            #[target_feature(enable = $feat)]
            fn tf_pointwise_acc(
                self,
                tb: &SimdTables<$w>,
                q: $w,
                a: &[$w],
                b: &[$w],
                acc: &mut [$w],
            ) {
                simd::pointwise_acc(self, tb, q, a, b, acc)
            }
            #[target_feature(enable = $feat)]
            fn tf_pointwise_assign(self, tb: &SimdTables<$w>, q: $w, a: &mut [$w], b: &[$w]) {
                simd::pointwise_assign(self, tb, q, a, b)
            }
        }

        impl Entry for $tok {
            const ISA: Isa = $isa;
            fn forward<const STRICT: bool>(self, tb: &SimdTables<$w>, q: $w, a: &mut [$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_forward::<STRICT>(tb, q, a) }
            }
            fn forward_checked(self, tb: &SimdTables<$w>, q: $w, a: &mut [$w]) -> bool {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_forward_checked(tb, q, a) }
            }
            fn inverse<const STRICT: bool>(self, tb: &SimdTables<$w>, q: $w, a: &mut [$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_inverse::<STRICT>(tb, q, a) }
            }
            fn inverse_checked<const STRICT: bool>(
                self,
                tb: &SimdTables<$w>,
                q: $w,
                bound: $w,
                a: &mut [$w],
            ) -> bool {
                crate::ntt::x86::with_scratch::<$w, _>(a.len(), |t| {
                    // SAFETY: the token exists only if the CPU supports the enabled features.
                    unsafe { self.tf_inverse_checked::<STRICT>(tb, q, bound, a, t) }
                })
            }
            fn product<const CHECK: bool>(
                self,
                tb: &SimdTables<$w>,
                q: $w,
                a: &[$w],
                b: &[$w],
                out: &mut [$w],
                scratch: &mut [$w],
            ) -> bool {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_product::<CHECK>(tb, q, a, b, out, scratch) }
            }
            fn all_below(self, a: &[$w], bound: $w) -> bool {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_below(a, bound) }
            }
            fn add(self, q: $w, a: &[$w], b: &[$w], out: &mut [$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_add(q, a, b, out) }
            }
            fn sum_extend<const SUB: bool>(self, q: $w, a: &[$w], b: &[$w], out: &mut Vec<$w>) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_sum_extend::<SUB>(q, a, b, out) }
            }
            fn parity_decode(self, half: $w, w: &[$w], out: &mut [u8]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_parity(half, w, out) }
            }
            fn sub(self, q: $w, a: &[$w], b: &[$w], out: &mut [$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_sub(q, a, b, out) }
            }
            fn add_assign(self, q: $w, a: &mut [$w], b: &[$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_add_assign(q, a, b) }
            }
            fn sub_assign(self, q: $w, a: &mut [$w], b: &[$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_sub_assign(q, a, b) }
            }
            fn pointwise(self, tb: &SimdTables<$w>, q: $w, a: &[$w], b: &[$w], out: &mut [$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_pointwise(tb, q, a, b, out) }
            }
            fn pointwise_acc(self, tb: &SimdTables<$w>, q: $w, a: &[$w], b: &[$w], acc: &mut [$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_pointwise_acc(tb, q, a, b, acc) }
            }
            fn pointwise_assign(self, tb: &SimdTables<$w>, q: $w, a: &mut [$w], b: &[$w]) {
                // SAFETY: the token exists only if the CPU supports the enabled features.
                unsafe { self.tf_pointwise_assign(tb, q, a, b) }
            }
        }
    };
}
pub(crate) use entry_points;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_vectors_are_inverse_permutations() {
        fn check<const L: usize>() {
            let mut t = 1;
            while t < L {
                let (x, y) = (
                    deinterleave_idx::<L>(t, false),
                    deinterleave_idx::<L>(t, true),
                );
                let (a, b) = (interleave_idx::<L>(t, false), interleave_idx::<L>(t, true));
                // XY[i] = pair[x or y]; pair'[k] = XY[a or b]; must give the identity.
                let xy: Vec<usize> = x.iter().chain(y.iter()).copied().collect();
                for k in 0..2 * L {
                    let src = if k < L { a[k] } else { b[k - L] };
                    assert_eq!(xy[src], k, "L={L} t={t} k={k}");
                }
                for l in 0..L {
                    assert_eq!(y[l], x[l] + t);
                    // The broadcast layout: group `l mod (L / t)` in lane `l`.
                    assert_eq!(x[l] / (2 * t), l % (L / t));
                }
                // Fused steps equal the two-step composition.
                let k = t.trailing_zeros() as usize;
                let compose = |t2: usize| -> Vec<usize> {
                    let d = deinterleave_idx::<L>(t2, false);
                    let e = deinterleave_idx::<L>(t2, true);
                    d.iter()
                        .chain(e.iter())
                        .map(|&p| if p < L { a[p] } else { b[p - L] })
                        .collect()
                };
                if t >= 2 {
                    let st = step_tables::<L, 6, false>();
                    let got: Vec<usize> = st[k][0]
                        .iter()
                        .chain(st[k][1].iter())
                        .map(|&v| v as usize)
                        .collect();
                    assert_eq!(got, compose(t / 2));
                }
                if 2 * t < L {
                    let st = step_tables::<L, 6, true>();
                    let got: Vec<usize> = st[k][0]
                        .iter()
                        .chain(st[k][1].iter())
                        .map(|&v| v as usize)
                        .collect();
                    assert_eq!(got, compose(2 * t));
                }
                t *= 2;
            }
        }
        check::<4>();
        check::<8>();
        check::<16>();
        check::<32>();
    }

    /// The reduction schedules per plan: the inverse's `lazy::HALF` exactly where its bound
    /// `4 V q <= 2^VALUE_BITS` holds (IFMA up to 49-bit primes, the 64-bit AVX-512 backend up
    /// to 60-bit ones) and the transform is larger than one register block of the inverse (16
    /// vectors on both); the forward's `lazy::SLOTH` on the same primes. The outputs are the
    /// same under every schedule, so only this test sees a plan that falls back to the standard
    /// one.
    #[test]
    fn schedules_follow_the_headroom() {
        use crate::arith::{Modulus, Modulus64};
        use crate::ntt::simd::{lazy, Simd, SimdTables};
        /// (forward, inverse) schedule of a plan of size `n` for the largest prime of `bits`.
        fn schedules<S: Simd<W = u64>>(s: S, n: usize, bits: u32) -> (u8, u8) {
            let q = crate::primes::ntt_primes(bits, n, 1).unwrap()[0];
            let m = Modulus64::new(q).unwrap();
            let ones = vec![1u64; n];
            let tb = SimdTables::new(s, &m, &ones, &ones);
            (tb.lazy_fwd, tb.lazy_inv)
        }
        let mut ran = 0;
        if let Some(s) = IfmaU64::try_new() {
            assert_eq!(schedules(s, 8192, 49), (lazy::SLOTH, lazy::HALF));
            assert_eq!(schedules(s, 256, 49), (lazy::SLOTH, lazy::HALF));
            assert_eq!(schedules(s, 128, 49).1, lazy::STD, "one register block");
            assert_eq!(schedules(s, 8192, 50), (lazy::STD, lazy::STD));
            ran += 1;
        }
        if let Some(s) = Avx512U64::try_new() {
            assert_eq!(schedules(s, 8192, 60), (lazy::SLOTH, lazy::HALF));
            assert_eq!(schedules(s, 256, 60).1, lazy::HALF);
            assert_eq!(schedules(s, 128, 60).1, lazy::WIDE, "one register block");
            assert_eq!(schedules(s, 64, 60).1, lazy::WIDE, "half a register block");
            assert_eq!(schedules(s, 8192, 61), (lazy::WIDE, lazy::WIDE));
            assert_eq!(schedules(s, 8192, 62), (lazy::STD, lazy::STD));
            ran += 1;
        }
        if let Some(s) = Avx2U64::try_new() {
            // The same headroom rules as the AVX-512 backend (products in [0, 4q) for any input).
            assert_eq!(schedules(s, 8192, 60), (lazy::SLOTH, lazy::HALF));
            assert_eq!(schedules(s, 8192, 49), (lazy::SLOTH, lazy::HALF));
            assert_eq!(schedules(s, 8192, 61), (lazy::WIDE, lazy::WIDE));
            assert_eq!(schedules(s, 8192, 62), (lazy::STD, lazy::STD));
            ran += 1;
        }
        if let Some(s) = Avx2F64::try_new() {
            // Values below 2^52: 8q fits for q <= 2^49 only.
            assert_eq!(schedules(s, 8192, 49), (lazy::SLOTH, lazy::HALF));
            assert_eq!(schedules(s, 8192, 50), (lazy::STD, lazy::STD));
            ran += 1;
        }
        println!("backends checked: {ran}");
    }
}
