//! NTT-unfriendly post-quantum rings: NTRU+ (`x^n - x^(n/2) + 1`, `q = 3457`); NTRU and NTRU
//! Prime are being added.
//!
//! Each family has a scalar reference (the specification, bit-exact with the reference C and its
//! test vectors) and fast paths chosen at run time, all constant time.

pub mod ntruplus;
