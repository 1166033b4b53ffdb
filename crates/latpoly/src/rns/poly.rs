//! Polynomials in RNS ("double-CRT") form.

use super::context::RnsContext;
use crate::arith::{Modulus, Modulus64};
use crate::error::{Error, Result};
use crate::ntt::check_below;
use num_bigint::{BigInt, BigUint};
use std::sync::Arc;

/// Whether a polynomial holds coefficients or NTT evaluations (bit-reversed order).
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
    pub fn zero(ctx: &Arc<RnsContext>, repr: Representation) -> Self {
        Self {
            ctx: Arc::clone(ctx),
            repr,
            data: vec![0; ctx.len() * ctx.n()],
        }
    }

    /// Wraps residues laid out limb by limb (`data[i * n + j]` = coefficient or evaluation `j`
    /// modulo `q_i`). Errors on wrong length or a residue `>= q_i`.
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
    pub fn from_u64s(ctx: &Arc<RnsContext>, coeffs: &[u64]) -> Result<Self> {
        Self::from_fn(ctx, coeffs.len(), |m, j| m.reduce_u64(coeffs[j]))
    }

    /// Coefficient-form polynomial from signed coefficients.
    pub fn from_i64s(ctx: &Arc<RnsContext>, coeffs: &[i64]) -> Result<Self> {
        Self::from_fn(ctx, coeffs.len(), |m, j| m.reduce_i64(coeffs[j]))
    }

    /// Coefficient-form polynomial from unsigned integers of any size (reduced mod `Q`).
    pub fn from_biguints(ctx: &Arc<RnsContext>, coeffs: &[BigUint]) -> Result<Self> {
        let mut p = Self::checked_zero(ctx, coeffs.len())?;
        let (n, l) = (ctx.n(), ctx.len());
        let mut r = vec![0u64; l];
        for (j, c) in coeffs.iter().enumerate() {
            ctx.crt().decompose_biguint(c, &mut r);
            for (i, &x) in r.iter().enumerate() {
                p.data[i * n + j] = x;
            }
        }
        Ok(p)
    }

    /// Coefficient-form polynomial from signed integers of any size (reduced mod `Q`).
    pub fn from_bigints(ctx: &Arc<RnsContext>, coeffs: &[BigInt]) -> Result<Self> {
        let mut p = Self::checked_zero(ctx, coeffs.len())?;
        let (n, l) = (ctx.n(), ctx.len());
        let mut r = vec![0u64; l];
        for (j, c) in coeffs.iter().enumerate() {
            ctx.crt().decompose_bigint(c, &mut r);
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
    pub fn context(&self) -> &Arc<RnsContext> {
        &self.ctx
    }

    /// Current representation.
    pub fn representation(&self) -> Representation {
        self.repr
    }

    /// All residues, limb by limb (`[i * n + j]`).
    pub fn residues(&self) -> &[u64] {
        &self.data
    }

    /// Residues modulo `q_i`.
    pub fn limb(&self, i: usize) -> &[u64] {
        let n = self.ctx.n();
        &self.data[i * n..(i + 1) * n]
    }

    /// Converts to NTT representation (no-op if already there).
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
    pub fn to_biguints(&self) -> Vec<BigUint> {
        self.map_coeffs(|crt, r| crt.reconstruct(r))
    }

    /// Exact coefficients in the centred range `(-Q/2, Q/2]`.
    pub fn to_centered_bigints(&self) -> Vec<BigInt> {
        self.map_coeffs(|crt, r| crt.reconstruct_centered(r))
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

    fn zip_kernel(
        &self,
        other: &RnsPoly,
        f: impl Fn(&crate::NttPlan, &[u64], &[u64], &mut [u64]),
    ) -> Result<RnsPoly> {
        self.check_compatible(other)?;
        let n = self.ctx.n();
        let mut data = vec![0u64; self.data.len()];
        for (((o, a), b), plan) in data
            .chunks_exact_mut(n)
            .zip(self.data.chunks_exact(n))
            .zip(other.data.chunks_exact(n))
            .zip(self.ctx.plans())
        {
            f(plan, a, b, o);
        }
        Ok(RnsPoly {
            ctx: Arc::clone(&self.ctx),
            repr: self.repr,
            data,
        })
    }

    /// `self += other` (same context and representation).
    pub fn add_assign(&mut self, other: &RnsPoly) -> Result<()> {
        *self = self.add(other)?;
        Ok(())
    }

    /// `self -= other` (same context and representation).
    pub fn sub_assign(&mut self, other: &RnsPoly) -> Result<()> {
        *self = self.sub(other)?;
        Ok(())
    }

    /// `self + other` (same context and representation).
    pub fn add(&self, other: &RnsPoly) -> Result<RnsPoly> {
        self.zip_kernel(other, |p, a, b, o| p.add_unchecked(a, b, o))
    }

    /// `self - other` (same context and representation).
    pub fn sub(&self, other: &RnsPoly) -> Result<RnsPoly> {
        self.zip_kernel(other, |p, a, b, o| p.sub_unchecked(a, b, o))
    }

    /// `-self`.
    pub fn neg(&self) -> RnsPoly {
        let n = self.ctx.n();
        let zeros = vec![0u64; n];
        let mut out = RnsPoly::zero(&self.ctx, self.repr);
        for ((o, a), plan) in out
            .data
            .chunks_exact_mut(n)
            .zip(self.data.chunks_exact(n))
            .zip(self.ctx.plans())
        {
            plan.sub_unchecked(&zeros, a, o);
        }
        out
    }

    /// `c · self` for a small signed scalar (any representation).
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
    pub fn scalar_mul(&self, c: &BigInt) -> RnsPoly {
        let n = self.ctx.n();
        let mut rc = vec![0u64; self.ctx.len()];
        self.ctx.crt().decompose_bigint(c, &mut rc);
        let mut r = self.clone();
        for ((a, m), &w) in r
            .data
            .chunks_exact_mut(n)
            .zip(self.ctx.crt().moduli())
            .zip(&rc)
        {
            let wp = m.shoup(w);
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
    pub fn multiply(&self, other: &RnsPoly) -> Result<RnsPoly> {
        if !self.ctx.same_as(&other.ctx) {
            return Err(Error::ContextMismatch);
        }
        let mut a = self.clone();
        let mut b = other.clone();
        a.to_ntt();
        b.to_ntt();
        let mut c = a.mul(&b)?;
        c.to_coeff();
        Ok(c)
    }
}
