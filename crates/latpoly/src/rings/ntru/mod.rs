//! NTRU ring arithmetic (NIST round 3: ntruhps2048509, ntruhps2048677, ntruhps4096821,
//! ntruhrss701), bit-exact with the reference C (jschanck/ntru@6d96ed37, PQClean@6cd3167b).
//!
//! Rings: `R_q = Z_q[x]/(x^n - 1)` with `q = 2^k`, `S_q = Z_q[x]/Phi_n`, `S_3 = Z_3[x]/Phi_n`,
//! `S_2` likewise, where `Phi_n = (x^n - 1)/(x - 1)`. Polynomials are slices of `n` coefficients
//! of type `u16`, constant term first. As in the reference, coefficients are **not** kept reduced
//! mod `q`: products are computed mod `2^16` and callers reduce (`& (q - 1)`) when they need to.
//! Every routine accepts arbitrary `u16` inputs and returns exactly what the reference C returns
//! for them (including for non-invertible inputs of the inverses).
//!
//! Conventions:
//! * the three products ([`poly_rq_mul`], [`poly_sq_mul`], [`poly_s3_mul`]) infer `n` from the
//!   slice length (the four degrees are distinct); every other routine takes the
//!   [`NtruParams`] explicitly and checks the lengths against it;
//! * bad input (unsupported `n`, wrong slice length) returns an [`Error`], never panics;
//! * everything is constant time: no branch and no memory index depends on coefficient values.
//!
//! Products: [`poly_rq_mul`] runs the fastest multiplier the CPU has, detected at run time and
//! capped by `LATPOLY_ISA` (read once, at the first product): an exact Karatsuba multiplier with
//! 32 (AVX-512BW) or 16 (AVX2) lanes of 16 bits (on AVX-512 CPUs with VNNI other than AMD
//! Zen 4, two Karatsuba levels over schoolbook point products on `vpdpwssd`, `toom_vnni.rs`),
//! or the scalar
//! schoolbook reference (the specification; `LATPOLY_ISA=scalar` forces it). [`rq_mul_isa`] tells which one runs and
//! [`poly_rq_mul_isa`] picks one explicitly. All of them return identical results.
//!
//! [`poly_rq_mul_modq`] returns the product reduced mod `q` (PQClean's contract) from a faster
//! multiplier, Toom-Cook 4-way, which is exact mod `2^13` only: over Karatsuba, or on AVX-512
//! CPUs with VNNI other than AMD Zen 4 with schoolbook point products on `vpdpwssd`
//! (`toom_vnni.rs`, every degree). The KEMs use it for their products and the Newton steps of the `R_q`
//! inverse, except where a CPU with AVX-512 VNNI runs their byte-sized products as
//! convolutions (`vnni.rs`: the `S_3` product of decapsulation and the inverse's first steps,
//! mod `2^8`).
//!
//! ```
//! use latpoly::rings::ntru::{self, NtruParams};
//!
//! let p = NtruParams::Hps2048509;
//! let n = p.n();
//! let mut a = vec![0u16; n];
//! a[0] = 3; // a = 3 + 2x^(n-1)
//! a[n - 1] = 2;
//! let mut b = vec![0u16; n];
//! b[1] = 1; // b = x
//! let mut c = vec![0u16; n];
//! ntru::poly_rq_mul(&a, &b, &mut c)?;
//! assert_eq!((c[0], c[1]), (2, 3)); // x^n = 1
//!
//! // Inverse mod (q, Phi_n): a · a^-1 = 1 in S_q.
//! let mut inv = vec![0u16; n];
//! ntru::poly_rq_inv(&a, p, &mut inv)?;
//! ntru::poly_sq_mul(&a, &inv, &mut c)?;
//! let q = p.q();
//! assert_eq!(c[0] & (q - 1), 1);
//! assert!(c[1..].iter().all(|&x| x & (q - 1) == 0));
//! # Ok::<(), latpoly::Error>(())
//! ```

#[cfg(target_arch = "x86_64")]
mod amx;
#[cfg(target_arch = "x86_64")]
mod benes;
mod fast;
#[cfg(target_arch = "x86_64")]
mod lift_x86;
#[cfg(target_arch = "x86_64")]
mod pack_x86;
#[cfg(target_arch = "x86_64")]
mod r2_avx512;
#[cfg(target_arch = "x86_64")]
mod r2_clmul;
mod reference;
mod toom;
#[cfg(target_arch = "x86_64")]
mod toom_vnni;
#[cfg(target_arch = "x86_64")]
mod vnni;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::error::{check_len, Error, Result};
use crate::isa::Isa;
use std::sync::OnceLock;
use toom::Operand;

/// The four NIST round-3 NTRU parameter sets.
///
/// ```
/// use latpoly::rings::ntru::NtruParams;
///
/// let p = NtruParams::Hrss701;
/// assert_eq!((p.n(), p.q(), p.log_q()), (701, 8192, 13));
/// assert_eq!(p.name(), "ntruhrss701");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NtruParams {
    /// ntruhps2048509: `n = 509`, `q = 2048`.
    Hps2048509,
    /// ntruhps2048677: `n = 677`, `q = 2048`.
    Hps2048677,
    /// ntruhps4096821: `n = 821`, `q = 4096`.
    Hps4096821,
    /// ntruhrss701: `n = 701`, `q = 8192`.
    Hrss701,
}

impl NtruParams {
    /// All four parameter sets.
    ///
    /// ```
    /// use latpoly::rings::ntru::NtruParams;
    ///
    /// let ns: Vec<usize> = NtruParams::ALL.iter().map(|p| p.n()).collect();
    /// assert_eq!(ns, [509, 677, 821, 701]);
    /// ```
    pub const ALL: [NtruParams; 4] = [
        NtruParams::Hps2048509,
        NtruParams::Hps2048677,
        NtruParams::Hps4096821,
        NtruParams::Hrss701,
    ];

    /// The ring degree `n` (a prime).
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntru::NtruParams::Hps2048677.n(), 677);
    /// ```
    pub const fn n(self) -> usize {
        match self {
            NtruParams::Hps2048509 => 509,
            NtruParams::Hps2048677 => 677,
            NtruParams::Hps4096821 => 821,
            NtruParams::Hrss701 => 701,
        }
    }

    /// `log2 q`: 11, 11, 12 or 13.
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntru::NtruParams::Hps4096821.log_q(), 12);
    /// ```
    pub const fn log_q(self) -> u32 {
        match self {
            NtruParams::Hps2048509 | NtruParams::Hps2048677 => 11,
            NtruParams::Hps4096821 => 12,
            NtruParams::Hrss701 => 13,
        }
    }

    /// The modulus `q = 2^log_q`.
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntru::NtruParams::Hps2048509.q(), 2048);
    /// ```
    pub const fn q(self) -> u16 {
        1 << self.log_q()
    }

    /// The scheme name as in the NIST submission (`"ntruhps2048509"`, ..., `"ntruhrss701"`).
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntru::NtruParams::Hps4096821.name(), "ntruhps4096821");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            NtruParams::Hps2048509 => "ntruhps2048509",
            NtruParams::Hps2048677 => "ntruhps2048677",
            NtruParams::Hps4096821 => "ntruhps4096821",
            NtruParams::Hrss701 => "ntruhrss701",
        }
    }

    /// Whether this is the HRSS variant (which changes [`poly_lift`]).
    ///
    /// ```
    /// use latpoly::rings::ntru::NtruParams;
    ///
    /// assert!(NtruParams::Hrss701.is_hrss());
    /// assert!(!NtruParams::Hps2048509.is_hrss());
    /// ```
    pub const fn is_hrss(self) -> bool {
        matches!(self, NtruParams::Hrss701)
    }

    /// The parameter set of degree `n`; [`Error::InvalidDegree`] unless `n` is 509, 677, 701
    /// or 821.
    ///
    /// ```
    /// use latpoly::rings::ntru::NtruParams;
    ///
    /// assert_eq!(NtruParams::from_n(701)?, NtruParams::Hrss701);
    /// assert!(NtruParams::from_n(512).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_n(n: usize) -> Result<NtruParams> {
        NtruParams::ALL
            .into_iter()
            .find(|p| p.n() == n)
            .ok_or(Error::InvalidDegree {
                n,
                reason: "NTRU supports n = 509, 677, 701 and 821 only",
            })
    }

    /// Length in bytes of [`poly_sq_tobytes`] / [`poly_rq_sum_zero_tobytes`]:
    /// `ceil((n - 1) · log_q / 8)` (699, 930, 1230, 1138).
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntru::NtruParams::Hps2048509.sq_bytes(), 699);
    /// ```
    pub const fn sq_bytes(self) -> usize {
        ((self.n() - 1) * self.log_q() as usize).div_ceil(8)
    }

    /// Length in bytes of [`poly_s3_tobytes`]: `ceil((n - 1) / 5)` (102, 136, 164, 140).
    ///
    /// ```
    /// assert_eq!(latpoly::rings::ntru::NtruParams::Hps2048509.s3_bytes(), 102);
    /// ```
    pub const fn s3_bytes(self) -> usize {
        (self.n() - 1).div_ceil(5)
    }
}

/// Checks the operands of a product and returns the parameter set of their degree.
fn check_product(a: &[u16], b: &[u16], out: &[u16]) -> Result<NtruParams> {
    let p = NtruParams::from_n(a.len())?;
    check_len(p.n(), b.len())?;
    check_len(p.n(), out.len())?;
    Ok(p)
}

/// A multiplier implementation for `poly_Rq_mul`.
#[derive(Clone, Copy, Debug)]
enum Backend {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2(x86::Avx2Lanes),
    #[cfg(target_arch = "x86_64")]
    Avx512(x86::Avx512Lanes),
}

impl Backend {
    /// The best multiplier this CPU runs, not above `cap`.
    fn best(cap: Isa) -> Backend {
        #[cfg(target_arch = "x86_64")]
        {
            if cap >= Isa::Avx512 {
                if let Some(t) = x86::Avx512Lanes::try_new() {
                    // AMX tile products only without a cap below the top level
                    let t = if cap >= Isa::Avx512Ifma {
                        t.with_amx()
                    } else {
                        t
                    };
                    return Backend::Avx512(t);
                }
            }
            if cap >= Isa::Avx2 {
                if let Some(t) = x86::Avx2Lanes::try_new() {
                    return Backend::Avx2(t);
                }
            }
        }
        let _ = cap;
        Backend::Scalar
    }

    /// HRSS `poly_lift` (same result everywhere; vectorised on the x86 backends).
    fn lift_hrss(self, a: &[u16], out: &mut [u16], q: u16) {
        match self {
            Backend::Scalar => reference::lift_hrss(a, out, q),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.lift_hrss(a, out, q),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.lift_hrss(a, out, q),
        }
    }

    /// `poly_S3_inv`, compiled for this backend's instruction set (same result everywhere).
    fn s3_inv(self, a: &[u16], out: &mut [u16]) {
        match self {
            Backend::Scalar => reference::s3_inv(a, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.s3_inv(a, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.s3_inv(a, out),
        }
    }

    /// `poly_R2_inv`, compiled for this backend's instruction set (same result everywhere): on
    /// the SIMD backends by exponentiation with carry-less products, all in AVX-512 registers
    /// on the AVX-512 backend when the CPU has the subsets `r2_avx512.rs` uses, otherwise with
    /// `PCLMULQDQ` (`r2_clmul.rs`); without that, by the reference's divsteps, bit-sliced.
    fn r2_inv(self, a: &[u16], out: &mut [u16]) {
        #[cfg(target_arch = "x86_64")]
        if matches!(self, Backend::Avx512(_))
            && r2_avx512::R2Avx512::try_new()
                .and_then(|t| t.r2_inv(a, out))
                .is_some()
        {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if !matches!(self, Backend::Scalar)
            && r2_clmul::Clmul::try_new()
                .and_then(|c| c.r2_inv(a, out))
                .is_some()
        {
            return;
        }
        match self {
            Backend::Scalar => reference::r2_inv(a, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.r2_inv(a, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.r2_inv(a, out),
        }
    }

    /// `poly_Sq_frombytes` (same output on every backend; AVX-512BW: `pack_x86.rs`).
    fn sq_frombytes(self, bytes: &[u8], r: &mut [u16], log_q: u32) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.sq_frombytes(bytes, r, log_q),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.sq_frombytes(bytes, r, log_q),
            _ => reference::sq_frombytes(bytes, r, log_q),
        }
    }

    /// `poly_Sq_tobytes` (same output on every backend).
    fn sq_tobytes(self, a: &[u16], out: &mut [u8], log_q: u32) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.sq_tobytes(a, out, log_q),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.sq_tobytes(a, out, log_q),
            _ => reference::sq_tobytes(a, out, log_q),
        }
    }

    /// `poly_S3_frombytes` (same output on every backend).
    fn s3_frombytes(self, bytes: &[u8], r: &mut [u16]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.s3_frombytes(bytes, r),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.s3_frombytes(bytes, r),
            _ => reference::s3_frombytes(bytes, r),
        }
    }

    /// `poly_S3_tobytes` (same output on every backend).
    fn s3_tobytes(self, a: &[u16], out: &mut [u8]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.s3_tobytes(a, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => t.s3_tobytes(a, out),
            _ => reference::s3_tobytes(a, out),
        }
    }

    fn isa(self) -> Isa {
        match self {
            Backend::Scalar => Isa::Scalar,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(_) => Isa::Avx2,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(_) => Isa::Avx512,
        }
    }

    /// `out = a · b mod (x^n - 1, 2^16)`; lengths already checked.
    fn mul(self, p: NtruParams, a: &[u16], b: &[u16], out: &mut [u16]) {
        match self {
            Backend::Scalar => reference::rq_mul(a, b, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => fast::rq_mul(t, p, a, b, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => match (self.toom_vnni(), self.karatsuba_16_lanes()) {
                (Some(v), _) => v.mul_exact(a, b, out).expect("checked lengths"),
                (None, Some(t16)) => fast::rq_mul(t16, p, a, b, out),
                (None, None) => fast::rq_mul(t, p, a, b, out),
            },
        }
        let _ = p;
    }

    /// `out = a · b mod (x^n - 1, m)`, coefficients in `[0, m)`, for a power of two
    /// `m <= 2^13` (the parameter set's `q`, or `2^13`); lengths already checked.
    fn mul_modq(self, p: NtruParams, a: &[u16], b: &[u16], out: &mut [u16], m: u16) {
        self.mul_modq_ops(p, Operand::Coeffs(a), Operand::Coeffs(b), out, m);
    }

    /// Length (`u16`) of an operand prepared by [`Backend::prepare`]: on the scalar backend
    /// the `n` coefficients, on the SIMD backends the evaluated, transposed leaves of the
    /// Toom-4 multiplier, or with `toom_vnni.rs` its seven evaluated points.
    fn prepared_len(self, p: NtruParams) -> usize {
        match self {
            Backend::Scalar => p.n(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => toom::prepared_len_for(t, p),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => match (self.toom_vnni(), self.toom_16_lanes(p)) {
                (Some(_), _) => toom_vnni::ToomVnni::prepared_len(p.n()).expect("an NTRU degree"),
                (None, Some(t16)) => toom::prepared_len_for(t16, p),
                (None, None) => toom::prepared_len_for(t, p),
            },
        }
    }

    /// Prepares `a` (`n` coefficients) into `dst` ([`Backend::prepared_len`] elements) for
    /// several products by [`Backend::mul_modq_ops`].
    fn prepare(self, p: NtruParams, a: &[u16], dst: &mut [u16]) {
        debug_assert_eq!(dst.len(), self.prepared_len(p));
        match self {
            Backend::Scalar => dst.copy_from_slice(a),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => toom::prepare(t, p, a, dst),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => match (self.toom_vnni(), self.toom_16_lanes(p)) {
                (Some(v), _) => v.prepare(a, dst).expect("checked lengths"),
                (None, Some(t16)) => toom::prepare(t16, p, a, dst),
                (None, None) => toom::prepare(t, p, a, dst),
            },
        }
    }

    /// [`Backend::mul_modq`] of operands given as coefficients or prepared by this backend's
    /// [`Backend::prepare`]; `out.len() = n`.
    fn mul_modq_ops(self, p: NtruParams, a: Operand<'_>, b: Operand<'_>, out: &mut [u16], m: u16) {
        debug_assert!(m.is_power_of_two() && m <= 1 << 13);
        match self {
            Backend::Scalar => {
                let (Operand::Coeffs(a) | Operand::Prepared(a)) = a;
                let (Operand::Coeffs(b) | Operand::Prepared(b)) = b;
                reference::rq_mul(a, b, out);
                out.iter_mut().for_each(|x| *x &= m - 1);
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => toom::rq_mul_modq(t, p, a, b, out, m),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => match (self.toom_vnni(), self.toom_16_lanes(p)) {
                (Some(v), _) => v.mul_modq(a, b, out, m).expect("checked lengths"),
                (None, Some(t16)) => toom::rq_mul_modq(t16, p, a, b, out, m),
                (None, None) => toom::rq_mul_modq(t, p, a, b, out, m),
            },
        }
        let _ = p;
    }

    /// `out = a · b mod (3, Phi_n)` in `{0, 1, 2}` for `a`, `b` with coefficients in
    /// `{0, 1, 2}` (the integer product's coefficients are below `4 n < 2^13`): on the AVX-512
    /// backend an AMX tile convolution (`amx.rs`) or a schoolbook convolution with VNNI
    /// (`vnni.rs`) where the CPU has them (VNNI at full rate, `Backend::vnni`), otherwise the
    /// Toom-4 product mod `2^13` and the fold of `poly_mod_3_Phi_n`.
    #[inline(always)]
    fn s3_mul_small(self, p: NtruParams, a: &[u16], b: &[u16], out: &mut [u16]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(x) = self.amx() {
            if amx::s3_mul(x, a, b, out).is_some() {
                return;
            }
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(v) = self.vnni() {
            if v.s3_mul(a, b, out).is_some() {
                return;
            }
        }
        self.mul_modq(p, a, b, out, 1 << 13);
        reference::mod_3_phi_n(out);
    }

    /// The AMX tile products of `amx.rs`: on the AVX-512 backend of a CPU with AMX-INT8 whose
    /// OS grants the tile state, when no cap below the top level is set.
    #[cfg(target_arch = "x86_64")]
    fn amx(self) -> Option<crate::rings::amx::Amx> {
        match self {
            Backend::Avx512(t) => t.amx(),
            _ => None,
        }
    }

    /// The VNNI convolutions of `vnni.rs`: on the AVX-512 backend of a CPU with AVX-512 VNNI
    /// and VBMI that runs 512-bit `vpdpbusd` at full rate (not AMD Zen 4, see
    /// `vnni_conv::full_rate_vnni`). On the Zen 4 host of the fifty-ninth session the Toom-4
    /// products were the faster there (`examples/kem_bench`, three alternating runs:
    /// ntruhrss701 key generation 42.5-50.8 -> 36.7-38.8 µs, ntruhps4096821 decapsulation
    /// 13.6-14.8 -> 12.8-13.2).
    #[cfg(target_arch = "x86_64")]
    fn vnni(self) -> Option<vnni::Vnni> {
        match self {
            Backend::Avx512(_) if crate::rings::vnni_conv::full_rate_vnni() => {
                vnni::Vnni::try_new()
            }
            _ => None,
        }
    }

    /// The Toom-4 product over VNNI convolutions (`toom_vnni.rs`) where the AVX-512 backend
    /// runs it instead of the Toom-4 multiplier over Karatsuba: on CPUs with AVX-512 VNNI (but
    /// not AMD Zen 4, see [`toom_vnni::ToomVnni::try_new`]). On the Intel Emerald Rapids host
    /// of the thirtieth session, in-process: 677 and 701 2.4 -> 1.75 µs, 821 3.35 -> 2.3; at
    /// 509 on par (1.1-1.15 µs either way; the KEM's encapsulation and decapsulation 3-4%
    /// faster with it, key generation the same).
    #[cfg(target_arch = "x86_64")]
    fn toom_vnni(self) -> Option<toom_vnni::ToomVnni> {
        match self {
            Backend::Avx512(_) => toom_vnni::ToomVnni::try_new(),
            _ => None,
        }
    }

    /// The 16-lane Karatsuba multiplier (compiled with AVX-512VL, [`x86::Avx2Lanes::evex`])
    /// where the AVX-512 backend runs it for the exact product mod `2^16` instead of its own:
    /// on AMD Zen 4, which executes 512-bit operations as two 256-bit halves
    /// (`examples/ntru_bench`, sixtieth session, best of three alternating runs: 509 / 677 /
    /// 701 / 821 1.33 / 2.72 / 2.60 / 3.74 µs with 32 lanes against 1.32 / 2.49 / 2.49 / 3.65).
    #[cfg(target_arch = "x86_64")]
    fn karatsuba_16_lanes(self) -> Option<x86::Avx2Lanes> {
        match self {
            Backend::Avx512(_) if crate::cpu::is_zen4() => x86::Avx2Lanes::evex(),
            _ => None,
        }
    }

    /// The 16-lane Toom-4 kernel, compiled with AVX-512VL ([`x86::Avx2Lanes::evex`]: 32
    /// vector registers, EVEX forms), where the AVX-512 backend runs it instead of its own (on
    /// CPUs without the VNNI product of [`Backend::toom_vnni`], which comes first): for
    /// `n` = 677 and 701, whose limbs of 192 coefficients split into leaves of 48 with 16 lanes
    /// (63 leaves) but of 32 with 32 lanes (126 leaves, four groups of every per-leaf
    /// overhead, [`toom::shape`]), and on AMD Zen 4 for every `n`. Zen 4 executes a 512-bit
    /// operation as two 256-bit ones, so 512-bit vectors gain nothing there
    /// (`examples/ntru_bench`, sixtieth session, best of three alternating runs: 509 / 677 /
    /// 701 / 821 1.10-1.19 / 1.90-3.06 / 1.85-3.08 / 2.94-3.19 µs with 32 lanes, 1.06-1.10 /
    /// 1.73-1.76 / 1.73-1.75 / 2.59-2.60 µs with 16; the same kernel compiled for AVX2 alone
    /// took 2.09-2.15 µs at 677 and 701). Every AVX-512 CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    fn toom_16_lanes(self, p: NtruParams) -> Option<x86::Avx2Lanes> {
        match self {
            Backend::Avx512(_) if crate::cpu::is_zen4() || toom::shape(p.n(), 16).1 == 48 => {
                x86::Avx2Lanes::evex()
            }
            _ => None,
        }
    }
}

/// The byte products mod `2^8` of the `R_q` inverse's first Newton steps: AMX tile
/// convolutions, or VNNI ones (not at `n = 509`, where the Toom-4 products are the faster).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
enum Mod256 {
    Amx(crate::rings::amx::Amx),
    Vnni(vnni::Vnni),
}

#[cfg(target_arch = "x86_64")]
impl Mod256 {
    fn of(backend: Backend, p: NtruParams) -> Option<Self> {
        backend.amx().map(Mod256::Amx).or_else(|| {
            backend
                .vnni()
                .filter(|_| p != NtruParams::Hps2048509)
                .map(Mod256::Vnni)
        })
    }

    /// `out = a · b mod (x^n - 1, 2^8)`.
    fn mul(self, a: &[u16], b: &[u16], out: &mut [u16]) {
        match self {
            Mod256::Amx(x) => amx::mul_mod256(x, a, b, out),
            Mod256::Vnni(v) => v.mul_mod256(a, b, out),
        }
        .expect("an NTRU degree")
    }

    /// `b = a · b mod (x^n - 1, 2^8)`.
    fn mul_assign(self, a: &[u16], b: &mut [u16]) {
        match self {
            Mod256::Amx(x) => amx::mul_mod256_assign(x, a, b),
            Mod256::Vnni(v) => v.mul_mod256_assign(a, b),
        }
        .expect("an NTRU degree")
    }
}

/// The default multiplier: best available, capped by `LATPOLY_ISA` (read once).
fn default_backend() -> Backend {
    static DEFAULT: OnceLock<Backend> = OnceLock::new();
    *DEFAULT.get_or_init(|| Backend::best(Isa::env_cap().unwrap_or(Isa::Avx512Ifma)))
}

/// The multiplier [`poly_rq_mul`] (and every routine built on it) uses in this process: the best
/// one this CPU runs, capped by `LATPOLY_ISA` as read at the first call (`Avx512` needs
/// AVX-512F and AVX-512BW). The level `Avx512Ifma` (the default cap) is reported as `Avx512`;
/// it adds the KEMs' AMX tile products on CPUs with AMX-INT8 ([`amx_in_use`]).
///
/// ```
/// use latpoly::{Isa, rings::ntru};
///
/// let isa = ntru::rq_mul_isa();
/// assert!(matches!(isa, Isa::Scalar | Isa::Avx2 | Isa::Avx512));
/// ```
pub fn rq_mul_isa() -> Isa {
    default_backend().isa()
}

/// Whether the NTRU KEMs run their byte-sized products as AMX tile convolutions in this
/// process: the `S_3` product of decapsulation and the products mod `2^8` of the first Newton
/// steps of key generation's `R_q` inverse. That is on the AVX-512 backend of a CPU with
/// AMX-INT8 (Intel Sapphire Rapids and later Xeons) whose operating system grants the tile
/// state (Linux), unless `LATPOLY_ISA` caps the backend below `avx512ifma`. The results are
/// the same either way; the `R_q` products ([`poly_rq_mul`], [`poly_rq_mul_modq`]) never use
/// AMX (three byte products each, slower than their VNNI multiplier).
///
/// ```
/// use latpoly::{rings::ntru, Isa};
/// if ntru::amx_in_use() {
///     assert_eq!(ntru::rq_mul_isa(), Isa::Avx512);
/// }
/// ```
pub fn amx_in_use() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        default_backend().amx().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `out = a · b mod (x^n - 1)` computed mod `2^16`, **not** reduced mod `q`: the reference
/// `poly_Rq_mul` (a cyclic convolution; callers mask with `q - 1` when they need `R_q`).
///
/// `n = a.len()` must be 509, 677, 701 or 821 ([`Error::InvalidDegree`] otherwise), and `b`
/// and `out` must have the same length ([`Error::LengthMismatch`]).
///
/// ```
/// use latpoly::rings::ntru::poly_rq_mul;
///
/// let a = vec![0xffffu16; 509]; // -1 everywhere
/// let b = vec![0xffffu16; 509];
/// let mut c = vec![0u16; 509];
/// poly_rq_mul(&a, &b, &mut c)?;
/// assert!(c.iter().all(|&x| x == 509)); // each coefficient sums 509 products (-1)(-1)
/// assert!(poly_rq_mul(&a[..508], &b[..508], &mut c[..508]).is_err());
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_rq_mul(a: &[u16], b: &[u16], out: &mut [u16]) -> Result<()> {
    let p = check_product(a, b, out)?;
    default_backend().mul(p, a, b, out);
    Ok(())
}

/// [`poly_rq_mul`] with the multiplier chosen explicitly: the best one this CPU runs that is not
/// above `isa` (so `Isa::Scalar` runs the schoolbook reference). Returns the one that ran.
/// Ignores `LATPOLY_ISA`. Every multiplier returns the same result.
///
/// ```
/// use latpoly::{Isa, rings::ntru::poly_rq_mul_isa};
///
/// let a: Vec<u16> = (0..677).map(|i| (i * i) as u16).collect();
/// let b: Vec<u16> = (0..677).map(|i| (3 * i + 1) as u16).collect();
/// let (mut r, mut f) = (vec![0u16; 677], vec![0u16; 677]);
/// assert_eq!(poly_rq_mul_isa(Isa::Scalar, &a, &b, &mut r)?, Isa::Scalar);
/// let used = poly_rq_mul_isa(Isa::Avx512, &a, &b, &mut f)?;
/// assert!(used <= Isa::Avx512);
/// assert_eq!(r, f);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_rq_mul_isa(isa: Isa, a: &[u16], b: &[u16], out: &mut [u16]) -> Result<Isa> {
    let p = check_product(a, b, out)?;
    let backend = Backend::best(isa);
    backend.mul(p, a, b, out);
    Ok(backend.isa())
}

/// `out = a · b` in `R_q = Z_q[x]/(x^n - 1)`, coefficients in `[0, q)` (`q` the modulus of
/// the parameter set of degree `n`): [`poly_rq_mul`]'s result masked with `q - 1`.
///
/// This is the product the KEMs need (every NTRU routine reads products mod `q`), and the
/// contract of PQClean's AVX2 `poly_Rq_mul`. It runs a different multiplier from
/// [`poly_rq_mul`]: Toom-Cook 4-way, exact mod `2^13` only (its interpolation divides by 2
/// three times, which `2^16` arithmetic cannot undo), over Karatsuba (a third fewer leaf
/// multiplications) or, on the AVX-512 backend of a CPU with AVX-512 VNNI (not AMD Zen 4),
/// over schoolbook point products on `vpdpwssd`. Same length rules as
/// [`poly_rq_mul`]; same backend choice ([`rq_mul_isa`]).
///
/// ```
/// use latpoly::rings::ntru::{poly_rq_mul, poly_rq_mul_modq};
///
/// let n = 701; // ntruhrss701, q = 8192
/// let a: Vec<u16> = (0..n).map(|i| (i * 7919) as u16).collect();
/// let b: Vec<u16> = (0..n).map(|i| (i * i + 3) as u16).collect();
/// let (mut exact, mut modq) = (vec![0u16; n], vec![0u16; n]);
/// poly_rq_mul(&a, &b, &mut exact)?;
/// poly_rq_mul_modq(&a, &b, &mut modq)?;
/// assert!(exact.iter().zip(&modq).all(|(&e, &m)| e & 8191 == m));
/// assert!(poly_rq_mul_modq(&a[..700], &b[..700], &mut modq[..700]).is_err());
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_rq_mul_modq(a: &[u16], b: &[u16], out: &mut [u16]) -> Result<()> {
    let p = check_product(a, b, out)?;
    default_backend().mul_modq(p, a, b, out, p.q());
    Ok(())
}

/// [`poly_rq_mul_modq`] with the multiplier chosen explicitly, as [`poly_rq_mul_isa`]: the best
/// one this CPU runs that is not above `isa` (`Isa::Scalar`: the schoolbook reference, masked).
/// Returns the one that ran; every multiplier returns the same result.
///
/// ```
/// use latpoly::{Isa, rings::ntru::poly_rq_mul_modq_isa};
///
/// let a: Vec<u16> = (0..821).map(|i| (i * i) as u16).collect();
/// let b: Vec<u16> = (0..821).map(|i| (5 * i + 1) as u16).collect();
/// let (mut r, mut f) = (vec![0u16; 821], vec![0u16; 821]);
/// assert_eq!(poly_rq_mul_modq_isa(Isa::Scalar, &a, &b, &mut r)?, Isa::Scalar);
/// poly_rq_mul_modq_isa(Isa::Avx512, &a, &b, &mut f)?;
/// assert_eq!(r, f);
/// assert!(r.iter().all(|&x| x < 4096));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_rq_mul_modq_isa(isa: Isa, a: &[u16], b: &[u16], out: &mut [u16]) -> Result<Isa> {
    let p = check_product(a, b, out)?;
    let backend = Backend::best(isa);
    backend.mul_modq(p, a, b, out, p.q());
    Ok(backend.isa())
}

/// `out = a · b mod (Phi_n)`, computed mod `2^16`: [`poly_rq_mul`] followed by
/// [`poly_mod_q_phi_n`] (`out[i] -= out[n-1]`, so `out[n-1] = 0`), as the reference
/// `poly_Sq_mul`. Same length rules as [`poly_rq_mul`].
///
/// ```
/// use latpoly::rings::ntru::poly_sq_mul;
///
/// let n = 509;
/// let mut a = vec![0u16; n];
/// a[n - 1] = 1; // x^(n-1) = -(1 + x + ... + x^(n-2)) mod Phi_n
/// let mut one = vec![0u16; n];
/// one[0] = 1;
/// let mut c = vec![0u16; n];
/// poly_sq_mul(&a, &one, &mut c)?;
/// assert!(c[..n - 1].iter().all(|&x| x == 0xffff) && c[n - 1] == 0);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_sq_mul(a: &[u16], b: &[u16], out: &mut [u16]) -> Result<()> {
    poly_rq_mul(a, b, out)?;
    reference::mod_q_phi_n(out);
    Ok(())
}

/// `out = a · b mod (3, Phi_n)` with coefficients in `{0, 1, 2}`, as the reference
/// `poly_S3_mul` (jschanck/ntru `ref-common`, and the unit vectors): [`poly_rq_mul`] (mod
/// `2^16`) followed directly by [`poly_mod_3_phi_n`]. (PQClean's `clean` variant masks with
/// `q - 1` in between; the two agree whenever the product's coefficients are below `q`, e.g. for
/// ternary inputs with `n < q/4`.) Same length rules as [`poly_rq_mul`].
///
/// ```
/// use latpoly::rings::ntru::poly_s3_mul;
///
/// let n = 701;
/// let mut a = vec![0u16; n];
/// a[0] = 2; // -1
/// let mut b = vec![0u16; n];
/// b[3] = 2; // -x^3
/// let mut c = vec![0u16; n];
/// poly_s3_mul(&a, &b, &mut c)?;
/// assert_eq!(c[3], 1); // (-1)(-x^3) = x^3
/// assert_eq!(c.iter().map(|&x| x as u32).sum::<u32>(), 1);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_s3_mul(a: &[u16], b: &[u16], out: &mut [u16]) -> Result<()> {
    poly_rq_mul(a, b, out)?;
    reference::mod_3_phi_n(out);
    Ok(())
}

/// Products and inverse for the KEMs, which read every result mod `q` (or, for `S_3`, take
/// inputs in `{0, 1, 2}`): the Toom-4 multiplier of [`poly_rq_mul_modq`], and on AVX-512 CPUs
/// the byte convolutions of `amx.rs` (with AMX-INT8) or `vnni.rs` (with VNNI) for the `S_3`
/// product and the first Newton steps of the inverse. Lengths must be `params.n()` (checked by the callers' decoders;
/// debug-asserted here).
#[cfg(test)]
pub(crate) use fast::workspace_is_clear;

pub(crate) mod kem {
    pub(crate) use super::fast::WorkspaceWipe;
    pub(crate) use super::toom::Operand;
    use super::{default_backend, reference, NtruParams};

    fn check(p: NtruParams, lens: &[usize]) {
        debug_assert!(lens.iter().all(|&l| l == p.n()));
    }

    /// `body.run()` compiled with the vector features of this process's NTRU backend, so that
    /// the KEMs' element-wise code between the ring calls (the conversions between `Z_3` and
    /// `Z_q`, the reductions mod `Phi_n`, the lift, the checks) is vectorised with that
    /// backend's registers rather than the baseline's SSE2 ([`crate::vectorised`]). The ring
    /// calls whose loops should be compiled there (`poly_lift`, `poly_z3_to_zq`,
    /// `poly_rq_to_s3`, `poly_trinary_zq_to_z3`, [`s3_mul`] and [`sq_mul`] with their folds)
    /// are `#[inline(always)]`: with several callers the compiler kept them out of line.
    pub(crate) fn vectorised<B: crate::vectorised::Vectorised>(body: B) -> B::Out {
        crate::vectorised::run(default_backend().isa(), body)
    }

    /// `out = a · b` in `R_q`, coefficients in `[0, q)`.
    pub(crate) fn rq_mul(p: NtruParams, a: &[u16], b: &[u16], out: &mut [u16]) {
        check(p, &[a.len(), b.len(), out.len()]);
        default_backend().mul_modq(p, a, b, out, p.q());
    }

    /// [`rq_mul`] of operands given as coefficients or prepared in a [`Prepared`] (of the same
    /// parameter set).
    pub(crate) fn rq_mul_ops(p: NtruParams, a: Operand<'_>, b: Operand<'_>, out: &mut [u16]) {
        check(p, &[out.len()]);
        default_backend().mul_modq_ops(p, a, b, out, p.q());
    }

    /// `out ≡ a · b mod (q, Phi_n)` (as `poly_Sq_mul`, not reduced).
    #[inline(always)]
    pub(crate) fn sq_mul(p: NtruParams, a: &[u16], b: &[u16], out: &mut [u16]) {
        rq_mul(p, a, b, out);
        reference::mod_q_phi_n(out);
    }

    /// [`sq_mul`] of operands given as coefficients or prepared.
    #[inline(always)]
    pub(crate) fn sq_mul_ops(p: NtruParams, a: Operand<'_>, b: Operand<'_>, out: &mut [u16]) {
        rq_mul_ops(p, a, b, out);
        reference::mod_q_phi_n(out);
    }

    /// `poly_S3_mul` for `a`, `b` with coefficients in `{0, 1, 2}`: the integer product's
    /// coefficients are below `4 n < 2^13`, so the product mod `2^13` is exact (and so are
    /// the 32-bit sums of the AMX and VNNI convolutions, see `Backend::s3_mul_small`).
    #[inline(always)]
    pub(crate) fn s3_mul(p: NtruParams, a: &[u16], b: &[u16], out: &mut [u16]) {
        check(p, &[a.len(), b.len(), out.len()]);
        default_backend().s3_mul_small(p, a, b, out);
    }

    /// Slots for operands prepared once and multiplied several times (the evaluated,
    /// transposed leaves of the Toom-4 multiplier on the SIMD backends, or its seven evaluated
    /// points with `toom_vnni.rs`; the coefficients on the scalar backend) in caller-provided memory, which holds secrets: the KEMs take it from
    /// their wiped scratch.
    pub(crate) struct Prepared<'a> {
        p: NtruParams,
        len: usize,
        buf: &'a mut [u16],
    }

    impl<'a> Prepared<'a> {
        /// Length (`u16`) of one slot for the parameter set `p`.
        pub(crate) fn slot_len(p: NtruParams) -> usize {
            default_backend().prepared_len(p)
        }

        /// Slots in `buf` (`buf.len() / slot_len(p)` of them) for the parameter set `p`.
        pub(crate) fn new(p: NtruParams, buf: &'a mut [u16]) -> Self {
            Prepared {
                p,
                len: Self::slot_len(p),
                buf,
            }
        }

        /// Prepares `a` (`n` coefficients) into slot `i`.
        pub(crate) fn set(&mut self, i: usize, a: &[u16]) {
            check(self.p, &[a.len()]);
            let dst = &mut self.buf[i * self.len..(i + 1) * self.len];
            default_backend().prepare(self.p, a, dst);
        }

        /// The operand in slot `i` (as last [`Prepared::set`]).
        pub(crate) fn get(&self, i: usize) -> Operand<'_> {
            Operand::Prepared(&self.buf[i * self.len..(i + 1) * self.len])
        }
    }

    /// Scratch length (`u16`) of [`rq_inv`]: three prepared slots and two polynomials.
    pub(crate) fn rq_inv_scratch_len(p: NtruParams) -> usize {
        3 * Prepared::slot_len(p) + 2 * p.n()
    }

    /// `out ≡ a^-1 mod (q, Phi_n)` (as `poly_Rq_inv`; correct mod `q`, not mod `2^16`), with
    /// `scratch` of [`rq_inv_scratch_len`] elements (left holding secrets: the caller wipes it).
    ///
    /// The inverse mod 2 lifted by Newton steps in `Z_{2^13}[x]/(x^n - 1)` (the products are
    /// exact mod `2^13`). For `q <= 2^12` (the HPS sets) three steps of precision `1 -> 2 -> 4
    /// -> 12` bits take seven products, the reference's four quadratic steps `1 -> 16` eight:
    /// two quadratic steps `r <- r (2 - a r)` and one cubic step `r <- r (1 + e + e^2)` with
    /// `e = 1 - a r` (then `a r = (1 - e)(1 + e + e^2) = 1 - e^3`). `ntruhrss701` (`q = 2^13`)
    /// takes four quadratic steps (`1 -> 16` bits), as the reference. `-a` is prepared once
    /// for all steps and each step's `r` once for its two products ([`Prepared`]). On the
    /// AVX-512 backend the quadratic steps to at most 8 bits (2 and 4, and 8 for
    /// `ntruhrss701`) multiply mod `2^8` instead (exact there): as AMX tile convolutions
    /// (`amx.rs`) where the CPU has them, every degree; otherwise with VNNI (`vnni.rs`), all
    /// degrees but 509, where the Toom-4 products are the faster. Every
    /// product is in `R_q`, so the result is the same element of `S_q` as the reference's (the
    /// KEMs read it through products with `f` and `g`; the KAT tests check the keys byte for
    /// byte).
    pub(crate) fn rq_inv(p: NtruParams, a: &[u16], out: &mut [u16], scratch: &mut [u16]) {
        check(p, &[a.len(), out.len()]);
        let n = p.n();
        let backend = default_backend();
        let (polys, slots) = scratch[..rq_inv_scratch_len(p)].split_at_mut(2 * n);
        let (c, e2) = polys.split_at_mut(n);
        backend.r2_inv(a, out);
        let mul = |x: Operand<'_>, y: Operand<'_>, z: &mut [u16]| {
            backend.mul_modq_ops(p, x, y, z, 1 << 13)
        };
        // -a (in e2 until the cubic step)
        for (x, &y) in e2.iter_mut().zip(a) {
            *x = y.wrapping_neg();
        }
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut quadratic_steps = if p.log_q() > 12 { 4 } else { 2 };
        // The quadratic steps to a precision of at most 8 bits (to 2 and 4 bits, and to 8 for
        // ntruhrss701) need their products mod 2^8 only: VNNI convolutions where the backend
        // has them (`vnni.rs`), one instruction per 64 byte products. Not for n = 509, where
        // the Toom-4 products with prepared operands were the faster (the whole inverse
        // 7.7-9.8 µs against 8.3-10.1; at 677, 701 and 821 the convolutions took it from
        // 18.7-24.5 to 15.6-19.5, 21.1-21.3 to 17.0-17.1 and 24.9 to 21.5 µs), and still are
        // no slower with the VNNI Toom-4 product (`toom_vnni.rs`: ntruhps2048509 key generation
        // 25.8-26.4 µs either way, thirtieth session). AMX tile convolutions (`amx.rs`) run
        // them at every degree: ntruhps2048509 key generation 21.9 -> 20.4-21.2 µs, 677
        // 41.1-41.6 -> 33.4-34.8 (fifty-first session, Intel Xeon, with the `S_3` product).
        #[cfg(target_arch = "x86_64")]
        if let Some(m) = super::Mod256::of(backend, p) {
            let early = if p.log_q() > 12 { 3 } else { 2 };
            for _ in 0..early {
                m.mul(e2, out, c);
                c[0] = c[0].wrapping_add(2); // 2 - a r
                m.mul_assign(c, out);
            }
            quadratic_steps -= early;
        }
        // slots: -a, r, e
        let mut ops = Prepared::new(p, slots);
        ops.set(0, e2);
        for _ in 0..quadratic_steps {
            ops.set(1, out);
            mul(ops.get(1), ops.get(0), c);
            c[0] = c[0].wrapping_add(2); // 2 - a r
            mul(Operand::Coeffs(c), ops.get(1), out);
        }
        if p.log_q() > 12 {
            return;
        }
        // one cubic step: 4 -> 12 bits
        ops.set(1, out);
        mul(ops.get(1), ops.get(0), c);
        c[0] = c[0].wrapping_add(1); // e = 1 - a r
        ops.set(2, c);
        mul(ops.get(2), ops.get(2), e2);
        for (x, &y) in e2.iter_mut().zip(c.iter()) {
            *x = x.wrapping_add(y); // e + e^2
        }
        e2[0] = e2[0].wrapping_add(1); // 1 + e + e^2
        mul(Operand::Coeffs(e2), ops.get(1), out);
    }
}

/// Checks `len(x) == params.n()` for every slice length given.
fn check_n(p: NtruParams, lens: &[usize]) -> Result<()> {
    for &l in lens {
        check_len(p.n(), l)?;
    }
    Ok(())
}

/// `out = a^-1 mod (2, Phi_n)`, coefficients in `{0, 1}`, `out[n-1] = 0`: the reference
/// `poly_R2_inv`. The input is read mod 2 (`(a[i] ^ a[n-1]) & 1`, i.e. already reduced mod
/// `Phi_n`). If `a` is not invertible (`a = 0` in `S_2`, a field for the NTRU degrees) the
/// output is `0`, as the reference returns; no error is reported, as in the reference. Constant
/// time: the reference's divsteps (bit-sliced) on the scalar backend and on CPUs without
/// `PCLMULQDQ`, otherwise an exponentiation `a^(2^(n-1) - 2)` with carry-less products (same
/// output for every input, checked against the divsteps in the tests).
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let a: Vec<u16> = (0..p.n()).map(|i| (i % 3 == 0) as u16).collect();
/// let mut inv = vec![0u16; p.n()];
/// ntru::poly_r2_inv(&a, p, &mut inv)?;
/// let mut c = vec![0u16; p.n()];
/// ntru::poly_sq_mul(&a, &inv, &mut c)?;
/// assert_eq!(c[0] & 1, 1);
/// assert!(c[1..].iter().all(|&x| x & 1 == 0));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_r2_inv(a: &[u16], params: NtruParams, out: &mut [u16]) -> Result<()> {
    check_n(params, &[a.len(), out.len()])?;
    default_backend().r2_inv(a, out);
    Ok(())
}

/// `out = a^-1 mod (2^16, Phi_n)` (so also mod `(q, Phi_n)`), as the reference `poly_Rq_inv`:
/// [`poly_r2_inv`], then four Newton steps `r = r · (2 - a · r)` with [`poly_rq_mul`]. Outputs
/// are not reduced mod `q`. Constant time; for non-invertible `a` the output is what the
/// reference returns.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps4096821;
/// let mut a = vec![0u16; p.n()];
/// a[0] = 1;
/// a[5] = 4095; // 1 - x^5
/// a[7] = 2;
/// let mut inv = vec![0u16; p.n()];
/// ntru::poly_rq_inv(&a, p, &mut inv)?;
/// let mut c = vec![0u16; p.n()];
/// ntru::poly_sq_mul(&a, &inv, &mut c)?;
/// let q1 = p.q() - 1;
/// assert!(c.iter().enumerate().all(|(i, &x)| x & q1 == (i == 0) as u16));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_rq_inv(a: &[u16], params: NtruParams, out: &mut [u16]) -> Result<()> {
    check_n(params, &[a.len(), out.len()])?;
    let mut ai = vec![0u16; params.n()];
    let backend = default_backend();
    backend.r2_inv(a, &mut ai);
    reference::r2_inv_to_rq_inv(&ai, a, out, &|x, y, z| backend.mul(params, x, y, z));
    Ok(())
}

/// `out = a^-1 mod (3, Phi_n)`, coefficients in `{0, 1, 2}`, `out[n-1] = 0`: the reference
/// `poly_S3_inv` (constant-time divstep over GF(3)). The input is read as `a[i] & 3` with `3`
/// counting as `0`, reduced mod `Phi_n`. For non-invertible `a` the output is what the reference
/// returns.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hrss701;
/// let a: Vec<u16> = (0..p.n()).map(|i| ((i * i + 1) % 3) as u16).collect();
/// let mut inv = vec![0u16; p.n()];
/// ntru::poly_s3_inv(&a, p, &mut inv)?;
/// let mut c = vec![0u16; p.n()];
/// ntru::poly_s3_mul(&a, &inv, &mut c)?;
/// assert!(c.iter().enumerate().all(|(i, &x)| x == (i == 0) as u16));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_s3_inv(a: &[u16], params: NtruParams, out: &mut [u16]) -> Result<()> {
    check_n(params, &[a.len(), out.len()])?;
    default_backend().s3_inv(a, out);
    Ok(())
}

/// `out = Lift(a)`, the reference `poly_lift`. HPS: `a` mapped by [`poly_z3_to_zq`]
/// (`{0, 1, 2} -> {0, 1, q - 1}`). HRSS: `(x - 1) · (a / (x - 1) mod (3, Phi_n))` with
/// coefficients in `{0, 1, q - 1}` before the product by `x - 1` (the result is in `u16`, not
/// reduced mod `q`).
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let mut m = vec![0u16; p.n()];
/// m[0] = 1;
/// m[1] = 2;
/// let mut r = vec![0u16; p.n()];
/// ntru::poly_lift(&m, p, &mut r)?;
/// assert_eq!(&r[..3], &[1, 2047, 0]);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[inline(always)]
pub fn poly_lift(a: &[u16], params: NtruParams, out: &mut [u16]) -> Result<()> {
    check_n(params, &[a.len(), out.len()])?;
    if params.is_hrss() {
        default_backend().lift_hrss(a, out, params.q());
    } else {
        reference::lift_hps(a, out, params.q());
    }
    Ok(())
}

/// In place, `r[i] = r[i] | (-(r[i] >> 1) & (q - 1))`: maps `{0, 1, 2}` to `{0, 1, q - 1}`, as
/// the reference `poly_Z3_to_Zq` (other values are transformed by the same formula).
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hrss701;
/// let mut r: Vec<u16> = (0..p.n()).map(|i| (i % 3) as u16).collect();
/// ntru::poly_z3_to_zq(&mut r, p)?;
/// assert_eq!(&r[..3], &[0, 1, 8191]);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[inline(always)]
pub fn poly_z3_to_zq(r: &mut [u16], params: NtruParams) -> Result<()> {
    check_n(params, &[r.len()])?;
    reference::z3_to_zq(r, params.q());
    Ok(())
}

/// In place, `t = r[i] mod q; r[i] = 3 & (t ^ (t >> (log_q - 1)))`: maps `{0, 1, q - 1}` to
/// `{0, 1, 2}`, as the reference `poly_trinary_Zq_to_Z3` (other values give `0..=3`).
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048677;
/// let mut r = vec![0u16; p.n()];
/// r[1] = 1;
/// r[2] = 2047;
/// r[3] = 0xffff; // -1 mod 2^16 is also q - 1 mod q
/// ntru::poly_trinary_zq_to_z3(&mut r, p)?;
/// assert_eq!(&r[..4], &[0, 1, 2, 2]);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[inline(always)]
pub fn poly_trinary_zq_to_z3(r: &mut [u16], params: NtruParams) -> Result<()> {
    check_n(params, &[r.len()])?;
    reference::trinary_zq_to_z3(r, params.q(), params.log_q());
    Ok(())
}

/// `out = a mod (3, Phi_n)` with `a` read mod `q` and centred in `[-q/2, q/2)`: the reference
/// `poly_Rq_to_S3`. Coefficients of `out` are in `{0, 1, 2}`.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let mut a = vec![0u16; p.n()];
/// a[0] = 2047; // -1 mod q
/// a[1] = 4;
/// let mut r = vec![0u16; p.n()];
/// ntru::poly_rq_to_s3(&a, p, &mut r)?;
/// assert_eq!(&r[..3], &[2, 1, 0]);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[inline(always)]
pub fn poly_rq_to_s3(a: &[u16], params: NtruParams, out: &mut [u16]) -> Result<()> {
    check_n(params, &[a.len(), out.len()])?;
    reference::rq_to_s3(a, out, params.q(), params.log_q());
    Ok(())
}

/// In place, `r[i] = (r[i] + 2 r[n-1]) mod 3` (the sum taken mod `2^16` first): the reference
/// `poly_mod_3_Phi_n`, reducing mod `(3, Phi_n)`; `r[n-1]` becomes 0.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let mut r = vec![4u16; p.n()];
/// r[0] = 7;
/// ntru::poly_mod_3_phi_n(&mut r, p)?;
/// assert_eq!((r[0], r[1], r[p.n() - 1]), (0, 0, 0)); // 7 + 8 = 15, 4 + 8 = 12
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_mod_3_phi_n(r: &mut [u16], params: NtruParams) -> Result<()> {
    check_n(params, &[r.len()])?;
    reference::mod_3_phi_n(r);
    Ok(())
}

/// In place, `r[i] = r[i] - r[n-1]` mod `2^16`: the reference `poly_mod_q_Phi_n`, reducing
/// mod `Phi_n` (not mod `q`); `r[n-1]` becomes 0.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let mut r = vec![5u16; p.n()];
/// r[0] = 2;
/// ntru::poly_mod_q_phi_n(&mut r, p)?;
/// assert_eq!((r[0], r[1], r[p.n() - 1]), (0xfffd, 0, 0));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_mod_q_phi_n(r: &mut [u16], params: NtruParams) -> Result<()> {
    check_n(params, &[r.len()])?;
    reference::mod_q_phi_n(r);
    Ok(())
}

/// Packs `a[0..n-1]`, each reduced mod `q`, as `log_q`-bit little-endian fields into
/// `out` of [`NtruParams::sq_bytes`] bytes (`a[n-1]` is not packed): the reference
/// `poly_Sq_tobytes`.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let mut a = vec![0u16; p.n()];
/// a[0] = 0x7ff;
/// a[1] = 0x801; // reduced to 1
/// let mut bytes = vec![0u8; p.sq_bytes()];
/// ntru::poly_sq_tobytes(&a, p, &mut bytes)?;
/// assert_eq!(&bytes[..3], &[0xff, 0x0f, 0x00]);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_sq_tobytes(a: &[u16], params: NtruParams, out: &mut [u8]) -> Result<()> {
    check_n(params, &[a.len()])?;
    check_len(params.sq_bytes(), out.len())?;
    default_backend().sq_tobytes(a, out, params.log_q());
    Ok(())
}

/// Unpacks [`NtruParams::sq_bytes`] bytes into `out[0..n-1]` (values `< q`) and sets
/// `out[n-1] = 0`: the reference `poly_Sq_frombytes`. Unused high bits of the last byte are
/// ignored.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps4096821;
/// let mut bytes = vec![0u8; p.sq_bytes()];
/// bytes[0] = 0x21;
/// bytes[1] = 0x43;
/// let mut a = vec![0u16; p.n()];
/// ntru::poly_sq_frombytes(&bytes, p, &mut a)?;
/// assert_eq!(&a[..2], &[0x321, 0x004]);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_sq_frombytes(bytes: &[u8], params: NtruParams, out: &mut [u16]) -> Result<()> {
    check_len(params.sq_bytes(), bytes.len())?;
    check_n(params, &[out.len()])?;
    default_backend().sq_frombytes(bytes, out, params.log_q());
    Ok(())
}

/// Packs a polynomial whose coefficients sum to zero mod `q` (only `a[0..n-1]` are stored):
/// the reference `poly_Rq_sum_zero_tobytes`, identical to [`poly_sq_tobytes`].
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hrss701;
/// let mut a = vec![0u16; p.n()];
/// a[0] = 5;
/// a[p.n() - 1] = p.q() - 5;
/// let mut bytes = vec![0u8; p.sq_bytes()];
/// ntru::poly_rq_sum_zero_tobytes(&a, p, &mut bytes)?;
/// let mut back = vec![0u16; p.n()];
/// ntru::poly_rq_sum_zero_frombytes(&bytes, p, &mut back)?;
/// assert_eq!(back[0], 5);
/// assert_eq!(back[p.n() - 1] & (p.q() - 1), p.q() - 5);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_rq_sum_zero_tobytes(a: &[u16], params: NtruParams, out: &mut [u8]) -> Result<()> {
    poly_sq_tobytes(a, params, out)
}

/// Unpacks like [`poly_sq_frombytes`], then sets `out[n-1] = -(out[0] + ... + out[n-2])`
/// mod `2^16` (not reduced mod `q`), as the reference `poly_Rq_sum_zero_frombytes`.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let mut bytes = vec![0u8; p.sq_bytes()];
/// bytes[0] = 3;
/// let mut a = vec![0u16; p.n()];
/// ntru::poly_rq_sum_zero_frombytes(&bytes, p, &mut a)?;
/// assert_eq!((a[0], a[p.n() - 1]), (3, 0xfffd));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_rq_sum_zero_frombytes(bytes: &[u8], params: NtruParams, out: &mut [u16]) -> Result<()> {
    check_len(params.sq_bytes(), bytes.len())?;
    check_n(params, &[out.len()])?;
    default_backend().sq_frombytes(bytes, out, params.log_q());
    reference::set_sum_zero_last(out);
    Ok(())
}

/// Packs `a[0..n-1]` five per byte (`c = a[5i+4]; c = 3c + a[5i+3]; ...`, each step mod 256)
/// into [`NtruParams::s3_bytes`] bytes: the reference `poly_S3_tobytes`. Coefficients are
/// expected in `{0, 1, 2}` but are used as given.
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let mut a = vec![0u16; p.n()];
/// a[..5].copy_from_slice(&[1, 2, 0, 0, 1]); // 1 + 2·3 + 81 = 88
/// let mut bytes = vec![0u8; p.s3_bytes()];
/// ntru::poly_s3_tobytes(&a, p, &mut bytes)?;
/// assert_eq!(bytes[0], 88);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_s3_tobytes(a: &[u16], params: NtruParams, out: &mut [u8]) -> Result<()> {
    check_n(params, &[a.len()])?;
    check_len(params.s3_bytes(), out.len())?;
    default_backend().s3_tobytes(a, out);
    Ok(())
}

/// Unpacks [`NtruParams::s3_bytes`] bytes into base-3 digits, sets `out[n-1] = 0` and reduces
/// with [`poly_mod_3_phi_n`]: the reference `poly_S3_frombytes` (any byte value is accepted).
///
/// ```
/// use latpoly::rings::ntru::{self, NtruParams};
///
/// let p = NtruParams::Hps2048509;
/// let mut bytes = vec![0u8; p.s3_bytes()];
/// bytes[0] = 88;
/// let mut a = vec![0u16; p.n()];
/// ntru::poly_s3_frombytes(&bytes, p, &mut a)?;
/// assert_eq!(&a[..6], &[1, 2, 0, 0, 1, 0]);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn poly_s3_frombytes(bytes: &[u8], params: NtruParams, out: &mut [u16]) -> Result<()> {
    check_len(params.s3_bytes(), bytes.len())?;
    check_n(params, &[out.len()])?;
    default_backend().s3_frombytes(bytes, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Products of prepared operands (`Backend::prepare`, as the KEMs' key generation and
    /// inverse use them) equal the schoolbook product mod `2^13` and mod `q` on every backend
    /// this CPU runs, for every mix of prepared and plain operands, a squaring of one prepared
    /// slot, all-zero, all-`q - 1`, all-`2^16 - 1` and random inputs; slots start full of junk.
    #[test]
    fn prepared_operands_match_the_schoolbook_product() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Avx512Ifma: the AVX-512 backend with the AMX products where the CPU has them
        for isa in [Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Ifma] {
            let backend = Backend::best(isa);
            #[cfg(target_arch = "x86_64")]
            if isa == Isa::Avx512Ifma && backend.amx().is_none() {
                eprintln!("prepared operands: no AMX on this CPU, the avx512 case covers it");
                continue;
            }
            if backend.isa() != isa.min(Isa::Avx512) {
                eprintln!("prepared operands: {isa} not available on this CPU, skipped");
                continue;
            }
            for p in NtruParams::ALL {
                let n = p.n();
                let len = backend.prepared_len(p);
                let mut inputs: Vec<Vec<u16>> =
                    vec![vec![0; n], vec![p.q() - 1; n], vec![u16::MAX; n]];
                for _ in 0..4 {
                    inputs.push((0..n).map(|_| next() as u16).collect());
                }
                for (i, a) in inputs.iter().enumerate() {
                    let b = &inputs[(i * 3 + 1) % inputs.len()];
                    let mut want = vec![0u16; n];
                    reference::rq_mul(a, b, &mut want);
                    let mut square = vec![0u16; n];
                    reference::rq_mul(a, a, &mut square);
                    let mut pa = vec![0xdeadu16; len];
                    let mut pb = vec![0xbeefu16; len];
                    backend.prepare(p, a, &mut pa);
                    backend.prepare(p, b, &mut pb);
                    for m in [1u16 << 13, p.q()] {
                        let masked = |v: &[u16]| v.iter().map(|&x| x & (m - 1)).collect::<Vec<_>>();
                        let cases = [
                            (Operand::Prepared(&pa), Operand::Prepared(&pb), &want),
                            (Operand::Prepared(&pa), Operand::Coeffs(b), &want),
                            (Operand::Coeffs(a), Operand::Prepared(&pb), &want),
                            (Operand::Coeffs(a), Operand::Coeffs(b), &want),
                            (Operand::Prepared(&pa), Operand::Prepared(&pa), &square),
                        ];
                        for (k, (x, y, expect)) in cases.into_iter().enumerate() {
                            let mut out = vec![0x5a5au16; n];
                            backend.mul_modq_ops(p, x, y, &mut out, m);
                            assert_eq!(
                                out,
                                masked(expect),
                                "{isa} {p:?} input {i} case {k} mod {m}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The lane-sliced multipliers that the AVX-512 backend passes over on CPUs with VNNI
    /// (`toom_vnni.rs` runs instead) stay checked on such CPUs: the exact Karatsuba product
    /// and the Toom-4 product mod `2^13` (plain and prepared operands) with 32 and 16 lanes
    /// (the latter compiled for AVX2 and, where the CPU has it, with AVX-512VL), against the
    /// schoolbook product, every degree.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn lane_sliced_multipliers_match_the_schoolbook_product() {
        fn check<T: fast::Lanes>(t: T, name: &str) {
            use rand::{Rng, SeedableRng};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(30);
            for p in NtruParams::ALL {
                let n = p.n();
                let mut inputs: Vec<Vec<u16>> = vec![vec![u16::MAX; n], vec![0x8000; n]];
                for _ in 0..3 {
                    inputs.push((0..n).map(|_| rng.gen()).collect());
                }
                for (i, a) in inputs.iter().enumerate() {
                    let b = &inputs[(i + 2) % inputs.len()];
                    let mut want = vec![0u16; n];
                    reference::rq_mul(a, b, &mut want);
                    let mut out = vec![0x5a5au16; n];
                    fast::rq_mul(t, p, a, b, &mut out);
                    assert_eq!(out, want, "{name} exact {p:?} input {i}");
                    let mask = |v: &[u16]| v.iter().map(|&x| x & 0x1fff).collect::<Vec<_>>();
                    let mut square = vec![0u16; n];
                    reference::rq_mul(a, a, &mut square);
                    let (masked, square) = (mask(&want), mask(&square));
                    let len = toom::prepared_len_for(t, p);
                    let (mut pa, mut pb) = (vec![0xdeadu16; len], vec![0xbeefu16; len]);
                    toom::prepare(t, p, a, &mut pa);
                    toom::prepare(t, p, b, &mut pb);
                    let (ca, cb) = (Operand::Coeffs(a), Operand::Coeffs(b));
                    let (qa, qb) = (Operand::Prepared(&pa), Operand::Prepared(&pb));
                    let cases = [
                        (ca, cb, &masked),
                        (qa, cb, &masked),
                        (ca, qb, &masked),
                        (qa, qb, &masked),
                        (qa, qa, &square),
                    ];
                    for (k, (x, y, expect)) in cases.into_iter().enumerate() {
                        let mut out = vec![0x5a5au16; n];
                        toom::rq_mul_modq(t, p, x, y, &mut out, 1 << 13);
                        assert_eq!(&out, expect, "{name} Toom-4 {p:?} input {i} case {k}");
                    }
                }
            }
        }
        match x86::Avx512Lanes::try_new() {
            Some(t) => check(t, "avx512"),
            None => eprintln!("32 lanes: no AVX-512BW on this CPU, skipped"),
        }
        match x86::Avx2Lanes::try_new() {
            Some(t) => check(t, "avx2"),
            None => eprintln!("16 lanes: no AVX2 on this CPU, skipped"),
        }
        match x86::Avx2Lanes::evex() {
            Some(t) => check(t, "avx2 compiled with AVX-512VL"),
            None => eprintln!("16 lanes with AVX-512VL: not on this CPU, skipped"),
        }
    }

    /// The KEMs' inverse (two quadratic and one cubic Newton step for `q <= 2^12`, four quadratic
    /// ones for `q = 2^13`) inverts mod `(q, Phi_n)` and agrees there with the reference
    /// `poly_Rq_inv`, for random inputs of every parameter set and the edge inputs `1` and
    /// `x^(n-2)`.
    #[test]
    fn kem_inverse_inverts_and_matches_the_reference() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let params = [
            NtruParams::Hps2048509,
            NtruParams::Hps2048677,
            NtruParams::Hps4096821,
            NtruParams::Hrss701,
        ];
        for p in params {
            let (n, q) = (p.n(), p.q());
            let mut inputs: Vec<Vec<u16>> = Vec::new();
            let mut one = vec![0u16; n];
            one[0] = 1;
            inputs.push(one);
            let mut mono = vec![0u16; n];
            mono[n - 2] = 1;
            inputs.push(mono);
            for _ in 0..20 {
                // odd coefficient sum: nonzero mod (2, Phi_n), so invertible (S_2 is a field)
                let mut a: Vec<u16> = (0..n).map(|_| next() as u16 & (q - 1)).collect();
                let sum = a.iter().fold(0u16, |s, &x| s ^ (x & 1));
                a[0] ^= sum ^ 1;
                inputs.push(a);
            }
            for a in &inputs {
                let mut inv = vec![0u16; n];
                let mut scratch = vec![0xa5a5u16; kem::rq_inv_scratch_len(p)];
                kem::rq_inv(p, a, &mut inv, &mut scratch);
                let mut prod = vec![0u16; n];
                poly_sq_mul(a, &inv, &mut prod).unwrap();
                let want: Vec<u16> = (0..n).map(|i| u16::from(i == 0)).collect();
                let got: Vec<u16> = prod.iter().map(|&x| x & (q - 1)).collect();
                assert_eq!(got, want, "{p:?}: a · inv != 1 mod (q, Phi_n)");
                let mut reference = vec![0u16; n];
                poly_rq_inv(a, p, &mut reference).unwrap();
                let (mut x, mut y) = (inv.clone(), reference);
                reference::mod_q_phi_n(&mut x);
                reference::mod_q_phi_n(&mut y);
                assert!(
                    x.iter().zip(&y).all(|(&u, &v)| (u ^ v) & (q - 1) == 0),
                    "{p:?}: differs from poly_rq_inv mod (q, Phi_n)"
                );
            }
        }
    }
}
