//! NFLlib's Algorithm 2: modular reduction of a double word for primes with `s0` margin bits.
//!
//! Source: Aguilar-Melchor et al., *NFLlib: NTT-based Fast Lattice Library*, CT-RSA 2016, §3.2.
//! With word base `β = 2^s`, a modulus `p` satisfying Eq. (1)
//!
//! ```text
//! (1 + 2^(-3 s0)) · β / (2^s0 + 1)  <  p  <  β / 2^s0
//! ```
//!
//! has `floor(β²/p) = 2^s0 · β + v0` with a single-word `v0`, and any `u = <u1, u0> < p²` is
//! reduced with one multiplication by `v0`, one by `p` and one conditional subtraction:
//!
//! ```text
//! q <- v0 · u1 + 2^s0 · u  mod β²
//! r <- u - floor(q / β) · p  mod β
//! if r >= p then r <- r - p
//! ```
//!
//! (The conditional subtraction is done branch-free.)

use super::word::Word;
use crate::error::{Error, Result};
use num_bigint::BigUint;

macro_rules! nfl_reducer {
    ($(#[$doc:meta])* $name:ident, $t:ty, $d:ty) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name {
            p: $t,
            v0: $t,
            s0: u32,
        }

        impl $name {
            /// Validates `1 <= s0 <= s - 1` and Eq. (1) for `p`, then precomputes
            /// `v0 = floor(β²/p) mod β`.
            ///
            /// ```
            #[doc = concat!("use latpoly::arith::", stringify!($name), " as Nfl;")]
            /// use latpoly::primes::nfl_primes;
            ///
            #[doc = concat!("let s = ", stringify!($t), "::BITS;")]
            /// let p = nfl_primes(s, 2, 512, 1)?[0]; // an Eq. (1) prime for margin s0 = 2
            /// assert_eq!(Nfl::new(p, 2)?.modulus() as u64, p);
            /// assert!(matches!(Nfl::new(p, 0), Err(latpoly::Error::InvalidArgument(_))));
            /// assert!(matches!(Nfl::new(p / 2 | 1, 2), Err(latpoly::Error::InvalidModulus { .. })));
            /// # Ok::<(), latpoly::Error>(())
            /// ```
            pub fn new(p: u64, s0: u32) -> Result<Self> {
                let s = <$t as Word>::BITS;
                if s0 < 1 || s0 >= s {
                    return Err(Error::InvalidArgument(format!(
                        "margin s0={s0} must satisfy 1 <= s0 <= {}",
                        s - 1
                    )));
                }
                if !satisfies_eq1(p, s, s0) {
                    return Err(Error::InvalidModulus {
                        q: p,
                        reason: "does not satisfy NFLlib Eq. (1) for this word size and margin",
                    });
                }
                let beta2 = BigUint::from(1u8) << (2 * s);
                let v = beta2 / BigUint::from(p);
                let v0 = (v % (BigUint::from(1u8) << s))
                    .to_u64_digits()
                    .first()
                    .copied()
                    .unwrap_or(0);
                Ok(Self {
                    p: p as $t,
                    v0: v0 as $t,
                    s0,
                })
            }

            /// The modulus `p`.
            ///
            /// ```
            #[doc = concat!("use latpoly::arith::", stringify!($name), " as Nfl;")]
            #[doc = concat!("let p = latpoly::primes::nfl_primes(", stringify!($t), "::BITS, 2, 512, 1)?[0];")]
            /// assert_eq!(Nfl::new(p, 2)?.modulus() as u64, p);
            /// # Ok::<(), latpoly::Error>(())
            /// ```
            pub fn modulus(&self) -> $t {
                self.p
            }

            /// Reduces `u < p²` to `u mod p` in `[0, p)` (Algorithm 2).
            ///
            /// ```
            #[doc = concat!("use latpoly::arith::", stringify!($name), " as Nfl;")]
            #[doc = concat!("let p = latpoly::primes::nfl_primes(", stringify!($t), "::BITS, 2, 512, 1)?[0];")]
            /// let r = Nfl::new(p, 2)?;
            #[doc = concat!("let p = p as ", stringify!($d), ";")]
            /// for u in [0, p - 1, p, 12345 * p + 678, (p - 1) * (p - 1)] {
            ///     assert_eq!(r.reduce(u) as u64, (u % p) as u64);
            /// }
            /// # Ok::<(), latpoly::Error>(())
            /// ```
            #[inline(always)]
            pub fn reduce(&self, u: $d) -> $t {
                debug_assert!(u < (self.p as $d) * (self.p as $d));
                let s = <$t as Word>::BITS;
                let u1 = (u >> s) as $t;
                let q = (self.v0 as $d)
                    .wrapping_mul(u1 as $d)
                    .wrapping_add(u << self.s0);
                let r = (u as $t).wrapping_sub(((q >> s) as $t).wrapping_mul(self.p));
                r.csub(self.p)
            }

            /// `a * b mod p` for `a, b < p` via [`Self::reduce`].
            ///
            /// ```
            #[doc = concat!("use latpoly::arith::", stringify!($name), " as Nfl;")]
            #[doc = concat!("let p = latpoly::primes::nfl_primes(", stringify!($t), "::BITS, 2, 512, 1)?[0];")]
            /// let r = Nfl::new(p, 2)?;
            #[doc = concat!("let (a, b) = ((p - 1) as ", stringify!($t), ", (p / 3) as ", stringify!($t), ");")]
            /// assert_eq!(r.mul(a, b) as u128, a as u128 * b as u128 % p as u128);
            /// # Ok::<(), latpoly::Error>(())
            /// ```
            #[inline(always)]
            pub fn mul(&self, a: $t, b: $t) -> $t {
                self.reduce(a as $d * b as $d)
            }
        }
    };
}

/// Eq. (1): `(1 + 2^(-3 s0)) β / (2^s0 + 1) < p < β / 2^s0`, checked exactly with big integers
/// as `p (2^s0 + 1) 2^(3 s0) > (2^(3 s0) + 1) β` and `p 2^s0 < β`.
///
/// ```
/// use latpoly::arith::nfl::satisfies_eq1;
/// // For s = 16, s0 = 2: 13312 < p < 16384.
/// assert!(satisfies_eq1(13313, 16, 2));
/// assert!(!satisfies_eq1(13312, 16, 2));
/// assert!(!satisfies_eq1(12289, 16, 2)); // too small for this margin
/// assert!(!satisfies_eq1(16385, 16, 2));
/// assert!(satisfies_eq1(24577, 16, 1)); // margin 1: 24576 < p < 32768
/// ```
pub fn satisfies_eq1(p: u64, s: u32, s0: u32) -> bool {
    if s0 < 1 || s0 >= s {
        return false;
    }
    let one = BigUint::from(1u8);
    let beta = &one << s;
    let bp = BigUint::from(p);
    let upper_ok = (&bp << s0) < beta;
    let lhs = &bp * ((&one << s0) + &one) * (&one << (3 * s0));
    let rhs = ((&one << (3 * s0)) + &one) * &beta;
    upper_ok && lhs > rhs
}

nfl_reducer!(
    /// Algorithm 2 for 16-bit words.
    ///
    /// ```
    /// use latpoly::arith::NflReducer16;
    /// let p = latpoly::primes::nfl_primes(16, 2, 512, 1)?[0];
    /// let r = NflReducer16::new(p, 2)?;
    /// assert_eq!(r.mul(p as u16 - 1, p as u16 - 1), 1);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    NflReducer16,
    u16,
    u32
);
nfl_reducer!(
    /// Algorithm 2 for 32-bit words.
    ///
    /// ```
    /// use latpoly::arith::NflReducer32;
    /// let p = latpoly::primes::nfl_primes(32, 2, 1024, 1)?[0];
    /// let r = NflReducer32::new(p, 2)?;
    /// assert_eq!(r.mul(p as u32 - 1, p as u32 - 1), 1);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    NflReducer32,
    u32,
    u64
);
nfl_reducer!(
    /// Algorithm 2 for 64-bit words (the case the paper optimises: 62-bit primes, `s0 = 2`).
    ///
    /// ```
    /// use latpoly::arith::NflReducer64;
    /// let p = latpoly::primes::nfl_primes(64, 2, 1 << 16, 1)?[0]; // a 62-bit prime
    /// assert_eq!(p >> 61, 1);
    /// let r = NflReducer64::new(p, 2)?;
    /// assert_eq!(r.mul(p - 1, p - 1), 1);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    NflReducer64,
    u64,
    u128
);
