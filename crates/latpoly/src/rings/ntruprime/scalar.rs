//! Scalar reference arithmetic: the specification every fast path is tested against.
//!
//! Integer helpers follow the reference C (`int32_mod_uint14`, `uint32_divmod_uint14`,
//! `F3_freeze`, `Fq_freeze`), computed without division instructions (whose latency can depend
//! on the operands) and without data-dependent branches. The products are schoolbook
//! convolutions with exact integer accumulation followed by the reduction modulo `x^p - x - 1`
//! (NTRU Prime round 3, spec section 3 / PARAMS B.1) and one final freeze; the reference C
//! freezes after every step instead, which gives the same canonical residues.

use super::{P, Q, Q12};
use crate::secret::Wiped;

/// All-ones if `x < 0`, else zero, hidden from the optimiser (so selects stay arithmetic): the
/// barrier sits on the sign bit ([`crate::arith::ct::neg_mask_i32`]).
#[inline(always)]
pub(crate) fn neg_mask_i32(x: i32) -> i32 {
    crate::arith::ct::neg_mask_i32(x) as i32
}

/// All-ones if `x != 0`, else zero.
#[inline(always)]
pub(crate) fn nonzero_mask_i32(x: i32) -> i32 {
    let u = x as u32;
    // (u | -u) has its top bit set iff u != 0.
    neg_mask_i32((u | u.wrapping_neg()) as i32)
}

/// `(floor(x / m), x mod m)` for `0 <= x < 2^48` and a public modulus `1 <= m < 2^14`, constant
/// time: one 64 x 64 -> 128-bit multiplication by `ceil(2^64 / m)`, which gives the exact
/// quotient because `x · (ceil(2^64/m) - 2^64/m) / 2^64 < 2^-16` while every fractional part of
/// `x / m` is at most `1 - 2^-14`.
#[inline(always)]
pub(crate) fn u64_divmod_u14(x: u64, m: u16) -> (u64, u16) {
    debug_assert!(x < 1 << 48);
    debug_assert!((1..1 << 14).contains(&m));
    if m == 1 {
        return (x, 0);
    }
    let c = u64::MAX / u64::from(m) + 1;
    let qt = ((u128::from(x) * u128::from(c)) >> 64) as u64;
    (qt, (x - qt * u64::from(m)) as u16)
}

/// `x mod m` in `[0, m)` for any `|x| < 2^46` and a public `1 <= m < 2^14`, constant time.
#[inline(always)]
pub(crate) fn i64_mod_u14(x: i64, m: u16) -> u16 {
    debug_assert!(x.unsigned_abs() < 1 << 46);
    const OFF: i64 = 1 << 46;
    let (_, r) = u64_divmod_u14((x + OFF) as u64, m);
    let (_, off) = u64_divmod_u14(OFF as u64, m);
    let t = i32::from(r) - i32::from(off);
    (t + (neg_mask_i32(t) & i32::from(m))) as u16
}

/// The reference `int32_mod_uint14`: `x mod m` in `[0, m)` for any `i32`.
#[inline(always)]
pub(crate) fn i32_mod_u14(x: i32, m: u16) -> u16 {
    i64_mod_u14(i64::from(x), m)
}

/// The reference `Fq_freeze`: the centred representative in `[-2295, 2295]` of `x mod q`.
#[inline(always)]
pub(crate) fn fq_freeze(x: i64) -> i16 {
    i64_mod_u14(x + i64::from(Q12), Q) as i16 - Q12
}

/// The reference `F3_freeze`: the representative in `{-1, 0, 1}` of `x mod 3`.
#[inline(always)]
pub(crate) fn f3_freeze(x: i32) -> i8 {
    i32_mod_u14(x + 1, 3) as i8 - 1
}

/// Reduces an exact product of degree `<= 2p - 2` modulo `x^p - x - 1` (PARAMS B.1): for `i`
/// from `2p - 2` down to `p`, `c[i-p] += c[i]` and `c[i-p+1] += c[i]`.
fn fold(c: &mut [i64]) {
    debug_assert_eq!(c.len(), 2 * P - 1);
    for i in (P..2 * P - 1).rev() {
        c[i - P] += c[i];
        c[i - P + 1] += c[i];
    }
}

/// Exact `a · b` (schoolbook, `|a_i · b_j| < 2^23`) as `2p - 1` integer coefficients.
/// Rows are accumulated in `i32` in two halves of at most 381 rows (381 · 2295^2 < 2^31).
fn convolve(a: &[i32], b: &[i32]) -> Vec<i64> {
    debug_assert!(a.len() == P && b.len() == P);
    let mut c = vec![0i64; 2 * P - 1];
    // Partial sums of a product of secrets (the caller wipes `c`).
    let mut acc = Wiped::new(vec![0i32; 2 * P - 1]);
    for rows in [0..P / 2, P / 2..P] {
        acc.iter_mut().for_each(|x| *x = 0);
        for i in rows {
            let ai = a[i];
            for (cj, &bj) in acc[i..i + P].iter_mut().zip(b) {
                *cj += ai * bj;
            }
        }
        for (x, &y) in c.iter_mut().zip(acc.iter()) {
            *x += i64::from(y);
        }
    }
    c
}

/// `a · b` in `R/q`: inputs any `i16` (`p` of each), output centred. The operands may be
/// secret (a key, a message): every temporary copy is wiped.
pub(crate) fn mul_rq(a: &[i16], b: &[i16]) -> Vec<i16> {
    let fa = Wiped::new(
        a.iter()
            .map(|&x| fq_freeze(i64::from(x)).into())
            .collect::<Vec<i32>>(),
    );
    let fb = Wiped::new(
        b.iter()
            .map(|&x| fq_freeze(i64::from(x)).into())
            .collect::<Vec<i32>>(),
    );
    let mut c = Wiped::new(convolve(&fa, &fb));
    fold(&mut c);
    c[..P].iter().map(|&x| fq_freeze(x)).collect()
}

/// `a · s` in `R/q` for small `s` (entries in `{-1, 0, 1}`, checked by the caller);
/// temporaries wiped as in [`mul_rq`].
pub(crate) fn mul_rq_small(a: &[i16], s: &[i8]) -> Vec<i16> {
    let fa = Wiped::new(
        a.iter()
            .map(|&x| fq_freeze(i64::from(x)).into())
            .collect::<Vec<i32>>(),
    );
    let fs = Wiped::new(s.iter().map(|&x| x.into()).collect::<Vec<i32>>());
    let mut c = Wiped::new(convolve(&fa, &fs));
    fold(&mut c);
    c[..P].iter().map(|&x| fq_freeze(x)).collect()
}

/// `a · b` in `R/3` for entries in `{-1, 0, 1}` (checked by the caller); temporaries wiped
/// as in [`mul_rq`].
pub(crate) fn mul_r3(a: &[i8], b: &[i8]) -> Vec<i8> {
    let fa = Wiped::new(a.iter().map(|&x| x.into()).collect::<Vec<i32>>());
    let fb = Wiped::new(b.iter().map(|&x| x.into()).collect::<Vec<i32>>());
    let mut c = Wiped::new(convolve(&fa, &fb));
    fold(&mut c);
    // |c_i| <= 3 · 761: fits i32.
    c[..P].iter().map(|&x| f3_freeze(x as i32)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divmod_matches_division() {
        let xs = [
            0u64,
            1,
            2,
            3,
            255,
            256,
            4590,
            4591,
            65535,
            1 << 31,
            (1 << 32) - 1,
        ];
        for m in [1u16, 2, 3, 255, 256, 1531, 4591, 16383] {
            for &x in xs
                .iter()
                .chain([(1u64 << 48) - 1, (1 << 47) + 12345].iter())
            {
                assert_eq!(
                    u64_divmod_u14(x, m),
                    (x / u64::from(m), (x % u64::from(m)) as u16)
                );
            }
        }
    }

    #[test]
    fn freezes_match_euclid() {
        for x in -200_000i64..200_000 {
            let r = fq_freeze(x);
            assert_eq!(i64::from(r).rem_euclid(4591), x.rem_euclid(4591));
            assert!(r.abs() <= 2295);
        }
        for x in [
            i64::from(i32::MIN),
            i64::from(i32::MAX),
            -(1 << 45),
            1 << 45,
        ] {
            assert_eq!(i64::from(fq_freeze(x)).rem_euclid(4591), x.rem_euclid(4591));
        }
        for x in -100_000..100_000 {
            let r = f3_freeze(x);
            assert_eq!(i32::from(r).rem_euclid(3), x.rem_euclid(3));
            assert!(r.abs() <= 1);
        }
        assert_eq!(nonzero_mask_i32(0), 0);
        assert_eq!(nonzero_mask_i32(-5), -1);
        assert_eq!(nonzero_mask_i32(i32::MIN), -1);
        assert_eq!(neg_mask_i32(-1), -1);
        assert_eq!(neg_mask_i32(0), 0);
    }
}
