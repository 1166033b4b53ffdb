//! Schoolbook linear convolutions of 16-bit coefficients on AVX-512 VNNI (`vpdpwssd`), the
//! point products of the Toom-Cook multipliers of NTRU (`ntru/toom_vnni.rs`, mod `2^16`) and
//! NTRU Prime (`ntruprime/toom_vnni.rs`, mod 4591).
//!
//! `vpdpwssd` multiplies 32 pairs of signed 16-bit words and adds each pair's two products to a
//! 32-bit lane: 32 multiply-adds per instruction, two instructions a cycle on Intel's server
//! cores. A product of two polynomials of `N = 16 G` coefficients keeps the 16 outputs
//! `P_(16 t .. 16 t + 16)` in one vector of 32-bit sums; the broadcast pair `(A_(2 m),
//! A_(2 m + 1))` times the window `W_s` (lane `i` the pair `(B_(s + i), B_(s + i - 1))`, zero
//! outside `0..N`) with `s = 16 t - 2 m` adds both of its terms to every lane. With `m = 8 g +
//! j` and `t = g + d`, the window is `W_(16 d - 2 j)`: it does not depend on `g`. All windows
//! are unaligned loads from one array of pairs `E_k = (B_k, B_(k - 1))` ([`pairs`]: `G + 1`
//! `vpermw`). The groups run in one or two chunks of `C` ([`point`], [`chunk`]): for each `j`
//! the chunk's `C` broadcast pairs stay in registers, each window `d = 0 ..= G` is loaded once
//! and multiplied by all of them into the sums of blocks `g + d` (`C + G` registers of sums).
//! That is `8 G (G + 1)` instructions a product. For small `G` the chains of dependent
//! `vpdpwssd` on a block's sum, not the multiply ports, would bound a chunk, so some middle
//! blocks take the odd `j` in a second register ([`chunk`]). The sums are handed block by
//! block to a [`Sink`], which narrows them as its multiplier needs (the low 16 bits for NTRU,
//! a Montgomery reduction mod 4591 for NTRU Prime).
//!
//! Every step is a fixed sequence of vector operations on addresses that depend on `G` alone,
//! so a product is constant time.

#![allow(unsafe_code)]

use crate::rings::unroll;
use core::arch::x86_64::*;
use std::sync::OnceLock;

/// Whether this CPU runs AVX-512F, BW and VNNI at full rate, as far as can be told: the
/// features are present and the CPU is not an AMD of family 25 (Zen 4, the only AVX-512 CPUs
/// of that family), which executes 512-bit instructions as two 256-bit halves, so that
/// `vpdpwssd` runs one a cycle there instead of two. Other CPUs whose 512-bit `vpdpwssd` issues
/// once a cycle (Intel's client cores with AVX-512, server parts with one 512-bit multiply
/// port) are not told apart. Decided once: `cpuid` traps to the hypervisor in a virtual
/// machine.
pub(crate) fn full_rate_vnni() -> bool {
    static FAST: OnceLock<bool> = OnceLock::new();
    *FAST.get_or_init(|| {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
            && !crate::cpu::is_zen4()
    })
}

/// Lane mask of the first `k` of 32 16-bit lanes (all of them for `k >= 32`): the masked
/// loads and stores of the VNNI products' partial vectors.
#[inline(always)]
pub(crate) fn lanes16(k: usize) -> __mmask32 {
    if k >= 32 {
        !0
    } else {
        (1u32 << k) - 1
    }
}

/// Receives the blocks of 16 32-bit sums of a [`point`] product.
pub(crate) trait Sink {
    /// Block `k` (coefficients `16 k .. 16 k + 16`). Called only from code compiled with
    /// AVX-512F, BW and VNNI ([`point`]), which implementations may rely on.
    fn put(&mut self, k: usize, sums: __m512i);
}

/// The pair array of one evaluated `b` (`src`: 16 zeros, the values, zeros up to 64 past
/// `N = 16 (D - 1)`): `E_k = (B_k, B_(k - 1))` (low word first) for `-16 <= k < 16 D`, `E_k` at
/// 32-bit lane `k + 16` of `e`; zero where both words are outside `0..N`. Window `W_s` is then
/// `E_s .. E_(s + 16)`, one unaligned load.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
pub(crate) fn pairs<const D: usize>(src: &[u16], e: &mut [u16]) {
    // Word 2 i takes element i + 1 of the 32 loaded from k - 1, word 2 i + 1 element i. The
    // index goes through `black_box` so that the compiler keeps the one `vpermw` (with
    // constant indices it may expand permutations into several shuffles).
    let idx: [u16; 32] =
        core::hint::black_box(core::array::from_fn(|w| (w / 2 + (1 - w % 2)) as u16));
    assert!(src.len() >= 16 * D + 47 && e.len() >= 32 * (D + 1));
    // SAFETY: a plain load of a 64-byte array (AVX-512F enabled here).
    let idx = unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) };
    // E_-16 .. E_-1 are zero
    e[..32].fill(0);
    for c in 1..=D {
        // E_(16 (c - 1)) ..: elements 16 (c - 1) - 1 .. of B, at 16 c - 1 of src
        let start = 16 * c - 1;
        // SAFETY: start + 32 <= 16 D + 47 <= src.len() and 32 (c + 1) <= e.len() by the
        // assertion (AVX-512BW enabled here).
        unsafe {
            let v = _mm512_loadu_si512(src.as_ptr().add(start).cast());
            let w = _mm512_permutexvar_epi16(idx, v);
            _mm512_storeu_si512(e.as_mut_ptr().add(32 * c).cast(), w);
        }
    }
}

/// `acc[ix(o + k)] += vpdpwssd(b[k], w)` for the listed `k` (each with its position `C + k`
/// among the operands), one assembly block. In assembly because for the generic x86-64 target
/// LLVM rewrites the `vpdpwssd` intrinsic into `vpmaddwd` and `vpaddd`, two operations on the
/// vector ports instead of one (3.4 µs instead of ~2 µs for `n = 677` in the first version).
macro_rules! dp_block {
    ($acc:ident, $ix:ident, $o:expr, $b:ident, $w:expr; $($k:literal @ $p:literal),*) => {
        core::arch::asm!(
            $(concat!("vpdpwssd {", stringify!($k), "}, {", stringify!($p), "}, {w}"),)*
            $(inout(zmm_reg) $acc[$ix($o + $k)],)*
            $(in(zmm_reg) $b[$k],)*
            w = in(zmm_reg) $w,
            options(pure, nomem, nostack, preserves_flags),
        )
    };
}

/// The middle sums of a chunk of `C` groups and `D` windows: the `ex` sums from `lo` of its
/// `C + D - 1`, which take the odd `j` in registers of their own ([`chunk`]).
#[derive(Clone, Copy)]
struct Middle {
    sums: usize,
    lo: usize,
    ex: usize,
}

impl Middle {
    #[inline(always)]
    const fn new(c: usize, d: usize, ex: usize) -> Self {
        let sums = c + d - 1;
        Middle {
            sums,
            lo: (sums - ex) / 2,
            ex,
        }
    }

    /// Where sum `s` accumulates (a constant once the loops are unrolled): its own register,
    /// or for odd `j` and a middle sum, one of the `ex` registers above the sums.
    #[inline(always)]
    const fn slot(self, odd: bool, s: usize) -> usize {
        if odd && s >= self.lo && s < self.lo + self.ex {
            self.sums + s - self.lo
        } else {
            s
        }
    }
}

/// Groups `g0 .. g0 + C` of [`point`]: `acc[k]` holds the sums of block `g0 + k`
/// (`k < C + D - 1`). The `C` broadcast pairs of each `j` stay in registers and each window is
/// loaded once for them. With one register per block, each block's sum would be a chain of up
/// to `8 C` dependent `vpdpwssd` (about six cycles each on Intel's server cores) against
/// `4 C D` cycles of issue for the chunk: for `D < 12` the chains, not the two multiply
/// ports, would bound the time. So the `EX` middle sums take the odd `j` in registers of
/// their own ([`Middle::slot`]), added in at the end: `2 C + D + EX <= 32` registers. Those
/// `EX` entries of `acc` above the sums must be zero on entry (as [`point`] hands them over);
/// they are left holding the odd terms.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn chunk<const C: usize, const D: usize, const EX: usize>(
    ap: &[u16],
    g0: usize,
    win: &[u16],
    acc: &mut [__m512i; 32],
) {
    assert!(2 * C + D + EX <= 32 && (5..=8).contains(&C));
    assert!(ap.len() >= 16 * (g0 + C) && win.len() >= 32 * (D + 1) && D <= 14);
    let mid = Middle::new(C, D, EX);
    // One `j`: the `C` broadcast pairs, then each window `d < D` loaded once and multiplied by
    // all of them. A macro, not a function: the compiler would not inline a function of that
    // size called twice, and the sums would go through memory.
    macro_rules! step {
        ($j:expr, $odd:expr) => {{
            let j: usize = $j;
            let mut b = [_mm512_setzero_si512(); 8];
            for (k, x) in b.iter_mut().enumerate().take(C) {
                let at = 16 * (g0 + k) + 2 * j;
                let pair = i32::from(ap[at]) | (i32::from(ap[at + 1]) << 16);
                *x = _mm512_set1_epi32(pair);
            }
            // unrolled, so that the accumulators' indices are constants and they stay in
            // registers
            unroll!(d in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13] {
                if d < D {
                    // W_(16 d - 2 j): E_k from k = 16 d - 2 j, at word 32 (d + 1) - 4 j of the
                    // pair array; at + 32 <= 32 (d + 2) <= 32 (D + 1) <= win.len() by the
                    // assertion
                    let at = 32 * (d + 1) - 4 * j;
                    // SAFETY: words at .. at + 32 of `win` (AVX-512F enabled here).
                    let w = unsafe { _mm512_loadu_si512(win.as_ptr().add(at).cast()) };
                    let ix = |s: usize| mid.slot($odd, s);
                    // SAFETY: register-only instructions of AVX-512 VNNI (enabled here); they
                    // write only the accumulators.
                    unsafe {
                        match C {
                            5 => dp_block!(acc, ix, d, b, w; 0 @ 5, 1 @ 6, 2 @ 7, 3 @ 8, 4 @ 9),
                            6 => dp_block!(acc, ix, d, b, w; 0 @ 6, 1 @ 7, 2 @ 8, 3 @ 9, 4 @ 10,
                                5 @ 11),
                            7 => dp_block!(acc, ix, d, b, w; 0 @ 7, 1 @ 8, 2 @ 9, 3 @ 10, 4 @ 11,
                                5 @ 12, 6 @ 13),
                            _ => dp_block!(acc, ix, d, b, w; 0 @ 8, 1 @ 9, 2 @ 10, 3 @ 11,
                                4 @ 12, 5 @ 13, 6 @ 14, 7 @ 15),
                        }
                    }
                }
            });
        }};
    }
    // two `j` an iteration, so that whether `j` is odd is a constant in each
    for jj in 0..4 {
        step!(2 * jj, false);
        step!(2 * jj + 1, true);
    }
    for k in 0..EX {
        let (s, x) = (mid.lo + k, mid.sums + k);
        acc[s] = _mm512_add_epi32(acc[s], acc[x]);
    }
}

/// One point product `A · B` (linear, `16 G x 16 G` coefficients, exact 32-bit sums while
/// every product's magnitude stays below `2^31 / (16 G)`) from the evaluated `a` (`ap`, `16 G`
/// values) and the pair array of `b` ([`pairs`]), handed to `sink` as `2 G` blocks of 16 sums
/// (block `k`: coefficients `16 k .. 16 k + 16`, each block once, in increasing order):
/// groups `0 .. C1`, then `C1 .. G` (`C2 = G - C1`, possibly 0), the second starting from the
/// first's sums; in each chunk `EX` middle sums take the odd `j` in a second register
/// ([`chunk`]).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
pub(crate) fn point<
    const G: usize,
    const D: usize,
    const C1: usize,
    const C2: usize,
    const EX: usize,
    S: Sink,
>(
    ap: &[u16],
    win: &[u16],
    sink: &mut S,
) {
    debug_assert!(C1 + C2 == G && D == G + 1);
    assert!(2 * G <= 32);
    let mut acc = [_mm512_setzero_si512(); 32];
    chunk::<C1, D, EX>(ap, 0, win, &mut acc);
    if C2 > 0 {
        // blocks C1 .. C1 + D - 1 of the first chunk carry on, shifted down by C1; the rest
        // starts from zero
        let mut next = [_mm512_setzero_si512(); 32];
        next[..C1 + D - 1 - C1].copy_from_slice(&acc[C1..C1 + D - 1]);
        chunk::<C2, D, EX>(ap, C1, win, &mut next);
        for (k, s) in acc.iter().enumerate().take(C1) {
            sink.put(k, *s);
        }
        for (k, s) in next.iter().enumerate().take(C2 + D - 1) {
            sink.put(C1 + k, *s);
        }
    } else {
        for (k, s) in acc.iter().enumerate().take(2 * G) {
            sink.put(k, *s);
        }
    }
}

/// `acc + vpdpwssd(a, b)`: the two products of each 32-bit lane's pair of signed 16-bit words
/// added to its sum (wrapping). In assembly for the reason given at `dp_block!`.
#[inline]
#[target_feature(enable = "avx512f,avx512vnni")]
pub(crate) fn dpwssd(mut acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: one register-only instruction of AVX-512 VNNI, enabled here.
    unsafe {
        core::arch::asm!(
            "vpdpwssd {acc}, {a}, {b}",
            acc = inout(zmm_reg) acc,
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    acc
}
