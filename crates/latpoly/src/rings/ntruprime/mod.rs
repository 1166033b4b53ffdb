//! NTRU Prime arithmetic: `R = Z[x]/(x^761 - x - 1)`, `q = 4591`, as in sntrup761 and
//! ntrulpr761 (NIST round 3, spec "NTRU Prime: round 3" of 2020-10-07; reference code supercop
//! `crypto_kem/sntrup761/ref`; facts collected in `shared/kat/PARAMS.md` section B).
//!
//! # Representation
//!
//! A polynomial is a slice of its [`P`] = 761 coefficients, constant term first. Elements of
//! `F_q` are `i16` in the centred range `[-Q12, Q12] = [-2295, 2295]`; elements of `F_3` are `i8`
//! in `{-1, 0, 1}` ("small"). Every call checks lengths (and the ranges it documents) and returns
//! an [`Error`] instead of panicking.
//!
//! | call | computes | inputs | output |
//! |---|---|---|---|
//! | [`mul_rq`] | `a · b` in `R/q` | any `i16` (reduced mod `q` first) | centred |
//! | [`mul_rq_small`] | `a · s` in `R/q` | `a` any `i16`, `s` small | centred |
//! | [`mul_r3`] | `a · b` in `R/3` | small | small |
//! | [`recip_r3`] | `1/a` in `R/3`, invertible? | small | small, `bool` |
//! | [`recip3_rq`] | `1/(3a)` in `R/q`, invertible? | small | centred, `bool` |
//! | [`round3`] | `a - F3_freeze(a)` (nearest multiple of 3) | centred | centred |
//! | [`encode()`] / [`decode()`] | the generic `Encode` / `Decode` | `R[i] < M[i] < 2^14` | bytes / values |
//! | [`rq_encode`] / [`rq_decode`] | [`RQ_BYTES`] = 1158 bytes | centred | centred |
//! | [`rounded_encode`] / [`rounded_decode`] | [`ROUNDED_BYTES`] = 1007 bytes | centred | multiples of 3 |
//! | [`small_encode`] / [`small_decode`] | [`SMALL_BYTES`] = 191 bytes | small | small |
//!
//! # Products: reference and fast paths
//!
//! The schoolbook products of `scalar.rs` are the specification. The fast paths run on x86-64
//! with AVX2 or AVX-512BW, chosen at run time.
//!
//! * **AVX2, [`mul_rq`] and [`mul_rq_small`]**: one transform over `Z_4591` itself
//!   (`direct.rs`). `4590 = 2 · 3^3 · 5 · 17`, so `Z_4591` has roots of unity of order
//!   `135 = 5 · 3^3`; the product modulo `x^2160 - 1` (`2160 = 16 · 135 >= 2·761 - 1`, so it is
//!   the exact product modulo 4591) splits into 135 products modulo `x^16 - omega^e`, one
//!   16-lane vector each, by radix-5 and radix-3 layers whose butterflies are all vertical;
//!   the base products are `vpmaddwd` convolutions. Three transforms instead of the nine (six
//!   for a small operand) of the three-prime route below: 1.7x faster for two general operands,
//!   1.15x for a small one, on AMD Zen 3.
//! * **AVX-512 on AMD Zen 4**, [`mul_rq`] and [`mul_rq_small`]: the same direct transform,
//!   compiled with AVX-512VL (32 vector registers, EVEX forms). Zen 4 runs a 512-bit
//!   operation as two 256-bit halves, so the 512-bit transforms below gain nothing from their
//!   width there: 2.2 µs for either product against 3.9 µs (general) and 2.6 µs (small) for
//!   them (`examples/ntruprime_bench`, sixtieth session; the plain AVX2 compile of the direct
//!   transform took 2.3 µs).
//! * **Otherwise** (the AVX-512 backend's `R/q` products elsewhere, and [`mul_r3`] on both): the exact
//!   integer product of the centred inputs by a cyclic number-theoretic transform of length
//!   `1536 = 3 · 2^9 >= 2·761 - 1` in 16-bit lanes modulo the primes 7681, 10753 and 12289
//!   (all `1 mod 1536`; one radix-3 layer, nine radix-2 layers, signed Montgomery
//!   arithmetic), reduced modulo `x^761 - x - 1` in each prime and recombined by CRT directly
//!   modulo 4591 (`fast.rs`). The folded coefficients are below
//!   `3 · 761 · 2295^2 < 7681 · 10753 · 12289 / 2` for [`mul_rq`],
//!   `3 · 761 · 2295 < 7681 · 10753 / 2` for [`mul_rq_small`] (two primes) and
//!   `3 · 761 < 7681 / 2` for [`mul_r3`] (one prime), so the CRT is exact.
//! * **AVX-512 with VNNI at full rate** (not AMD Zen 4): [`mul_rq`] and [`mul_rq_small`] by
//!   Toom-8 modulo 4591, whose fifteen point products are schoolbook convolutions on
//!   `vpdpwssd` (`toom_vnni.rs`: 1.5-1.6 µs for either product in-process on the Intel host
//!   of the fifty-sixth session, against 1.7-1.8 µs for the Toom-4 before it; that Toom-4 took
//!   2.1 µs against 2.7 and 4.1 µs for the transforms on the Intel host of the thirty-first
//!   session; on AMD Zen 5 only [`mul_rq`], as the transforms were the faster `R/q × small`
//!   product there against that Toom-4, 1.25 against 1.33 µs, Toom-8 not measured there);
//!   [`mul_r3`] keeps its one-prime transform, faster than either.
//!
//! [`Multiplier`] picks the backend once (best available, capped by the
//! `LATPOLY_ISA` environment variable, see [`crate::isa`]; `scalar` forces the reference); the
//! free functions use one chosen at their first call.
//!
//! The reciprocals run the reference divstep loops (`recip.rs`, the specification); the fast
//! backends run the same iterations vectorised (`fast_recip.rs`), with identical outputs, also
//! for non-invertible inputs.
//!
//! # Constant time
//!
//! Products, reciprocals, rounding and the encoders run in time independent of the coefficient
//! values: no branch or memory index depends on them (reductions are multiplications and masks,
//! conditional swaps are masks hidden from the optimiser by [`crate::arith::ct::barrier`]).
//! Input validation scans the whole input branch-free and branches once on the result. Decoders
//! branch only on the public bounds.
//!
//! ```
//! use latpoly::rings::ntruprime::{mul_rq, mul_rq_small, P};
//!
//! let mut a = vec![0i16; P];
//! a[P - 1] = 1; // x^760
//! let mut x = vec![0i8; P];
//! x[1] = 1; // x
//! // x^760 · x = x^761 = x + 1
//! let c = mul_rq_small(&a, &x).unwrap();
//! assert_eq!((c[0], c[1], c[2]), (1, 1, 0));
//! let mut xx = vec![0i16; P];
//! xx[1] = 1;
//! assert_eq!(mul_rq(&a, &xx).unwrap(), c);
//! ```

#[cfg(target_arch = "x86_64")]
mod codec_x86;
#[cfg(target_arch = "x86_64")]
mod direct;
mod encode;
#[cfg(target_arch = "x86_64")]
mod fast;
#[cfg(target_arch = "x86_64")]
mod fast_recip;
mod recip;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod toom_vnni;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use encode::{decode, encode, encoded_len};
#[cfg(test)]
pub(crate) use scalar::f3_freeze;
/// `Fq_freeze` / `F3_freeze` of the reference, for the KEMs built on this ring.
pub(crate) use scalar::fq_freeze;

use crate::error::{Error, Result};
use crate::isa::Isa;
use std::sync::OnceLock;

/// The degree `p` of `x^p - x - 1`.
///
/// ```
/// assert_eq!(latpoly::rings::ntruprime::P, 761);
/// ```
pub const P: usize = 761;
/// The modulus `q`.
///
/// ```
/// use latpoly::rings::ntruprime::{Q, Q12};
/// assert_eq!(Q, 4591);
/// assert_eq!(Q12 as u16, (Q - 1) / 2);
/// ```
pub const Q: u16 = 4591;
/// `(q - 1) / 2`: elements of `F_q` are represented in `[-Q12, Q12]`.
///
/// ```
/// use latpoly::rings::ntruprime::{mul_rq, P, Q12};
/// let c = mul_rq(&vec![Q12; P], &vec![-Q12; P]).unwrap();
/// assert!(c.iter().all(|x| (-Q12..=Q12).contains(x)));
/// ```
pub const Q12: i16 = 2295;
/// The weight `w` of sntrup761 short polynomials (ntrulpr761 uses 250).
///
/// ```
/// assert_eq!(latpoly::rings::ntruprime::W, 286);
/// ```
pub const W: usize = 286;
/// Length of [`rq_encode`] (`Rq_bytes`).
///
/// ```
/// use latpoly::rings::ntruprime::{rq_encode, P, RQ_BYTES};
/// assert_eq!(rq_encode(&vec![0; P]).unwrap().len(), RQ_BYTES);
/// ```
pub const RQ_BYTES: usize = 1158;
/// Length of [`rounded_encode`] (`Rounded_bytes`).
///
/// ```
/// use latpoly::rings::ntruprime::{rounded_encode, P, ROUNDED_BYTES};
/// assert_eq!(rounded_encode(&vec![3; P]).unwrap().len(), ROUNDED_BYTES);
/// ```
pub const ROUNDED_BYTES: usize = 1007;
/// Length of [`small_encode`] (`Small_bytes = (p + 3) / 4`).
///
/// ```
/// use latpoly::rings::ntruprime::{small_encode, P, SMALL_BYTES};
/// assert_eq!(SMALL_BYTES, 191);
/// assert_eq!(small_encode(&vec![1; P]).unwrap().len(), SMALL_BYTES);
/// ```
pub const SMALL_BYTES: usize = P.div_ceil(4);
/// The bound `(q + 2) / 3` of the rounded encoding.
const ROUNDED_M: u16 = Q.div_ceil(3);

fn check_len(got: usize, expected: usize) -> Result<()> {
    crate::error::check_len(expected, got)
}

/// Checks `s` holds `P` entries in `{-1, 0, 1}`: a max-reduction of `x + 1` as bytes
/// (vectorised, no branch per entry; out-of-range values wrap above 2), then one branch.
fn check_small(s: &[i8]) -> Result<()> {
    check_len(s.len(), P)?;
    let worst = s
        .iter()
        .fold(0u8, |acc, &x| acc.max((x as u8).wrapping_add(1)));
    if worst > 2 {
        let i = s.iter().position(|x| !(-1..=1).contains(x)).unwrap_or(0);
        return Err(Error::InvalidArgument(format!(
            "coefficient {} at index {i} is not in {{-1, 0, 1}}",
            s[i]
        )));
    }
    Ok(())
}

/// Checks `a` holds `P` entries in `[-Q12, Q12]` (max-reduction of `x + Q12` as `u16`, then
/// one branch).
fn check_centred(a: &[i16]) -> Result<()> {
    check_len(a.len(), P)?;
    let worst = a
        .iter()
        .fold(0u16, |acc, &x| acc.max((x as u16).wrapping_add(Q12 as u16)));
    if worst > 2 * Q12 as u16 {
        let i = a
            .iter()
            .position(|x| !(-Q12..=Q12).contains(x))
            .unwrap_or(0);
        return Err(Error::InvalidArgument(format!(
            "coefficient {} at index {i} is not in [-2295, 2295]",
            a[i]
        )));
    }
    Ok(())
}

/// Computes products in `R/q` and `R/3` on one backend, chosen once.
///
/// ```
/// use latpoly::rings::ntruprime::{Multiplier, P};
/// use latpoly::Isa;
///
/// let fast = Multiplier::new(); // best backend of this CPU, capped by LATPOLY_ISA
/// let reference = Multiplier::with_isa(Isa::Scalar).unwrap();
/// let a: Vec<i16> = (0..P as i16).map(|i| i * 6 - 2280).collect();
/// let s: Vec<i8> = (0..P).map(|i| (i % 3) as i8 - 1).collect();
/// assert_eq!(fast.mul_rq_small(&a, &s).unwrap(), reference.mul_rq_small(&a, &s).unwrap());
/// assert!(Multiplier::available_isas().contains(&fast.isa()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Multiplier {
    isa: Isa,
}

impl Default for Multiplier {
    fn default() -> Self {
        Self::new()
    }
}

impl Multiplier {
    /// The best backend this CPU runs, capped by `LATPOLY_ISA` (read now).
    ///
    /// ```
    /// let m = latpoly::rings::ntruprime::Multiplier::new();
    /// println!("NTRU Prime products run on {}", m.isa());
    /// ```
    pub fn new() -> Self {
        let cap = Isa::env_cap().unwrap_or(Isa::Avx512Ifma);
        let isa = Self::available_isas()
            .into_iter()
            .find(|&i| i <= cap)
            .unwrap_or(Isa::Scalar);
        Self { isa }
    }

    /// A multiplier on a given backend (ignoring `LATPOLY_ISA`); errors if this CPU cannot run
    /// it (see [`Self::available_isas`]).
    ///
    /// ```
    /// use latpoly::rings::ntruprime::Multiplier;
    /// use latpoly::Isa;
    /// assert_eq!(Multiplier::with_isa(Isa::Scalar).unwrap().isa(), Isa::Scalar);
    /// assert!(Multiplier::with_isa(Isa::Avx512Ifma).is_err()); // no IFMA path here
    /// ```
    pub fn with_isa(isa: Isa) -> Result<Self> {
        if !Self::available_isas().contains(&isa) {
            return Err(Error::InvalidArgument(format!(
                "backend {isa} is not available for NTRU Prime products on this CPU"
            )));
        }
        Ok(Self { isa })
    }

    /// Backends usable on this CPU, best first (always ends with [`Isa::Scalar`]). Ignores
    /// `LATPOLY_ISA`.
    ///
    /// ```
    /// use latpoly::rings::ntruprime::Multiplier;
    /// assert_eq!(Multiplier::available_isas().last(), Some(&latpoly::Isa::Scalar));
    /// ```
    pub fn available_isas() -> Vec<Isa> {
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if x86::Avx512::try_new().is_some() {
                v.push(Isa::Avx512);
            }
            if x86::Avx2::try_new().is_some() {
                v.push(Isa::Avx2);
            }
        }
        v.push(Isa::Scalar);
        v
    }

    /// The backend this multiplier runs.
    ///
    /// ```
    /// use latpoly::rings::ntruprime::Multiplier;
    /// let m = Multiplier::new();
    /// assert_eq!(Multiplier::with_isa(m.isa()).unwrap(), m);
    /// ```
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// `a · b` in `R/q`. Inputs: `P` coefficients each, any `i16` (reduced modulo `q` first, so
    /// non-centred representatives are fine); output centred in `[-2295, 2295]`.
    ///
    /// Errors: a length other than [`P`].
    ///
    /// ```
    /// use latpoly::rings::ntruprime::{Multiplier, P};
    /// let a = vec![2295i16; P];
    /// let b = vec![-2295i16; P];
    /// let c = Multiplier::new().mul_rq(&a, &b).unwrap();
    /// assert!(c.iter().all(|&x| (-2295..=2295).contains(&x)));
    /// ```
    pub fn mul_rq(&self, a: &[i16], b: &[i16]) -> Result<Vec<i16>> {
        check_len(a.len(), P)?;
        check_len(b.len(), P)?;
        Ok(match self.isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::mul_rq(self.isa, a, b),
            _ => scalar::mul_rq(a, b),
        })
    }

    /// `a · s` in `R/q` for a small `s`: `a` any `i16` (reduced modulo `q`), `s` in
    /// `{-1, 0, 1}`; output centred.
    ///
    /// Errors: a length other than [`P`]; an entry of `s` outside `{-1, 0, 1}`.
    ///
    /// ```
    /// use latpoly::rings::ntruprime::{Multiplier, P};
    /// let a = vec![7i16; P];
    /// let mut one = vec![0i8; P];
    /// one[0] = 1;
    /// assert_eq!(Multiplier::new().mul_rq_small(&a, &one).unwrap(), a);
    /// ```
    pub fn mul_rq_small(&self, a: &[i16], s: &[i8]) -> Result<Vec<i16>> {
        check_len(a.len(), P)?;
        check_small(s)?;
        Ok(match self.isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::mul_rq_small(self.isa, a, s),
            _ => scalar::mul_rq_small(a, s),
        })
    }

    /// `a · b` in `R/3`: entries in `{-1, 0, 1}`, output likewise.
    ///
    /// Errors: a length other than [`P`]; an entry outside `{-1, 0, 1}`.
    ///
    /// ```
    /// use latpoly::rings::ntruprime::{Multiplier, P};
    /// let mut a = vec![0i8; P];
    /// a[0] = -1;
    /// let b: Vec<i8> = (0..P).map(|i| (i % 3) as i8 - 1).collect();
    /// let neg: Vec<i8> = b.iter().map(|&x| -x).collect();
    /// assert_eq!(Multiplier::new().mul_r3(&a, &b).unwrap(), neg);
    /// ```
    pub fn mul_r3(&self, a: &[i8], b: &[i8]) -> Result<Vec<i8>> {
        check_small(a)?;
        check_small(b)?;
        Ok(match self.isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::mul_r3(self.isa, a, b),
            _ => scalar::mul_r3(a, b),
        })
    }
}

impl Multiplier {
    /// `1/a` in `R/3` on this backend (see [`recip_r3`]; every backend gives the same output).
    ///
    /// ```
    /// use latpoly::rings::ntruprime::{Multiplier, P};
    /// let mut x = vec![0i8; P];
    /// x[1] = 1;
    /// let (xinv, ok) = Multiplier::new().recip_r3(&x).unwrap();
    /// assert!(ok && xinv[0] == -1 && xinv[P - 1] == 1); // 1/x = x^760 - 1
    /// ```
    pub fn recip_r3(&self, a: &[i8]) -> Result<(Vec<i8>, bool)> {
        check_small(a)?;
        Ok(match self.isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::r3_recip(self.isa, a),
            _ => recip::r3_recip(a),
        })
    }

    /// `1/(3a)` in `R/q` on this backend (see [`recip3_rq`]; every backend gives the same
    /// output).
    ///
    /// ```
    /// use latpoly::rings::ntruprime::{Multiplier, P};
    /// let mut one = vec![0i8; P];
    /// one[0] = 1;
    /// let (r, ok) = Multiplier::new().recip3_rq(&one).unwrap();
    /// // 1/3 = -1530 (3 · -1530 = -4590 = 1 mod 4591)
    /// assert!(ok && r[0] == -1530 && r[1..].iter().all(|&x| x == 0));
    /// ```
    pub fn recip3_rq(&self, a: &[i8]) -> Result<(Vec<i16>, bool)> {
        check_small(a)?;
        Ok(match self.isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::rq_recip3(self.isa, a),
            _ => recip::rq_recip3(a),
        })
    }
}

/// Crate-internal calls without the value-dependent range checks (whose single branch would
/// depend on secret data), for the KEMs. The caller guarantees lengths of [`P`], small inputs in
/// `{-1, 0, 1}` and centred inputs in `[-Q12, Q12]`; the backend is the global one.
/// Zeroes this thread's product scratch when dropped: the KEMs hold one for each operation, so
/// that the buffers the products reuse across calls keep no secret-derived values afterwards
/// (one wipe per KEM operation of each buffer a product used, instead of zeroed buffers per
/// product: of the transforms' 23 KB scratch the regions the products recorded writing, and
/// the VNNI products' 14 KB workspace).
pub(crate) struct ScratchWipe;

/// Whether this thread's product scratch holds nothing (for tests).
#[cfg(test)]
pub(crate) fn scratch_is_clear() -> bool {
    #[cfg(target_arch = "x86_64")]
    return x86::scratch_is_clear();
    #[cfg(not(target_arch = "x86_64"))]
    true
}

impl Drop for ScratchWipe {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        x86::wipe_scratch();
    }
}

/// Entries of the product buffers of the `_into` calls: [`P`] rounded up to whole vectors
/// (the fast multipliers write that many).
pub(crate) const PADDED: usize = 768;

pub(crate) mod unchecked {
    use super::*;

    /// `body.run()` compiled with the vector features of the NTRU Prime backend
    /// ([`crate::vectorised`]): for the KEMs' element-wise code between the ring operations
    /// (decoding the secret key, `3 c f mod 3`, the weight check, the comparisons and
    /// selections).
    #[inline(always)]
    pub(crate) fn vectorised<B: crate::vectorised::Vectorised>(body: B) -> B::Out {
        crate::vectorised::run(global().isa, body)
    }

    /// [`super::rounded_decode`] without checks (`s` of [`ROUNDED_BYTES`] bytes), and whether
    /// `s` is the canonical encoding of the result (`rounded_encode` of it gives `s` back; see
    /// [`encode::decode_uniform_canonical`]).
    pub(crate) fn rounded_decode_canonical(s: &[u8]) -> (Vec<i16>, bool) {
        debug_assert_eq!(s.len(), ROUNDED_BYTES);
        let (r, canonical) = encode::decode_uniform_canonical(s, ROUNDED_M, P);
        (
            r.into_iter().map(|x| 3 * x as i16 - Q12).collect(),
            canonical,
        )
    }

    /// [`super::mul_rq_small`] without checks.
    pub(crate) fn mul_rq_small(a: &[i16], s: &[i8]) -> Vec<i16> {
        debug_assert!(a.len() == P && check_small(s).is_ok());
        match global().isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::mul_rq_small(global().isa, a, s),
            _ => scalar::mul_rq_small(a, s),
        }
    }

    /// [`mul_rq_small`] into `out`: the product in the first [`P`] entries (the rest is
    /// scratch), no allocation.
    pub(crate) fn mul_rq_small_into(a: &[i16], s: &[i8], out: &mut [i16; PADDED]) {
        debug_assert!(a.len() == P && check_small(s).is_ok());
        match global().isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::mul_rq_small_into(global().isa, a, s, out),
            _ => out[..P].copy_from_slice(&crate::secret::Wiped::new(scalar::mul_rq_small(a, s))),
        }
    }

    /// [`super::mul_r3`] without checks, into `out`: no allocation on the SIMD backends.
    pub(crate) fn mul_r3_into(a: &[i8], b: &[i8], out: &mut [i8; P]) {
        debug_assert!(check_small(a).is_ok() && check_small(b).is_ok());
        match global().isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::mul_r3_into(global().isa, a, b, out),
            _ => out.copy_from_slice(&crate::secret::Wiped::new(scalar::mul_r3(a, b))),
        }
    }

    /// [`super::recip_r3`] without checks.
    pub(crate) fn recip_r3(a: &[i8]) -> (Vec<i8>, bool) {
        debug_assert!(check_small(a).is_ok());
        match global().isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::r3_recip(global().isa, a),
            _ => recip::r3_recip(a),
        }
    }

    /// [`super::recip3_rq`] without checks.
    pub(crate) fn recip3_rq(a: &[i8]) -> (Vec<i16>, bool) {
        debug_assert!(check_small(a).is_ok());
        match global().isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => x86::rq_recip3(global().isa, a),
            _ => recip::rq_recip3(a),
        }
    }

    /// [`super::round3`] without checks, in place.
    #[inline]
    pub(crate) fn round3_in_place(a: &mut [i16]) {
        debug_assert!(check_centred(a).is_ok());
        for x in a.iter_mut() {
            *x = super::round3_one(*x);
        }
    }

    pub(crate) fn round3(a: &[i16]) -> Vec<i16> {
        debug_assert!(check_centred(a).is_ok());
        a.iter().map(|&x| super::round3_one(x)).collect()
    }

    /// [`super::rounded_encode`] without checks.
    #[inline]
    pub(crate) fn rounded_encode(r: &[i16]) -> Vec<u8> {
        debug_assert!(check_centred(r).is_ok());
        let rr: Vec<u16> = r
            .iter()
            .map(|&x| ((i32::from(x + Q12) * 10923) >> 15) as u16)
            .collect();
        // room for the 32-byte confirmation hash sntrup761 appends
        let mut out = Vec::with_capacity(ROUNDED_BYTES + 32);
        encode::encode_uniform(&mut out, &rr, ROUNDED_M);
        out
    }

    /// [`small_encode`] into `out`.
    #[inline]
    pub(crate) fn small_encode_into(f: &[i8], out: &mut [u8; SMALL_BYTES]) {
        debug_assert!(f.len() == P && check_small(f).is_ok());
        super::pack_small(f, out);
    }

    /// [`super::rq_encode`] without checks: for key generation, whose `h` is centred by
    /// construction and derived from secrets until it is published.
    pub(crate) fn rq_encode(r: &[i16]) -> Vec<u8> {
        debug_assert!(check_centred(r).is_ok());
        let rr: Vec<u16> = r.iter().map(|&x| (x + Q12) as u16).collect();
        let mut out = Vec::with_capacity(RQ_BYTES);
        encode::encode_uniform(&mut out, &rr, Q);
        debug_assert_eq!(out.len(), RQ_BYTES);
        out
    }

    /// [`super::small_encode`] without checks.
    pub(crate) fn small_encode(f: &[i8]) -> Vec<u8> {
        debug_assert!(check_small(f).is_ok());
        let mut out = vec![0u8; f.len().div_ceil(4)];
        super::pack_small(f, &mut out);
        out
    }

    /// `Small_decode` of any [`SMALL_BYTES`] bytes, branch-free: the non-canonical two-bit
    /// pattern `11` (the reference's out-of-range 2) is read as `-1` (equal modulo 3); padding
    /// bits are ignored, as in the reference.
    pub(crate) fn small_decode_mod3_into(s: &[u8], out: &mut [i8; P]) {
        debug_assert_eq!(s.len(), SMALL_BYTES);
        let decode = |x: u8, k: usize| -> i8 {
            let v = (x >> (2 * k)) & 3; // 0..=3
            let v = v - 3 * (v >> 1 & v & 1); // 3 -> 0
            v as i8 - 1
        };
        // Four coefficients per byte (a fixed-size loop the compiler vectorises), then the
        // last byte's P % 4.
        for (o, &x) in out.chunks_exact_mut(4).zip(s) {
            for (k, ok) in o.iter_mut().enumerate() {
                *ok = decode(x, k);
            }
        }
        let last = s[SMALL_BYTES - 1];
        for (k, ok) in out[P - P % 4..].iter_mut().enumerate() {
            *ok = decode(last, k);
        }
    }
}

/// The multiplier of the free functions, chosen (and `LATPOLY_ISA` read) at the first call.
fn global() -> Multiplier {
    static M: OnceLock<Multiplier> = OnceLock::new();
    *M.get_or_init(Multiplier::new)
}

/// `a · b` in `R/q` (see [`Multiplier::mul_rq`]): inputs any `i16`, output centred.
///
/// ```
/// use latpoly::rings::ntruprime::{mul_rq, P};
/// let mut a = vec![0i16; P];
/// a[P - 1] = 3; // 3 x^760
/// let c = mul_rq(&a, &a).unwrap(); // 9 x^1520 = 9 (x^760 + x^759)
/// assert_eq!((c[759], c[760]), (9, 9));
/// assert!(mul_rq(&a[1..], &a).is_err());
/// ```
pub fn mul_rq(a: &[i16], b: &[i16]) -> Result<Vec<i16>> {
    global().mul_rq(a, b)
}

/// `a · s` in `R/q` for small `s` (see [`Multiplier::mul_rq_small`]).
///
/// ```
/// use latpoly::rings::ntruprime::{mul_rq_small, P};
/// let a: Vec<i16> = (0..P as i16).map(|i| i - 380).collect();
/// let mut minus_one = vec![0i8; P];
/// minus_one[0] = -1;
/// let c = mul_rq_small(&a, &minus_one).unwrap();
/// assert!(c.iter().zip(&a).all(|(&x, &y)| x == -y));
/// assert!(mul_rq_small(&a, &vec![2i8; P]).is_err());
/// ```
pub fn mul_rq_small(a: &[i16], s: &[i8]) -> Result<Vec<i16>> {
    global().mul_rq_small(a, s)
}

/// `a · b` in `R/3` (see [`Multiplier::mul_r3`]).
///
/// ```
/// use latpoly::rings::ntruprime::{mul_r3, P};
/// let mut x = vec![0i8; P];
/// x[P - 1] = 1; // x^760
/// let c = mul_r3(&x, &x).unwrap(); // x^1520 = x^760 + x^759
/// assert_eq!((c[758], c[759], c[760]), (0, 1, 1));
/// ```
pub fn mul_r3(a: &[i8], b: &[i8]) -> Result<Vec<i8>> {
    global().mul_r3(a, b)
}

/// `1/a` in `R/3` (the reference `R3_recip`, constant time): returns the reciprocal and `true`
/// if `a` is invertible; otherwise `false` with the value the reference computes (not an
/// inverse). The reference C returns `0` on success and `-1` on failure.
///
/// Errors: a length other than [`P`]; an entry outside `{-1, 0, 1}`.
///
/// ```
/// use latpoly::rings::ntruprime::{mul_r3, recip_r3, P};
/// let g: Vec<i8> = (0..P).map(|i| [1, 0, -1, 1, 1][i % 5]).collect();
/// let (ginv, ok) = recip_r3(&g).unwrap();
/// if ok {
///     let mut one = vec![0i8; P];
///     one[0] = 1;
///     assert_eq!(mul_r3(&g, &ginv).unwrap(), one);
/// }
/// assert!(!recip_r3(&vec![0i8; P]).unwrap().1);
/// ```
pub fn recip_r3(a: &[i8]) -> Result<(Vec<i8>, bool)> {
    global().recip_r3(a)
}

/// `1/(3a)` in `R/q` for a small `a` (the reference `Rq_recip3`, constant time): returns the
/// reciprocal (centred) and `true` if `3a` is invertible in `R/q`; otherwise `false` with the
/// value the reference computes.
///
/// Errors: a length other than [`P`]; an entry outside `{-1, 0, 1}`.
///
/// ```
/// use latpoly::rings::ntruprime::{mul_rq_small, recip3_rq, P};
/// let mut f = vec![0i8; P];
/// f[0] = 1;
/// f[5] = -1;
/// let (finv, ok) = recip3_rq(&f).unwrap();
/// assert!(ok);
/// let c = mul_rq_small(&finv, &f).unwrap(); // = 1/3
/// assert_eq!((c[0] as i32 * 3).rem_euclid(4591), 1);
/// assert!(c[1..].iter().all(|&x| x == 0));
/// ```
pub fn recip3_rq(a: &[i8]) -> Result<(Vec<i16>, bool)> {
    global().recip3_rq(a)
}

/// `Round`: each coefficient minus `F3_freeze` of it, i.e. the nearest multiple of 3.
///
/// Errors: a length other than [`P`]; a coefficient outside `[-2295, 2295]`.
///
/// ```
/// use latpoly::rings::ntruprime::{round3, P};
/// let a: Vec<i16> = (0..P as i16).map(|i| i - 380).collect();
/// let r = round3(&a).unwrap();
/// assert!(r.iter().zip(&a).all(|(&x, &y)| x % 3 == 0 && (x - y).abs() <= 1));
/// ```
pub fn round3(a: &[i16]) -> Result<Vec<i16>> {
    check_centred(a)?;
    Ok(unchecked::round3(a))
}

/// `x - F3_freeze(x) = 3 · floor((x + 1) / 3)` for a centred `x` (`|x| <= 2295`): with
/// `y = x + 2299` in `[4, 4594]`, `floor(y / 3) = (y · 21846) >> 16` (exact for `y < 2^15`), so
/// the result is `3 · (floor(y / 3) - 766)`. Unsigned 16-bit multiply-high arithmetic,
/// branch-free, and the compiler vectorises the loops over it (the generic constant-time
/// `F3_freeze` does not).
#[inline(always)]
fn round3_one(x: i16) -> i16 {
    let y = (x + 2299) as u16;
    let k = ((u32::from(y) * 21846) >> 16) as i16;
    3 * k - 2298
}

/// `Rq_encode`: [`RQ_BYTES`] bytes for `P` centred coefficients (`R[i] = c_i + 2295`, `M[i] = q`).
///
/// Errors: a length other than [`P`]; a coefficient outside `[-2295, 2295]`.
///
/// ```
/// use latpoly::rings::ntruprime::{rq_decode, rq_encode, P, RQ_BYTES};
/// let h: Vec<i16> = (0..P as i16).map(|i| 6 * i - 2283).collect();
/// let bytes = rq_encode(&h).unwrap();
/// assert_eq!(bytes.len(), RQ_BYTES);
/// assert_eq!(rq_decode(&bytes).unwrap(), h);
/// ```
pub fn rq_encode(r: &[i16]) -> Result<Vec<u8>> {
    check_centred(r)?;
    Ok(unchecked::rq_encode(r))
}

/// `Rq_decode`: the inverse of [`rq_encode`]; accepts any [`RQ_BYTES`] bytes (out-of-range
/// values are reduced modulo `q`, as in the reference).
///
/// Errors: a length other than [`RQ_BYTES`].
///
/// ```
/// use latpoly::rings::ntruprime::{rq_decode, RQ_BYTES};
/// let h = rq_decode(&[0xff; RQ_BYTES]).unwrap();
/// assert!(h.iter().all(|&x| (-2295..=2295).contains(&x)));
/// assert!(rq_decode(&[0; 10]).is_err());
/// ```
pub fn rq_decode(s: &[u8]) -> Result<Vec<i16>> {
    check_len(s.len(), RQ_BYTES)?;
    let r = encode::decode_uniform(s, Q, P);
    // by value: the collect reuses the allocation (same layout)
    Ok(r.into_iter().map(|x| x as i16 - Q12).collect())
}

/// `Rounded_encode`: [`ROUNDED_BYTES`] bytes for `P` centred coefficients, meant for multiples
/// of 3 (`R[i] = ((c_i + 2295) · 10923) >> 15`, i.e. `(c_i + 2295) / 3`, `M[i] = 1531`).
///
/// Errors: a length other than [`P`]; a coefficient outside `[-2295, 2295]`.
///
/// ```
/// use latpoly::rings::ntruprime::{round3, rounded_decode, rounded_encode, P, ROUNDED_BYTES};
/// let a: Vec<i16> = (0..P as i16).map(|i| 5 * i - 1900).collect();
/// let r = round3(&a).unwrap();
/// let bytes = rounded_encode(&r).unwrap();
/// assert_eq!(bytes.len(), ROUNDED_BYTES);
/// assert_eq!(rounded_decode(&bytes).unwrap(), r);
/// ```
pub fn rounded_encode(r: &[i16]) -> Result<Vec<u8>> {
    check_centred(r)?;
    let rr: Vec<u16> = r
        .iter()
        .map(|&x| ((i32::from(x + Q12) * 10923) >> 15) as u16)
        .collect();
    let mut out = Vec::with_capacity(ROUNDED_BYTES);
    encode::encode_uniform(&mut out, &rr, ROUNDED_M);
    debug_assert_eq!(out.len(), ROUNDED_BYTES);
    Ok(out)
}

/// `Rounded_decode`: the inverse of [`rounded_encode`] (`c_i = 3 R[i] - 2295`, multiples of 3 in
/// `[-2295, 2295]`); accepts any [`ROUNDED_BYTES`] bytes (values are reduced modulo 1531).
///
/// Errors: a length other than [`ROUNDED_BYTES`].
///
/// ```
/// use latpoly::rings::ntruprime::{rounded_decode, ROUNDED_BYTES};
/// let c = rounded_decode(&[0x5a; ROUNDED_BYTES]).unwrap();
/// assert!(c.iter().all(|&x| x % 3 == 0 && (-2295..=2295).contains(&x)));
/// ```
pub fn rounded_decode(s: &[u8]) -> Result<Vec<i16>> {
    check_len(s.len(), ROUNDED_BYTES)?;
    let r = encode::decode_uniform(s, ROUNDED_M, P);
    Ok(r.into_iter().map(|x| 3 * x as i16 - Q12).collect())
}

/// `Small_encode`: [`SMALL_BYTES`] bytes, four coefficients per byte as `c + 1` in two bits,
/// least significant first; the last byte holds coefficient 760 alone.
///
/// Errors: a length other than [`P`]; an entry outside `{-1, 0, 1}`.
///
/// ```
/// use latpoly::rings::ntruprime::{small_decode, small_encode, P, SMALL_BYTES};
/// let f: Vec<i8> = (0..P).map(|i| (i % 3) as i8 - 1).collect();
/// let bytes = small_encode(&f).unwrap();
/// assert_eq!(bytes.len(), SMALL_BYTES);
/// // f[0..4] = -1, 0, 1, -1 -> two-bit fields 0, 1, 2, 0, least significant first
/// assert_eq!(bytes[0], 0b00_10_01_00);
/// assert_eq!(small_decode(&bytes).unwrap(), f);
/// ```
pub fn small_encode(f: &[i8]) -> Result<Vec<u8>> {
    check_small(f)?;
    let mut out = vec![0u8; SMALL_BYTES];
    pack_small(f, &mut out);
    Ok(out)
}

/// Four coefficients in `{-1, 0, 1}` per byte, as `c + 1` in two bits, least significant
/// first; `out` has `f.len().div_ceil(4)` bytes. Whole groups of four run as a fixed-size loop
/// (which the compiler vectorises: the variable-length `chunks(4)` it replaced compiled to a
/// byte-at-a-time loop of masked loads and extracts, 5% of an sntrup761 decapsulation), the
/// last `f.len() % 4` coefficients after them.
fn pack_small(f: &[i8], out: &mut [u8]) {
    debug_assert_eq!(out.len(), f.len().div_ceil(4));
    let pack = |c: &[i8]| {
        c.iter()
            .enumerate()
            .fold(0u8, |acc, (k, &c)| acc | (((c + 1) as u8) << (2 * k)))
    };
    let whole = f.chunks_exact(4);
    let tail = whole.remainder();
    for (o, c) in out.iter_mut().zip(whole) {
        let c: &[i8; 4] = c.try_into().expect("chunks of four");
        *o = pack(c);
    }
    if !tail.is_empty() {
        out[f.len() / 4] = pack(tail);
    }
}

/// `Small_decode`: the inverse of [`small_encode`]. Stricter than the reference (which would
/// decode the two-bit pattern `11` as the out-of-range value 2 and ignore the unused bits of
/// the last byte): non-canonical input is an error, detected by a branch-free scan.
///
/// Errors: a length other than [`SMALL_BYTES`] ([`Error::LengthMismatch`]); a `11` pattern or
/// non-zero padding bits ([`Error::Malformed`]).
///
/// ```
/// use latpoly::rings::ntruprime::{small_decode, SMALL_BYTES};
/// let f = small_decode(&[0b01_01_01_01; SMALL_BYTES - 1].iter().copied()
///     .chain([0b01]).collect::<Vec<u8>>()).unwrap();
/// assert!(f.iter().all(|&x| x == 0));
/// assert!(small_decode(&[0xff; SMALL_BYTES]).is_err());
/// ```
pub fn small_decode(s: &[u8]) -> Result<Vec<i8>> {
    check_len(s.len(), SMALL_BYTES)?;
    let mut out = Vec::with_capacity(P);
    // A pattern 11 has both bits set: (x & (x >> 1)) & 0b01010101 != 0.
    let mut bad = s.iter().fold(0u8, |acc, &x| acc | (x & (x >> 1) & 0x55));
    bad |= s[SMALL_BYTES - 1] & !3;
    for (i, &x) in s.iter().enumerate() {
        let count = if i + 1 == SMALL_BYTES { P % 4 } else { 4 };
        for k in 0..count {
            out.push(((x >> (2 * k)) & 3) as i8 - 1);
        }
    }
    if bad != 0 {
        return Err(Error::Malformed(
            "small polynomial encoding has a 11 pattern or non-zero padding bits".into(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod round_tests {
    use super::*;

    #[test]
    fn round3_one_is_x_minus_f3_freeze() {
        for x in -Q12..=Q12 {
            assert_eq!(
                round3_one(x),
                x - i16::from(scalar::f3_freeze(i32::from(x))),
                "x = {x}"
            );
        }
    }
}
