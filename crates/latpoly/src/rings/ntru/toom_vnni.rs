//! `poly_Rq_mul` on AVX-512 VNNI: Toom-Cook 4-way (mod `q`) or two Karatsuba levels (exact mod
//! `2^16`) whose seven or nine point products are schoolbook convolutions on `vpdpwssd`.
//!
//! `vpdpwssd` multiplies 32 pairs of signed 16-bit words and adds each pair's two products to a
//! 32-bit lane: 32 multiply-adds per instruction, two instructions a cycle on Intel's server
//! cores. A lane-sliced Karatsuba leaf ([`super::toom`]) spends a `vpmullw` and a `vpaddw` per
//! lane multiplication; here one `vpdpwssd` does the work of two of each. So the Karatsuba
//! levels below Toom-4, which save multiplications at the price of additions, transposes and
//! recombination, are not worth it any more: each point product is a plain schoolbook of limbs
//! of `N` coefficients.
//!
//! With limbs of `N = 16 ⌈n / 64⌉` coefficients (128 for `n = 509`, 176 for 677 and 701, 208
//! for 821) and `G = N / 16`:
//!
//! 1. **Toom-4 evaluation** of both operands (zero-padded to `4 N`) at `0, 1, -1, 2, -2, 1/2`
//!    (as `8 A(1/2)`) and `inf` ([`super::toom::eval4`]): seven polynomials of `N`
//!    coefficients each, mod `2^16`.
//! 2. **Point products** (the kernel is shared with NTRU Prime's Toom-8 product:
//!    [`crate::rings::vnni_conv`]), each a linear convolution `P = A B` of `N x N`
//!    coefficients. The 16 outputs `P_(16 t .. 16 t + 16)` live in one vector of 32-bit sums; the broadcast pair
//!    `(A_(2 m), A_(2 m + 1))` times the window `W_s` (lane `i` the pair `(B_(s + i),
//!    B_(s + i - 1))`, zero outside `0..N`) with `s = 16 t - 2 m` adds both of its terms to
//!    every lane. Grouping `m = 8 g + j` and `t = g + d`, the window is `W_(16 d - 2 j)`: it
//!    does not depend on `g`. All windows are unaligned loads from one array of pairs
//!    `E_k = (B_k, B_(k - 1))` (`G + 2` vectors, the first zero, the others one `vpermw`
//!    each: [`pairs`]). The groups
//!    run in one or two chunks of `C` ([`point`]): for each `j` the chunk's `C`
//!    broadcast pairs stay in registers, each window `d = 0 ..= G` is loaded once and
//!    multiplied by all of them into the sums of blocks `g + d` (`C + G` registers of sums).
//!    That is `8 G (G + 1)` instructions a point: 1,056 for `N = 176`, 7,392 for the product,
//!    against `n^2 / 32 = 14,322` for a schoolbook of the whole `n = 677`.
//! 3. **Toom-4 interpolation** ([`super::toom::interpolate`], exact mod `2^13`: it halves
//!    three times), the fold mod `x^n - 1` and the reduction mod `q`.
//!
//! The exact product mod `2^16` ([`ToomVnni::mul_exact`], the reference `poly_Rq_mul`) splits
//! the same four limbs by two Karatsuba levels instead ([`eval_kara`], [`recombine_kara`]):
//! nine point products, no division. 677 and 701: 3.35 -> 2.15 µs, 821: 4.7 -> 2.8 µs against
//! the lane-sliced Karatsuba multiplier of `fast.rs`, 509: 1.4 µs both (in-process medians,
//! thirtieth session).
//!
//! The sums wrap mod `2^32` and the words are read as signed: both keep every value right mod
//! `2^16`, all the interpolation needs. Measured on the Intel Emerald Rapids host of the
//! thirtieth session (in-process medians): 1.15 µs for `n = 509` (the Toom-4 multiplier over
//! Karatsuba: 1.1), 1.75 µs for 677 and 701 (2.4), 2.3 µs for 821 (3.35); the `vpdpwssd` alone
//! would take 1.26 µs at 677 (two a cycle at 2.9 GHz), and `perf` puts about 70% of the
//! samples on them. Every step is a fixed sequence of vector operations on
//! addresses that depend on `n` alone, so the product is constant time. (Valgrind cannot
//! execute AVX-512; the constant-time tests of the KEMs run the Toom-4 multiplier under
//! `LATPOLY_ISA=avx2`, as for `vnni.rs`.)

#![allow(unsafe_code)]

use super::fast::{with_workspace, Lanes};
use super::toom::{eval4, interpolate, overlap, Operand};
use super::x86::Avx512Lanes;
use crate::rings::vnni_conv::{full_rate_vnni, lanes16, pairs, point, Sink};
use core::arch::x86_64::*;
use std::sync::OnceLock;

/// Proof that the CPU runs AVX-512F, AVX-512BW and AVX-512 VNNI, and is not an AMD Zen 4.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ToomVnni(Avx512Lanes);

impl ToomVnni {
    /// The token, on CPUs with AVX-512F, BW and VNNI other than AMD's family 25 (Zen 4, the
    /// only AVX-512 CPUs of that family), which executes 512-bit instructions as two 256-bit
    /// halves: `vpdpwssd` runs one a cycle there instead of two, and the 16-lane Toom-4
    /// multiplier, which that CPU takes for 677 and 701, was 1.8-2.1 µs on it against an
    /// estimated 2.5 µs here (not measured: no such host since this module was written).
    /// Other CPUs whose 512-bit `vpdpwssd` issues once a cycle (Intel's client cores with
    /// AVX-512, server parts with one 512-bit multiply port) are not told apart: on them the
    /// product is estimated at about the Toom-4 multiplier's speed (not measured either).
    pub(crate) fn try_new() -> Option<Self> {
        // decided once: `cpuid` traps to the hypervisor in a virtual machine
        static TOKEN: OnceLock<Option<ToomVnni>> = OnceLock::new();
        *TOKEN.get_or_init(|| {
            if !full_rate_vnni() {
                return None;
            }
            Avx512Lanes::try_new().map(Self)
        })
    }

    /// Length (`u16`) of an operand of degree `n` prepared by [`ToomVnni::prepare`]; `None`
    /// when `n` is not an NTRU degree.
    pub(crate) fn prepared_len(n: usize) -> Option<usize> {
        Layout::new(n).map(|l| l.pts)
    }

    /// Evaluates `a` (`n` coefficients) into `dst` ([`ToomVnni::prepared_len`] elements) for
    /// several products. `None` when `n` is not an NTRU degree or `dst` has another length.
    pub(crate) fn prepare(self, a: &[u16], dst: &mut [u16]) -> Option<()> {
        let lay = Layout::new(a.len()).filter(|l| l.pts == dst.len())?;
        // SAFETY: the token proves the features the entry point enables.
        unsafe { tf_stage(self.0, lay, a, dst) };
        Some(())
    }

    /// `out = a · b mod (x^n - 1, q)`, coefficients in `[0, q)`, for a power of two
    /// `q <= 2^13` (every bit of the 16-bit inputs counts), the operands given as `n`
    /// coefficients or prepared by [`ToomVnni::prepare`]. `None` when `n` is not an NTRU
    /// degree, a length does not match or `q` is not such a power of two.
    pub(crate) fn mul_modq(
        self,
        a: Operand<'_>,
        b: Operand<'_>,
        out: &mut [u16],
        q: u16,
    ) -> Option<()> {
        let lay = Layout::new(out.len())?;
        let fits = |x: Operand<'_>| match x {
            Operand::Coeffs(c) => c.len() == lay.n,
            Operand::Prepared(p) => p.len() == lay.pts,
        };
        if !fits(a) || !fits(b) || !q.is_power_of_two() || q > 1 << 13 {
            return None;
        }
        with_workspace(lay.total(TOOM), |ws| {
            // SAFETY: the token proves the features the entry point enables.
            unsafe { tf_mul::<TOOM>(self.0, lay, a, b, out, q - 1, ws) }
        });
        Some(())
    }

    /// `out = a · b mod (x^n - 1, 2^16)`, exact (the reference `poly_Rq_mul`): two Karatsuba
    /// levels instead of Toom-4 (nine point products instead of seven; no division, so
    /// nothing is lost mod `2^16`). `None` when `n` is not an NTRU degree or the lengths
    /// differ.
    pub(crate) fn mul_exact(self, a: &[u16], b: &[u16], out: &mut [u16]) -> Option<()> {
        let lay = Layout::new(out.len())?;
        if a.len() != lay.n || b.len() != lay.n {
            return None;
        }
        let (a, b) = (Operand::Coeffs(a), Operand::Coeffs(b));
        with_workspace(lay.total(KARATSUBA), |ws| {
            // SAFETY: the token proves the features the entry point enables.
            unsafe { tf_mul::<KARATSUBA>(self.0, lay, a, b, out, 0xffff, ws) }
        });
        Some(())
    }
}

/// Point products of Toom-4 ([`eval4`], [`interpolate`]: exact mod `2^13`).
const TOOM: usize = 7;
/// Point products of two Karatsuba levels ([`eval_kara`], [`recombine_kara`]: exact mod
/// `2^16`).
const KARATSUBA: usize = 9;

/// Sizes and workspace regions (`u16`, each a multiple of 32, so every region starts on a
/// 64-byte boundary of the aligned workspace) for degree `n`.
#[derive(Clone, Copy, Debug)]
struct Layout {
    n: usize,
    /// Limb length `N`, a multiple of 16 with `4 N >= n`.
    big: usize,
    /// `N` rounded up to a multiple of 32.
    np: usize,
    /// Stride of an evaluated operand's points: 16 zeros, `np` values (zero past `N`), 48
    /// zeros.
    bs: usize,
    /// Length of one operand evaluated for Toom-4 (`7 bs`, as prepared).
    pts: usize,
    /// Region lengths: the windows, the full product (the point products' region depends on
    /// their number, [`Layout::prod`]).
    win: usize,
    full: usize,
}

impl Layout {
    fn new(n: usize) -> Option<Self> {
        if !matches!(n, 509 | 677 | 701 | 821) {
            return None;
        }
        let big = 16 * n.div_ceil(64);
        let np = big.div_ceil(32) * 32;
        let bs = np + 64;
        let g = big / 16;
        let (pts, win) = (TOOM * bs, 32 * (g + 2));
        // the full product 8N, with room for the fold's last (partial) vector
        let full = 8 * big + 64;
        Some(Layout {
            n,
            big,
            np,
            bs,
            pts,
            win,
            full,
        })
    }

    /// The region of `p` point products of 2N values (a multiple of 32), and 32 values read
    /// past the last by the interpolation's unaligned loads.
    fn prod(self, p: usize) -> usize {
        p * 2 * self.big + 32
    }

    /// Workspace of a product with `p` point products: two evaluated operands and the other
    /// regions.
    fn total(self, p: usize) -> usize {
        2 * p * self.bs + self.win + self.prod(p) + self.full
    }
}

#[target_feature(enable = "avx512f,avx512bw")]
fn tf_stage(t: Avx512Lanes, lay: Layout, a: &[u16], dst: &mut [u16]) {
    match lay.big / 16 {
        8 => stage::<8, TOOM>(t, lay, a, dst),
        11 => stage::<11, TOOM>(t, lay, a, dst),
        _ => stage::<13, TOOM>(t, lay, a, dst),
    }
}

/// Evaluation of `x` (`n` coefficients, zero-padded to four limbs of `N = 16 G`) for the `P`
/// point products ([`TOOM`] or [`KARATSUBA`]) into `dst` (`P bs`): point `p` at
/// `dst[p bs + 16 ..]`, `N` values, zeros around them. (The sizes are constants of `G`, so
/// that the zero fills are plain vector stores.)
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn stage<const G: usize, const P: usize>(t: Avx512Lanes, lay: Layout, x: &[u16], dst: &mut [u16]) {
    let big = 16 * G;
    let np = big.div_ceil(32) * 32;
    let bs = np + 64;
    debug_assert!(big == lay.big && np == lay.np && bs == lay.bs);
    assert!(x.len() == lay.n && dst.len() == P * bs);
    for p in 0..P {
        dst[p * bs..p * bs + 16].fill(0);
        dst[p * bs + 16 + np..(p + 1) * bs].fill(0);
    }
    for c in (0..np).step_by(32) {
        // (loops, not closures: a closure would not inherit the target features)
        let mut limbs = [t.zero(); 4];
        for (i, limb) in limbs.iter_mut().enumerate() {
            let (start, end) = (i * big + c, ((i + 1) * big).min(lay.n));
            if start < end {
                // SAFETY: the masked load reads only x[start..min(start + 32, end)], in bounds
                // as end <= n (AVX-512BW enabled here).
                *limb = unsafe {
                    _mm512_maskz_loadu_epi16(lanes16(end - start), x.as_ptr().add(start).cast())
                };
            }
        }
        if P == TOOM {
            for (p, &v) in eval4(t, limbs).iter().enumerate() {
                t.store(&mut dst[p * bs + 16 + c..], v);
            }
        } else {
            for (p, &v) in eval_kara(t, limbs).iter().enumerate() {
                t.store(&mut dst[p * bs + 16 + c..], v);
            }
        }
    }
}

/// The product with `P` point products, the result masked with `mask`.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn tf_mul<const P: usize>(
    t: Avx512Lanes,
    lay: Layout,
    a: Operand<'_>,
    b: Operand<'_>,
    out: &mut [u16],
    mask: u16,
    ws: &mut [u16],
) {
    // The fifth parameter: middle sums with a second register ([`point`]'s `EX`). Six for
    // `G = 8`, whose nine windows leave the chains of dependent `vpdpwssd` longer than the
    // chunk's issue time (509 mod q: 958-986 -> 906-928 ns, in-process medians); none for
    // `G >= 11`, where an asm probe of the loop showed no gain (fifty-third session).
    match lay.big / 16 {
        8 => body::<8, 9, 8, 0, 6, P>(t, lay, a, b, out, mask, ws),
        11 => body::<11, 12, 6, 5, 0, P>(t, lay, a, b, out, mask, ws),
        _ => body::<13, 14, 7, 6, 0, P>(t, lay, a, b, out, mask, ws),
    }
}

/// Two Karatsuba levels of `a0 + a1 y + a2 y^2 + a3 y^3` (lane-wise): `(lo, hi, lo + hi)` at
/// the outer level with `lo = a0 + a1 y`, `hi = a2 + a3 y`, each split again into its two
/// halves and their sum.
#[inline(always)]
fn eval_kara(t: Avx512Lanes, [a0, a1, a2, a3]: [__m512i; 4]) -> [__m512i; 9] {
    let (m0, m1) = (t.add(a0, a2), t.add(a1, a3));
    [
        a0,
        a1,
        t.add(a0, a1),
        a2,
        a3,
        t.add(a2, a3),
        m0,
        m1,
        t.add(m0, m1),
    ]
}

/// The coefficients `c0 .. c6` of `y = x^N` (lane-wise) from the nine point products of
/// [`eval_kara`] (exact: additions and subtractions only).
#[inline(always)]
fn recombine_kara(t: Avx512Lanes, w: [__m512i; 9]) -> [__m512i; 7] {
    // (loops, not closures: a closure would not inherit the target features)
    // each outer product u0 v0 + y (u01 v01 - u0 v0 - u1 v1) + y^2 u1 v1
    let mut x = [[t.zero(); 3]; 3];
    for (k, xk) in x.iter_mut().enumerate() {
        let (p0, p1, p01) = (w[3 * k], w[3 * k + 1], w[3 * k + 2]);
        *xk = [p0, t.sub(t.sub(p01, p0), p1), p1];
    }
    let [l, h, m] = x;
    // lo + y^2 (mid - lo - hi) + y^4 hi
    let mut mid = [t.zero(); 3];
    for k in 0..3 {
        mid[k] = t.sub(t.sub(m[k], l[k]), h[k]);
    }
    [
        l[0],
        l[1],
        t.add(l[2], mid[0]),
        mid[1],
        t.add(mid[2], h[0]),
        h[1],
        h[2],
    ]
}

/// The product for `G = N / 16` and `D = G + 1` (see the module documentation), the groups
/// of each point product in chunks of `C1` and `C2` ([`point`]).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn body<
    const G: usize,
    const D: usize,
    const C1: usize,
    const C2: usize,
    const EX: usize,
    const P: usize,
>(
    t: Avx512Lanes,
    lay: Layout,
    a: Operand<'_>,
    b: Operand<'_>,
    out: &mut [u16],
    mask: u16,
    ws: &mut [u16],
) {
    // constants of G (as the loops' bounds)
    let (n, big, bs) = (lay.n, 16 * G, (16 * G).div_ceil(32) * 32 + 64);
    debug_assert!(big == lay.big && bs == lay.bs && D == G + 1);
    let ws = &mut ws[..lay.total(P)];
    let (abuf, ws) = ws.split_at_mut(P * bs);
    let (bbuf, ws) = ws.split_at_mut(P * bs);
    let (win, ws) = ws.split_at_mut(lay.win);
    let (prod, full) = ws.split_at_mut(lay.prod(P));
    debug_assert_eq!(full.len(), lay.full);
    let apts: &[u16] = match a {
        Operand::Coeffs(c) => {
            stage::<G, P>(t, lay, c, abuf);
            abuf
        }
        Operand::Prepared(p) => p,
    };
    let bpts: &[u16] = match b {
        Operand::Coeffs(c) => {
            stage::<G, P>(t, lay, c, bbuf);
            bbuf
        }
        Operand::Prepared(p) => p,
    };
    for p in 0..P {
        pairs::<D>(&bpts[p * bs..(p + 1) * bs], win);
        point::<G, D, C1, C2, EX, _>(
            &apts[p * bs + 16..p * bs + 16 + big],
            win,
            &mut Low16(&mut prod[p * 2 * big..(p + 1) * 2 * big]),
        );
    }

    // Interpolation (or recombination), lane-wise: the coefficients c_i of y = x^N (2N values
    // each) land at i N, so full[i N + j] = c_i[j] + c_(i-1)[j + N] for j < N. Each step
    // interpolates the point products at j and at j + N (unaligned loads, as the steps are
    // linear) and stores the eight sums once: no zero fill and no read-modify-write of
    // `full`. The last step of an N that is not a multiple of 32 stores only its lanes below
    // N (its other lanes read past the products' 2N values: in the workspace, and dropped).
    for j in (0..big).step_by(32) {
        let mut lo = [t.zero(); KARATSUBA];
        let mut hi = [t.zero(); KARATSUBA];
        for p in 0..P {
            lo[p] = t.load(&prod[p * 2 * big + j..]);
            hi[p] = t.load(&prod[p * 2 * big + j + big..]);
        }
        let (cl, ch) = if P == TOOM {
            (
                interpolate(t, [lo[0], lo[1], lo[2], lo[3], lo[4], lo[5], lo[6]]),
                interpolate(t, [hi[0], hi[1], hi[2], hi[3], hi[4], hi[5], hi[6]]),
            )
        } else {
            (recombine_kara(t, lo), recombine_kara(t, hi))
        };
        let keep = lanes16(big - j);
        for i in 0..8 {
            let v = overlap(t, &cl, &ch, i);
            // SAFETY: the masked store writes only full[i N + j .. i N + min(j + 32, N)], in
            // bounds as full holds 8 N values (AVX-512BW by the token).
            unsafe { _mm512_mask_storeu_epi16(full.as_mut_ptr().add(i * big + j).cast(), keep, v) };
        }
    }

    // Fold mod x^n - 1 and mask: r[k] = c[k] + c[k + n].
    let mask = t.splat(mask);
    assert!(out.len() == n && full.len() >= 2 * n + 32);
    for k in (0..n).step_by(32) {
        let v = t.and(t.add(t.load(&full[k..]), t.load(&full[k + n..])), mask);
        if k + 32 <= n {
            t.store(&mut out[k..], v);
        } else {
            // SAFETY: the masked store writes only out[k..n] (AVX-512BW by the token).
            unsafe { _mm512_mask_storeu_epi16(out.as_mut_ptr().add(k).cast(), lanes16(n - k), v) };
        }
    }
}

/// The low 16 bits of each sum, block `k` at `prod[16 k..]`.
struct Low16<'a>(&'a mut [u16]);

impl Sink for Low16<'_> {
    #[inline(always)]
    fn put(&mut self, k: usize, sums: __m512i) {
        let dst = &mut self.0[16 * k..16 * k + 16];
        // SAFETY: 16 writable words; `point`, the only caller, runs with AVX-512F and BW.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm512_cvtepi32_epi16(sums)) };
    }
}

#[cfg(test)]
mod tests {
    use super::super::reference;
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The token, or `None` with a note that the test is skipped.
    fn token() -> Option<ToomVnni> {
        let v = ToomVnni::try_new();
        if v.is_none() {
            eprintln!("skipped: this CPU lacks AVX-512 VNNI (or is an AMD Zen 4)");
        }
        v
    }

    /// Operand pairs of degree `n`: all zero, all `0xffff`, `0x8000` by `0x7fff` and by
    /// `0x8000`, `0x1fff` by `0xffff`, 30 random pairs, and monomial pairs at every limb
    /// boundary and both ends, on both sides.
    fn cases(n: usize, rng: &mut ChaCha8Rng) -> Vec<(Vec<u16>, Vec<u16>)> {
        let mut cases: Vec<(Vec<u16>, Vec<u16>)> = vec![
            (vec![0; n], vec![0; n]),
            (vec![0xffff; n], vec![0xffff; n]),
            (vec![0x8000; n], vec![0x7fff; n]),
            (vec![0x8000; n], vec![0x8000; n]),
            (vec![0x1fff; n], vec![0xffff; n]),
        ];
        for _ in 0..30 {
            let a = (0..n).map(|_| rng.gen()).collect();
            let b = (0..n).map(|_| rng.gen()).collect();
            cases.push((a, b));
        }
        let big = 16 * n.div_ceil(64);
        let spots = [0, 1, big - 1, big, 2 * big + 7, 3 * big, n - 2, n - 1];
        for &i in &spots {
            for &j in &spots {
                let (mut a, mut b) = (vec![0u16; n], vec![0u16; n]);
                a[i] = 0xffff;
                b[j] = 0x8001;
                cases.push((a, b));
            }
        }
        cases
    }

    /// Random, extreme and monomial operands ([`cases`]) against the reference product, every
    /// degree and modulus up to 2^13, plain and prepared.
    #[test]
    fn matches_reference() {
        let Some(v) = token() else { return };
        let mut rng = ChaCha8Rng::seed_from_u64(30);
        for n in [509, 677, 701, 821] {
            let len = ToomVnni::prepared_len(n).unwrap();
            for (a, b) in &cases(n, &mut rng) {
                let mut full = vec![0u16; n];
                reference::rq_mul(a, b, &mut full);
                for q in [1u16 << 13, 4096, 2048, 2] {
                    let mut out = vec![0x5555u16; n];
                    let want: Vec<u16> = full.iter().map(|&x| x & (q - 1)).collect();
                    v.mul_modq(Operand::Coeffs(a), Operand::Coeffs(b), &mut out, q)
                        .unwrap();
                    assert_eq!(out, want, "n={n} q={q}");
                    // prepared operands, on either side
                    let (mut pa, mut pb) = (vec![1u16; len], vec![2u16; len]);
                    v.prepare(a, &mut pa).unwrap();
                    v.prepare(b, &mut pb).unwrap();
                    let mixes = [
                        (Operand::Prepared(&pa), Operand::Coeffs(b), "a prepared"),
                        (Operand::Coeffs(a), Operand::Prepared(&pb), "b prepared"),
                        (
                            Operand::Prepared(&pa),
                            Operand::Prepared(&pb),
                            "both prepared",
                        ),
                    ];
                    for (x, y, what) in mixes {
                        let mut o2 = vec![0x5555u16; n];
                        v.mul_modq(x, y, &mut o2, q).unwrap();
                        assert_eq!(o2, want, "n={n} q={q}, {what}");
                    }
                }
            }
        }
    }

    /// The exact product mod 2^16 against the reference on the operands of [`cases`], every
    /// degree.
    #[test]
    fn exact_matches_reference() {
        let Some(v) = token() else { return };
        let mut rng = ChaCha8Rng::seed_from_u64(216);
        for n in [509, 677, 701, 821] {
            for (a, b) in &cases(n, &mut rng) {
                let mut want = vec![0u16; n];
                reference::rq_mul(a, b, &mut want);
                let mut out = vec![0x5555u16; n];
                v.mul_exact(a, b, &mut out).unwrap();
                assert_eq!(out, want, "n={n}");
            }
        }
    }

    #[test]
    fn rejects_other_shapes() {
        let Some(v) = token() else { return };
        let c = Operand::Coeffs;
        let (a, mut out) = (vec![0u16; 512], vec![0u16; 512]);
        assert!(v.mul_modq(c(&a), c(&a), &mut out, 2048).is_none());
        assert!(ToomVnni::prepared_len(512).is_none());
        assert!(v.mul_exact(&a, &a, &mut out).is_none());
        let (a, b, mut out) = (vec![0u16; 509], vec![0u16; 508], vec![0u16; 509]);
        assert!(v.mul_modq(c(&a), c(&b), &mut out, 2048).is_none());
        assert!(v.mul_exact(&a, &b, &mut out).is_none());
        assert!(v.mul_exact(&b, &a, &mut out).is_none());
        assert!(v.mul_modq(c(&b), c(&a), &mut out, 2048).is_none());
        assert!(v.mul_modq(c(&a), c(&a), &mut out, 1 << 14).is_none());
        assert!(v.mul_modq(c(&a), c(&a), &mut out, 3000).is_none());
        let len = ToomVnni::prepared_len(509).unwrap();
        let mut p = vec![0u16; len];
        assert!(v.prepare(&a, &mut p[..len - 1]).is_none());
        assert!(v.prepare(&b, &mut p).is_none());
        v.prepare(&a, &mut p).unwrap();
        let short = Operand::Prepared(&p[..len - 32]);
        assert!(v.mul_modq(short, c(&a), &mut out, 2048).is_none());
        // a prepared operand of another degree
        let mut p677 = vec![0u16; ToomVnni::prepared_len(677).unwrap()];
        v.prepare(&[0u16; 677], &mut p677).unwrap();
        assert!(v
            .mul_modq(Operand::Prepared(&p677), c(&a), &mut out, 2048)
            .is_none());
    }
}
