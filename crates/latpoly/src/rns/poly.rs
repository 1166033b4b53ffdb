//! Polynomials in RNS ("double-CRT") form.

use super::context::RnsContext;
use crate::arith::{Modulus, Modulus64};
use crate::error::{Error, Result};
use crate::ntt::check_below;
use num_bigint::{BigInt, BigUint};
use std::sync::Arc;

/// Whether a polynomial holds coefficients or NTT evaluations (bit-reversed order).
///
/// ```
/// use latpoly::{rns::{Representation, RnsContext, RnsPoly}, Error};
/// let ctx = RnsContext::with_prime_bits(8, 30, 2)?;
/// let a = RnsPoly::from_i64s(&ctx, &[1; 8])?;
/// assert_eq!(a.representation(), Representation::Coefficient);
/// let mut b = a.clone();
/// b.to_ntt();
/// assert_eq!(b.representation(), Representation::Ntt);
/// // Operands must agree: mixing representations is an error, not a silent wrong sum.
/// assert!(matches!(a.add(&b), Err(Error::RepresentationMismatch { .. })));
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Representation {
    /// Coefficients `a_0, ..., a_(n-1)` modulo each prime.
    Coefficient,
    /// Evaluations at the `2n`-th roots, bit-reversed order (see [`crate::ntt`]).
    Ntt,
}

impl Representation {
    fn name(self) -> &'static str {
        match self {
            Representation::Coefficient => "coefficient",
            Representation::Ntt => "NTT",
        }
    }
}

/// An element of `Z_Q[x]/(x^n + 1)` stored as `L` residue polynomials (limb `i` holds the
/// polynomial modulo `q_i`), every residue in `[0, q_i)`.
///
/// ```
/// use latpoly::rns::{RnsContext, RnsPoly, Representation};
/// let ctx = RnsContext::with_prime_bits(16, 50, 3).unwrap();
/// let mut a = RnsPoly::from_i64s(&ctx, &[-1; 16]).unwrap();
/// let b = RnsPoly::from_i64s(&ctx, &[2; 16]).unwrap();
/// let s = a.add(&b).unwrap();
/// assert!(s.to_centered_bigints().iter().all(|c| *c == 1.into()));
/// a.to_ntt();
/// assert_eq!(a.representation(), Representation::Ntt);
/// ```
#[derive(Clone, Debug)]
pub struct RnsPoly {
    ctx: Arc<RnsContext>,
    repr: Representation,
    data: Vec<u64>,
}

impl RnsPoly {
    /// The zero polynomial in the given representation.
    ///
    /// ```
    /// use latpoly::rns::{Representation, RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let z = RnsPoly::zero(&ctx, Representation::Ntt);
    /// assert_eq!(z.representation(), Representation::Ntt);
    /// assert!(z.residues().iter().all(|&r| r == 0));
    /// assert_eq!(z.residues().len(), 2 * 8);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn zero(ctx: &Arc<RnsContext>, repr: Representation) -> Self {
        Self {
            ctx: Arc::clone(ctx),
            repr,
            data: vec![0; ctx.len() * ctx.n()],
        }
    }

    /// Wraps residues laid out limb by limb (`data[i * n + j]` = coefficient or evaluation `j`
    /// modulo `q_i`). Errors on wrong length or a residue `>= q_i`.
    ///
    /// ```
    /// use latpoly::{rns::{Representation, RnsContext, RnsPoly}, Error};
    /// let ctx = RnsContext::new(4, &[17, 97])?;
    /// // 3 + 5x, limb by limb: residues mod 17, then mod 97
    /// let data = vec![3, 5, 0, 0, 3, 5, 0, 0];
    /// let a = RnsPoly::from_residues(&ctx, data, Representation::Coefficient)?;
    /// assert_eq!(a.to_centered_bigints(), vec![3.into(), 5.into(), 0.into(), 0.into()]);
    /// assert_eq!(a.limb(1), &[3, 5, 0, 0]);
    /// let too_big = vec![0, 0, 0, 0, 0, 0, 0, 97]; // residue 97 is not below q_1 = 97
    /// assert_eq!(
    ///     RnsPoly::from_residues(&ctx, too_big, Representation::Coefficient).unwrap_err(),
    ///     Error::CoefficientOutOfRange { index: 7, value: 97, bound: 97 }
    /// );
    /// assert!(matches!(
    ///     RnsPoly::from_residues(&ctx, vec![0; 4], Representation::Ntt),
    ///     Err(Error::LengthMismatch { expected: 8, got: 4 })
    /// ));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_residues(
        ctx: &Arc<RnsContext>,
        data: Vec<u64>,
        repr: Representation,
    ) -> Result<Self> {
        let n = ctx.n();
        if data.len() != ctx.len() * n {
            return Err(Error::LengthMismatch {
                expected: ctx.len() * n,
                got: data.len(),
            });
        }
        for (i, (limb, &q)) in data.chunks_exact(n).zip(ctx.moduli()).enumerate() {
            check_below(limb, q).map_err(|e| match e {
                Error::CoefficientOutOfRange {
                    index,
                    value,
                    bound,
                } => Error::CoefficientOutOfRange {
                    index: i * n + index,
                    value,
                    bound,
                },
                other => other,
            })?;
        }
        Ok(Self {
            ctx: Arc::clone(ctx),
            repr,
            data,
        })
    }

    /// [`Self::from_residues`] without the range check (no data-dependent branch), for residues
    /// that are below their primes by construction. Wrong input gives a wrong polynomial, never UB.
    pub(crate) fn from_residues_unchecked(
        ctx: &Arc<RnsContext>,
        data: Vec<u64>,
        repr: Representation,
    ) -> Self {
        debug_assert_eq!(data.len(), ctx.len() * ctx.n());
        debug_assert!(data
            .chunks_exact(ctx.n())
            .zip(ctx.moduli())
            .all(|(l, &q)| l.iter().all(|&x| x < q)));
        Self {
            ctx: Arc::clone(ctx),
            repr,
            data,
        }
    }

    fn from_fn(
        ctx: &Arc<RnsContext>,
        len: usize,
        f: impl Fn(&Modulus64, usize) -> u64,
    ) -> Result<Self> {
        let n = ctx.n();
        if len != n {
            return Err(Error::LengthMismatch {
                expected: n,
                got: len,
            });
        }
        let mut data = Vec::with_capacity(ctx.len() * n);
        for m in ctx.crt().moduli() {
            data.extend((0..n).map(|j| f(m, j)));
        }
        Ok(Self {
            ctx: Arc::clone(ctx),
            repr: Representation::Coefficient,
            data,
        })
    }

    /// Coefficient-form polynomial from unsigned coefficients (each reduced mod every `q_i`).
    ///
    /// ```
    /// use latpoly::{rns::{RnsContext, RnsPoly}, Error};
    /// let ctx = RnsContext::new(4, &[17, 97])?;
    /// let a = RnsPoly::from_u64s(&ctx, &[100, 1, 0, u64::MAX])?;
    /// assert_eq!(a.limb(0), &[100 % 17, 1, 0, u64::MAX % 17]);
    /// assert_eq!(a.limb(1), &[100 % 97, 1, 0, u64::MAX % 97]);
    /// assert!(matches!(RnsPoly::from_u64s(&ctx, &[1, 2]), Err(Error::LengthMismatch { .. })));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_u64s(ctx: &Arc<RnsContext>, coeffs: &[u64]) -> Result<Self> {
        Self::from_fn(ctx, coeffs.len(), |m, j| m.reduce_u64(coeffs[j]))
    }

    /// Coefficient-form polynomial from signed coefficients.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::new(4, &[17, 97])?;
    /// let a = RnsPoly::from_i64s(&ctx, &[-1, 2, -20, 0])?;
    /// assert_eq!(a.limb(0), &[16, 2, 14, 0]); // -20 = 14 mod 17
    /// assert_eq!(a.to_biguints()[0], (17u32 * 97 - 1).into()); // -1 = Q - 1
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_i64s(ctx: &Arc<RnsContext>, coeffs: &[i64]) -> Result<Self> {
        Self::from_fn(ctx, coeffs.len(), |m, j| m.reduce_i64(coeffs[j]))
    }

    /// Coefficient-form polynomial from unsigned integers of any size (reduced mod `Q`).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// use num_bigint::BigUint;
    /// let ctx = RnsContext::with_prime_bits(4, 50, 3)?; // Q of about 150 bits
    /// let q = ctx.modulus().clone();
    /// let big = BigUint::from(1u8) << 120u32;
    /// let a = RnsPoly::from_biguints(&ctx, &[big.clone(), &q + 3u8, q.clone(), 7u8.into()])?;
    /// assert_eq!(a.to_biguints(), vec![big, 3u8.into(), 0u8.into(), 7u8.into()]); // reduced mod Q
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_biguints(ctx: &Arc<RnsContext>, coeffs: &[BigUint]) -> Result<Self> {
        let mut p = Self::checked_zero(ctx, coeffs.len())?;
        let (n, l) = (ctx.n(), ctx.len());
        let mut r = vec![0u64; l];
        for (j, c) in coeffs.iter().enumerate() {
            ctx.crt().decompose_biguint_unchecked(c, &mut r);
            for (i, &x) in r.iter().enumerate() {
                p.data[i * n + j] = x;
            }
        }
        Ok(p)
    }

    /// Coefficient-form polynomial from signed integers of any size (reduced mod `Q`).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// use num_bigint::BigInt;
    /// let ctx = RnsContext::with_prime_bits(4, 50, 3)?;
    /// let big = BigInt::from(1) << 120u32;
    /// let c = vec![-&big, big >> 20u32, (-3).into(), 0.into()];
    /// let a = RnsPoly::from_bigints(&ctx, &c)?;
    /// assert_eq!(a.to_centered_bigints(), c); // |c_j| < Q/2: recovered exactly
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_bigints(ctx: &Arc<RnsContext>, coeffs: &[BigInt]) -> Result<Self> {
        let mut p = Self::checked_zero(ctx, coeffs.len())?;
        let (n, l) = (ctx.n(), ctx.len());
        let mut r = vec![0u64; l];
        for (j, c) in coeffs.iter().enumerate() {
            ctx.crt().decompose_bigint_unchecked(c, &mut r);
            for (i, &x) in r.iter().enumerate() {
                p.data[i * n + j] = x;
            }
        }
        Ok(p)
    }

    fn checked_zero(ctx: &Arc<RnsContext>, len: usize) -> Result<Self> {
        if len != ctx.n() {
            return Err(Error::LengthMismatch {
                expected: ctx.n(),
                got: len,
            });
        }
        Ok(Self::zero(ctx, Representation::Coefficient))
    }

    /// The context.
    ///
    /// ```
    /// use latpoly::rns::{Representation, RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let a = RnsPoly::zero(&ctx, Representation::Coefficient);
    /// assert!(std::sync::Arc::ptr_eq(a.context(), &ctx));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn context(&self) -> &Arc<RnsContext> {
        &self.ctx
    }

    /// Current representation.
    ///
    /// ```
    /// use latpoly::rns::{Representation, RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let mut a = RnsPoly::from_i64s(&ctx, &[1; 8])?;
    /// assert_eq!(a.representation(), Representation::Coefficient);
    /// a.to_ntt();
    /// assert_eq!(a.representation(), Representation::Ntt);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn representation(&self) -> Representation {
        self.repr
    }

    /// All residues, limb by limb (`[i * n + j]`).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::new(4, &[17, 97])?;
    /// let a = RnsPoly::from_i64s(&ctx, &[1, -1, 2, -2])?;
    /// assert_eq!(a.residues(), &[1, 16, 2, 15, 1, 96, 2, 95]); // [i * n + j]
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn residues(&self) -> &[u64] {
        &self.data
    }

    /// Residues modulo `q_i`.
    ///
    /// # Panics
    ///
    /// If `i` is not below the number of primes, as slice indexing does.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::new(4, &[17, 97])?;
    /// let a = RnsPoly::from_i64s(&ctx, &[1, -1, 2, -2])?;
    /// assert_eq!(a.limb(0), &[1, 16, 2, 15]);
    /// assert_eq!(a.limb(1), &[1, 96, 2, 95]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn limb(&self, i: usize) -> &[u64] {
        let n = self.ctx.n();
        &self.data[i * n..(i + 1) * n]
    }

    /// Converts to NTT representation (no-op if already there).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let mut c = RnsPoly::from_i64s(&ctx, &[5, 0, 0, 0, 0, 0, 0, 0])?;
    /// c.to_ntt(); // a constant evaluates to itself at every root
    /// assert!(c.residues().iter().all(|&v| v == 5));
    /// let before = c.residues().to_vec();
    /// c.to_ntt(); // already in NTT form: no-op
    /// assert_eq!(c.residues(), &before[..]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_ntt(&mut self) {
        if self.repr == Representation::Ntt {
            return;
        }
        let n = self.ctx.n();
        for (limb, plan) in self.data.chunks_exact_mut(n).zip(self.ctx.plans()) {
            plan.forward_unchecked(limb);
        }
        self.repr = Representation::Ntt;
    }

    /// Converts to coefficient representation (no-op if already there).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let a = RnsPoly::from_i64s(&ctx, &[1, -2, 3, -4, 5, -6, 7, -8])?;
    /// let mut b = a.clone();
    /// b.to_ntt();
    /// assert_ne!(b.residues(), a.residues());
    /// b.to_coeff();
    /// assert_eq!(b.residues(), a.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_coeff(&mut self) {
        if self.repr == Representation::Coefficient {
            return;
        }
        let n = self.ctx.n();
        for (limb, plan) in self.data.chunks_exact_mut(n).zip(self.ctx.plans()) {
            plan.inverse_unchecked(limb);
        }
        self.repr = Representation::Coefficient;
    }

    /// Exact coefficients in `[0, Q)` (converts a copy out of NTT form if needed).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// use num_bigint::BigUint;
    /// let ctx = RnsContext::new(4, &[17, 97])?;
    /// let mut a = RnsPoly::from_i64s(&ctx, &[-1, 0, 1, 1648])?;
    /// a.to_ntt(); // converted back on a copy
    /// let want: Vec<BigUint> = [1648u32, 0, 1, 1648].iter().map(|&v| v.into()).collect();
    /// assert_eq!(a.to_biguints(), want); // in [0, Q), Q = 1649
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_biguints(&self) -> Vec<BigUint> {
        self.map_coeffs(|crt, r| crt.reconstruct_unchecked(r))
    }

    /// Exact coefficients in the centred range `(-Q/2, Q/2]`.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// use num_bigint::BigInt;
    /// let ctx = RnsContext::new(4, &[17, 97])?; // Q = 1649
    /// let a = RnsPoly::from_u64s(&ctx, &[824, 825, 1648, 0])?;
    /// let want: Vec<BigInt> = [824, -824, -1, 0].iter().map(|&v| v.into()).collect();
    /// assert_eq!(a.to_centered_bigints(), want);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_centered_bigints(&self) -> Vec<BigInt> {
        self.map_coeffs(|crt, r| crt.reconstruct_centered_unchecked(r))
    }

    fn map_coeffs<T>(&self, f: impl Fn(&super::crt::Crt, &[u64]) -> T) -> Vec<T> {
        let coeff;
        let p = if self.repr == Representation::Coefficient {
            self
        } else {
            let mut c = self.clone();
            c.to_coeff();
            coeff = c;
            &coeff
        };
        let (n, l) = (self.ctx.n(), self.ctx.len());
        let mut r = vec![0u64; l];
        (0..n)
            .map(|j| {
                for (i, x) in r.iter_mut().enumerate() {
                    *x = p.data[i * n + j];
                }
                f(self.ctx.crt(), &r)
            })
            .collect()
    }

    /// Rewrites every limb of `self` from the same limb of `src` (same context):
    /// `f(limb index, src limb, dst limb)`.
    pub(crate) fn map_limbs_from(&mut self, src: &RnsPoly, f: impl Fn(usize, &[u64], &mut [u64])) {
        let n = self.ctx.n();
        for (i, (d, s)) in self
            .data
            .chunks_exact_mut(n)
            .zip(src.data.chunks_exact(n))
            .enumerate()
        {
            f(i, s, d);
        }
    }

    /// Overwrites the residues with zeros (for secret keys on drop).
    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.data.zeroize();
    }

    pub(crate) fn set_representation(&mut self, repr: Representation) {
        self.repr = repr;
    }

    /// Mutable residues, limb by limb. Crate-internal: callers keep every residue `< q_i`.
    pub(crate) fn residues_mut(&mut self) -> &mut [u64] {
        &mut self.data
    }

    fn check_compatible(&self, other: &RnsPoly) -> Result<()> {
        if !self.ctx.same_as(&other.ctx) {
            return Err(Error::ContextMismatch);
        }
        if self.repr != other.repr {
            return Err(Error::RepresentationMismatch {
                expected: self.repr.name(),
                got: other.repr.name(),
            });
        }
        Ok(())
    }

    /// `self + other` (`sub`: `self - other`), limb by limb into a fresh vector, each word
    /// written once (no zeroed vector first).
    fn zip_sum(&self, other: &RnsPoly, sub: bool) -> Result<RnsPoly> {
        self.check_compatible(other)?;
        let n = self.ctx.n();
        let mut data = Vec::with_capacity(self.data.len());
        for ((a, b), plan) in self
            .data
            .chunks_exact(n)
            .zip(other.data.chunks_exact(n))
            .zip(self.ctx.plans())
        {
            plan.sum_extend_unchecked(sub, a, b, &mut data);
        }
        debug_assert_eq!(data.len(), self.data.len());
        Ok(RnsPoly {
            ctx: Arc::clone(&self.ctx),
            repr: self.repr,
            data,
        })
    }

    /// `f(plan, self limb, other limb)` on every limb, in place.
    fn zip_assign(
        &mut self,
        other: &RnsPoly,
        f: impl Fn(&crate::NttPlan, &mut [u64], &[u64]),
    ) -> Result<()> {
        self.check_compatible(other)?;
        let n = self.ctx.n();
        for ((a, b), plan) in self
            .data
            .chunks_exact_mut(n)
            .zip(other.data.chunks_exact(n))
            .zip(self.ctx.plans())
        {
            f(plan, a, b);
        }
        Ok(())
    }

    /// `self += other` (same context and representation), in place: no allocation. On an
    /// error `self` is unchanged.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(4, 30, 2)?;
    /// let mut a = RnsPoly::from_i64s(&ctx, &[1, 2, 3, 4])?;
    /// a.add_assign(&RnsPoly::from_i64s(&ctx, &[10, -2, 0, -5])?)?;
    /// assert_eq!(a.residues(), RnsPoly::from_i64s(&ctx, &[11, 0, 3, -1])?.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn add_assign(&mut self, other: &RnsPoly) -> Result<()> {
        self.zip_assign(other, |p, a, b| p.add_assign_unchecked(a, b))
    }

    /// `self -= other` (same context and representation), in place: no allocation. On an
    /// error `self` is unchanged.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(4, 30, 2)?;
    /// let mut a = RnsPoly::from_i64s(&ctx, &[1, 2, 3, 4])?;
    /// a.sub_assign(&RnsPoly::from_i64s(&ctx, &[10, -2, 0, -5])?)?;
    /// assert_eq!(a.residues(), RnsPoly::from_i64s(&ctx, &[-9, 4, 3, 9])?.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn sub_assign(&mut self, other: &RnsPoly) -> Result<()> {
        self.zip_assign(other, |p, a, b| p.sub_assign_unchecked(a, b))
    }

    /// `self + other` (same context and representation).
    ///
    /// ```
    /// use latpoly::{rns::{RnsContext, RnsPoly}, Error};
    /// let ctx = RnsContext::with_prime_bits(4, 30, 2)?;
    /// let a = RnsPoly::from_i64s(&ctx, &[1, 2, 3, 4])?;
    /// let b = RnsPoly::from_i64s(&ctx, &[-1, 5, 0, 6])?;
    /// let s = a.add(&b)?;
    /// assert_eq!(s.residues(), RnsPoly::from_i64s(&ctx, &[0, 7, 3, 10])?.residues());
    /// let other = RnsContext::with_prime_bits(4, 31, 2)?;
    /// let c = RnsPoly::from_i64s(&other, &[0; 4])?;
    /// assert!(matches!(a.add(&c), Err(Error::ContextMismatch)));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn add(&self, other: &RnsPoly) -> Result<RnsPoly> {
        self.zip_sum(other, false)
    }

    /// `self - other` (same context and representation).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(4, 30, 2)?;
    /// let a = RnsPoly::from_i64s(&ctx, &[1, 2, 3, 4])?;
    /// let b = RnsPoly::from_i64s(&ctx, &[-1, 5, 0, 6])?;
    /// let d = a.sub(&b)?;
    /// assert_eq!(d.residues(), RnsPoly::from_i64s(&ctx, &[2, -3, 3, -2])?.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn sub(&self, other: &RnsPoly) -> Result<RnsPoly> {
        self.zip_sum(other, true)
    }

    /// `-self`.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::new(4, &[17, 97])?;
    /// let a = RnsPoly::from_i64s(&ctx, &[0, 1, -2, 3])?;
    /// assert_eq!(a.neg().residues(), &[0, 16, 2, 14, 0, 96, 2, 94]); // -0 stays 0
    /// assert!(a.add(&a.neg())?.residues().iter().all(|&r| r == 0));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn neg(&self) -> RnsPoly {
        let mut out = self.clone();
        out.neg_assign();
        out
    }

    /// `self = -self` in place (any representation; no allocation).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::new(4, &[17, 97])?;
    /// let mut a = RnsPoly::from_i64s(&ctx, &[0, 1, -2, 3])?;
    /// a.neg_assign();
    /// assert_eq!(a.residues(), &[0, 16, 2, 14, 0, 96, 2, 94]); // -0 stays 0
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn neg_assign(&mut self) {
        let n = self.ctx.n();
        for (a, plan) in self.data.chunks_exact_mut(n).zip(self.ctx.plans()) {
            let q = plan.q();
            // residues are below q: q - x, and 0 for 0, by the mask of the top bit of x | -x
            // (set iff x != 0), shifted down by a count the optimiser cannot see, so the and
            // stays arithmetic (no select, no branch; the loop vectorises)
            let s = crate::arith::ct::opaque_shift(63);
            for x in a {
                *x = (q - *x) & ((*x | x.wrapping_neg()).wrapping_shr(s)).wrapping_neg();
            }
        }
    }

    /// `c · self` for a small signed scalar (any representation).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(4, 30, 2)?;
    /// let mut a = RnsPoly::from_i64s(&ctx, &[1, -2, 3, 0])?;
    /// let want = RnsPoly::from_i64s(&ctx, &[-3, 6, -9, 0])?;
    /// assert_eq!(a.scalar_mul_i64(-3).residues(), want.residues());
    /// a.to_ntt(); // NTT form too: the transform is linear
    /// let mut b = a.scalar_mul_i64(-3);
    /// b.to_coeff();
    /// assert_eq!(b.residues(), want.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn scalar_mul_i64(&self, c: i64) -> RnsPoly {
        let n = self.ctx.n();
        let mut r = self.clone();
        for (a, m) in r.data.chunks_exact_mut(n).zip(self.ctx.crt().moduli()) {
            let w = m.reduce_i64(c);
            let wp = m.shoup(w);
            a.iter_mut().for_each(|x| *x = m.mul_shoup(*x, w, wp));
        }
        r
    }

    /// `c · self` for an integer scalar of any size (reduced mod `Q`).
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// use num_bigint::BigInt;
    /// let ctx = RnsContext::with_prime_bits(4, 50, 3)?; // Q of about 150 bits
    /// let a = RnsPoly::from_i64s(&ctx, &[1, -3, 0, 0])?;
    /// let c = BigInt::from(1) << 70u32;
    /// let p = a.scalar_mul(&c).to_centered_bigints();
    /// assert_eq!(p[0], c);
    /// assert_eq!(p[1], -3 * &c);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn scalar_mul(&self, c: &BigInt) -> RnsPoly {
        let mut rc = vec![0u64; self.ctx.len()];
        self.ctx.crt().decompose_bigint_unchecked(c, &mut rc);
        self.scalar_mul_residues(&rc)
    }

    /// `c · self` for the scalar `c` given by its residues `w[i] < q_i` (any representation).
    /// Constant time in `w` (the scalar may be secret): the Shoup quotients come from the
    /// branch-free Barrett division, not from a `u128` division.
    pub(crate) fn scalar_mul_residues(&self, w: &[u64]) -> RnsPoly {
        debug_assert_eq!(w.len(), self.ctx.len());
        let n = self.ctx.n();
        let mut r = self.clone();
        for ((a, m), &w) in r
            .data
            .chunks_exact_mut(n)
            .zip(self.ctx.crt().moduli())
            .zip(w)
        {
            let wp = m.div_rem_u128((w as u128) << 64).0 as u64; // = m.shoup(w), for w < q
            a.iter_mut().for_each(|x| *x = m.mul_shoup(*x, w, wp));
        }
        r
    }

    fn check_ntt(&self) -> Result<()> {
        if self.repr != Representation::Ntt {
            return Err(Error::RepresentationMismatch {
                expected: "NTT",
                got: self.repr.name(),
            });
        }
        Ok(())
    }

    /// Pointwise product of two NTT-form polynomials (the ring product, in NTT form).
    ///
    /// ```
    /// use latpoly::{rns::{RnsContext, RnsPoly}, Error};
    /// let ctx = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let mut a = RnsPoly::from_i64s(&ctx, &[1, 1, 0, 0, 0, 0, 0, 0])?; // 1 + x
    /// let mut b = RnsPoly::from_i64s(&ctx, &[1, -1, 0, 0, 0, 0, 0, 0])?; // 1 - x
    /// assert!(matches!(a.mul(&b), Err(Error::RepresentationMismatch { .. })));
    /// a.to_ntt();
    /// b.to_ntt();
    /// let mut c = a.mul(&b)?;
    /// c.to_coeff();
    /// assert_eq!(c.residues(), RnsPoly::from_i64s(&ctx, &[1, 0, -1, 0, 0, 0, 0, 0])?.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn mul(&self, other: &RnsPoly) -> Result<RnsPoly> {
        self.check_ntt()?;
        self.check_compatible(other)?;
        let n = self.ctx.n();
        let mut r = self.clone();
        for (((o, a), b), plan) in r
            .data
            .chunks_exact_mut(n)
            .zip(self.data.chunks_exact(n))
            .zip(other.data.chunks_exact(n))
            .zip(self.ctx.plans())
        {
            plan.pointwise_unchecked(a, b, o);
        }
        Ok(r)
    }

    /// Fused multiply-add `self += a · b`, all three in NTT form.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(8, 30, 2)?;
    /// let ntt = |c: &[i64]| -> Result<RnsPoly, latpoly::Error> {
    ///     let mut p = RnsPoly::from_i64s(&ctx, c)?;
    ///     p.to_ntt();
    ///     Ok(p)
    /// };
    /// let x = ntt(&[0, 1, 0, 0, 0, 0, 0, 0])?;
    /// let mut acc = ntt(&[3, 0, 0, 0, 0, 0, 0, 0])?; // 3
    /// acc.mul_acc(&x, &x)?; // 3 + x^2
    /// acc.mul_acc(&x, &ntt(&[0, 0, 0, 0, 0, 0, 0, 2])?)?; // + 2 x^8 = -2
    /// acc.to_coeff();
    /// assert_eq!(acc.residues(), RnsPoly::from_i64s(&ctx, &[1, 0, 1, 0, 0, 0, 0, 0])?.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn mul_acc(&mut self, a: &RnsPoly, b: &RnsPoly) -> Result<()> {
        self.check_ntt()?;
        self.check_compatible(a)?;
        self.check_compatible(b)?;
        let n = self.ctx.n();
        let ctx = Arc::clone(&self.ctx);
        for (((o, x), y), plan) in self
            .data
            .chunks_exact_mut(n)
            .zip(a.data.chunks_exact(n))
            .zip(b.data.chunks_exact(n))
            .zip(ctx.plans())
        {
            plan.pointwise_acc_unchecked(x, y, o);
        }
        Ok(())
    }

    /// Full negacyclic product `self · other mod (x^n + 1, Q)` from either representation;
    /// the result is in coefficient form.
    ///
    /// ```
    /// use latpoly::rns::{Representation, RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(4, 30, 2)?;
    /// let a = RnsPoly::from_i64s(&ctx, &[1, 2, 0, 0])?; // 1 + 2x
    /// let mut b = RnsPoly::from_i64s(&ctx, &[0, 0, 0, 3])?; // 3x^3
    /// b.to_ntt(); // either representation
    /// let c = a.multiply(&b)?; // 3x^3 + 6x^4 = -6 + 3x^3
    /// assert_eq!(c.representation(), Representation::Coefficient);
    /// assert_eq!(c.residues(), RnsPoly::from_i64s(&ctx, &[-6, 0, 0, 3])?.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn multiply(&self, other: &RnsPoly) -> Result<RnsPoly> {
        if !self.ctx.same_as(&other.ctx) {
            return Err(Error::ContextMismatch);
        }
        if self.repr == Representation::Coefficient && other.repr == Representation::Coefficient {
            // Limb by limb through the fused product (no copies of the operands).
            let n = self.ctx.n();
            let mut c = Self::zero(&self.ctx, Representation::Coefficient);
            let mut scratch = super::scratch::take(n);
            for (((o, x), y), plan) in c
                .data
                .chunks_exact_mut(n)
                .zip(self.data.chunks_exact(n))
                .zip(other.data.chunks_exact(n))
                .zip(self.ctx.plans())
            {
                plan.multiply_into_unchecked(x, y, o, &mut scratch);
            }
            // It held the transforms of `other`, which may be secret.
            super::scratch::give_wiped(scratch);
            return Ok(c);
        }
        let mut a = self.clone();
        let mut b = other.clone();
        a.to_ntt();
        b.to_ntt();
        let c = a.mul(&b);
        // The copies of the operands, either of which may be secret (a plaintext, a key).
        a.wipe();
        b.wipe();
        let mut c = c?;
        c.to_coeff();
        Ok(c)
    }
}
