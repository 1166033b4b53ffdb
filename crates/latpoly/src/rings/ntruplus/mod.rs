//! NTRU+ ring arithmetic: `Z_3457[x]/(x^n - x^(n/2) + 1)` for `n` in {576, 768, 864, 1152},
//! bit-exact with the KpqC round-2 final NTRU+ (spec v2.2.1) reference implementation.
//!
//! # The NTT
//!
//! `x^n - x^(n/2) + 1 = Φ_{3n}` splits into `n/d` base rings `Z_q[x]/(x^d - ζ^e)` (`d` = 4, or 3
//! for 864). [`ntt`] is the reference `ntt.c` for each `n`: one radix-2 split of the trinomial,
//! the radix-3 layers, then radix-2 layers down to degree `d`; component `j` (coefficients
//! `d·j .. d·j + d`) is `a mod (x^d - ζ^(e_j))` in the spec's order, where neighbouring
//! components are `x^d ∓ ζ^e` ([`component_exponent`] gives `e_j`). Values are `i16` in
//! `(-q, q)` and the Montgomery conventions are the reference's (`R = 2^16`):
//!
//! | call | result |
//! |---|---|
//! | [`ntt`]`(a)` | `â = NTT(a)` (no factor) |
//! | [`basemul`]`(â, b̂)` | `â∘b̂ · R^-1` |
//! | [`invntt`]`(ĉ)` | `R · NTT^-1(ĉ)`, so `invntt(basemul(â, b̂)) = a·b` |
//! | [`baseinv`]`(â)` | `R² · â^-1` (Montgomery inverse), so `basemul(â, baseinv(â)) = R` |
//!
//! The KAT key pairs store `pk = Encodeq(R·ĥ)` and `sk = Encodeq(f̂) ‖ Encodeq(R·ĥ^-1) ‖ F(pk)`
//! in exactly these conventions ([`baseinv`] of the `pk` part is the `sk`'s second part).
//!
//! [`baseinv`] uses Montgomery batch inversion: the norms of all components are multiplied
//! together, inverted once (Fermat, `x^(q-2)`), and unwound; it returns a constant-time flag
//! "every component is invertible".
//!
//! # Backends and exactness
//!
//! The scalar code ([`Isa::Scalar`]) follows the reference C operation for operation. The AVX2
//! (16 x i16 lanes) and AVX-512BW (32 x i16 lanes) backends are chosen at run time when the
//! CPU has them, the best one capped by `LATPOLY_ISA` (`scalar` forces the reference; the cap
//! is read once per process). Their [`ntt`] and [`invntt`] perform the reference's
//! Montgomery steps but only the Barrett steps the bounds need (values stay below
//! `9q < 2^15`), and return the **same values mod q** in the reference's output ranges
//! (`[-(q-1)/2, (q+1)/2]` forward, `(-q, q)` inverse). [`basemul`] and [`baseinv`] reduce once
//! per output (or lazily) on both and return the same values mod q, also in `(-q, q)`.
//! Everything that reaches the wire ([`encodeq`] maps to `[0, q)`) is identical, and [`mul`]
//! (canonical output) is identical on every backend. Everything is constant time: no
//! secret-dependent branches or memory indices.
//!
//! ```
//! use latpoly::rings::ntruplus::{self, NtruPlusParams};
//!
//! let p = NtruPlusParams::Kem576;
//! let mut a = vec![0i16; p.n()];
//! a[1] = 1; // x
//! let mut b = vec![0i16; p.n()];
//! b[p.n() - 1] = 1; // x^575
//! // x · x^575 = x^576 = x^288 - 1
//! let c = ntruplus::mul(&a, &b, p)?;
//! assert_eq!((c[0], c[288]), (3456, 1));
//!
//! // The same through the NTT domain.
//! ntruplus::ntt(&mut a, p)?;
//! ntruplus::ntt(&mut b, p)?;
//! let mut c2 = ntruplus::basemul(&a, &b, p)?;
//! ntruplus::invntt(&mut c2, p)?;
//! assert_eq!((c2[0].rem_euclid(3457), c2[288].rem_euclid(3457)), (3456, 1));
//! # Ok::<(), latpoly::Error>(())
//! ```

#[cfg(target_arch = "x86_64")]
mod avx512;
mod encode;
#[cfg(target_arch = "x86_64")]
mod lanes;
mod scalar;
mod tables;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::arith::ct::barrier;
use crate::error::{Error, Result};
use crate::isa::Isa;
use std::sync::OnceLock;
use tables::{Shape, Q};

/// The modulus `q = 3457` of every NTRU+ parameter set.
pub const Q_NTRUPLUS: u16 = 3457;

/// The four NTRU+ KEM parameter sets (KpqC round-2 final, spec v2.2.1).
///
/// ```
/// use latpoly::rings::ntruplus::NtruPlusParams;
///
/// let p = NtruPlusParams::from_n(864)?;
/// assert_eq!(p, NtruPlusParams::Kem864);
/// assert_eq!((p.n(), p.d(), p.components(), p.encoded_bytes()), (864, 3, 288, 1296));
/// assert!(NtruPlusParams::from_n(512).is_err());
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NtruPlusParams {
    /// NTRU+KEM576: `x^576 - x^288 + 1`, base rings `x^4 - ζ^e`, `ζ = 81` of order 432.
    Kem576,
    /// NTRU+KEM768: `x^768 - x^384 + 1`, base rings `x^4 - ζ^e`, `ζ = 22` of order 576.
    Kem768,
    /// NTRU+KEM864: `x^864 - x^432 + 1`, base rings `x^3 - ζ^e`, `ζ = 9` of order 864.
    Kem864,
    /// NTRU+KEM1152: `x^1152 - x^576 + 1`, base rings `x^4 - ζ^e`, `ζ = 9` of order 864.
    Kem1152,
}

impl NtruPlusParams {
    /// All four parameter sets, smallest first.
    ///
    /// ```
    /// use latpoly::rings::ntruplus::NtruPlusParams;
    /// let ns: Vec<usize> = NtruPlusParams::ALL.iter().map(|p| p.n()).collect();
    /// assert_eq!(ns, [576, 768, 864, 1152]);
    /// ```
    pub const ALL: [NtruPlusParams; 4] = [Self::Kem576, Self::Kem768, Self::Kem864, Self::Kem1152];

    /// The ring degree `n`.
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntruplus::NtruPlusParams::Kem768.n(), 768);
    /// ```
    pub const fn n(self) -> usize {
        self.shape().n
    }

    /// The parameter set of degree `n`; `Err(InvalidDegree)` for any other `n`.
    ///
    /// ```
    /// use latpoly::rings::ntruplus::NtruPlusParams;
    /// assert_eq!(NtruPlusParams::from_n(1152)?, NtruPlusParams::Kem1152);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_n(n: usize) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|p| p.n() == n)
            .ok_or(Error::InvalidDegree {
                n,
                reason: "NTRU+ is defined for n = 576, 768, 864, 1152",
            })
    }

    /// Degree `d` of the base rings `x^d - ζ^e` (4, 4, 3, 4).
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntruplus::NtruPlusParams::Kem864.d(), 3);
    /// ```
    pub const fn d(self) -> usize {
        self.shape().d
    }

    /// Number of NTT components `n/d`.
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntruplus::NtruPlusParams::Kem576.components(), 144);
    /// ```
    pub const fn components(self) -> usize {
        self.n() / self.d()
    }

    /// The modulus, 3457.
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntruplus::NtruPlusParams::Kem576.q(), 3457);
    /// ```
    pub const fn q(self) -> u16 {
        Q_NTRUPLUS
    }

    /// The root `ζ` whose powers define the base rings; it has order `3n/d`.
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntruplus::NtruPlusParams::Kem576.zeta(), 81);
    /// ```
    pub const fn zeta(self) -> u16 {
        self.shape().zeta as u16
    }

    /// Bytes of one [`encodeq`] output, `3n/2` (= the public key and ciphertext size).
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntruplus::NtruPlusParams::Kem576.encoded_bytes(), 864);
    /// ```
    pub const fn encoded_bytes(self) -> usize {
        3 * self.n() / 2
    }

    /// The scheme's name, e.g. `"NTRU+KEM576"`.
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntruplus::NtruPlusParams::Kem864.name(), "NTRU+KEM864");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Self::Kem576 => "NTRU+KEM576",
            Self::Kem768 => "NTRU+KEM768",
            Self::Kem864 => "NTRU+KEM864",
            Self::Kem1152 => "NTRU+KEM1152",
        }
    }

    pub(crate) const fn shape(self) -> Shape {
        match self {
            Self::Kem576 => tables::S576,
            Self::Kem768 => tables::S768,
            Self::Kem864 => tables::S864,
            Self::Kem1152 => tables::S1152,
        }
    }

    pub(crate) fn zetas(self) -> &'static [i16] {
        match self {
            Self::Kem576 => &tables::ZETAS_576,
            Self::Kem768 => &tables::ZETAS_768,
            Self::Kem864 => &tables::ZETAS_864,
            Self::Kem1152 => &tables::ZETAS_1152,
        }
    }
}

/// The reference `zetas[]` table of `p` (Montgomery form, centred), computed from its formula;
/// entry 0 is `2^16 mod q`, entry 1 is `ζ6 · 2^16`, the last `n/(2d)` entries are the base
/// rings' constants (component `2k` is `x^d - zetas[n/(2d) + k]/2^16`, component `2k+1` the
/// same with the sign flipped).
///
/// ```
/// use latpoly::rings::ntruplus::{zetas, NtruPlusParams};
/// let z = zetas(NtruPlusParams::Kem768);
/// assert_eq!(z.len(), 192);
/// assert_eq!(&z[..8], &[-147, -1033, -682, -248, -708, 682, 1, -722]);
/// ```
pub fn zetas(p: NtruPlusParams) -> &'static [i16] {
    p.zetas()
}

/// Exponent `e_j` of component `j`: the base ring is `x^d - ζ^(e_j)` with `ζ = p.zeta()`.
/// `Err` if `j >= n/d`.
///
/// ```
/// use latpoly::rings::ntruplus::{component_exponent, NtruPlusParams};
/// let p = NtruPlusParams::Kem576;
/// assert_eq!(component_exponent(p, 0)?, 1);
/// assert_eq!(component_exponent(p, 1)?, 217); // ζ^216 = -1: x^4 + ζ
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn component_exponent(p: NtruPlusParams, j: usize) -> Result<usize> {
    if j >= p.components() {
        return Err(Error::InvalidArgument(format!(
            "component {j} does not exist: {} has {} components",
            p.name(),
            p.components()
        )));
    }
    Ok(tables::leaf_exponent(&p.shape(), j))
}

/// Coefficient types accepted by [`mul`]: `u16` in `[0, q)` or `i16` in `(-q, q)`.
///
/// ```
/// use latpoly::rings::ntruplus::Coeff;
/// assert_eq!(3456u16.widen(), 3456);
/// assert_eq!((-5i16).widen(), -5);
/// ```
pub trait Coeff: Copy + sealed::Sealed {
    /// The value as `i32` (range checks happen in the caller).
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{Coeff, Q_NTRUPLUS};
    ///
    /// /// The canonical residue in `[0, q)` of either coefficient type.
    /// fn canonical<C: Coeff>(c: C) -> i32 {
    ///     c.widen().rem_euclid(Q_NTRUPLUS as i32)
    /// }
    /// assert_eq!(canonical(3456u16), canonical(-1i16));
    /// assert_eq!(canonical(-3456i16), 1);
    /// ```
    fn widen(self) -> i32;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u16 {}
    impl Sealed for i16 {}
}

impl Coeff for u16 {
    fn widen(self) -> i32 {
        self as i32
    }
}

impl Coeff for i16 {
    fn widen(self) -> i32 {
        self as i32
    }
}

fn check_len(got: usize, expected: usize) -> Result<()> {
    crate::error::check_len(expected, got)
}

/// Checks `|a_i| < q` for all `i` without data-dependent branches (only the error path, which
/// reports the first offender, inspects values individually).
fn check_range(a: &[i16]) -> Result<()> {
    // v in (-q, q) <=> (v + q - 1) as u16 <= 2q - 2; a max-fold (vpmaxuw), no branches
    let worst = a
        .iter()
        .fold(0u16, |m, &v| m.max((v as u16).wrapping_add(Q_NTRUPLUS - 1)));
    if barrier(worst) > 2 * (Q_NTRUPLUS - 1) {
        return Err(range_error(a.iter().map(|&v| v as i32)));
    }
    Ok(())
}

/// The error for the first value outside `(-q, q)` (error path only).
fn range_error(mut it: impl Iterator<Item = i32>) -> Error {
    let (i, v) = it
        .by_ref()
        .enumerate()
        .find(|(_, v)| v.unsigned_abs() >= Q as u32)
        .unwrap_or((0, 0));
    Error::InvalidArgument(format!("coefficient {i} is {v}, outside (-3457, 3457)"))
}

fn check_range_with<T>(a: &[T], f: impl Fn(&T) -> i32) -> Result<()> {
    let mut bad = 0u32;
    for v in a {
        // v + q - 1 in [0, 2q - 2] <=> -q < v < q
        let x = f(v) + Q - 1;
        bad |= (x | (2 * Q - 2 - x)) as u32;
    }
    if barrier(bad as u64) >> 31 != 0 {
        return Err(range_error(a.iter().map(f)));
    }
    Ok(())
}

/// Which kernels run the NTRU+ calls.
#[derive(Clone, Copy, Debug)]
enum Backend {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2(x86::Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512(avx512::Avx512),
}

/// The NTRU+ operations of one parameter set on one backend.
///
/// [`NtruPlusRing::new`] picks the best backend this CPU runs (capped by `LATPOLY_ISA`; this
/// is what the free functions [`ntt`], [`basemul`], ... use); [`NtruPlusRing::with_isa`] forces
/// one, e.g. to compare backends.
///
/// ```
/// use latpoly::{Isa, rings::ntruplus::{NtruPlusParams, NtruPlusRing}};
///
/// let p = NtruPlusParams::Kem1152;
/// let scalar = NtruPlusRing::with_isa(p, Isa::Scalar)?;
/// let best = NtruPlusRing::new(p);
/// let a: Vec<i16> = (0..1152).map(|i| (i * 7 % 3457) as i16 - 1728).collect();
/// let (mut x, mut y) = (a.clone(), a.clone());
/// scalar.ntt(&mut x)?;
/// best.ntt(&mut y)?;
/// // same values mod q on every backend
/// assert!(x.iter().zip(&y).all(|(u, v)| (u - v) % 3457 == 0));
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NtruPlusRing {
    p: NtruPlusParams,
    backend: Backend,
}

fn default_isa() -> Isa {
    static BEST: OnceLock<Isa> = OnceLock::new();
    *BEST.get_or_init(|| {
        let cap = Isa::env_cap().unwrap_or(Isa::Avx512Ifma);
        available_isas()
            .into_iter()
            .filter(|&i| i <= cap)
            .max()
            .unwrap_or(Isa::Scalar)
    })
}

/// The backends this CPU can run for NTRU+, worst first (always starts with [`Isa::Scalar`]).
///
/// ```
/// use latpoly::{Isa, rings::ntruplus::available_isas};
/// assert_eq!(available_isas()[0], Isa::Scalar);
/// ```
pub fn available_isas() -> Vec<Isa> {
    let mut v = vec![Isa::Scalar];
    #[cfg(target_arch = "x86_64")]
    if x86::Avx2::try_new().is_some() {
        v.push(Isa::Avx2);
    }
    #[cfg(target_arch = "x86_64")]
    if avx512::Avx512::try_new().is_some() {
        v.push(Isa::Avx512);
    }
    v
}

/// The backend the free functions of this module use: the best of [`available_isas`] not above
/// the `LATPOLY_ISA` cap (read once per process).
///
/// ```
/// let isa = latpoly::rings::ntruplus::isa();
/// assert!(latpoly::rings::ntruplus::available_isas().contains(&isa));
/// ```
pub fn isa() -> Isa {
    default_isa()
}

impl NtruPlusRing {
    /// The ring of `p` on the default backend ([`isa`]).
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// let r = NtruPlusRing::new(NtruPlusParams::Kem576);
    /// assert_eq!(r.isa(), latpoly::rings::ntruplus::isa());
    /// ```
    pub fn new(p: NtruPlusParams) -> Self {
        Self::with_isa(p, default_isa()).unwrap_or(NtruPlusRing {
            p,
            backend: Backend::Scalar,
        })
    }

    /// The ring of `p` on backend `isa`; `Err` if this CPU (or this build) cannot run it.
    /// `LATPOLY_ISA` is not consulted.
    ///
    /// ```
    /// use latpoly::{Isa, rings::ntruplus::{NtruPlusParams, NtruPlusRing}};
    /// let r = NtruPlusRing::with_isa(NtruPlusParams::Kem768, Isa::Scalar)?;
    /// assert_eq!(r.isa(), Isa::Scalar);
    /// assert!(NtruPlusRing::with_isa(NtruPlusParams::Kem768, Isa::Avx512Ifma).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn with_isa(p: NtruPlusParams, isa: Isa) -> Result<Self> {
        let backend = match isa {
            Isa::Scalar => Some(Backend::Scalar),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => x86::Avx2::try_new().map(Backend::Avx2),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => avx512::Avx512::try_new().map(Backend::Avx512),
            _ => None,
        };
        backend
            .map(|backend| NtruPlusRing { p, backend })
            .ok_or_else(|| {
                Error::InvalidArgument(format!("backend {isa} is not available for NTRU+ here"))
            })
    }

    /// The parameter set.
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// assert_eq!(NtruPlusRing::new(NtruPlusParams::Kem864).params(), NtruPlusParams::Kem864);
    /// ```
    pub fn params(&self) -> NtruPlusParams {
        self.p
    }

    /// The backend in use.
    ///
    /// ```
    /// use latpoly::{Isa, rings::ntruplus::{NtruPlusParams, NtruPlusRing}};
    /// let r = NtruPlusRing::with_isa(NtruPlusParams::Kem864, Isa::Scalar)?;
    /// assert_eq!(r.isa(), Isa::Scalar);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn isa(&self) -> Isa {
        match self.backend {
            Backend::Scalar => Isa::Scalar,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(_) => Isa::Avx2,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(_) => Isa::Avx512,
        }
    }

    /// `|v| < q` for every `v` of `a` (the input contract of every operation), checked with the
    /// backend's vector instructions and no data-dependent branch.
    fn check_range(&self, a: &[i16]) -> Result<()> {
        let ok = match self.backend {
            Backend::Scalar => return check_range(a),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.in_range(a),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.in_range(a),
        };
        if barrier(ok as u32) == 0 {
            return Err(range_error(a.iter().map(|&v| v as i32)));
        }
        Ok(())
    }

    /// Forward NTT in place; see [`ntt`].
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// let r = NtruPlusRing::new(NtruPlusParams::Kem576);
    /// let mut a = vec![0i16; 576];
    /// a[0] = 5; // a constant: every component is 5
    /// r.ntt(&mut a)?;
    /// assert!(a.chunks(4).all(|c| c[0].rem_euclid(3457) == 5 && c[1..] == [0, 0, 0]));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn ntt(&self, a: &mut [i16]) -> Result<()> {
        let s = self.p.shape();
        check_len(a.len(), s.n)?;
        #[cfg(target_arch = "x86_64")]
        if let Backend::Avx512(t) = self.backend {
            // the range check rides on the first layer, which leaves `a` as it was on failure
            if barrier(t.ntt_checked(a, self.p) as u32) == 0 {
                return Err(range_error(a.iter().map(|&v| v as i32)));
            }
            return Ok(());
        }
        self.check_range(a)?;
        self.ntt_unchecked(a);
        Ok(())
    }

    /// [`Self::ntt`] without the checks (lengths and ranges only `debug_assert!`ed), for
    /// crate-internal callers on secret data: no branch depends on the values.
    pub(crate) fn ntt_unchecked(&self, a: &mut [i16]) {
        let s = self.p.shape();
        debug_assert!(a.len() == s.n && a.iter().all(|v| v.unsigned_abs() < Q as u16));
        match self.backend {
            Backend::Scalar => scalar::ntt(a, &s, self.p.zetas()),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.ntt(a, self.p),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.ntt(a, self.p),
        }
    }

    /// Inverse NTT in place, times `2^16`; see [`invntt`].
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// let r = NtruPlusRing::new(NtruPlusParams::Kem864);
    /// let mut a = vec![0i16; 864];
    /// a[3] = 1;
    /// r.ntt(&mut a)?;
    /// r.invntt(&mut a)?;
    /// assert_eq!(a[3].rem_euclid(3457), 3310); // 2^16 mod q
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn invntt(&self, a: &mut [i16]) -> Result<()> {
        let s = self.p.shape();
        check_len(a.len(), s.n)?;
        self.check_range(a)?;
        self.invntt_unchecked(a);
        Ok(())
    }

    /// [`Self::invntt`] without the checks (only `debug_assert!`ed); see
    /// [`Self::ntt_unchecked`].
    pub(crate) fn invntt_unchecked(&self, a: &mut [i16]) {
        let s = self.p.shape();
        debug_assert!(a.len() == s.n && a.iter().all(|v| v.unsigned_abs() < Q as u16));
        match self.backend {
            Backend::Scalar => {
                scalar::invntt(a, &s, self.p.zetas(), tables::inv_consts_of(s.n));
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.invntt(a, self.p),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.invntt(a, self.p),
        }
    }

    /// Componentwise product times `2^-16`; see [`basemul`].
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// let r = NtruPlusRing::new(NtruPlusParams::Kem576);
    /// // 2^16 (the Montgomery one) in every component is the identity of basemul
    /// let one: Vec<i16> = (0..576).map(|i| if i % 4 == 0 { -147 } else { 0 }).collect();
    /// let b: Vec<i16> = (0..576).map(|i| (i * 11 % 3457) as i16).collect();
    /// let c = r.basemul(&one, &b)?;
    /// assert!(c.iter().zip(&b).all(|(x, y)| (x - y) % 3457 == 0));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn basemul(&self, a: &[i16], b: &[i16]) -> Result<Vec<i16>> {
        let mut c = vec![0i16; self.p.n()];
        self.basemul_into(&mut c, a, b)?;
        Ok(c)
    }

    /// [`Self::basemul`] into a caller-provided `c` of length `n` (no allocation).
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// let r = NtruPlusRing::new(NtruPlusParams::Kem864);
    /// let a: Vec<i16> = (0..864).map(|i| (i % 7) as i16).collect();
    /// let mut c = vec![0i16; 864];
    /// r.basemul_into(&mut c, &a, &a)?;
    /// assert_eq!(c, r.basemul(&a, &a)?);
    /// assert!(r.basemul_into(&mut c[..10], &a, &a).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn basemul_into(&self, c: &mut [i16], a: &[i16], b: &[i16]) -> Result<()> {
        let n = self.p.n();
        check_len(c.len(), n)?;
        check_len(a.len(), n)?;
        check_len(b.len(), n)?;
        self.check_range(a)?;
        self.check_range(b)?;
        self.basemul_unchecked_into(c, a, b);
        Ok(())
    }

    /// [`Self::basemul`] without the checks (only `debug_assert!`ed); see
    /// [`Self::ntt_unchecked`].
    pub(crate) fn basemul_unchecked(&self, a: &[i16], b: &[i16]) -> Vec<i16> {
        let mut c = vec![0i16; self.p.n()];
        self.basemul_unchecked_into(&mut c, a, b);
        c
    }

    /// `CBD1` of `bytes` (`n/4` bytes) into `f` (`n` values) without checks (crate-internal),
    /// compiled for this ring's backend.
    pub(crate) fn cbd1_into_unchecked(&self, f: &mut [i16], bytes: &[u8]) {
        let n = self.p.n();
        debug_assert!(bytes.len() == n / 4 && f.len() == n);
        match self.backend {
            Backend::Scalar => encode::cbd1_into(f, bytes, n),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.cbd1_into(f, bytes, n),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.cbd1_into(f, bytes, n),
        }
    }

    /// [`encodeq`] into `out` (`3n/2` bytes) without checks (crate-internal, for secret data;
    /// lengths and ranges only `debug_assert!`ed), compiled for this ring's backend: no branch
    /// depends on the values.
    pub(crate) fn encodeq_into_unchecked(&self, out: &mut [u8], a: &[i16]) {
        let n = self.p.n();
        debug_assert!(a.len() == n && a.iter().all(|v| v.unsigned_abs() < Q as u16));
        debug_assert_eq!(out.len(), self.p.encoded_bytes());
        match self.backend {
            Backend::Scalar => encode::encodeq_into(out, a, n),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.encodeq_into(out, a, n),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.encodeq_into(out, a, n),
        }
    }

    /// [`decodeq`] for ciphertexts and secret keys (crate-internal, used by the KEM), into `f`
    /// (`n` values): every 12-bit field reduced into `[0, q)`; returns `true` iff the encoding
    /// was canonical (all fields `< q`). Constant time; `Err` only on a wrong length.
    pub(crate) fn decodeq_reduced_into(&self, f: &mut [i16], bytes: &[u8]) -> Result<bool> {
        let n = self.p.n();
        check_len(bytes.len(), self.p.encoded_bytes())?;
        check_len(f.len(), n)?;
        Ok(match self.backend {
            Backend::Scalar => encode::decodeq_reduced_into(f, bytes, n),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.decodeq_reduced_into(f, bytes, n),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.decodeq_reduced_into(f, bytes, n),
        })
    }

    /// [`Self::basemul_unchecked`] into `c`.
    pub(crate) fn basemul_unchecked_into(&self, c: &mut [i16], a: &[i16], b: &[i16]) {
        let s = self.p.shape();
        debug_assert!(a.len() == s.n && a.iter().all(|v| v.unsigned_abs() < Q as u16));
        debug_assert!(b.len() == s.n && b.iter().all(|v| v.unsigned_abs() < Q as u16));
        debug_assert_eq!(c.len(), s.n);
        match self.backend {
            Backend::Scalar => scalar::basemul(c, a, b, &s, self.p.zetas()),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.basemul(c, a, b, self.p),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.basemul(c, a, b, self.p),
        }
    }

    /// Componentwise Montgomery inverse and the "all invertible" flag; see [`baseinv`].
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// let r = NtruPlusRing::new(NtruPlusParams::Kem768);
    /// let (_, ok) = r.baseinv(&vec![0i16; 768])?;
    /// assert!(!ok);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn baseinv(&self, a: &[i16]) -> Result<(Vec<i16>, bool)> {
        let mut r = vec![0i16; self.p.n()];
        let ok = self.baseinv_into(&mut r, a)?;
        Ok((r, ok))
    }

    /// [`Self::baseinv`] into a caller-provided `r` of length `n` (no allocation); returns the
    /// "all invertible" flag.
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// let r = NtruPlusRing::new(NtruPlusParams::Kem576);
    /// let a: Vec<i16> = (0..576).map(|i| ((i * 37 + 5) % 3457) as i16).collect();
    /// let mut inv = vec![0i16; 576];
    /// assert!(r.baseinv_into(&mut inv, &a)?);
    /// assert_eq!(inv, r.baseinv(&a)?.0);
    /// assert!(r.baseinv_into(&mut inv[..4], &a).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn baseinv_into(&self, r: &mut [i16], a: &[i16]) -> Result<bool> {
        let s = self.p.shape();
        check_len(r.len(), s.n)?;
        check_len(a.len(), s.n)?;
        self.check_range(a)?;
        Ok(self.baseinv_unchecked_into(r, a))
    }

    /// [`Self::baseinv_into`] without checks (lengths `n`, coefficients in `(-q, q)`): for key
    /// generation, whose operands are in range by construction and secret, so that not even
    /// the range verdict branches on them.
    pub(crate) fn baseinv_unchecked_into(&self, r: &mut [i16], a: &[i16]) -> bool {
        let s = self.p.shape();
        debug_assert!(r.len() == s.n && a.len() == s.n && check_range(a).is_ok());
        match self.backend {
            Backend::Scalar => scalar::baseinv(r, a, &s, self.p.zetas()),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.baseinv(r, a, self.p),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.baseinv(r, a, self.p),
        }
    }

    /// Plain product mod `(x^n - x^(n/2) + 1, q)`, coefficients in `[0, q)`; see [`mul`].
    ///
    /// ```
    /// use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    /// let r = NtruPlusRing::new(NtruPlusParams::Kem1152);
    /// let mut a = vec![0u16; 1152];
    /// a[0] = 2;
    /// let c = r.mul(&a, &a)?;
    /// assert_eq!(c[0], 4);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn mul<T: Coeff>(&self, a: &[T], b: &[T]) -> Result<Vec<u16>> {
        let n = self.p.n();
        check_len(a.len(), n)?;
        check_len(b.len(), n)?;
        let conv = |x: &[T]| -> Result<Vec<i16>> {
            check_range_with(x, |c| c.widen())?;
            Ok(x.iter().map(|c| c.widen() as i16).collect())
        };
        // the ranges are checked once, above; the values stay in (-q, q) throughout
        let (mut x, mut y) = (conv(a)?, conv(b)?);
        self.ntt_unchecked(&mut x);
        self.ntt_unchecked(&mut y);
        let mut c = self.basemul_unchecked(&x, &y);
        self.invntt_unchecked(&mut c);
        let s = crate::arith::ct::opaque_shift(31);
        Ok(c.iter()
            .map(|&v| (v as i32 + ((v as i32).wrapping_shr(s) & Q)) as u16)
            .collect())
    }
}

/// Forward NTT in place (reference `ntt`): `a` of length `n` with values in `(-q, q)` becomes
/// `(a mod (x^d - ζ^(e_j)))_j`, `d` consecutive coefficients per component, values in
/// `(-q, q)`, no Montgomery factor. `Err` on a wrong length or an out-of-range value.
///
/// ```
/// use latpoly::rings::ntruplus::{self, NtruPlusParams};
/// let p = NtruPlusParams::Kem576;
/// let mut a = vec![0i16; 576];
/// a[4] = 1; // x^4 ≡ ζ^(e_j) in component j
/// ntruplus::ntt(&mut a, p)?;
/// let e0 = ntruplus::component_exponent(p, 0)? as u32;
/// let zeta_e0 = (0..e0).fold(1i32, |x, _| x * 81 % 3457);
/// assert_eq!(a[0].rem_euclid(3457) as i32, zeta_e0);
/// assert!(ntruplus::ntt(&mut a[..10], p).is_err());
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn ntt(a: &mut [i16], p: NtruPlusParams) -> Result<()> {
    NtruPlusRing::new(p).ntt(a)
}

/// Inverse NTT in place (reference `invntt`): values in `(-q, q)` in and out; the result is
/// `2^16 · NTT^-1(a) mod q`, so `invntt(ntt(f)) = 2^16·f` and `invntt(basemul(â, b̂)) = a·b`.
///
/// ```
/// use latpoly::rings::ntruplus::{self, NtruPlusParams};
/// let p = NtruPlusParams::Kem768;
/// let f: Vec<i16> = (0..768).map(|i| (i % 3) as i16 - 1).collect();
/// let mut a = f.clone();
/// ntruplus::ntt(&mut a, p)?;
/// ntruplus::invntt(&mut a, p)?;
/// assert!(a.iter().zip(&f).all(|(&x, &y)| (x as i32 - 3310 * y as i32) % 3457 == 0));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn invntt(a: &mut [i16], p: NtruPlusParams) -> Result<()> {
    NtruPlusRing::new(p).invntt(a)
}

/// Componentwise product in the base rings (reference `poly_basemul`): `c_j = a_j · b_j ·
/// 2^-16` in `Z_q[x]/(x^d - ζ^(e_j))`, values in `(-q, q)`.
///
/// ```
/// use latpoly::rings::ntruplus::{self, NtruPlusParams};
/// let p = NtruPlusParams::Kem576;
/// // x · x^3 = x^4 = ζ^(e_0) in component 0
/// let (mut a, mut b) = (vec![0i16; 576], vec![0i16; 576]);
/// a[1] = -147; // x · 2^16
/// b[3] = 1;
/// let c = ntruplus::basemul(&a, &b, p)?;
/// assert_eq!(c[0].rem_euclid(3457), 81);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn basemul(a: &[i16], b: &[i16], p: NtruPlusParams) -> Result<Vec<i16>> {
    NtruPlusRing::new(p).basemul(a, b)
}

/// Componentwise inverse (reference `poly_baseinv`, with Montgomery batch inversion): returns
/// `r` with `r_j = 2^32 · a_j^-1` (so `basemul(a, r)` is `2^16 mod q`, the Montgomery one, in
/// every component) and `true` iff every component is invertible. Non-invertible components
/// come back as `0`. Constant time; one Fermat inversion for the whole polynomial.
///
/// ```
/// use latpoly::rings::ntruplus::{self, NtruPlusParams};
/// let p = NtruPlusParams::Kem864;
/// let a: Vec<i16> = (0..864).map(|i| ((i * 37 + 5) % 3457) as i16).collect();
/// let (inv, ok) = ntruplus::baseinv(&a, p)?;
/// assert!(ok);
/// let one = ntruplus::basemul(&a, &inv, p)?;
/// assert!(one.chunks(3).all(|c| c[0].rem_euclid(3457) == 3310 && c[1] % 3457 == 0 && c[2] % 3457 == 0));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn baseinv(a: &[i16], p: NtruPlusParams) -> Result<(Vec<i16>, bool)> {
    NtruPlusRing::new(p).baseinv(a)
}

/// Plain product `a·b mod (x^n - x^(n/2) + 1, q)` via the NTT, coefficients in `[0, q)`.
/// Inputs are `u16` in `[0, q)` or `i16` in `(-q, q)`.
///
/// ```
/// use latpoly::rings::ntruplus::{self, NtruPlusParams};
/// let p = NtruPlusParams::Kem864;
/// let mut a = vec![0i16; 864];
/// a[432] = 1; // x^432
/// let c = ntruplus::mul(&a, &a, p)?; // x^864 = x^432 - 1
/// assert_eq!((c[0], c[432]), (3456, 1));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn mul<T: Coeff>(a: &[T], b: &[T], p: NtruPlusParams) -> Result<Vec<u16>> {
    NtruPlusRing::new(p).mul(a, b)
}

/// `Encodeq` (spec Alg. 12): `n` values in `(-q, q)` to `3n/2` bytes, 12 bits each, in the
/// reference's interleaved order (blocks of 64 coefficients, plus a block of 32 for 864).
/// Negative values are mapped by `+q`, so the encoding is of the representative in `[0, q)`.
/// `Err` on a wrong length or a value outside `(-q, q)`.
///
/// ```
/// use latpoly::rings::ntruplus::{self, NtruPlusParams};
/// let p = NtruPlusParams::Kem576;
/// let a: Vec<i16> = (0..576).map(|i| i as i16 - 288).collect();
/// let bytes = ntruplus::encodeq(&a, p)?;
/// assert_eq!(bytes.len(), 864);
/// let back = ntruplus::decodeq(&bytes, p)?;
/// assert!(back.iter().zip(&a).all(|(&x, &y)| x == y.rem_euclid(3457)));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn encodeq(a: &[i16], p: NtruPlusParams) -> Result<Vec<u8>> {
    check_len(a.len(), p.n())?;
    check_range(a)?;
    Ok(encode::encodeq(a, p.n()))
}

/// `Decodeq` (spec Alg. 14): `3n/2` bytes to `n` values in `[0, q)`. Strict: a 12-bit field
/// `>= q` (a non-canonical encoding, which [`encodeq`] never produces) is rejected with
/// `Err(CoefficientOutOfRange)`, as is a wrong length. The check has no data-dependent branch.
///
/// ```
/// use latpoly::rings::ntruplus::{self, NtruPlusParams};
/// let p = NtruPlusParams::Kem864;
/// assert_eq!(ntruplus::decodeq(&[0u8; 1296], p)?, vec![0i16; 864]);
/// assert!(ntruplus::decodeq(&[0u8; 1295], p).is_err());
/// assert!(ntruplus::decodeq(&[0xffu8; 1296], p).is_err()); // 4095 >= q
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn decodeq(bytes: &[u8], p: NtruPlusParams) -> Result<Vec<i16>> {
    encode::decodeq(bytes, p.n())
}

/// `CBD1` (spec Alg. 5/6 with `BytesToBits`): `n/4` bytes to `n` coefficients in `{-1, 0, 1}`,
/// `f_i = β_i - β_(i+n)`, in the reference's bit order (see PARAMS C.4: within a block of `W`
/// little-endian 16-bit words, bit `k` of word `j` is coefficient `W·k + j`). The KEM's
/// secrets are `f = 3·cbd1(..) + 1` (the `+1` on `f_0` only) and `g = 3·cbd1(..)`.
/// `Err` unless `bytes.len() == n/4`. Constant time.
///
/// ```
/// use latpoly::rings::ntruplus::{self, NtruPlusParams};
/// let p = NtruPlusParams::Kem576;
/// let mut bytes = vec![0u8; 144];
/// bytes[0] = 0b10; // bit 1 of word 0: coefficient 16 gets +1
/// bytes[72] = 0b01; // second half, bit 0 of word 0: coefficient 0 gets -1
/// let f = ntruplus::cbd1(&bytes, p)?;
/// assert_eq!((f[0], f[16], f.iter().filter(|&&x| x != 0).count()), (-1, 1, 2));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn cbd1(bytes: &[u8], p: NtruPlusParams) -> Result<Vec<i16>> {
    check_len(bytes.len(), p.n() / 4)?;
    Ok(encode::cbd1(bytes, p.n()))
}

/// The [`cbd1`] bit layout of `p` (crate-internal, for the KEM's SOTP inverse): `(base, w)` per
/// block; bit `k` of the little-endian 16-bit word `j` at byte `base/8 + 2j` of each half is
/// coefficient `base + w·k + j`.
pub(crate) fn cbd1_blocks(p: NtruPlusParams) -> impl Iterator<Item = (usize, usize)> {
    encode::cbd1_blocks(p.n())
}

pub(crate) use encode::cbd1_words;

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, RngCore, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// The byte codecs compiled per backend (the KEM's `CBD1`, `Encodeq`, reducing `Decodeq`)
    /// against the generic code, for every parameter set (all block widths) and backend.
    #[test]
    fn backend_codecs_match_generic() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for p in NtruPlusParams::ALL {
            let (n, l) = (p.n(), p.encoded_bytes());
            for isa in available_isas() {
                let ring = NtruPlusRing::with_isa(p, isa).unwrap();
                for _ in 0..20 {
                    let mut bytes = vec![0u8; n / 4];
                    rng.fill_bytes(&mut bytes);
                    let mut got = vec![7i16; n];
                    ring.cbd1_into_unchecked(&mut got, &bytes);
                    assert_eq!(got, encode::cbd1(&bytes, n), "{p:?} {isa}");

                    let a: Vec<i16> = (0..n).map(|_| rng.gen_range(-(Q - 1)..Q) as i16).collect();
                    let mut out = vec![0u8; l];
                    ring.encodeq_into_unchecked(&mut out, &a);
                    assert_eq!(out, encode::encodeq(&a, n), "{p:?} {isa}");

                    let mut enc = vec![0u8; l];
                    rng.fill_bytes(&mut enc);
                    let (mut f1, mut f2) = (vec![0i16; n], vec![0i16; n]);
                    let ok = ring.decodeq_reduced_into(&mut f1, &enc).unwrap();
                    assert_eq!(ok, encode::decodeq_reduced_into(&mut f2, &enc, n));
                    assert_eq!(f1, f2, "{p:?} {isa}");

                    // canonical encodings decode to the canonical values; one field >= q
                    // anywhere (also in the 864 tail block) makes the flag false
                    let canon: Vec<i16> = a.iter().map(|&v| v.rem_euclid(Q as i16)).collect();
                    assert!(ring.decodeq_reduced_into(&mut f1, &out).unwrap());
                    assert_eq!(f1, canon, "{p:?} {isa}");
                    let mut high = canon.clone();
                    let i = if rng.gen_bool(0.5) {
                        n - 1 - rng.gen_range(0..32)
                    } else {
                        rng.gen_range(0..n)
                    };
                    high[i] = rng.gen_range(Q..4096) as i16;
                    let enc = encode::encodeq(&high, n);
                    assert!(
                        !ring.decodeq_reduced_into(&mut f1, &enc).unwrap(),
                        "{p:?} {isa} {i}"
                    );
                    assert!(!encode::decodeq_reduced_into(&mut f2, &enc, n));
                    assert_eq!(f1, f2, "{p:?} {isa}");
                }
                assert!(ring
                    .decodeq_reduced_into(&mut vec![0; n], &[0u8; 3])
                    .is_err());
            }
        }
    }
}
