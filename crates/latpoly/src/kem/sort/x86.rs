//! AVX2 twin of the scalar sorting network: a bitonic network on 8-lane `u32` vectors.
//!
//! The input is padded with `u32::MAX` to a power of two `N >= 16`, sorted by the bitonic
//! network (`log2(N)(log2(N)+1)/2` stages of `N/2` compare-exchanges), and the first `n`
//! words are copied back (the padding sorts to the end). Every stage is a fixed sequence of
//! vector `min`/`max`, lane permutations and blends whose order and addresses depend only on
//! the length, so no branch and no memory index depends on the values.
//!
//! A [`Avx2Sort`] token can only be built by `try_new`, which checks the CPU at run time;
//! holding one is the proof the `unsafe` intrinsic calls below rely on.

#![allow(unsafe_code)]

use core::arch::x86_64::*;

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Sort(());

impl Avx2Sort {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }

    /// Sorts `x` ascending (unsigned).
    pub(crate) fn sort_u32(self, x: &mut [u32]) {
        // SAFETY: the token proves AVX2.
        unsafe { self.tf_sort_u32(x) }
    }

    #[target_feature(enable = "avx2")]
    fn tf_sort_u32(self, x: &mut [u32]) {
        let n = x.len();
        if n < 2 {
            return;
        }
        let big = n.next_power_of_two().max(16);
        let vecs = big / 8;
        let mut v: Vec<__m256i> = Vec::with_capacity(vecs);
        for k in 0..vecs {
            let mut lane = [u32::MAX; 8];
            let lo = (8 * k).min(n);
            let hi = (8 * k + 8).min(n);
            lane[..hi - lo].copy_from_slice(&x[lo..hi]);
            // SAFETY: AVX2 (token); `lane` has 8 readable u32.
            v.push(unsafe { _mm256_loadu_si256(lane.as_ptr().cast()) });
        }
        // lane index vector and per-lane helpers for the in-vector stages
        // SAFETY: AVX2 (token) for every intrinsic of this function; no memory access.
        let lane_idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mut k = 2;
        while k <= big {
            let mut j = k / 2;
            while j > 0 {
                if j >= 8 {
                    // partners in different vectors, same lane; direction constant per vector
                    let (jv, kv) = (j / 8, k / 8);
                    for a in 0..vecs {
                        let b = a ^ jv;
                        if b > a {
                            let (mn, mx) =
                                (_mm256_min_epu32(v[a], v[b]), _mm256_max_epu32(v[a], v[b]));
                            if a & kv == 0 {
                                (v[a], v[b]) = (mn, mx);
                            } else {
                                (v[a], v[b]) = (mx, mn);
                            }
                        }
                    }
                } else {
                    // partners inside a vector: lane l with lane l ^ j
                    let jj = _mm256_set1_epi32(j as i32);
                    let lower =
                        _mm256_cmpeq_epi32(_mm256_and_si256(lane_idx, jj), _mm256_setzero_si256());
                    for (a, va) in v.iter_mut().enumerate() {
                        let w = match j {
                            4 => _mm256_permute2x128_si256::<0x01>(*va, *va),
                            2 => _mm256_shuffle_epi32::<0b01_00_11_10>(*va),
                            _ => _mm256_shuffle_epi32::<0b10_11_00_01>(*va),
                        };
                        let (mn, mx) = (_mm256_min_epu32(*va, w), _mm256_max_epu32(*va, w));
                        // ascending lanes: bit k of the element index is 0
                        let asc = if k >= 8 {
                            if (8 * a) & k == 0 {
                                _mm256_set1_epi32(-1)
                            } else {
                                _mm256_setzero_si256()
                            }
                        } else {
                            let kk = _mm256_set1_epi32(k as i32);
                            _mm256_cmpeq_epi32(
                                _mm256_and_si256(lane_idx, kk),
                                _mm256_setzero_si256(),
                            )
                        };
                        // the minimum goes where "lower" equals "ascending"
                        let take_min =
                            _mm256_xor_si256(_mm256_xor_si256(lower, asc), _mm256_set1_epi32(-1));
                        *va = _mm256_blendv_epi8(mx, mn, take_min);
                    }
                }
                j /= 2;
            }
            k *= 2;
        }
        for (k, va) in v.iter().enumerate() {
            let mut lane = [0u32; 8];
            // SAFETY: AVX2 (token); `lane` has 8 writable u32.
            unsafe { _mm256_storeu_si256(lane.as_mut_ptr().cast(), *va) };
            let lo = (8 * k).min(n);
            let hi = (8 * k + 8).min(n);
            x[lo..hi].copy_from_slice(&lane[..hi - lo]);
        }
        // wipe the copies (the values may be secret)
        for va in v.iter_mut() {
            *va = _mm256_setzero_si256();
        }
        core::hint::black_box(&v);
    }
}
