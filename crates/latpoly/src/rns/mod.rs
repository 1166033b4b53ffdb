//! RNS ("double-CRT") polynomials over `Z_Q[x]/(x^n + 1)` with `Q` a product of word-size primes.
//!
//! * [`RnsContext`]: degree, primes, NTT plans and CRT data, shared through an `Arc`.
//! * [`RnsPoly`]: a polynomial that knows its [`Representation`] (coefficients or NTT values);
//!   add, sub, neg, scalar and pointwise products, fused multiply-add, full negacyclic product.
//! * [`Crt`]: exact conversion between residues and big integers (any number of primes).
//! * [`basis`]: rescaling, dropping primes, exact and fast base extension ([`BaseExtender`]).
//! * [`galois`]: automorphisms `x -> x^k` and monomial products, in both representations.

pub mod basis;
pub mod context;
pub(crate) mod convert_simd;
pub mod crt;
pub mod galois;
pub mod poly;
pub(crate) mod scratch;

pub use basis::BaseExtender;
pub use context::RnsContext;
pub use crt::{Crt, MAX_PRIMES};
pub use poly::{Representation, RnsPoly};
