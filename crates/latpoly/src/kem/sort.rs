//! Constant-time sorting for the KEM samplers: the djbsort sorting network on 32-bit words
//! (NTRU Prime's `Short_fromlist` sorts `u32`, NTRU-HPS's `sample_fixed_type` sorts `i32`).
//! The sequence of compare-exchanges depends only on the length, and each compare-exchange is
//! branch-free, so neither branches nor memory indices depend on the values.

use crate::arith::ct::barrier;

/// Branch-free compare-exchange: `(min, max)` of two `u32` (the mask is hidden from the
/// optimiser so no branch or cmov conversion appears).
#[inline(always)]
fn minmax(a: &mut u32, b: &mut u32) {
    let d = i64::from(*b) - i64::from(*a);
    let mask = barrier((d >> 63) as u64) as u32; // all-ones iff b < a
    let t = (*a ^ *b) & mask;
    *a ^= t;
    *b ^= t;
}

/// Sorts `x` ascending as unsigned integers with the djbsort sorting network.
pub(crate) fn sort_u32(x: &mut [u32]) {
    let n = x.len();
    if n < 2 {
        return;
    }
    let mut top = 1;
    while top < n - top {
        top += top;
    }
    let mut p = top;
    while p > 0 {
        for i in 0..n - p {
            if i & p == 0 {
                let (lo, hi) = x.split_at_mut(i + p);
                minmax(&mut lo[i], &mut hi[0]);
            }
        }
        let mut i = 0;
        let mut q = top;
        while q > p {
            while i < n - q {
                if i & p == 0 {
                    let mut a = x[i + p];
                    let mut r = q;
                    while r > p {
                        minmax(&mut a, &mut x[i + r]);
                        r >>= 1;
                    }
                    x[i + p] = a;
                }
                i += 1;
            }
            q >>= 1;
        }
        p >>= 1;
    }
}

/// Sorts words ascending **as signed `i32`** (stored as `u32` bit patterns): flipping the sign
/// bit maps the signed order onto the unsigned one, so this is [`sort_u32`] between two flips.
pub(crate) fn sort_i32_bits(x: &mut [u32]) {
    const SIGN: u32 = 0x8000_0000;
    x.iter_mut().for_each(|v| *v ^= SIGN);
    sort_u32(x);
    x.iter_mut().for_each(|v| *v ^= SIGN);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_network_sorts() {
        let mut x: Vec<u32> = (0..761u32)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ (i << 29))
            .collect();
        let mut y = x.clone();
        sort_u32(&mut x);
        y.sort_unstable();
        assert_eq!(x, y);
        for n in 0..40u32 {
            let mut x: Vec<u32> = (0..n).map(|i| (n - i).wrapping_mul(0x9e37_79b9)).collect();
            let mut y = x.clone();
            sort_u32(&mut x);
            y.sort_unstable();
            assert_eq!(x, y, "n = {n}");
        }
    }

    #[test]
    fn signed_sort_orders_as_i32() {
        for n in [0usize, 1, 2, 3, 508, 676, 820] {
            let mut x: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i << 30))
                .collect();
            x.extend([0, u32::MAX, 0x8000_0000, 0x7fff_ffff]);
            let mut y: Vec<i32> = x.iter().map(|&v| v as i32).collect();
            sort_i32_bits(&mut x);
            y.sort_unstable();
            assert_eq!(
                x.iter().map(|&v| v as i32).collect::<Vec<_>>(),
                y,
                "n = {n}"
            );
        }
    }
}
