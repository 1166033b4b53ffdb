//! Branch-free building blocks shared by the samplers.
//!
//! Every function here is straight-line integer arithmetic on its arguments: no `if`, no
//! comparison operator whose result feeds a branch, no table lookup. All arithmetic is
//! wrapping (it cannot overflow, see the comments) so that builds with overflow checks do not
//! insert data-dependent branches either.
//!
//! Compilers can recognise a mask-based selection (`t + (m & mask)` with a 0/-1 mask) as a
//! `select` and emit a conditional jump for it (LLVM's x86 cmov-conversion pass does this in
//! loops). Where a mask selects between two values, the 0/1 value it is built from is passed
//! through the barrier first ([`crate::arith::ct::mask_u64`]), so the compiler cannot know the
//! mask is 0 or -1. The Valgrind test `tests/ct_sampling.rs` checks the compiled code.

/// `1` if `a < b`, else `0`: the borrow out of `a - b` (Hacker's Delight 2-13), branch-free.
#[inline(always)]
pub(crate) fn lt_u64(a: u64, b: u64) -> u64 {
    ((!a & b) | (!(a ^ b) & a.wrapping_sub(b))) >> 63
}

/// `floor(x m / 2^128)` for the 128-bit `x = hi 2^64 + lo`.
///
/// For uniform `x` every output in `[0, m)` has `floor(2^128/m)` or `ceil(2^128/m)` preimages,
/// so the output is within statistical distance `m / 2^129` of uniform on `[0, m)`. `m = 0` gives
/// 0.
#[inline(always)]
pub(crate) fn scale_128(hi: u64, lo: u64, m: u64) -> u64 {
    let m = m as u128;
    // floor(lo m / 2^64) < 2^64 and hi m <= (2^64 - 1)^2, so the sum is below 2^128 - 2^64:
    // the wrapping add never wraps.
    let carry = ((lo as u128) * m) >> 64;
    (((hi as u128) * m).wrapping_add(carry) >> 64) as u64
}

/// `-x` if `neg == 1`, `x` if `neg == 0` (two's complement, mask-based).
#[inline(always)]
pub(crate) fn cond_neg(x: u64, neg: u64) -> i64 {
    let mask = crate::arith::ct::mask_u64(neg);
    ((x ^ mask).wrapping_sub(mask)) as i64
}

/// `x & mask(bit)`: `x` if `bit == 1`, `0` if `bit == 0`.
#[inline(always)]
pub(crate) fn keep_if(x: u64, bit: u64) -> u64 {
    x & crate::arith::ct::mask_u64(bit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lt_matches_operator() {
        let vals = [
            0u64,
            1,
            2,
            3,
            1 << 63,
            (1 << 63) - 1,
            u64::MAX - 1,
            u64::MAX,
        ];
        for &a in &vals {
            for &b in &vals {
                assert_eq!(lt_u64(a, b), (a < b) as u64, "{a} < {b}");
            }
        }
    }

    #[test]
    fn scale_matches_wide_arithmetic() {
        for &m in &[1u64, 2, 3, 17, 12289, (1 << 62) - 57, u64::MAX] {
            for &(hi, lo) in &[
                (0u64, 0u64),
                (u64::MAX, u64::MAX),
                (1 << 63, 0),
                (12345, 678),
            ] {
                let x = (hi as u128) << 64 | lo as u128;
                // Independent oracle: the exact big-integer product.
                let want = (num_bigint::BigUint::from(x) * m) >> 128u32;
                let want = u64::try_from(want).unwrap();
                let got = scale_128(hi, lo, m);
                assert_eq!(got, want);
                assert!(got < m);
            }
        }
        assert_eq!(scale_128(u64::MAX, u64::MAX, u64::MAX), u64::MAX - 1);
        assert_eq!(scale_128(1 << 63, 0, 3), 1);
    }

    #[test]
    fn cond_neg_works() {
        assert_eq!(cond_neg(5, 0), 5);
        assert_eq!(cond_neg(5, 1), -5);
        assert_eq!(cond_neg(0, 1), 0);
        assert_eq!(cond_neg(1 << 62, 1), -(1 << 62));
        assert_eq!(keep_if(9, 1), 9);
        assert_eq!(keep_if(9, 0), 0);
    }
}
