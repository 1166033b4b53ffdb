//! Machine words used as coefficient lanes: `u16`, `u32`, `u64`.
//!
//! Every lane width fixes the largest modulus it supports: the lazy (Harvey) NTT keeps values in
//! `[0, 4q)`, so `4q` must fit in the word, i.e. `q < 2^(BITS-2)`.
//!
//! | lane | largest modulus | typical use |
//! |------|-----------------|-------------|
//! | `u16` | `q < 2^14` | 12289, 7681, 3329, 3457, 4591 |
//! | `u32` | `q < 2^30` | 30-bit NFLlib primes |
//! | `u64` | `q < 2^62` | RNS / HE primes |
//!
//! All helpers here are branch-free: conditional subtraction uses the borrow of a wrapping
//! subtraction turned into a mask, never an `if` on the data.

use core::fmt::Debug;
use core::hash::Hash;

use super::modulus::Modulus;

mod private {
    pub trait Sealed {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// An unsigned machine word used as a coefficient lane (sealed: `u16`, `u32`, `u64`).
///
/// ```
/// use latpoly::arith::Word;
///
/// /// `2a mod q` for `a < q`, written once for every lane width.
/// fn double_mod<W: Word>(a: W, q: W) -> W {
///     a.wrapping_add(a).csub(q)
/// }
/// assert_eq!(double_mod(12288u16, 12289), 12287);
/// assert_eq!(double_mod(5u64, 12289), 10);
/// assert_eq!(<u32 as Word>::MAX_MODULUS_BITS, 30);
/// ```
pub trait Word:
    private::Sealed
    + Copy
    + Clone
    + Eq
    + Ord
    + Default
    + Debug
    + Hash
    + Send
    + Sync
    + zeroize::DefaultIsZeroes
    + 'static
{
    /// Width of the word in bits.
    const BITS: u32;
    /// Largest supported modulus size in bits (`q < 2^MAX_MODULUS_BITS`), leaving two bits of
    /// headroom for lazy reduction.
    const MAX_MODULUS_BITS: u32;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The modulus type whose residues live in this word.
    type Modulus: Modulus<W = Self>;

    /// Truncating conversion from `u64` (keeps the low `BITS` bits).
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// assert_eq!(<u16 as Word>::from_u64(0x1_2345), 0x2345);
    /// assert_eq!(<u64 as Word>::from_u64(u64::MAX), u64::MAX);
    /// ```
    fn from_u64(x: u64) -> Self;
    /// Widening conversion to `u64`.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// assert_eq!(Word::to_u64(0xffffu16), 65535);
    /// assert_eq!(Word::to_u64(u32::MAX), 0xffff_ffff);
    /// ```
    fn to_u64(self) -> u64;
    /// `self + rhs mod 2^BITS`.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// assert_eq!(Word::wrapping_add(0xfffeu16, 3), 1);
    /// ```
    fn wrapping_add(self, rhs: Self) -> Self;
    /// `self - rhs mod 2^BITS`.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// assert_eq!(Word::wrapping_sub(1u32, 2), u32::MAX);
    /// ```
    fn wrapping_sub(self, rhs: Self) -> Self;
    /// `self * rhs mod 2^BITS`.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// assert_eq!(Word::wrapping_mul(0x100u16, 0x101), 0x100); // 0x10100 mod 2^16
    /// ```
    fn wrapping_mul(self, rhs: Self) -> Self;
    /// High half of the double-width product: `floor(self * rhs / 2^BITS)`.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// let (a, b) = (0xdead_beef_1234_5678u64, 0x0fed_cba9_8765_4321u64);
    /// assert_eq!(a.mul_hi(b), ((a as u128 * b as u128) >> 64) as u64);
    /// assert_eq!(0xffffu16.mul_hi(0xffff), 0xfffe);
    /// ```
    fn mul_hi(self, rhs: Self) -> Self;
    /// `self - rhs` and the borrow (1 if `self < rhs`), computed without branches.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// assert_eq!(3u16.sub_borrow(5), (65534, 1));
    /// assert_eq!(5u16.sub_borrow(3), (2, 0));
    /// ```
    fn sub_borrow(self, rhs: Self) -> (Self, Self);

    /// Branch-free conditional subtraction: returns `self - m` if `self >= m`, else `self`.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// let q = 12289u16;
    /// assert_eq!(12288u16.csub(q), 12288);
    /// assert_eq!(12289u16.csub(q), 0);
    /// assert_eq!(24577u16.csub(q), 12288); // one subtraction only: [0, 2q) -> [0, q)
    /// ```
    #[inline(always)]
    fn csub(self, m: Self) -> Self {
        let (t, borrow) = self.sub_borrow(m);
        // borrow is 0 or 1; mask is all-ones when we must add m back. The barrier sits on the
        // borrow itself, so LLVM cannot turn `0 - borrow` and the masked add back into a
        // select, which its x86 backend may lower to a data-dependent branch inside loops. (A
        // barrier on the mask came too late: for 16-bit words LLVM built the mask with a `jb`
        // over the constant, which Valgrind flagged in the scalar NTT of LPR key generation.)
        let mask = Self::ZERO.wrapping_sub(borrow.barrier());
        t.wrapping_add(m.and(mask))
    }

    /// Returns `self` unchanged, but opaque to the optimiser (an empty `asm!` on the register).
    /// Put it on a borrow or carry bit before it becomes a mask: LLVM may build a mask from a
    /// known 0/1 value with a branch, before a barrier on the mask itself.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// let borrow = 3u32.sub_borrow(5).1;
    /// let mask = 0u32.wrapping_sub(borrow.barrier()); // all-ones, built where LLVM cannot see a 0/1
    /// assert_eq!(mask, u32::MAX);
    /// assert_eq!(Word::and(7681u32, mask), 7681);
    /// ```
    fn barrier(self) -> Self;

    /// Bitwise and.
    ///
    /// ```
    /// use latpoly::arith::Word;
    /// assert_eq!(Word::and(0b1100u16, 0b1010), 0b1000);
    /// ```
    fn and(self, rhs: Self) -> Self;
}

macro_rules! impl_word {
    ($t:ty, $d:ty, $bits:expr, $maxbits:expr, $m:ty) => {
        impl Word for $t {
            const BITS: u32 = $bits;
            const MAX_MODULUS_BITS: u32 = $maxbits;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            type Modulus = $m;

            #[inline(always)]
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn wrapping_add(self, rhs: Self) -> Self {
                <$t>::wrapping_add(self, rhs)
            }
            #[inline(always)]
            fn wrapping_sub(self, rhs: Self) -> Self {
                <$t>::wrapping_sub(self, rhs)
            }
            #[inline(always)]
            fn wrapping_mul(self, rhs: Self) -> Self {
                <$t>::wrapping_mul(self, rhs)
            }
            #[inline(always)]
            fn mul_hi(self, rhs: Self) -> Self {
                ((self as $d * rhs as $d) >> $bits) as $t
            }
            #[inline(always)]
            fn sub_borrow(self, rhs: Self) -> (Self, Self) {
                let (t, b) = self.overflowing_sub(rhs);
                (t, b as $t)
            }
            #[inline(always)]
            fn and(self, rhs: Self) -> Self {
                self & rhs
            }
            #[inline(always)]
            fn barrier(self) -> Self {
                super::ct::barrier(self)
            }
        }
    };
}

impl_word!(u16, u32, 16, 14, super::modulus::Modulus16);
impl_word!(u32, u64, 32, 30, super::modulus::Modulus32);
impl_word!(u64, u128, 64, 62, super::modulus::Modulus64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csub_is_conditional_subtraction() {
        for x in [0u64, 1, 5, 6, 7, u64::MAX] {
            let m = 6u64;
            let want = if x >= m { x - m } else { x };
            assert_eq!(x.csub(m), want);
        }
        for x in 0..=u16::MAX {
            let want = if x >= 12289 { x - 12289 } else { x };
            assert_eq!(x.csub(12289), want);
        }
    }

    #[test]
    fn mul_hi_matches_wide_product() {
        let a = 0xdead_beef_1234_5678u64;
        let b = 0x0fed_cba9_8765_4321u64;
        assert_eq!(a.mul_hi(b), ((a as u128 * b as u128) >> 64) as u64);
        assert_eq!(0xffffu16.mul_hi(0xffff), 0xfffe);
    }
}
