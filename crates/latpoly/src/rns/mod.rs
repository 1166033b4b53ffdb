//! RNS ("double-CRT") polynomials over `Z_Q[x]/(x^n + 1)` with `Q` a product of word-size primes.
//!
//! * [`RnsContext`]: degree, primes, NTT plans and CRT data, shared through an `Arc`.
//! * [`RnsPoly`]: a polynomial that knows its [`Representation`] (coefficients or NTT values);
//!   add, sub, neg, scalar and pointwise products, fused multiply-add, full negacyclic product.
//! * [`Crt`]: exact conversion between residues and big integers (any number of primes).

pub mod context;
pub mod crt;
pub mod poly;

pub use context::RnsContext;
pub use crt::Crt;
pub use poly::{Representation, RnsPoly};
