//! The single error type of latpoly.
//!
//! Every constructor and every checked call validates its input and returns one of these instead
//! of panicking; the Python front turns them into `ValueError`.

use core::fmt;

/// Everything that can go wrong when calling latpoly with bad input.
///
/// ```
/// use latpoly::{Error, NttPlan};
///
/// let err = NttPlan::new(12, 17).unwrap_err();
/// assert_eq!(err, Error::InvalidDegree { n: 12, reason: "must be a power of two" });
/// assert_eq!(err.to_string(), "invalid ring degree n=12: must be a power of two");
///
/// let plan = NttPlan::new(8, 17)?;
/// let err = plan.forward(&mut [0; 3]).unwrap_err();
/// assert_eq!(err, Error::LengthMismatch { expected: 8, got: 3 });
/// assert_eq!(err.to_string(), "length mismatch: expected 8, got 3");
///
/// let err = plan.forward(&mut [0, 0, 20, 0, 0, 0, 0, 0]).unwrap_err();
/// assert_eq!(err.to_string(), "coefficient out of range at index 2: 20 is not below 17");
///
/// // It is a std::error::Error, so `?` converts it into a Box<dyn Error>.
/// let boxed: Box<dyn std::error::Error> = err.into();
/// assert!(boxed.to_string().starts_with("coefficient out of range"));
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The ring degree `n` is not a power of two or is outside the supported range.
    InvalidDegree {
        /// The rejected degree.
        n: usize,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// A modulus is unusable: even, composite, too large for its lane, or not `1 mod 2n`.
    InvalidModulus {
        /// The rejected modulus.
        q: u64,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// A slice or array has the wrong length.
    LengthMismatch {
        /// The length that was required.
        expected: usize,
        /// The length that was given.
        got: usize,
    },
    /// A coefficient is not below the bound the call requires (`q`, `2q` or `4q`).
    CoefficientOutOfRange {
        /// Position of the first offending coefficient.
        index: usize,
        /// Its value.
        value: u64,
        /// The exclusive upper bound it violated.
        bound: u64,
    },
    /// Two operands belong to different RNS contexts.
    ContextMismatch,
    /// An operation needs the other representation (coefficient vs. NTT).
    RepresentationMismatch {
        /// The representation the operation needs.
        expected: &'static str,
        /// The representation the operand is in.
        got: &'static str,
    },
    /// Not enough primes exist with the requested properties.
    NotEnoughPrimes {
        /// Requested bit size.
        bits: u32,
        /// Ring degree the primes must support.
        n: usize,
        /// How many were requested.
        requested: usize,
        /// How many exist.
        found: usize,
    },
    /// Any other invalid argument, with an explanation.
    InvalidArgument(String),
    /// Serialized bytes are not a valid encoding (see [`crate::serialize`]): bad magic, unknown
    /// version or kind, wrong length, non-zero padding, ... The message says what is wrong.
    Malformed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidDegree { n, reason } => write!(f, "invalid ring degree n={n}: {reason}"),
            Error::InvalidModulus { q, reason } => write!(f, "invalid modulus q={q}: {reason}"),
            Error::LengthMismatch { expected, got } => {
                write!(f, "length mismatch: expected {expected}, got {got}")
            }
            Error::CoefficientOutOfRange {
                index,
                value,
                bound,
            } => write!(
                f,
                "coefficient out of range at index {index}: {value} is not below {bound}"
            ),
            Error::ContextMismatch => write!(f, "operands belong to different RNS contexts"),
            Error::RepresentationMismatch { expected, got } => write!(
                f,
                "representation mismatch: operation needs {expected} form, operand is in {got} form"
            ),
            Error::NotEnoughPrimes {
                bits,
                n,
                requested,
                found,
            } => write!(
                f,
                "only {found} primes of {bits} bits are congruent to 1 mod 2n for n={n}, {requested} requested"
            ),
            Error::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
            Error::Malformed(msg) => write!(f, "malformed encoding: {msg}"),
        }
    }
}

impl std::error::Error for Error {}

/// `Ok` when a slice has the length a call needs, else [`Error::LengthMismatch`].
pub(crate) fn check_len(expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::LengthMismatch { expected, got })
    }
}

/// Shorthand for `Result<T, latpoly::Error>`.
pub type Result<T> = core::result::Result<T, Error>;
