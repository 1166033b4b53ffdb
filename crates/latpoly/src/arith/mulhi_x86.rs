//! High halves of 16-bit lane products (`vpmulhw`, `vpmulhuw`) as single instructions.
//!
//! stdarch implements `_mm256_mulhi_epi16` / `_mm256_mulhi_epu16` and their 512-bit twins with
//! generic IR (extend to 32 bits, multiply, shift, truncate). When one operand is loop-invariant
//! (a broadcast twiddle, a Barrett or division constant) LLVM hoists its extension out of the loop
//! and then rebuilds every product from two 32-bit-lane halves (`vpmovzxwd` / `vpmovsxwd` x2,
//! the multiplication x2, `vpmovdw` x2, `vinserti64x4`): seven instructions where one does. An
//! empty `asm!` barrier on the operands (`inout`) avoided that but made the register allocator
//! copy every operand still live afterwards. These wrappers emit the instruction itself, with
//! input-only operands. Used by the 16-bit NTT backends and the NTRU, NTRU Prime and NTRU+
//! kernels.

#![allow(unsafe_code)]

use core::arch::x86_64::{__m256i, __m512i};

macro_rules! mulhi_asm {
    ($(#[$doc:meta])* $name:ident, $insn:literal, $ty:ty, $reg:ident, $feat:literal) => {
        $(#[$doc])*
        #[target_feature(enable = $feat)]
        #[inline]
        pub(crate) fn $name(a: $ty, b: $ty) -> $ty {
            let r: $ty;
            // SAFETY: one register-only instruction of this function's target feature: no
            // memory access, no stack use, flags untouched; the result depends only on the
            // inputs.
            unsafe {
                core::arch::asm!(
                    concat!($insn, " {r}, {a}, {b}"),
                    r = lateout($reg) r,
                    a = in($reg) a,
                    b = in($reg) b,
                    options(pure, nomem, nostack, preserves_flags)
                );
            }
            r
        }
    };
}

mulhi_asm!(
    /// `vpmulhw` on 16 lanes: the high 16 bits of the signed products.
    mulhi_epi16_256, "vpmulhw", __m256i, ymm_reg, "avx2"
);
mulhi_asm!(
    /// `vpmulhuw` on 16 lanes: the high 16 bits of the unsigned products.
    mulhi_epu16_256, "vpmulhuw", __m256i, ymm_reg, "avx2"
);
mulhi_asm!(
    /// `vpmulhw` on 32 lanes (AVX-512BW).
    mulhi_epi16_512, "vpmulhw", __m512i, zmm_reg, "avx512bw"
);
mulhi_asm!(
    /// `vpmulhuw` on 32 lanes (AVX-512BW).
    mulhi_epu16_512, "vpmulhuw", __m512i, zmm_reg, "avx512bw"
);

#[cfg(test)]
mod tests {
    use super::*;
    use core::arch::x86_64::*;

    /// Each wrapper against the stdarch intrinsic, on lane values covering the sign and
    /// magnitude edges.
    #[test]
    fn wrappers_match_the_intrinsics() {
        let vals: [i16; 16] = [
            0,
            1,
            -1,
            2,
            -2,
            255,
            -256,
            12289,
            -12289,
            16383,
            i16::MAX,
            i16::MIN,
            7681,
            3329,
            -3329,
            0x5a5a,
        ];
        if is_x86_feature_detected!("avx2") {
            for rot in 0..16 {
                let b: Vec<i16> = (0..16).map(|i| vals[(i + rot) % 16]).collect();
                // SAFETY: AVX2 was detected; the arrays are 32 readable bytes.
                unsafe {
                    let va = _mm256_loadu_si256(vals.as_ptr().cast());
                    let vb = _mm256_loadu_si256(b.as_ptr().cast());
                    let eq = |x: __m256i, y: __m256i| _mm256_movemask_epi8(_mm256_cmpeq_epi8(x, y));
                    assert_eq!(eq(mulhi_epi16_256(va, vb), _mm256_mulhi_epi16(va, vb)), -1);
                    assert_eq!(eq(mulhi_epu16_256(va, vb), _mm256_mulhi_epu16(va, vb)), -1);
                }
            }
        }
        if is_x86_feature_detected!("avx512bw") {
            let a: Vec<i16> = (0..32).map(|i| vals[i % 16]).collect();
            for rot in 0..32 {
                let b: Vec<i16> = (0..32).map(|i| vals[(i * 7 + rot) % 16]).collect();
                // SAFETY: AVX-512BW (so F) was detected; the arrays are 64 readable bytes.
                unsafe {
                    let va = _mm512_loadu_si512(a.as_ptr().cast());
                    let vb = _mm512_loadu_si512(b.as_ptr().cast());
                    let eq = |x: __m512i, y: __m512i| _mm512_cmpeq_epi16_mask(x, y);
                    assert_eq!(
                        eq(mulhi_epi16_512(va, vb), _mm512_mulhi_epi16(va, vb)),
                        u32::MAX
                    );
                    assert_eq!(
                        eq(mulhi_epu16_512(va, vb), _mm512_mulhi_epu16(va, vb)),
                        u32::MAX
                    );
                }
            }
        }
    }
}
