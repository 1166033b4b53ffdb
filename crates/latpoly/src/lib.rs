//! # latpoly
//!
//! Polynomial arithmetic for lattice cryptography: word-size modular arithmetic in 16-, 32- and
//! 64-bit lanes, NTT-friendly prime generation, the negacyclic NTT over `Z_q[x]/(x^n + 1)` and
//! RNS ("double-CRT") polynomials with exact big-integer CRT.
//!
//! The scalar code in this crate is the executable specification: every fast path is tested
//! against it, and it is itself tested against schoolbook and big-integer references.
//!
//! ```
//! use latpoly::{NttPlan, rns::{RnsContext, RnsPoly}};
//! use num_bigint::BigInt;
//!
//! // One prime: NTT-based negacyclic product.
//! let q = latpoly::primes::ntt_primes(50, 1024, 1).unwrap()[0];
//! let plan = NttPlan::new(1024, q).unwrap();
//! let mut a = vec![0u64; 1024];
//! a[1] = 1; // x
//! let c = plan.multiply(&a, &a).unwrap(); // x^2
//! assert_eq!(c[2], 1);
//!
//! // Several primes: a 240-bit modulus as 4 x 60-bit primes.
//! let ctx = RnsContext::with_prime_bits(8, 60, 4).unwrap();
//! let x = RnsPoly::from_bigints(&ctx, &vec![BigInt::from(-1); 8]).unwrap();
//! let y = x.multiply(&x).unwrap();
//! // (-1 - x - ... - x^7)^2 has coefficient k equal to (k+1) - (7-k) = 2k - 6.
//! let c = y.to_centered_bigints();
//! assert_eq!(c[0], BigInt::from(-6));
//! assert_eq!(c[7], BigInt::from(8));
//! ```

#![deny(missing_docs)]
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod arith;
mod cpu;
pub mod error;
pub mod he;
pub mod isa;
mod keccak;
pub mod kem;
pub mod ntt;
pub mod parallel;
pub mod primes;
pub mod reference;
pub mod rings;
pub mod rns;
pub mod sampling;
mod secret;
pub mod serialize;
mod sha512;
mod vectorised;

pub use error::{Error, Result};
pub use isa::Isa;
pub use ntt::{NttPlan, NttPlan16, NttPlan32, Plan};

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
