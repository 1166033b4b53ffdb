//! Ring automorphisms `a(x) -> a(x^k)` (`k` odd) and monomial products `a(x) · x^j` in
//! `Z_q[x]/(x^n + 1)`, in coefficient and in NTT representation.
//!
//! * Coefficient form: `x^i -> x^(i k mod 2n)`, negated when `i k mod 2n >= n` (as `x^n = -1`).
//! * NTT form: evaluations are permuted. Slot `i` holds `a(ψ^(e_i))` with
//!   `e_i = 2·brv(i) + 1` (see [`crate::ntt`]); `a(x^k)` at `ψ^(e_i)` is `a(ψ^(e_i k))`, which is
//!   slot `j` with `2·brv(j) + 1 = e_i k mod 2n`. No arithmetic, only a data-independent
//!   permutation ([`ntt_permutation`]).
//! * Monomials: `x^j` rotates coefficients with a sign flip on wrap-around; in NTT form it is the
//!   pointwise product with `ψ^(j e_i)`.
//!
//! Index maps depend only on the public `(n, k)` or `(n, j)`, never on the data.

use super::{Representation, RnsPoly};
use crate::arith::Modulus;
use crate::error::{Error, Result};
use crate::ntt::bit_reverse;
use std::sync::Arc;

/// Normalises an automorphism index: `k` must be odd; it is reduced mod `2n`.
fn check_k(k: i64, n: usize) -> Result<usize> {
    let two_n = 2 * n as i64;
    if k % 2 == 0 {
        return Err(Error::InvalidArgument(format!(
            "automorphism index k must be odd (x -> x^k is a ring automorphism only for odd k), got {k}"
        )));
    }
    Ok(k.rem_euclid(two_n) as usize)
}

/// `n` a power of two in `MIN_N..=MAX_N` (the ring degrees of [`crate::rns::RnsContext`]).
fn check_n(n: usize) -> Result<()> {
    use crate::ntt::{MAX_N, MIN_N};
    if !n.is_power_of_two() || !(MIN_N..=MAX_N).contains(&n) {
        return Err(Error::InvalidDegree {
            n,
            reason: "must be a power of two in MIN_N..=MAX_N",
        });
    }
    Ok(())
}

/// For coefficient form: destination index and sign of source coefficient `i` under `x -> x^k`
/// (`k` odd, of any sign, reduced mod `2n` here). Errors: `n` not a power of two in
/// `MIN_N..=MAX_N`, `k` even.
///
/// ```
/// use latpoly::rns::galois::coeff_map;
/// // n = 4, x -> x^3: x^2 -> x^6 = -x^2 and x^3 -> x^9 = x (as x^4 = -1).
/// let m = coeff_map(4, 3)?;
/// assert_eq!(m, vec![(0, false), (3, false), (2, true), (1, false)]);
/// assert_eq!(coeff_map(4, 3 - 8)?, m); // k mod 2n
/// assert!(coeff_map(4, 2).is_err() && coeff_map(6, 3).is_err());
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn coeff_map(n: usize, k: i64) -> Result<Vec<(usize, bool)>> {
    check_n(n)?;
    let k = check_k(k, n)?;
    Ok((0..n)
        .map(|i| {
            // in u64: i k reaches 2^36 at n = 2^17, past a 32-bit usize
            let m = ((i as u64 * k as u64) % (2 * n as u64)) as usize;
            if m < n {
                (m, false)
            } else {
                (m - n, true)
            }
        })
        .collect())
}

/// For NTT form (bit-reversed slots): `out[i] = in[perm[i]]` under `x -> x^k` (`k` odd, of
/// any sign). Errors as [`coeff_map`].
///
/// ```
/// use latpoly::rns::galois::ntt_permutation;
/// // k = 1 is the identity; k = 2n - 1 (x -> x^-1) reverses pairs of conjugate slots.
/// assert_eq!(ntt_permutation(8, 1)?, (0..8).collect::<Vec<_>>());
/// assert_eq!(ntt_permutation(8, -1)?, ntt_permutation(8, 15)?);
/// assert!(ntt_permutation(8, 16).is_err());
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn ntt_permutation(n: usize, k: i64) -> Result<Vec<usize>> {
    check_n(n)?;
    Ok(ntt_perm(n, check_k(k, n)?))
}

/// [`ntt_permutation`] of a checked `n` and an odd `k` reduced mod `2n`.
fn ntt_perm(n: usize, k: usize) -> Vec<usize> {
    let log_n = n.trailing_zeros();
    let two_n = 2 * n;
    (0..n)
        .map(|i| {
            let e = 2 * bit_reverse(i, log_n) + 1;
            let target = ((e as u64 * k as u64) % two_n as u64) as usize; // odd (u64: as above)
            bit_reverse((target - 1) / 2, log_n)
        })
        .collect()
}

impl RnsPoly {
    /// The automorphism `a(x) -> a(x^k)` for odd `k` (any sign; reduced mod `2n`), in the
    /// polynomial's current representation.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(4, 30, 1).unwrap();
    /// let a = RnsPoly::from_i64s(&ctx, &[0, 1, 0, 0]).unwrap(); // x
    /// let b = a.automorphism(3).unwrap();                      // x^3
    /// assert_eq!(b.to_centered_bigints()[3], 1.into());
    /// let c = a.automorphism(5).unwrap();                      // x^5 = -x
    /// assert_eq!(c.to_centered_bigints()[1], (-1).into());
    /// ```
    pub fn automorphism(&self, k: i64) -> Result<RnsPoly> {
        let n = self.context().n();
        let k = check_k(k, n)?;
        let ctx = Arc::clone(self.context());
        let moduli = ctx.crt().moduli();
        // Both maps below are bijections (k odd), so every residue of `out` is written.
        let mut out = RnsPoly::zero(&ctx, self.representation());
        match self.representation() {
            Representation::Coefficient => {
                // x^j -> x^(j k mod 2n), negated in the upper half (coeff_map, computed on the
                // fly: 2n is a power of two, so the exponent steps by k under a mask).
                let (log_n, mask_2n) = (n.trailing_zeros(), 2 * n - 1);
                out.map_limbs_from(self, |i, src, dst| {
                    let m = &moduli[i];
                    let mut e = 0usize;
                    for &v in src {
                        // Branch-free select between v and -v on the public sign.
                        let neg = (e >> log_n) as u64;
                        let mask = 0u64.wrapping_sub(neg);
                        dst[e & (n - 1)] = (v & !mask) | (m.neg(v) & mask);
                        e = (e + k) & mask_2n;
                    }
                });
            }
            Representation::Ntt => {
                let perm = ntt_perm(n, k);
                out.map_limbs_from(self, |_, src, dst| {
                    for (d, &p) in dst.iter_mut().zip(&perm) {
                        *d = src[p];
                    }
                });
            }
        }
        Ok(out)
    }

    /// Multiplies by the monomial `x^j` (any integer `j`; `x^(2n) = 1`, `x^n = -1`), in the
    /// polynomial's current representation.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(4, 30, 2).unwrap();
    /// let a = RnsPoly::from_i64s(&ctx, &[1, 2, 3, 4]).unwrap();
    /// let b = a.mul_monomial(1); // x (1 + 2x + 3x^2 + 4x^3) = -4 + x + 2x^2 + 3x^3
    /// let c: Vec<i64> = b.to_centered_bigints().iter().map(|v| i64::try_from(v).unwrap()).collect();
    /// assert_eq!(c, vec![-4, 1, 2, 3]);
    /// ```
    pub fn mul_monomial(&self, j: i64) -> RnsPoly {
        let n = self.context().n();
        let two_n = 2 * n;
        let j = j.rem_euclid(two_n as i64) as usize;
        let ctx = Arc::clone(self.context());
        let moduli = ctx.crt().moduli();
        let mut out = self.clone();
        match self.representation() {
            Representation::Coefficient => {
                out.map_limbs_from(self, |i, src, dst| {
                    let m = &moduli[i];
                    for (s, &v) in src.iter().enumerate() {
                        let e = (s + j) % two_n;
                        let (to, neg) = if e < n { (e, false) } else { (e - n, true) };
                        let nv = m.neg(v);
                        let mask = 0u64.wrapping_sub(neg as u64);
                        dst[to] = (v & !mask) | (nv & mask);
                    }
                });
            }
            Representation::Ntt => {
                let log_n = n.trailing_zeros();
                let plans = ctx.plans();
                out.map_limbs_from(self, |i, src, dst| {
                    let m = &moduli[i];
                    let psi = plans[i].psi();
                    // psi^(j e) for e = 2 brv(s) + 1: psi^j times (psi^(2j))^brv(s).
                    let pj = m.pow(psi, j as u64);
                    let p2j = m.mul(pj, pj);
                    let mut pows = vec![0u64; n];
                    let mut acc = pj;
                    for p in pows.iter_mut() {
                        *p = acc;
                        acc = m.mul(acc, p2j);
                    }
                    for (s, (d, &v)) in dst.iter_mut().zip(src).enumerate() {
                        let w = pows[bit_reverse(s, log_n)];
                        *d = m.mul_shoup(v, w, m.shoup(w));
                    }
                });
            }
        }
        out
    }
}
