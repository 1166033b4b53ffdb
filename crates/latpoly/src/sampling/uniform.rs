//! Uniform sampling modulo `q`, in `[-B, B]`, and uniform RNS polynomials.
//!
//! Method: draw 128 bits `x` (two ChaCha20 words) and output `floor(x q / 2^128)`, one
//! multiply-high, no division and no rejection loop. Each output value has `floor(2^128/q)` or
//! `ceil(2^128/q)` preimages, so the statistical distance to the uniform distribution on
//! `[0, q)` is below `q / 2^129 <= 2^-65` per sample (for every `q < 2^64`).

use super::ct::scale_128;
use super::{small_poly, try_zeroed, Sampler};
use crate::error::{Error, Result};
use crate::rns::{Representation, RnsContext, RnsPoly};
use crate::secret::Wiped;
use std::sync::Arc;

/// Largest bound accepted by [`Sampler::bounded`]: `B <= 2^62`.
///
/// ```
/// use latpoly::sampling::{Sampler, MAX_BOUND};
/// let mut s = Sampler::from_seed([0; 32]);
/// assert!(s.bounded(4, MAX_BOUND).is_ok());
/// assert!(s.bounded(4, MAX_BOUND + 1).is_err());
/// ```
pub const MAX_BOUND: u64 = 1 << 62;

fn check_q(q: u64) -> Result<()> {
    if q == 0 {
        return Err(Error::InvalidModulus {
            q,
            reason: "uniform sampling needs q >= 1",
        });
    }
    Ok(())
}

fn check_bound(bound: u64) -> Result<()> {
    if bound > MAX_BOUND {
        return Err(Error::InvalidArgument(format!(
            "bound {bound} exceeds the maximum 2^62"
        )));
    }
    Ok(())
}

impl Sampler {
    /// One value uniform in `[0, m)` up to statistical distance `m / 2^129` (`m >= 1`).
    #[inline(always)]
    pub(crate) fn uniform_below(&mut self, m: u64) -> u64 {
        let hi = self.next_u64();
        let lo = self.next_u64();
        scale_128(hi, lo, m)
    }

    /// `n` values uniform in `[0, q)`, for any `1 <= q <= u64::MAX` (prime or not).
    ///
    /// Method: 128 random bits `x`, output `floor(x q / 2^128)` (one multiply-high; no
    /// division, no rejection loop, so constant time). Every value in `[0, q)` has
    /// `floor(2^128 / q)` or `ceil(2^128 / q)` preimages, so the statistical distance to uniform
    /// is below `q / 2^129 <= 2^-65` per value.
    ///
    /// Errors: `q = 0`, or `n` values cannot be allocated.
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([3; 32]);
    /// let v = s.uniform(1000, 12289).unwrap();
    /// assert!(v.iter().all(|&x| x < 12289));
    /// assert_eq!(s.uniform(5, 1).unwrap(), vec![0; 5]);
    /// assert!(s.uniform(5, 0).is_err());
    /// ```
    pub fn uniform(&mut self, n: usize, q: u64) -> Result<Vec<u64>> {
        check_q(q)?;
        let mut v = try_zeroed(n)?;
        self.fill_uniform(&mut v, q)?;
        Ok(v)
    }

    /// Fills `out` with values uniform in `[0, q)` (in place, no allocation); as
    /// [`Sampler::uniform`].
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([3; 32]);
    /// let mut buf = [0u64; 64];
    /// s.fill_uniform(&mut buf, u64::MAX).unwrap();
    /// assert!(buf.iter().any(|&x| x > 1 << 60));
    /// ```
    pub fn fill_uniform(&mut self, out: &mut [u64], q: u64) -> Result<()> {
        check_q(q)?;
        self.fill_below(out, q, |v| v);
        Ok(())
    }

    /// `n` values uniform in `[-bound, bound]` (`0 <= bound <= 2^62`).
    ///
    /// A value uniform in `[0, 2B + 1)` minus `B`, so constant time with statistical distance
    /// `< (2B + 1) / 2^129` per value. Errors: `bound > 2^62` ([`MAX_BOUND`]), or allocation.
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([3; 32]);
    /// let v = s.bounded(1000, 5).unwrap();
    /// assert!(v.iter().all(|x| (-5..=5).contains(x)));
    /// assert!(v.contains(&-5) && v.contains(&5));
    /// ```
    pub fn bounded(&mut self, n: usize, bound: u64) -> Result<Vec<i64>> {
        check_bound(bound)?;
        let mut v = try_zeroed(n)?;
        self.fill_bounded(&mut v, bound)?;
        Ok(v)
    }

    /// Fills `out` with values uniform in `[-bound, bound]`; as [`Sampler::bounded`].
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([3; 32]);
    /// let mut buf = [7i64; 16];
    /// s.fill_bounded(&mut buf, 0).unwrap();
    /// assert_eq!(buf, [0; 16]);
    /// ```
    pub fn fill_bounded(&mut self, out: &mut [i64], bound: u64) -> Result<()> {
        check_bound(bound)?;
        // 2B + 1 <= 2^63 + 1 fits; r <= 2B, and r - B (mod 2^64) read as i64 is in [-B, B].
        let m = 2 * bound + 1;
        self.fill_below(out, m, |v| v.wrapping_sub(bound) as i64);
        Ok(())
    }

    /// A polynomial with coefficients uniform in `[-bound, bound]`, reduced into every limb of
    /// `ctx` (coefficient representation). Errors as [`Sampler::bounded`].
    ///
    /// ```
    /// use latpoly::{rns::RnsContext, sampling::Sampler};
    /// let ctx = RnsContext::with_prime_bits(16, 40, 2).unwrap();
    /// let p = Sampler::from_seed([1; 32]).bounded_poly(&ctx, 100).unwrap();
    /// assert!(p.to_centered_bigints().iter().all(|c| c.magnitude() <= &100u32.into()));
    /// ```
    pub fn bounded_poly(&mut self, ctx: &Arc<RnsContext>, bound: u64) -> Result<RnsPoly> {
        let v = Wiped::new(self.bounded(ctx.n(), bound)?);
        Ok(small_poly(ctx, v, bound))
    }

    /// A polynomial uniform in `Z_Q[x]/(x^n + 1)`, in coefficient representation.
    ///
    /// Each limb `i` gets independent values uniform in `[0, q_i)`; by the CRT this is uniform
    /// modulo `Q = q_1 ... q_L` (statistical distance `< n L 2^-65`). Constant time. This is
    /// also the throughput entry point for benchmarks (e.g. 1024 x 100-limb polynomials).
    ///
    /// ```
    /// use latpoly::{rns::{RnsContext, Representation}, sampling::Sampler};
    /// let ctx = RnsContext::with_prime_bits(32, 60, 3).unwrap();
    /// let a = Sampler::from_seed([5; 32]).uniform_poly(&ctx);
    /// assert_eq!(a.representation(), Representation::Coefficient);
    /// assert!(a.to_biguints().iter().all(|c| c < ctx.modulus()));
    /// ```
    pub fn uniform_poly(&mut self, ctx: &Arc<RnsContext>) -> RnsPoly {
        self.uniform_residues(ctx, Representation::Coefficient)
    }

    /// A polynomial uniform in `Z_Q[x]/(x^n + 1)`, returned in NTT representation.
    ///
    /// The NTT is a bijection on each limb, so uniform NTT values are uniform coefficients;
    /// no transform is computed. Same cost and guarantees as [`Sampler::uniform_poly`].
    ///
    /// ```
    /// use latpoly::{rns::{RnsContext, Representation}, sampling::Sampler};
    /// let ctx = RnsContext::with_prime_bits(32, 60, 3).unwrap();
    /// let a = Sampler::from_seed([5; 32]).uniform_poly_ntt(&ctx);
    /// assert_eq!(a.representation(), Representation::Ntt);
    /// ```
    pub fn uniform_poly_ntt(&mut self, ctx: &Arc<RnsContext>) -> RnsPoly {
        self.uniform_residues(ctx, Representation::Ntt)
    }

    fn uniform_residues(&mut self, ctx: &Arc<RnsContext>, repr: Representation) -> RnsPoly {
        let n = ctx.n();
        let mut data = vec![0u64; n * ctx.len()];
        for (limb, &q) in data.chunks_exact_mut(n).zip(ctx.moduli()) {
            self.fill_below(limb, q, |v| v);
        }
        // The length is n L and every residue is below its prime by construction.
        RnsPoly::from_residues_unchecked(ctx, data, repr)
    }
}
