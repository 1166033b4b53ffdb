//! AVX-512 kernels of the uniform-bound encoding (`Rq_encode` / `Rq_decode`,
//! `Rounded_encode` / `Rounded_decode`): the level schedule of `encode.rs`, each level's
//! regular pairs sixteen at a time in 32-bit lanes; and an AVX2 decoder ([`Codec256`]), eight
//! pairs at a time.
//!
//! - **Decode**: `x = low bytes + 256^b · upper` (byte loads widened with `vpmovzx`), then
//!   `(x mod m, floor(x / m) mod m)` by a reciprocal multiplication: `q = floor(x · c / 2^S)`
//!   with `S = 31 + floor(log2 m)` and `c = ceil(2^S / m) < 2^32`, two `vpmuludq` (even and
//!   odd lanes), exact for every `x < 2^30` (here `x < m^2 + 2^17 < 2^29`), and the pairs
//!   interleaved by two `vpermt2d`.
//! - **Encode**: pairs deinterleaved by two `vpermt2d`, `x = r0 + r1 · m`, the low bytes stored
//!   by `vpmovdb` / `vpmovdw`, the rest shifted down.
//!
//! - **AVX2 decode**: the same steps without mask registers: the reciprocal's odd lanes blended
//!   in with `vpblendd`, each pair `(r0, r1)` written as one 32-bit lane `r0 | r1 << 16` (no
//!   permutation), and the lowest, partial group of a level through small stack buffers.
//!
//! Same output as `encode.rs` for every input, valid or not (tests below); the loop structure
//! depends only on the public `m` and `n`, the data only flow through arithmetic.

#![allow(unsafe_code)]

use super::encode::{mod_u14, schedule, split_last_checked, Level};
use core::arch::x86_64::*;

/// Largest `n` handled here (stack buffers); longer sequences take the generic code.
const MAX_N: usize = 1024;

/// Proof that the CPU runs AVX-512 F, BW and VL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Codec512(());

impl Codec512 {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl"))
        .then_some(Self(()))
    }

    /// `decode_uniform(s, m0, n)`; `None` (nothing done) when `n` or `m0` is outside what this
    /// kernel handles (`2 <= m0`, `1 <= n <= 1024`).
    pub(crate) fn decode_uniform(self, s: &[u8], m0: u16, n: usize) -> Option<Vec<u16>> {
        self.decode::<false>(s, m0, n).map(|(v, _)| v)
    }

    /// [`Codec512::decode_uniform`] and whether `s` is the canonical encoding of the result:
    /// no value needed a reduction (`encode::decode_uniform_canonical`).
    pub(crate) fn decode_uniform_canonical(
        self,
        s: &[u8],
        m0: u16,
        n: usize,
    ) -> Option<(Vec<u16>, bool)> {
        self.decode::<true>(s, m0, n)
    }

    /// Both decodes ([`tf_decode`]; the flag is `true` without `CHECK`).
    fn decode<const CHECK: bool>(self, s: &[u8], m0: u16, n: usize) -> Option<(Vec<u16>, bool)> {
        if !(1..=MAX_N).contains(&n) || m0 < 2 {
            return None;
        }
        let mut out = vec![0u16; n];
        let (levels, top, pos) = &*schedule(m0, n);
        // SAFETY: the token proves AVX-512 F, BW and VL.
        let canonical = unsafe { tf_decode::<CHECK>(s, levels, *top, *pos, &mut out) };
        Some((out, canonical))
    }

    /// `encode_uniform(out, r, m0)`; `false` (nothing written) outside the sizes handled.
    pub(crate) fn encode_uniform(self, out: &mut Vec<u8>, r: &[u16], m0: u16) -> bool {
        let n = r.len();
        if !(1..=MAX_N).contains(&n) || m0 < 2 {
            return false;
        }
        let (levels, top, _) = &*schedule(m0, n);
        // SAFETY: the token proves AVX-512 F, BW and VL.
        unsafe { tf_encode(out, r, levels, *top) };
        true
    }
}

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Codec256(());

impl Codec256 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }

    /// `decode_uniform(s, m0, n)`; `None` (nothing done) when `n` or `m0` is outside what this
    /// kernel handles (`2 <= m0`, `1 <= n <= 1024`).
    pub(crate) fn decode_uniform(self, s: &[u8], m0: u16, n: usize) -> Option<Vec<u16>> {
        if !(1..=MAX_N).contains(&n) || m0 < 2 {
            return None;
        }
        let mut out = vec![0u16; n];
        let (levels, top, pos) = &*schedule(m0, n);
        // SAFETY: the token proves AVX2.
        unsafe { tf_decode_avx2(s, levels, *top, *pos, &mut out) };
        Some(out)
    }
}

/// [`Div`] on eight 32-bit lanes (AVX2).
#[derive(Clone, Copy)]
struct Div256 {
    m: __m256i,
    c: __m256i,
    s_even: __m256i,
    s_odd: __m256i,
}

impl Div256 {
    #[inline(always)]
    fn new(m: u32) -> Self {
        debug_assert!((2..16384).contains(&m));
        let l = 31 - m.leading_zeros();
        let s = 31 + l;
        let c = (1u64 << s).div_ceil(u64::from(m));
        debug_assert!(c < 1 << 32);
        // SAFETY: AVX (inside the AVX2 kernel).
        unsafe {
            Div256 {
                m: _mm256_set1_epi32(m as i32),
                c: _mm256_set1_epi64x(c as i64),
                s_even: _mm256_set1_epi64x(i64::from(s)),
                s_odd: _mm256_set1_epi64x(i64::from(s - 32)),
            }
        }
    }

    /// `(floor(x / m), x mod m)` lane-wise, `x < 2^30` (as [`Div::divmod`]).
    #[inline(always)]
    fn divmod(self, x: __m256i) -> (__m256i, __m256i) {
        // SAFETY: AVX2 (inside the AVX2 kernel).
        unsafe {
            let pe = _mm256_mul_epu32(x, self.c);
            let po = _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), self.c);
            let q = _mm256_blend_epi32::<0xAA>(
                _mm256_srlv_epi64(pe, self.s_even),
                _mm256_srlv_epi64(po, self.s_odd),
            );
            (q, _mm256_sub_epi32(x, _mm256_mullo_epi32(q, self.m)))
        }
    }
}

/// Eight pairs of an AVX2 decode level: `up` the upper values (32-bit lanes), `low` the pairs'
/// low bytes (`b` per pair, from the start of the vector): the 32-bit lanes `r0 | r1 << 16`,
/// i.e. sixteen output slots in order.
#[inline(always)]
fn pairs8(up: __m256i, low: __m128i, b: usize, div: Div256) -> __m256i {
    // SAFETY: AVX2 (inside the AVX2 kernel).
    unsafe {
        let x = match b {
            0 => up,
            1 => _mm256_add_epi32(_mm256_cvtepu8_epi32(low), _mm256_slli_epi32::<8>(up)),
            _ => _mm256_add_epi32(_mm256_cvtepu16_epi32(low), _mm256_slli_epi32::<16>(up)),
        };
        let (q, r0) = div.divmod(x);
        // q < 2m (see `tf_decode`): one conditional subtraction.
        let r1 = _mm256_min_epu32(q, _mm256_sub_epi32(q, div.m));
        _mm256_or_si256(r0, _mm256_slli_epi32::<16>(r1))
    }
}

/// The body of [`Codec256::decode_uniform`]: [`tf_decode`]'s in-place level walk, eight pairs
/// at a time from the top of each level.
#[target_feature(enable = "avx2")]
fn tf_decode_avx2(s: &[u8], levels: &[Level], top: u32, pos: usize, out: &mut [u16]) {
    out[0] = top_value(s, top, pos).0;
    for lv in levels.iter().rev() {
        let (half, even, regular) = lv.pairs();
        let bytes = &s[lv.pos..];
        // (the AVX2 decoder does not check canonicity)
        let _ = level_end(lv, bytes, out, half, even);
        let div = Div256::new(lv.reg);
        let b = lv.reg_bytes;
        let mut k1 = regular;
        while k1 > 0 {
            let k0 = k1.saturating_sub(8);
            let rem = k1 - k0;
            if rem == 8 {
                // Reads slots k0..k0+8 (below half + 1) and bytes b k0..b (k0 + 8) (below
                // b regular), writes slots 2 k0..2 k0 + 16 (below 2 regular <= len).
                let up = &out[k0..k0 + 8];
                // SAFETY: AVX2 is enabled; `up` is 16 readable bytes, and the byte loads read
                // 8 or 16 bytes of `lb`, whose length is checked by the slicing.
                let v = unsafe {
                    let upv = _mm256_cvtepu16_epi32(_mm_loadu_si128(up.as_ptr().cast()));
                    let low = match b {
                        0 => _mm_setzero_si128(),
                        1 => {
                            let lb = &bytes[k0..k0 + 8];
                            _mm_loadl_epi64(lb.as_ptr().cast())
                        }
                        _ => {
                            let lb = &bytes[2 * k0..2 * k0 + 16];
                            _mm_loadu_si128(lb.as_ptr().cast())
                        }
                    };
                    pairs8(upv, low, b, div)
                };
                let dst = &mut out[2 * k0..2 * k0 + 16];
                // SAFETY: AVX is enabled; `dst` is 32 writable bytes.
                unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), v) };
            } else {
                // The lowest group of the level, `rem < 8` pairs: through stack buffers.
                let mut ub = [0u16; 8];
                ub[..rem].copy_from_slice(&out[k0..k1]);
                let mut bb = [0u8; 16];
                bb[..rem * b].copy_from_slice(&bytes[k0 * b..k1 * b]);
                let mut ob = [0u16; 16];
                // SAFETY: AVX2 is enabled; the buffers are 16 readable / 32 writable bytes.
                unsafe {
                    let upv = _mm256_cvtepu16_epi32(_mm_loadu_si128(ub.as_ptr().cast()));
                    let low = _mm_loadu_si128(bb.as_ptr().cast());
                    let v = pairs8(upv, low, b, div);
                    _mm256_storeu_si256(ob.as_mut_ptr().cast(), v);
                }
                out[2 * k0..2 * k1].copy_from_slice(&ob[..2 * rem]);
            }
            k1 = k0;
        }
    }
}

/// A division by a public `2 <= m < 2^14` for `x < 2^30` in 32-bit lanes (decode).
#[derive(Clone, Copy)]
struct Div {
    m: __m512i,
    c: __m512i,
    /// `S` (even lanes' shift) and `S - 32` (odd lanes'), as 64-bit shift counts.
    s_even: __m512i,
    s_odd: __m512i,
}

impl Div {
    #[inline(always)]
    fn new(m: u32) -> Self {
        debug_assert!((2..16384).contains(&m));
        let l = 31 - m.leading_zeros(); // floor(log2 m) >= 1
        let s = 31 + l;
        let c = (1u64 << s).div_ceil(u64::from(m));
        debug_assert!(c < 1 << 32);
        // SAFETY: AVX-512F (inside the kernels).
        unsafe {
            Div {
                m: _mm512_set1_epi32(m as i32),
                c: _mm512_set1_epi64(c as i64),
                s_even: _mm512_set1_epi64(i64::from(s)),
                s_odd: _mm512_set1_epi64(i64::from(s - 32)),
            }
        }
    }

    /// `(floor(x / m), x mod m)` lane-wise, `x < 2^30`.
    #[inline(always)]
    fn divmod(self, x: __m512i) -> (__m512i, __m512i) {
        // SAFETY: AVX-512F (inside the kernels).
        unsafe {
            let pe = _mm512_mul_epu32(x, self.c);
            let po = _mm512_mul_epu32(_mm512_srli_epi64::<32>(x), self.c);
            // even lanes: floor(pe / 2^S) in the low dword; odd lanes: the high dword of
            // po >> (S - 32) is floor(po / 2^S)
            let q = _mm512_mask_blend_epi32(
                0xAAAA,
                _mm512_srlv_epi64(pe, self.s_even),
                _mm512_srlv_epi64(po, self.s_odd),
            );
            (q, _mm512_sub_epi32(x, _mm512_mullo_epi32(q, self.m)))
        }
    }
}

/// The decoded top value (from the last bytes of `s`), and 1 where it needed no reduction,
/// else 0.
#[inline(always)]
fn top_value(s: &[u8], top: u32, pos: usize) -> (u16, u32) {
    let raw = if top == 1 {
        0
    } else if top <= 256 {
        u32::from(s[pos])
    } else {
        u32::from(s[pos]) + (u32::from(s[pos + 1]) << 8)
    };
    (mod_u14(raw, top as u16), u32::from(raw < top))
}

/// The highest slots of a decode level, before its regular pairs: the last pair of an even
/// level (from slot `half - 1`) or the value an odd level carries (from slot `half`); 1 where
/// the last pair's quotient needed no reduction, else 0.
#[inline(always)]
fn level_end(lv: &Level, bytes: &[u8], out: &mut [u16], half: usize, even: bool) -> u32 {
    if even {
        let k = half - 1;
        let (r0, r1, ok) = split_last_checked(lv, bytes, u32::from(out[k]));
        (out[2 * k], out[2 * k + 1]) = (r0 as u16, r1 as u16);
        ok
    } else {
        out[lv.len - 1] = out[half];
        1
    }
}

/// The body of [`Codec512::decode_uniform`] (the steps of `encode::decode_uniform_impl`),
/// in place in `out`: every value of every level is below its bound (< 2^14), so the levels
/// share the output's 16-bit slots; going down, level `L` writes slots `2k, 2k + 1` from slot
/// `k` of level `L + 1`, so the pairs run from the top (descending `k`) and nothing is
/// overwritten before it is read.
///
/// With `CHECK`, also whether no value needed a reduction (`s` is canonical): the lanes whose
/// quotient reaches `m` are collected in a mask, the last pairs and the top value in a flag
/// (no branch on them).
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn tf_decode<const CHECK: bool>(
    s: &[u8],
    levels: &[Level],
    top: u32,
    pos: usize,
    out: &mut [u16],
) -> bool {
    let (t, mut ok) = top_value(s, top, pos);
    out[0] = t;
    let mut reduced: u16 = 0;
    // output u16 slot 2i from lane i of r0, slot 2i + 1 from lane i of r1 (low halves)
    // SAFETY: AVX-512F/BW are enabled.
    let ilv = unsafe {
        let mut idx = [0u16; 32];
        for (i, x) in idx.iter_mut().enumerate() {
            *x = if i % 2 == 0 {
                i as u16
            } else {
                32 + i as u16 - 1
            };
        }
        _mm512_loadu_si512(idx.as_ptr().cast())
    };
    for lv in levels.iter().rev() {
        let (half, even, regular) = lv.pairs();
        let bytes = &s[lv.pos..];
        // the highest slots first: the last pair (or the carried value)
        ok &= level_end(lv, bytes, out, half, even);
        let div = Div::new(lv.reg);
        let mut k1 = regular;
        while k1 > 0 {
            let k0 = k1.saturating_sub(16);
            let rem = k1 - k0;
            let mask = (1u32 << rem).wrapping_sub(1) as u16;
            let m2 = (1u64 << (2 * rem)).wrapping_sub(1) as u32;
            // SAFETY: AVX-512 F, BW, VL are enabled; the masked loads read the `rem` upper
            // values at `k0` (below `half + 1`, the upper level's length) and `rem * b` of the
            // level's `regular * b` bytes; the masked store writes `2 rem` slots from `2 k0`,
            // below `len <= out.len()`.
            unsafe {
                let up = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(
                    mask,
                    out.as_ptr().add(k0).cast(),
                ));
                let x = match lv.reg_bytes {
                    0 => up,
                    1 => {
                        let b = _mm_maskz_loadu_epi8(mask, bytes.as_ptr().add(k0).cast());
                        _mm512_add_epi32(_mm512_cvtepu8_epi32(b), _mm512_slli_epi32::<8>(up))
                    }
                    _ => {
                        let b = _mm256_maskz_loadu_epi16(mask, bytes.as_ptr().add(2 * k0).cast());
                        _mm512_add_epi32(_mm512_cvtepu16_epi32(b), _mm512_slli_epi32::<16>(up))
                    }
                };
                let (q, r0) = div.divmod(x);
                // The reference reduces the quotient mod m too (it exceeds m - 1 only for
                // invalid input); here x < 256^b · M + 256^b - 1 with M the upper level's bound,
                // so x <= m^2 + 65534 and q < 2m (m >= 256 when b = 2, m >= 128 when b = 1,
                // q < m when b = 0): one conditional subtraction, as an unsigned minimum.
                if CHECK {
                    reduced |= _mm512_mask_cmpge_epu32_mask(mask, q, div.m);
                }
                let r1 = _mm512_min_epu32(q, _mm512_sub_epi32(q, div.m));
                let pairs = _mm512_permutex2var_epi16(r0, ilv, r1);
                _mm512_mask_storeu_epi16(out.as_mut_ptr().add(2 * k0).cast(), m2, pairs);
            }
            k1 = k0;
        }
    }
    !CHECK || (ok == 1 && reduced == 0)
}

/// The body of [`Codec512::encode_uniform`] (the steps of `encode::encode_uniform_impl`), the
/// levels in place in one buffer of 16-bit slots (every merged value is below its bound,
/// < 2^14): going up, slot `k` takes the merge of slots `2k, 2k + 1`, ascending.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn tf_encode(out: &mut Vec<u8>, r: &[u16], levels: &[Level], top: u32) {
    let mut cur = [0u16; MAX_N];
    cur[..r.len()].copy_from_slice(r);
    let mut m_top = top;
    for lv in levels {
        let (len, reg) = (lv.len, lv.reg);
        let (half, even, regular) = lv.pairs();
        let start = out.len();
        out.resize(start + regular * lv.reg_bytes, 0);
        let bytes = &mut out[start..];
        // (r0, r1) · (1, m) per 32-bit lane with vpmaddwd
        let weights = _mm512_set1_epi32(((reg as i32) << 16) | 1);
        let mut k = 0;
        while k < regular {
            let rem = (regular - k).min(16);
            let mask = (1u32 << rem).wrapping_sub(1) as u16;
            // SAFETY: AVX-512 F, BW, VL are enabled; the masked load reads the `2 rem` slots
            // from `2k` (below `2 regular <= len`); the stores write `rem` slots from `k` (all
            // read already) and `rem * b` of the level's `regular * b` bytes.
            unsafe {
                let pairs = _mm512_maskz_loadu_epi32(mask, cur.as_ptr().add(2 * k).cast());
                let x = _mm512_madd_epi16(pairs, weights);
                let y = match lv.reg_bytes {
                    0 => x,
                    1 => {
                        _mm512_mask_cvtepi32_storeu_epi8(bytes.as_mut_ptr().add(k).cast(), mask, x);
                        _mm512_srli_epi32::<8>(x)
                    }
                    _ => {
                        _mm512_mask_cvtepi32_storeu_epi16(
                            bytes.as_mut_ptr().add(2 * k).cast(),
                            mask,
                            x,
                        );
                        _mm512_srli_epi32::<16>(x)
                    }
                };
                _mm512_mask_cvtepi32_storeu_epi16(cur.as_mut_ptr().add(k).cast(), mask, y);
            }
            k += 16;
        }
        if even {
            let k = half - 1;
            let mut x = u32::from(cur[2 * k]) + u32::from(cur[2 * k + 1]) * reg;
            for _ in 0..lv.last_bytes {
                out.push(x as u8);
                x >>= 8;
            }
            cur[k] = x as u16;
        } else {
            cur[half] = cur[len - 1];
        }
    }
    let mut x = u32::from(cur[0]);
    while m_top > 1 {
        out.push(x as u8);
        x >>= 8;
        m_top = (m_top + 255) >> 8;
    }
}

#[cfg(test)]
mod tests {
    use super::super::encode::{decode_uniform_impl, encode_uniform_impl, encoded_len_unchecked};
    use super::*;

    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// Encode and decode against the generic code: valid values (random, all zero, all
    /// `m - 1`) and arbitrary byte strings (invalid encodings included), for the NTRU Prime
    /// sizes and random `(m, n)`.
    #[test]
    fn matches_generic_code() {
        let Some(t) = Codec512::try_new() else {
            eprintln!("skipped: no AVX-512 F/BW/VL");
            return;
        };
        check(
            |out, r, m| t.encode_uniform(out, r, m),
            |s, m, n| t.decode_uniform(s, m, n),
        );
    }

    /// The AVX2 decoder (encoding is checked through the generic encoder's output).
    #[test]
    fn avx2_decoder_matches_generic_code() {
        let Some(t) = Codec256::try_new() else {
            eprintln!("skipped: no AVX2");
            return;
        };
        check(
            |out, r, m| {
                encode_uniform_impl(out, r, m);
                true
            },
            |s, m, n| t.decode_uniform(s, m, n),
        );
    }

    /// The canonicity flag of the AVX-512 decoder is `encode(decode(s)) == s`, and its values
    /// are the generic decoder's: valid encodings (including all-zero and all-`m - 1`
    /// values), the same with one byte changed (at every position of the KEMs' encodings,
    /// random elsewhere), all-ones and random strings.
    #[test]
    fn canonicity_flag_matches_reencoding() {
        let Some(t) = Codec512::try_new() else {
            eprintln!("skipped: no AVX-512 F/BW/VL");
            return;
        };
        let mut seed = 0x0ca1_1ab1_e0dd_ba11_u64;
        let (mut canonical, mut other) = (0, 0);
        for (m, n) in shapes(&mut seed, 40) {
            let mut inputs: Vec<Vec<u8>> = Vec::new();
            for kind in 0..3 {
                let r = values(m, n, kind, &mut seed);
                let mut e = Vec::new();
                encode_uniform_impl(&mut e, &r, m);
                let spots: Vec<usize> = if n == 761 {
                    (0..e.len()).collect()
                } else {
                    (0..8)
                        .map(|_| xorshift(&mut seed) as usize % e.len().max(1))
                        .collect()
                };
                for at in spots.into_iter().filter(|&at| at < e.len()) {
                    let mut bad = e.clone();
                    bad[at] = bad[at].wrapping_add(1 + (xorshift(&mut seed) % 255) as u8);
                    inputs.push(bad);
                }
                inputs.push(e);
            }
            let len = encoded_len_unchecked(&vec![m; n]);
            inputs.push(vec![0xff; len]);
            inputs.push((0..len).map(|_| xorshift(&mut seed) as u8).collect());
            for s in inputs {
                let (v, flag) = t.decode_uniform_canonical(&s, m, n).unwrap();
                assert_eq!(v, decode_uniform_impl(&s, m, n), "m = {m}, n = {n}");
                let mut again = Vec::new();
                encode_uniform_impl(&mut again, &v, m);
                assert_eq!(flag, again == s, "m = {m}, n = {n}, {s:?}");
                if flag {
                    canonical += 1;
                } else {
                    other += 1;
                }
            }
        }
        // both outcomes are exercised
        assert!(canonical > 100 && other > 1000, "{canonical} / {other}");
    }

    /// The NTRU Prime encodings' `(m, n)`, both extremes, and `count` random ones.
    fn shapes(seed: &mut u64, count: usize) -> Vec<(u16, usize)> {
        let mut cases = vec![(4591, 761), (1531, 761), (2, 1), (16383, 1024)];
        for _ in 0..count {
            let m = 2 + (xorshift(seed) % 16382) as u16;
            let n = 1 + (xorshift(seed) % 1024) as usize;
            cases.push((m, n));
        }
        cases
    }

    /// `n` values below `m`: all zero (`kind` 0), all `m - 1` (1) or random.
    fn values(m: u16, n: usize, kind: u8, seed: &mut u64) -> Vec<u16> {
        (0..n)
            .map(|_| match kind {
                0 => 0,
                1 => m - 1,
                _ => (xorshift(seed) % u64::from(m)) as u16,
            })
            .collect()
    }

    fn check(
        encode: impl Fn(&mut Vec<u8>, &[u16], u16) -> bool,
        decode: impl Fn(&[u8], u16, usize) -> Option<Vec<u16>>,
    ) {
        let mut seed = 0x5eed_c0de_cafe_f00du64;
        for (m, n) in shapes(&mut seed, 60) {
            for kind in 0..4 {
                let r = values(m, n, kind, &mut seed);
                let (mut want, mut got) = (Vec::new(), Vec::new());
                encode_uniform_impl(&mut want, &r, m);
                assert!(encode(&mut got, &r, m));
                assert_eq!(got, want, "encode m = {m}, n = {n}, kind {kind}");
                assert_eq!(decode(&want, m, n).unwrap(), r, "round trip m = {m}");
            }
            let len = encoded_len_unchecked(&vec![m; n]);
            for fill in [Some(0xffu8), None, None] {
                let s: Vec<u8> = (0..len)
                    .map(|_| fill.unwrap_or(xorshift(&mut seed) as u8))
                    .collect();
                assert_eq!(
                    decode(&s, m, n).unwrap(),
                    decode_uniform_impl(&s, m, n),
                    "decode m = {m}, n = {n}"
                );
            }
        }
    }
}
