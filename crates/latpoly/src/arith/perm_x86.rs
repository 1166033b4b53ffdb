//! Constant two-source permutations of 32 lanes of 16 bits (`vpermt2w` index vectors), applied
//! with `vpermt2d` whenever they move aligned pairs of words whole.
//!
//! `vpermt2w` is three micro-ops on Intel cores with AVX-512 (two of them on port 5: one
//! instruction every two cycles) and issues about one every 1.2 cycles on Zen 4; `vpermt2d` is a
//! single micro-op (one a cycle on both). The layout changes of NTRU Prime's transforms
//! mostly move pairs of words whole: every butterfly distance of two or more lanes does. A
//! [`Perm2W`] is built from the word indices at compile time and records whether its pairs stay
//! together; [`Perm2W::apply`] then runs the cheaper instruction, with the same result. (The
//! AVX-512 16-bit NTT steps between its layouts with cheaper shuffles and uses a [`Perm2W`]
//! only at distance 1, where words move one by one.)

#![allow(unsafe_code)]

use core::arch::x86_64::*;

/// A two-source permutation of 32 words: output lane `l` is lane `i mod 32` of `a` (`i < 32`)
/// or of `b` (`i >= 32`), `i = words[l] < 64` (the `vpermt2w` convention).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Perm2W {
    words: [i16; 32],
    dwords: [i32; 16],
    by_dword: bool,
}

impl Perm2W {
    /// The permutation with word indices `words` (each below 64).
    pub(crate) const fn new(words: [i16; 32]) -> Self {
        let mut dwords = [0i32; 16];
        let mut by_dword = true;
        let mut j = 0;
        while j < 16 {
            let (lo, hi) = (words[2 * j], words[2 * j + 1]);
            assert!(
                lo >= 0 && lo < 64 && hi >= 0 && hi < 64,
                "word index out of range"
            );
            // Output dword j is source dword lo / 2 exactly when its two words are the two
            // words of that dword, in order.
            if lo % 2 != 0 || hi != lo + 1 {
                by_dword = false;
            }
            dwords[j] = (lo / 2) as i32;
            j += 1;
        }
        Self {
            words,
            dwords,
            by_dword,
        }
    }

    /// Whether [`Perm2W::apply`] runs `vpermt2d` (the pairs of words move whole).
    pub(crate) const fn by_dword(&self) -> bool {
        self.by_dword
    }

    /// Whether the layout changes of a 32-lane butterfly network run as `vpermt2d` wherever
    /// they can: the deinterleave / interleave (`[log2 t]`, first and second output) at every
    /// distance `t >= 2`, the step down from `t >= 4` and the step up from `t >= 2` (those
    /// move pairs of words whole; the others do not). Asserted at compile time by the tables'
    /// owners, so a layout change that loses the cheaper instruction fails to build.
    pub(crate) const fn tables_by_dword(
        deint: &[[Perm2W; 2]; 5],
        inter: &[[Perm2W; 2]; 5],
        down: &[[Perm2W; 2]; 5],
        up: &[[Perm2W; 2]; 5],
    ) -> bool {
        const fn both(p: &[Perm2W; 2]) -> bool {
            p[0].by_dword() && p[1].by_dword()
        }
        let mut ok = true;
        let mut k = 1;
        while k < 5 {
            ok &= both(&deint[k]) && both(&inter[k]);
            if k >= 2 {
                ok &= both(&down[k]);
            }
            if k <= 3 {
                ok &= both(&up[k]);
            }
            k += 1;
        }
        ok
    }

    /// The permuted vector: `vpermt2d` when the permutation moves pairs of words whole,
    /// `vpermt2w` otherwise.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(crate) fn apply(&self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: 64-byte unaligned loads of the index arrays (16 i32 or 32 i16), both owned by
        // `self`; the permutes are register-only AVX-512F / AVX-512BW instructions, enabled on
        // this function.
        unsafe {
            if self.by_dword {
                let idx = _mm512_loadu_si512(self.dwords.as_ptr().cast());
                _mm512_permutex2var_epi32(a, idx, b)
            } else {
                let idx = _mm512_loadu_si512(self.words.as_ptr().cast());
                _mm512_permutex2var_epi16(a, idx, b)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every word of the output, through `apply`, is the word the indices name, for
    /// permutations that move pairs whole (run as `vpermt2d`) and for ones that do not.
    #[test]
    fn apply_is_the_word_permutation() {
        if !(is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")) {
            println!("skipped: no AVX-512F/BW on this CPU");
            return;
        }
        let a: [u16; 32] = core::array::from_fn(|i| 1000 + i as u16);
        let b: [u16; 32] = core::array::from_fn(|i| 2000 + i as u16);
        let mut seed = 0x1234_5678u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut kinds = [0usize; 2];
        for round in 0..400 {
            let words: [i16; 32] = if round % 2 == 0 {
                // pairs moved whole: dword indices spread to words
                let d: [i16; 16] = core::array::from_fn(|_| (next() % 32) as i16);
                core::array::from_fn(|l| 2 * d[l / 2] + (l % 2) as i16)
            } else {
                core::array::from_fn(|_| (next() % 64) as i16)
            };
            let p = Perm2W::new(words);
            kinds[p.by_dword() as usize] += 1;
            let mut out = [0u16; 32];
            // SAFETY: AVX-512F/BW checked above; 64-byte loads and store of 32-word arrays.
            unsafe {
                let va = _mm512_loadu_si512(a.as_ptr().cast());
                let vb = _mm512_loadu_si512(b.as_ptr().cast());
                _mm512_storeu_si512(out.as_mut_ptr().cast(), p.apply(va, vb));
            }
            for (l, &o) in out.iter().enumerate() {
                let i = words[l] as usize;
                let want = if i < 32 { a[i] } else { b[i - 32] };
                assert_eq!(o, want, "round {round} lane {l}");
            }
        }
        // both instructions ran (a random word permutation almost never moves pairs whole)
        assert!(kinds[0] > 100 && kinds[1] >= 200, "{kinds:?}");
    }

    #[test]
    fn pairs_detection() {
        let id: [i16; 32] = core::array::from_fn(|l| l as i16);
        assert!(Perm2W::new(id).by_dword());
        let mut swapped = id;
        swapped.swap(0, 1); // a pair moved whole but reversed: not a dword move
        assert!(!Perm2W::new(swapped).by_dword());
        let shifted: [i16; 32] = core::array::from_fn(|l| l as i16 + 1); // odd starts
        assert!(!Perm2W::new(shifted).by_dword());
        let from_b: [i16; 32] = core::array::from_fn(|l| 32 + l as i16);
        assert!(Perm2W::new(from_b).by_dword());
    }
}
