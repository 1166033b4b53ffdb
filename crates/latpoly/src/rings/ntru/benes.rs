//! Fixed bit permutations of up to 1024 bits by a Beneš network of masked swaps.
//!
//! The `2^k`-th power map of `F_2[x]/(x^n - 1)` (a run of `k` squarings in the `R_2` inverse of
//! `r2_clmul.rs`) moves bit `i` to bit `i · 2^k mod n`: a permutation known in advance. Moving
//! the bits one at a time costs a few operations per bit (~2,500 for `n = 509`). A Beneš network
//! on `N = 2^L >= n` positions does any permutation in `2L - 1` stages; stage `s` swaps the bit
//! pairs `(p, p + d_s)` selected by a mask, with distances `N/2, N/4, ..., 1, ..., N/4, N/2`.
//! A stage is four or five word operations per 64-bit word (a "delta swap"), so a permutation
//! of 512 bits is 17 stages of 8 words, of 1024 bits 19 stages of 16 words: a few hundred
//! operations. The masks come from the classic looping algorithm ([`Benes::new`]), once per
//! permutation.
//!
//! The masks depend on the permutation alone (public: `n` and `k`), and every stage is the same
//! sequence of word operations whatever the data, so applying a network is constant time.

/// A Beneš network for one permutation of `N = 64 · words` bit positions (`N` a power of two).
#[derive(Clone, Debug)]
pub(super) struct Benes {
    /// Swap distance and mask (bit `p` set: swap bits `p` and `p + d`) of each stage, in order.
    stages: Vec<(usize, Vec<u64>)>,
}

impl Benes {
    /// The network that moves bit `i` to bit `dest[i]`. `dest` is a permutation of
    /// `0 .. dest.len()`, and `dest.len()` a power of two, at least 64.
    pub(super) fn new(dest: &[usize]) -> Self {
        let size = dest.len();
        assert!(size.is_power_of_two() && size >= 64);
        let levels = size.trailing_zeros() as usize;
        let words = size / 64;
        let mut stages: Vec<(usize, Vec<u64>)> = (0..2 * levels - 1)
            .map(|s| {
                let level = s.min(2 * levels - 2 - s);
                (size >> (level + 1), vec![0u64; words])
            })
            .collect();
        route(dest, 0, 0, &mut stages);
        Self { stages }
    }

    /// Applies the permutation to the bits of `x` (`64 · WP` bits, the network's size).
    #[inline(always)]
    pub(super) fn apply<const WP: usize>(&self, x: &mut [u64; WP]) {
        for (d, mask) in &self.stages {
            let (d, mask) = (*d, &mask[..WP]);
            if d >= 64 {
                // A power of two: the lower words of the pairs are those with this bit clear.
                let dw = d / 64;
                for i in 0..WP {
                    if i & dw == 0 {
                        let t = (x[i] ^ x[i + dw]) & mask[i];
                        x[i] ^= t;
                        x[i + dw] ^= t;
                    }
                }
            } else {
                for (xi, &m) in x.iter_mut().zip(mask) {
                    let t = ((*xi >> d) ^ *xi) & m;
                    *xi ^= t ^ (t << d);
                }
            }
        }
    }
}

/// Sets the swap bits of the block of `dest.len()` positions starting at `base`, recursion
/// level `level` (its outer stages are `level` and `2L - 2 - level`).
fn route(dest: &[usize], base: usize, level: usize, stages: &mut [(usize, Vec<u64>)]) {
    let m = dest.len();
    let h = m / 2;
    let last = stages.len() - 1;
    let set = |stages: &mut [(usize, Vec<u64>)], s: usize, pos: usize| {
        stages[s].1[pos / 64] |= 1 << (pos % 64);
    };
    if m == 2 {
        if dest[0] == 1 {
            set(stages, level, base);
        }
        return;
    }
    let mut src = vec![0usize; m];
    for (x, &y) in dest.iter().enumerate() {
        src[y] = x;
    }
    // Subnetwork of each input (0: the lower half, 1: the upper one). The two inputs of a pair
    // (x, x ^ h) take different subnetworks, and so do the two inputs whose outputs form a pair:
    // follow the cycles these constraints link.
    let mut sub = vec![u8::MAX; m];
    for start in 0..h {
        let mut x = start;
        while sub[x] == u8::MAX {
            sub[x] = 0;
            sub[x ^ h] = 1;
            x = src[dest[x ^ h] ^ h];
        }
    }
    let mut inner = [vec![0usize; h], vec![0usize; h]];
    for x in 0..m {
        let c = usize::from(sub[x]);
        inner[c][x % h] = dest[x] % h;
        // Input stage: the lower input of a pair swaps when it goes to the upper half.
        if x < h && c == 1 {
            set(stages, level, base + x);
        }
        // Output stage: the lower half's output swaps when its destination is in the upper half.
        if c == 0 && dest[x] >= h {
            set(stages, last - level, base + dest[x] % h);
        }
    }
    let [lo, hi] = inner;
    route(&lo, base, level + 1, stages);
    route(&hi, base + h, level + 1, stages);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<const WP: usize>(dest: &[usize], seed: u64) {
        let net = Benes::new(dest);
        let mut s = seed;
        for _ in 0..8 {
            let mut x = [0u64; WP];
            for w in x.iter_mut() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                *w = s;
            }
            let mut want = [0u64; WP];
            for (i, &d) in dest.iter().enumerate() {
                want[d / 64] |= ((x[i / 64] >> (i % 64)) & 1) << (d % 64);
            }
            net.apply(&mut x);
            assert_eq!(x, want);
        }
        // Each single bit lands where it should.
        for (i, &d) in dest.iter().enumerate() {
            let mut x = [0u64; WP];
            x[i / 64] = 1 << (i % 64);
            net.apply(&mut x);
            let mut want = [0u64; WP];
            want[d / 64] = 1 << (d % 64);
            assert_eq!(x, want, "bit {i}");
        }
    }

    #[test]
    fn networks_realise_their_permutations() {
        // The power maps of the R2 inverse, the identity, a reversal, a rotation and random
        // permutations, on 64 to 1024 positions.
        for (n, size) in [(509usize, 512usize), (677, 1024), (701, 1024), (821, 1024)] {
            for k in [1usize, 2, 5, 31, 63, 126, 250] {
                let c = (0..k).fold(1usize, |c, _| 2 * c % n);
                let dest: Vec<usize> = (0..size)
                    .map(|i| if i < n { i * c % n } else { i })
                    .collect();
                if size == 512 {
                    check::<8>(&dest, k as u64);
                } else {
                    check::<16>(&dest, k as u64);
                }
            }
        }
        let ident: Vec<usize> = (0..64).collect();
        check::<1>(&ident, 1);
        let rev: Vec<usize> = (0..256).rev().collect();
        check::<4>(&rev, 2);
        let rot: Vec<usize> = (0..128).map(|i| (i + 37) % 128).collect();
        check::<2>(&rot, 3);
        let mut s = 99u64;
        for _ in 0..20 {
            let mut dest: Vec<usize> = (0..1024).collect();
            for i in (1..dest.len()).rev() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                dest.swap(i, (s % (i as u64 + 1)) as usize);
            }
            check::<16>(&dest, s);
        }
    }
}
