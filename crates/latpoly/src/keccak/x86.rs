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
        unsafe { f1600_tf(state) }
    }

    /// Keccak-f[1600] on two independent states at once (one per 64-bit half of each register:
    /// the time of one permutation).
    #[inline]
    pub(crate) fn f1600x2(self, a: &mut [u64; 25], b: &mut [u64; 25]) {
        // SAFETY: the token exists only if the CPU runs AVX-512F and AVX-512VL.
        unsafe { f1600x2_tf(a, b) }
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

/// `a ^ b`. Caller holds an AVX-512F/VL token.
#[inline(always)]
fn xor(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: only called from the entry points below, compiled with AVX-512F/VL.
    unsafe { _mm_xor_si128(a, b) }
}

/// `a ^ (!b & c)`. Caller holds an AVX-512F/VL token.
#[inline(always)]
fn chi(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
    // SAFETY: only called from the entry points below, compiled with AVX-512F/VL.
    unsafe { _mm_ternarylogic_epi64::<0xd2>(a, b, c) }
}

/// Rotation left by `R`. Caller holds an AVX-512F/VL token.
#[inline(always)]
fn rol<const R: i32>(a: __m128i) -> __m128i {
    // SAFETY: only called from the entry points below, compiled with AVX-512F/VL.
    unsafe { _mm_rol_epi64::<R>(a) }
}

/// The 24 rounds on a state held one lane per register (each register may carry two
/// independent states, one per 64-bit half). Inlined into the `#[target_feature]` entry points.
#[inline(always)]
fn rounds(s: &mut [__m128i; 25]) {
    for &rc in RC.iter() {
        // θ with two-source XORs: C[x], then D[x] = C[x - 1] ^ rot(C[x + 1], 1) once per
        // column, then A ^= D. (On Zen 5 this runs ~5% faster than folding θ into three-input
        // ternary XORs, which have fewer instructions but less throughput than `vpxor`.)
        let c0 = xor(xor(s[0], s[5]), xor(xor(s[10], s[15]), s[20]));
        let c1 = xor(xor(s[1], s[6]), xor(xor(s[11], s[16]), s[21]));
        let c2 = xor(xor(s[2], s[7]), xor(xor(s[12], s[17]), s[22]));
        let c3 = xor(xor(s[3], s[8]), xor(xor(s[13], s[18]), s[23]));
        let c4 = xor(xor(s[4], s[9]), xor(xor(s[14], s[19]), s[24]));
        let d0 = xor(c4, rol::<1>(c1));
        let d1 = xor(c0, rol::<1>(c2));
        let d2 = xor(c1, rol::<1>(c3));
        let d3 = xor(c2, rol::<1>(c4));
        let d4 = xor(c3, rol::<1>(c0));
        s[0] = xor(s[0], d0);
        s[1] = xor(s[1], d1);
        s[2] = xor(s[2], d2);
        s[3] = xor(s[3], d3);
        s[4] = xor(s[4], d4);
        s[5] = xor(s[5], d0);
        s[6] = xor(s[6], d1);
        s[7] = xor(s[7], d2);
        s[8] = xor(s[8], d3);
        s[9] = xor(s[9], d4);
        s[10] = xor(s[10], d0);
        s[11] = xor(s[11], d1);
        s[12] = xor(s[12], d2);
        s[13] = xor(s[13], d3);
        s[14] = xor(s[14], d4);
        s[15] = xor(s[15], d0);
        s[16] = xor(s[16], d1);
        s[17] = xor(s[17], d2);
        s[18] = xor(s[18], d3);
        s[19] = xor(s[19], d4);
        s[20] = xor(s[20], d0);
        s[21] = xor(s[21], d1);
        s[22] = xor(s[22], d2);
        s[23] = xor(s[23], d3);
        s[24] = xor(s[24], d4);
        // ρ and π: B[y, 2x + 3y] = rot(A[x, y], r[x, y]).
        let b0 = s[0];
        let b16 = rol::<36>(s[5]);
        let b7 = rol::<3>(s[10]);
        let b23 = rol::<41>(s[15]);
        let b14 = rol::<18>(s[20]);
        let b10 = rol::<1>(s[1]);
        let b1 = rol::<44>(s[6]);
        let b17 = rol::<10>(s[11]);
        let b8 = rol::<45>(s[16]);
        let b24 = rol::<2>(s[21]);
        let b20 = rol::<62>(s[2]);
        let b11 = rol::<6>(s[7]);
        let b2 = rol::<43>(s[12]);
        let b18 = rol::<15>(s[17]);
        let b9 = rol::<61>(s[22]);
        let b5 = rol::<28>(s[3]);
        let b21 = rol::<55>(s[8]);
        let b12 = rol::<25>(s[13]);
        let b3 = rol::<21>(s[18]);
        let b19 = rol::<56>(s[23]);
        let b15 = rol::<27>(s[4]);
        let b6 = rol::<20>(s[9]);
        let b22 = rol::<39>(s[14]);
        let b13 = rol::<8>(s[19]);
        let b4 = rol::<14>(s[24]);
        // χ: A[x, y] = B[x, y] ^ (!B[x + 1, y] & B[x + 2, y]), one ternary-logic instruction.
        s[0] = chi(b0, b1, b2);
        s[1] = chi(b1, b2, b3);
        s[2] = chi(b2, b3, b4);
        s[3] = chi(b3, b4, b0);
        s[4] = chi(b4, b0, b1);
        s[5] = chi(b5, b6, b7);
        s[6] = chi(b6, b7, b8);
        s[7] = chi(b7, b8, b9);
        s[8] = chi(b8, b9, b5);
        s[9] = chi(b9, b5, b6);
        s[10] = chi(b10, b11, b12);
        s[11] = chi(b11, b12, b13);
        s[12] = chi(b12, b13, b14);
        s[13] = chi(b13, b14, b10);
        s[14] = chi(b14, b10, b11);
        s[15] = chi(b15, b16, b17);
        s[16] = chi(b16, b17, b18);
        s[17] = chi(b17, b18, b19);
        s[18] = chi(b18, b19, b15);
        s[19] = chi(b19, b15, b16);
        s[20] = chi(b20, b21, b22);
        s[21] = chi(b21, b22, b23);
        s[22] = chi(b22, b23, b24);
        s[23] = chi(b23, b24, b20);
        s[24] = chi(b24, b20, b21);
        // ι.
        s[0] = xor1(s[0], rc);
    }
}

/// `a ^ (rc, rc)`. Caller holds an AVX-512F/VL token.
#[inline(always)]
fn xor1(a: __m128i, rc: u64) -> __m128i {
    // SAFETY: only called from the entry points below, compiled with AVX-512F/VL.
    unsafe { _mm_xor_si128(a, _mm_set1_epi64x(rc as i64)) }
}

#[target_feature(enable = "avx512f,avx512vl")]
fn f1600_tf(state: &mut [u64; 25]) {
    let mut s = [_mm_setzero_si128(); 25];
    for (v, &x) in s.iter_mut().zip(state.iter()) {
        *v = _mm_cvtsi64_si128(x as i64);
    }
    rounds(&mut s);
    for (x, v) in state.iter_mut().zip(s.iter()) {
        *x = _mm_cvtsi128_si64(*v) as u64;
    }
}

#[target_feature(enable = "avx512f,avx512vl")]
fn f1600x2_tf(a: &mut [u64; 25], b: &mut [u64; 25]) {
    let mut s = [_mm_setzero_si128(); 25];
    for ((v, &x), &y) in s.iter_mut().zip(a.iter()).zip(b.iter()) {
        *v = _mm_set_epi64x(y as i64, x as i64);
    }
    rounds(&mut s);
    for ((x, y), v) in a.iter_mut().zip(b.iter_mut()).zip(s.iter()) {
        *x = _mm_cvtsi128_si64(*v) as u64;
        *y = _mm_extract_epi64::<1>(*v) as u64;
    }
}
