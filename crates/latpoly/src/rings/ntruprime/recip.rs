//! Constant-time reciprocals in `R/3` and `R/q` (sntrup761 key generation): the reference
//! `R3_recip` and `Rq_recip3` of the NTRU Prime round-3 code (supercop `crypto_kem/sntrup761/ref`),
//! Bernstein–Yang style "divstep" loops with a fixed number (`2p - 1`) of iterations, each doing
//! the same work whatever the data: conditional swaps are masks, never branches.
//!
//! Invariants of the loop (reference comments): `f` starts as the reversal of `x^p - x - 1`,
//! `g` as the reversal of the input; after `2p - 1` steps `delta == 0` exactly when the input is
//! invertible, and `v` (reversed, times `1/f[0]`) is the reciprocal. When the input is not
//! invertible the reference still returns the (meaningless) value it computed; so do we, so that
//! outputs are bit-exact in every case.

use super::scalar::{f3_freeze, fq_freeze, neg_mask_i32, nonzero_mask_i32};
use super::{P, Q};
use crate::rings::bitslice::{divsteps3, scalar_masks, top_mask, TritOps, Trits};
use crate::secret::Wiped;

/// `x^(q-2) mod q` (the reference `Fq_recip`, which multiplies `q - 3` times; the result is the
/// same canonical residue), by square-and-multiply over the public exponent: constant time.
pub(crate) fn fq_recip(a: i16) -> i16 {
    let mut result: i16 = 1;
    let mut base = a;
    let mut e = Q - 2;
    while e > 0 {
        if e & 1 == 1 {
            result = fq_freeze(i64::from(result) * i64::from(base));
        }
        base = fq_freeze(i64::from(base) * i64::from(base));
        e >>= 1;
    }
    result
}

/// `-1` if `delta > 0 && g0 != 0`, else `0` (the reference's
/// `crypto_int16_negative_mask(-delta) & crypto_int16_nonzero_mask(g0)`).
#[inline(always)]
pub(crate) fn swap_mask(delta: i32, g0: i32) -> i32 {
    neg_mask_i32(-delta) & nonzero_mask_i32(g0)
}

/// `R3_recip`: `(1/a in R/3, true)` if `a` is invertible, else `(garbage, false)`.
/// `a` has `p` entries in `{-1, 0, 1}` (checked by the caller).
pub(crate) fn r3_recip(a: &[i8]) -> (Vec<i8>, bool) {
    debug_assert_eq!(a.len(), P);
    let n = P + 1;
    // The divstep state holds the secret input and its reciprocal: wiped on return.
    let mut f = Wiped::new(vec![0i8; n]);
    let mut g = Wiped::new(vec![0i8; n]);
    let mut v = Wiped::new(vec![0i8; n]);
    let mut r = Wiped::new(vec![0i8; n]);
    r[0] = 1;
    f[0] = 1;
    f[P - 1] = -1;
    f[P] = -1;
    for i in 0..P {
        g[P - 1 - i] = a[i];
    }
    let mut delta: i32 = 1;
    for _ in 0..2 * P - 1 {
        v.copy_within(0..P, 1);
        v[0] = 0;
        let sign = -i32::from(g[0]) * i32::from(f[0]);
        let swap = swap_mask(delta, i32::from(g[0]));
        delta ^= swap & (delta ^ -delta);
        delta += 1;
        let s8 = swap as i8;
        for i in 0..n {
            let t = s8 & (f[i] ^ g[i]);
            f[i] ^= t;
            g[i] ^= t;
            let t = s8 & (v[i] ^ r[i]);
            v[i] ^= t;
            r[i] ^= t;
        }
        for i in 0..n {
            g[i] = f3_small(i32::from(g[i]) + sign * i32::from(f[i]));
            r[i] = f3_small(i32::from(r[i]) + sign * i32::from(v[i]));
        }
        g.copy_within(1..n, 0);
        g[P] = 0;
    }
    let sign = f[0];
    let out = (0..P).map(|i| sign * v[P - 1 - i]).collect();
    (out, nonzero_mask_i32(delta) == 0)
}

/// [`r3_recip`] on bit-sliced polynomials (any [`TritOps`] representation: words, or AVX-512
/// registers in `x86.rs`): the same step sequence as the reference loop above, shared with the
/// NTRU `poly_S3_inv` ([`divsteps3`]), on `P + 1 = 762` coefficients in 12 words. Equal to
/// [`r3_recip`] on every input (tested, including non-invertible ones).
#[inline(always)]
pub(crate) fn r3_recip_bitsliced<T: TritOps>(
    a: &[i8],
    to: impl Fn(&Trits<12>) -> T,
    from: impl Fn(&T) -> Trits<12>,
) -> (Vec<i8>, bool) {
    debug_assert_eq!(a.len(), P);
    const W: usize = (P + 1).div_ceil(64);
    let top_mask = top_mask(P + 1);
    // {-1, 0, 1} -> {2, 0, 1} (a multiply and a shift: no division, no branch)
    let trit = |x: i8| crate::arith::ct::mod3_u16(u16::from((x + 3) as u8)) as u8;
    let mut f0 = Trits::<W>::ZERO;
    f0.set(0, 1);
    f0.set(P - 1, 2);
    f0.set(P, 2);
    let mut g0 = Trits::<W>::ZERO;
    for (i, &x) in a.iter().enumerate() {
        g0.set(P - 1 - i, trit(x));
    }
    let mut r0 = Trits::<W>::ZERO;
    r0.set(0, 1);
    let (mut f, mut g, mut v, mut r) = (to(&f0), to(&g0), to(&Trits::ZERO), to(&r0));
    g0 = Trits::ZERO;
    core::hint::black_box(&g0);
    let delta = divsteps3(&mut f, &mut g, &mut v, &mut r, 2 * P - 1, top_mask);
    let (s1, s2) = scalar_masks(f.c0());
    let mut vt = from(&v);
    let out = (0..P)
        .map(|i| {
            let x = u64::from(vt.get(P - 1 - i));
            let (xp, xm) = (x & 1, x >> 1);
            // sign · x, then {0, 1, 2} -> {0, 1, -1}
            let y = (((s1 & xp) | (s2 & xm)) | (((s1 & xm) | (s2 & xp)) << 1)) as i8;
            y - 3 * (y >> 1)
        })
        .collect();
    // the read-back reciprocal and the divstep state (the secret input and its reciprocal)
    vt.wipe();
    let z = to(&Trits::ZERO);
    (f, g, v, r) = (z, z, z, z);
    core::hint::black_box((&f, &g, &v, &r));
    (out, nonzero_mask_i32(delta) == 0)
}

/// `F3_freeze` for `|x| <= 2` (the only values the `R3_recip` loop produces), branch-free.
#[inline(always)]
fn f3_small(x: i32) -> i8 {
    debug_assert!((-2..=2).contains(&x));
    // x in [-2, 2]: add 3 if x < -1, subtract 3 if x > 1.
    let lo = neg_mask_i32(x + 1); // x <= -2
    let hi = neg_mask_i32(1 - x); // x >= 2
    let y = x + (lo & 3) - (hi & 3);
    debug_assert_eq!(y as i8, f3_freeze(x));
    y as i8
}

/// `Rq_recip3`: `(1/(3a) in R/q, true)` for invertible `a`, else `(garbage, false)`.
/// `a` has `p` entries in `{-1, 0, 1}` (checked by the caller).
pub(crate) fn rq_recip3(a: &[i8]) -> (Vec<i16>, bool) {
    debug_assert_eq!(a.len(), P);
    let n = P + 1;
    // The divstep state holds the secret input and its reciprocal: wiped on return.
    let mut f = Wiped::new(vec![0i16; n]);
    let mut g = Wiped::new(vec![0i16; n]);
    let mut v = Wiped::new(vec![0i16; n]);
    let mut r = Wiped::new(vec![0i16; n]);
    r[0] = fq_recip(3);
    f[0] = 1;
    f[P - 1] = -1;
    f[P] = -1;
    for i in 0..P {
        g[P - 1 - i] = i16::from(a[i]);
    }
    let mut delta: i32 = 1;
    for _ in 0..2 * P - 1 {
        v.copy_within(0..P, 1);
        v[0] = 0;
        let swap = swap_mask(delta, i32::from(g[0]));
        delta ^= swap & (delta ^ -delta);
        delta += 1;
        let s16 = swap as i16;
        for i in 0..n {
            let t = s16 & (f[i] ^ g[i]);
            f[i] ^= t;
            g[i] ^= t;
            let t = s16 & (v[i] ^ r[i]);
            v[i] ^= t;
            r[i] ^= t;
        }
        let f0 = i32::from(f[0]);
        let g0 = i32::from(g[0]);
        for i in 0..n {
            g[i] = fq_freeze_small(f0 * i32::from(g[i]) - g0 * i32::from(f[i]));
            r[i] = fq_freeze_small(f0 * i32::from(r[i]) - g0 * i32::from(v[i]));
        }
        g.copy_within(1..n, 0);
        g[P] = 0;
    }
    let scale = i32::from(fq_recip(f[0]));
    let out = (0..P)
        .map(|i| fq_freeze_small(scale * i32::from(v[P - 1 - i])))
        .collect();
    (out, nonzero_mask_i32(delta) == 0)
}

/// `Fq_freeze` for `|x| < 2^25` (the loop's values are at most `2 · 2295^2`): a Barrett
/// quotient `round(x / q)` from a 32 x 32 -> 64-bit product, then two masked corrections.
#[inline(always)]
pub(crate) fn fq_freeze_small(x: i32) -> i16 {
    debug_assert!(x.unsigned_abs() < 1 << 25);
    const Q12: i32 = (Q as i32 - 1) / 2;
    // 935_519 = round(2^32 / 4591); |x| < 2^25 keeps the estimate within 1 of round(x / q).
    let t = ((i64::from(x) * 935_519 + (1 << 31)) >> 32) as i32;
    let mut y = x - t * Q as i32;
    y += neg_mask_i32(y + Q12) & Q as i32; // y < -2295
    y -= neg_mask_i32(Q12 - y) & Q as i32; // y > 2295
    y as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit-sliced `R3_recip` (on words) equals the reference loop, invertible or not.
    #[test]
    fn bitsliced_r3_recip_matches_reference() {
        for seed in 0..40u32 {
            let a: Vec<i8> = (0..P as u32)
                .map(|i| {
                    let x = i.wrapping_mul(0x9e37_79b9) ^ seed.wrapping_mul(0x85eb_ca6b);
                    let x = x ^ (x >> 15);
                    // sparse inputs for some seeds (more likely non-invertible / degenerate)
                    if seed % 4 == 3 && x % 7 != 0 {
                        0
                    } else {
                        (x % 3) as i8 - 1
                    }
                })
                .collect();
            let want = r3_recip(&a);
            let got = r3_recip_bitsliced(&a, |t| *t, |t| *t);
            assert_eq!(got, want, "seed {seed}");
        }
        let zero = vec![0i8; P];
        assert_eq!(r3_recip_bitsliced(&zero, |t| *t, |t| *t), r3_recip(&zero));
    }

    #[test]
    fn fq_freeze_small_exact() {
        let lim = 1i32 << 25;
        let mut x = -lim + 1;
        while x < lim {
            assert_eq!(fq_freeze_small(x), fq_freeze(i64::from(x)), "x = {x}");
            x += 1 + (x.unsigned_abs() >> 12) as i32;
        }
        for x in -20_000_000..-19_000_000 {
            assert_eq!(fq_freeze_small(x), fq_freeze(i64::from(x)));
        }
        for x in 10_000_000..10_600_000 {
            assert_eq!(fq_freeze_small(x), fq_freeze(i64::from(x)));
        }
    }

    #[test]
    fn fq_recip_inverts() {
        for a in -2295i16..=2295 {
            let r = fq_recip(a);
            let expect = if a == 0 { 0 } else { 1 };
            assert_eq!(fq_freeze(i64::from(a) * i64::from(r)), expect, "a = {a}");
        }
    }

    #[test]
    fn f3_small_exact() {
        for x in -2..=2 {
            assert_eq!(f3_small(x), f3_freeze(x));
        }
    }
}
