//! ChaCha20 on many blocks at once: one block per 32-bit lane, one state word per register
//! (sixteen registers per set of blocks), the quarter rounds lane-wise, then a transposition
//! to block order.
//!
//! * [`Avx512`]: two sets of sixteen blocks in `zmm` registers, rotations by `vprold`; the
//!   16 x 16 transposition of a set is 32 unpacks (4 x 4 within each 128-bit lane, per group
//!   of four words) and 32 `vshufi32x4` (the 4 x 4 of 128-bit lanes).
//! * [`Avx2`]: eight blocks in `ymm` registers; rotations by 16 and 8 as one byte shuffle,
//!   by 12 and 7 as two shifts and an OR; two 8 x 8 transpositions (words 0..8 and 8..16).
//!
//! Data-independent: no branch, no memory index depends on the key or the keystream. A token
//! is only built by `try_new`, after the run-time CPU check its `unsafe` calls rely on.

#![allow(unsafe_code)]

use super::{counters, initial, rounds, Lanes, WORDS};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX-512F.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Avx512(());

impl Avx512 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx512f").then_some(Self(()))
    }

    /// Blocks `counter .. counter + 32` of `key`'s stream into `out`, in block order.
    pub(crate) fn blocks32(self, key: &[u32; 8], counter: u64, out: &mut [u32; WORDS]) {
        // SAFETY: the token exists only if the CPU runs AVX-512F.
        unsafe { blocks32_tf(self, key, counter, out) }
    }
}

impl Lanes for Avx512 {
    type V = __m512i;
    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_add_epi32(a, b) }
    }
    #[inline(always)]
    fn xor_rol<const R: i32>(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_rol_epi32::<R>(_mm512_xor_si512(a, b)) }
    }
}

/// Two sets of sixteen blocks side by side: each instruction of a round has its twin of the
/// other set next to it (the rounds are chains of two-cycle operations).
#[derive(Clone, Copy)]
struct Pair(Avx512);

impl Lanes for Pair {
    type V = [__m512i; 2];
    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        [self.0.add(a[0], b[0]), self.0.add(a[1], b[1])]
    }
    #[inline(always)]
    fn xor_rol<const R: i32>(self, a: Self::V, b: Self::V) -> Self::V {
        [
            self.0.xor_rol::<R>(a[0], b[0]),
            self.0.xor_rol::<R>(a[1], b[1]),
        ]
    }
}

#[target_feature(enable = "avx512f")]
fn blocks32_tf(t: Avx512, key: &[u32; 8], counter: u64, out: &mut [u32; WORDS]) {
    let s = initial(key, counter);
    let (lo, hi) = counters::<32>(counter);
    // SAFETY: AVX-512F is enabled on this function; loads read 64 bytes of 32-word arrays.
    let init: [[__m512i; 2]; 16] = unsafe {
        let mut init = [[_mm512_setzero_si512(); 2]; 16];
        for (v, &w) in init.iter_mut().zip(s.iter()) {
            *v = [_mm512_set1_epi32(w as i32); 2];
        }
        init[12] = [
            _mm512_loadu_si512(lo.as_ptr().cast()),
            _mm512_loadu_si512(lo[16..].as_ptr().cast()),
        ];
        init[13] = [
            _mm512_loadu_si512(hi.as_ptr().cast()),
            _mm512_loadu_si512(hi[16..].as_ptr().cast()),
        ];
        init
    };
    let x = rounds(Pair(t), &init);
    let (a, b) = out.split_at_mut(WORDS / 2);
    store16(
        t,
        &core::array::from_fn(|i| x[i][0]),
        a.try_into().expect("half"),
    );
    store16(
        t,
        &core::array::from_fn(|i| x[i][1]),
        b.try_into().expect("half"),
    );
}

// Two sets of sixteen blocks fill a refill.
const _: () = assert!(WORDS == 2 * 16 * 16);

/// Transposes sixteen state vectors (lane `j` of `x[i]`: word `i` of block `j`) to block
/// order into `out`.
#[inline(always)]
fn store16(_t: Avx512, x: &[__m512i; 16], out: &mut [u32; 256]) {
    // SAFETY: the token proves AVX-512F; every store writes 64 bytes inside `out` (16 words at
    // 16 j, j < 16, of 256).
    unsafe {
        // Step 1, per group g of four words: a 4 x 4 transposition inside each 128-bit lane.
        // u[k][g], 128-bit lane L, holds words 4g..4g+4 of block 4L + k.
        let mut u = [[_mm512_setzero_si512(); 4]; 4];
        for g in 0..4 {
            let [x0, x1, x2, x3] = [x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]];
            let t0 = _mm512_unpacklo_epi32(x0, x1);
            let t1 = _mm512_unpackhi_epi32(x0, x1);
            let t2 = _mm512_unpacklo_epi32(x2, x3);
            let t3 = _mm512_unpackhi_epi32(x2, x3);
            u[0][g] = _mm512_unpacklo_epi64(t0, t2);
            u[1][g] = _mm512_unpackhi_epi64(t0, t2);
            u[2][g] = _mm512_unpacklo_epi64(t1, t3);
            u[3][g] = _mm512_unpackhi_epi64(t1, t3);
        }
        // Step 2, per k: the 4 x 4 of 128-bit lanes of u[k][0..4]; block 4L + k is
        // (u[k][0].L, u[k][1].L, u[k][2].L, u[k][3].L).
        for (k, &[u0, u1, u2, u3]) in u.iter().enumerate() {
            let a = _mm512_shuffle_i32x4::<0x44>(u0, u1);
            let b = _mm512_shuffle_i32x4::<0xEE>(u0, u1);
            let c = _mm512_shuffle_i32x4::<0x44>(u2, u3);
            let d = _mm512_shuffle_i32x4::<0xEE>(u2, u3);
            let blocks = [
                _mm512_shuffle_i32x4::<0x88>(a, c),
                _mm512_shuffle_i32x4::<0xDD>(a, c),
                _mm512_shuffle_i32x4::<0x88>(b, d),
                _mm512_shuffle_i32x4::<0xDD>(b, d),
            ];
            for (l, v) in blocks.into_iter().enumerate() {
                let j = 4 * l + k;
                _mm512_storeu_si512(out[16 * j..16 * j + 16].as_mut_ptr().cast(), v);
            }
        }
    }
}

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Avx2(());

impl Avx2 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }

    /// Blocks `counter .. counter + 8` of `key`'s stream into `out`, in block order.
    pub(crate) fn blocks8(self, key: &[u32; 8], counter: u64, out: &mut [u32; 128]) {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { blocks8_tf(self, key, counter, out) }
    }
}

impl Lanes for Avx2 {
    type V = __m256i;
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_add_epi32(a, b) }
    }
    #[inline(always)]
    fn xor_rol<const R: i32>(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe {
            let x = _mm256_xor_si256(a, b);
            match R {
                // whole-byte rotations: one byte shuffle (within each 32-bit lane)
                16 => _mm256_shuffle_epi8(
                    x,
                    _mm256_setr_epi8(
                        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4,
                        5, 10, 11, 8, 9, 14, 15, 12, 13,
                    ),
                ),
                8 => _mm256_shuffle_epi8(
                    x,
                    _mm256_setr_epi8(
                        3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5,
                        6, 11, 8, 9, 10, 15, 12, 13, 14,
                    ),
                ),
                _ => _mm256_or_si256(
                    _mm256_sll_epi32(x, _mm_cvtsi32_si128(R)),
                    _mm256_srl_epi32(x, _mm_cvtsi32_si128(32 - R)),
                ),
            }
        }
    }
}

/// The 8 x 8 transposition of `x`: row `j` of the result holds lane `j` of `x[0..8]`.
#[inline(always)]
fn transpose8(_t: Avx2, x: &[__m256i; 8]) -> [__m256i; 8] {
    // SAFETY: the token proves AVX2; register-only.
    unsafe {
        let mut u = [[_mm256_setzero_si256(); 4]; 2];
        for g in 0..2 {
            let [x0, x1, x2, x3] = [x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]];
            let t0 = _mm256_unpacklo_epi32(x0, x1);
            let t1 = _mm256_unpackhi_epi32(x0, x1);
            let t2 = _mm256_unpacklo_epi32(x2, x3);
            let t3 = _mm256_unpackhi_epi32(x2, x3);
            // u[g][k], 128-bit lane L: words 4g..4g+4 of block 4L + k
            u[g] = [
                _mm256_unpacklo_epi64(t0, t2),
                _mm256_unpackhi_epi64(t0, t2),
                _mm256_unpacklo_epi64(t1, t3),
                _mm256_unpackhi_epi64(t1, t3),
            ];
        }
        let mut rows = [_mm256_setzero_si256(); 8];
        for k in 0..4 {
            rows[k] = _mm256_permute2x128_si256::<0x20>(u[0][k], u[1][k]);
            rows[4 + k] = _mm256_permute2x128_si256::<0x31>(u[0][k], u[1][k]);
        }
        rows
    }
}

#[target_feature(enable = "avx2")]
fn blocks8_tf(t: Avx2, key: &[u32; 8], counter: u64, out: &mut [u32; 128]) {
    let s = initial(key, counter);
    let (lo, hi) = counters::<8>(counter);
    // SAFETY: AVX2 is enabled on this function (the token proves it); every load reads 32
    // bytes of an 8-word array, every store writes 32 bytes inside `out` (8 words at 16 j and
    // 16 j + 8, j < 8, of 128).
    unsafe {
        let mut init = [_mm256_setzero_si256(); 16];
        for (v, &w) in init.iter_mut().zip(s.iter()) {
            *v = _mm256_set1_epi32(w as i32);
        }
        init[12] = _mm256_loadu_si256(lo.as_ptr().cast());
        init[13] = _mm256_loadu_si256(hi.as_ptr().cast());
        let x = rounds(t, &init);
        let first: [__m256i; 8] = core::array::from_fn(|i| x[i]);
        let second: [__m256i; 8] = core::array::from_fn(|i| x[8 + i]);
        for (half, rows) in [transpose8(t, &first), transpose8(t, &second)]
            .into_iter()
            .enumerate()
        {
            for (j, v) in rows.into_iter().enumerate() {
                let o = 16 * j + 8 * half;
                _mm256_storeu_si256(out[o..o + 8].as_mut_ptr().cast(), v);
            }
        }
    }
}
