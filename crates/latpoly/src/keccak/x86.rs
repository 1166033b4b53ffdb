//! AVX-512 (F + VL) Keccak-f\[1600\]: one 64-bit lane of the state per `xmm` register, θ as
//! two-source `vpxor`, the `a ^ (!b & c)` of χ as a single `vpternlogq`, the rotations of ρ as
//! `vprolq`. About 105 vector instructions per round (against some 130 scalar ones, with spills,
//! for the portable code): the permutation the KEMs' hashes spend most of their time in.
//!
//! Order matters more than count. On Zen 4 `vprolq` issues two a cycle (latency 2) where
//! `vpxor` and `vpternlogq` issue nearly four (latency 1), so the 29 rotations of a round
//! occupy two pipes for 14.5 cycles. A round written in source order (θ, then all 24 rotations
//! of ρ, then all of χ) left the logic pipes idle during ρ: 262 ns a permutation, ~40 cycles a
//! round. Here each output row is computed in turn, its five rotations and then its five χ
//! instructions, so χ of one row runs beside the rotations of the next, and the next round's
//! column parities are folded in as the rows come out: 210 ns (Zen 4, 3.66 GHz; the AVX2 pair
//! of permutations 418 -> ~375 ns). On Zen 5 the source-ordered round took
//! ~243 ns; there, θ folded into 60 ternary XORs ran 5% slower than two-source XORs (LLVM now
//! forms the ternary XORs of the column parities itself).
//!
//! Also [`Bmi`], the scalar permutation for CPUs without AVX-512VL: the portable code compiled
//! with BMI1/BMI2.
//!
//! Data-independent: no branch, no memory index depends on the state. An [`Avx512Vl`] (or
//! [`Bmi`]) token can only be built by `try_new`, which checks the CPU at run time; holding one
//! is the proof the `unsafe` calls below rely on.

#![allow(unsafe_code)]

use core::arch::x86_64::*;

/// Proof that the CPU runs AVX-512F and AVX-512VL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Vl(());

impl Avx512Vl {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl"))
            .then_some(Self(()))
    }

    /// Keccak-f\[1600\] on `state` (lane `x + 5 y` in `state[x + 5 y]`).
    #[inline]
    pub(crate) fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: the token exists only if the CPU runs AVX-512F and AVX-512VL.
        unsafe { f1600_tf(self, state) }
    }

    /// Keccak-f\[1600\] on two independent states at once (one per 64-bit half of each register:
    /// the time of one permutation).
    #[inline]
    pub(crate) fn f1600x2(self, a: &mut [u64; 25], b: &mut [u64; 25]) {
        // SAFETY: the token exists only if the CPU runs AVX-512F and AVX-512VL.
        unsafe { f1600x2_tf(self, a, b) }
    }
}

/// Proof that the CPU runs BMI1 and BMI2: the portable permutation (the `keccak` crate's
/// generic `keccak_p`) compiled with `rorx` for the rotations of ρ and θ and `andn` for χ,
/// non-destructive one-instruction forms where the baseline x86-64 code spends moves (Zen 4
/// host: 297 ns a permutation against 333 ns). The permutation of CPUs without AVX-512VL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bmi(());

impl Bmi {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("bmi1") && is_x86_feature_detected!("bmi2")).then_some(Self(()))
    }

    /// Keccak-f\[1600\] on `state` (the `keccak` crate's lane order).
    #[inline]
    pub(crate) fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: the token exists only if the CPU runs BMI1 and BMI2.
        unsafe { f1600_bmi(state) }
    }
}

/// The `keccak` crate's permutation, instantiated (it is generic) and inlined here with BMI1
/// and BMI2 enabled.
#[target_feature(enable = "bmi1,bmi2")]
fn f1600_bmi(state: &mut [u64; 25]) {
    keccak::keccak_p(state, 24);
}

/// The 24 round constants of ι.
const RC: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808a,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808b,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008a,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000a,
    0x0000_0000_8000_808b,
    0x8000_0000_0000_008b,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800a,
    0x8000_0000_8000_000a,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// The vector operations of a round, on `xmm` registers holding one lane of one or two states
/// (one per 64-bit half). Implemented by the backend tokens; every method is
/// `#[inline(always)]` and compiled inside that backend's `#[target_feature]` entry points.
trait Ops: Copy {
    /// `a ^ b`.
    fn xor(self, a: __m128i, b: __m128i) -> __m128i;
    /// `a ^ (!b & c)`.
    fn chi(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i;
    /// Rotation left by `R` (`0 <= R < 64`).
    fn rol<const R: i32>(self, a: __m128i) -> __m128i;
}

impl Ops for Avx512Vl {
    #[inline(always)]
    fn xor(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: the token proves AVX-512F/VL (SSE2 implied).
        unsafe { _mm_xor_si128(a, b) }
    }
    #[inline(always)]
    fn chi(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: the token proves AVX-512F/VL.
        unsafe { _mm_ternarylogic_epi64::<0xd2>(a, b, c) }
    }
    #[inline(always)]
    fn rol<const R: i32>(self, a: __m128i) -> __m128i {
        // SAFETY: the token proves AVX-512F/VL.
        unsafe { _mm_rol_epi64::<R>(a) }
    }
}

/// Proof that the CPU runs AVX2: the paired permutation ([`Avx2::f1600x2`]) for CPUs without
/// AVX-512VL, two states in the two halves of `xmm` registers, ρ's rotations as two shifts and
/// an OR (a byte shuffle for 8 and 56), χ as `vpandn` + `vpxor`: about 190 instructions a
/// round for both states, where the scalar permutation ([`Bmi`]) spends ~130 on one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }

    /// Keccak-f\[1600\] on two independent states at once.
    #[inline]
    pub(crate) fn f1600x2(self, a: &mut [u64; 25], b: &mut [u64; 25]) {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { f1600x2_avx2(self, a, b) }
    }
}

/// `x >> (64 - R)` lane-wise, `R` a literal in each arm (a const generic cannot be computed
/// from another one).
macro_rules! srl_complement {
    ($x:expr, $r:expr, $($k:literal)*) => {
        match $r {
            $($k => _mm_srli_epi64::<{ 64 - $k }>($x),)*
            _ => unreachable!("rotation amounts are 1..63"),
        }
    };
}

impl Ops for Avx2 {
    #[inline(always)]
    fn xor(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: the token proves AVX2 (SSE2 implied).
        unsafe { _mm_xor_si128(a, b) }
    }
    #[inline(always)]
    fn chi(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm_xor_si128(a, _mm_andnot_si128(b, c)) }
    }
    #[inline(always)]
    fn rol<const R: i32>(self, a: __m128i) -> __m128i {
        // SAFETY: the token proves AVX2 (SSSE3 implied for the byte shuffles).
        unsafe {
            match R {
                0 => a,
                8 => _mm_shuffle_epi8(
                    a,
                    _mm_set_epi8(14, 13, 12, 11, 10, 9, 8, 15, 6, 5, 4, 3, 2, 1, 0, 7),
                ),
                56 => _mm_shuffle_epi8(
                    a,
                    _mm_set_epi8(8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1),
                ),
                _ => _mm_or_si128(
                    _mm_slli_epi64::<R>(a),
                    srl_complement!(a, R, 1 2 3 6 10 14 15 18 20 21 25 27 28 36 39 41 43 44 45 55 61 62),
                ),
            }
        }
    }
}

/// The 24 rounds on a state held one lane per register (each register may carry two
/// independent states, one per 64-bit half). Inlined into the `#[target_feature]` entry points.
#[inline(always)]
fn rounds<T: Ops>(t: T, s: &mut [__m128i; 25]) {
    // The column parities of θ, C[x] = A[x, 0] ^ .. ^ A[x, 4]; each round leaves those of
    // its output.
    let mut c = [s[0]; 5];
    for (x, cx) in c.iter_mut().enumerate() {
        *cx = t.xor(
            t.xor(s[x], s[x + 5]),
            t.xor(t.xor(s[x + 10], s[x + 15]), s[x + 20]),
        );
    }
    for &rc in RC.iter() {
        round(t, s, &mut c, rc);
    }
}

/// One round, constant `rc` for ι; `c` holds the column parities of `s` on entry and of the
/// new state on return.
#[inline(always)]
fn round<T: Ops>(t: T, s: &mut [__m128i; 25], c: &mut [__m128i; 5], rc: u64) {
    // θ: D[x] = C[x - 1] ^ rot(C[x + 1], 1) once per column.
    let d = [
        t.xor(c[4], t.rol::<1>(c[1])),
        t.xor(c[0], t.rol::<1>(c[2])),
        t.xor(c[1], t.rol::<1>(c[3])),
        t.xor(c[2], t.rol::<1>(c[4])),
        t.xor(c[3], t.rol::<1>(c[0])),
    ];
    // θ's `A ^= D`, ρ and π, then χ, one output row at a time: B[y, 2x + 3y] =
    // rot(A[x, y] ^ D[x], r[x, y]), and row `y` of the new state is
    // B[x, y] ^ (!B[x + 1, y] & B[x + 2, y]) (one ternary-logic instruction). Grouping the
    // rotations by the row they feed lets χ of a row start while the rotations of the next
    // rows are still running (the rotations have half the throughput of the logic
    // instructions here, and a source-ordered ρ left the logic units idle). The next round's
    // column parities are folded in as the rows come out (rows 0-2, then 3-4), so they too
    // overlap the rotations instead of waiting for the whole state.
    let mut n = [s[0]; 25];
    macro_rules! row {
        ($y:literal: $(($src:literal, $r:literal)),*) => {{
            let b = [$(t.rol::<$r>(t.xor(s[$src], d[$src % 5]))),*];
            n[5 * $y] = t.chi(b[0], b[1], b[2]);
            n[5 * $y + 1] = t.chi(b[1], b[2], b[3]);
            n[5 * $y + 2] = t.chi(b[2], b[3], b[4]);
            n[5 * $y + 3] = t.chi(b[3], b[4], b[0]);
            n[5 * $y + 4] = t.chi(b[4], b[0], b[1]);
        }};
    }
    row!(0: (0, 0), (6, 44), (12, 43), (18, 21), (24, 14));
    // ι.
    n[0] = t.xor(n[0], splat(rc));
    row!(1: (3, 28), (9, 20), (10, 3), (16, 45), (22, 61));
    row!(2: (1, 1), (7, 6), (13, 25), (19, 8), (20, 18));
    for (x, cx) in c.iter_mut().enumerate() {
        *cx = t.xor(t.xor(n[x], n[x + 5]), n[x + 10]);
    }
    row!(3: (4, 27), (5, 36), (11, 10), (17, 15), (23, 56));
    row!(4: (2, 62), (8, 55), (14, 39), (15, 41), (21, 2));
    for (x, cx) in c.iter_mut().enumerate() {
        *cx = t.xor(*cx, t.xor(n[x + 15], n[x + 20]));
    }
    *s = n;
}

/// `(rc, rc)`.
#[inline(always)]
fn splat(rc: u64) -> __m128i {
    // SAFETY: SSE2, part of x86-64.
    unsafe { _mm_set1_epi64x(rc as i64) }
}

#[target_feature(enable = "avx512f,avx512vl")]
fn f1600_tf(t: Avx512Vl, state: &mut [u64; 25]) {
    let mut s = [_mm_setzero_si128(); 25];
    for (v, &x) in s.iter_mut().zip(state.iter()) {
        *v = _mm_cvtsi64_si128(x as i64);
    }
    rounds(t, &mut s);
    for (x, v) in state.iter_mut().zip(s.iter()) {
        *x = _mm_cvtsi128_si64(*v) as u64;
    }
}

#[target_feature(enable = "avx512f,avx512vl")]
fn f1600x2_tf(t: Avx512Vl, a: &mut [u64; 25], b: &mut [u64; 25]) {
    f1600x2_body(t, a, b);
}

#[target_feature(enable = "avx2")]
fn f1600x2_avx2(t: Avx2, a: &mut [u64; 25], b: &mut [u64; 25]) {
    f1600x2_body(t, a, b);
}

/// Two states, one per 64-bit half of the registers.
#[inline(always)]
fn f1600x2_body<T: Ops>(t: T, a: &mut [u64; 25], b: &mut [u64; 25]) {
    // SAFETY: inlined only into the entry points above, whose features (AVX2 or AVX-512F/VL)
    // imply the SSE4.1 of `_mm_extract_epi64`; the others are SSE2.
    unsafe {
        let mut s = [_mm_setzero_si128(); 25];
        for ((v, &x), &y) in s.iter_mut().zip(a.iter()).zip(b.iter()) {
            *v = _mm_set_epi64x(y as i64, x as i64);
        }
        rounds(t, &mut s);
        for ((x, y), v) in a.iter_mut().zip(b.iter_mut()).zip(s.iter()) {
            *x = _mm_cvtsi128_si64(*v) as u64;
            *y = _mm_extract_epi64::<1>(*v) as u64;
        }
    }
}
