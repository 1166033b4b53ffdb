//! Optimisation barriers for constant-time code.
//!
//! LLVM recognises `t + (m & mask)` with `mask = 0 - borrow` as a select and, inside loops, its
//! x86 backend may lower selects to conditional branches (the "cmov conversion" pass), which
//! leaks the data through timing. Passing the mask through an empty `asm!` block hides its
//! origin, so the arithmetic stays arithmetic. The barrier emits no instruction.
#![allow(unsafe_code)]

/// Integer types the barrier accepts (all fit a general-purpose register).
///
/// ```
/// use latpoly::arith::ct::Opaque;
///
/// /// `a` if `choose_a`, else `b`, by masking (no branch on `choose_a`).
/// fn select<T: Opaque + Into<u64>>(choose_a: bool, a: T, b: T) -> u64 {
///     let mask = (0u64.wrapping_sub(choose_a as u64)).opaque();
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
/// // The mask of a borrow, as the reductions build it: all-ones iff a < b.
/// let (a, b) = (3u64, 7u64);
/// let mask = barrier(0u64.wrapping_sub(a.overflowing_sub(b).1 as u64));
/// assert_eq!(mask, u64::MAX);
/// assert_eq!(barrier(7u16), 7);
/// ```
#[inline(always)]
pub fn barrier<T: Opaque>(x: T) -> T {
    x.opaque()
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
