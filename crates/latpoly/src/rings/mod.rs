//! NTT-unfriendly post-quantum rings: NTRU (`x^n - 1`, `q = 2^k`), NTRU Prime
//! (`x^761 - x - 1`, `q = 4591`) and NTRU+ (`x^n - x^(n/2) + 1`, `q = 3457`).
//!
//! Each family has a scalar reference (the specification, bit-exact with the reference C and its
//! test vectors) and fast paths chosen at run time, all constant time.

#[cfg(target_arch = "x86_64")]
pub(crate) mod amx;
pub(crate) mod bitslice;
pub mod ntru;
pub mod ntruplus;
pub mod ntruprime;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vnni_conv;

/// Repeats `$body` with `$i` bound to each listed constant: guaranteed unrolling, so that
/// arrays of vectors indexed by `$i` stay in registers.
macro_rules! unroll {
    ($i:ident in [$($k:literal),*] $body:block) => {
        $( { let $i: usize = $k; $body } )*
    };
}
pub(crate) use unroll;
