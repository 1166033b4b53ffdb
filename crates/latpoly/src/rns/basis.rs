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
//!     estimate of `u` and falling back to exact big-integer CRT for the coefficients whose
//!     estimate is within rounding error of a boundary: for the centred lift, values near
//!     `±Q/2` (rare for ciphertexts); for the canonical lift, values near `0` or near `Q`
//!     (within about `L·2^-40·Q` of them), which is every coefficient of a polynomial with
//!     small centred coefficients: lift those centred (fast) or expect the slow path.
//!
//! Rescaling is branch-free in the data. Base extension's fallback decision depends on the data,
//! so it is not constant time (it is meant for ciphertexts, which are public).

use super::convert_simd::{self, ConvTables};
use super::{Representation, RnsContext, RnsPoly};
use crate::arith::{Modulus, Modulus64};
use crate::error::{Error, Result};
use crate::isa::Isa;
use num_bigint::{BigInt, Sign};
use std::borrow::Cow;
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
                    let mask = crate::arith::ct::mask_u64((v > half) as u64);
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
    /// `1 / q_i` for the floating-point estimate of `u`.
    inv_q: Vec<f64>,
    /// `[j][i] = (Q/q_i) 2^64 mod p_j` (Montgomery form), then `[j][L] = -Q 2^64 mod p_j`.
    mont: Vec<Vec<u64>>,
    /// `p_j^-1 mod 2^64`.
    p_inv: Vec<u64>,
    /// Per target prime: how many conditional subtractions of `p_j` bring the single-REDC
    /// output (`L <= MONT_CHUNK`) below `p_j`.
    csubs: Vec<u32>,
    /// Backend of the conversion kernel (scalar, or the SIMD twin in `convert_simd`).
    isa: Isa,
    /// Shoup-form constants of the SIMD kernel.
    simd: ConvTables,
}

/// Products summed before one Montgomery reduction: each is strictly below `2^124` (primes
/// below `2^62`), so 12 of them plus the `u Q` term stay below `12 · 2^124 + 2^126 = 2^128`,
/// and the reduction's output below `2^64` (strictly, as every bound above is).
const MONT_CHUNK: usize = 12;

/// `T 2^-64 mod p` up to multiples of `p`: the result is below `T / 2^64 + p` (Montgomery's
/// REDC with `p_inv = p^-1 mod 2^64`: `T - m p` is divisible by `2^64` for `m = T p_inv`).
#[inline(always)]
fn redc_lazy(t: u128, p: u64, p_inv: u64) -> u64 {
    let m = (t as u64).wrapping_mul(p_inv);
    let mp = m as u128 * p as u128;
    // The low halves of t and m p are equal, so the difference lives in the high halves.
    let (d, borrow) = ((t >> 64) as u64).overflowing_sub((mp >> 64) as u64);
    d.wrapping_add(p & crate::arith::ct::mask_u64(borrow as u64))
}

/// `u` from the float estimate `s` of `Σ y_i / q_i`: `floor(s)` (canonical lift, ambiguous
/// near integers) or `round(s)` (centred lift, ambiguous near half-integers, i.e. values
/// near `±Q/2`). Rounds with the `1.5 · 2^52` trick (adding it leaves the rounded value in
/// the low mantissa bits): no saturating float-to-int conversion, no libm call.
#[inline(always)]
pub(crate) fn lift_estimate(
    s: f64,
    centered: bool,
    eps: f64,
    j: usize,
    fallback: &mut Vec<usize>,
) -> u64 {
    const MAGIC: f64 = 6755399441055744.0; // 1.5 * 2^52
                                           // floor(s) = round(s - 1/2) away from ties; ties are ambiguous either way.
    let s = if centered { s } else { s - 0.5 };
    let t = s + MAGIC;
    let v = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    if (s - (t - MAGIC)).abs() > 0.5 - eps {
        fallback.push(j);
    }
    // s >= -1/2 rounds to -1 only at an (ambiguous) tie; its residues are recomputed.
    v.max(0) as u64
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
        let r64 = num_bigint::BigUint::from(1u8) << 64u32;
        let mont = to
            .moduli()
            .iter()
            .map(|&p| {
                let mut row: Vec<u64> = qhats.iter().map(|h| low(&(h * &r64), p)).collect();
                row.push((p - low(&(big_q * &r64), p)) % p);
                row
            })
            .collect();
        let p_inv = to
            .moduli()
            .iter()
            .map(|&p| crate::arith::modulus::inv_mod_2_64(p))
            .collect();
        // Largest accumulated T: sum of (q_i - 1)(p - 1) plus L (p - 1) for the u Q term; the
        // REDC output is below T / 2^64 + p.
        let csubs = to
            .moduli()
            .iter()
            .map(|&p| {
                let pb = num_bigint::BigUint::from(p - 1);
                let t_max: num_bigint::BigUint = from
                    .moduli()
                    .iter()
                    .map(|&q| num_bigint::BigUint::from(q - 1) * &pb)
                    .sum::<num_bigint::BigUint>()
                    + &pb * from.len();
                let bound = (t_max >> 64u32) + p; // exclusive
                let c = (bound + (p - 1)) / p - 1u32;
                u32::try_from(&c).unwrap_or(u32::MAX)
            })
            .collect();
        let simd = ConvTables {
            q: from.moduli().to_vec(),
            inv_q: from.moduli().iter().map(|&q| 1.0 / q as f64).collect(),
            p: to.moduli().to_vec(),
            rows: to
                .crt()
                .moduli()
                .iter()
                .map(|m| {
                    let p = m.value();
                    let mut row: Vec<(u64, u64)> = qhats
                        .iter()
                        .map(|h| {
                            let v = low(h, p);
                            (v, m.shoup(v))
                        })
                        .collect();
                    let neg_q = (p - low(big_q, p)) % p;
                    row.push((neg_q, m.shoup(neg_q)));
                    row
                })
                .collect(),
        };
        let cap = Isa::env_cap().unwrap_or(Isa::Avx512Ifma);
        let isa = [Isa::Avx512, Isa::Avx2]
            .into_iter()
            .find(|&i| i <= cap && convert_simd::supported(i, from.len(), from.n()))
            .unwrap_or(Isa::Scalar);
        Ok(Self {
            mont,
            p_inv,
            csubs,
            isa,
            simd,
            inv_q: from.moduli().iter().map(|&q| 1.0 / q as f64).collect(),
            from: Arc::clone(from),
            to: Arc::clone(to),
            qhat_inv,
        })
    }

    /// The residues of `a` in coefficient form (borrowed when `a` already is).
    fn coeff_residues<'a>(&self, a: &'a RnsPoly) -> Result<Cow<'a, [u64]>> {
        if !self.from.same_as(a.context()) {
            return Err(Error::ContextMismatch);
        }
        Ok(match a.representation() {
            Representation::Coefficient => Cow::Borrowed(a.residues()),
            Representation::Ntt => {
                let mut c = a.clone();
                c.to_coeff();
                Cow::Owned(c.residues().to_vec())
            }
        })
    }

    /// The conversion kernel, coefficient by coefficient: `y_i = [x_i (Q/q_i)^-1]_{q_i}`, then
    /// for every target prime `Σ_i y_i (Q/q_i) - u Q mod p`, summed as 128-bit products of
    /// Montgomery-form constants and reduced once per [`MONT_CHUNK`] terms. `u` is 0 (`lift`
    /// = `None`: fast conversion) or the floating-point estimate of `floor(Σ y_i / q_i)`
    /// (canonical lift) or its rounding (centred lift); returns the coefficients whose estimate
    /// was within rounding error of a boundary (the caller fixes them by exact CRT).
    ///
    /// `w` holds `(Q/q_i)^-1 mod q_i` with Shoup quotients, or those constants times a scalar
    /// `c` (then the source is read as `c x`).
    fn convert(
        &self,
        w: &[(u64, u64)],
        src: &[u64],
        out: &mut [u64],
        lift: Option<bool>,
    ) -> Vec<usize> {
        if self.isa != Isa::Scalar {
            let eps = (self.from.len() as f64) * 2f64.powi(-40);
            let mut fallback = Vec::new();
            if convert_simd::run(self.isa, &self.simd, w, src, out, lift, eps, &mut fallback) {
                return fallback;
            }
        }
        match self.from.len() {
            1 => self.convert_l::<1>(w, src, out, lift),
            2 => self.convert_l::<2>(w, src, out, lift),
            3 => self.convert_l::<3>(w, src, out, lift),
            4 => self.convert_l::<4>(w, src, out, lift),
            5 => self.convert_l::<5>(w, src, out, lift),
            6 => self.convert_l::<6>(w, src, out, lift),
            7 => self.convert_l::<7>(w, src, out, lift),
            8 => self.convert_l::<8>(w, src, out, lift),
            _ => self.convert_any(w, src, out, lift),
        }
    }

    /// [`convert`](Self::convert) for `L` source primes known at compile time (`L <= 8`): the
    /// `y_i` stay in registers and the sums are unrolled; one REDC per target prime followed by
    /// the precomputed number of subtractions.
    fn convert_l<const L: usize>(
        &self,
        wq: &[(u64, u64)],
        src: &[u64],
        out: &mut [u64],
        lift: Option<bool>,
    ) -> Vec<usize> {
        let n = self.from.n();
        let moduli = self.from.crt().moduli();
        let eps = (L as f64) * 2f64.powi(-40);
        let (mut qs, mut w, mut wp) = ([0u64; L], [0u64; L], [0u64; L]);
        for i in 0..L {
            qs[i] = moduli[i].value();
            (w[i], wp[i]) = wq[i];
        }
        let inv: [f64; L] = core::array::from_fn(|i| self.inv_q[i]);
        let targets: Vec<(u64, u64, u32, [u64; L], u64)> = self
            .to
            .moduli()
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                let row = &self.mont[k];
                (
                    p,
                    self.p_inv[k],
                    self.csubs[k],
                    core::array::from_fn(|i| row[i]),
                    row[L],
                )
            })
            .collect();
        let mut fallback = Vec::new();
        for j in 0..n {
            let mut y = [0u64; L];
            let mut s = 0.0f64;
            for i in 0..L {
                // Shoup: x w - floor(x w' / 2^64) q is in [0, 2q).
                let x = src[i * n + j];
                let r = x
                    .wrapping_mul(w[i])
                    .wrapping_sub((((x as u128 * wp[i] as u128) >> 64) as u64).wrapping_mul(qs[i]));
                y[i] = r.min(r.wrapping_sub(qs[i]));
                // y_i < 2^62: the signed conversion is one instruction.
                s += y[i] as i64 as f64 * inv[i];
            }
            let u = match lift {
                None => 0,
                Some(centered) => lift_estimate(s, centered, eps, j, &mut fallback),
            };
            for (k, &(p, p_inv, csubs, ref row, neg_q)) in targets.iter().enumerate() {
                let mut acc = u as u128 * neg_q as u128;
                for i in 0..L {
                    acc += y[i] as u128 * row[i] as u128;
                }
                let mut r = redc_lazy(acc, p, p_inv);
                for _ in 0..csubs {
                    r = r.min(r.wrapping_sub(p));
                }
                out[k * n + j] = r;
            }
        }
        fallback
    }

    /// [`convert`](Self::convert) for any number of source primes: the sums are reduced every
    /// [`MONT_CHUNK`] terms.
    fn convert_any(
        &self,
        wq: &[(u64, u64)],
        src: &[u64],
        out: &mut [u64],
        lift: Option<bool>,
    ) -> Vec<usize> {
        let n = self.from.n();
        let l = self.from.len();
        let moduli = self.from.crt().moduli();
        let targets = self.to.crt().moduli();
        let eps = (l as f64) * 2f64.powi(-40);
        let mut y = vec![0u64; l];
        let mut fallback = Vec::new();
        for j in 0..n {
            let mut s = 0.0f64;
            for (i, ((m, &(w, wp)), yi)) in moduli.iter().zip(wq).zip(&mut y).enumerate() {
                *yi = m.mul_shoup(src[i * n + j], w, wp);
                // y_i < 2^62: the signed conversion is one instruction.
                s += *yi as i64 as f64 * self.inv_q[i];
            }
            let u = match lift {
                None => 0,
                Some(centered) => lift_estimate(s, centered, eps, j, &mut fallback),
            };
            for (k, p) in targets.iter().enumerate() {
                let (row, p_inv, pv) = (&self.mont[k], self.p_inv[k], p.value());
                let mut acc = u as u128 * row[l] as u128;
                let mut r = 0u64;
                for (c, ys) in y.chunks(MONT_CHUNK).enumerate() {
                    for (&yi, &h) in ys.iter().zip(&row[c * MONT_CHUNK..]) {
                        acc += yi as u128 * h as u128;
                    }
                    r = p.add(r, p.reduce_u64(redc_lazy(acc, pv, p_inv)));
                    acc = 0;
                }
                out[k * n + j] = r;
            }
        }
        fallback
    }

    /// Exact extension of the coefficient-form residues `src` (basis `Q`) into `out` (basis `P`).
    pub(crate) fn extend_exact_into(&self, src: &[u64], centered: bool, out: &mut [u64]) {
        let fallback = self.convert(&self.qhat_inv, src, out, Some(centered));
        self.fix_fallback(src, None, fallback, centered, out);
    }

    /// Exact extension of `c x` for the coefficient-form residues `src` of `x` and a scalar `c`
    /// (the multiplication by `c` is folded into the conversion's first constants).
    pub(crate) fn extend_exact_scaled_into(
        &self,
        src: &[u64],
        c: u64,
        centered: bool,
        out: &mut [u64],
    ) {
        let scaled: Vec<(u64, u64)> = self
            .from
            .crt()
            .moduli()
            .iter()
            .zip(&self.qhat_inv)
            .map(|(m, &(w, _))| {
                let v = m.mul(w, m.reduce_u64(c));
                (v, m.shoup(v))
            })
            .collect();
        let fallback = self.convert(&scaled, src, out, Some(centered));
        self.fix_fallback(src, Some(c), fallback, centered, out);
    }

    /// Recomputes by exact big-integer CRT the coefficients whose float estimate was within
    /// rounding error of a boundary (the source value is `c x`, or `x` when `c` is `None`).
    fn fix_fallback(
        &self,
        src: &[u64],
        c: Option<u64>,
        fallback: Vec<usize>,
        centered: bool,
        out: &mut [u64],
    ) {
        let n = self.from.n();
        let l = self.from.len();
        let moduli = self.from.crt().moduli();
        let mut res = vec![0u64; l];
        let mut big = vec![0u64; self.to.len()];
        for j in fallback {
            for (i, r) in res.iter_mut().enumerate() {
                let x = src[i * n + j];
                *r = match c {
                    Some(c) => moduli[i].mul(x, moduli[i].reduce_u64(c)),
                    None => x,
                };
            }
            let x = if centered {
                self.from.crt().reconstruct_centered_unchecked(&res)
            } else {
                BigInt::from_biguint(Sign::Plus, self.from.crt().reconstruct_unchecked(&res))
            };
            self.to.crt().decompose_bigint_unchecked(&x, &mut big);
            for (k, &b) in big.iter().enumerate() {
                out[k * n + j] = b;
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
        let src = self.coeff_residues(a)?;
        let mut out = RnsPoly::zero(&self.to, Representation::Coefficient);
        self.convert(&self.qhat_inv, &src, out.residues_mut(), None);
        Ok(out)
    }

    /// Exact base extension: the result holds `x mod p_j`, where `x` is the canonical
    /// representative in `[0, Q)` or, if `centered`, in `(-Q/2, Q/2)`. Output in coefficient
    /// form, in the target basis. Speed: a coefficient whose floating-point estimate is
    /// ambiguous is redone with big integers; with `centered = false` that is every value near
    /// `0` or `Q` (a small negative `x` is `Q - |x|`), so lift small-norm polynomials with
    /// `centered = true`, which is slow only for values near `±Q/2`.
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
        let src = self.coeff_residues(a)?;
        let mut out = RnsPoly::zero(&self.to, Representation::Coefficient);
        self.extend_exact_into(&src, centered, out.residues_mut());
        Ok(out)
    }

    /// The backend of the conversion kernel: the best SIMD backend this CPU runs for this
    /// basis (within the `LATPOLY_ISA` cap), or [`Isa::Scalar`]. The SIMD kernels (u64 lanes:
    /// AVX-512, AVX2) give the same residues as the scalar one and are tested against it.
    ///
    /// ```
    /// use latpoly::{rns::{BaseExtender, RnsContext}, Isa};
    /// let q = RnsContext::with_prime_bits(64, 50, 3)?;
    /// let p = RnsContext::with_prime_bits(64, 61, 4)?;
    /// let ext = BaseExtender::new(&q, &p)?;
    /// assert!(matches!(ext.isa(), Isa::Scalar | Isa::Avx2 | Isa::Avx512));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The backends this CPU can run for a conversion from `from` (best first, always ending
    /// with [`Isa::Scalar`]); ignores `LATPOLY_ISA`.
    ///
    /// ```
    /// use latpoly::{rns::{BaseExtender, RnsContext}, Isa};
    /// let q = RnsContext::with_prime_bits(64, 50, 3)?;
    /// assert_eq!(BaseExtender::available_isas(&q).last(), Some(&Isa::Scalar));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn available_isas(from: &Arc<RnsContext>) -> Vec<Isa> {
        let mut v: Vec<Isa> = [Isa::Avx512, Isa::Avx2]
            .into_iter()
            .filter(|&i| convert_simd::supported(i, from.len(), from.n()))
            .collect();
        v.push(Isa::Scalar);
        v
    }

    /// As [`Self::new`] on a given backend (ignoring `LATPOLY_ISA`); errors if this CPU cannot
    /// run it for this basis (see [`Self::available_isas`]).
    ///
    /// ```
    /// use latpoly::{rns::{BaseExtender, RnsContext, RnsPoly}, Isa};
    /// let q = RnsContext::with_prime_bits(64, 50, 3)?;
    /// let p = RnsContext::with_prime_bits(64, 61, 4)?;
    /// let a = RnsPoly::from_i64s(&q, &(-32..32).collect::<Vec<i64>>())?;
    /// let want = BaseExtender::with_isa(&q, &p, Isa::Scalar)?.extend_exact(&a, true)?;
    /// for isa in BaseExtender::available_isas(&q) {
    ///     let ext = BaseExtender::with_isa(&q, &p, isa)?;
    ///     assert_eq!(ext.isa(), isa);
    ///     assert_eq!(ext.extend_exact(&a, true)?.residues(), want.residues());
    /// }
    /// assert!(BaseExtender::with_isa(&q, &p, Isa::Avx512Ifma).is_err()); // no IFMA kernel
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn with_isa(from: &Arc<RnsContext>, to: &Arc<RnsContext>, isa: Isa) -> Result<Self> {
        if !Self::available_isas(from).contains(&isa) {
            return Err(Error::InvalidArgument(format!(
                "backend {isa} is not available for base conversion from {} primes at n={} on \
                 this CPU",
                from.len(),
                from.n()
            )));
        }
        let mut e = Self::new(from, to)?;
        e.isa = isa;
        Ok(e)
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
