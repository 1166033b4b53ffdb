//! Scalar reference code: the specification of every NTRU routine.
//!
//! Each function mirrors the NIST round-3 reference C (jschanck/ntru@6d96ed37 `ref-common/`,
//! PQClean@6cd3167b `crypto_kem/ntru*/clean/`) statement for statement, with the C integer
//! semantics made explicit: `uint16_t` arithmetic is `wrapping_*` on `u16`, `int` intermediates
//! are computed wide and truncated where the C stores them into a `uint16_t`. Inputs are arbitrary
//! `u16` values, exactly as the C reads them, so the outputs match the reference (and its unit
//! vectors) bit for bit even on inputs that are not reduced.
//!
//! Constant time: no branch and no memory index depends on coefficient values. Secret-derived
//! masks are built from 0/1 values passed through the optimisation barrier first
//! ([`mask_u64`], [`swap_step`]), and multipliers go through [`barrier`], so that LLVM cannot
//! turn them back into branches (or unswitch a loop on them).

use crate::arith::ct::{barrier, mask_u64};
use crate::rings::bitslice::swap_step;
pub(super) use crate::rings::bitslice::{
    bit_plane, divsteps2, divsteps3, expand_trits, mod3_small, reverse_low, scalar_masks, top_mask,
    BitOps, Bits, TritOps, Trits,
};
use zeroize::Zeroize;

/// `a mod 3` for any `u16`. The reference `mod3(uint16_t)` folds `a` and ends with a mask
/// select; it returns the exact residue (checked exhaustively in the tests), so this computes the
/// residue directly, by the multiply and shift of [`crate::arith::ct::mod3_u16`] (no division,
/// in any build profile, and no branch that a select could become).
#[inline(always)]
pub(crate) fn mod3_u16(a: u16) -> u16 {
    crate::arith::ct::mod3_u16(a)
}

/// The reference `mod3(uint16_t)` statement for statement (kept to test [`mod3_u16`]).
#[cfg(test)]
fn mod3_reference(a: u16) -> u16 {
    let mut r = (a >> 8) + (a & 0xff); // r mod 255 == a mod 255
    r = (r >> 4) + (r & 0xf); // r' mod 15 == r mod 15
    r = (r >> 2) + (r & 0x3); // r' mod 3 == r mod 3
    r = (r >> 2) + (r & 0x3); // r' mod 3 == r mod 3
    let t = (r as i16).wrapping_sub(3);
    let c = t >> 15;
    ((c & r as i16) ^ (!c & t)) as u16
}

/// The `uint8_t mod3` of `poly_s3_inv.c` statement for statement (kept to test
/// [`mod3_small`]).
#[cfg(test)]
fn mod3_small_reference(a: u8) -> u8 {
    let a = (a >> 2) + (a & 3); // between 0 and 4
    let t = i16::from(a) - 3;
    let c = t >> 5;
    (t ^ (c & (i16::from(a) ^ t))) as u8
}

/// Cyclic convolution `r = a · b mod (x^n - 1)` computed in `u16` (mod `2^16`): the reference
/// `poly_Rq_mul` (schoolbook), no reduction mod `q`. Lengths are checked by the caller.
pub(crate) fn rq_mul(a: &[u16], b: &[u16], r: &mut [u16]) {
    let n = a.len();
    debug_assert!(b.len() == n && r.len() == n);
    r.fill(0);
    for (i, &ai) in a.iter().enumerate() {
        // x^i · b: coefficients j < n - i land at i + j, the others wrap to i + j - n.
        let (b_lo, b_hi) = b.split_at(n - i);
        let (r_lo, r_hi) = r.split_at_mut(i);
        for (rk, &bj) in r_hi.iter_mut().zip(b_lo) {
            *rk = rk.wrapping_add(ai.wrapping_mul(bj));
        }
        for (rk, &bj) in r_lo.iter_mut().zip(b_hi) {
            *rk = rk.wrapping_add(ai.wrapping_mul(bj));
        }
    }
}

/// `poly_mod_3_Phi_n`: `r[i] = mod3(r[i] + 2 r[n-1])`, the sum truncated to `u16` as in the C.
#[inline(always)]
pub(crate) fn mod_3_phi_n(r: &mut [u16]) {
    let last = r[r.len() - 1];
    let twice = last.wrapping_mul(2);
    for c in r.iter_mut() {
        *c = mod3_u16(c.wrapping_add(twice));
    }
}

/// `poly_mod_q_Phi_n`: `r[i] = r[i] - r[n-1]` (mod `2^16`, not reduced mod `q`).
#[inline(always)]
pub(crate) fn mod_q_phi_n(r: &mut [u16]) {
    let last = r[r.len() - 1];
    for c in r.iter_mut() {
        *c = c.wrapping_sub(last);
    }
}

/// `poly_Z3_to_Zq`: `r[i] | (-(r[i] >> 1) & (q - 1))`, i.e. `{0, 1, 2} -> {0, 1, q - 1}`.
#[inline(always)]
pub(crate) fn z3_to_zq(r: &mut [u16], q: u16) {
    // An opaque shift count: were the range {0, 1} of `c >> 1` known (after inlining into a
    // sampler), `-(c >> 1) & (q - 1)` could become a select, and a select a branch.
    let s = crate::arith::ct::opaque_shift(1);
    for c in r.iter_mut() {
        *c |= c.wrapping_shr(s).wrapping_neg() & (q - 1);
    }
}

/// `poly_trinary_Zq_to_Z3`: `t = r mod q; 3 & (t ^ (t >> (log q - 1)))`, i.e.
/// `{0, 1, q - 1} -> {0, 1, 2}` (other inputs give values in `0..=3`).
#[inline(always)]
pub(crate) fn trinary_zq_to_z3(r: &mut [u16], q: u16, log_q: u32) {
    for c in r.iter_mut() {
        let t = *c & (q - 1);
        *c = 3 & (t ^ (t >> (log_q - 1)));
    }
}

/// `poly_Rq_to_S3`: reduce mod `q`, move the upper half to `[-q/2, 0)` by adding `-q mod 3`,
/// then reduce mod `(3, Phi_n)`.
#[inline(always)]
pub(crate) fn rq_to_s3(a: &[u16], r: &mut [u16], q: u16, log_q: u32) {
    for (rc, &ac) in r.iter_mut().zip(a) {
        let t = ac & (q - 1);
        let flag = t >> (log_q - 1);
        *rc = t.wrapping_add(flag << (1 - (log_q & 1)));
    }
    mod_3_phi_n(r);
}

/// HPS `poly_lift`: a copy followed by `poly_Z3_to_Zq`.
#[inline(always)]
pub(crate) fn lift_hps(a: &[u16], r: &mut [u16], q: u16) {
    r.copy_from_slice(a);
    z3_to_zq(r, q);
}

/// The first three values of HRSS `poly_lift`'s `b` (the reference's loop over `a[3..]`
/// gathered per residue class): `class[r]` is the wrapping sum of `a[i]` over `i >= 3`,
/// `i = r mod 3`. Shared by [`lift_hrss`] and the vectorised lift.
pub(crate) fn lift_hrss_head(a: &[u16], class: [u16; 3]) -> [u16; 3] {
    let n = a.len();
    // t = -1/N mod 3 = -N mod 3, as `uint16_t t = 3 - (NTRU_N % 3)`.
    let t = (3 - (n % 3)) as u16;
    let two_minus_t = 2u16.wrapping_sub(t);
    let mut b = [
        a[0].wrapping_mul(two_minus_t)
            .wrapping_add(a[2].wrapping_mul(t)),
        a[1].wrapping_mul(two_minus_t),
        a[2].wrapping_mul(two_minus_t),
    ];
    let z = |k: usize| (k as u16 * t) % 3;
    for (r, &sum) in class.iter().enumerate() {
        let zr = z(r);
        b[0] = b[0].wrapping_add(sum.wrapping_mul(zr + 2 * t));
        b[1] = b[1].wrapping_add(sum.wrapping_mul(zr + t));
        b[2] = b[2].wrapping_add(sum.wrapping_mul(zr));
    }
    let zj = z(n - 3); // z after the loop
    b[1] = b[1].wrapping_add(a[0].wrapping_mul(zj + t));
    b[2] = b[2].wrapping_add(a[0].wrapping_mul(zj));
    b[2] = b[2].wrapping_add(a[1].wrapping_mul(zj + t));
    b
}

/// HRSS `poly_lift` (ref-common/poly_lift.c): `b = a / (x - 1) mod (3, Phi_n)` by the explicit
/// formula, then `Z3 -> Zq`, then `r = (x - 1) · b` (all in `u16`, not reduced mod `q`).
pub(crate) fn lift_hrss(a: &[u16], r: &mut [u16], q: u16) {
    let n = a.len();
    let mut b = vec![0u16; n];
    // The reference's loop runs z = (k t) mod 3 for the k-th term a[3 + k]: z depends only on
    // k mod 3, and the sums are linear (mod 2^16), so they are gathered per residue class first
    // (same result, no serial chain through z).
    let mut class = [0u16; 3];
    let body = a[3..].chunks_exact(3);
    for (r, &ai) in body.remainder().iter().enumerate() {
        class[r] = class[r].wrapping_add(ai);
    }
    for c in body {
        class[0] = class[0].wrapping_add(c[0]);
        class[1] = class[1].wrapping_add(c[1]);
        class[2] = class[2].wrapping_add(c[2]);
    }
    b[..3].copy_from_slice(&lift_hrss_head(a, class));
    // b[i] = b[i - 3] + 2 (a[i] + a[i - 1] + a[i - 2]): three running sums, three indices at a
    // time (so that each stays in a register).
    let mut acc = [b[0], b[1], b[2]];
    let mut i = 3;
    while i < n {
        for (j, acc_j) in acc.iter_mut().enumerate() {
            if i + j < n {
                let k = i + j;
                let s = a[k].wrapping_add(a[k - 1]).wrapping_add(a[k - 2]);
                *acc_j = acc_j.wrapping_add(s.wrapping_mul(2));
                b[k] = *acc_j;
            }
        }
        i += 3;
    }
    // Finish the reduction mod Phi_n, switch to {0, 1, q-1}, multiply by (x - 1).
    mod_3_phi_n(&mut b);
    z3_to_zq(&mut b, q);
    r[0] = b[0].wrapping_neg();
    for i in 0..n - 1 {
        r[i + 1] = b[i].wrapping_sub(b[i + 1]);
    }
}

/// `poly_R2_inv` (divstep, "Based on supercop-20200702/crypto_core/invhrss701/simpler"):
/// the inverse of `a` mod `(2, Phi_n)`, input read as `(a[i] ^ a[n-1]) & 1`.
///
/// Bit-sliced: every polynomial is a little-endian array of 64-bit words (bit `i` = coefficient
/// `i`), which runs the reference's exact step sequence on whole words.
#[inline(always)]
pub(crate) fn r2_inv(a: &[u16], r: &mut [u16]) {
    // one monomorphised copy per word count of the NTRU degrees (and of the tests' degrees)
    match a.len().div_ceil(64) {
        1 => r2_inv_words::<1>(a, r),
        2 => r2_inv_words::<2>(a, r),
        8 => r2_inv_words::<8>(a, r),
        11 => r2_inv_words::<11>(a, r),
        13 => r2_inv_words::<13>(a, r),
        _ => r2_inv_any(a, r),
    }
}

/// [`r2_inv`] for `n` of `W` words: fixed-size arrays, so every word loop is unrolled (and
/// vectorised where the backend's instruction set allows).
#[inline(always)]
fn r2_inv_words<const W: usize>(a: &[u16], r: &mut [u16]) {
    r2_inv_with::<W, Bits<W>>(a, r, |b| *b, |b| *b);
}

/// The `poly_R2_inv` step sequence on any [`BitOps`] representation `T`: the polynomials are
/// set up as [`Bits`], converted with `to`, run through the `2(n - 1) - 1` divsteps, and read
/// back with `from`.
#[inline(always)]
pub(super) fn r2_inv_with<const W: usize, T: BitOps>(
    a: &[u16],
    r: &mut [u16],
    to: impl Fn(&Bits<W>) -> T,
    from: impl Fn(&T) -> Bits<W>,
) {
    let n = a.len();
    debug_assert_eq!(n.div_ceil(64), W);
    let top_mask = top_mask(n);
    let mut f0 = Bits([u64::MAX; W]);
    f0.0[W - 1] = top_mask;
    let mut g0 = Bits([0u64; W]);
    let mut w0 = Bits([0u64; W]);
    w0.0[0] = 1;
    let last = a[n - 1];
    for (i, &ai) in a[..n - 1].iter().enumerate() {
        let bit = u64::from((ai ^ last) & 1);
        let pos = n - 2 - i;
        g0.0[pos / 64] |= bit << (pos % 64);
    }
    let (mut f, mut g, mut v, mut w) = (to(&f0), to(&g0), to(&Bits([0u64; W])), to(&w0));
    g0.0.zeroize();
    divsteps2(&mut f, &mut g, &mut v, &mut w, 2 * (n - 1) - 1, top_mask);
    let mut v = from(&v);
    for (i, ri) in r[..n - 1].iter_mut().enumerate() {
        let pos = n - 2 - i;
        *ri = ((v.0[pos / 64] >> (pos % 64)) & 1) as u16;
    }
    r[n - 1] = 0;
    v.0.zeroize();
}

/// [`r2_inv`] for any word count (heap-allocated words): the fallback and the test oracle.
fn r2_inv_any(a: &[u16], r: &mut [u16]) {
    let n = a.len();
    let words = n.div_ceil(64);
    let top_mask = top_mask(n);
    let mut f = vec![u64::MAX; words];
    f[words - 1] = top_mask;
    let mut g = vec![0u64; words];
    let mut v = vec![0u64; words];
    let mut w = vec![0u64; words];
    w[0] = 1;
    let last = a[n - 1];
    for (i, &ai) in a[..n - 1].iter().enumerate() {
        let bit = u64::from((ai ^ last) & 1);
        let pos = n - 2 - i;
        g[pos / 64] |= bit << (pos % 64);
    }
    let mut delta: i32 = 1;
    for _ in 0..2 * (n - 1) - 1 {
        // v = x · v (drop the coefficient that leaves degree n - 1)
        for k in (1..words).rev() {
            v[k] = (v[k] << 1) | (v[k - 1] >> 63);
        }
        v[0] <<= 1;
        v[words - 1] &= top_mask;

        let sign = mask_u64(g[0] & f[0] & 1);
        // swap = -1 iff delta > 0 and g[0] != 0
        let swap = swap_step(&mut delta, g[0] & 1 != 0);

        for k in 0..words {
            let t = swap & (f[k] ^ g[k]);
            f[k] ^= t;
            g[k] ^= t;
            let t = swap & (v[k] ^ w[k]);
            v[k] ^= t;
            w[k] ^= t;
        }
        for k in 0..words {
            g[k] ^= sign & f[k];
            w[k] ^= sign & v[k];
        }
        // g = g / x (the constant term is zero by now)
        for k in 0..words - 1 {
            g[k] = (g[k] >> 1) | (g[k + 1] << 63);
        }
        g[words - 1] >>= 1;
    }
    for (i, ri) in r[..n - 1].iter_mut().enumerate() {
        let pos = n - 2 - i;
        *ri = ((v[pos / 64] >> (pos % 64)) & 1) as u16;
    }
    r[n - 1] = 0;
}

/// A `poly_Rq_mul` implementation: `(a, b, out)`.
pub(crate) type MulFn<'a> = &'a dyn Fn(&[u16], &[u16], &mut [u16]);

/// `poly_R2_inv_to_Rq_inv`: four Newton steps `r = r · (2 - a · r)` in `u16` (precision
/// `2 -> 2^16`), with `b = -a` (wrapping), using `mul` for `poly_Rq_mul`.
pub(crate) fn r2_inv_to_rq_inv(ai: &[u16], a: &[u16], r: &mut [u16], mul: MulFn<'_>) {
    let n = a.len();
    let b: Vec<u16> = a.iter().map(|&x| x.wrapping_neg()).collect();
    let mut c = vec![0u16; n];
    let mut s = vec![0u16; n];
    r.copy_from_slice(ai);
    for _ in 0..2 {
        mul(r, &b, &mut c);
        c[0] = c[0].wrapping_add(2); // c = 2 - a·r
        mul(&c, r, &mut s); // s = r·c
        mul(&s, &b, &mut c);
        c[0] = c[0].wrapping_add(2); // c = 2 - a·s
        mul(&c, &s, r); // r = s·c
    }
}

/// `poly_S3_inv` (divstep over GF(3)): the inverse of `a` mod `(3, Phi_n)`, input read as
/// `mod3((a[i] & 3) + 2 (a[n-1] & 3))` (so a coefficient `3` counts as `0`).
///
/// Bit-sliced (two bit planes per polynomial, 64 coefficients per word), running the
/// reference's exact step sequence (`2(n - 1) - 1` divsteps with branch-free swaps and
/// eliminations) on whole words.
#[inline(always)]
pub(crate) fn s3_inv(a: &[u16], r: &mut [u16]) {
    // one monomorphised copy per word count of the NTRU degrees (and of the tests' degrees)
    match a.len().div_ceil(64) {
        1 => s3_inv_words::<1>(a, r),
        2 => s3_inv_words::<2>(a, r),
        8 => s3_inv_words::<8>(a, r),
        11 => s3_inv_words::<11>(a, r),
        13 => s3_inv_words::<13>(a, r),
        _ => s3_inv_bytewise(a, r),
    }
}

/// [`s3_inv`] for `n` of `W` words.
#[inline(always)]
fn s3_inv_words<const W: usize>(a: &[u16], r: &mut [u16]) {
    s3_inv_with::<W, Trits<W>>(a, r, |t| *t, |t| *t);
}

/// The `poly_S3_inv` step sequence on any [`TritOps`] representation `T`: the polynomials are
/// set up as [`Trits`], converted with `to`, run through the `2(n - 1) - 1` divsteps, and read
/// back with `from`.
#[inline(always)]
pub(super) fn s3_inv_with<const W: usize, T: TritOps>(
    a: &[u16],
    r: &mut [u16],
    to: impl Fn(&Trits<W>) -> T,
    from: impl Fn(&T) -> Trits<W>,
) {
    let n = a.len();
    debug_assert_eq!(n.div_ceil(64), W);
    let top_mask = top_mask(n);
    let mut f0 = Trits::<W>::ZERO;
    f0.p = [u64::MAX; W];
    f0.p[W - 1] = top_mask;
    let mut g0 = Trits::<W>::ZERO;
    let mut w0 = Trits::<W>::ZERO;
    w0.p[0] = 1;
    // g0[n - 2 - i] = ((a[i] & 3) + 2 (a[n-1] & 3)) mod 3 for i < n - 1, plane by plane:
    // v = a[i] & 3 as trits (3 counts as 0), then plus the constant c = 2 last mod 3
    // (c = 1 iff last = 2, c = 2 iff last = 1), selected by masks, then reversed.
    let (b0, b1) = (
        bit_plane::<W>(&a[..n - 1], 0),
        bit_plane::<W>(&a[..n - 1], 1),
    );
    let last = u64::from(a[n - 1] & 3);
    let c1 = mask_u64((last >> 1) & !last & 1);
    let c2 = mask_u64(last & !(last >> 1) & 1);
    let c0 = !(c1 | c2);
    let live = reverse_low(&[u64::MAX; W], n - 1); // the n - 1 low bits
    let (mut gp, mut gm) = ([0u64; W], [0u64; W]);
    for j in 0..W {
        let (p0, m0) = (b0[j] & !b1[j], b1[j] & !b0[j]);
        let z0 = !(p0 | m0) & live[j];
        gp[j] = (c0 & p0) | (c1 & z0) | (c2 & m0);
        gm[j] = (c0 & m0) | (c1 & p0) | (c2 & z0);
    }
    g0.p = reverse_low(&gp, n - 1);
    g0.m = reverse_low(&gm, n - 1);
    let (mut f, mut g, mut v, mut w) = (to(&f0), to(&g0), to(&Trits::ZERO), to(&w0));
    g0 = Trits::ZERO;
    core::hint::black_box(&g0);
    divsteps3(&mut f, &mut g, &mut v, &mut w, 2 * (n - 1) - 1, top_mask);
    let (s1, s2) = scalar_masks(f.c0());
    let mut vt = from(&v);
    // r[i] = sign · v[n - 2 - i]: the sign applied to the planes (identity for sign 1, the
    // swap of 1 and 2 for sign 2), then reversed and spread to one coefficient per word
    let (mut yp, mut ym) = ([0u64; W], [0u64; W]);
    for j in 0..W {
        yp[j] = (s1 & vt.p[j]) | (s2 & vt.m[j]);
        ym[j] = (s1 & vt.m[j]) | (s2 & vt.p[j]);
    }
    let (mut rp, mut rm) = (reverse_low(&yp, n - 1), reverse_low(&ym, n - 1));
    expand_trits(&rp, &rm, &mut r[..n - 1]);
    r[n - 1] = 0;
    // the inverse's copies and the divstep state (the secret input and its inverse)
    for x in [&mut yp, &mut ym, &mut rp, &mut rm] {
        x.zeroize();
    }
    vt.wipe();
    let z = to(&Trits::ZERO);
    (f, g, v, w) = (z, z, z, z);
    core::hint::black_box((&f, &g, &v, &w));
}

/// `poly_Sq_tobytes`: the first `n - 1` coefficients, each reduced mod `q`, as `log q`-bit
/// little-endian bit fields. Eight fields fill exactly `log q` bytes, so whole groups of eight go
/// through one 128-bit word; the remaining fields are packed bit by bit.
#[inline(always)]
pub(crate) fn sq_tobytes(a: &[u16], out: &mut [u8], log_q: u32) {
    // one copy per NTRU field width, so the shifts of a group are constants
    let groups = match log_q {
        11 => sq_tobytes_groups::<11>(a, out),
        12 => sq_tobytes_groups::<12>(a, out),
        13 => sq_tobytes_groups::<13>(a, out),
        _ => {
            out.fill(0);
            0
        }
    };
    let mask = (1u32 << log_q) - 1;
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    let mut pos = groups * log_q as usize;
    for &c in &a[groups * 8..a.len() - 1] {
        acc |= (u32::from(c) & mask) << bits;
        bits += log_q;
        while bits >= 8 {
            out[pos] = acc as u8;
            pos += 1;
            acc >>= 8;
            bits -= 8;
        }
    }
    if bits > 0 {
        out[pos] = acc as u8;
    }
}

/// The whole groups of eight fields of [`sq_tobytes`] for `LQ`-bit fields (clears the rest of
/// `out`); returns the number of groups.
#[inline(always)]
fn sq_tobytes_groups<const LQ: usize>(a: &[u16], out: &mut [u8]) -> usize {
    let mask = (1u64 << LQ) - 1;
    let coeffs = &a[..a.len() - 1];
    let groups = coeffs.len() / 8;
    for (chunk, o) in coeffs.chunks_exact(8).zip(out.chunks_exact_mut(LQ)) {
        // fields 0..4 in the low word (<= 52 bits), 4..8 in the high word
        let lo = (0..4).fold(0u64, |x, j| x | ((u64::from(chunk[j]) & mask) << (LQ * j)));
        let hi = (0..4).fold(0u64, |x, j| {
            x | ((u64::from(chunk[4 + j]) & mask) << (LQ * j))
        });
        let x = u128::from(lo) | (u128::from(hi) << (4 * LQ));
        o.copy_from_slice(&x.to_le_bytes()[..LQ]);
    }
    out[groups * LQ..].fill(0);
    groups
}

/// `poly_Sq_frombytes`: `n - 1` fields of `log q` bits, `r[n-1] = 0` (groups of eight fields
/// from one 128-bit word, as in [`sq_tobytes`]).
#[inline(always)]
pub(crate) fn sq_frombytes(bytes: &[u8], r: &mut [u16], log_q: u32) {
    let n = r.len();
    let groups = match log_q {
        11 => sq_frombytes_groups::<11>(bytes, r),
        12 => sq_frombytes_groups::<12>(bytes, r),
        13 => sq_frombytes_groups::<13>(bytes, r),
        _ => 0,
    };
    let mask = (1u32 << log_q) - 1;
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    let mut pos = groups * log_q as usize;
    for c in r[groups * 8..n - 1].iter_mut() {
        while bits < log_q {
            acc |= u32::from(bytes[pos]) << bits;
            pos += 1;
            bits += 8;
        }
        *c = (acc & mask) as u16;
        acc >>= log_q;
        bits -= log_q;
    }
    r[n - 1] = 0;
}

/// The whole groups of eight fields of [`sq_frombytes`] for `LQ`-bit fields; returns the number
/// of groups.
#[inline(always)]
fn sq_frombytes_groups<const LQ: usize>(bytes: &[u8], r: &mut [u16]) -> usize {
    let mask = (1u64 << LQ) - 1;
    let groups = (r.len() - 1) / 8;
    for (chunk, b) in r[..groups * 8]
        .chunks_exact_mut(8)
        .zip(bytes.chunks_exact(LQ))
    {
        let mut le = [0u8; 16];
        le[..LQ].copy_from_slice(b);
        let x = u128::from_le_bytes(le);
        let (lo, hi) = (x as u64, (x >> (4 * LQ)) as u64);
        for j in 0..4 {
            chunk[j] = ((lo >> (LQ * j)) & mask) as u16;
            chunk[4 + j] = ((hi >> (LQ * j)) & mask) as u16;
        }
    }
    groups
}

/// `r[n-1] = -(r[0] + ... + r[n-2])` in `u16`: `poly_Rq_sum_zero_frombytes` is
/// `poly_Sq_frombytes` followed by this.
pub(crate) fn set_sum_zero_last(r: &mut [u16]) {
    let n = r.len();
    let mut s: u16 = 0;
    for &c in &r[..n - 1] {
        s = s.wrapping_sub(c);
    }
    r[n - 1] = s;
}

/// `poly_S3_tobytes`: five coefficients per byte, `c = a4; c = 3c + a3; ...` each step mod 256
/// (the coefficients are used as they are, not reduced mod 3).
#[inline(always)]
pub(crate) fn s3_tobytes(a: &[u16], out: &mut [u8]) {
    let deg = a.len() - 1;
    // Whole bytes: the Horner steps mod 256 equal one sum mod 256 (reduction mod 256 commutes
    // with + and ·), which the compiler vectorises.
    let full = (deg / 5).min(out.len());
    for (o, c) in out[..full].iter_mut().zip(a.chunks_exact(5)) {
        let v = c[0]
            .wrapping_add(c[1].wrapping_mul(3))
            .wrapping_add(c[2].wrapping_mul(9))
            .wrapping_add(c[3].wrapping_mul(27))
            .wrapping_add(c[4].wrapping_mul(81));
        *o = v as u8;
    }
    for (i, o) in out.iter_mut().enumerate().skip(full) {
        let lo = 5 * i;
        let hi = (lo + 5).min(deg);
        let mut c: u16 = 0;
        for &x in a[lo..hi].iter().rev() {
            c = (3u16.wrapping_mul(c).wrapping_add(x)) & 255;
        }
        *o = c as u8;
    }
}

/// `poly_S3_frombytes`: base-3 digits by the reference's multiply-shift divisions, `r[n-1] = 0`,
/// then `poly_mod_3_Phi_n`.
#[inline(always)]
pub(crate) fn s3_frombytes(bytes: &[u8], r: &mut [u16]) {
    let n = r.len();
    let deg = n - 1;
    for (i, &byte) in bytes.iter().enumerate() {
        let c = u32::from(byte);
        let digits = [
            c,
            (c * 171) >> 9,
            (c * 57) >> 9,
            (c * 19) >> 9,
            (c * 203) >> 14,
        ];
        if 5 * i + 5 <= deg {
            for (j, &d) in digits.iter().enumerate() {
                r[5 * i + j] = d as u16;
            }
        } else {
            // The last, partial byte: repeated division by 3 of the (byte-sized) remainder.
            let mut c = c as u8;
            for j in 0..deg - 5 * i {
                r[5 * i + j] = u16::from(c);
                c = ((u32::from(c) * 171) >> 9) as u8;
            }
        }
    }
    r[n - 1] = 0;
    mod_3_phi_n(r);
}

/// The reference `poly_S3_inv` one coefficient per byte, statement for statement: the
/// fallback of [`s3_inv`] for degrees without a bit-sliced copy, and its test oracle.
fn s3_inv_bytewise(a: &[u16], r: &mut [u16]) {
    let n = a.len();
    let mut f = vec![1u8; n];
    let mut g = vec![0u8; n];
    let mut v = vec![0u8; n];
    let mut w = vec![0u8; n];
    w[0] = 1;
    let last = (a[n - 1] & 3) as u8;
    for i in 0..n - 1 {
        g[n - 2 - i] = mod3_small((a[i] & 3) as u8 + 2 * last);
    }
    let mut delta: i32 = 1;
    for _ in 0..2 * (n - 1) - 1 {
        v.copy_within(0..n - 1, 1);
        v[0] = 0;

        let sign = barrier(u16::from(mod3_small(2 * g[0] * f[0]))) as u8;
        let swap = swap_step(&mut delta, g[0] != 0) as u8;

        for (fi, gi) in f.iter_mut().zip(g.iter_mut()) {
            let t = swap & (*fi ^ *gi);
            *fi ^= t;
            *gi ^= t;
        }
        for (vi, wi) in v.iter_mut().zip(w.iter_mut()) {
            let t = swap & (*vi ^ *wi);
            *vi ^= t;
            *wi ^= t;
        }
        for (gi, &fi) in g.iter_mut().zip(&f) {
            *gi = mod3_small(*gi + sign * fi);
        }
        for (wi, &vi) in w.iter_mut().zip(&v) {
            *wi = mod3_small(*wi + sign * vi);
        }
        g.copy_within(1..n, 0);
        g[n - 1] = 0;
    }
    let sign = barrier(u16::from(f[0])) as u8;
    for i in 0..n - 1 {
        r[i] = u16::from(mod3_small(sign * v[n - 2 - i]));
    }
    r[n - 1] = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mod3_matches_the_reference() {
        for a in 0..=u16::MAX {
            assert_eq!(mod3_u16(a), mod3_reference(a), "a={a}");
        }
        for a in 0..=9u8 {
            assert_eq!(mod3_small(a), mod3_small_reference(a));
        }
    }

    #[test]
    fn fixed_width_r2_inv_matches_any_width() {
        for n in [5usize, 63, 64, 65, 127, 128, 200, 509, 677, 701, 821] {
            for seed in 0..12u32 {
                let a: Vec<u16> = (0..n as u32)
                    .map(|i| {
                        let x = i.wrapping_mul(0x9e37_79b9) ^ seed.wrapping_mul(0x85eb_ca6b);
                        (x ^ (x >> 13)) as u16
                    })
                    .collect();
                let (mut r1, mut r2) = (vec![0u16; n], vec![0u16; n]);
                r2_inv(&a, &mut r1);
                r2_inv_any(&a, &mut r2);
                assert_eq!(r1, r2, "n = {n}, seed = {seed}");
            }
        }
    }

    #[test]
    fn bitsliced_s3_inv_matches_bytewise() {
        for n in [5usize, 63, 64, 65, 127, 128, 200, 509, 677, 701, 821] {
            for seed in 0..12u32 {
                let a: Vec<u16> = (0..n as u32)
                    .map(|i| {
                        let x = i.wrapping_mul(0x9e37_79b9) ^ seed.wrapping_mul(0x85eb_ca6b);
                        (x ^ (x >> 13)) as u16 % [3, 4, 65535][seed as usize % 3]
                    })
                    .collect();
                let mut a = a;
                // every value of the last coefficient's low bits (it shifts every trit)
                a[n - 1] = (a[n - 1] & !3) | (seed as u16 % 4);
                let (mut r1, mut r2) = (vec![0u16; n], vec![0u16; n]);
                s3_inv(&a, &mut r1);
                s3_inv_bytewise(&a, &mut r2);
                assert_eq!(r1, r2, "n = {n}, seed = {seed}");
            }
        }
    }

    #[test]
    fn packing_round_trips() {
        for (n, log_q) in [(509, 11), (677, 11), (701, 13), (821, 12)] {
            let q = 1u32 << log_q;
            let a: Vec<u16> = (0..n)
                .map(|i| ((i * 7919 + 13) as u32 % q) as u16)
                .collect();
            let mut bytes = vec![0u8; ((n - 1) * log_q as usize).div_ceil(8)];
            sq_tobytes(&a, &mut bytes, log_q);
            let mut back = vec![0u16; n];
            sq_frombytes(&bytes, &mut back, log_q);
            assert_eq!(&back[..n - 1], &a[..n - 1]);
            assert_eq!(back[n - 1], 0);

            let t: Vec<u16> = (0..n - 1).map(|i| (i * 5 % 3) as u16).chain([0]).collect();
            let mut bytes = vec![0u8; (n - 1).div_ceil(5)];
            s3_tobytes(&t, &mut bytes);
            let mut back = vec![0u16; n];
            s3_frombytes(&bytes, &mut back);
            assert_eq!(back, t);
        }
    }
}
