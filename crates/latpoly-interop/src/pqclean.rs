//! PQClean's ring products, called in the static libraries that `pqcrypto-ntru` and
//! `pqcrypto-ntruprime` build for their KEMs:
//!
//! * NTRU `poly_Rq_mul` for `n` = 509, 677, 701, 821 ([`NtruRqMul`]): the cyclic product in
//!   `Z[x]/(x^n - 1)`, correct mod `q` (the AVX2 build's Toom-4 loses the top three bits of
//!   `2^16`, as latpoly's `poly_rq_mul_modq` does);
//! * sntrup761 `crypto_core_mult` (`R/q` x small, [`NtruPrimeMul::mul_rq_small`]) and
//!   `crypto_core_mult3` (`R/3` x `R/3`, [`NtruPrimeMul::mul_r3`]).
//!
//! Each wrapper owns the operand buffers in the layout PQClean reads (32-byte aligned, zero
//! padding to PQClean's padded lengths): [`NtruRqMul::set`] / [`NtruPrimeMul::set`] load the
//! operands, the product calls time PQClean's function alone (as `latpoly bench` wants), and the
//! result is read back afterwards. The AVX2 build runs only where the CPU has the features
//! PQClean compiles it with ([`Build::available`]); the portable `clean` build runs anywhere.

use std::fmt;

/// An operand of the wrong length: nothing was loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrongLength {
    /// The length the product takes.
    pub expected: usize,
    /// The length given.
    pub got: usize,
}

impl fmt::Display for WrongLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "operand of length {}, expected {}",
            self.got, self.expected
        )
    }
}

impl std::error::Error for WrongLength {}

/// `Ok` if every length is `expected`, else the first that is not.
fn check_lens(expected: usize, lens: &[usize]) -> Result<(), WrongLength> {
    match lens.iter().find(|&&l| l != expected) {
        Some(&got) => Err(WrongLength { expected, got }),
        None => Ok(()),
    }
}

/// Which of PQClean's builds a wrapper calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// The AVX2 implementation (x86-64 CPUs with AVX2, BMI1/2, POPCNT, AES-NI, PCLMULQDQ:
    /// PQClean compiles it with `-mavx2 -mbmi -mbmi2 -mpopcnt -maes -mpclmul`).
    Avx2,
    /// The portable C implementation.
    Clean,
}

impl Build {
    /// Whether this CPU runs the build.
    pub fn available(self) -> bool {
        match self {
            Build::Clean => true,
            Build::Avx2 => avx2_cpu(),
        }
    }

    /// The fastest build this CPU runs.
    pub fn best() -> Build {
        if Build::Avx2.available() {
            Build::Avx2
        } else {
            Build::Clean
        }
    }

    /// Every build this CPU runs, fastest first.
    pub fn all_available() -> Vec<Build> {
        [Build::Avx2, Build::Clean]
            .into_iter()
            .filter(|b| b.available())
            .collect()
    }

    /// `"AVX2"` or `"clean"`, as the bench table prints it.
    pub fn name(self) -> &'static str {
        match self {
            Build::Avx2 => "AVX2",
            Build::Clean => "clean",
        }
    }
}

impl fmt::Display for Build {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(target_arch = "x86_64")]
fn avx2_cpu() -> bool {
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("aes")
        && std::is_x86_feature_detected!("pclmulqdq")
}

#[cfg(not(target_arch = "x86_64"))]
fn avx2_cpu() -> bool {
    false
}

/// `PAD32(821)`: PQClean's padded length of the largest NTRU polynomial (the AVX2 code reads and
/// writes whole 32-coefficient blocks).
const NTRU_PAD: usize = 832;

/// One polynomial in PQClean's NTRU layout (`poly` of both builds: `uint16_t coeffs[...]`, the
/// AVX2 one 32-byte aligned for `vmovdqa`).
#[repr(C, align(32))]
struct NtruPoly([u16; NTRU_PAD]);

type NtruRqMulFn = unsafe extern "C" fn(r: *mut NtruPoly, a: *const NtruPoly, b: *const NtruPoly);

extern "C" {
    fn PQCLEAN_NTRUHPS2048509_CLEAN_poly_Rq_mul(
        r: *mut NtruPoly,
        a: *const NtruPoly,
        b: *const NtruPoly,
    );
    fn PQCLEAN_NTRUHPS2048677_CLEAN_poly_Rq_mul(
        r: *mut NtruPoly,
        a: *const NtruPoly,
        b: *const NtruPoly,
    );
    fn PQCLEAN_NTRUHRSS701_CLEAN_poly_Rq_mul(
        r: *mut NtruPoly,
        a: *const NtruPoly,
        b: *const NtruPoly,
    );
    fn PQCLEAN_NTRUHPS4096821_CLEAN_poly_Rq_mul(
        r: *mut NtruPoly,
        a: *const NtruPoly,
        b: *const NtruPoly,
    );
    fn PQCLEAN_SNTRUP761_CLEAN_crypto_core_multsntrup761(
        out: *mut u8,
        f: *const u8,
        g: *const u8,
    ) -> i32;
    fn PQCLEAN_SNTRUP761_CLEAN_crypto_core_mult3sntrup761(
        out: *mut u8,
        f: *const u8,
        g: *const u8,
    ) -> i32;
}

#[cfg(target_arch = "x86_64")]
extern "C" {
    fn PQCLEAN_NTRUHPS2048509_AVX2_poly_Rq_mul(
        r: *mut NtruPoly,
        a: *const NtruPoly,
        b: *const NtruPoly,
    );
    fn PQCLEAN_NTRUHPS2048677_AVX2_poly_Rq_mul(
        r: *mut NtruPoly,
        a: *const NtruPoly,
        b: *const NtruPoly,
    );
    fn PQCLEAN_NTRUHRSS701_AVX2_poly_Rq_mul(
        r: *mut NtruPoly,
        a: *const NtruPoly,
        b: *const NtruPoly,
    );
    fn PQCLEAN_NTRUHPS4096821_AVX2_poly_Rq_mul(
        r: *mut NtruPoly,
        a: *const NtruPoly,
        b: *const NtruPoly,
    );
    fn PQCLEAN_SNTRUP761_AVX2_crypto_core_multsntrup761(
        out: *mut u8,
        f: *const u8,
        g: *const u8,
    ) -> i32;
    fn PQCLEAN_SNTRUP761_AVX2_crypto_core_mult3sntrup761(
        out: *mut u8,
        f: *const u8,
        g: *const u8,
    ) -> i32;
}

/// The function of `build` for degree `n`; `None` for another `n`, or for the AVX2 build off
/// x86-64.
fn ntru_fn(n: usize, build: Build) -> Option<NtruRqMulFn> {
    match build {
        Build::Clean => match n {
            509 => Some(PQCLEAN_NTRUHPS2048509_CLEAN_poly_Rq_mul),
            677 => Some(PQCLEAN_NTRUHPS2048677_CLEAN_poly_Rq_mul),
            701 => Some(PQCLEAN_NTRUHRSS701_CLEAN_poly_Rq_mul),
            821 => Some(PQCLEAN_NTRUHPS4096821_CLEAN_poly_Rq_mul),
            _ => None,
        },
        #[cfg(target_arch = "x86_64")]
        Build::Avx2 => match n {
            509 => Some(PQCLEAN_NTRUHPS2048509_AVX2_poly_Rq_mul),
            677 => Some(PQCLEAN_NTRUHPS2048677_AVX2_poly_Rq_mul),
            701 => Some(PQCLEAN_NTRUHRSS701_AVX2_poly_Rq_mul),
            821 => Some(PQCLEAN_NTRUHPS4096821_AVX2_poly_Rq_mul),
            _ => None,
        },
        #[cfg(not(target_arch = "x86_64"))]
        Build::Avx2 => None,
    }
}

/// PQClean's NTRU `poly_Rq_mul` for one degree and build, with its operand and result buffers.
///
/// ```
/// use latpoly_interop::pqclean::{Build, NtruRqMul};
///
/// let mut m = NtruRqMul::new(509, Build::Clean).unwrap();
/// let (mut a, mut b) = (vec![0u16; 509], vec![0u16; 509]);
/// a[508] = 1; // x^508
/// b[2] = 1; // x^2
/// m.set(&a, &b)?;
/// m.multiply();
/// // x^510 = x mod x^509 - 1; PQClean's product is right mod q = 2048 only (Toom-4)
/// assert_eq!(m.result()[1] % 2048, 1);
/// assert!(m.result().iter().enumerate().all(|(i, &c)| c % 2048 == (i == 1) as u16));
/// assert!(m.set(&a[..508], &b).is_err()); // wrong length: nothing loaded
/// # Ok::<(), latpoly_interop::pqclean::WrongLength>(())
/// ```
pub struct NtruRqMul {
    n: usize,
    build: Build,
    f: NtruRqMulFn,
    a: Box<NtruPoly>,
    b: Box<NtruPoly>,
    r: Box<NtruPoly>,
}

impl NtruRqMul {
    /// The product for degree `n` (509, 677, 701 or 821) in `build`; `None` for another degree
    /// or a build this CPU does not run.
    pub fn new(n: usize, build: Build) -> Option<Self> {
        if !build.available() {
            return None;
        }
        let f = ntru_fn(n, build)?;
        let zero = || Box::new(NtruPoly([0; NTRU_PAD]));
        Some(NtruRqMul {
            n,
            build,
            f,
            a: zero(),
            b: zero(),
            r: zero(),
        })
    }

    /// The build this wrapper calls.
    pub fn build(&self) -> Build {
        self.build
    }

    /// Loads the operands (`n` coefficients each; the padding stays zero); an error, loading
    /// nothing, if a length is not `n`.
    pub fn set(&mut self, a: &[u16], b: &[u16]) -> Result<(), WrongLength> {
        check_lens(self.n, &[a.len(), b.len()])?;
        self.a.0[..self.n].copy_from_slice(a);
        self.b.0[..self.n].copy_from_slice(b);
        Ok(())
    }

    /// `result = a · b mod (x^n - 1)` on the loaded operands: PQClean's function alone.
    pub fn multiply(&mut self) {
        // SAFETY: `f` is PQClean's `poly_Rq_mul` for degree `n` (the pairing of `ntru_fn`); the
        // three buffers are distinct, 32-byte aligned and hold `PAD32(821) >= PAD32(n)`
        // coefficients, all initialised, which is what both builds read and write (`poly` is
        // `uint16_t coeffs[PAD32(N)]` in the AVX2 build, `[N]` in the clean one); the AVX2 build
        // is only chosen when `Build::available` saw every CPU feature it is compiled with.
        unsafe { (self.f)(&mut *self.r, &*self.a, &*self.b) }
    }

    /// The `n` coefficients of the last product (correct mod `q`; PQClean does not reduce them).
    pub fn result(&self) -> &[u16] {
        &self.r.0[..self.n]
    }
}

/// sntrup761's degree.
const P: usize = 761;

type CoreFn = unsafe extern "C" fn(out: *mut u8, f: *const u8, g: *const u8) -> i32;

/// PQClean's sntrup761 ring products (`crypto_core_mult` and `crypto_core_mult3`) in one build,
/// with their byte buffers (PQClean's `crypto_core` interface: `R/q` elements as 761
/// little-endian `int16`, small ones as 761 `int8`).
///
/// ```
/// use latpoly_interop::pqclean::{Build, NtruPrimeMul};
///
/// let mut m = NtruPrimeMul::new(Build::Clean).unwrap();
/// let mut a = vec![0i16; 761];
/// let mut s = vec![0i8; 761];
/// a[760] = 5; // 5 x^760
/// s[1] = -1; // -x
/// m.set(&a, &s)?;
/// m.mul_rq_small();
/// let c = m.rq_result();
/// // -5 x^761 = -5 (x + 1) mod x^761 - x - 1
/// assert_eq!((c[0], c[1]), (-5, -5));
/// # Ok::<(), latpoly_interop::pqclean::WrongLength>(())
/// ```
pub struct NtruPrimeMul {
    build: Build,
    mult: CoreFn,
    mult3: CoreFn,
    f: Vec<u8>,
    g: Vec<u8>,
    f3: Vec<u8>,
    out: Vec<u8>,
}

impl NtruPrimeMul {
    /// The products of `build`; `None` if this CPU does not run it.
    pub fn new(build: Build) -> Option<Self> {
        if !build.available() {
            return None;
        }
        let (mult, mult3): (CoreFn, CoreFn) = match build {
            Build::Clean => (
                PQCLEAN_SNTRUP761_CLEAN_crypto_core_multsntrup761,
                PQCLEAN_SNTRUP761_CLEAN_crypto_core_mult3sntrup761,
            ),
            #[cfg(target_arch = "x86_64")]
            Build::Avx2 => (
                PQCLEAN_SNTRUP761_AVX2_crypto_core_multsntrup761,
                PQCLEAN_SNTRUP761_AVX2_crypto_core_mult3sntrup761,
            ),
            #[cfg(not(target_arch = "x86_64"))]
            Build::Avx2 => return None,
        };
        Some(NtruPrimeMul {
            build,
            mult,
            mult3,
            f: vec![0; 2 * P],
            g: vec![0; P],
            f3: vec![0; P],
            out: vec![0; 2 * P],
        })
    }

    /// The build this wrapper calls.
    pub fn build(&self) -> Build {
        self.build
    }

    /// Loads the operands of [`NtruPrimeMul::mul_rq_small`]: `a` in `R/q` (761 coefficients, any
    /// `i16`: PQClean reduces them) and `s` small (761 coefficients in `{-1, 0, 1}`); an error,
    /// loading nothing, if a length is not 761.
    pub fn set(&mut self, a: &[i16], s: &[i8]) -> Result<(), WrongLength> {
        check_lens(P, &[a.len(), s.len()])?;
        for (d, &x) in self.f.chunks_exact_mut(2).zip(a) {
            d.copy_from_slice(&x.to_le_bytes());
        }
        for (d, &x) in self.g.iter_mut().zip(s) {
            *d = x as u8;
        }
        Ok(())
    }

    /// Loads the operands of [`NtruPrimeMul::mul_r3`]: `a`, `b` in `R/3` (761 coefficients in
    /// `{-1, 0, 1}` each); an error, loading nothing, if a length is not 761.
    pub fn set_r3(&mut self, a: &[i8], b: &[i8]) -> Result<(), WrongLength> {
        check_lens(P, &[a.len(), b.len()])?;
        for (d, &x) in self.f3.iter_mut().zip(a) {
            *d = x as u8;
        }
        for (d, &x) in self.g.iter_mut().zip(b) {
            *d = x as u8;
        }
        Ok(())
    }

    /// `crypto_core_mult`: the product `a · s` in `Z_4591[x]/(x^761 - x - 1)` of the operands
    /// of [`NtruPrimeMul::set`], read with [`NtruPrimeMul::rq_result`].
    pub fn mul_rq_small(&mut self) {
        // SAFETY: `mult` is PQClean's `crypto_core_multsntrup761`, which reads 1522 bytes of
        // `f` and 761 of `g` and writes 1522 to `out` (its OUTPUTBYTES / INPUTBYTES / KEYBYTES):
        // the buffers have exactly those lengths and do not overlap; the AVX2 build is only
        // chosen when `Build::available` saw every CPU feature it is compiled with.
        unsafe { (self.mult)(self.out.as_mut_ptr(), self.f.as_ptr(), self.g.as_ptr()) };
    }

    /// `crypto_core_mult3`: the product in `Z_3[x]/(x^761 - x - 1)` of the operands of
    /// [`NtruPrimeMul::set_r3`], read with [`NtruPrimeMul::r3_result`].
    pub fn mul_r3(&mut self) {
        // SAFETY: `mult3` is PQClean's `crypto_core_mult3sntrup761`, which reads 761 bytes of
        // each input and writes 761 to `out` (which has 1522); no overlap; the AVX2 build as
        // in `mul_rq_small`.
        unsafe { (self.mult3)(self.out.as_mut_ptr(), self.f3.as_ptr(), self.g.as_ptr()) };
    }

    /// The last [`NtruPrimeMul::mul_rq_small`] product: 761 coefficients in `[-2295, 2295]`.
    pub fn rq_result(&self) -> Vec<i16> {
        self.out
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect()
    }

    /// The last [`NtruPrimeMul::mul_r3`] product: 761 coefficients in `{-1, 0, 1}`.
    pub fn r3_result(&self) -> Vec<i8> {
        self.out[..P].iter().map(|&b| b as i8).collect()
    }
}
