//! Ternary samplers: uniform in `{-1, 0, 1}`, and fixed Hamming weight.
//!
//! **Uniform ternary**: a value uniform in `[0, 3)` (128-bit multiply-high, statistical distance
//! `< 3 / 2^129 < 2^-127`) minus one.
//!
//! **Fixed weight** `h`: selection sampling (Knuth, TAOCP vol. 2, Algorithm 3.4.2 S). Walking
//! the positions `i = 0 .. n-1` with `w` ones still to place, position `i` is chosen with
//! probability `w / (n - i)`: draw `r` uniform in `[0, n - i)` and choose iff `r < w`. This
//! selects every `h`-subset with probability exactly `1 / C(n, h)` for an exactly uniform `r`,
//! and always exactly `h` positions (once `w = n - i` every remaining position is chosen; once
//! `w = 0` none is). Each chosen entry gets an independent uniform sign.
//!
//! Constant time: every position costs the same (one `uniform_below(n - i)` with a public
//! modulus, one branch-free comparison, one sign bit); the secret count `w` and the choices are
//! only used in arithmetic. The `n` draws are each within `(n - i) / 2^129` of uniform, so the
//! output is within `n (n + 1) / 2^130` of the exact distribution.

use super::ct::{cond_neg, keep_if, lt_u64};
use super::{small_poly, try_zeroed, BitPool, Sampler};
use crate::error::{Error, Result};
use crate::rns::{RnsContext, RnsPoly};
use crate::secret::Wiped;
use std::sync::Arc;

impl Sampler {
    /// `n` values uniform in `{-1, 0, 1}`. Constant time. Errors: `n` values cannot be
    /// allocated ([`Sampler::fill_ternary`] fills a buffer of your own instead).
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([4; 32]);
    /// let v = s.ternary(300)?;
    /// for t in -1..=1 {
    ///     assert!(v.contains(&t));
    /// }
    /// assert!(v.iter().all(|x| (-1..=1).contains(x)));
    /// assert!(s.ternary(1 << 61).is_err()); // 2^64 bytes: refused, not a panic or an abort
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn ternary(&mut self, n: usize) -> Result<Vec<i64>> {
        let mut v = try_zeroed(n)?;
        self.fill_ternary(&mut v);
        Ok(v)
    }

    /// Fills `out` with values uniform in `{-1, 0, 1}`.
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([4; 32]);
    /// let mut buf = [5i64; 32];
    /// s.fill_ternary(&mut buf);
    /// assert!(buf.iter().all(|x| (-1..=1).contains(x)));
    /// ```
    pub fn fill_ternary(&mut self, out: &mut [i64]) {
        self.fill_below(out, 3, |v| (v as i64).wrapping_sub(1));
    }

    /// `n` values with exactly `weight` nonzero entries, each `+1` or `-1` with probability
    /// 1/2; the set of nonzero positions is uniform among all `C(n, weight)` subsets.
    ///
    /// Method: selection sampling (Knuth, TAOCP vol. 2, Algorithm 3.4.2 S). Walking the
    /// positions `i = 0 .. n-1` with `w` nonzeros still to place, position `i` is chosen iff
    /// `r < w` for `r` uniform in `[0, n - i)`, i.e. with probability `w / (n - i)`; this gives
    /// every support the probability `1 / C(n, weight)` and always exactly `weight` nonzeros.
    /// Constant time: every position does the same work (a draw modulo the public `n - i`, a
    /// branch-free comparison, a sign bit); the secret count `w` is only used in arithmetic.
    /// Statistical distance to the exact distribution: below `n (n + 1) / 2^130`.
    ///
    /// Errors: `weight > n`, or allocation.
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([4; 32]);
    /// let v = s.ternary_fixed(1024, 64).unwrap();
    /// assert_eq!(v.iter().filter(|&&x| x != 0).count(), 64);
    /// assert!(v.iter().all(|x| (-1..=1).contains(x)));
    /// assert!(s.ternary_fixed(3, 4).is_err());
    /// ```
    pub fn ternary_fixed(&mut self, n: usize, weight: usize) -> Result<Vec<i64>> {
        check_weight(n, weight)?;
        let mut v = try_zeroed(n)?;
        self.fill_ternary_fixed(&mut v, weight)?;
        Ok(v)
    }

    /// Fills `out` with a fixed-weight ternary vector of weight `weight`; as
    /// [`Sampler::ternary_fixed`] with `n = out.len()`.
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([4; 32]);
    /// let mut buf = [0i64; 10];
    /// s.fill_ternary_fixed(&mut buf, 10).unwrap();
    /// assert!(buf.iter().all(|x| x.abs() == 1));
    /// ```
    pub fn fill_ternary_fixed(&mut self, out: &mut [i64], weight: usize) -> Result<()> {
        let n = out.len();
        check_weight(n, weight)?;
        let mut bits = BitPool::new();
        // Ones still to place: secret after the first position, used only arithmetically.
        let mut left = weight as u64;
        for (i, x) in out.iter_mut().enumerate() {
            let r = self.uniform_below((n - i) as u64);
            let take = lt_u64(r, left);
            left = left.wrapping_sub(take);
            let sign = bits.next(self);
            // take * (+1 or -1), computed with masks instead of a branch.
            *x = keep_if(cond_neg(1, sign) as u64, take) as i64;
        }
        Ok(())
    }

    /// A polynomial with uniform ternary coefficients, reduced into every limb of `ctx`
    /// (coefficient representation).
    ///
    /// ```
    /// use latpoly::{rns::RnsContext, sampling::Sampler};
    /// let ctx = RnsContext::with_prime_bits(64, 50, 2).unwrap();
    /// let s = Sampler::from_seed([1; 32]).ternary_poly(&ctx);
    /// assert!(s.to_centered_bigints().iter().all(|c| c.magnitude() <= &1u32.into()));
    /// ```
    pub fn ternary_poly(&mut self, ctx: &Arc<RnsContext>) -> RnsPoly {
        // A context's n (at most `ntt::MAX_N`) always allocates, as its polynomials do.
        let mut v = Wiped::new(vec![0i64; ctx.n()]);
        self.fill_ternary(&mut v);
        small_poly(ctx, v, 1)
    }

    /// A polynomial with a fixed-weight ternary coefficient vector (see
    /// [`Sampler::ternary_fixed`]), reduced into every limb of `ctx`. Errors: `weight > n`.
    ///
    /// ```
    /// use latpoly::{rns::RnsContext, sampling::Sampler};
    /// let ctx = RnsContext::with_prime_bits(64, 50, 2).unwrap();
    /// let mut s = Sampler::from_seed([1; 32]);
    /// let p = s.ternary_fixed_poly(&ctx, 8).unwrap();
    /// assert_eq!(p.to_centered_bigints().iter().filter(|c| c.magnitude() == &1u32.into()).count(), 8);
    /// assert!(s.ternary_fixed_poly(&ctx, 65).is_err());
    /// ```
    pub fn ternary_fixed_poly(&mut self, ctx: &Arc<RnsContext>, weight: usize) -> Result<RnsPoly> {
        let v = Wiped::new(self.ternary_fixed(ctx.n(), weight)?);
        Ok(small_poly(ctx, v, 1))
    }
}

fn check_weight(n: usize, weight: usize) -> Result<()> {
    if weight > n {
        return Err(Error::InvalidArgument(format!(
            "Hamming weight {weight} exceeds the length {n}"
        )));
    }
    Ok(())
}
