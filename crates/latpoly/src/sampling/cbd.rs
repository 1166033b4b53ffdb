//! Centered binomial distribution `CBD(eta)`: `sum of eta bits - sum of eta bits`.
//!
//! `P(x) = C(2 eta, eta + x) / 4^eta` for `x` in `[-eta, eta]`; variance `eta / 2`. Each sample
//! uses one 64-bit word: the popcount of its low `eta` bits minus the popcount of bits
//! `32 .. 32 + eta`. Population counts are branch-free (the `popcnt` instruction or the SWAR bit
//! trick), so the sampler is constant time and exact (no approximation at all).

use super::{small_poly, try_zeroed, Sampler};
use crate::error::{Error, Result};
use crate::rns::{RnsContext, RnsPoly};
use crate::secret::Wiped;
use std::sync::Arc;

fn check_eta(eta: u32) -> Result<()> {
    if !(1..=32).contains(&eta) {
        return Err(Error::InvalidArgument(format!(
            "CBD parameter eta = {eta} is outside 1..=32"
        )));
    }
    Ok(())
}

impl Sampler {
    /// `n` samples of the centered binomial distribution `CBD(eta)`, `1 <= eta <= 32`.
    ///
    /// Exact and constant time. Errors: `eta` outside `1..=32`, or allocation.
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([2; 32]);
    /// let v = s.cbd(1000, 2).unwrap(); // Kyber's eta = 2
    /// assert!(v.iter().all(|x| (-2..=2).contains(x)));
    /// assert!(s.cbd(4, 0).is_err() && s.cbd(4, 33).is_err());
    /// ```
    pub fn cbd(&mut self, n: usize, eta: u32) -> Result<Vec<i64>> {
        check_eta(eta)?;
        let mut v = try_zeroed(n)?;
        self.fill_cbd(&mut v, eta)?;
        Ok(v)
    }

    /// Fills `out` with `CBD(eta)` samples; as [`Sampler::cbd`].
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::from_seed([2; 32]);
    /// let mut buf = [0i64; 256];
    /// s.fill_cbd(&mut buf, 32).unwrap();
    /// assert!(buf.iter().all(|x| x.abs() <= 32));
    /// ```
    pub fn fill_cbd(&mut self, out: &mut [i64], eta: u32) -> Result<()> {
        check_eta(eta)?;
        let mask = (1u64 << eta) - 1;
        for x in out.iter_mut() {
            let w = self.next_u64();
            let a = (w & mask).count_ones() as i64;
            let b = ((w >> 32) & mask).count_ones() as i64;
            *x = a.wrapping_sub(b);
        }
        Ok(())
    }

    /// A polynomial with `CBD(eta)` coefficients, reduced into every limb of `ctx` (coefficient
    /// representation). Errors as [`Sampler::cbd`].
    ///
    /// ```
    /// use latpoly::{rns::RnsContext, sampling::Sampler};
    /// let ctx = RnsContext::with_prime_bits(64, 30, 1).unwrap();
    /// let e = Sampler::from_seed([1; 32]).cbd_poly(&ctx, 3).unwrap();
    /// assert!(e.to_centered_bigints().iter().all(|c| c.magnitude() <= &3u32.into()));
    /// ```
    pub fn cbd_poly(&mut self, ctx: &Arc<RnsContext>, eta: u32) -> Result<RnsPoly> {
        let v = Wiped::new(self.cbd(ctx.n(), eta)?);
        Ok(small_poly(ctx, v, eta as u64))
    }
}
