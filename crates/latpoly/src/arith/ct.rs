//! Optimisation barriers for constant-time code.
//!
//! LLVM recognises `t + (m & mask)` with `mask = 0 - borrow` as a select and, inside loops, its
//! x86 backend may lower selects to conditional branches (the "cmov conversion" pass), which
//! leaks the data through timing. Passing the 0/1 value the mask is built from (the borrow, a
//! compare, a sign bit) through an empty `asm!` block hides what it can be, so the negation and
//! the masked arithmetic stay arithmetic ([`mask_u64`], [`neg_mask_i64`] and their narrower
//! twins); a barrier on the finished mask comes too late (LLVM has already built it, for 16-bit
//! words with a branch). Element-wise loops that must keep vectorising take a sign mask by a
//! shift count the optimiser cannot see instead ([`opaque_shift`]). The barrier emits no
//! instruction.
#![allow(unsafe_code)]

/// Integer types the barrier accepts (all fit a general-purpose register).
///
/// ```
/// use latpoly::arith::ct::Opaque;
///
/// /// `a` if `choose_a`, else `b`, by masking (no branch on `choose_a`).
/// fn select<T: Opaque + Into<u64>>(choose_a: bool, a: T, b: T) -> u64 {
///     let mask = 0u64.wrapping_sub((choose_a as u64).opaque()); // barrier on the 0/1 value
///     (a.into() & mask) | (b.into() & !mask)
/// }
/// assert_eq!(select(true, 7u32, 9), 7);
/// assert_eq!(select(false, 7u16, 9), 9);
/// ```
pub trait Opaque: Copy {
    /// See [`barrier`].
    ///
    /// ```
    /// use latpoly::arith::ct::Opaque;
    /// assert_eq!(0xdead_beef_u64.opaque(), 0xdead_beef);
    /// assert_eq!((-3i64).opaque(), -3);
    /// ```
    fn opaque(self) -> Self;
}

impl Opaque for u64 {
    #[inline(always)]
    fn opaque(self) -> Self {
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        {
            let mut x = self;
            // SAFETY: an empty template with the value in a register: no memory access, no stack
            // use, flags untouched; the value is returned unchanged.
            unsafe {
                core::arch::asm!(
                    "/* {0} */",
                    inout(reg) x,
                    options(pure, nomem, nostack, preserves_flags)
                );
            }
            x
        }
        // Miri cannot run inline assembly; it checks semantics, not timing.
        #[cfg(any(not(any(target_arch = "x86_64", target_arch = "aarch64")), miri))]
        {
            core::hint::black_box(self)
        }
    }
}

macro_rules! opaque_via_u64 {
    ($($t:ty),*) => {$(
        impl Opaque for $t {
            #[inline(always)]
            fn opaque(self) -> Self {
                (self as u64).opaque() as $t
            }
        }
    )*};
}
opaque_via_u64!(u16, u32, i64);

/// Returns `x` unchanged, opaque to the optimiser.
///
/// ```
/// use latpoly::arith::ct::barrier;
/// // The mask of a borrow, as the reductions build it: all-ones iff a < b. The barrier goes
/// // on the 0/1 borrow, not on the mask (see [`mask_u64`]).
/// let (a, b) = (3u64, 7u64);
/// let mask = 0u64.wrapping_sub(barrier(a.overflowing_sub(b).1 as u64));
/// assert_eq!(mask, u64::MAX);
/// assert_eq!(barrier(7u16), 7);
/// ```
#[inline(always)]
pub fn barrier<T: Opaque>(x: T) -> T {
    x.opaque()
}

macro_rules! masks {
    ($($mask:ident, $neg:ident, $u:ty, $i:ty;)*) => {$(
        #[doc = concat!("All-ones iff `bit == 1` (`bit` must be 0 or 1), as `", stringify!($u), "`.")]
        ///
        /// The barrier sits on the bit, before it becomes a mask: LLVM knows a borrow, a compare
        /// or a top bit to be 0 or 1 and may build `0 - bit` as a select, which its x86 backend
        /// can lower to a conditional jump (it did so for 16-bit borrows); a barrier on the
        /// finished mask comes too late. Masks built here are plain negations of an opaque
        /// register.
        ///
        /// ```
        #[doc = concat!("use latpoly::arith::ct::", stringify!($mask), ";")]
        #[doc = concat!("assert_eq!(", stringify!($mask), "(1), ", stringify!($u), "::MAX);")]
        #[doc = concat!("assert_eq!(", stringify!($mask), "(0), 0);")]
        #[doc = concat!("let (a, b): (", stringify!($u), ", ", stringify!($u), ") = (3, 7);")]
        #[doc = concat!("let (t, borrow) = a.overflowing_sub(b);")]
        #[doc = concat!("assert_eq!(t.wrapping_add(b & ", stringify!($mask), "(borrow as ", stringify!($u), ")), a);")]
        /// ```
        #[inline(always)]
        pub fn $mask(bit: $u) -> $u {
            debug_assert!(bit <= 1);
            (0 as $u).wrapping_sub(barrier(bit))
        }

        #[doc = concat!("All-ones iff `x < 0`, as `", stringify!($u), "`: the sign bit, taken by a logical shift and")]
        #[doc = concat!("passed through the barrier before it becomes a mask ([`", stringify!($mask), "`]).")]
        ///
        /// ```
        #[doc = concat!("use latpoly::arith::ct::", stringify!($neg), ";")]
        #[doc = concat!("assert_eq!(", stringify!($neg), "(-1), ", stringify!($u), "::MAX);")]
        #[doc = concat!("assert_eq!(", stringify!($neg), "(", stringify!($i), "::MIN), ", stringify!($u), "::MAX);")]
        #[doc = concat!("assert_eq!(", stringify!($neg), "(0), 0);")]
        #[doc = concat!("assert_eq!(", stringify!($neg), "(", stringify!($i), "::MAX), 0);")]
        /// ```
        #[inline(always)]
        pub fn $neg(x: $i) -> $u {
            $mask((x as $u) >> (<$u>::BITS - 1))
        }
    )*};
}
masks! {
    mask_u64, neg_mask_i64, u64, i64;
    mask_u32, neg_mask_i32, u32, i32;
    mask_u16, neg_mask_i16, u16, i16;
}

/// A shift count, opaque to the optimiser, for sign masks in element-wise loops: with
/// `s = opaque_shift(15)`, `x >> s` is all-ones iff the `i16` `x` is negative, like `x >> 15`,
/// but LLVM cannot recognise it as a sign splat, so `(x >> s) & c` is not rewritten into
/// `select(x < 0, c, 0)` (which scalar code may lower to a branch). Unlike a barrier per
/// element, a loop-invariant count keeps the loop vectorisable (one uniform vector shift). Take
/// it once, outside the loop, and shift with `wrapping_shr`.
///
/// ```
/// use latpoly::arith::ct::opaque_shift;
/// let s = opaque_shift(15);
/// let q = 3457i16;
/// let r: Vec<i16> = [-5i16, 0, 7].iter().map(|&x| x + (x.wrapping_shr(s) & q)).collect();
/// assert_eq!(r, [3452, 0, 7]);
/// ```
#[inline(always)]
pub fn opaque_shift(count: u32) -> u32 {
    barrier(count)
}

/// `a mod 3` for any `u16`, by a multiplication and a shift written out: `floor(a / 3) =
/// (a · 43691) >> 17` for every `a < 2^17` (`43691 = ceil(2^17 / 3)`, whose excess
/// `3 · 43691 - 2^17 = 1` times `a` stays below `2^17`). The `%` operator compiles to the same
/// in optimised builds, but to a `div` instruction, whose time may depend on its operand,
/// without optimisation; the samplers and decoders apply this to secret values.
#[inline(always)]
pub(crate) fn mod3_u16(a: u16) -> u16 {
    let q = (u32::from(a) * 43_691) >> 17;
    (u32::from(a) - 3 * q) as u16
}

/// `Choice(1)` iff `a == b` (lengths included), in constant time in the contents: the
/// differences are OR-ed eight bytes at a time and tested once, without a per-byte optimisation
/// barrier (so it runs at memory speed, unlike a byte-wise `subtle` comparison).
///
/// ```
/// use latpoly::arith::ct::bytes_equal;
/// assert!(bool::from(bytes_equal(b"latpoly", b"latpoly")));
/// assert!(!bool::from(bytes_equal(b"latpoly", b"latpolz")));
/// assert!(!bool::from(bytes_equal(b"lat", b"latpoly")));
/// ```
pub fn bytes_equal(a: &[u8], b: &[u8]) -> subtle::Choice {
    let mut d = (a.len() ^ b.len()) as u64;
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        let x = u64::from_le_bytes(x.try_into().unwrap_or([0; 8]));
        let y = u64::from_le_bytes(y.try_into().unwrap_or([0; 8]));
        d |= x ^ y;
    }
    for (&x, &y) in ra.iter().zip(rb) {
        d |= u64::from(x ^ y);
    }
    let d = barrier(d);
    // the top bit of d | -d is set iff d != 0
    subtle::Choice::from((((d | d.wrapping_neg()) >> 63) as u8) ^ 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`mod3_u16`] against `%` on every `u16`.
    #[test]
    fn mod3_u16_is_exact() {
        for a in 0..=u16::MAX {
            assert_eq!(mod3_u16(a), a % 3, "{a}");
        }
    }

    /// The sign masks against the comparison, on every `i16` and the edges of the wider types;
    /// the bit masks on 0 and 1.
    #[test]
    fn masks_match_comparisons() {
        for x in i16::MIN..=i16::MAX {
            assert_eq!(neg_mask_i16(x), if x < 0 { u16::MAX } else { 0 }, "{x}");
            assert_eq!(
                neg_mask_i32(x.into()),
                if x < 0 { u32::MAX } else { 0 },
                "{x}"
            );
            let s = opaque_shift(15);
            assert_eq!(x.wrapping_shr(s), if x < 0 { -1 } else { 0 }, "{x}");
        }
        for x in [
            i64::MIN,
            i64::MIN + 1,
            -1,
            0,
            1,
            i64::MAX,
            1 << 62,
            -(1 << 62),
        ] {
            assert_eq!(neg_mask_i64(x), if x < 0 { u64::MAX } else { 0 }, "{x}");
            let y = x as i32;
            assert_eq!(neg_mask_i32(y), if y < 0 { u32::MAX } else { 0 }, "{y}");
        }
        assert_eq!((mask_u16(0), mask_u16(1)), (0, u16::MAX));
        assert_eq!((mask_u32(0), mask_u32(1)), (0, u32::MAX));
        assert_eq!((mask_u64(0), mask_u64(1)), (0, u64::MAX));
    }

    #[test]
    fn barrier_is_identity() {
        assert_eq!(super::barrier(0xdead_beef_u64), 0xdead_beef);
        assert_eq!(super::barrier(7u16), 7);
        assert_eq!(super::barrier(-3i64), -3);
    }

    #[test]
    fn bytes_equal_matches_slice_equality() {
        let a: Vec<u8> = (0..100u8).collect();
        for len in 0..100 {
            assert!(bool::from(super::bytes_equal(&a[..len], &a[..len])));
            for i in 0..len {
                for bit in [1u8, 0x80] {
                    let mut b = a[..len].to_vec();
                    b[i] ^= bit;
                    assert!(!bool::from(super::bytes_equal(&a[..len], &b)), "{len} {i}");
                }
            }
            if len > 0 {
                assert!(!bool::from(super::bytes_equal(&a[..len], &a[..len - 1])));
            }
        }
    }
}
