//! Instruction-set selection for the kernels.
//!
//! Every plan records the backend its kernels run on, chosen once at construction. This release
//! ships the portable scalar backend, which is the specification the SIMD backends (issue
//! "SIMD engines") are tested against; `LATPOLY_ISA` will cap the choice once they land.

use core::fmt;

/// A kernel backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Isa {
    /// Portable Rust, no SIMD intrinsics: the reference implementation.
    Scalar,
}

impl Isa {
    /// The backend's short name, as accepted by `LATPOLY_ISA`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
