//! AVX-512BW packing of NTRU polynomials: the SIMD twins of `reference.rs`'s
//! `poly_Sq_tobytes` / `poly_Sq_frombytes` (`log q`-bit fields) and `poly_S3_tobytes` /
//! `poly_S3_frombytes` (five base-3 digits per byte), byte for byte the same output; and AVX2
//! twins of the two unpackers (see "AVX2" below).
//!
//! * `Sq` fields: eight fields fill `log q` bytes exactly (a *group*). Unpacking loads one group
//!   into each 128-bit lane; two in-lane byte shuffles put, in every 16-bit lane, the two bytes
//!   at the field's first byte and the two after it, and per-lane shifts (`vpsrlvw`,
//!   `vpsllvw`) cut the field out. Packing gathers, for every output byte, the field it starts
//!   in and the next one (`vpermw`), shifts them into place and truncates the 16-bit lanes to
//!   bytes.
//! * `S3` digits: 32 bytes are 160 coefficients. Unpacking widens the bytes to 16-bit lanes,
//!   gives every coefficient lane its byte (`vpermw`), divides by `3^j` with the reference's own
//!   multiply-shift constants and reduces mod 3. Packing gathers the five digit positions of 32
//!   bytes from five vectors (two `vpermt2w` and one `vpermw` with blends) and sums
//!   `a0 + 3 a1 + 9 a2 + 27 a3 + 81 a4` in wrapping 16-bit arithmetic, which equals the
//!   reference's Horner steps mod 256.
//!
//! AVX2 has neither per-lane 16-bit shifts nor a 16-bit lane permutation, so its unpackers
//! shift by multiplying:
//! * `Sq`: one group per 128-bit lane as above; a field that starts on a byte boundary takes its
//!   window one byte earlier (a zero byte before the group's first), so every field sits at a
//!   bit offset `r` in `1..=8` of its window: `lo >> r` is `vpmulhuw` by `2^(16 - r)` and
//!   `hi << (8 - r)` is `vpmullw` by `2^(8 - r)`.
//! * `S3`: 16 bytes (80 coefficients, five vectors) are broadcast to both 128-bit lanes, so the
//!   in-lane `vpshufb` reaches every byte; digit `j` of byte `c` is `floor(c / 3^j)`, one
//!   `vpmulhuw` by `ceil(2^16 / 3^j)` (exact for every byte, checked in the tests), with the
//!   byte placed in the high half of the lane for `j = 0` (multiplier 256).
//!
//! Measured (n = 509, `LATPOLY_ISA=avx2`): see `docs/BENCH.md`, twentieth session.
//!
//! Tails (the last, partial block of a polynomial) go through small zero-padded buffers, so no
//! access leaves the caller's slices. Everything is branch-free in the data (secret keys are
//! unpacked here): the shuffles use constant indices.
//!
//! Measured (n = 509, best of 30 batches, same machine, before -> after): `S3` unpacking
//! 275-298 -> 31-39 ns, `S3` packing 129-149 -> 31-36 ns, `Sq` unpacking 221-228 -> 35-50 ns,
//! `Sq` packing 153-168 -> 57 ns; an NTRU decapsulation runs six of them.

#![allow(unsafe_code)]

use super::x86::{Avx2Lanes, Avx512Lanes};
use crate::arith::mulhi_x86::mulhi_epu16_256;
use core::arch::x86_64::*;

/// `vpshufb` indices and shift counts that cut the eight `LQ`-bit fields of a group (loaded at
/// the start of each 128-bit lane) into 16-bit lanes: `(lo, hi, right, left)`, where lane `j`
/// of a group gets `lo = bytes k, k+1`, `hi = bytes k+1, k+2` (`k = j LQ / 8`) and the field is
/// `(lo >> right) | (hi << left)` masked to `LQ` bits (`right = j LQ mod 8`, `left = 8 - right`).
const fn sq_from_consts<const LQ: usize>() -> ([i8; 64], [i8; 64], [i16; 32], [i16; 32]) {
    let mut lo = [0i8; 64];
    let mut hi = [0i8; 64];
    let mut right = [0i16; 32];
    let mut left = [0i16; 32];
    let mut g = 0;
    while g < 4 {
        let mut j = 0;
        while j < 8 {
            let k = j * LQ / 8;
            let s = (j * LQ % 8) as i16;
            lo[16 * g + 2 * j] = k as i8;
            lo[16 * g + 2 * j + 1] = (k + 1) as i8;
            hi[16 * g + 2 * j] = (k + 1) as i8;
            hi[16 * g + 2 * j + 1] = (k + 2) as i8;
            right[8 * g + j] = s;
            left[8 * g + j] = 8 - s;
            j += 1;
        }
        g += 1;
    }
    (lo, hi, right, left)
}

/// Lanes of the `Sq` packer for 16 fields (two groups, `2 LQ` output bytes in 16-bit lanes):
/// output byte `k` of group `g` holds bits `8k'..8k'+8` of the group (`k' = k mod LQ`), i.e.
/// `(field i >> s) | (field i+1 << (LQ - s))` with `i = 8k' / LQ`, `s = 8k' - i LQ`.
/// Returns `(field i index, field i+1 index, s, LQ - s)`; the second index is clamped to the
/// vector (its bits are then shifted out of the byte anyway).
const fn sq_to_consts<const LQ: usize>() -> ([i16; 32], [i16; 32], [i16; 32], [i16; 32]) {
    let mut ia = [0i16; 32];
    let mut ib = [0i16; 32];
    let mut sa = [0i16; 32];
    let mut sb = [0i16; 32];
    let mut k = 0;
    while k < 2 * LQ {
        let g = k / LQ;
        let kk = k % LQ;
        let i = 8 * kk / LQ;
        let s = 8 * kk - i * LQ;
        ia[k] = (8 * g + i) as i16;
        ib[k] = if 8 * g + i + 1 < 16 {
            (8 * g + i + 1) as i16
        } else {
            15
        };
        sa[k] = s as i16;
        sb[k] = (LQ - s) as i16;
        k += 1;
    }
    (ia, ib, sa, sb)
}

/// The reference's digit extraction `digit_j(c) = (c * MUL[j]) >> SHR[j]` (`floor(c / 3^j)`
/// for a byte `c`).
const S3_MUL: [i16; 5] = [1, 171, 57, 19, 203];
const S3_SHR: [i16; 5] = [0, 9, 9, 9, 14];

/// Per output vector `v` of a 160-coefficient block, lane `m` (coefficient `e = 32 v + m`):
/// the byte `e / 5`, and the multiplier and shift of digit `e mod 5`.
const fn s3_from_consts() -> [[[i16; 32]; 5]; 3] {
    let mut idx = [[0i16; 32]; 5];
    let mut mul = [[0i16; 32]; 5];
    let mut shr = [[0i16; 32]; 5];
    let mut v = 0;
    while v < 5 {
        let mut m = 0;
        while m < 32 {
            let e = 32 * v + m;
            idx[v][m] = (e / 5) as i16;
            mul[v][m] = S3_MUL[e % 5];
            shr[v][m] = S3_SHR[e % 5];
            m += 1;
        }
        v += 1;
    }
    [idx, mul, shr]
}

/// Per digit position `j`, lane `i` (byte `i` of a 32-byte block, coefficient `e = 5 i + j` of
/// the 160 in five vectors): the index `e mod 64` and the masks of the lanes whose `e` lies in
/// vectors 2-3 and in vector 4.
const fn s3_to_consts() -> ([[i16; 32]; 5], [u32; 5], [u32; 5]) {
    let mut idx = [[0i16; 32]; 5];
    let mut m23 = [0u32; 5];
    let mut m4 = [0u32; 5];
    let mut j = 0;
    while j < 5 {
        let mut i = 0;
        while i < 32 {
            let e = 5 * i + j;
            idx[j][i] = (e % 64) as i16;
            if e >= 64 && e < 128 {
                m23[j] |= 1 << i;
            }
            if e >= 128 {
                m4[j] |= 1 << i;
            }
            i += 1;
        }
        j += 1;
    }
    (idx, m23, m4)
}

const SQ_FROM_11: ([i8; 64], [i8; 64], [i16; 32], [i16; 32]) = sq_from_consts::<11>();
const SQ_FROM_12: ([i8; 64], [i8; 64], [i16; 32], [i16; 32]) = sq_from_consts::<12>();
const SQ_FROM_13: ([i8; 64], [i8; 64], [i16; 32], [i16; 32]) = sq_from_consts::<13>();
const SQ_TO_11: ([i16; 32], [i16; 32], [i16; 32], [i16; 32]) = sq_to_consts::<11>();
const SQ_TO_12: ([i16; 32], [i16; 32], [i16; 32], [i16; 32]) = sq_to_consts::<12>();
const SQ_TO_13: ([i16; 32], [i16; 32], [i16; 32], [i16; 32]) = sq_to_consts::<13>();
const S3_FROM: [[[i16; 32]; 5]; 3] = s3_from_consts();
const S3_TO: ([[i16; 32]; 5], [u32; 5], [u32; 5]) = s3_to_consts();

/// A `vpshufb` index: byte `i` of the 128-bit lane, or a zero byte for `i = -1`.
const fn byte_index(i: isize) -> i8 {
    if i < 0 {
        -128
    } else {
        i as i8
    }
}

/// AVX2 `Sq` unpacking, one group of eight `LQ`-bit fields per 128-bit lane: per 16-bit lane,
/// the `vpshufb` indices of its window `lo` (bytes `k, k+1` of the group) and `hi` (bytes
/// `k+1, k+2`), and the multipliers `2^(16 - r)` (`vpmulhuw`: `lo >> r`) and `2^(8 - r)`
/// (`vpmullw`: `hi << (8 - r)`), where the field starts at bit `r` of byte `k` and `r` is
/// taken in `1..=8` (a field on a byte boundary uses the byte before, index -1 = a zero byte).
const fn sq_from_consts_avx2<const LQ: usize>() -> ([i8; 32], [i8; 32], [u16; 16], [u16; 16]) {
    let mut lo = [0i8; 32];
    let mut hi = [0i8; 32];
    let mut shr = [0u16; 16];
    let mut shl = [0u16; 16];
    let mut half = 0;
    while half < 2 {
        let mut j = 0;
        while j < 8 {
            let s = j * LQ;
            // window start (may be -1) and the field's offset in it
            let (k, r) = if s.is_multiple_of(8) {
                (s as isize / 8 - 1, 8)
            } else {
                ((s / 8) as isize, s % 8)
            };
            lo[16 * half + 2 * j] = byte_index(k);
            lo[16 * half + 2 * j + 1] = byte_index(k + 1);
            hi[16 * half + 2 * j] = byte_index(k + 1);
            hi[16 * half + 2 * j + 1] = byte_index(k + 2);
            shr[8 * half + j] = (1u32 << (16 - r)) as u16;
            shl[8 * half + j] = 1 << (8 - r);
            j += 1;
        }
        half += 1;
    }
    (lo, hi, shr, shl)
}

/// `ceil(2^16 / 3^j)`: `vpmulhuw` by it is `floor(c / 3^j)` for every byte `c` (`j >= 1`).
const S3_DIV: [u16; 5] = [256, 21846, 7282, 2428, 810];

/// AVX2 `S3` unpacking: per output vector `v` of an 80-coefficient block (16 bytes broadcast to
/// both 128-bit lanes), lane `m` (coefficient `e = 16 v + m`, digit `e mod 5` of byte `e / 5`):
/// the `vpshufb` indices that put the byte in the low half of the lane (digit 0: the high half)
/// and the multiplier of [`S3_DIV`].
const fn s3_from_consts_avx2() -> ([[i8; 32]; 5], [[u16; 16]; 5]) {
    let mut idx = [[0i8; 32]; 5];
    let mut mul = [[0u16; 16]; 5];
    let mut v = 0;
    while v < 5 {
        let mut m = 0;
        while m < 16 {
            let e = 16 * v + m;
            let (b, j) = ((e / 5) as i8, e % 5);
            (idx[v][2 * m], idx[v][2 * m + 1]) = if j == 0 { (-128, b) } else { (b, -128) };
            mul[v][m] = S3_DIV[j];
            m += 1;
        }
        v += 1;
    }
    (idx, mul)
}

const SQ_FROM2_11: ([i8; 32], [i8; 32], [u16; 16], [u16; 16]) = sq_from_consts_avx2::<11>();
const SQ_FROM2_12: ([i8; 32], [i8; 32], [u16; 16], [u16; 16]) = sq_from_consts_avx2::<12>();
const SQ_FROM2_13: ([i8; 32], [i8; 32], [u16; 16], [u16; 16]) = sq_from_consts_avx2::<13>();
const S3_FROM2: ([[i8; 32]; 5], [[u16; 16]; 5]) = s3_from_consts_avx2();

/// 32 `i16` (64 bytes) as a vector. Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn load32(t: &[i16]) -> __m512i {
    let t = &t[..32];
    // SAFETY: caller guarantees AVX-512F; `t` is 64 readable bytes (unaligned load).
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// 32 `u16` (64 bytes) as a vector. Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn load32u(t: &[u16]) -> __m512i {
    let t = &t[..32];
    // SAFETY: caller guarantees AVX-512F; `t` is 64 readable bytes (unaligned load).
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// Stores the first `min(32, d.len())` lanes of `v` at the start of `d`. Caller holds an
/// AVX-512F token.
#[inline(always)]
unsafe fn store_u16s(d: &mut [u16], v: __m512i) {
    if d.len() >= 32 {
        // SAFETY: caller guarantees AVX-512F; `d` has 32 writable u16 (unaligned store).
        unsafe { _mm512_storeu_si512(d.as_mut_ptr().cast(), v) };
    } else {
        let mut t = [0u16; 32];
        // SAFETY: caller guarantees AVX-512F; `t` has 32 writable u16.
        unsafe { _mm512_storeu_si512(t.as_mut_ptr().cast(), v) };
        let m = d.len();
        d.copy_from_slice(&t[..m]);
    }
}

/// Stores the first `min(32 / size_of::<T>(), d.len())` elements held in the 32 bytes of `v`
/// at the start of `d`. Caller holds an AVX token.
#[inline(always)]
unsafe fn store_256<T: Copy + Default>(d: &mut [T], v: __m256i) {
    if core::mem::size_of_val(d) >= 32 {
        // SAFETY: caller guarantees AVX; `d` has at least 32 writable bytes (unaligned store).
        unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), v) };
    } else {
        let mut t = [T::default(); 32];
        // SAFETY: caller guarantees AVX; `t` has at least 32 writable bytes.
        unsafe { _mm256_storeu_si256(t.as_mut_ptr().cast(), v) };
        let m = d.len();
        d.copy_from_slice(&t[..m]);
    }
}

/// `bytes[off..off + span]` (`span <= 64`), or near the end of `bytes` the part that exists
/// followed by zeros, in `pad`: the unpackers' loads never leave the caller's slice.
#[inline(always)]
fn window<'a>(bytes: &'a [u8], off: usize, span: usize, pad: &'a mut [u8; 64]) -> &'a [u8] {
    if off + span <= bytes.len() {
        &bytes[off..off + span]
    } else {
        let m = bytes.len() - off;
        pad[..m].copy_from_slice(&bytes[off..]);
        pad[m..span].fill(0);
        &pad[..span]
    }
}

/// 16 bytes as a vector.
#[inline(always)]
fn load16(s: &[u8]) -> __m128i {
    let s = &s[..16];
    // SAFETY: `s` has 16 readable bytes (unaligned load); SSE2 is part of x86-64.
    unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
}

impl Avx512Lanes {
    /// `poly_Sq_frombytes` (`log_q` in 11..=13): `r[0..n-1]` from the fields, `r[n-1] = 0`.
    pub(crate) fn sq_frombytes(self, bytes: &[u8], r: &mut [u16], log_q: u32) {
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        unsafe {
            match log_q {
                11 => self.tf_sq_frombytes::<11>(bytes, r, &SQ_FROM_11),
                12 => self.tf_sq_frombytes::<12>(bytes, r, &SQ_FROM_12),
                _ => self.tf_sq_frombytes::<13>(bytes, r, &SQ_FROM_13),
            }
        }
    }

    /// `poly_Sq_tobytes` (`log_q` in 11..=13): fields of `a[0..n-1]`, each masked to `log_q`
    /// bits.
    pub(crate) fn sq_tobytes(self, a: &[u16], out: &mut [u8], log_q: u32) {
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        unsafe {
            match log_q {
                11 => self.tf_sq_tobytes::<11>(a, out, &SQ_TO_11),
                12 => self.tf_sq_tobytes::<12>(a, out, &SQ_TO_12),
                _ => self.tf_sq_tobytes::<13>(a, out, &SQ_TO_13),
            }
        }
    }

    /// `poly_S3_frombytes`: digits mod 3 (`poly_mod_3_Phi_n` with `r[n-1] = 0`), `r[n-1] = 0`.
    pub(crate) fn s3_frombytes(self, bytes: &[u8], r: &mut [u16]) {
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        unsafe { self.tf_s3_frombytes(bytes, r) }
    }

    /// `poly_S3_tobytes`.
    pub(crate) fn s3_tobytes(self, a: &[u16], out: &mut [u8]) {
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        unsafe { self.tf_s3_tobytes(a, out) }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_sq_frombytes<const LQ: usize>(
        self,
        bytes: &[u8],
        r: &mut [u16],
        c: &([i8; 64], [i8; 64], [i16; 32], [i16; 32]),
    ) {
        let n = r.len();
        let total = n - 1;
        // SAFETY: AVX-512F is enabled here; each table is 64 readable bytes.
        let (lo_i, hi_i, right, left) = unsafe {
            (
                _mm512_loadu_si512(c.0.as_ptr().cast()),
                _mm512_loadu_si512(c.1.as_ptr().cast()),
                load32(&c.2),
                load32(&c.3),
            )
        };
        let mask = _mm512_set1_epi16(((1u32 << LQ) - 1) as i16);
        // Block of 32 fields = four groups; group `g` is read as 16 bytes from `g LQ`.
        let span = 3 * LQ + 16;
        let mut pad = [0u8; 64];
        let mut k = 0;
        while k < total {
            let off = k / 8 * LQ;
            let src = window(bytes, off, span, &mut pad);
            let v = _mm512_castsi128_si512(load16(src));
            let v = _mm512_inserti32x4::<1>(v, load16(&src[LQ..]));
            let v = _mm512_inserti32x4::<2>(v, load16(&src[2 * LQ..]));
            let v = _mm512_inserti32x4::<3>(v, load16(&src[3 * LQ..]));
            let lo = _mm512_shuffle_epi8(v, lo_i);
            let hi = _mm512_shuffle_epi8(v, hi_i);
            let f = _mm512_and_si512(
                _mm512_or_si512(_mm512_srlv_epi16(lo, right), _mm512_sllv_epi16(hi, left)),
                mask,
            );
            // SAFETY: AVX-512F is enabled here.
            unsafe { store_u16s(&mut r[k..total], f) };
            k += 32;
        }
        r[total] = 0;
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_sq_tobytes<const LQ: usize>(
        self,
        a: &[u16],
        out: &mut [u8],
        c: &([i16; 32], [i16; 32], [i16; 32], [i16; 32]),
    ) {
        let total = a.len() - 1;
        // SAFETY: AVX-512F is enabled here; each table is 32 readable i16.
        let (ia, ib, sa, sb) = unsafe { (load32(&c.0), load32(&c.1), load32(&c.2), load32(&c.3)) };
        let mask = _mm256_set1_epi16(((1u32 << LQ) - 1) as i16);
        let mut k = 0;
        while k < total {
            let mut pad;
            let src: &[u16] = if k + 16 <= total {
                &a[k..k + 16]
            } else {
                pad = [0u16; 16];
                pad[..total - k].copy_from_slice(&a[k..total]);
                &pad
            };
            // SAFETY: `src` has 16 readable u16 (unaligned load).
            let f = unsafe { _mm256_loadu_si256(src.as_ptr().cast()) };
            let f = _mm512_castsi256_si512(_mm256_and_si256(f, mask));
            let x = _mm512_permutexvar_epi16(ia, f);
            let y = _mm512_permutexvar_epi16(ib, f);
            let b = _mm512_or_si512(_mm512_srlv_epi16(x, sa), _mm512_sllv_epi16(y, sb));
            let b = _mm512_cvtepi16_epi8(b);
            let o = k / 8 * LQ;
            // The 2 LQ bytes of these fields, then (while 32 bytes remain) garbage that the next
            // block, which exists then, overwrites.
            let end = if o + 32 <= out.len() {
                o + 32
            } else {
                (o + 2 * LQ).min(out.len())
            };
            // SAFETY: AVX-512F (so AVX) is enabled here.
            unsafe { store_256(&mut out[o..end], b) };
            k += 16;
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_s3_frombytes(self, bytes: &[u8], r: &mut [u16]) {
        let n = r.len();
        let deg = n - 1;
        let [idx, mul, shr] = &S3_FROM;
        let m171 = _mm512_set1_epi16(171);
        let mut pad = [0u8; 64];
        let mut k = 0;
        while k < deg {
            let b0 = k / 5;
            let src = window(bytes, b0, 32, &mut pad);
            // SAFETY: `src` has 32 readable bytes (unaligned load).
            let x = _mm512_cvtepu8_epi16(unsafe { _mm256_loadu_si256(src.as_ptr().cast()) });
            for v in 0..5 {
                let pos = k + 32 * v;
                if pos >= deg {
                    break;
                }
                // SAFETY: AVX-512F is enabled here; each table row is 32 readable i16.
                let (iv, mv, sv) = unsafe { (load32(&idx[v]), load32(&mul[v]), load32(&shr[v])) };
                let c = _mm512_permutexvar_epi16(iv, x);
                let d = _mm512_srlv_epi16(_mm512_mullo_epi16(c, mv), sv);
                // d mod 3 for d <= 255: floor(d / 3) = (171 d) >> 9.
                let q = _mm512_srli_epi16::<9>(_mm512_mullo_epi16(d, m171));
                let m = _mm512_sub_epi16(d, _mm512_add_epi16(q, _mm512_add_epi16(q, q)));
                // SAFETY: AVX-512F is enabled here.
                unsafe { store_u16s(&mut r[pos..deg], m) };
            }
            k += 160;
        }
        r[deg] = 0;
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_s3_tobytes(self, a: &[u16], out: &mut [u8]) {
        let deg = a.len() - 1;
        let (idx, m23, m4) = &S3_TO;
        let w = [1i16, 3, 9, 27, 81];
        let mut i = 0;
        while i < out.len() {
            let k = 5 * i;
            let mut pad;
            let src: &[u16] = if k + 160 <= deg {
                &a[k..k + 160]
            } else {
                pad = [0u16; 160];
                // coefficients from `deg` on do not enter any byte
                let m = deg.saturating_sub(k);
                pad[..m].copy_from_slice(&a[k..k + m]);
                &pad
            };
            // SAFETY: AVX-512F is enabled here; `src` has 160 readable u16.
            let (v0, v1, v2, v3, v4) = unsafe {
                (
                    load32u(src),
                    load32u(&src[32..]),
                    load32u(&src[64..]),
                    load32u(&src[96..]),
                    load32u(&src[128..]),
                )
            };
            let mut sum = _mm512_setzero_si512();
            for j in 0..5 {
                // SAFETY: AVX-512F is enabled here; `idx[j]` is 32 readable i16.
                let ix = unsafe { load32(&idx[j]) };
                let g = _mm512_permutex2var_epi16(v0, ix, v1);
                let g = _mm512_mask_blend_epi16(m23[j], g, _mm512_permutex2var_epi16(v2, ix, v3));
                let g = _mm512_mask_blend_epi16(m4[j], g, _mm512_permutexvar_epi16(ix, v4));
                sum = _mm512_add_epi16(sum, _mm512_mullo_epi16(g, _mm512_set1_epi16(w[j])));
            }
            let b = _mm512_cvtepi16_epi8(sum);
            // SAFETY: AVX-512F (so AVX) is enabled here.
            unsafe { store_256(&mut out[i..], b) };
            i += 32;
        }
    }
}

/// 32 bytes of a table as a vector. Caller holds an AVX token.
#[inline(always)]
unsafe fn load_i8x32(t: &[i8; 32]) -> __m256i {
    // SAFETY: caller guarantees AVX; `t` is 32 readable bytes (unaligned load).
    unsafe { _mm256_loadu_si256(t.as_ptr().cast()) }
}

/// 16 `u16` of a table as a vector. Caller holds an AVX token.
#[inline(always)]
unsafe fn load_u16x16(t: &[u16; 16]) -> __m256i {
    // SAFETY: caller guarantees AVX; `t` is 32 readable bytes (unaligned load).
    unsafe { _mm256_loadu_si256(t.as_ptr().cast()) }
}

impl Avx2Lanes {
    /// `poly_Sq_frombytes` (`log_q` in 11..=13): `r[0..n-1]` from the fields, `r[n-1] = 0`.
    pub(crate) fn sq_frombytes(self, bytes: &[u8], r: &mut [u16], log_q: u32) {
        // SAFETY: the token proves AVX2.
        unsafe {
            match log_q {
                11 => self.tf_sq_frombytes::<11>(bytes, r, &SQ_FROM2_11),
                12 => self.tf_sq_frombytes::<12>(bytes, r, &SQ_FROM2_12),
                _ => self.tf_sq_frombytes::<13>(bytes, r, &SQ_FROM2_13),
            }
        }
    }

    /// `poly_S3_frombytes`: digits mod 3 (`poly_mod_3_Phi_n` with `r[n-1] = 0`), `r[n-1] = 0`.
    pub(crate) fn s3_frombytes(self, bytes: &[u8], r: &mut [u16]) {
        // SAFETY: the token proves AVX2.
        unsafe { self.tf_s3_frombytes(bytes, r) }
    }

    #[target_feature(enable = "avx2")]
    fn tf_sq_frombytes<const LQ: usize>(
        self,
        bytes: &[u8],
        r: &mut [u16],
        c: &([i8; 32], [i8; 32], [u16; 16], [u16; 16]),
    ) {
        let total = r.len() - 1;
        // SAFETY: AVX2 is enabled here; the tables are 32 readable bytes each.
        let (lo_i, hi_i, shr, shl) = unsafe {
            (
                load_i8x32(&c.0),
                load_i8x32(&c.1),
                load_u16x16(&c.2),
                load_u16x16(&c.3),
            )
        };
        let mask = _mm256_set1_epi16(((1u32 << LQ) - 1) as i16);
        // Block of 16 fields = two groups; group `g` is read as 16 bytes from `g LQ`.
        let span = LQ + 16;
        let mut pad = [0u8; 64];
        let mut k = 0;
        while k < total {
            let off = k / 8 * LQ;
            let src = window(bytes, off, span, &mut pad);
            let v = _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(load16(src)),
                load16(&src[LQ..]),
            );
            let lo = _mm256_shuffle_epi8(v, lo_i);
            let hi = _mm256_shuffle_epi8(v, hi_i);
            let f = _mm256_and_si256(
                _mm256_or_si256(mulhi_epu16_256(lo, shr), _mm256_mullo_epi16(hi, shl)),
                mask,
            );
            // SAFETY: AVX2 is enabled here.
            unsafe { store_256(&mut r[k..total], f) };
            k += 16;
        }
        r[total] = 0;
    }

    #[target_feature(enable = "avx2")]
    fn tf_s3_frombytes(self, bytes: &[u8], r: &mut [u16]) {
        let deg = r.len() - 1;
        let (idx, mul) = &S3_FROM2;
        let div3 = _mm256_set1_epi16(S3_DIV[1] as i16);
        let mut pad = [0u8; 64];
        let mut k = 0;
        while k < deg {
            let b0 = k / 5;
            let src = window(bytes, b0, 16, &mut pad);
            let x = _mm256_broadcastsi128_si256(load16(src));
            for v in 0..5 {
                let pos = k + 16 * v;
                if pos >= deg {
                    break;
                }
                // SAFETY: AVX2 is enabled here; each table row is 32 readable bytes.
                let (iv, mv) = unsafe { (load_i8x32(&idx[v]), load_u16x16(&mul[v])) };
                let d = mulhi_epu16_256(_mm256_shuffle_epi8(x, iv), mv);
                // d mod 3 for d <= 255
                let q = mulhi_epu16_256(d, div3);
                let m = _mm256_sub_epi16(d, _mm256_add_epi16(q, _mm256_add_epi16(q, q)));
                // SAFETY: AVX2 is enabled here.
                unsafe { store_256(&mut r[pos..deg], m) };
            }
            k += 80;
        }
        r[deg] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{reference, NtruParams};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    const ALL: [NtruParams; 4] = [
        NtruParams::Hps2048509,
        NtruParams::Hps2048677,
        NtruParams::Hps4096821,
        NtruParams::Hrss701,
    ];

    /// Inputs: random bytes, all-zero, all-0xff, and every byte value at every position class
    /// (`bytes[i] = 7 i + t mod 256` for every `t`).
    fn byte_inputs(len: usize, rng: &mut ChaCha20Rng) -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = (0..40)
            .map(|_| (0..len).map(|_| rng.gen()).collect())
            .collect();
        v.push(vec![0; len]);
        v.push(vec![0xff; len]);
        for t in 0..256 {
            v.push((0..len).map(|i| (7 * i + t) as u8).collect());
        }
        v
    }

    /// Every unpacker against the reference: `s3` and `sq` are the backend's functions.
    fn check_unpacking(
        name: &str,
        s3: impl Fn(&[u8], &mut [u16]),
        sq: impl Fn(&[u8], &mut [u16], u32),
    ) {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        for p in ALL {
            let n = p.n();
            for b in byte_inputs(p.s3_bytes(), &mut rng) {
                let (mut want, mut got) = (vec![7u16; n], vec![9u16; n]);
                reference::s3_frombytes(&b, &mut want);
                s3(&b, &mut got);
                assert_eq!(got, want, "{name} {p:?} s3_frombytes");
            }
            for b in byte_inputs(p.sq_bytes(), &mut rng) {
                let (mut want, mut got) = (vec![7u16; n], vec![9u16; n]);
                reference::sq_frombytes(&b, &mut want, p.log_q());
                sq(&b, &mut got, p.log_q());
                assert_eq!(got, want, "{name} {p:?} sq_frombytes");
            }
        }
    }

    #[test]
    fn unpacking_matches_reference() {
        let Some(t) = Avx512Lanes::try_new() else {
            eprintln!("skipped: no AVX-512BW on this CPU");
            return;
        };
        check_unpacking(
            "avx512",
            |b, r| t.s3_frombytes(b, r),
            |b, r, l| t.sq_frombytes(b, r, l),
        );
    }

    #[test]
    fn avx2_unpacking_matches_reference() {
        let Some(t) = Avx2Lanes::try_new() else {
            eprintln!("skipped: no AVX2 on this CPU");
            return;
        };
        check_unpacking(
            "avx2",
            |b, r| t.s3_frombytes(b, r),
            |b, r, l| t.sq_frombytes(b, r, l),
        );
    }

    /// The multiply-shift digits of the AVX2 `S3` unpacker are exact for every byte.
    #[test]
    fn s3_div_constants_are_exact() {
        for (j, &m) in S3_DIV.iter().enumerate() {
            let d = 3u32.pow(j as u32);
            for c in 0u32..256 {
                // digit 0 puts the byte in the high half of the lane
                let x = if j == 0 { c << 8 } else { c };
                assert_eq!((x * u32::from(m)) >> 16, c / d, "3^{j}, byte {c}");
                assert_eq!((c * u32::from(S3_DIV[1])) >> 16, c / 3);
            }
        }
    }

    #[test]
    fn packing_matches_reference() {
        let Some(t) = Avx512Lanes::try_new() else {
            eprintln!("skipped: no AVX-512BW on this CPU");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        for p in ALL {
            let n = p.n();
            // any u16 coefficients (the packers use them as they are, or masked to log q bits)
            let mut inputs: Vec<Vec<u16>> = (0..60)
                .map(|_| (0..n).map(|_| rng.gen()).collect())
                .collect();
            inputs.push(vec![0; n]);
            inputs.push(vec![0xffff; n]);
            inputs.push((0..n).map(|i| (i % 3) as u16).collect());
            inputs.push((0..n).map(|i| (i as u16).wrapping_mul(0x9e37)).collect());
            for a in &inputs {
                let (mut want, mut got) = (vec![1u8; p.s3_bytes()], vec![2u8; p.s3_bytes()]);
                reference::s3_tobytes(a, &mut want);
                t.s3_tobytes(a, &mut got);
                assert_eq!(got, want, "{p:?} s3_tobytes");
                let (mut want, mut got) = (vec![1u8; p.sq_bytes()], vec![2u8; p.sq_bytes()]);
                reference::sq_tobytes(a, &mut want, p.log_q());
                t.sq_tobytes(a, &mut got, p.log_q());
                assert_eq!(got, want, "{p:?} sq_tobytes");
            }
        }
    }
}
