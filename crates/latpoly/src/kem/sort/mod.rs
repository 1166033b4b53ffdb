//! Constant-time sorting for the KEM samplers: the djbsort sorting network on 32-bit words
//! (NTRU Prime's `Short_fromlist` sorts `u32`; NTRU-HPS's `sample_fixed_type` sorts `i32`,
//! which is a `u32` sort of the words with their sign bit flipped).
//! The sequence of compare-exchanges depends only on the length, and each compare-exchange is
//! branch-free, so neither branches nor memory indices depend on the values.
//!
//! [`sort_u32`] runs the bitonic network of [`x86`] on AVX-512 (16 lanes, up to 1024 words) or
//! AVX2 (8 lanes) when the CPU has it (capped by `LATPOLY_ISA`, read once), else the scalar
//! djbsort network [`sort_u32_scalar`]; all of them sort, so their outputs are identical.

#[cfg(target_arch = "x86_64")]
mod x86;

use crate::arith::ct::mask_u32;
use crate::isa::Isa;
use std::sync::OnceLock;

/// Branch-free compare-exchange: `(min, max)` of two `u32` (the mask is hidden from the
/// optimiser so no branch or cmov conversion appears).
#[inline(always)]
fn minmax(a: &mut u32, b: &mut u32) {
    let d = i64::from(*b) - i64::from(*a);
    let mask = mask_u32(((d as u64) >> 63) as u32); // all-ones iff b < a
    let t = (*a ^ *b) & mask;
    *a ^= t;
    *b ^= t;
}

/// Sorts `x` ascending as unsigned integers with the djbsort sorting network.
pub(crate) fn sort_u32_scalar(x: &mut [u32]) {
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

/// The sorting backend of this process: the widest of AVX-512 / AVX2 the CPU runs, capped by
/// `LATPOLY_ISA`; scalar otherwise.
fn backend() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        let cap = Isa::env_cap().unwrap_or(Isa::Avx512Ifma);
        #[cfg(target_arch = "x86_64")]
        {
            if cap >= Isa::Avx512 && x86::Avx512Sort::try_new().is_some() {
                return Isa::Avx512;
            }
            if cap >= Isa::Avx2 && x86::Avx2Sort::try_new().is_some() {
                return Isa::Avx2;
            }
        }
        let _ = cap;
        Isa::Scalar
    })
}

/// Sorts `x` ascending as unsigned integers in constant time, on the best backend.
pub(crate) fn sort_u32(x: &mut [u32]) {
    sort_u32_isa(backend(), x)
}

/// [`sort_u32`] on the given backend (scalar when the CPU cannot run it).
fn sort_u32_isa(isa: Isa, x: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx512 && x.len() <= x86::AVX512_MAX {
        if let Some(t) = x86::Avx512Sort::try_new() {
            t.sort_u32(x);
            return;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        if let Some(t) = x86::Avx2Sort::try_new() {
            t.sort_u32(x);
            return;
        }
    }
    let _ = isa;
    sort_u32_scalar(x)
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
        sort_u32_scalar(&mut x);
        y.sort_unstable();
        assert_eq!(x, y);
        for n in 0..40u32 {
            let mut x: Vec<u32> = (0..n).map(|i| (n - i).wrapping_mul(0x9e37_79b9)).collect();
            let mut y = x.clone();
            sort_u32_scalar(&mut x);
            y.sort_unstable();
            assert_eq!(x, y, "n = {n}");
        }
    }

    /// Every backend the CPU runs sorts every length up to 1100 and some longer ones (the AVX2
    /// network's split into a power of two and a rest, recursively, and its heap buffers), on
    /// random words and on inputs with many repeats and extreme values (0, u32::MAX).
    #[test]
    fn backends_sort_every_length() {
        for isa in [Isa::Scalar, Isa::Avx2, Isa::Avx512] {
            for n in (0..1100u32).chain([1500, 1793, 2047, 2049, 2600, 3583]) {
                let mut x: Vec<u32> = (0..n)
                    .map(|i| {
                        let h = i.wrapping_mul(0x9e37_79b9) ^ n.wrapping_mul(0x85eb_ca6b);
                        match i % 5 {
                            0 => u32::MAX,
                            1 => 0,
                            2 => h % 7,
                            _ => h,
                        }
                    })
                    .collect();
                let mut y = x.clone();
                sort_u32_isa(isa, &mut x);
                y.sort_unstable();
                assert_eq!(x, y, "{isa:?}, n = {n}");
            }
        }
    }

    /// Every backend sorts uniformly random words (four inputs per length up to 1100): the
    /// vector networks' merges run their pairs in both directions, so a pair given the wrong
    /// direction leaves some random input unsorted.
    #[test]
    fn backends_sort_random_words() {
        let mut s = 0x0123_4567_89ab_cdefu64;
        for isa in [Isa::Scalar, Isa::Avx2, Isa::Avx512] {
            for n in 0..1100 {
                for _ in 0..4 {
                    let mut x: Vec<u32> = (0..n)
                        .map(|_| {
                            s ^= s << 13;
                            s ^= s >> 7;
                            s ^= s << 17;
                            (s >> 32) as u32
                        })
                        .collect();
                    let mut y = x.clone();
                    sort_u32_isa(isa, &mut x);
                    y.sort_unstable();
                    assert_eq!(x, y, "{isa:?}, n = {n}");
                }
            }
        }
    }
}
