//! Optimisation barriers for constant-time code.
//!
//! LLVM recognises `t + (m & mask)` with `mask = 0 - borrow` as a select and, inside loops, its
//! x86 backend may lower selects to conditional branches (the "cmov conversion" pass), which
//! leaks the data through timing. Passing the mask through an empty `asm!` block hides its
//! origin, so the arithmetic stays arithmetic. The barrier emits no instruction.
#![allow(unsafe_code)]

/// Integer types the barrier accepts (all fit a general-purpose register).
pub trait Opaque: Copy {
    /// See [`barrier`].
    fn opaque(self) -> Self;
}

impl Opaque for u64 {
    #[inline(always)]
    fn opaque(self) -> Self {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
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
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
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
#[inline(always)]
pub fn barrier<T: Opaque>(x: T) -> T {
    x.opaque()
}

#[cfg(test)]
mod tests {
    #[test]
    fn barrier_is_identity() {
        assert_eq!(super::barrier(0xdead_beef_u64), 0xdead_beef);
        assert_eq!(super::barrier(7u16), 7);
        assert_eq!(super::barrier(-3i64), -3);
    }
}
