//! Discrete Gaussian sampling with a constant-time cumulative distribution table (CDT).
//!
//! The target is the discrete Gaussian `D_{Z,sigma}` centred at 0: `P(x) ∝ exp(-x² / (2 sigma²))`
//! for every integer `x` (`sigma` is the standard-deviation parameter, as in SEAL and OpenFHE,
//! whose default is `sigma = 3.19`; it is not the width `s = sigma sqrt(2 pi)`).
//!
//! The table, its precision and tail cut, and the constant-time scan are documented on
//! [`GaussianCdt`] (public).

use super::ct::cond_neg;
use super::{small_poly, try_zeroed, BitPool, Sampler};
use crate::error::{Error, Result};
use crate::rns::{RnsContext, RnsPoly};
use crate::secret::Wiped;
use core::fmt;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use std::sync::Arc;

/// Largest accepted `sigma` (`2^12`): the table then has `ceil(14 · 4096) = 57344` entries.
///
/// ```
/// use latpoly::sampling::{GaussianCdt, MAX_GAUSSIAN_SIGMA};
/// assert!(GaussianCdt::new(MAX_GAUSSIAN_SIGMA * 1.0001).is_err());
/// ```
pub const MAX_GAUSSIAN_SIGMA: f64 = 4096.0;

/// Tail cut in units of `sigma`: samples lie in `[-ceil(14 sigma), ceil(14 sigma)]`.
///
/// ```
/// let t = latpoly::sampling::GaussianCdt::new(3.19).unwrap();
/// assert_eq!(t.tail_cut(), (latpoly::sampling::GAUSSIAN_TAIL_CUT * 3.19f64).ceil() as u64);
/// ```
pub const GAUSSIAN_TAIL_CUT: f64 = 14.0;

/// Bits of each table threshold (and of the random value compared with them).
///
/// ```
/// assert_eq!(latpoly::sampling::GAUSSIAN_PRECISION_BITS, 128);
/// ```
pub const GAUSSIAN_PRECISION_BITS: u32 = 128;

/// Fractional bits of the fixed-point arithmetic used to build the table.
const WORK_BITS: u64 = 256;

/// The cumulative distribution table of `|X|` for `X ~ D_{Z,sigma}`, the discrete Gaussian
/// centred at 0 with `P(x) ∝ exp(-x² / (2 sigma²))` (`sigma` is the standard-deviation
/// parameter, as in SEAL and OpenFHE, whose default is 3.19; it is not the width
/// `s = sigma sqrt(2 pi)`). Build it once and reuse it with [`Sampler::gaussian_with`] or
/// [`Sampler::fill_gaussian`]; [`Sampler::gaussian`] builds (and caches) it for you.
///
/// # Table
///
/// * **Tail cut** `T = ceil(14 sigma)` (at least 1): samples lie in `[-T, T]`. The mass of
///   `|x| > T` under `D_{Z,sigma}` is below `2^-140` (Mills' bound: it is at most
///   `2 (sigma/14) e^-98 / rho(Z) < 2^-144`).
/// * **Precision**: the table holds `T` thresholds `G_k = round(2^128 P(|X| <= k))` for
///   `k = 0 .. T-1`, 128-bit fixed point ([`GAUSSIAN_PRECISION_BITS`]). They are computed at
///   run time for the requested `sigma` in 256-bit fixed-point arithmetic (`exp` by argument
///   halving and Taylor series, then `rho(x + 1) = rho(x) c^(2x+1)` with `c = exp(-1/(2 sigma²))`;
///   accumulated error below `2^-200`) and rounded once, so each output probability is within
///   `2^-128` of the tail-cut distribution. In total the statistical distance to `D_{Z,sigma}`
///   is at most `(T + 1) 2^-128 + 2^-140`: below `2^-122` for `sigma = 3.19` (`T = 45`) and
///   below `2^-112` at the largest `sigma`.
/// * **Limits**: `0 < sigma <= 4096` ([`MAX_GAUSSIAN_SIGMA`]); the table has `T <= 57344`
///   entries (16 bytes each) and every sample scans all of them, so the cost per sample is
///   `O(sigma)`. Zero, negative, NaN, infinite or larger `sigma` is an error.
///
/// # Sampling (constant time)
///
/// Draw 128 random bits `r` and one sign bit `s`; `|x| = #{k : r >= G_k}`, counted over the
/// **whole** table with a branch-free 128-bit comparison (the borrow of `r - G_k`), so neither
/// the control flow nor the memory addresses depend on `r`; then `x = s ? -|x| : |x|` with a
/// mask. Since `P(|X| = 0)` is stored whole and `P(|X| = k)`, `k > 0`, counts both signs, the
/// sign bit gives exactly `P(x) = P(-x)`.
///
/// ```
/// use latpoly::sampling::GaussianCdt;
/// let t = GaussianCdt::new(3.19).unwrap();
/// assert_eq!(t.tail_cut(), 45);
/// assert_eq!(t.len(), 45);
/// let total: f64 = (-45..=45).map(|x| t.probability(x)).sum();
/// assert!((total - 1.0).abs() < 1e-12);
/// assert!((t.probability(0) - 0.125).abs() < 1e-3); // ≈ 1 / (3.19 sqrt(2 pi))
/// ```
#[derive(Clone, PartialEq)]
pub struct GaussianCdt {
    sigma: f64,
    tail: u64,
    /// `thresholds[k] = round(2^128 P(|X| <= k))`, `k = 0 .. T-1`, saturated at `2^128 - 1`.
    thresholds: Vec<u128>,
}

impl fmt::Debug for GaussianCdt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GaussianCdt")
            .field("sigma", &self.sigma)
            .field("tail_cut", &self.tail)
            .finish_non_exhaustive()
    }
}

impl GaussianCdt {
    /// Builds the table for `sigma` (`0 < sigma <= 4096`, finite).
    ///
    /// ```
    /// use latpoly::sampling::GaussianCdt;
    /// assert!(GaussianCdt::new(10.0).is_ok());
    /// for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e6] {
    ///     assert!(GaussianCdt::new(bad).is_err());
    /// }
    /// ```
    pub fn new(sigma: f64) -> Result<Self> {
        if !sigma.is_finite() || sigma <= 0.0 {
            return Err(Error::InvalidArgument(format!(
                "Gaussian sigma must be positive and finite, got {sigma}"
            )));
        }
        if sigma > MAX_GAUSSIAN_SIGMA {
            return Err(Error::InvalidArgument(format!(
                "Gaussian sigma {sigma} exceeds the maximum {MAX_GAUSSIAN_SIGMA}"
            )));
        }
        let tail = ((GAUSSIAN_TAIL_CUT * sigma).ceil() as u64).max(1);
        let one = BigUint::one() << WORK_BITS;
        // c = exp(-1 / (2 sigma^2)); below 2^-288 it is 0 at this precision.
        let c = if 1.0 / (2.0 * sigma * sigma) > 200.0 {
            BigUint::zero()
        } else {
            exp_neg_fixed(&half_inv_square_fixed(sigma))
        };
        let c2 = (&c * &c) >> WORK_BITS;
        // Weights of |X| = x: rho(0) and 2 rho(x), with rho(x) = c^(x^2).
        let mut weights = Vec::with_capacity(tail as usize + 1);
        weights.push(one.clone());
        let (mut rho, mut step) = (one, c); // rho(x), c^(2x+1)
        for _ in 1..=tail {
            rho = (&rho * &step) >> WORK_BITS;
            step = (&step * &c2) >> WORK_BITS;
            weights.push(&rho << 1u32);
        }
        let total: BigUint = weights.iter().sum();
        let half = &total >> 1u32;
        let mut cum = BigUint::zero();
        let thresholds = weights[..tail as usize]
            .iter()
            .map(|w| {
                cum += w;
                let g: BigUint = ((&cum << GAUSSIAN_PRECISION_BITS) + &half) / &total;
                u128::try_from(&g).unwrap_or(u128::MAX)
            })
            .collect();
        Ok(GaussianCdt {
            sigma,
            tail,
            thresholds,
        })
    }

    /// The `sigma` the table was built for.
    ///
    /// ```
    /// assert_eq!(latpoly::sampling::GaussianCdt::new(3.19).unwrap().sigma(), 3.19);
    /// ```
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The tail cut `T = ceil(14 sigma)`: every sample lies in `[-T, T]`.
    ///
    /// ```
    /// assert_eq!(latpoly::sampling::GaussianCdt::new(10.0).unwrap().tail_cut(), 140);
    /// ```
    pub fn tail_cut(&self) -> u64 {
        self.tail
    }

    /// Number of table entries (`T`), i.e. 128-bit comparisons per sample.
    ///
    /// ```
    /// assert_eq!(latpoly::sampling::GaussianCdt::new(0.5).unwrap().len(), 7);
    /// ```
    pub fn len(&self) -> usize {
        self.thresholds.len()
    }

    /// Always false: a table has at least one entry.
    ///
    /// ```
    /// assert!(!latpoly::sampling::GaussianCdt::new(1e-9).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.thresholds.is_empty()
    }

    /// The probability that the sampler outputs `x`, as encoded in the table (rounded to
    /// `f64`); zero outside `[-T, T]`.
    ///
    /// ```
    /// let t = latpoly::sampling::GaussianCdt::new(3.19).unwrap();
    /// let exact = |x: f64| (-x * x / (2.0 * 3.19 * 3.19)).exp();
    /// let norm: f64 = (-100..=100).map(|x| exact(x as f64)).sum();
    /// assert!((t.probability(3) - exact(3.0) / norm).abs() < 1e-15);
    /// assert_eq!(t.probability(3), t.probability(-3));
    /// assert_eq!(t.probability(46), 0.0);
    /// ```
    pub fn probability(&self, x: i64) -> f64 {
        let m = x.unsigned_abs();
        if m > self.tail {
            return 0.0;
        }
        let m = m as usize;
        let lo = if m == 0 { 0 } else { self.thresholds[m - 1] };
        let mass = if m == self.thresholds.len() {
            (u128::MAX - lo) as f64 + 1.0
        } else {
            (self.thresholds[m] - lo) as f64
        };
        let p = mass / 2f64.powi(GAUSSIAN_PRECISION_BITS as i32);
        if m == 0 {
            p
        } else {
            p / 2.0
        }
    }

    /// One sample from 128 random bits `r` and a sign bit, scanning the whole table.
    #[inline(always)]
    fn sample(&self, r: u128, sign: u64) -> i64 {
        // Count the thresholds below or equal to r: the borrow of r - g is r < g. The borrow
        // comes out of the flags (sub/sbb), is summed (adc), and never feeds a branch: three
        // instructions per entry instead of a masked u128 comparison.
        let mut below = 0u64;
        for &g in &self.thresholds {
            below = below.wrapping_add(r.overflowing_sub(g).1 as u64);
        }
        cond_neg((self.thresholds.len() as u64).wrapping_sub(below), sign)
    }
}

/// `floor(2^WORK_BITS / (2 sigma^2))` exactly, for `0.05 <= sigma <= 4096` (so `sigma` is a
/// normal `f64`, `sigma = m 2^e` with a 53-bit `m`).
fn half_inv_square_fixed(sigma: f64) -> BigUint {
    let bits = sigma.to_bits();
    let m = (bits & ((1 << 52) - 1)) | (1 << 52);
    let e = ((bits >> 52) & 0x7ff) as i64 - 1075;
    // 1 / (2 sigma^2) = 2^(-2e-1) / m^2, and WORK_BITS - 2e - 1 > 0 in the allowed range.
    let shift = WORK_BITS as i64 - 2 * e - 1;
    debug_assert!(shift > 0);
    let m = BigUint::from(m);
    (BigUint::one() << shift as u64) / (&m * &m)
}

/// `exp(-a)` in fixed point (`WORK_BITS` fractional bits) for `a = a_fixed / 2^WORK_BITS`,
/// `0 <= a < 256`: halve the argument until it is below `1/16`, sum the Taylor series, square
/// back.
fn exp_neg_fixed(a_fixed: &BigUint) -> BigUint {
    let one = BigUint::one() << WORK_BITS;
    let k = a_fixed.bits().saturating_sub(WORK_BITS - 4);
    let y = a_fixed >> k;
    let (mut pos, mut neg) = (one.clone(), BigUint::zero());
    let mut term = one;
    let mut i = 1u32;
    loop {
        term = ((&term * &y) >> WORK_BITS) / i;
        if term.is_zero() {
            break;
        }
        if i % 2 == 1 {
            neg += &term;
        } else {
            pos += &term;
        }
        i += 1;
    }
    let mut v = pos - neg;
    for _ in 0..k {
        v = (&v * &v) >> WORK_BITS;
    }
    v
}

impl Sampler {
    /// `n` samples of the discrete Gaussian `D_{Z,sigma}` centred at 0 (`0 < sigma <= 4096`).
    ///
    /// Constant-time CDT sampler; precision and tail cut in the [`GaussianCdt`] docs and
    /// [`crate::sampling`]. The table for the last `sigma` used is cached in the sampler.
    /// Errors: `sigma` not positive and finite or above [`MAX_GAUSSIAN_SIGMA`], or allocation.
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([6; 32]);
    /// let e = s.gaussian(4096, 3.19).unwrap();
    /// let var = e.iter().map(|&x| (x * x) as f64).sum::<f64>() / 4096.0;
    /// assert!((var - 3.19f64 * 3.19).abs() < 1.5);
    /// assert!(s.gaussian(4, -1.0).is_err());
    /// ```
    pub fn gaussian(&mut self, n: usize, sigma: f64) -> Result<Vec<i64>> {
        let table = self.cached_table(sigma)?;
        self.gaussian_with(&table, n)
    }

    /// `n` discrete Gaussian samples from a prebuilt table. Errors: allocation only.
    ///
    /// ```
    /// use latpoly::sampling::{GaussianCdt, Sampler};
    /// let t = GaussianCdt::new(10.0).unwrap();
    /// let v = Sampler::from_seed([6; 32]).gaussian_with(&t, 100).unwrap();
    /// assert!(v.iter().all(|x| x.abs() <= 140));
    /// ```
    pub fn gaussian_with(&mut self, table: &GaussianCdt, n: usize) -> Result<Vec<i64>> {
        let mut v = try_zeroed(n)?;
        self.fill_gaussian(table, &mut v);
        Ok(v)
    }

    /// Fills `out` with discrete Gaussian samples from a prebuilt table (no allocation).
    ///
    /// ```
    /// use latpoly::sampling::{GaussianCdt, Sampler};
    /// let t = GaussianCdt::new(3.19).unwrap();
    /// let mut buf = [0i64; 1024];
    /// Sampler::from_seed([6; 32]).fill_gaussian(&t, &mut buf);
    /// assert!(buf.iter().any(|&x| x < 0) && buf.iter().any(|&x| x > 0));
    /// ```
    pub fn fill_gaussian(&mut self, table: &GaussianCdt, out: &mut [i64]) {
        let mut bits = BitPool::new();
        for x in out.iter_mut() {
            let hi = self.next_u64();
            let lo = self.next_u64();
            let sign = bits.next(self);
            *x = table.sample((hi as u128) << 64 | lo as u128, sign);
        }
    }

    /// Fills `out` with discrete Gaussian samples of standard deviation `sigma` (no allocation
    /// but the table, kept for the next call with the same `sigma` as [`Sampler::gaussian`]
    /// keeps it). Errors as [`GaussianCdt::new`].
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([6; 32]);
    /// let mut buf = [0i64; 1024];
    /// s.fill_gaussian_sigma(&mut buf, 3.19)?;
    /// assert_eq!(buf.to_vec(), latpoly::sampling::Sampler::from_seed([6; 32]).gaussian(1024, 3.19)?);
    /// assert!(s.fill_gaussian_sigma(&mut buf, 0.0).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn fill_gaussian_sigma(&mut self, out: &mut [i64], sigma: f64) -> Result<()> {
        let table = self.cached_table(sigma)?;
        self.fill_gaussian(&table, out);
        Ok(())
    }

    /// A polynomial with discrete Gaussian coefficients, reduced into every limb of `ctx`
    /// (coefficient representation). Errors as [`Sampler::gaussian`].
    ///
    /// ```
    /// use latpoly::{rns::RnsContext, sampling::Sampler};
    /// let ctx = RnsContext::with_prime_bits(1024, 60, 2).unwrap();
    /// let e = Sampler::from_seed([1; 32]).gaussian_poly(&ctx, 3.19).unwrap();
    /// assert!(e.to_centered_bigints().iter().all(|c| c.magnitude() <= &45u32.into()));
    /// ```
    pub fn gaussian_poly(&mut self, ctx: &Arc<RnsContext>, sigma: f64) -> Result<RnsPoly> {
        let table = self.cached_table(sigma)?;
        let v = Wiped::new(self.gaussian_with(&table, ctx.n())?);
        Ok(small_poly(ctx, v, table.tail_cut()))
    }

    fn cached_table(&mut self, sigma: f64) -> Result<Arc<GaussianCdt>> {
        if let Some(t) = &self.gaussian_cache {
            if t.sigma.to_bits() == sigma.to_bits() {
                return Ok(Arc::clone(t));
            }
        }
        let t = Arc::new(GaussianCdt::new(sigma)?);
        self.gaussian_cache = Some(Arc::clone(&t));
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_exp_matches_f64() {
        for a in [0.0, 1e-6, 0.049, 0.5, 1.0, 7.25, 50.0, 170.0, 199.0] {
            let a_fixed = BigUint::from((a * 2f64.powi(60)) as u128) << (WORK_BITS - 60);
            let v = exp_neg_fixed(&a_fixed);
            let got = num_traits::ToPrimitive::to_f64(&v).unwrap() / 2f64.powi(WORK_BITS as i32);
            let want = (-a).exp();
            // Relative 1e-14, or below the 2^-256 resolution (e^-199 rounds to 0).
            let tol = want * 1e-14 + 2f64.powi(-255);
            assert!((got - want).abs() <= tol, "a={a}: {got} vs {want}");
        }
    }

    #[test]
    fn half_inv_square_is_exact() {
        // sigma = 0.5: 1/(2 sigma^2) = 2.
        assert_eq!(half_inv_square_fixed(0.5), BigUint::from(2u32) << WORK_BITS);
        // sigma = 4: 1/32.
        assert_eq!(
            half_inv_square_fixed(4.0),
            BigUint::one() << (WORK_BITS - 5)
        );
    }

    #[test]
    fn thresholds_increase() {
        for sigma in [1e-3, 0.3, 1.0, 3.19, 17.5] {
            let t = GaussianCdt::new(sigma).unwrap();
            assert!(t.thresholds.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!(t.len() as u64, t.tail_cut());
        }
    }
}
