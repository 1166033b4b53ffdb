//! `poly_R2_inv` in AVX-512 registers: the Itoh–Tsujii chain of `r2_clmul.rs` (the same
//! products and squarings, hence the same result) with every polynomial of `F_2[x]/(x^n - 1)`
//! held in two `zmm` registers (up to 1024 bits) from the first step to the last.
//!
//! - **Products**: for each word `b_j` of one factor (broadcast), the other factor shifted up by
//!   `j` words (`vpermt2q` windows) times `b_j` with `vpclmulqdq` (four 64 x 64-bit carry-less
//!   products per instruction), the even and odd words of each 128-bit lane in two accumulators
//!   (the odd ones are one word off and are shifted once at the end), then the fold mod
//!   `x^n - 1` (a window at word `n / 64` and one concatenating shift by `n % 64`, `vpshrdvq`).
//! - **Runs of squarings** (`a^(2^k)`, `k >= 2`): the bit permutation `j -> j · 2^k mod n` they
//!   amount to, two instructions per output word: a two-register byte gather (`vpermt2b`)
//!   brings into each 64-bit lane the input bytes that hold the sources of that lane's eight
//!   output bits, and a bit gather (`vpshufbitqmb`) picks the 64 bits into a mask register.
//!   A single squaring spreads the bits with `vpclmulqdq` of the words by themselves.
//!
//! Everything depends on `n` (and the chain's public `k`) alone: no data-dependent branch or
//! index, and the instructions used run in data-independent time. (Valgrind cannot execute
//! AVX-512, so the constant-time test of NTRU key generation runs the `PCLMULQDQ` code of
//! `r2_clmul.rs` under `LATPOLY_ISA=avx2`; this path is selected only on the AVX-512 backend.)
//!
//! Measured in one process against PQClean's AVX2 `poly_R2_inv` (called through the symbols of
//! the `pqcrypto-ntru` build, n = 509, AMD EPYC family 25 = Zen 4, minimum of 15 batches of
//! 200): `r2_clmul.rs` 3.75 µs, this code 0.56-0.67 µs, PQClean 0.79-0.99 µs. The chain of 15
//! dependent products is latency-bound (each product is ~30 `vpclmulqdq` and a fold).

#![allow(unsafe_code)]

use super::r2_clmul::{build_perm, chain_ks, pack_mod_phi, top_mask, unpack_mod_phi};
use core::arch::x86_64::*;
use std::sync::OnceLock;
use zeroize::Zeroize;

/// Proof that the CPU runs the AVX-512 subsets used here: F, BW, VBMI (`vpermt2b`), VBMI2
/// (`vpshrdvq`), BITALG (`vpshufbitqmb`) and VPCLMULQDQ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct R2Avx512(());

impl R2Avx512 {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vbmi")
            && is_x86_feature_detected!("avx512vbmi2")
            && is_x86_feature_detected!("avx512bitalg")
            && is_x86_feature_detected!("vpclmulqdq"))
        .then_some(Self(()))
    }

    /// `r = a^-1 mod (2, Phi_n)` with the reference's conventions (as `Clmul::r2_inv`);
    /// `None` when `n` is not an NTRU degree.
    pub(crate) fn r2_inv(self, a: &[u16], r: &mut [u16]) -> Option<()> {
        if r.len() != a.len() {
            return None;
        }
        // SAFETY: the token proves the features the entry points enable.
        unsafe {
            match a.len() {
                509 => tf_r2_inv::<8, 509>(a, r),
                677 => tf_r2_inv::<11, 677>(a, r),
                701 => tf_r2_inv::<11, 701>(a, r),
                821 => tf_r2_inv::<13, 821>(a, r),
                _ => return None,
            }
        }
        Some(())
    }
}

/// A polynomial of up to 1024 bits (words 0..8, 8..16).
type Poly = [__m512i; 2];

/// The controls of [`perm`] for one `(n, k)`: per output word `c`, the byte gather `idx[c]`
/// (byte `8 l + b` of the gathered vector is byte `idx[c][8 l + b]` of the input's 128 bytes)
/// and the bit gather `sel[c]` (output bit `8 l + b` is bit `sel[c][8 l + b]` of the gathered
/// vector's word `l`).
struct PermCtl {
    idx: Vec<[u8; 64]>,
    sel: Vec<[u8; 64]>,
}

/// The controls of [`perm`] for `a^(2^k) mod (x^n - 1)`: output bit `j` is input bit
/// `j · 2^-k mod n` ([`build_perm`]). Lane `l` of output word `c` gathers, in its slot `b`,
/// the input byte holding the source of output bit `64 c + 8 l + b`; output bits past `n`
/// gather byte 127, past every degree here and therefore zero.
fn build_ctl(n: usize, k: usize) -> PermCtl {
    let src = build_perm(n, k);
    let words = n.div_ceil(64);
    debug_assert!(n <= 127 * 8);
    let mut idx = vec![[0u8; 64]; words];
    let mut sel = vec![[0u8; 64]; words];
    for c in 0..words {
        for i in 0..64 {
            let j = 64 * c + i;
            let (byte, bit) = if j < n {
                let s = usize::from(src[j]);
                (s / 8, s % 8)
            } else {
                (127, 0)
            };
            // slot b = i % 8 of lane i / 8 holds the source byte of output bit i
            idx[c][i] = byte as u8;
            sel[c][i] = (8 * (i % 8) + bit) as u8;
        }
    }
    PermCtl { idx, sel }
}

/// The [`PermCtl`] of every `k >= 2` of the chain of degree `n`, built once per degree.
fn ctl_table(n: usize) -> &'static [(usize, PermCtl)] {
    static TABLES: [OnceLock<Vec<(usize, PermCtl)>>; 4] = [const { OnceLock::new() }; 4];
    let slot = match n {
        509 => 0,
        677 => 1,
        701 => 2,
        _ => 3,
    };
    TABLES[slot].get_or_init(|| {
        chain_ks(n)
            .filter(|&k| k >= 2)
            .map(|k| (k, build_ctl(n, k)))
            .collect()
    })
}

/// Words `off .. off + 8` of the 16 words `lo ‖ hi` (`off <= 8`).
#[inline(always)]
fn window(lo: __m512i, hi: __m512i, off: usize) -> __m512i {
    // SAFETY: AVX-512F (every caller runs inside `tf_r2_inv`).
    unsafe {
        let idx = _mm512_add_epi64(
            _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
            _mm512_set1_epi64(off as i64),
        );
        _mm512_permutex2var_epi64(lo, idx, hi)
    }
}

/// `c mod (x^n - 1)` for a product `c` of two polynomials of degree `< n` (words 0..32): the
/// bits from `n` on, shifted down by `n`, added to the low `n` bits.
#[inline(always)]
fn fold<const N: usize>(c: &[__m512i; 4]) -> Poly {
    let (s, b) = (N / 64, N % 64);
    let (r, off) = (s / 8, s % 8);
    debug_assert!(r + 3 < 5 && b != 0);
    // SAFETY: AVX-512F and VBMI2 (inside `tf_r2_inv`).
    unsafe {
        let z = _mm512_setzero_si512();
        let regs = [c[0], c[1], c[2], c[3], z];
        let count = _mm512_set1_epi64(b as i64);
        let mut out = [z; 2];
        for (m, o) in out.iter_mut().enumerate() {
            let d = window(regs[r + m], regs[r + m + 1], off);
            let d1 = window(regs[r + m], regs[r + m + 1], off + 1);
            // (d1:d) >> b, word by word: bits n + 64 (8 m + t) .. of c
            let shifted = _mm512_shrdv_epi64(d, d1, count);
            *o = _mm512_xor_si512(c[m], shifted);
        }
        // keep bits 0..n
        let words = N.div_ceil(64);
        let mut mask = [0u64; 16];
        mask[..words].fill(u64::MAX);
        mask[words - 1] = top_mask(N);
        out[0] = _mm512_and_si512(out[0], _mm512_loadu_si512(mask.as_ptr().cast()));
        out[1] = _mm512_and_si512(out[1], _mm512_loadu_si512(mask.as_ptr().add(8).cast()));
        out
    }
}

/// `a · b mod (x^n - 1)`, `W` words each.
#[inline(always)]
fn mul<const W: usize, const N: usize>(a: Poly, b: Poly) -> Poly {
    // SAFETY: AVX-512F and VPCLMULQDQ (inside `tf_r2_inv`); the stores write 16 words of `bw`.
    unsafe {
        let z = _mm512_setzero_si512();
        let mut bw = [0u64; 16];
        _mm512_storeu_si512(bw.as_mut_ptr().cast(), b[0]);
        _mm512_storeu_si512(bw.as_mut_ptr().add(8).cast(), b[1]);
        // src[r + 1] = words 8r .. 8r + 8 of a (zero outside 0..16)
        let src = [z, a[0], a[1], z];
        // two sets of accumulators (by the parity of j): shorter dependency chains
        let mut even = [[z; 4]; 2];
        let mut odd = [[z; 4]; 2];
        for (j, &bj) in bw.iter().enumerate().take(W) {
            let bj = _mm512_set1_epi64(bj as i64);
            for m in 0..4 {
                // words 8m - j .. 8m + 8 - j of a; skip windows that are all zero (public)
                let s = 8 * m as isize - j as isize;
                if s + 7 < 0 || s > W as isize - 1 {
                    continue;
                }
                let (r, off) = (s.div_euclid(8), s.rem_euclid(8) as usize);
                let win = window(src[(r + 1) as usize], src[(r + 2) as usize], off);
                // lane l: word 8m + 2l - j (resp. + 1) of a times b_j, at word 8m + 2l (+ 1)
                let (e, o) = (&mut even[j % 2][m], &mut odd[j % 2][m]);
                *e = _mm512_xor_si512(*e, _mm512_clmulepi64_epi128::<0x00>(win, bj));
                *o = _mm512_xor_si512(*o, _mm512_clmulepi64_epi128::<0x01>(win, bj));
            }
        }
        bw.zeroize();
        // the odd products sit one word higher than their lanes
        let mut c = [z; 4];
        let mut prev = z;
        for m in 0..4 {
            let odd_m = _mm512_xor_si512(odd[0][m], odd[1][m]);
            let even_m = _mm512_xor_si512(even[0][m], even[1][m]);
            c[m] = _mm512_xor_si512(even_m, _mm512_alignr_epi64::<7>(odd_m, prev));
            prev = odd_m;
        }
        fold::<N>(&c)
    }
}

/// `a^2 mod (x^n - 1)`: the bits spread to even positions (each word times itself), folded.
#[inline(always)]
fn sqr<const N: usize>(a: Poly) -> Poly {
    // SAFETY: AVX-512F and VPCLMULQDQ (inside `tf_r2_inv`).
    unsafe {
        // lane l of `e`: word 2l squared (result words 4l, 4l + 1); of `o`: word 2l + 1
        // (result words 4l + 2, 4l + 3)
        let lo_idx = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
        let hi_idx = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
        let mut c = [_mm512_setzero_si512(); 4];
        for (h, &x) in a.iter().enumerate() {
            let e = _mm512_clmulepi64_epi128::<0x00>(x, x);
            let o = _mm512_clmulepi64_epi128::<0x11>(x, x);
            c[2 * h] = _mm512_permutex2var_epi64(e, lo_idx, o);
            c[2 * h + 1] = _mm512_permutex2var_epi64(e, hi_idx, o);
        }
        fold::<N>(&c)
    }
}

/// `a^(2^k) mod (x^n - 1)` as the bit permutation of [`build_ctl`], `W` output words.
#[inline(always)]
fn perm<const W: usize>(a: Poly, ctl: &PermCtl) -> Poly {
    debug_assert_eq!(ctl.idx.len(), W);
    // SAFETY: AVX-512F, BW, VBMI and BITALG (inside `tf_r2_inv`); the loads read 64 bytes of a
    // control row.
    unsafe {
        let mut out = [_mm512_setzero_si512(); 2];
        for c in 0..W {
            let idx = _mm512_loadu_si512(ctl.idx[c].as_ptr().cast());
            let sel = _mm512_loadu_si512(ctl.sel[c].as_ptr().cast());
            let gathered = _mm512_permutex2var_epi8(a[0], idx, a[1]);
            let bits = _mm512_bitshuffle_epi64_mask(gathered, sel);
            out[c / 8] = _mm512_mask_set1_epi64(out[c / 8], 1 << (c % 8), bits as i64);
        }
        out
    }
}

/// `a^(2^k)`: [`sqr`] for `k = 1`, else [`perm`] with the chain's table.
#[inline(always)]
fn sqr_k<const W: usize, const N: usize>(a: Poly, k: usize, table: &[(usize, PermCtl)]) -> Poly {
    if k == 1 {
        return sqr::<N>(a);
    }
    match table.iter().find(|(kk, _)| *kk == k) {
        Some((_, ctl)) => perm::<W>(a, ctl),
        // not a k of the chain (not reached from `tf_r2_inv`): squarings
        None => (0..k).fold(a, |x, _| sqr::<N>(x)),
    }
}

/// The chain of `r2_clmul::r2_inv_pow` on [`Poly`] values.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,vpclmulqdq")]
fn tf_r2_inv<const W: usize, const N: usize>(a: &[u16], r: &mut [u16]) {
    let a = &a[..N];
    let r = &mut r[..N];
    let table = ctl_table(N);
    let mut words = [0u64; 16];
    pack_mod_phi(a, &mut words);
    // SAFETY: AVX-512F is enabled; the loads and the stores cover the 16 words of `words`.
    let x: Poly = unsafe {
        [
            _mm512_loadu_si512(words.as_ptr().cast()),
            _mm512_loadu_si512(words.as_ptr().add(8).cast()),
        ]
    };
    // beta_k = x^(2^k - 1) for k = e = n - 2, scanning e's bits from the top
    let e = N - 2;
    let mut beta = x;
    let mut k = 1;
    for bit in (0..(usize::BITS - 1 - e.leading_zeros()) as usize).rev() {
        let s = sqr_k::<W, N>(beta, k, table);
        beta = mul::<W, N>(s, beta);
        k *= 2;
        if (e >> bit) & 1 == 1 {
            let s = sqr::<N>(beta);
            beta = mul::<W, N>(s, x);
            k += 1;
        }
    }
    debug_assert_eq!(k, e);
    let inv = sqr::<N>(beta);
    // SAFETY: as above.
    unsafe {
        _mm512_storeu_si512(words.as_mut_ptr().cast(), inv[0]);
        _mm512_storeu_si512(words.as_mut_ptr().add(8).cast(), inv[1]);
    }
    unpack_mod_phi(&words, r);
    words.zeroize();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation of the chains (and a few other `k`) against repeated squaring.
    #[test]
    fn permutations_match_squarings() {
        let Some(_) = R2Avx512::try_new() else {
            eprintln!("skipped: this CPU lacks an AVX-512 subset used here");
            return;
        };
        #[target_feature(
            enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,vpclmulqdq"
        )]
        fn check<const W: usize, const N: usize>() {
            let mut seed = 0x1234_5678u64 ^ N as u64;
            let mut ks: Vec<usize> = chain_ks(N).filter(|&k| k >= 2).collect();
            ks.extend([2, 3, 5]);
            for k in ks {
                let ctl = build_ctl(N, k);
                for case in 0..6 {
                    let mut w = [0u64; 16];
                    for (i, x) in w.iter_mut().enumerate().take(W) {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        *x = match case {
                            0 => u64::MAX,
                            1 => u64::from(i == 0),
                            _ => seed,
                        };
                    }
                    w[W - 1] &= top_mask(N);
                    // SAFETY: AVX-512F is enabled here.
                    let a: Poly = unsafe {
                        [
                            _mm512_loadu_si512(w.as_ptr().cast()),
                            _mm512_loadu_si512(w.as_ptr().add(8).cast()),
                        ]
                    };
                    let want = (0..k).fold(a, |x, _| sqr::<N>(x));
                    let got = perm::<W>(a, &ctl);
                    let (mut ww, mut gw) = ([0u64; 16], [0u64; 16]);
                    // SAFETY: as above.
                    unsafe {
                        _mm512_storeu_si512(ww.as_mut_ptr().cast(), want[0]);
                        _mm512_storeu_si512(ww.as_mut_ptr().add(8).cast(), want[1]);
                        _mm512_storeu_si512(gw.as_mut_ptr().cast(), got[0]);
                        _mm512_storeu_si512(gw.as_mut_ptr().add(8).cast(), got[1]);
                    }
                    assert_eq!(gw, ww, "n = {N}, k = {k}, case {case}");
                }
            }
        }
        // SAFETY: the token above proves the features.
        unsafe {
            check::<8, 509>();
            check::<11, 677>();
            check::<11, 701>();
            check::<13, 821>();
        }
    }
}
