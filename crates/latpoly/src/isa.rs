//! Instruction-set selection for the kernels.
//!
//! Every plan picks its backend once, at construction: the best one this CPU runs (detected at
//! run time) that is valid for its modulus and size, capped by the environment variable
//! `LATPOLY_ISA` if set. Order, best last: `scalar` < `avx2` < `avx512` < `avx512ifma`.
//!
//! * `avx512ifma` applies to 64-bit lanes with `q < 2^50` only; as a cap it is also the level
//!   that allows the NTRU KEMs' AMX tile products (`rings::ntru::amx_in_use`), so
//!   `LATPOLY_ISA=avx512` turns them off;
//! * `avx512` needs AVX-512F (+DQ for 64-bit lanes, +BW for 16-bit lanes);
//! * every SIMD backend needs `n >= 2 · lanes` (e.g. `n >= 16` for 8 x u64); smaller plans run
//!   the scalar kernels, and say so in [`crate::Plan::isa`].
//!
//! `LATPOLY_ISA=scalar` forces the reference kernels; an unrecognised value is ignored
//! (`latpoly info` prints the cap in force).

use core::fmt;

/// A kernel backend.
///
/// ```
/// use latpoly::Isa;
/// assert!(Isa::Scalar < Isa::Avx2 && Isa::Avx512 < Isa::Avx512Ifma); // ordered worst to best
/// assert_eq!(Isa::Avx512Ifma.to_string(), "avx512ifma");
/// assert_eq!(Isa::ALL.iter().max(), Some(&Isa::Avx512Ifma));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Isa {
    /// Portable Rust, no SIMD intrinsics: the reference implementation.
    Scalar,
    /// AVX2 (256-bit vectors).
    Avx2,
    /// AVX-512 (512-bit vectors; F, DQ for u64 lanes, BW for u16 lanes).
    Avx512,
    /// AVX-512 IFMA (52-bit multipliers), 64-bit lanes with `q < 2^50`.
    Avx512Ifma,
}

impl Isa {
    /// Every backend, worst to best.
    pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Ifma];

    /// The backend's short name, as accepted by `LATPOLY_ISA`.
    ///
    /// ```
    /// use latpoly::Isa;
    /// assert_eq!(Isa::Avx2.name(), "avx2");
    /// assert!(Isa::ALL.iter().all(|&i| Isa::parse(i.name()) == Some(i)));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Avx512Ifma => "avx512ifma",
        }
    }

    /// Parses a backend name (`scalar`, `avx2`, `avx512`, `avx512ifma`; case-insensitive).
    ///
    /// ```
    /// use latpoly::Isa;
    /// assert_eq!(Isa::parse("AVX512"), Some(Isa::Avx512));
    /// assert_eq!(Isa::parse(" scalar\n"), Some(Isa::Scalar));
    /// assert_eq!(Isa::parse("sse2"), None);
    /// ```
    pub fn parse(s: &str) -> Option<Isa> {
        Isa::ALL
            .into_iter()
            .find(|i| i.name().eq_ignore_ascii_case(s.trim()))
    }

    /// The cap set by `LATPOLY_ISA`, if any (read at every plan construction).
    ///
    /// ```
    /// use latpoly::Isa;
    /// std::env::set_var("LATPOLY_ISA", "AVX2");
    /// assert_eq!(Isa::env_cap(), Some(Isa::Avx2));
    /// std::env::set_var("LATPOLY_ISA", "neon"); // unrecognised: ignored
    /// assert_eq!(Isa::env_cap(), None);
    /// std::env::remove_var("LATPOLY_ISA");
    /// assert_eq!(Isa::env_cap(), None);
    /// ```
    pub fn env_cap() -> Option<Isa> {
        std::env::var("LATPOLY_ISA")
            .ok()
            .and_then(|v| Isa::parse(&v))
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The backend `detect` finds, decided once per process into `cell`; none when `LATPOLY_ISA`
/// caps the backends below `min` (the cap is read first: under `LATPOLY_ISA=scalar`, e.g. Miri,
/// no CPU detection runs). For the kernels that pick their backend per process rather than
/// per plan (Keccak, the samplers' ChaCha20).
#[cfg(target_arch = "x86_64")]
pub(crate) fn decided<T: Copy>(
    cell: &std::sync::OnceLock<Option<T>>,
    min: Isa,
    detect: fn() -> Option<T>,
) -> Option<T> {
    *cell.get_or_init(|| {
        if Isa::env_cap().is_none_or(|cap| cap >= min) {
            detect()
        } else {
            None
        }
    })
}
