//! Moving between RNS bases: rescaling (divide by the last prime and round), dropping a prime,
//! and base extension (exact or fast) to another set of primes — the tools of BFV and CKKS.
//!
//! * [`RnsPoly::rescale`]: `round(a / q_L)` in the basis without `q_L`, in either
//!   representation. Exact: with `r = a mod q_L` taken in `(-q_L/2, q_L/2)`,
//!   `(a - r) / q_L` is an integer and equals the rounding (`q_L` odd, so no ties).
//! * [`RnsPoly::drop_last_modulus`]: `a mod (Q / q_L)` (no division).
//! * [`BaseExtender`]: from basis `Q = q_1 ··· q_L` to basis `P = p_1 ··· p_K`:
//!   - `extend_fast`: `Σ_i [x_i (Q/q_i)^-1]_{q_i} · (Q/q_i) mod p_j`, which is `x + u·Q` for some
//!     `0 <= u < L` (the "fast base conversion" of Bajard et al. / Halevi-Polyakov-Shoup);
//!   - `extend_exact`: `x` itself (or its centred lift in `(-Q/2, Q/2)`), using the floating-point
//!     estimate of `u` and falling back to exact big-integer CRT for the rare coefficients whose
//!     estimate is within rounding error of a boundary.
//!
//! Rescaling is branch-free in the data. Base extension's fallback decision depends on the data,
//! so it is not constant time (it is meant for ciphertexts, which are public).

use super::{Representation, RnsContext, RnsPoly};
use crate::arith::{Modulus, Modulus64};
use crate::error::{Error, Result};
use num_bigint::{BigInt, Sign};
use std::sync::Arc;

impl RnsPoly {
    fn check_droppable(&self) -> Result<Arc<RnsContext>> {
        if self.context().len() < 2 {
            return Err(Error::InvalidArgument(
                "cannot drop the only prime of an RNS basis".into(),
            ));
        }
        self.context().drop_last()
    }

    /// `round(a / q_L)` where `q_L` is the last prime, in the basis without it, in the same
    /// representation as `self`.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(4, 40, 2).unwrap();
    /// let ql = ctx.moduli()[1] as i64;
    /// let a = RnsPoly::from_i64s(&ctx, &[3 * ql, 3 * ql + ql / 2 + 1, -2 * ql, 7]).unwrap();
    /// let r = a.rescale().unwrap();
    /// let c: Vec<i64> = r.to_centered_bigints().iter().map(|v| i64::try_from(v).unwrap()).collect();
    /// assert_eq!(c, vec![3, 4, -2, 0]);
    /// ```
    pub fn rescale(&self) -> Result<RnsPoly> {
        let target = self.check_droppable()?;
        let ctx = self.context();
        let n = ctx.n();
        let l = ctx.len();
        let ql = ctx.moduli()[l - 1];
        let half = ql / 2;
        // The last limb as coefficients in [0, q_L).
        let mut last = self.limb(l - 1).to_vec();
        if self.representation() == Representation::Ntt {
            ctx.plan(l - 1).inverse_unchecked(&mut last);
        }
        let mut out = RnsPoly::zero(&target, self.representation());
        let data = out.residues_mut();
        for i in 0..l - 1 {
            let m: &Modulus64 = &ctx.crt().moduli()[i];
            let qi = m.value();
            let ql_mod = m.reduce_u64(ql);
            let ql_inv = m.inv(ql_mod).ok_or(Error::InvalidModulus {
                q: qi,
                reason: "moduli are not coprime",
            })?;
            let ql_inv_p = m.shoup(ql_inv);
            // r_i = centred (a mod q_L) reduced mod q_i, branch-free.
            let mut r: Vec<u64> = last
                .iter()
                .map(|&v| {
                    let pos = m.reduce_u64(v);
                    let negv = m.sub(pos, ql_mod); // v - q_L mod q_i
                    let mask = 0u64.wrapping_sub((v > half) as u64);
                    (pos & !mask) | (negv & mask)
                })
                .collect();
            if self.representation() == Representation::Ntt {
                ctx.plan(i).forward_unchecked(&mut r);
            }
            let src = self.limb(i);
            for ((d, &a), &ri) in data[i * n..(i + 1) * n].iter_mut().zip(src).zip(&r) {
                *d = m.mul_shoup(m.sub(a, ri), ql_inv, ql_inv_p);
            }
        }
        Ok(out)
    }

    /// `a mod (Q / q_L)`: the same polynomial with the last prime dropped (no division).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(8, 30, 3)?;
    /// let a = RnsPoly::from_i64s(&ctx, &[-3, 2, 1, 0, 0, 0, 0, 7])?;
    /// let b = a.drop_last_modulus()?;
    /// assert_eq!(b.context().moduli(), &ctx.moduli()[..2]);
    /// assert_eq!(b.to_centered_bigints(), a.to_centered_bigints()); // small values survive
    /// assert_eq!(b.limb(1), a.limb(1));
    /// let one = RnsPoly::from_i64s(&RnsContext::with_prime_bits(8, 30, 1)?, &[1; 8])?;
    /// assert!(one.drop_last_modulus().is_err()); // cannot drop the only prime
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn drop_last_modulus(&self) -> Result<RnsPoly> {
        let target = self.check_droppable()?;
        let n = self.context().n();
        let keep = self.residues()[..(self.context().len() - 1) * n].to_vec();
        RnsPoly::from_residues(&target, keep, self.representation())
    }
}

/// Converts polynomials from one RNS basis to another with the same ring degree.
///
/// ```
/// use latpoly::rns::{BaseExtender, RnsContext, RnsPoly};
/// let q = RnsContext::with_prime_bits(8, 50, 2).unwrap();
/// let p = RnsContext::with_prime_bits(8, 40, 3).unwrap();
/// let ext = BaseExtender::new(&q, &p).unwrap();
/// let a = RnsPoly::from_i64s(&q, &[-5, 4, 3, 2, 1, 0, -1, -2]).unwrap();
/// let b = ext.extend_exact(&a, true).unwrap(); // centred lift, so -5 stays -5
/// assert_eq!(b.to_centered_bigints()[0], (-5).into());
/// ```
#[derive(Debug, Clone)]
pub struct BaseExtender {
    from: Arc<RnsContext>,
    to: Arc<RnsContext>,
    /// `(Q/q_i)^-1 mod q_i` with Shoup quotients.
    qhat_inv: Vec<(u64, u64)>,
    /// `[j][i] = (Q/q_i) mod p_j`.
    qhat_mod_p: Vec<Vec<u64>>,
    /// `Q mod p_j`.
    q_mod_p: Vec<u64>,
    inv_q: Vec<f64>,
}

impl BaseExtender {
    /// Precomputes the conversion from `from` to `to` (same `n`; the bases may share primes).
    ///
    /// ```
    /// use latpoly::{rns::{BaseExtender, RnsContext}, Error};
    /// let q = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let p = RnsContext::with_prime_bits(8, 40, 2)?;
    /// let ext = BaseExtender::new(&q, &p)?;
    /// assert!(ext.source().same_as(&q) && ext.target().same_as(&p));
    /// let other_n = RnsContext::with_prime_bits(16, 40, 2)?;
    /// assert!(matches!(BaseExtender::new(&q, &other_n), Err(Error::ContextMismatch)));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn new(from: &Arc<RnsContext>, to: &Arc<RnsContext>) -> Result<Self> {
        if from.n() != to.n() {
            return Err(Error::ContextMismatch);
        }
        let big_q = from.modulus();
        let mut qhat_inv = Vec::with_capacity(from.len());
        let mut qhats = Vec::with_capacity(from.len());
        for (m, &q) in from.crt().moduli().iter().zip(from.moduli()) {
            let qhat = big_q / q;
            let r = (&qhat % q).to_u64_digits().first().copied().unwrap_or(0);
            let inv = m.inv(r).ok_or(Error::InvalidModulus {
                q,
                reason: "moduli are not pairwise coprime",
            })?;
            qhat_inv.push((inv, m.shoup(inv)));
            qhats.push(qhat);
        }
        let low = |x: &num_bigint::BigUint, p: u64| -> u64 {
            (x % p).to_u64_digits().first().copied().unwrap_or(0)
        };
        let qhat_mod_p = to
            .moduli()
            .iter()
            .map(|&p| qhats.iter().map(|h| low(h, p)).collect())
            .collect();
        let q_mod_p = to.moduli().iter().map(|&p| low(big_q, p)).collect();
        Ok(Self {
            inv_q: from.moduli().iter().map(|&q| 1.0 / q as f64).collect(),
            from: Arc::clone(from),
            to: Arc::clone(to),
            qhat_inv,
            qhat_mod_p,
            q_mod_p,
        })
    }

    fn coeff_form(&self, a: &RnsPoly) -> Result<RnsPoly> {
        if !self.from.same_as(a.context()) {
            return Err(Error::ContextMismatch);
        }
        let mut c = a.clone();
        c.to_coeff();
        Ok(c)
    }

    /// `Y[i][j] = x_ij (Q/q_i)^-1 mod q_i`, limb by limb, and the estimates `Σ_i Y[i][j] / q_i`.
    fn ys(&self, a: &RnsPoly) -> (Vec<u64>, Vec<f64>) {
        let n = self.from.n();
        let mut y = vec![0u64; a.residues().len()];
        let mut frac = vec![0.0f64; n];
        for (i, (m, &(w, wp))) in self
            .from
            .crt()
            .moduli()
            .iter()
            .zip(&self.qhat_inv)
            .enumerate()
        {
            let inv = self.inv_q[i];
            let (src, dst) = (
                &a.residues()[i * n..(i + 1) * n],
                &mut y[i * n..(i + 1) * n],
            );
            for ((d, &x), f) in dst.iter_mut().zip(src).zip(frac.iter_mut()) {
                *d = m.mul_shoup(x, w, wp);
                *f += *d as f64 * inv;
            }
        }
        (y, frac)
    }

    /// `out[k][j] = Σ_i Y[i][j] (Q/q_i) - u_j Q mod p_k` for every target prime `k`.
    /// Products are accumulated exactly in `u128` (at most 16 terms of `< 2^124` between
    /// reductions) and reduced once.
    fn combine(&self, y: &[u64], u: &[u64], out: &mut [u64]) {
        let n = self.from.n();
        let l = self.from.len();
        for (k, p) in self.to.crt().moduli().iter().enumerate() {
            let h = &self.qhat_mod_p[k];
            let qk = self.q_mod_p[k];
            let dst = &mut out[k * n..(k + 1) * n];
            for (j, d) in dst.iter_mut().enumerate() {
                let mut acc: u128 = 0;
                let mut r = 0u64;
                for (i, &hi) in h.iter().enumerate() {
                    acc += y[i * n + j] as u128 * hi as u128;
                    if i % 16 == 15 && i + 1 < l {
                        r = p.add(r, p.reduce_u128(acc));
                        acc = 0;
                    }
                }
                let sum = p.add(r, p.reduce_u128(acc));
                *d = p.sub(sum, p.reduce_u128(u[j] as u128 * qk as u128));
            }
        }
    }

    /// Fast base conversion: coefficient `j` of the result is `x_j + u_j Q mod p` with
    /// `0 <= u_j < L`. Output in coefficient form, in the target basis.
    ///
    /// ```
    /// use latpoly::rns::{BaseExtender, RnsContext, RnsPoly};
    /// use num_bigint::BigUint;
    /// let q = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let p = RnsContext::with_prime_bits(8, 40, 2)?; // P > 2 Q: x + u Q is seen exactly
    /// let ext = BaseExtender::new(&q, &p)?;
    /// let x: Vec<u64> = vec![0, 1, 2, 3, 1000, 5, 6, 7];
    /// let b = ext.extend_fast(&RnsPoly::from_u64s(&q, &x)?)?;
    /// for (y, &x) in b.to_biguints().iter().zip(&x) {
    ///     let diff = y - BigUint::from(x); // u Q with 0 <= u < 2
    ///     assert!(diff == BigUint::from(0u8) || diff == *q.modulus());
    /// }
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn extend_fast(&self, a: &RnsPoly) -> Result<RnsPoly> {
        let a = self.coeff_form(a)?;
        let (y, _) = self.ys(&a);
        let mut out = RnsPoly::zero(&self.to, Representation::Coefficient);
        self.combine(&y, &vec![0u64; self.from.n()], out.residues_mut());
        Ok(out)
    }

    /// Exact base extension: the result holds `x mod p_j`, where `x` is the canonical
    /// representative in `[0, Q)` or, if `centered`, in `(-Q/2, Q/2)`. Output in coefficient
    /// form, in the target basis.
    ///
    /// ```
    /// use latpoly::rns::{BaseExtender, RnsContext, RnsPoly};
    /// use num_bigint::BigUint;
    /// let q = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let p = RnsContext::with_prime_bits(8, 40, 2)?;
    /// let ext = BaseExtender::new(&q, &p)?;
    /// let a = RnsPoly::from_i64s(&q, &[-5, 4, 0, 0, 0, 0, 0, 0])?;
    /// let canonical = ext.extend_exact(&a, false)?.to_biguints(); // -5 lifts to Q - 5
    /// assert_eq!(canonical[0], q.modulus() - BigUint::from(5u8));
    /// assert_eq!(canonical[1], BigUint::from(4u8));
    /// let centred = ext.extend_exact(&a, true)?.to_centered_bigints(); // -5 stays -5
    /// assert_eq!(centred[0], (-5).into());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn extend_exact(&self, a: &RnsPoly, centered: bool) -> Result<RnsPoly> {
        let a = self.coeff_form(a)?;
        let n = self.from.n();
        let l = self.from.len();
        // The float sum has absolute error below L · 2^-52; stay well clear of it.
        let eps = (l as f64) * 2f64.powi(-40);
        let (y, frac) = self.ys(&a);
        let mut u = vec![0u64; n];
        let mut fallback = Vec::new();
        for (j, (&s, uj)) in frac.iter().zip(u.iter_mut()).enumerate() {
            // Canonical lift: u = floor(s), ambiguous near integers. Centred lift: u = round(s),
            // ambiguous only near half-integers (values near +-Q/2).
            let (v, ambiguous) = if centered {
                let r = s.round();
                (r, ((s - r).abs() - 0.5).abs() < eps)
            } else {
                let f = s.floor();
                let fr = s - f;
                (f, fr < eps || fr > 1.0 - eps)
            };
            if ambiguous {
                fallback.push(j);
            }
            *uj = v as u64;
        }
        let mut out = RnsPoly::zero(&self.to, Representation::Coefficient);
        self.combine(&y, &u, out.residues_mut());
        // Coefficients whose estimate was within rounding error of a boundary: exact CRT.
        let mut res = vec![0u64; l];
        let mut big = vec![0u64; self.to.len()];
        let data = out.residues_mut();
        for j in fallback {
            for (i, r) in res.iter_mut().enumerate() {
                *r = a.residues()[i * n + j];
            }
            let x = if centered {
                self.from.crt().reconstruct_centered(&res)
            } else {
                BigInt::from_biguint(Sign::Plus, self.from.crt().reconstruct(&res))
            };
            self.to.crt().decompose_bigint(&x, &mut big);
            for (k, &b) in big.iter().enumerate() {
                data[k * n + j] = b;
            }
        }
        Ok(out)
    }

    /// The source context.
    ///
    /// ```
    /// use latpoly::rns::{BaseExtender, RnsContext};
    /// let q = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let p = RnsContext::with_prime_bits(8, 40, 3)?;
    /// assert_eq!(BaseExtender::new(&q, &p)?.source().moduli(), q.moduli());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn source(&self) -> &Arc<RnsContext> {
        &self.from
    }

    /// The target context.
    ///
    /// ```
    /// use latpoly::rns::{BaseExtender, RnsContext};
    /// let q = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let p = RnsContext::with_prime_bits(8, 40, 3)?;
    /// let ext = BaseExtender::new(&q, &p)?;
    /// assert_eq!(ext.target().len(), 3);
    /// assert!(ext.target().same_as(&p));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn target(&self) -> &Arc<RnsContext> {
        &self.to
    }
}
