//! AVX-512 (F + VL) Keccak-f[1600]: one 64-bit lane of the state per `xmm` register, θ as
//! two-source `vpxor`, the `a ^ (!b & c)` of χ as a single `vpternlogq`, the rotations of ρ as
//! `vprolq`. About 105 vector instructions per round (against some 130 scalar ones, with spills,
//! for the portable code): the permutation the KEMs' hashes spend most of their time in.
//!
//! Measured on Zen 5 (this VM, 3.67 GHz): ~243 ns per permutation, ~37 cycles a round. The
//! instruction mix bounds it, not latency (the dependency chain of a round is ~8 cycles): three-
//! input `vpternlogq` sustain fewer per cycle than the four `vpxor` when their sources are
//! distinct, freshly written registers, so θ folded into 60 ternary XORs (90 instructions a
//! round) ran 5% slower (257 ns) than this form, and an all-two-source round (130
//! instructions) 3% slower.
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

    /// Keccak-f[1600] on `state` (lane `x + 5 y` in `state[x + 5 y]`).
    #[inline]
    pub(crate) fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: the token exists only if the CPU runs AVX-512F and AVX-512VL.
        unsafe { f1600_tf(self, state) }
    }

    /// Keccak-f[1600] on two independent states at once (one per 64-bit half of each register:
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

    /// Keccak-f[1600] on `state` (the `keccak` crate's lane order).
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
    /// Rotation left by `R` (`0 < R < 64`).
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

    /// Keccak-f[1600] on two independent states at once.
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
    for &rc in RC.iter() {
        // θ with two-source XORs: C[x], then D[x] = C[x - 1] ^ rot(C[x + 1], 1) once per
        // column, then A ^= D. (On Zen 5 this runs ~5% faster than folding θ into three-input
        // ternary XORs, which have fewer instructions but less throughput than `vpxor`.)
        let c0 = t.xor(t.xor(s[0], s[5]), t.xor(t.xor(s[10], s[15]), s[20]));
        let c1 = t.xor(t.xor(s[1], s[6]), t.xor(t.xor(s[11], s[16]), s[21]));
        let c2 = t.xor(t.xor(s[2], s[7]), t.xor(t.xor(s[12], s[17]), s[22]));
        let c3 = t.xor(t.xor(s[3], s[8]), t.xor(t.xor(s[13], s[18]), s[23]));
        let c4 = t.xor(t.xor(s[4], s[9]), t.xor(t.xor(s[14], s[19]), s[24]));
        let d0 = t.xor(c4, t.rol::<1>(c1));
        let d1 = t.xor(c0, t.rol::<1>(c2));
        let d2 = t.xor(c1, t.rol::<1>(c3));
        let d3 = t.xor(c2, t.rol::<1>(c4));
        let d4 = t.xor(c3, t.rol::<1>(c0));
        s[0] = t.xor(s[0], d0);
        s[1] = t.xor(s[1], d1);
        s[2] = t.xor(s[2], d2);
        s[3] = t.xor(s[3], d3);
        s[4] = t.xor(s[4], d4);
        s[5] = t.xor(s[5], d0);
        s[6] = t.xor(s[6], d1);
        s[7] = t.xor(s[7], d2);
        s[8] = t.xor(s[8], d3);
        s[9] = t.xor(s[9], d4);
        s[10] = t.xor(s[10], d0);
        s[11] = t.xor(s[11], d1);
        s[12] = t.xor(s[12], d2);
        s[13] = t.xor(s[13], d3);
        s[14] = t.xor(s[14], d4);
        s[15] = t.xor(s[15], d0);
        s[16] = t.xor(s[16], d1);
        s[17] = t.xor(s[17], d2);
        s[18] = t.xor(s[18], d3);
        s[19] = t.xor(s[19], d4);
        s[20] = t.xor(s[20], d0);
        s[21] = t.xor(s[21], d1);
        s[22] = t.xor(s[22], d2);
        s[23] = t.xor(s[23], d3);
        s[24] = t.xor(s[24], d4);
        // ρ and π: B[y, 2x + 3y] = rot(A[x, y], r[x, y]).
        let b0 = s[0];
        let b16 = t.rol::<36>(s[5]);
        let b7 = t.rol::<3>(s[10]);
        let b23 = t.rol::<41>(s[15]);
        let b14 = t.rol::<18>(s[20]);
        let b10 = t.rol::<1>(s[1]);
        let b1 = t.rol::<44>(s[6]);
        let b17 = t.rol::<10>(s[11]);
        let b8 = t.rol::<45>(s[16]);
        let b24 = t.rol::<2>(s[21]);
        let b20 = t.rol::<62>(s[2]);
        let b11 = t.rol::<6>(s[7]);
        let b2 = t.rol::<43>(s[12]);
        let b18 = t.rol::<15>(s[17]);
        let b9 = t.rol::<61>(s[22]);
        let b5 = t.rol::<28>(s[3]);
        let b21 = t.rol::<55>(s[8]);
        let b12 = t.rol::<25>(s[13]);
        let b3 = t.rol::<21>(s[18]);
        let b19 = t.rol::<56>(s[23]);
        let b15 = t.rol::<27>(s[4]);
        let b6 = t.rol::<20>(s[9]);
        let b22 = t.rol::<39>(s[14]);
        let b13 = t.rol::<8>(s[19]);
        let b4 = t.rol::<14>(s[24]);
        // χ: A[x, y] = B[x, y] ^ (!B[x + 1, y] & B[x + 2, y]), one ternary-logic instruction.
        s[0] = t.chi(b0, b1, b2);
        s[1] = t.chi(b1, b2, b3);
        s[2] = t.chi(b2, b3, b4);
        s[3] = t.chi(b3, b4, b0);
        s[4] = t.chi(b4, b0, b1);
        s[5] = t.chi(b5, b6, b7);
        s[6] = t.chi(b6, b7, b8);
        s[7] = t.chi(b7, b8, b9);
        s[8] = t.chi(b8, b9, b5);
        s[9] = t.chi(b9, b5, b6);
        s[10] = t.chi(b10, b11, b12);
        s[11] = t.chi(b11, b12, b13);
        s[12] = t.chi(b12, b13, b14);
        s[13] = t.chi(b13, b14, b10);
        s[14] = t.chi(b14, b10, b11);
        s[15] = t.chi(b15, b16, b17);
        s[16] = t.chi(b16, b17, b18);
        s[17] = t.chi(b17, b18, b19);
        s[18] = t.chi(b18, b19, b15);
        s[19] = t.chi(b19, b15, b16);
        s[20] = t.chi(b20, b21, b22);
        s[21] = t.chi(b21, b22, b23);
        s[22] = t.chi(b22, b23, b24);
        s[23] = t.chi(b23, b24, b20);
        s[24] = t.chi(b24, b20, b21);
        // ι.
        s[0] = t.xor(s[0], splat(rc));
    }
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
