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
//! * [`Plan::pointwise`], [`Plan::pointwise_assign`] (in place), [`Plan::multiply`]: products, inputs and
//!   outputs in `[0, q)`.
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
pub(crate) mod x86;

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
///
/// ```
/// use latpoly::{NttPlan, NttPlan16};
///
/// // The same ring Z_17[x]/(x^8 + 1) in u64 and in u16 lanes.
/// let (wide, narrow) = (NttPlan::new(8, 17)?, NttPlan16::new(8, 17)?);
/// let a = [1, 2, 3, 4, 5, 6, 7, 8];
/// let c = wide.multiply(&a, &a)?;
/// let c16 = narrow.multiply(&a.map(|x| x as u16), &a.map(|x| x as u16))?;
/// assert!(c.iter().zip(&c16).all(|(&x, &y)| x == y as u64));
/// # Ok::<(), latpoly::Error>(())
/// ```
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
///
/// ```
/// use latpoly::ntt::bit_reverse;
/// assert_eq!(bit_reverse(0b001, 3), 0b100);
/// assert_eq!(bit_reverse(0b110, 3), 0b011);
/// assert_eq!(bit_reverse(5, 0), 0);
/// ```
#[inline]
pub fn bit_reverse(x: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        x.reverse_bits() >> (usize::BITS - bits)
    }
}

/// Checks that `n` is a supported transform size.
///
/// ```
/// use latpoly::{ntt::check_degree, Error};
/// assert!(check_degree(1024).is_ok());
/// assert!(matches!(check_degree(1000), Err(Error::InvalidDegree { n: 1000, .. })));
/// assert!(check_degree(1).is_err()); // below MIN_N
/// assert!(check_degree(1 << 18).is_err()); // above MAX_N
/// ```
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
    ///
    /// ```
    /// use latpoly::{Error, NttPlan};
    /// let plan = NttPlan::new(1024, 12289)?;
    /// assert_eq!((plan.n(), plan.q()), (1024, 12289));
    /// assert!(matches!(NttPlan::new(1000, 12289), Err(Error::InvalidDegree { .. })));
    /// // 12289 - 1 = 3 * 2^12 is not divisible by 2n = 8192.
    /// assert!(matches!(NttPlan::new(4096, 12289), Err(Error::InvalidModulus { q: 12289, .. })));
    /// assert!(NttPlan::new(8, 289).is_err()); // 289 = 17^2 is 1 mod 16 but not prime
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn new(n: usize, q: u64) -> Result<Self> {
        let cap = Isa::env_cap().unwrap_or(Isa::Avx512Ifma);
        let isa = Self::available_isas(n, q)
            .into_iter()
            .find(|&i| i <= cap)
            .unwrap_or(Isa::Scalar);
        Self::with_isa(n, q, isa)
    }

    /// Backends this CPU offers for a transform of size `n` modulo `q`, best first (always
    /// ends with `Scalar`): those whose lanes hold `q` and whose vectors `n` fills. Ignores
    /// `LATPOLY_ISA`. It does not check that `(n, q)` admits a transform at all (`n` a power of
    /// two in range, `q` a prime `≡ 1 (mod 2n)`); [`Self::new`] does.
    ///
    /// ```
    /// use latpoly::{Isa, NttPlan};
    /// let isas = NttPlan::available_isas(1024, 12289);
    /// assert_eq!(isas.last(), Some(&Isa::Scalar));
    /// assert!(isas.windows(2).all(|w| w[0] > w[1])); // best first
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn available_isas(n: usize, q: u64) -> Vec<Isa> {
        backend::available(W::BITS, q, n)
    }

    /// Builds the plan on a given backend (ignoring `LATPOLY_ISA`); errors if this CPU cannot run
    /// it for `(n, q)` (see [`Self::available_isas`]).
    ///
    /// ```
    /// use latpoly::{Isa, NttPlan, NttPlan16};
    /// let (n, q) = (64, 12289);
    /// let reference = NttPlan::with_isa(n, q, Isa::Scalar)?;
    /// let a: Vec<u64> = (0..n as u64).map(|i| i * 191 % q).collect();
    /// let want = reference.multiply(&a, &a)?;
    /// for isa in NttPlan::available_isas(n, q) {
    ///     let plan = NttPlan::with_isa(n, q, isa)?;
    ///     assert_eq!(plan.isa(), isa);
    ///     assert_eq!(plan.multiply(&a, &a)?, want);
    /// }
    /// // IFMA applies to 64-bit lanes only.
    /// assert!(NttPlan16::with_isa(n, q, Isa::Avx512Ifma).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
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
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(256, 7681)?;
    /// assert_eq!(plan.n(), 256);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn n(&self) -> usize {
        self.n
    }

    /// The modulus `q`.
    ///
    /// ```
    /// let plan = latpoly::NttPlan16::new(256, 7681)?;
    /// assert_eq!(plan.q(), 7681u16); // in the lane type
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn q(&self) -> W {
        self.m.value()
    }

    /// The modulus with its precomputed reduction constants.
    ///
    /// ```
    /// use latpoly::arith::Modulus;
    /// let plan = latpoly::NttPlan::new(256, 7681)?;
    /// let m = plan.modulus();
    /// assert_eq!(m.mul(7680, 7680), 1);
    /// assert_eq!(m.value(), plan.q());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn modulus(&self) -> &W::Modulus {
        &self.m
    }

    /// The primitive `2n`-th root of unity `ψ` the plan uses.
    ///
    /// ```
    /// use latpoly::arith::Modulus;
    /// let plan = latpoly::NttPlan::new(256, 12289)?;
    /// let (psi, m) = (plan.psi(), plan.modulus());
    /// assert_eq!(m.pow(psi, 256), 12288); // ψ^n = -1, so ψ has order 2n
    /// assert_eq!(psi, latpoly::primes::min_primitive_2n_root(256, 12289)?);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn psi(&self) -> W {
        self.psi
    }

    /// The instruction set this plan's kernels run on.
    ///
    /// ```
    /// use latpoly::{Isa, NttPlan};
    /// let plan = NttPlan::new(1024, 12289)?; // the best backend allowed here
    /// assert!(NttPlan::available_isas(1024, 12289).contains(&plan.isa()));
    /// assert_eq!(NttPlan::with_isa(1024, 12289, Isa::Scalar)?.isa(), Isa::Scalar);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
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

    /// The two operands of a lane-wise call: `n` values each, all below `q`.
    fn check_operands(&self, a: &[W], b: &[W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_len(b.len())?;
        self.check_range(a, self.q())?;
        self.check_range(b, self.q())
    }

    /// Checks every value of `a` is below `bound` (vectorised on SIMD backends).
    fn check_range(&self, a: &[W], bound: W) -> Result<()> {
        match &self.kernels {
            Some(k) if a.len() == self.n => {
                if k.all_below(a, bound) {
                    Ok(())
                } else {
                    check_below(a, bound)
                }
            }
            _ => check_below(a, bound),
        }
    }

    /// Forward NTT in place: input `[0, q)` natural order, output `[0, q)` bit-reversed order.
    ///
    /// ```
    /// use latpoly::{arith::Modulus, ntt::bit_reverse, NttPlan};
    /// let plan = NttPlan::new(8, 17)?;
    /// let a = [1, 2, 3, 4, 5, 6, 7, 8];
    /// let mut x = a;
    /// plan.forward(&mut x)?;
    /// // Output i is a evaluated at ψ^(2 brv(i) + 1).
    /// let m = plan.modulus();
    /// for (i, &xi) in x.iter().enumerate() {
    ///     let point = m.pow(plan.psi(), 2 * bit_reverse(i, 3) as u64 + 1);
    ///     let value = a.iter().rev().fold(0, |acc, &c| m.add(m.mul(acc, point), c));
    ///     assert_eq!(xi, value);
    /// }
    /// assert!(plan.forward(&mut [17, 0, 0, 0, 0, 0, 0, 0]).is_err()); // input must be < q
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn forward(&self, a: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        match &self.kernels {
            // The SIMD kernels check the range themselves (on most backends inside the
            // transform's first layer, or while narrowing to 32-bit lanes) and leave `a`
            // unchanged when they refuse it.
            Some(k) => {
                if !k.forward_checked(a) {
                    check_below(a, self.q())?;
                    // Not reached: the kernels refuse only inputs with a value >= q.
                    self.forward_unchecked(a);
                }
            }
            None => {
                self.check_range(a, self.q())?;
                self.forward_unchecked(a);
            }
        }
        Ok(())
    }

    /// Lazy forward NTT in place: input `[0, 4q)`, output `[0, 4q)`, bit-reversed order.
    ///
    /// ```
    /// use latpoly::{Error, NttPlan};
    /// let plan = NttPlan::new(8, 17)?;
    /// let a = [67, 0, 50, 16, 33, 5, 66, 1]; // values up to 4q - 1 = 67
    /// let mut lazy = a;
    /// plan.forward_lazy(&mut lazy)?;
    /// let mut strict = a.map(|x| x % 17);
    /// plan.forward(&mut strict)?;
    /// for (l, s) in lazy.iter().zip(&strict) {
    ///     assert!(*l < 68 && l % 17 == *s);
    /// }
    /// let mut bad = [68, 0, 0, 0, 0, 0, 0, 0];
    /// assert_eq!(
    ///     plan.forward_lazy(&mut bad),
    ///     Err(Error::CoefficientOutOfRange { index: 0, value: 68, bound: 68 })
    /// );
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn forward_lazy(&self, a: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_range(a, self.bound(4))?;
        self.forward_lazy_unchecked(a);
        Ok(())
    }

    /// Inverse NTT in place, `1/n` included: input `[0, 2q)` bit-reversed, output `[0, q)` natural.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(8, 17)?;
    /// let a = [1, 2, 3, 4, 5, 6, 7, 8];
    /// let mut x = a;
    /// plan.forward(&mut x)?;
    /// x[3] += 17; // inputs may be anywhere in [0, 2q)
    /// plan.inverse(&mut x)?;
    /// assert_eq!(x, a);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn inverse(&self, a: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.inverse_checked(a, true)
    }

    /// The range check (`[0, 2q)`) and the inverse transform, strict or lazy: in one call on
    /// SIMD kernels (which may fold the check into a pass they make anyway), leaving `a`
    /// unchanged on an error.
    fn inverse_checked(&self, a: &mut [W], strict: bool) -> Result<()> {
        match &self.kernels {
            Some(k) => {
                if !k.inverse_checked(a, self.bound(2), strict) {
                    check_below(a, self.bound(2))?;
                    // Not reached: the kernels refuse only inputs with a value >= 2q.
                    if strict {
                        self.inverse_unchecked(a);
                    } else {
                        self.inverse_lazy_unchecked(a);
                    }
                }
            }
            None => {
                check_below(a, self.bound(2))?;
                if strict {
                    self.inverse_unchecked(a);
                } else {
                    self.inverse_lazy_unchecked(a);
                }
            }
        }
        Ok(())
    }

    /// Lazy inverse NTT in place: input `[0, 2q)`, output `[0, 2q)`.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(8, 17)?;
    /// let a = [1, 2, 3, 4, 5, 6, 7, 8];
    /// let mut x = a;
    /// plan.forward(&mut x)?;
    /// plan.inverse_lazy(&mut x)?;
    /// assert!(x.iter().zip(&a).all(|(&y, &ai)| y < 34 && y % 17 == ai));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn inverse_lazy(&self, a: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.inverse_checked(a, false)
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
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(8, 17)?;
    /// let (a, b) = ([1, 2, 3, 4, 5, 6, 7, 8], [16, 0, 3, 0, 0, 9, 0, 1]);
    /// let (mut fa, mut fb, mut c) = (a, b, [0; 8]);
    /// plan.forward(&mut fa)?;
    /// plan.forward(&mut fb)?;
    /// plan.pointwise(&fa, &fb, &mut c)?;
    /// assert!((0..8).all(|i| c[i] == fa[i] * fb[i] % 17));
    /// plan.inverse(&mut c)?;
    /// assert_eq!(c.to_vec(), plan.multiply(&a, &b)?); // NTT-domain product = ring product
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn pointwise(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        self.check_len(out.len())?;
        self.check_operands(a, b)?;
        self.pointwise_unchecked(a, b, out);
        Ok(())
    }

    /// In-place pointwise product `a[i] = a[i] b[i] mod q`; inputs and output in `[0, q)`. One
    /// pass over two arrays instead of three ([`Self::pointwise`]); on an error `a` is left
    /// unchanged.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(8, 17)?;
    /// let mut a = [1, 2, 3, 4, 5, 6, 7, 16];
    /// plan.pointwise_assign(&mut a, &[16, 0, 3, 0, 0, 9, 0, 16])?;
    /// assert_eq!(a, [16, 0, 9, 0, 0, 3, 0, 1]);
    /// assert!(plan.pointwise_assign(&mut a, &[17, 0, 0, 0, 0, 0, 0, 0]).is_err()); // 17 >= q
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn pointwise_assign(&self, a: &mut [W], b: &[W]) -> Result<()> {
        self.check_operands(a, b)?;
        self.pointwise_assign_unchecked(a, b);
        Ok(())
    }

    /// Pointwise multiply-accumulate `acc[i] += a[i] b[i] mod q`; all in `[0, q)`.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(4, 17)?;
    /// let (a, b) = ([1, 2, 3, 16], [5, 6, 7, 16]);
    /// let mut acc = [10, 0, 16, 1];
    /// plan.pointwise_acc(&a, &b, &mut acc)?;
    /// assert_eq!(acc, [15, 12, 3, 2]); // (10 + 5, 12, 16 + 21, 1 + 256) mod 17
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn pointwise_acc(&self, a: &[W], b: &[W], acc: &mut [W]) -> Result<()> {
        self.check_len(acc.len())?;
        self.check_operands(a, b)?;
        self.check_range(acc, self.q())?;
        self.pointwise_acc_unchecked(a, b, acc);
        Ok(())
    }

    /// Negacyclic product `a · b mod (x^n + 1, q)`: inputs in `[0, q)`, output in `[0, q)`.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(8, 17)?;
    /// let (mut x, mut x7) = ([0; 8], [0; 8]);
    /// x[1] = 1;
    /// x7[7] = 1;
    /// assert_eq!(plan.multiply(&x, &x7)?, [16, 0, 0, 0, 0, 0, 0, 0]); // x^8 = -1
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn multiply(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let mut c = vec![W::ZERO; self.n];
        // Ends holding the transform of `b`, which may be secret: wiped.
        let mut scratch = crate::secret::Wiped::new(vec![W::ZERO; self.n]);
        self.multiply_into(a, b, &mut c, &mut scratch)?;
        Ok(c)
    }

    /// Negacyclic product `out = a · b mod (x^n + 1, q)` into caller-owned memory: inputs in
    /// `[0, q)`, output in `[0, q)`; `scratch` is `n` words of working space (on return it holds
    /// the transform of `b`: wipe it yourself if `b` is secret).
    ///
    /// Faster than [`Self::forward`] twice, [`Self::pointwise_assign`] and [`Self::inverse`]:
    /// the forward transforms read `a` and `b` in their first pass (no copies), the pointwise
    /// product runs block by block inside the inverse's first pass, and the forward transforms
    /// check the ranges as they read the inputs. On an error about the lengths nothing is
    /// written; on one about a coefficient `out` and `scratch` are zero.
    ///
    /// ```
    /// use latpoly::{Error, NttPlan};
    /// let plan = NttPlan::new(8, 17)?;
    /// let a = [1, 2, 0, 0, 0, 0, 0, 16]; // 1 + 2x - x^7
    /// let b = [0, 1, 0, 0, 0, 0, 0, 0]; // x
    /// let (mut out, mut scratch) = ([0; 8], [0; 8]);
    /// plan.multiply_into(&a, &b, &mut out, &mut scratch)?;
    /// assert_eq!(out, [1, 1, 2, 0, 0, 0, 0, 0]); // x + 2x^2 - x^8 = 1 + x + 2x^2
    /// assert_eq!(out.to_vec(), plan.multiply(&a, &b)?);
    /// let mut short = [0; 4];
    /// assert!(matches!(
    ///     plan.multiply_into(&a, &b, &mut out, &mut short),
    ///     Err(Error::LengthMismatch { .. })
    /// ));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn multiply_into(&self, a: &[W], b: &[W], out: &mut [W], scratch: &mut [W]) -> Result<()> {
        self.check_len(a.len())?;
        self.check_len(b.len())?;
        self.check_len(out.len())?;
        self.check_len(scratch.len())?;
        let q = self.q();
        let done = match &self.kernels {
            Some(k) => k.product_checked(q, a, b, out, scratch),
            None => {
                let ok = check_below(a, q).is_ok() && check_below(b, q).is_ok();
                if ok {
                    self.multiply_into_unchecked(a, b, out, scratch);
                }
                ok
            }
        };
        if !done {
            // Zero what a refused product may have written, then name the first bad value.
            out.fill(W::ZERO);
            scratch.fill(W::ZERO);
            check_below(a, q)?;
            check_below(b, q)?;
        }
        Ok(())
    }

    /// [`Self::multiply_into`] without checks. Contract: all four slices of length `n`, `a` and
    /// `b` below `q`. Wrong input gives wrong output, never UB.
    pub(crate) fn multiply_into_unchecked(
        &self,
        a: &[W],
        b: &[W],
        out: &mut [W],
        scratch: &mut [W],
    ) {
        debug_assert!(a.len() == self.n && b.len() == self.n);
        debug_assert!(out.len() == self.n && scratch.len() == self.n);
        match &self.kernels {
            Some(k) => k.product(a, b, out, scratch),
            None => {
                out.copy_from_slice(a);
                scratch.copy_from_slice(b);
                self.forward_unchecked(out);
                self.forward_unchecked(scratch);
                self.pointwise_assign_unchecked(out, scratch);
                self.inverse_unchecked(out);
            }
        }
    }

    /// `out = a + b mod q`; inputs and output in `[0, q)`.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(4, 17)?;
    /// let mut out = [0; 4];
    /// plan.add(&[1, 16, 9, 0], &[2, 1, 9, 0], &mut out)?;
    /// assert_eq!(out, [3, 0, 1, 0]);
    /// assert!(plan.add(&[1, 2], &[3, 4], &mut out).is_err()); // wrong length
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn add(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        self.check_len(out.len())?;
        self.check_operands(a, b)?;
        self.add_unchecked(a, b, out);
        Ok(())
    }

    /// `out = a - b mod q`; inputs and output in `[0, q)`.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(4, 17)?;
    /// let mut out = [0; 4];
    /// plan.sub(&[1, 16, 9, 0], &[2, 1, 9, 5], &mut out)?;
    /// assert_eq!(out, [16, 15, 0, 12]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn sub(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        self.check_len(out.len())?;
        self.check_operands(a, b)?;
        self.sub_unchecked(a, b, out);
        Ok(())
    }

    /// `a = a + b mod q` in place; inputs and output in `[0, q)`. On an error (a length other
    /// than `n`, a value not below `q`) `a` is left unchanged.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(4, 17)?;
    /// let mut a = [1, 16, 9, 0];
    /// plan.add_assign(&mut a, &[2, 1, 9, 0])?;
    /// assert_eq!(a, [3, 0, 1, 0]);
    /// assert!(plan.add_assign(&mut a, &[17, 0, 0, 0]).is_err()); // not below q
    /// assert_eq!(a, [3, 0, 1, 0]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn add_assign(&self, a: &mut [W], b: &[W]) -> Result<()> {
        self.check_operands(a, b)?;
        self.add_assign_unchecked(a, b);
        Ok(())
    }

    /// `a = a - b mod q` in place; inputs and output in `[0, q)`. On an error `a` is left
    /// unchanged.
    ///
    /// ```
    /// let plan = latpoly::NttPlan::new(4, 17)?;
    /// let mut a = [1, 16, 9, 0];
    /// plan.sub_assign(&mut a, &[2, 1, 9, 5])?;
    /// assert_eq!(a, [16, 15, 0, 12]);
    /// assert!(plan.sub_assign(&mut a, &[1, 2]).is_err()); // wrong length
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn sub_assign(&self, a: &mut [W], b: &[W]) -> Result<()> {
        self.check_operands(a, b)?;
        self.sub_assign_unchecked(a, b);
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

    /// `out` extended by `a + b mod q` (`sub`: `a - b mod q`), inputs `< q` of length `n`: the
    /// new words written once, with no zero fill.
    pub(crate) fn sum_extend_unchecked(&self, sub: bool, a: &[W], b: &[W], out: &mut Vec<W>) {
        match &self.kernels {
            Some(k) => k.sum_extend(sub, a, b, out),
            None => {
                let m = &self.m;
                out.extend(
                    a.iter()
                        .zip(b)
                        .map(|(&x, &y)| if sub { m.sub(x, y) } else { m.add(x, y) }),
                );
            }
        }
    }

    pub(crate) fn add_assign_unchecked(&self, a: &mut [W], b: &[W]) {
        match &self.kernels {
            Some(k) => k.add_assign(a, b),
            None => scalar::add_mod_assign(&self.m, a, b),
        }
    }

    pub(crate) fn sub_assign_unchecked(&self, a: &mut [W], b: &[W]) {
        match &self.kernels {
            Some(k) => k.sub_assign(a, b),
            None => scalar::sub_mod_assign(&self.m, a, b),
        }
    }

    pub(crate) fn pointwise_unchecked(&self, a: &[W], b: &[W], out: &mut [W]) {
        match &self.kernels {
            Some(k) => k.pointwise(a, b, out),
            None => scalar::pointwise(&self.m, a, b, out),
        }
    }

    pub(crate) fn pointwise_assign_unchecked(&self, a: &mut [W], b: &[W]) {
        match &self.kernels {
            Some(k) => k.pointwise_assign(a, b),
            None => scalar::pointwise_assign(&self.m, a, b),
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
