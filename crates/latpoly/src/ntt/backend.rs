//! Backend selection: which kernels a plan runs, chosen once at construction.
//!
//! A plan with a SIMD backend holds an `Arc<dyn Kernels<W>>`; the scalar backend is the plan's
//! own `scalar.rs` path. Selection honours the `LATPOLY_ISA` cap (see [`crate::isa`]) and the
//! per-backend limits: IFMA needs `q < 2^50`; every SIMD backend needs `n >= 2 · lanes`.

use super::simd::{Simd, SimdTables};
use crate::arith::{Modulus, Word};
use crate::isa::Isa;
use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

/// The kernel set of one SIMD backend for one `(n, q)`.
pub(crate) trait Kernels<W: Word>: Send + Sync + Debug {
    fn isa(&self) -> Isa;
    /// `[0, 4q)` -> `[0, 4q)`, bit-reversed out.
    fn forward_lazy(&self, a: &mut [W]);
    /// `[0, 4q)` -> `[0, q)`, bit-reversed out.
    fn forward_strict(&self, a: &mut [W]);
    /// [`Kernels::forward_strict`] of an unchecked input: `false`, with `a` unchanged, when a
    /// value is at least `q`.
    fn forward_checked(&self, a: &mut [W]) -> bool;
    /// `[0, 2q)` -> `[0, 2q)`, natural out, `1/n` included.
    fn inverse_lazy(&self, a: &mut [W]);
    /// `[0, 2q)` -> `[0, q)`, natural out, `1/n` included.
    fn inverse_strict(&self, a: &mut [W]);
    /// Whether every value is below `bound` (the range checks).
    fn all_below(&self, a: &[W], bound: W) -> bool;
    /// [`Kernels::inverse_strict`] (`strict`) or [`Kernels::inverse_lazy`] of an unchecked
    /// input: `false`, with `a` unchanged, when a value is at least `bound` (`2q`). Default:
    /// [`Kernels::all_below`], then the transform.
    fn inverse_checked(&self, a: &mut [W], bound: W, strict: bool) -> bool {
        check_then_inverse(self, a, bound, strict)
    }
    /// `out = a + b mod q`, inputs `< q`.
    fn add(&self, a: &[W], b: &[W], out: &mut [W]);
    /// `out` extended by `a + b mod q` (`sub`: `a - b mod q`), inputs `< q`.
    fn sum_extend(&self, sub: bool, a: &[W], b: &[W], out: &mut Vec<W>);
    /// Parities of the centred values of `w < q`, packed LSB first (`w.len() / 8` bytes).
    fn parity_decode(&self, w: &[W], out: &mut [u8]);
    /// `out = a - b mod q`, inputs `< q`.
    fn sub(&self, a: &[W], b: &[W], out: &mut [W]);
    /// `a = a + b mod q` in place, inputs `< q`.
    fn add_assign(&self, a: &mut [W], b: &[W]);
    /// `a = a - b mod q` in place, inputs `< q`.
    fn sub_assign(&self, a: &mut [W], b: &[W]);
    /// Inputs `< q`, output `< q`.
    fn pointwise(&self, a: &[W], b: &[W], out: &mut [W]);
    /// Inputs `< q`, output `< q`.
    fn pointwise_acc(&self, a: &[W], b: &[W], acc: &mut [W]);
    /// `a = a · b mod q`, inputs `< q`, output `< q`.
    fn pointwise_assign(&self, a: &mut [W], b: &[W]);
    /// `out = a · b mod (x^n + 1, q)`, inputs `< q`, output `< q`; `scratch`: `n` words.
    fn product(&self, a: &[W], b: &[W], out: &mut [W], scratch: &mut [W]);
    /// [`Kernels::product`] of unchecked inputs (`q` the plan's modulus): `false` when a value
    /// of `a` or `b` is at least `q`, with `out` and `scratch` then holding no result. Default:
    /// [`Kernels::all_below`] on both, then the product.
    fn product_checked(&self, q: W, a: &[W], b: &[W], out: &mut [W], scratch: &mut [W]) -> bool {
        if !self.all_below(a, q) || !self.all_below(b, q) {
            return false;
        }
        self.product(a, b, out, scratch);
        true
    }
}

/// [`Kernels::all_below`], then the inverse in place (the default [`Kernels::inverse_checked`]).
fn check_then_inverse<W: Word, K: Kernels<W> + ?Sized>(
    k: &K,
    a: &mut [W],
    bound: W,
    strict: bool,
) -> bool {
    if !k.all_below(a, bound) {
        return false;
    }
    if strict {
        k.inverse_strict(a);
    } else {
        k.inverse_lazy(a);
    }
    true
}

/// A token whose `#[target_feature]` entry points instantiate the generic drivers.
pub(crate) trait Entry: Simd + Debug {
    const ISA: Isa;
    fn forward<const STRICT: bool>(self, tb: &SimdTables<Self::W>, q: Self::W, a: &mut [Self::W]);
    fn forward_checked(self, tb: &SimdTables<Self::W>, q: Self::W, a: &mut [Self::W]) -> bool;
    fn inverse<const STRICT: bool>(self, tb: &SimdTables<Self::W>, q: Self::W, a: &mut [Self::W]);
    /// [`Entry::inverse`] of an unchecked input (`simd::inverse_checked`): `false`, with `a` as
    /// it was, when a value is at least `bound`.
    fn inverse_checked<const STRICT: bool>(
        self,
        tb: &SimdTables<Self::W>,
        q: Self::W,
        bound: Self::W,
        a: &mut [Self::W],
    ) -> bool;
    fn all_below(self, a: &[Self::W], bound: Self::W) -> bool;
    fn add(self, q: Self::W, a: &[Self::W], b: &[Self::W], out: &mut [Self::W]);
    fn sum_extend<const SUB: bool>(
        self,
        q: Self::W,
        a: &[Self::W],
        b: &[Self::W],
        out: &mut Vec<Self::W>,
    );
    fn parity_decode(self, half: Self::W, w: &[Self::W], out: &mut [u8]);
    fn sub(self, q: Self::W, a: &[Self::W], b: &[Self::W], out: &mut [Self::W]);
    fn add_assign(self, q: Self::W, a: &mut [Self::W], b: &[Self::W]);
    fn sub_assign(self, q: Self::W, a: &mut [Self::W], b: &[Self::W]);
    fn pointwise(
        self,
        tb: &SimdTables<Self::W>,
        q: Self::W,
        a: &[Self::W],
        b: &[Self::W],
        out: &mut [Self::W],
    );
    fn pointwise_acc(
        self,
        tb: &SimdTables<Self::W>,
        q: Self::W,
        a: &[Self::W],
        b: &[Self::W],
        acc: &mut [Self::W],
    );
    fn pointwise_assign(
        self,
        tb: &SimdTables<Self::W>,
        q: Self::W,
        a: &mut [Self::W],
        b: &[Self::W],
    );
    /// `simd::product`; with `CHECK` it returns `false` when a value of `a` or `b` is at least
    /// `q` (else `true`).
    #[allow(clippy::too_many_arguments)]
    fn product<const CHECK: bool>(
        self,
        tb: &SimdTables<Self::W>,
        q: Self::W,
        a: &[Self::W],
        b: &[Self::W],
        out: &mut [Self::W],
        scratch: &mut [Self::W],
    ) -> bool;
}

#[derive(Debug)]
struct SimdKernels<S: Entry> {
    s: S,
    q: S::W,
    tb: SimdTables<S::W>,
}

impl<S: Entry> Kernels<S::W> for SimdKernels<S> {
    fn isa(&self) -> Isa {
        S::ISA
    }
    fn forward_lazy(&self, a: &mut [S::W]) {
        self.s.forward::<false>(&self.tb, self.q, a)
    }
    fn forward_strict(&self, a: &mut [S::W]) {
        self.s.forward::<true>(&self.tb, self.q, a)
    }
    fn forward_checked(&self, a: &mut [S::W]) -> bool {
        self.s.forward_checked(&self.tb, self.q, a)
    }
    fn inverse_lazy(&self, a: &mut [S::W]) {
        self.s.inverse::<false>(&self.tb, self.q, a)
    }
    fn inverse_strict(&self, a: &mut [S::W]) {
        self.s.inverse::<true>(&self.tb, self.q, a)
    }
    fn inverse_checked(&self, a: &mut [S::W], bound: S::W, strict: bool) -> bool {
        if !S::INV_CHECK_THROUGH {
            return check_then_inverse(self, a, bound, strict);
        }
        // The check as the first pass loads the words: no pass of its own.
        if strict {
            self.s.inverse_checked::<true>(&self.tb, self.q, bound, a)
        } else {
            self.s.inverse_checked::<false>(&self.tb, self.q, bound, a)
        }
    }
    fn all_below(&self, a: &[S::W], bound: S::W) -> bool {
        Entry::all_below(self.s, a, bound)
    }
    fn add(&self, a: &[S::W], b: &[S::W], out: &mut [S::W]) {
        Entry::add(self.s, self.q, a, b, out)
    }
    fn sum_extend(&self, sub: bool, a: &[S::W], b: &[S::W], out: &mut Vec<S::W>) {
        if sub {
            Entry::sum_extend::<true>(self.s, self.q, a, b, out)
        } else {
            Entry::sum_extend::<false>(self.s, self.q, a, b, out)
        }
    }
    fn parity_decode(&self, w: &[S::W], out: &mut [u8]) {
        let half = S::W::from_u64(self.q.to_u64() / 2);
        Entry::parity_decode(self.s, half, w, out)
    }
    fn sub(&self, a: &[S::W], b: &[S::W], out: &mut [S::W]) {
        Entry::sub(self.s, self.q, a, b, out)
    }
    fn add_assign(&self, a: &mut [S::W], b: &[S::W]) {
        Entry::add_assign(self.s, self.q, a, b)
    }
    fn sub_assign(&self, a: &mut [S::W], b: &[S::W]) {
        Entry::sub_assign(self.s, self.q, a, b)
    }
    fn pointwise(&self, a: &[S::W], b: &[S::W], out: &mut [S::W]) {
        self.s.pointwise(&self.tb, self.q, a, b, out)
    }
    fn pointwise_acc(&self, a: &[S::W], b: &[S::W], acc: &mut [S::W]) {
        self.s.pointwise_acc(&self.tb, self.q, a, b, acc)
    }
    fn pointwise_assign(&self, a: &mut [S::W], b: &[S::W]) {
        self.s.pointwise_assign(&self.tb, self.q, a, b)
    }
    fn product(&self, a: &[S::W], b: &[S::W], out: &mut [S::W], scratch: &mut [S::W]) {
        self.s
            .product::<false>(&self.tb, self.q, a, b, out, scratch);
    }
    fn product_checked(
        &self,
        _q: S::W,
        a: &[S::W],
        b: &[S::W],
        out: &mut [S::W],
        scratch: &mut [S::W],
    ) -> bool {
        // The checks as the forward transforms' first passes load the inputs.
        self.s.product::<true>(&self.tb, self.q, a, b, out, scratch)
    }
}

fn build<S: Entry>(
    s: S,
    m: &<S::W as Word>::Modulus,
    fwd: &[S::W],
    inv: &[S::W],
) -> Arc<dyn Kernels<S::W>> {
    Arc::new(SimdKernels {
        s,
        q: m.value(),
        tb: SimdTables::new(s, m, fwd, inv),
    })
}

/// Candidate backends for lanes of `bits` bits and modulus `q`, best first, that this CPU runs.
pub(crate) fn available(bits: u32, q: u64, n: usize) -> Vec<Isa> {
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use super::x86::*;
        let lanes_ok = |lanes: usize| n >= 2 * lanes;
        match bits {
            64 => {
                if q < 1 << 50 && IfmaU64::try_new().is_some() && lanes_ok(8) {
                    v.push(Isa::Avx512Ifma);
                }
                if Avx512U64::try_new().is_some() && lanes_ok(8) {
                    v.push(Isa::Avx512);
                }
                if Avx2U64::try_new().is_some() && lanes_ok(4) {
                    v.push(Isa::Avx2);
                }
            }
            32 => {
                if Avx512U32::try_new().is_some() && lanes_ok(16) {
                    v.push(Isa::Avx512);
                }
                if Avx2U32::try_new().is_some() && lanes_ok(8) {
                    v.push(Isa::Avx2);
                }
            }
            _ => {
                if Avx512U16::try_new().is_some() && lanes_ok(32) {
                    v.push(Isa::Avx512);
                }
                if Avx2U16::try_new().is_some() && lanes_ok(16) {
                    v.push(Isa::Avx2);
                }
            }
        }
    }
    let _ = (bits, q, n);
    v.push(Isa::Scalar);
    v
}

/// Whether plans on backend `isa` with a modulus below `2^50` run their transforms in `f64`
/// lanes (`x86/avx2_f64.rs`: AVX2 with FMA), which makes primes below `2^50` the faster choice
/// there as they are with IFMA ([`crate::rns::RnsContext::with_modulus_bits`]).
pub(crate) fn f64_transforms(isa: Isa) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        isa == Isa::Avx2 && super::x86::Avx2F64::try_new().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        false
    }
}

/// Whether `u64` plans of size `n` on backend `isa` with a modulus below `2^30` run their
/// transforms in 32-bit lanes (`x86/avx2_narrow.rs`: AVX2), which makes 30-bit primes the
/// faster choice there ([`crate::rns::RnsContext::with_modulus_bits`]).
pub(crate) fn narrow_transforms(isa: Isa, n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        isa == Isa::Avx2
            && super::x86::Avx2U32::try_new().is_some()
            && super::x86::NarrowKernels::supports(3, n)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, n);
        false
    }
}

fn erase<T: 'static>(x: Option<Arc<dyn Kernels<T>>>) -> Box<dyn Any> {
    Box::new(x)
}

/// Builds the kernels of backend `isa` (which must be in [`available`]) for lane type `W`;
/// `None` for the scalar backend.
///
/// Generic only in name: it downcasts to the lane type and calls one of the non-generic
/// builders below, so the SIMD drivers are compiled once, in this crate. (A generic body that
/// named `build::<S>` would be monomorphised again in every crate that calls `Plan::<W>::new`:
/// each doctest and integration test then recompiled all nine backends.)
#[allow(clippy::ptr_arg)] // `&Vec<W>`: a sized type, so it can be downcast through `dyn Any`
pub(crate) fn build_kernels<W: Word>(
    isa: Isa,
    m: &W::Modulus,
    fwd: &Vec<W>,
    inv: &Vec<W>,
) -> Option<Arc<dyn Kernels<W>>> {
    if isa == Isa::Scalar {
        return None;
    }
    let (m_any, f_any, i_any) = (m as &dyn Any, fwd as &dyn Any, inv as &dyn Any);
    let boxed: Box<dyn Any> = match W::BITS {
        64 => build_u64(
            isa,
            m_any.downcast_ref()?,
            f_any.downcast_ref::<Vec<_>>()?,
            i_any.downcast_ref::<Vec<_>>()?,
        ),
        32 => build_u32(
            isa,
            m_any.downcast_ref()?,
            f_any.downcast_ref::<Vec<_>>()?,
            i_any.downcast_ref::<Vec<_>>()?,
        ),
        _ => build_u16(
            isa,
            m_any.downcast_ref()?,
            f_any.downcast_ref::<Vec<_>>()?,
            i_any.downcast_ref::<Vec<_>>()?,
        ),
    };
    boxed
        .downcast::<Option<Arc<dyn Kernels<W>>>>()
        .ok()
        .and_then(|b| *b)
}

/// The 64-bit backends (`Box<Option<Arc<dyn Kernels<u64>>>>`).
#[inline(never)]
fn build_u64(isa: Isa, m: &crate::arith::Modulus64, f: &[u64], i: &[u64]) -> Box<dyn Any> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::x86::*;
        erase(match isa {
            Isa::Avx512Ifma => IfmaU64::try_new().map(|s| build(s, m, f, i)),
            Isa::Avx512 => Avx512U64::try_new().map(|s| build(s, m, f, i)),
            // q < 2^30: the transforms in u32 lanes (x86/avx2_narrow.rs); q < 2^50 without
            // AVX-512: in f64 lanes (x86/avx2_f64.rs).
            Isa::Avx2 => match (Avx2U64::try_new(), Avx2F64::try_new()) {
                (Some(int), _) if NarrowKernels::supports(m.value(), f.len()) => Avx2U32::try_new()
                    .and_then(|s| NarrowKernels::new(s, int, m, f, i))
                    .map(|k| Arc::new(k) as Arc<dyn Kernels<u64>>),
                (Some(int), Some(fp)) if Avx2F64::supports(m.value()) => {
                    let k: Arc<dyn Kernels<u64>> = Arc::new(FpKernels::new(fp, int, m, f, i));
                    Some(k)
                }
                // q ≡ 1 (mod 2^32): one partial product per product by q (x86/avx2_u64.rs).
                (Some(int), _) if m.value() & 0xffff_ffff == 1 => {
                    Some(build(int.low_word_one(), m, f, i))
                }
                (int, _) => int.map(|s| build(s, m, f, i)),
            },
            Isa::Scalar => None,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, m, f, i);
        erase::<u64>(None)
    }
}

/// The 32-bit backends (`Box<Option<Arc<dyn Kernels<u32>>>>`).
#[inline(never)]
fn build_u32(isa: Isa, m: &crate::arith::Modulus32, f: &[u32], i: &[u32]) -> Box<dyn Any> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::x86::*;
        erase(match isa {
            Isa::Avx512 => Avx512U32::try_new().map(|s| build(s, m, f, i)),
            Isa::Avx2 => Avx2U32::try_new().map(|s| build(s, m, f, i)),
            _ => None,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, m, f, i);
        erase::<u32>(None)
    }
}

/// The 16-bit backends (`Box<Option<Arc<dyn Kernels<u16>>>>`).
#[inline(never)]
fn build_u16(isa: Isa, m: &crate::arith::Modulus16, f: &[u16], i: &[u16]) -> Box<dyn Any> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::x86::*;
        erase(match isa {
            Isa::Avx512 => Avx512U16::try_new().map(|s| build(s, m, f, i)),
            Isa::Avx2 => Avx2U16::try_new().map(|s| build(s, m, f, i)),
            _ => None,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, m, f, i);
        erase::<u16>(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ntt::Plan;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// `all_below` (the range checks' fast path) agrees with the scalar test on every backend,
    /// at bounds just above and at the maximum, with the maximum in every lane position of a
    /// vector and at either end of the array.
    fn below_matches<W: Word>(n: usize, q: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(n as u64 ^ q);
        for isa in Plan::<W>::available_isas(n, q) {
            let p = Plan::<W>::with_isa(n, q, isa).unwrap();
            let Some(k) = &p.kernels else { continue };
            for pos in (0..n).step_by(1.max(n / 97)).chain([n - 1]) {
                let mut a: Vec<W> = (0..n)
                    .map(|_| W::from_u64(rng.gen_range(0..q / 2)))
                    .collect();
                let top = W::from_u64(rng.gen_range(q / 2..=u64::MAX >> (64 - W::BITS)));
                a[pos] = top;
                assert!(!k.all_below(&a, top), "{isa:?} n={n} pos={pos}");
                if top.to_u64() < u64::MAX >> (64 - W::BITS) {
                    let b = W::from_u64(top.to_u64() + 1);
                    assert!(k.all_below(&a, b), "{isa:?} n={n} pos={pos}");
                }
            }
            let zero = vec![W::ZERO; n];
            assert!(k.all_below(&zero, W::from_u64(1)), "{isa:?} n={n}");
            assert!(!k.all_below(&zero, W::ZERO), "{isa:?} n={n}");
        }
    }

    /// The f64 transforms of AVX2 plans with `q < 2^50` (`x86/avx2_f64.rs`) against the
    /// scalar reference and the integer AVX2 kernels: strict outputs bit for bit, lazy outputs
    /// in their ranges and equal mod `q`, the checked forward's refusal (input untouched), and
    /// the product; at the largest primes below `2^50` (the reduction schedule without
    /// headroom) and `2^49` (the slothful one), a small prime, every size class, and the
    /// inputs at the top of each range.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_f64_transforms_match_scalar_and_integer() {
        use super::super::x86::{Avx2F64, Avx2U64, FpKernels};
        let (Some(int_tok), Some(fp_tok)) = (Avx2U64::try_new(), Avx2F64::try_new()) else {
            eprintln!("skipped: the CPU lacks AVX2 or FMA");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(50);
        for n in [8usize, 16, 64, 256, 1024, 4096, 16384] {
            for bits in [50u32, 49, 30, 17] {
                let q = crate::primes::ntt_primes(bits, n, 1).unwrap()[0];
                let plan = Plan::<u64>::with_isa(n, q, Isa::Avx2).unwrap();
                // Built directly: plans of q < 2^30 and n >= 16 take the 32-bit lanes.
                let fp = FpKernels::new(fp_tok, int_tok, &plan.m, &plan.fwd, &plan.inv);
                let int = build(int_tok, &plan.m, &plan.fwd, &plan.inv);
                check_u64_kernels(&fp, &*int, n, q, &mut rng);
                if bits >= 49 || n < 16 {
                    let k = plan.kernels.as_ref().unwrap();
                    assert!(format!("{k:?}").starts_with("FpKernels"), "{k:?}");
                }
            }
        }
    }

    /// AVX2 plans with `u64` lanes, `q < 2^30` and `n >= 16` run their transforms and products
    /// in 32-bit lanes (`x86/avx2_narrow.rs`): everything against the scalar reference and the
    /// 64-bit integer kernels as for the `f64` ones, at primes of 30, 29, 20 and 17 bits; and
    /// the checked forward and inverse refuse values of `2^32` and more (lost by narrowing, so
    /// caught while they narrow) as well as those in `[q, 2^32)` (`[2q, 2^32)`), anywhere,
    /// leaving the input as it was; and the per-thread scratch they run in is zero after every
    /// transform, accepted or refused.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_narrow_transforms_match_scalar_and_integer() {
        use super::super::x86::Avx2U64;
        let Some(int_tok) = Avx2U64::try_new() else {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(51);
        let zero = super::super::x86::scratch_is_zero;
        for n in [
            16usize, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
        ] {
            for bits in [30u32, 29, 20, 17] {
                let q = crate::primes::ntt_primes(bits, n, 1).unwrap()[0];
                let plan = Plan::<u64>::with_isa(n, q, Isa::Avx2).unwrap();
                let k = plan.kernels.as_ref().unwrap();
                assert!(format!("{k:?}").starts_with("NarrowKernels"), "{k:?}");
                let int = build(int_tok, &plan.m, &plan.fwd, &plan.inv);
                check_u64_kernels(&**k, &*int, n, q, &mut rng);
                let good: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
                // Every transform leaves the per-thread scratch it runs in zero.
                for op in 0..6 {
                    let mut v = good.clone();
                    match op {
                        0 => k.forward_lazy(&mut v),
                        1 => k.forward_strict(&mut v),
                        2 => assert!(k.forward_checked(&mut v)),
                        3 => k.inverse_lazy(&mut v),
                        4 => k.inverse_strict(&mut v),
                        _ => assert!(k.inverse_checked(&mut v, 2 * q, false)),
                    }
                    assert!(zero(), "scratch not zero after op {op}: n={n} q={q}");
                }
                let mut positions = vec![0, 1, 7, 8, n / 2, n - 9, n - 8, n - 1];
                positions.extend((0..6).map(|_| rng.gen_range(0..n)));
                for (j, &pos) in positions.iter().enumerate() {
                    let mut bad = good.clone();
                    bad[pos] = match j % 4 {
                        0 => 1 << 32,
                        1 => u64::MAX,
                        2 => q,
                        _ => rng.gen_range(q..1 << 33),
                    };
                    let before = bad.clone();
                    assert!(!k.forward_checked(&mut bad), "n={n} q={q} pos={pos}");
                    assert_eq!(bad, before, "refused input changed: n={n} q={q} pos={pos}");
                    assert!(zero(), "scratch not zero after a refused forward: n={n}");
                    assert!(plan.forward(&mut bad).is_err());
                    assert_eq!(bad, before, "Plan::forward changed the input");
                    // The inverse's check (below 2q) while it narrows: 2q itself refused too.
                    let mut bad = good.clone();
                    bad[pos] = match j % 4 {
                        0 => 1 << 32,
                        1 => u64::MAX,
                        2 => 2 * q,
                        _ => rng.gen_range(2 * q..1 << 33),
                    };
                    let before = bad.clone();
                    for strict in [true, false] {
                        assert!(!k.inverse_checked(&mut bad, 2 * q, strict), "n={n} q={q}");
                        assert_eq!(bad, before, "refused inverse input changed: n={n} q={q}");
                        assert!(zero(), "scratch not zero after a refused inverse: n={n}");
                    }
                    assert!(
                        plan.inverse(&mut bad).is_err() && plan.inverse_lazy(&mut bad).is_err()
                    );
                    assert_eq!(bad, before, "Plan::inverse changed the input");
                    assert!(zero(), "refused: n={n}");
                }
                // Accepted: inputs up to 2q - 1, strict and lazy, as the reference.
                let a: Vec<u64> = (0..n)
                    .map(|i| [2 * q - 1, rng.gen_range(0..2 * q)][i % 2])
                    .collect();
                let mut want = a.clone();
                let reference = Plan::<u64>::with_isa(n, q, Isa::Scalar).unwrap();
                reference.inverse(&mut want).unwrap();
                let mut x = a.clone();
                assert!(k.inverse_checked(&mut x, 2 * q, true));
                assert_eq!(x, want, "inverse_checked n={n} q={q}");
                let mut x = a.clone();
                assert!(k.inverse_checked(&mut x, 2 * q, false));
                assert!(x.iter().zip(&want).all(|(&v, &w)| v < 2 * q && v % q == w));
                // The transforms run in a per-thread scratch, which they leave zero.
                assert!(zero(), "n={n} q={q}");
            }
        }
    }

    /// The transforms and the product of `k` (a `u64` plan's kernels for `(n, q)`) against the
    /// scalar reference and against the 64-bit integer kernels `int`: strict, lazy and checked
    /// forwards, strict and lazy inverses, from random inputs and the tops of their ranges.
    #[cfg(target_arch = "x86_64")]
    fn check_u64_kernels(
        k: &dyn Kernels<u64>,
        int: &dyn Kernels<u64>,
        n: usize,
        q: u64,
        rng: &mut ChaCha20Rng,
    ) {
        let reference = Plan::<u64>::with_isa(n, q, Isa::Scalar).unwrap();
        let at = &format!("n={n} q={q}");
        let inputs = |bound: u64, rng: &mut ChaCha20Rng| -> Vec<Vec<u64>> {
            let mut v: Vec<Vec<u64>> = (0..3)
                .map(|_| (0..n).map(|_| rng.gen_range(0..bound)).collect())
                .collect();
            v.push(vec![0; n]);
            v.push(vec![bound - 1; n]);
            v.push(
                (0..n)
                    .map(|i| [bound - 1, q - 1, bound / 2, 0][i % 4])
                    .collect(),
            );
            v
        };
        for a in inputs(q, rng) {
            let mut want = a.clone();
            reference.forward(&mut want).unwrap();
            let (mut x, mut y) = (a.clone(), a.clone());
            assert!(k.forward_checked(&mut x), "{at}");
            int.forward_strict(&mut y);
            assert_eq!(x, want, "forward_checked {at}");
            assert_eq!(y, want, "integer forward {at}");
            let mut x = a.clone();
            k.forward_strict(&mut x);
            assert_eq!(x, want, "forward_strict {at}");
            let mut w = want.clone();
            reference.inverse(&mut w).unwrap();
            assert_eq!(w, a, "reference round trip {at}");
            let mut x = want.clone();
            k.inverse_strict(&mut x);
            assert_eq!(x, a, "inverse_strict {at}");
            // A value >= q anywhere: refused, input untouched.
            let mut bad = a.clone();
            let pos = rng.gen_range(0..n);
            bad[pos] = rng.gen_range(q..=u64::MAX);
            let before = bad.clone();
            assert!(!k.forward_checked(&mut bad), "{at} pos={pos}");
            assert_eq!(bad, before, "refused input changed {at}");
            // Product against the reference.
            let b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
            let (mut out, mut scratch) = (vec![0; n], vec![0; n]);
            k.product(&a, &b, &mut out, &mut scratch);
            assert_eq!(out, reference.multiply(&a, &b).unwrap(), "product {at}");
        }
        for a in inputs(4 * q, rng) {
            let mut want = a.iter().map(|&x| x % q).collect::<Vec<_>>();
            reference.forward(&mut want).unwrap();
            let mut x = a.clone();
            k.forward_lazy(&mut x);
            assert!(x.iter().all(|&v| v < 4 * q), "forward_lazy range {at}");
            let r: Vec<u64> = x.iter().map(|&v| v % q).collect();
            assert_eq!(r, want, "forward_lazy {at}");
            let mut x = a.clone();
            k.forward_strict(&mut x);
            assert_eq!(x, want, "forward_strict from [0, 4q) {at}");
        }
        for a in inputs(2 * q, rng) {
            let mut want = a.iter().map(|&x| x % q).collect::<Vec<_>>();
            reference.inverse(&mut want).unwrap();
            let mut x = a.clone();
            k.inverse_lazy(&mut x);
            assert!(x.iter().all(|&v| v < 2 * q), "inverse_lazy range {at}");
            let r: Vec<u64> = x.iter().map(|&v| v % q).collect();
            assert_eq!(r, want, "inverse_lazy {at}");
            let mut x = a.clone();
            k.inverse_strict(&mut x);
            assert_eq!(x, want, "inverse_strict from [0, 2q) {at}");
        }
    }

    /// AVX2 plans of a modulus `q ≡ 1 (mod 2^32)` run the backend's own kernels for it, and
    /// only those moduli do (`x86/avx2_u64.rs`; their results are checked against the scalar
    /// reference in `tests/backends.rs`).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_low_word_one_kernels_are_chosen_by_q() {
        if super::super::x86::Avx2U64::try_new().is_none() {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        }
        let n = 1024;
        let kind = |q: u64| {
            let p = Plan::<u64>::with_isa(n, q, Isa::Avx2).unwrap();
            format!("{:?}", p.kernels.unwrap())
        };
        for bits in [51u32, 60, 62] {
            let fast = crate::primes::fast_ntt_primes(bits, n, 1).unwrap()[0];
            assert!(kind(fast).contains("q = 1 mod 2^32"), "{}", kind(fast));
            let plain = crate::primes::ntt_primes(bits, n, 1).unwrap()[0];
            assert_ne!(plain & 0xffff_ffff, 1);
            assert!(!kind(plain).contains("q = 1 mod 2^32"), "{}", kind(plain));
        }
    }

    /// `sum_extend` (the sums and differences into fresh memory) agrees with the scalar sums on
    /// every backend, appending after existing words, with `0` and `q - 1` among the inputs.
    fn sum_extend_matches<W: Word>(n: usize, q: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(n as u64 ^ q);
        let m = W::Modulus::new(q).unwrap();
        let edge = [0, 1, q - 1, q - 2];
        let mut vals = |k: usize| -> Vec<W> {
            (0..n)
                .map(|i| {
                    let x = if i % 5 == k {
                        edge[(i / 5) % 4]
                    } else {
                        rng.gen_range(0..q)
                    };
                    W::from_u64(x)
                })
                .collect()
        };
        let (a, b) = (vals(0), vals(1));
        for isa in Plan::<W>::available_isas(n, q) {
            let p = Plan::<W>::with_isa(n, q, isa).unwrap();
            for sub in [false, true] {
                let mut out = vec![W::from_u64(7); 3];
                p.sum_extend_unchecked(sub, &a, &b, &mut out);
                let want: Vec<W> = [W::from_u64(7); 3]
                    .into_iter()
                    .chain(a.iter().zip(&b).map(
                        |(&x, &y)| {
                            if sub {
                                m.sub(x, y)
                            } else {
                                m.add(x, y)
                            }
                        },
                    ))
                    .collect();
                assert!(out == want, "{isa:?} n={n} q={q} sub={sub}");
            }
        }
    }

    #[test]
    fn sum_extend_equals_scalar_sums() {
        for n in [8usize, 64, 256, 1024, 4096] {
            if n <= 2048 {
                sum_extend_matches::<u16>(n, 12289);
            }
            sum_extend_matches::<u32>(n, crate::primes::ntt_primes(30, n, 1).unwrap()[0]);
            for bits in [20, 50, 62] {
                sum_extend_matches::<u64>(n, crate::primes::ntt_primes(bits, n, 1).unwrap()[0]);
            }
        }
    }

    /// The checked inverse of every backend (`simd::inverse_checked`: the check inside the first
    /// pass, the transform in the per-thread scratch) against the scalar reference: inputs up to
    /// `2q - 1` give the reference's strict output, or a lazy one below `2q` and equal mod `q`;
    /// a value of `2q` or more anywhere (the first and last words, the last lane of the first
    /// vector, the middle, random places) is refused with the input left as it was, through the
    /// kernels and through `Plan::inverse` / `inverse_lazy`; and the scratch is zero after
    /// every call, accepted or refused. The checked product (`simd::product` with `CHECK`: the
    /// check inside the forward transforms' first passes) against the reference's product, and
    /// its refusal of a value of `q` or more in either input.
    fn checked_inverse_matches<W: Word>(n: usize, q: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(n as u64 ^ q ^ 57);
        let reference = Plan::<W>::with_isa(n, q, Isa::Scalar).unwrap();
        let two_q = W::from_u64(2 * q);
        let max = u64::MAX >> (64 - W::BITS);
        #[cfg(target_arch = "x86_64")]
        let zero = super::super::x86::scratch_is_zero;
        #[cfg(not(target_arch = "x86_64"))]
        let zero = || true;
        for isa in Plan::<W>::available_isas(n, q) {
            let plan = Plan::<W>::with_isa(n, q, isa).unwrap();
            let Some(k) = &plan.kernels else { continue };
            let at = format!("{isa:?} n={n} q={q}");
            let good: Vec<W> = (0..n)
                .map(|i| W::from_u64([2 * q - 1, rng.gen_range(0..2 * q), q, 0][i % 4]))
                .collect();
            let mut want = good.clone();
            reference.inverse(&mut want).unwrap();
            let mut x = good.clone();
            assert!(k.inverse_checked(&mut x, two_q, true), "{at}");
            assert!(x == want, "strict {at}");
            assert!(zero(), "scratch after a strict inverse: {at}");
            let mut x = good.clone();
            assert!(k.inverse_checked(&mut x, two_q, false), "{at}");
            let ok = x
                .iter()
                .zip(&want)
                .all(|(v, w)| v.to_u64() < 2 * q && v.to_u64() % q == w.to_u64());
            assert!(ok, "lazy {at}");
            assert!(zero(), "scratch after a lazy inverse: {at}");
            let lanes = 64 / (W::BITS as usize / 8);
            let mut positions = vec![0, 1, (lanes - 1).min(n - 1), n / 2, n - 1];
            positions.extend((0..3).map(|_| rng.gen_range(0..n)));
            for (j, &pos) in positions.iter().enumerate() {
                let mut bad = good.clone();
                bad[pos] = W::from_u64(match j % 3 {
                    0 => 2 * q,
                    1 => max,
                    _ => rng.gen_range(2 * q..=max),
                });
                let before = bad.clone();
                for strict in [true, false] {
                    assert!(
                        !k.inverse_checked(&mut bad, two_q, strict),
                        "{at} pos={pos}"
                    );
                    assert!(bad == before, "refused input changed: {at} pos={pos}");
                    assert!(zero(), "scratch after a refusal: {at} pos={pos}");
                }
                assert!(plan.inverse(&mut bad).is_err() && plan.inverse_lazy(&mut bad).is_err());
                assert!(bad == before, "Plan::inverse changed a refused input: {at}");
            }
            // The checked product: the reference's product of inputs below `q` (the top of the
            // range included); a value of `q` or more in either input refused.
            let operand = |rng: &mut ChaCha20Rng| -> Vec<W> {
                (0..n)
                    .map(|i| W::from_u64([q - 1, rng.gen_range(0..q), 0][i % 3]))
                    .collect()
            };
            let (a, b) = (operand(&mut rng), operand(&mut rng));
            let want = reference.multiply(&a, &b).unwrap();
            let (mut out, mut scratch) = (vec![W::ZERO; n], vec![W::ZERO; n]);
            assert!(k.product_checked(W::from_u64(q), &a, &b, &mut out, &mut scratch));
            assert!(out == want, "product {at}");
            for (j, &pos) in positions.iter().enumerate() {
                let mut bad = if j % 2 == 0 { a.clone() } else { b.clone() };
                bad[pos] = W::from_u64([q, max, rng.gen_range(q..=max)][j % 3]);
                let (x, y) = if j % 2 == 0 { (&bad, &b) } else { (&a, &bad) };
                let q = W::from_u64(q);
                assert!(
                    !k.product_checked(q, x, y, &mut out, &mut scratch),
                    "{at} pos={pos}"
                );
            }
        }
    }

    #[test]
    fn checked_inverse_and_product_equal_scalar_and_refuse_bad_inputs() {
        for n in (3..=15).map(|k| 1usize << k) {
            if n <= 2048 {
                checked_inverse_matches::<u16>(n, 12289);
            }
            checked_inverse_matches::<u32>(n, crate::primes::ntt_primes(30, n, 1).unwrap()[0]);
            for bits in [62, 50, 49] {
                let q = crate::primes::ntt_primes(bits, n, 1).unwrap()[0];
                checked_inverse_matches::<u64>(n, q);
            }
        }
    }

    #[test]
    fn all_below_equals_scalar_test() {
        for n in [8usize, 64, 256, 1024, 4096] {
            if n <= 2048 {
                below_matches::<u16>(n, 12289);
            }
            below_matches::<u32>(n, crate::primes::ntt_primes(30, n, 1).unwrap()[0]);
            below_matches::<u64>(n, crate::primes::ntt_primes(62, n, 1).unwrap()[0]);
            below_matches::<u64>(n, crate::primes::ntt_primes(50, n, 1).unwrap()[0]);
        }
    }
}
