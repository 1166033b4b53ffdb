//! Negacyclic number-theoretic transform over `Z_q[x]/(x^n + 1)`, `n` a power of two.
//!
//! A [`Plan`] (aliases [`NttPlan`] for `u64` lanes, [`NttPlan32`], [`NttPlan16`]) holds the twiddle
//! tables for one `(n, q)`: the powers of a primitive `2n`-th root `ψ` (the smallest one, see
//! [`crate::primes::min_primitive_2n_root`]) in bit-reversed order, merged with the NTT roots so no
//! separate pre-/post-multiplication by `ψ^i` is needed, each with its Shoup quotient.
//!
//! # Order and ranges
//!
//! * [`Plan::forward`]: natural order in, **bit-reversed** order out. Output index `i` holds
//!   `a(ψ^(2·brv(i) + 1))`, where `brv` reverses `log2 n` bits. Input `[0, q)`, output `[0, q)`.
//! * [`Plan::forward_lazy`]: the same transform with Harvey's lazy butterflies: input `[0, 4q)`,
//!   output `[0, 4q)` (congruent to the strict result).
//! * [`Plan::inverse`]: bit-reversed order in, natural order out, `1/n` included. Input `[0, 2q)`,
//!   output `[0, q)`. [`Plan::inverse_lazy`]: input `[0, 2q)`, output `[0, 2q)`.
//! * [`Plan::pointwise`], [`Plan::multiply`]: products, inputs and outputs in `[0, q)`.
//!
//! Every call checks lengths and input ranges and returns an [`Error`] instead of panicking.
//!
//! ```
//! use latpoly::NttPlan;
//! let plan = NttPlan::new(8, 17).unwrap();
//! let a = [1, 2, 3, 4, 5, 6, 7, 8];
//! let b = [1, 0, 0, 0, 0, 0, 0, 16]; // 1 - x^7
//! let c = plan.multiply(&a, &b).unwrap();
//! assert_eq!(c, latpoly::reference::negacyclic_mul(&a, &b, 17).unwrap());
//!
//! let mut x = a;
//! plan.forward(&mut x).unwrap();
//! plan.inverse(&mut x).unwrap();
//! assert_eq!(x, a);
//! ```

pub(crate) mod backend;
pub(crate) mod scalar;
pub(crate) mod simd;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::arith::{Modulus, Word};
use crate::error::{Error, Result};
use crate::isa::Isa;
use crate::primes::{is_prime, min_primitive_2n_root};
use backend::Kernels;
use std::sync::Arc;

/// Smallest supported transform size.
pub const MIN_N: usize = 2;
/// Largest supported transform size (`2^17`).
pub const MAX_N: usize = 1 << 17;

/// An NTT plan for one `(n, q)` with residues in lanes of type `W`.
#[derive(Clone, Debug)]
pub struct Plan<W: Word> {
    n: usize,
    m: W::Modulus,
    psi: W,
    fwd: Vec<W>,
    fwd_shoup: Vec<W>,
    inv: Vec<W>,
    inv_shoup: Vec<W>,
    n_inv: (W, W),
    n_inv_w: (W, W),
    /// SIMD kernels, or `None` for the scalar reference path.
    kernels: Option<Arc<dyn Kernels<W>>>,
}

/// NTT plan with `u64` lanes (`q < 2^62`).
pub type NttPlan = Plan<u64>;
/// NTT plan with `u32` lanes (`q < 2^30`).
pub type NttPlan32 = Plan<u32>;
/// NTT plan with `u16` lanes (`q < 2^14`).
pub type NttPlan16 = Plan<u16>;

/// Reverses the low `bits` bits of `x`.
#[inline]
pub fn bit_reverse(x: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        x.reverse_bits() >> (usize::BITS - bits)
    }
}

/// Checks that `n` is a supported transform size.
pub fn check_degree(n: usize) -> Result<()> {
    if !n.is_power_of_two() {
        return Err(Error::InvalidDegree {
            n,
            reason: "must be a power of two",
        });
    }
    if !(MIN_N..=MAX_N).contains(&n) {
        return Err(Error::InvalidDegree {
            n,
            reason: "must lie in 2..=131072",
        });
    }
    Ok(())
}

/// Checks every value of `a` is below `bound`, reporting the first offender.
pub(crate) fn check_below<W: Word>(a: &[W], bound: W) -> Result<()> {
    // Branch-free scan first (vectorises), then locate the offender only on failure.
    let worst = a.iter().fold(W::ZERO, |acc, &x| acc.max(x));
    if a.is_empty() || worst < bound {
        return Ok(());
    }
    let index = a.iter().position(|&x| x >= bound).unwrap_or(0);
    Err(Error::CoefficientOutOfRange {
        index,
        value: a[index].to_u64(),
        bound: bound.to_u64(),
    })
}

impl<W: Word> Plan<W> {
    /// Builds the plan for `Z_q[x]/(x^n + 1)`.
    ///
    /// Errors: `n` not a power of two in `2..=2^17`; `q` even, not prime, too large for the lane
    /// (`q >= 2^W::MAX_MODULUS_BITS`), or not `≡ 1 (mod 2n)`.
    ///
    /// The backend is the best one this CPU runs for `(n, q)`, capped by `LATPOLY_ISA`
    /// (see [`crate::isa`]).
    pub fn new(n: usize, q: u64) -> Result<Self> {
        let cap = Isa::env_cap().unwrap_or(Isa::Avx512Ifma);
        let isa = Self::available_isas(n, q)
            .into_iter()
            .find(|&i| i <= cap)
            .unwrap_or(Isa::Scalar);
        Self::with_isa(n, q, isa)
    }

    /// Backends usable for `(n, q)` on this CPU, best first (always ends with `Scalar`).
    /// Ignores `LATPOLY_ISA`.
    pub fn available_isas(n: usize, q: u64) -> Vec<Isa> {
        backend::available(W::BITS, q, n)
    }

    /// Builds the plan on a given backend (ignoring `LATPOLY_ISA`); errors if this CPU cannot run
    /// it for `(n, q)` (see [`Self::available_isas`]).
    pub fn with_isa(n: usize, q: u64, isa: Isa) -> Result<Self> {
        let mut plan = Self::build_scalar(n, q)?;
        if !Self::available_isas(n, q).contains(&isa) {
            return Err(Error::InvalidArgument(format!(
                "backend {isa} is not available for n={n}, q={q} with {}-bit lanes on this CPU",
                W::BITS
            )));
        }
        plan.kernels = backend::build_kernels(isa, &plan.m, &plan.fwd, &plan.inv);
        if plan.isa() != isa {
            return Err(Error::InvalidArgument(format!(
                "backend {isa} failed to initialise"
            )));
        }
        Ok(plan)
    }

    fn build_scalar(n: usize, q: u64) -> Result<Self> {
        check_degree(n)?;
        let m = W::Modulus::new(q)?;
        if !is_prime(q) {
            return Err(Error::InvalidModulus {
                q,
                reason: "not prime",
            });
        }
        if !(q - 1).is_multiple_of(2 * n as u64) {
            return Err(Error::InvalidModulus {
                q,
                reason: "not congruent to 1 mod 2n (no negacyclic NTT of this size)",
            });
        }
        let psi = W::from_u64(min_primitive_2n_root(n, q)?);
        let psi_inv = m.inv(psi).ok_or(Error::InvalidModulus {
            q,
            reason: "root not invertible",
        })?;
        let log_n = n.trailing_zeros();
        // Powers psi^k, psi^-k for k < n.
        let mut pw = vec![W::ONE; n];
        let mut pw_inv = vec![W::ONE; n];
        for k in 1..n {
            pw[k] = m.mul(pw[k - 1], psi);
            pw_inv[k] = m.mul(pw_inv[k - 1], psi_inv);
        }
        let mut fwd = vec![W::ZERO; n];
        let mut inv = vec![W::ZERO; n];
        for k in 0..n {
            let r = bit_reverse(k, log_n);
            fwd[k] = pw[r];
            inv[k] = pw_inv[r];
        }
        let fwd_shoup = fwd.iter().map(|&w| m.shoup(w)).collect();
        let inv_shoup = inv.iter().map(|&w| m.shoup(w)).collect();
        let ni = m.inv(m.reduce_u64(n as u64)).ok_or(Error::InvalidModulus {
            q,
            reason: "n not invertible",
        })?;
        let niw = m.mul(ni, inv[1]);
        Ok(Self {
            n,
            psi,
            n_inv: (ni, m.shoup(ni)),
            n_inv_w: (niw, m.shoup(niw)),
            m,
            fwd,
            fwd_shoup,
            inv,
            inv_shoup,
            kernels: None,
        })
    }

    /// Transform size `n`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The modulus `q`.
    pub fn q(&self) -> W {
        self.m.value()
    }

    /// The modulus with its precomputed reduction constants.
    pub fn modulus(&self) -> &W::Modulus {
        &self.m
    }

    /// The primitive `2n`-th root of unity `ψ` the plan uses.
    pub fn psi(&self) -> W {
        self.psi
    }

    /// The instruction set this plan's kernels run on.
    pub fn isa(&self) -> Isa {
        self.kernels.as_ref().map_or(Isa::Scalar, |k| k.isa())
    }

    fn tables(&self) -> scalar::Tables<'_, W> {
        scalar::Tables {
            m: &self.m,
            fwd: &self.fwd,
            fwd_shoup: &self.fwd_shoup,
            inv: &self.inv,
            inv_shoup: &self.inv_shoup,
            n_inv: self.n_inv,
            n_inv_w: self.n_inv_w,
        }
    }

    fn check_len(&self, len: usize) -> Result<()> {
        if len != self.n {
            return Err(Error::LengthMismatch {
                expected: self.n,
                got: len,
            });
        }
        Ok(())
    }

    fn bound(&self, k: u64) -> W {
        W::from_u64(self.m.value().to_u64() * k)
    }

    /// Checks every value of `a` is below `bound` (vectorised on SIMD backends).
    fn check_range(&self, a: &[W], bound: W) -> Result<()> {
        match &self.kernels {
            Some(k) if a.len() == self.n => {
                if k.max(a) < bound {
                    Ok(())
                } else {
                    check_below(a, bound)
                }
            }
            _ => check_below(a, bound),
        }
    }

    /// Forward NTT in place: input `[0, q)` natural order, output `[0, q)` bit-reversed order.
    pub fn forward(&self, a: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_range(a, self.q())?;
        self.forward_unchecked(a);
        Ok(())
    }

    /// Lazy forward NTT in place: input `[0, 4q)`, output `[0, 4q)`, bit-reversed order.
    pub fn forward_lazy(&self, a: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_range(a, self.bound(4))?;
        self.forward_lazy_unchecked(a);
        Ok(())
    }

    /// Inverse NTT in place, `1/n` included: input `[0, 2q)` bit-reversed, output `[0, q)` natural.
    pub fn inverse(&self, a: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_range(a, self.bound(2))?;
        self.inverse_unchecked(a);
        Ok(())
    }

    /// Lazy inverse NTT in place: input `[0, 2q)`, output `[0, 2q)`.
    pub fn inverse_lazy(&self, a: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_range(a, self.bound(2))?;
        self.inverse_lazy_unchecked(a);
        Ok(())
    }

    /// Lazy forward NTT without checks. Contract: `a.len() == n`, values in `[0, 4q)`
    /// (checked by `debug_assert!`). Wrong input gives wrong output, never UB.
    pub(crate) fn forward_lazy_unchecked(&self, a: &mut [W]) {
        debug_assert_eq!(a.len(), self.n);
        debug_assert!(check_below(a, self.bound(4)).is_ok());
        match &self.kernels {
            Some(k) => k.forward_lazy(a),
            None => scalar::forward_lazy(&self.tables(), a),
        }
    }

    /// Lazy inverse NTT without checks. Contract: `a.len() == n`, values in `[0, 2q)`.
    pub(crate) fn inverse_lazy_unchecked(&self, a: &mut [W]) {
        debug_assert_eq!(a.len(), self.n);
        debug_assert!(check_below(a, self.bound(2)).is_ok());
        match &self.kernels {
            Some(k) => k.inverse_lazy(a),
            None => scalar::inverse_lazy(&self.tables(), a),
        }
    }

    /// Forward NTT to `[0, q)` without checks (contract as [`Self::forward`]).
    pub(crate) fn forward_unchecked(&self, a: &mut [W]) {
        match &self.kernels {
            Some(k) => k.forward_strict(a),
            None => {
                scalar::forward_lazy(&self.tables(), a);
                scalar::reduce_from_4q(self.q(), a);
            }
        }
    }

    /// Inverse NTT to `[0, q)` without checks (contract as [`Self::inverse`]).
    pub(crate) fn inverse_unchecked(&self, a: &mut [W]) {
        match &self.kernels {
            Some(k) => k.inverse_strict(a),
            None => {
                scalar::inverse_lazy(&self.tables(), a);
                scalar::reduce_from_2q(self.q(), a);
            }
        }
    }

    /// Pointwise product `out[i] = a[i] b[i] mod q`; inputs and output in `[0, q)`.
    pub fn pointwise(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_len(b.len())?;
        self.check_len(out.len())?;
        self.check_range(a, self.q())?;
        self.check_range(b, self.q())?;
        self.pointwise_unchecked(a, b, out);
        Ok(())
    }

    /// Pointwise multiply-accumulate `acc[i] += a[i] b[i] mod q`; all in `[0, q)`.
    pub fn pointwise_acc(&self, a: &[W], b: &[W], acc: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_len(b.len())?;
        self.check_len(acc.len())?;
        self.check_range(a, self.q())?;
        self.check_range(b, self.q())?;
        self.check_range(acc, self.q())?;
        self.pointwise_acc_unchecked(a, b, acc);
        Ok(())
    }

    /// Negacyclic product `a · b mod (x^n + 1, q)`: inputs in `[0, q)`, output in `[0, q)`.
    pub fn multiply(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        self.check_len(a.len())?;
        self.check_len(b.len())?;
        self.check_range(a, self.q())?;
        self.check_range(b, self.q())?;
        let mut fa = a.to_vec();
        let mut fb = b.to_vec();
        self.forward_unchecked(&mut fa);
        self.forward_unchecked(&mut fb);
        let mut c = vec![W::ZERO; self.n];
        self.pointwise_unchecked(&fa, &fb, &mut c);
        self.inverse_unchecked(&mut c);
        Ok(c)
    }

    /// `out = a + b mod q`; inputs and output in `[0, q)`.
    pub fn add(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_len(b.len())?;
        self.check_len(out.len())?;
        self.check_range(a, self.q())?;
        self.check_range(b, self.q())?;
        self.add_unchecked(a, b, out);
        Ok(())
    }

    /// `out = a - b mod q`; inputs and output in `[0, q)`.
    pub fn sub(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_len(b.len())?;
        self.check_len(out.len())?;
        self.check_range(a, self.q())?;
        self.check_range(b, self.q())?;
        self.sub_unchecked(a, b, out);
        Ok(())
    }

    /// Packs the parities of the centred values of `w` (`< q`), LSB first, into `out`
    /// (`w.len() / 8` bytes): the decoding of the LPR scheme.
    pub(crate) fn parity_decode_unchecked(&self, w: &[W], out: &mut [u8]) {
        match &self.kernels {
            Some(k) if W::BITS >= 16 => k.parity_decode(w, out),
            _ => scalar::parity_decode(self.q(), w, out),
        }
    }

    pub(crate) fn add_unchecked(&self, a: &[W], b: &[W], out: &mut [W]) {
        match &self.kernels {
            Some(k) => k.add(a, b, out),
            None => scalar::add_mod(&self.m, a, b, out),
        }
    }

    pub(crate) fn sub_unchecked(&self, a: &[W], b: &[W], out: &mut [W]) {
        match &self.kernels {
            Some(k) => k.sub(a, b, out),
            None => scalar::sub_mod(&self.m, a, b, out),
        }
    }

    pub(crate) fn pointwise_unchecked(&self, a: &[W], b: &[W], out: &mut [W]) {
        match &self.kernels {
            Some(k) => k.pointwise(a, b, out),
            None => scalar::pointwise(&self.m, a, b, out),
        }
    }

    pub(crate) fn pointwise_acc_unchecked(&self, a: &[W], b: &[W], acc: &mut [W]) {
        match &self.kernels {
            Some(k) => k.pointwise_acc(a, b, acc),
            None => scalar::pointwise_acc(&self.m, a, b, acc),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Isa;

    /// The SIMD parity decoding (LPR) against the scalar one, at the edges of the centring.
    #[test]
    fn parity_decode_backends_agree() {
        for (n, q) in [(256usize, 12289u64), (1024, 12289), (64, 7681)] {
            let half = q / 2;
            let mut w: Vec<u16> = (0..n as u64)
                .map(|i| ((i * 7919 + 13) % q) as u16)
                .collect();
            for (i, v) in [0, 1, half - 1, half, half + 1, q - 1, q - 2]
                .iter()
                .enumerate()
            {
                w[i] = *v as u16;
            }
            let want: Vec<u8> = {
                let mut o = vec![0u8; n / 8];
                scalar::parity_decode(q as u16, &w, &mut o);
                o
            };
            for (i, &v) in w.iter().enumerate() {
                let v = v as u64;
                let centred_odd = if v > half { (q - v) % 2 } else { v % 2 };
                assert_eq!((want[i / 8] >> (i % 8)) & 1, centred_odd as u8);
            }
            for isa in NttPlan16::available_isas(n, q) {
                let plan = NttPlan16::with_isa(n, q, isa).unwrap();
                let mut got = vec![0u8; n / 8];
                plan.parity_decode_unchecked(&w, &mut got);
                assert_eq!(got, want, "{isa}");
                assert!(isa == Isa::Scalar || plan.isa() == isa);
            }
        }
    }
}
