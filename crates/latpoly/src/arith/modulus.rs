//! Word-size moduli and their constant-time modular multiplications.
//!
//! A [`Modulus`] holds an odd modulus `q` below its lane limit together with the constants of the
//! three classic reductions:
//!
//! * **Barrett** (`mul`, `reduce_u64`): general `a * b mod q` for two variable operands.
//! * **Montgomery** (`mont_mul`, `to_mont`, `mont_reduce`), `R = 2^BITS`: the product `a b R^-1 mod q`.
//! * **Shoup** (`shoup`, `mul_shoup_lazy`, `mul_shoup`): `w x mod q` for a fixed `w` with the
//!   precomputed quotient `w' = floor(w 2^BITS / q)`; this is the NTT butterfly multiplication.
//!
//! Output ranges are part of each function's contract and written in its doc. None of these
//! functions branches on its data operands. Exponents (`pow`) are treated as public.

use super::word::Word;
use crate::error::{Error, Result};
use core::fmt::Debug;

/// Arithmetic modulo a word-size odd modulus `q < 2^W::MAX_MODULUS_BITS`.
///
/// ```
/// use latpoly::arith::{Modulus, Modulus64};
/// let m = Modulus64::new((1 << 62) - 57).unwrap(); // any odd q < 2^62
/// let q = m.value();
/// assert_eq!(m.mul(q - 1, q - 1), 1);
/// let w = 12345 % q;
/// let wp = m.shoup(w);
/// assert_eq!(m.mul_shoup(q - 1, w, wp), m.mul(q - 1, w));
/// ```
pub trait Modulus: Clone + Debug + PartialEq + Eq + Send + Sync + 'static {
    /// The lane type residues are stored in.
    type W: Word<Modulus = Self>;

    /// Validates and precomputes: `q` must be odd and `3 <= q < 2^W::MAX_MODULUS_BITS`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16, Modulus64};
    /// use latpoly::Error;
    ///
    /// assert_eq!(Modulus16::new(12289)?.value(), 12289);
    /// assert!(matches!(Modulus64::new(1 << 40), Err(Error::InvalidModulus { .. }))); // even
    /// assert!(matches!(Modulus16::new(16411), Err(Error::InvalidModulus { .. }))); // >= 2^14
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn new(q: u64) -> Result<Self>;

    /// The modulus `q`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus32};
    /// let m = Modulus32::new(7681)?;
    /// assert_eq!(m.value(), 7681u32); // in the lane type
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn value(&self) -> Self::W;

    /// `q^-1 mod 2^BITS` (Montgomery constant).
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16, Modulus64};
    /// let q = (1u64 << 62) - 57;
    /// assert_eq!(q.wrapping_mul(Modulus64::new(q)?.qinv()), 1);
    /// assert_eq!(12289u16.wrapping_mul(Modulus16::new(12289)?.qinv()), 1); // mod 2^16
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn qinv(&self) -> Self::W;

    /// `R^2 mod q` with `R = 2^BITS` (converts into Montgomery form).
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus32};
    /// let q = 1_073_479_681u32; // a 30-bit prime
    /// let m = Modulus32::new(q as u64)?;
    /// assert_eq!(m.r2() as u128, (1u128 << 64) % q as u128); // R = 2^32
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn r2(&self) -> Self::W;

    /// Barrett reduction of any `u64`: output in `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16, Modulus64};
    /// let m = Modulus16::new(12289)?;
    /// for x in [0, 12288, 12289, 1 << 40, u64::MAX] {
    ///     assert_eq!(m.reduce_u64(x) as u64, x % 12289);
    /// }
    /// let q = (1u64 << 62) - 57;
    /// assert_eq!(Modulus64::new(q)?.reduce_u64(u64::MAX), u64::MAX % q);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn reduce_u64(&self, x: u64) -> Self::W;

    /// Barrett multiplication: `a * b mod q` for any `a, b` of the lane, output in `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus64};
    /// let q = (1u64 << 62) - 57;
    /// let m = Modulus64::new(q)?;
    /// let (a, b) = (u64::MAX, 0x1234_5678_9abc_def0); // any lane values, not only < q
    /// assert_eq!(m.mul(a, b) as u128, a as u128 * b as u128 % q as u128);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn mul(&self, a: Self::W, b: Self::W) -> Self::W;

    /// `a + b mod q` for `a, b` in `[0, q)`; output in `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16};
    /// let m = Modulus16::new(12289)?;
    /// assert_eq!(m.add(12288, 12288), 12287);
    /// assert_eq!(m.add(1, 12288), 0);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    fn add(&self, a: Self::W, b: Self::W) -> Self::W {
        a.wrapping_add(b).csub(self.value())
    }

    /// `a - b mod q` for `a, b` in `[0, q)`; output in `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16};
    /// let m = Modulus16::new(12289)?;
    /// assert_eq!(m.sub(3, 5), 12287);
    /// assert_eq!(m.sub(5, 3), 2);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    fn sub(&self, a: Self::W, b: Self::W) -> Self::W {
        let (t, borrow) = a.sub_borrow(b);
        t.wrapping_add(
            self.value()
                .and(Self::W::ZERO.wrapping_sub(borrow.barrier())),
        )
    }

    /// `-a mod q` for `a` in `[0, q)`; output in `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus32};
    /// let m = Modulus32::new(7681)?;
    /// assert_eq!(m.neg(1), 7680);
    /// assert_eq!(m.neg(0), 0);
    /// assert_eq!(m.add(m.neg(1234), 1234), 0);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    fn neg(&self, a: Self::W) -> Self::W {
        self.sub(Self::W::ZERO, a)
    }

    /// Montgomery multiplication `a b R^-1 mod q`, `R = 2^BITS`.
    ///
    /// Input: `a * b < q * R` (true whenever `a, b < q`, or one is `< q` and the other `< R`).
    /// Output in `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus64};
    /// let q = (1u64 << 62) - 57;
    /// let m = Modulus64::new(q)?;
    /// let (a, b) = (q - 1, 0x0123_4567_89ab_cdef);
    /// let c = m.mont_mul(a, b); // a b 2^-64 mod q, so c 2^64 = a b (mod q)
    /// assert!(c < q);
    /// assert_eq!(((c as u128) << 64) % q as u128, a as u128 * b as u128 % q as u128);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    fn mont_mul(&self, a: Self::W, b: Self::W) -> Self::W {
        let q = self.value();
        let lo = a.wrapping_mul(b);
        let hi = a.mul_hi(b);
        let m = lo.wrapping_mul(self.qinv());
        // m q == lo (mod R), so (a b - m q) / R = hi - mulhi(m, q) exactly, in (-q, q).
        let (t, borrow) = hi.sub_borrow(m.mul_hi(q));
        t.wrapping_add(q.and(Self::W::ZERO.wrapping_sub(borrow.barrier())))
    }

    /// Converts `a` (any lane value) to Montgomery form `a R mod q`; output in `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus64};
    /// let q = (1u64 << 62) - 57;
    /// let m = Modulus64::new(q)?;
    /// for a in [0, 1, q - 1, u64::MAX] {
    ///     assert_eq!(m.to_mont(a) as u128, ((a as u128) << 64) % q as u128);
    /// }
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    fn to_mont(&self, a: Self::W) -> Self::W {
        self.mont_mul(a, self.r2())
    }

    /// Converts out of Montgomery form: `a R^-1 mod q`; output in `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16};
    /// let m = Modulus16::new(12289)?;
    /// assert_eq!(m.mont_reduce(m.to_mont(1234)), 1234);
    /// // Products stay in Montgomery form: mont_mul(aR, bR) = abR.
    /// let ab = m.mont_mul(m.to_mont(100), m.to_mont(200));
    /// assert_eq!(m.mont_reduce(ab), 20000 % 12289);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    fn mont_reduce(&self, a: Self::W) -> Self::W {
        self.mont_mul(a, Self::W::ONE)
    }

    /// Shoup precomputation for a fixed multiplier `w < q`: `floor(w 2^BITS / q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus64};
    /// let q = (1u64 << 62) - 57;
    /// let m = Modulus64::new(q)?;
    /// let w = 0x2bad_cafe_f00d;
    /// assert_eq!(m.shoup(w) as u128, ((w as u128) << 64) / q as u128);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline]
    fn shoup(&self, w: Self::W) -> Self::W {
        debug_assert!(w < self.value());
        let wide = (w.to_u64() as u128) << Self::W::BITS;
        Self::W::from_u64((wide / self.value().to_u64() as u128) as u64)
    }

    /// Lazy Shoup multiplication: `w x mod q` up to one `q`, i.e. output in `[0, 2q)`.
    ///
    /// Input: any lane value `x`; `w < q` with `wp = self.shoup(w)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus64};
    /// let q = (1u64 << 62) - 57;
    /// let m = Modulus64::new(q)?;
    /// let (w, x) = (q - 2, u64::MAX);
    /// let r = m.mul_shoup_lazy(x, w, m.shoup(w));
    /// assert!(r < 2 * q);
    /// assert_eq!(r % q, (w as u128 * x as u128 % q as u128) as u64);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    fn mul_shoup_lazy(&self, x: Self::W, w: Self::W, wp: Self::W) -> Self::W {
        let qhat = x.mul_hi(wp);
        x.wrapping_mul(w)
            .wrapping_sub(qhat.wrapping_mul(self.value()))
    }

    /// Shoup multiplication: `w x mod q`, output in `[0, q)`. Input as in [`Self::mul_shoup_lazy`].
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus32};
    /// let q = 7681u32;
    /// let m = Modulus32::new(q as u64)?;
    /// let w = 3383; // a fixed multiplier (e.g. a twiddle factor), its quotient computed once
    /// let wp = m.shoup(w);
    /// for x in [0, 1, q - 1, u32::MAX] {
    ///     assert_eq!(m.mul_shoup(x, w, wp) as u64, w as u64 * x as u64 % q as u64);
    /// }
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    fn mul_shoup(&self, x: Self::W, w: Self::W, wp: Self::W) -> Self::W {
        self.mul_shoup_lazy(x, w, wp).csub(self.value())
    }

    /// `a^e mod q` by square-and-multiply. `a` any lane value; `e` is public (not hidden).
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16};
    /// let m = Modulus16::new(12289)?;
    /// assert_eq!(m.pow(2, 10), 1024);
    /// assert_eq!(m.pow(11, 12288), 1); // Fermat: a^(q-1) = 1
    /// assert_eq!(m.pow(5, 0), 1);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn pow(&self, a: Self::W, mut e: u64) -> Self::W {
        let mut base = self.reduce_u64(a.to_u64());
        let mut acc = self.reduce_u64(1);
        while e > 0 {
            if e & 1 == 1 {
                acc = self.mul(acc, base);
            }
            base = self.mul(base, base);
            e >>= 1;
        }
        acc
    }

    /// Multiplicative inverse modulo a **prime** `q` (Fermat: `a^(q-2)`), or `None` if `a ≡ 0`.
    /// Every returned value is checked (`a · r ≡ 1`), so a result is always a true inverse; for
    /// a composite `q` the Fermat candidate is usually wrong and the answer is then `None`
    /// (but may be `Some` when it happens to be an inverse, e.g. `4^13 ≡ 4 = 4^-1 mod 15`).
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus64};
    /// let q = (1u64 << 62) - 57; // prime
    /// let m = Modulus64::new(q)?;
    /// let a = 0xdead_beef;
    /// assert_eq!(m.mul(a, m.inv(a).unwrap()), 1);
    /// assert_eq!(m.inv(0), None);
    /// assert_eq!(Modulus64::new(15)?.inv(2), None); // 15 is not prime
    /// assert_eq!(Modulus64::new(15)?.inv(4), Some(4)); // ... but 4 · 4 ≡ 1 mod 15
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn inv(&self, a: Self::W) -> Option<Self::W> {
        let q = self.value().to_u64();
        let r = self.pow(a, q - 2);
        if self.mul(r, self.reduce_u64(a.to_u64())) == Self::W::ONE {
            Some(r)
        } else {
            None
        }
    }

    /// Reduces a signed integer into `[0, q)`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16};
    /// let m = Modulus16::new(12289)?;
    /// assert_eq!(m.reduce_i64(-1), 12288);
    /// assert_eq!(m.reduce_i64(12290), 1);
    /// assert_eq!(m.reduce_i64(i64::MIN) as i64, i64::MIN.rem_euclid(12289));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn reduce_i64(&self, x: i64) -> Self::W {
        let r = self.reduce_u64(x.unsigned_abs());
        // Branch-free negation when x < 0.
        let neg = self.neg(r);
        let mask = super::ct::neg_mask_i64(x);
        Self::W::from_u64((r.to_u64() & !mask) | (neg.to_u64() & mask))
    }
}

/// `q^-1 mod 2^64` for odd `q`, by Newton iteration (each step doubles the correct bits).
pub(crate) const fn inv_mod_2_64(q: u64) -> u64 {
    let mut x = q; // correct to 3 bits for odd q
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(q.wrapping_mul(x)));
        i += 1;
    }
    x
}

fn check_odd_in_lane(q: u64, max_bits: u32) -> Result<()> {
    if q < 3 {
        return Err(Error::InvalidModulus {
            q,
            reason: "modulus must be at least 3",
        });
    }
    if q & 1 == 0 {
        return Err(Error::InvalidModulus {
            q,
            reason: "modulus must be odd",
        });
    }
    if q >> max_bits != 0 {
        return Err(Error::InvalidModulus {
            q,
            reason: match max_bits {
                14 => "modulus too large for 16-bit lanes (needs q < 2^14)",
                30 => "modulus too large for 32-bit lanes (needs q < 2^30)",
                _ => "modulus too large for 64-bit lanes (needs q < 2^62)",
            },
        });
    }
    Ok(())
}

macro_rules! small_modulus {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name {
            q: $t,
            /// floor(2^64 / q): Barrett constant for any u64 input.
            mu: u64,
            qinv: $t,
            r2: $t,
        }

        impl Modulus for $name {
            type W = $t;

            fn new(q: u64) -> Result<Self> {
                check_odd_in_lane(q, <$t as Word>::MAX_MODULUS_BITS)?;
                let r = 1u128 << <$t as Word>::BITS;
                Ok(Self {
                    q: q as $t,
                    mu: u64::MAX / q,
                    qinv: inv_mod_2_64(q) as $t,
                    r2: ((r * r) % q as u128) as $t,
                })
            }
            #[inline(always)]
            fn value(&self) -> $t {
                self.q
            }
            #[inline(always)]
            fn qinv(&self) -> $t {
                self.qinv
            }
            #[inline(always)]
            fn r2(&self) -> $t {
                self.r2
            }
            #[inline(always)]
            fn reduce_u64(&self, x: u64) -> $t {
                // qhat <= floor(x/q) and floor(x/q) - qhat <= 1, so r < 2q.
                let qhat = ((x as u128 * self.mu as u128) >> 64) as u64;
                let r = x.wrapping_sub(qhat.wrapping_mul(self.q as u64));
                (r as $t).csub(self.q)
            }
            #[inline(always)]
            fn mul(&self, a: $t, b: $t) -> $t {
                self.reduce_u64(a as u64 * b as u64)
            }
        }
    };
}

small_modulus!(
    /// A modulus `q < 2^14` with residues in `u16` lanes.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus16};
    /// let m = Modulus16::new(12289)?;
    /// let (a, b): (u16, u16) = (12288, 12000);
    /// assert_eq!(m.mul(a, b) as u32, a as u32 * b as u32 % 12289);
    /// assert!(Modulus16::new(16411).is_err()); // needs q < 2^14
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    Modulus16,
    u16
);
small_modulus!(
    /// A modulus `q < 2^30` with residues in `u32` lanes.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus32};
    /// let q = 1_073_479_681u32;
    /// let m = Modulus32::new(q as u64)?;
    /// let (a, b) = (q - 1, q - 2);
    /// assert_eq!(m.mul(a, b) as u64, a as u64 * b as u64 % q as u64);
    /// assert!(Modulus32::new((1 << 30) + 3).is_err()); // needs q < 2^30
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    Modulus32,
    u32
);

/// A modulus `q < 2^62` with residues in `u64` lanes.
///
/// ```
/// use latpoly::arith::{Modulus, Modulus64};
/// let q = (1u64 << 62) - 57;
/// let m = Modulus64::new(q)?;
/// let (a, b) = (q - 1, q - 2);
/// assert_eq!(m.mul(a, b) as u128, a as u128 * b as u128 % q as u128);
/// assert!(Modulus64::new((1 << 62) + 1).is_err()); // needs q < 2^62
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Modulus64 {
    q: u64,
    /// floor(2^128 / q).
    mu: u128,
    /// floor(2^64 / q).
    mu64: u64,
    qinv: u64,
    r2: u64,
}

impl Modulus64 {
    /// Barrett reduction of a 128-bit value: output in `[0, q)` for **any** `x < 2^128`.
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus64};
    /// let q = (1u64 << 62) - 57;
    /// let m = Modulus64::new(q)?;
    /// for x in [0, q as u128 * q as u128, u128::MAX] {
    ///     assert_eq!(m.reduce_u128(x) as u128, x % q as u128);
    /// }
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    pub fn reduce_u128(&self, x: u128) -> u64 {
        self.div_rem_u128(x).1
    }

    /// Quotient and remainder of any `x < 2^128` by `q`, branch-free (Barrett with
    /// `floor(2^128 / q)`, one correction).
    ///
    /// ```
    /// use latpoly::arith::{Modulus, Modulus64};
    /// let q = (1u64 << 62) - 57;
    /// let m = Modulus64::new(q)?;
    /// for x in [q as u128 - 1, q as u128, u128::MAX] {
    ///     assert_eq!(m.div_rem_u128(x), (x / q as u128, (x % q as u128) as u64));
    /// }
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    #[inline(always)]
    pub fn div_rem_u128(&self, x: u128) -> (u128, u64) {
        // qhat = floor(x mu / 2^128), which is floor(x/q) or one less.
        let qhat = mulhi_u128(x, self.mu);
        let r = x.wrapping_sub(qhat.wrapping_mul(self.q as u128)) as u64;
        let (t, borrow) = r.overflowing_sub(self.q);
        let keep = super::ct::mask_u64(borrow as u64); // all-ones if r < q
        let rem = (t & !keep) | (r & keep);
        (qhat + (1 ^ (keep & 1)) as u128, rem)
    }
}

/// `floor(x · y / 2^128)`, exact (all four 64 x 64 partial products), branch-free.
#[inline(always)]
pub(crate) fn mulhi_u128(x: u128, y: u128) -> u128 {
    const M: u128 = u64::MAX as u128;
    let (x0, x1) = (x & M, x >> 64);
    let (y0, y1) = (y & M, y >> 64);
    let (p00, p01, p10, p11) = (x0 * y0, x0 * y1, x1 * y0, x1 * y1);
    let mid = (p00 >> 64) + (p01 & M) + (p10 & M);
    p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64)
}

/// `floor(x / d)` for any `x < 2^128` and `d >= 2`, branch-free, given `mu = u128::MAX / d`
/// (`floor(2^128 / d)`, one less when `d` is a power of two): the estimate
/// `floor(x mu / 2^128)` is at most one short (`x mu / 2^128 > x/d - 1`), and one masked
/// correction fixes it. For divisors that are not a [`Modulus64`] (any `d`, even or above
/// `2^62`), e.g. BFV's plaintext modulus.
#[inline(always)]
pub(crate) fn ct_div_u128(x: u128, d: u64, mu: u128) -> u128 {
    let qhat = mulhi_u128(x, mu);
    let r = x.wrapping_sub(qhat.wrapping_mul(d as u128)); // in [0, 2d)
    let (_, borrow) = r.overflowing_sub(d as u128);
    // 1 iff r >= d (no borrow), as a value, not a branch
    let more = super::ct::barrier((borrow as u64) ^ 1);
    qhat + more as u128
}

impl Modulus for Modulus64 {
    type W = u64;

    fn new(q: u64) -> Result<Self> {
        check_odd_in_lane(q, 62)?;
        let r = (1u128 << 64) % q as u128;
        Ok(Self {
            q,
            mu: u128::MAX / q as u128,
            mu64: u64::MAX / q,
            qinv: inv_mod_2_64(q),
            r2: ((r * r) % q as u128) as u64,
        })
    }
    #[inline(always)]
    fn value(&self) -> u64 {
        self.q
    }
    #[inline(always)]
    fn qinv(&self) -> u64 {
        self.qinv
    }
    #[inline(always)]
    fn r2(&self) -> u64 {
        self.r2
    }
    #[inline(always)]
    fn reduce_u64(&self, x: u64) -> u64 {
        let qhat = x.mul_hi(self.mu64);
        x.wrapping_sub(qhat.wrapping_mul(self.q)).csub(self.q)
    }
    #[inline(always)]
    fn mul(&self, a: u64, b: u64) -> u64 {
        self.reduce_u128(a as u128 * b as u128)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_moduli() {
        assert!(Modulus64::new(0).is_err());
        assert!(Modulus64::new(1).is_err());
        assert!(Modulus64::new(2).is_err());
        assert!(Modulus64::new(1 << 40).is_err());
        assert!(Modulus64::new((1 << 62) + 1).is_err());
        assert!(Modulus64::new((1 << 62) - 1).is_ok());
        assert!(Modulus32::new((1 << 30) + 1).is_err());
        assert!(Modulus16::new(1 << 14 | 1).is_err());
        assert!(Modulus16::new(12289).is_ok());
    }

    /// `mulhi_u128` and `ct_div_u128` against `u128` division: divisors at the edges (2, powers
    /// of two, odd and even, near `2^32`, `2^62`, `2^64`), dividends at the edges and random.
    #[test]
    fn ct_div_u128_matches_division() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(128);
        let mut ds = vec![
            2u64,
            3,
            4,
            257,
            65536,
            65537,
            (1 << 32) - 5,
            1 << 32,
            (1 << 32) + 15,
        ];
        ds.extend([
            (1 << 62) - 57,
            1 << 63,
            (1 << 63) + 1,
            u64::MAX - 1,
            u64::MAX,
        ]);
        ds.extend((0..40).map(|_| rng.gen_range(2..u64::MAX)));
        for d in ds {
            let mu = u128::MAX / d as u128;
            let mut xs = vec![0u128, 1, d as u128 - 1, d as u128, d as u128 + 1, u128::MAX];
            xs.extend([
                u128::MAX - 1,
                u128::MAX / d as u128 * d as u128,
                (d as u128) << 64,
            ]);
            xs.extend((0..200).map(|_| rng.gen::<u128>() >> rng.gen_range(0..128)));
            for x in xs {
                assert_eq!(ct_div_u128(x, d, mu), x / d as u128, "{x} / {d}");
            }
        }
        for (x, y) in [
            (u128::MAX, u128::MAX),
            (1 << 64, 1 << 64),
            (3, 5),
            (u128::MAX, 2),
        ] {
            let want = (num_bigint::BigUint::from(x) * y) >> 128u32;
            assert_eq!(num_bigint::BigUint::from(mulhi_u128(x, y)), want);
        }
    }

    #[test]
    fn inv_mod_2_64_works() {
        for q in [3u64, 12289, 0x3fff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff] {
            assert_eq!(q.wrapping_mul(inv_mod_2_64(q)), 1);
        }
    }

    #[test]
    fn reduce_i64_signs() {
        let m = Modulus16::new(12289).unwrap();
        assert_eq!(m.reduce_i64(-1), 12288);
        assert_eq!(
            m.reduce_i64(i64::MIN),
            ((i64::MIN as i128).rem_euclid(12289)) as u16
        );
        assert_eq!(m.reduce_i64(12290), 1);
    }
}
